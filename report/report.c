/* report.c - the headroom report of `solar report` (docs/report.md): manifest, gate, renderers.
 *
 * A manifest (JSON) lists models: an AIR file, a device, params, math mode, L2 state and a
 * measured time (a number, a `solar validate --json` result, a JSON file of times, or an
 * Nsight Compute CSV: report/measured.c reads them all).  Each model is one job (api/solar.h):
 * its three bounds, and headroom = measured / bound; against a baseline report, the change in
 * headroom.  The gate fails a model whose headroom exceeds its limit or grew by more than the
 * allowed regression, and any whose measured time is below the speed of light.  Renderers: a
 * Markdown summary (fit for a PR comment or $GITHUB_STEP_SUMMARY), a JSON report that is
 * itself a valid baseline, and an SVG roofline chart.  Every input error names the file and
 * the JSON path (`ci/solar.json: entries[2].measured: ...`); cli/cmd_report.c turns the
 * options into a solar_report_opts and the outcome into the exit status.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "api/detail.h"
#include "report/format.h"
#include "report/measured.h"
#include "report/report.h"
#include "report/svg.h"
#include "roofline/provision.h"

typedef struct {
	char *name;
	double ops, dram_bytes, time_s;
	int limiter;
	double measured_s; /* < 0: unknown */
} kernel_row;

typedef struct {
	char *name;
	char *air;         /* as written in the manifest */
	char *device_file; /* as written in the manifest */
	char *device_name;
	char *math;
	bool l2_cold; /* "l2": "cold": the measurement flushed the L2 (rule "L2 state") */
	cJSON *params;     /* {"B": 8} after -D resolution: the program's params */
	double measured_s; /* < 0: none */
	char *measured_from;
	double bound_s[SOLAR_BOUND_COUNT];
	int limiter[SOLAR_BOUND_COUNT];
	double bound_dram_bytes[SOLAR_BOUND_COUNT];
	double ops;
	kernel_row *kernel;
	int nkernels;
	double max_headroom; /* < 0: none */
	/* baseline */
	bool has_base;
	double base_headroom, base_measured_s; /* < 0: none */
	int base_index;                        /* its entries[] in the baseline */
	/* gate */
	bool fail;
	char reasons[512];
	/* roofline chart */
	solar_device *dev;
} entry;

typedef struct {
	const char *file; /* the manifest */
	char *dir;        /* its folder, for relative paths */
	bool error;
	solar_bound_kind bound;
	const solar_report_opts *o;
	solar_diag *diag; /* the channel on stderr every message of the report goes through */
} ctx;

/* A file the report reads: no output may overwrite it (the caller's hook). */
static void note_input(const ctx *c, const char *path, bool device)
{
	void (*f)(const char *) = device ? c->o->input_device : c->o->input;
	if (f)
		f(path);
}

/* `FILE: PATH: message` (solar_diag_path_error's spelling) on the report's channel, and the run
 * becomes an input error (exit 2). */
static void input_error(ctx *c, const char *file, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_vpath_error_in(c->diag, file, path, fmt, ap);
	va_end(ap);
	c->error = true;
}

static char *resolve(const ctx *c, const char *path)
{
	if (path[0] == '/' || !c->dir[0])
		return solar_xstrdup(path);
	size_t n = strlen(c->dir) + strlen(path) + 2;
	char *s = solar_xmalloc(n);
	snprintf(s, n, "%s/%s", c->dir, path);
	return s;
}

static cJSON *parse_json_file(ctx *c, const char *file)
{
	cJSON *j = solar_report_parse_json(file, c->diag);
	c->error |= !j;
	return j;
}

/* 6 significant digits: the reports stay stable across builds and readable. */
static double r6(double v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%.6g", v);
	return strtod(buf, NULL);
}

static cJSON *num(double v)
{
	return v >= 0 && isfinite(v) ? cJSON_CreateNumber(r6(v)) : cJSON_CreateNull();
}

/* An integer as JSON digits, exact at any size (docs/json.md). */
static cJSON *json_int(long long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", v);
	return cJSON_CreateRaw(buf);
}

static double entry_headroom(const entry *e, solar_bound_kind k)
{
	return e->measured_s > 0 && e->bound_s[k] > 0 ? e->measured_s / e->bound_s[k] : -1;
}

/* ---- measured times ------------------------------------------------------------------------ */

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcasecmp(s + a - b, suffix);
}

/* entries[i].measured: a number of seconds, a time string, a file (.json: validate, .csv:
 * ncu), or {"validate": FILE} / {"ncu": FILE}. */
static void load_measured(ctx *c, cJSON *m, const char *path, entry *e)
{
	const char *file = NULL, *kind = NULL;
	int runs = 1;
	char where[96];
	snprintf(where, sizeof where, "%s.measured", path);
	if (cJSON_IsNumber(m)) {
		if (m->valuedouble <= 0)
			input_error(c, c->file, where, "expected a positive time in seconds");
		e->measured_s = m->valuedouble;
		e->measured_from = solar_xstrdup("manifest");
		return;
	}
	if (cJSON_IsString(m)) {
		double t = solar_quantity_parse_time(m->valuestring);
		if (t > 0) {
			e->measured_s = t;
			e->measured_from = solar_xstrdup("manifest");
			return;
		}
		file = m->valuestring;
		kind = ends_with(file, ".csv") ? "ncu" : ends_with(file, ".json") ? "validate" : NULL;
	} else if (cJSON_IsObject(m) && m->child && !m->child->next && cJSON_IsString(m->child) &&
		   (!strcmp(m->child->string, "validate") || !strcmp(m->child->string, "ncu"))) {
		file = m->child->valuestring;
		kind = m->child->string;
	} else if (cJSON_IsObject(m) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m, "ncu")) &&
		   cJSON_GetArraySize(m) == 2) {
		/* {"ncu": FILE, "runs": N}: the export covers N forward passes */
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "runs");
		if (!cJSON_IsNumber(r) || r->valuedouble < 1 || r->valuedouble > 1e6 ||
		    r->valuedouble != (int)r->valuedouble) {
			char w2[128];
			snprintf(w2, sizeof w2, "%s.runs", where);
			input_error(c, c->file, w2, "expected a positive integer (forward passes "
						    "the ncu export covers)");
			return;
		}
		runs = (int)r->valuedouble;
		file = cJSON_GetObjectItemCaseSensitive(m, "ncu")->valuestring;
		kind = "ncu";
	}
	if (!kind) {
		input_error(c, c->file, where,
			    "expected a time (0.0012 or \"1.2ms\"), a file (*.json from solar "
			    "validate --json, *.csv from ncu --csv), or {\"validate\": FILE} or "
			    "{\"ncu\": FILE, \"runs\": N}");
		return;
	}
	char *full = resolve(c, file);
	note_input(c, full, false);
	solar_measured mt;
	const char **names = solar_xcalloc((size_t)e->nkernels + 1, sizeof *names);
	for (int k = 0; k < e->nkernels; k++)
		names[k] = e->kernel[k].name;
	solar_measured_init(&mt, e->nkernels);
	/* the one reader (report/measured.c); {"validate": FILE} insists on a validate result */
	int rc = solar_measured_read(full,
				     !strcmp(kind, "ncu") ? SOLAR_MEASURED_NCU
				     : cJSON_IsObject(m)  ? SOLAR_MEASURED_VALIDATE
							  : SOLAR_MEASURED_AUTO,
				     runs, names, e->nkernels, &mt, c->diag);
	free(names);
	e->measured_s = mt.total_s;
	for (int k = 0; k < e->nkernels; k++)
		e->kernel[k].measured_s = mt.kernel_s[k];
	const char *form = mt.form ? mt.form : kind;
	size_t n = strlen(form) + strlen(file) + 2;
	e->measured_from = solar_xmalloc(n);
	snprintf(e->measured_from, n, "%s:%s", form, file);
	if (rc < 0) {
		input_error(c, c->file, where, "cannot take a measured time from '%s'", file);
	}
	if (mt.validation_failed) {
		e->fail = true;
		snprintf(e->reasons + strlen(e->reasons), sizeof e->reasons - strlen(e->reasons),
			 "%svalidation failed (%s)", e->reasons[0] ? "; " : "", file);
	}
	solar_measured_free(&mt);
	free(full);
}

/* ---- one entry ------------------------------------------------------------------------------- */

static const char *json_string(ctx *c, cJSON *obj, const char *key, const char *path,
			       const char *fallback, bool required)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v) {
		if (required && !fallback)
			input_error(c, c->file, path, "missing \"%s\"", key);
		return fallback;
	}
	if (!cJSON_IsString(v) || !v->valuestring[0]) {
		char where[96];
		snprintf(where, sizeof where, "%s.%s", path, key);
		input_error(c, c->file, where, "expected a non-empty string");
		return NULL;
	}
	return v->valuestring;
}

static char *default_name(const char *air, cJSON *params)
{
	const char *base = strrchr(air, '/');
	base = base ? base + 1 : air;
	size_t n = strlen(base) + 256;
	char *s = solar_xmalloc(n);
	snprintf(s, n, "%.*s", (int)(ends_with(base, ".air") ? strlen(base) - 4 : strlen(base)), base);
	cJSON *p;
	cJSON_ArrayForEach(p, params)
	{
		size_t l = strlen(s);
		if (cJSON_IsString(p))
			snprintf(s + l, n - l, "%s%s=%s", p == params->child ? " " : ",", p->string,
				 p->valuestring);
		else
			snprintf(s + l, n - l, "%s%s=%.0f", p == params->child ? " " : ",", p->string,
				 p->valuedouble);
	}
	return s;
}

/* The keys an entry may have: any other is an error (a misspelt "measured" would otherwise be
 * ignored). */
static void entry_keys(ctx *c, cJSON *ej, const char *path)
{
	static const char *const known[] = {"name", "air",	"device",	"params",
					    "math", "measured", "max_headroom", "set", "l2"};
	cJSON *it;
	cJSON_ArrayForEach(it, ej)
	{
		bool ok = false;
		for (size_t i = 0; i < sizeof known / sizeof *known; i++)
			ok |= !strcmp(it->string, known[i]);
		if (!ok) {
			char where[96];
			snprintf(where, sizeof where, "%s.%s", path, it->string);
			input_error(c, c->file, where, "unknown key (expected name, air, device, params, "
						       "math, measured, max_headroom, set or l2)");
		}
	}
}

/* The question of one entry and what it owns (entry_question_free). */
typedef struct {
	solar_question q;
	const char *air, *device; /* as written */
	char *device_path;        /* the descriptor: beside the manifest, or a device name's */
	solar_job_define *defs;
	solar_question_set *sets; /* each where (and a number's text after it) one allocation */
} entry_question;

static void entry_question_free(entry_question *eq)
{
	for (int i = 0; i < eq->q.nsets; i++)
		free((char *)eq->sets[i].where);
	free(eq->sets);
	free(eq->defs);
	free(eq->device_path);
}

/* "math" and "l2", an entry's or the defaults': 0, or -1 after a message. */
static int entry_modes(ctx *c, cJSON *ej, cJSON *defaults, const char *path, entry_question *eq)
{
	const char *math = json_string(c, ej, "math", path,
				       json_string(c, defaults, "math", "defaults", "strict", false),
				       false);
	if (!eq->air || !eq->device || !math)
		return -1;
	if (strcmp(math, "strict") && strcmp(math, "tf32")) {
		char where[96];
		snprintf(where, sizeof where, "%s.math", path);
		input_error(c, c->file, where, "expected \"strict\" or \"tf32\"");
		return -1;
	}
	eq->q.tf32 = !strcmp(math, "tf32");
	/* rule "L2 state": the protocol of the entry's measurement (docs/bounds.md) */
	const char *l2 = json_string(c, ej, "l2", path,
				     json_string(c, defaults, "l2", "defaults", "warm", false), false);
	if (solar_l2_parse(l2, &eq->q.l2_cold) < 0) {
		char where[96];
		snprintf(where, sizeof where, "%s.l2",
			 cJSON_GetObjectItemCaseSensitive(ej, "l2") ? path : "defaults");
		input_error(c, c->file, where, "expected \"warm\" or \"cold\"");
		return -1;
	}
	return 0;
}

/* "params" -> -D: exact, a JSON number only where a double holds it (|v| < 2^53), else
 * digits in a string; anything else (1e19, 2.5) is an error, never a rounded or undefined
 * cast.  0, or -1 after a message when params is not an object. */
static int entry_params(ctx *c, cJSON *ej, const char *path, entry_question *eq)
{
	cJSON *params = cJSON_GetObjectItemCaseSensitive(ej, "params"), *it;
	if (params && !cJSON_IsObject(params)) {
		char where[96];
		snprintf(where, sizeof where, "%s.params", path);
		input_error(c, c->file, where, "expected an object {\"NAME\": INTEGER}");
		return -1;
	}
	eq->defs = solar_xcalloc((size_t)cJSON_GetArraySize(params) + 1, sizeof *eq->defs);
	int nd = 0;
	cJSON_ArrayForEach(it, params)
	{
		long long v = 0;
		char *end = NULL;
		bool ok = false;
		if (cJSON_IsNumber(it))
			ok = it->valuedouble == floor(it->valuedouble) &&
			     fabs(it->valuedouble) < 9007199254740992.0;
		if (ok)
			v = (long long)it->valuedouble;
		else if (cJSON_IsString(it) && it->valuestring[0]) {
			errno = 0;
			v = strtoll(it->valuestring, &end, 10);
			ok = !*end && errno != ERANGE && !isspace((unsigned char)it->valuestring[0]);
		}
		if (!ok) {
			char where[96];
			snprintf(where, sizeof where, "%s.params.%s", path, it->string);
			input_error(c, c->file, where,
				    "expected an integer: a JSON number of magnitude below 2^53, or "
				    "a string of decimal digits within 64 bits (\"12345678901234567\")");
			continue;
		}
		eq->defs[nd].name = it->string;
		eq->defs[nd++].value = v;
	}
	eq->q.defines = eq->defs;
	eq->q.ndefines = nd;
	return 0;
}

/* "set" -> the question's overrides, each located at its JSON path; the job checks their
 * units with the one setter, as `solar analyze --set`'s (api/job.c), in order. */
static void entry_sets(ctx *c, cJSON *ej, const char *path, entry_question *eq)
{
	cJSON *sets = cJSON_GetObjectItemCaseSensitive(ej, "set"), *it;
	if (sets && !cJSON_IsObject(sets)) {
		char where[96];
		snprintf(where, sizeof where, "%s.set", path);
		input_error(c, c->file, where, "expected an object {\"PATH\": VALUE}");
		sets = NULL;
	}
	eq->sets = solar_xcalloc((size_t)cJSON_GetArraySize(sets) + 1, sizeof *eq->sets);
	int n = 0;
	cJSON_ArrayForEach(it, sets)
	{
		size_t len = strlen(path) + strlen(it->string) + 8;
		char *where = solar_xmalloc(len + 32);
		snprintf(where, len, "%s.set.%s", path, it->string);
		char *num = where + strlen(where) + 1;
		snprintf(num, 32, "%.17g", cJSON_IsNumber(it) ? it->valuedouble : 0);
		const char *value = cJSON_IsNumber(it)	 ? num
				    : cJSON_IsString(it) ? it->valuestring
							 : NULL; /* the job refuses it */
		eq->sets[n++] = (solar_question_set){it->string, value, c->file, where};
	}
	eq->q.sets = eq->sets;
	eq->q.nsets = n;
}

/* The one function that reads a manifest entry's analysis settings into a question: "air",
 * "device" (a path beside the manifest, or a device name), "math", "l2", "params", "set".
 * The device is not loaded here: the job resolves it.  0, or -1 after a message (the entry
 * cannot be analysed). */
static int entry_question_read(ctx *c, cJSON *ej, cJSON *defaults, const char *path,
			       entry_question *eq)
{
	eq->air = json_string(c, ej, "air", path, NULL, true);
	eq->device = json_string(c, ej, "device", path,
				 json_string(c, defaults, "device", "defaults", NULL, false), true);
	if (entry_modes(c, ej, defaults, path, eq) < 0 || entry_params(c, ej, path, eq) < 0)
		return -1;
	cJSON *mh = cJSON_GetObjectItemCaseSensitive(ej, "max_headroom");
	if (mh && (!cJSON_IsNumber(mh) || mh->valuedouble <= 0)) {
		char where[96];
		snprintf(where, sizeof where, "%s.max_headroom", path);
		input_error(c, c->file, where, "expected a positive number");
	}
	eq->device_path = resolve(c, eq->device);
	if (!strchr(eq->device, '/') && access(eq->device_path, R_OK) != 0) { /* a name: h100-sxm */
		free(eq->device_path);
		eq->device_path = solar_device_resolve(eq->device);
	}
	note_input(c, eq->device_path, true);
	eq->q.device_file = eq->device_path;
	entry_sets(c, ej, path, eq);
	return 0;
}

/* The entry's numbers from its job's result: params, the bounds, the kernels, the device (kept
 * for the roofline chart). */
static void entry_bounds(entry *e, const solar_result *res)
{
	const solar_program *prog = solar_result_program(res);
	const solar_bounds *b = solar_result_bounds(res);
	e->params = cJSON_CreateObject();
	for (int i = 0; i < prog->nparams; i++)
		cJSON_AddItemToObject(e->params, prog->params[i].name,
				      json_int((long long)prog->params[i].value));
	for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
		const solar_roof *r = solar_bound_roof(b, k);
		e->bound_s[k] = r->time_s;
		e->limiter[k] = r->limiter;
		e->bound_dram_bytes[k] = r->dram_bytes;
	}
	e->ops = b->fused.ops;
	e->nkernels = prog->nkernels;
	e->kernel = solar_xcalloc((size_t)e->nkernels + 1, sizeof *e->kernel);
	for (int k = 0; k < e->nkernels; k++) {
		e->kernel[k].name = solar_xstrdup(prog->kernels[k].name);
		e->kernel[k].ops = b->kernel[k].ops;
		e->kernel[k].dram_bytes = b->kernel[k].dram_bytes;
		e->kernel[k].time_s = b->kernel[k].time_s;
		e->kernel[k].limiter = b->kernel[k].limiter;
		e->kernel[k].measured_s = -1;
	}
}

/* Why the entry's job gave no bounds, at the key that caused it. */
static void entry_failed(ctx *c, const char *path, const entry_question *eq,
			 const solar_result *res)
{
	char at[160];
	if (res->override_refused) { /* each refused override was reported */
		c->error = true;
	} else if (res->device_failed) {
		snprintf(at, sizeof at, "%s.device", path);
		input_error(c, c->file, at, "cannot load '%s'", eq->device);
	} else if (!solar_result_program(res)) {
		snprintf(at, sizeof at, "%s.air", path);
		input_error(c, c->file, at, "'%s' %s", eq->air,
			    res->status == SOLAR_JOB_INPUT_ERRORS ? "has errors"
								  : "cannot be read");
	} else {
		input_error(c, c->file, path, "cannot bound '%s' on '%s'", eq->air, eq->device);
	}
}

static void load_entry(ctx *c, cJSON *ej, cJSON *defaults, int idx, entry *e)
{
	char path[48];
	snprintf(path, sizeof path, "entries[%d]", idx);
	e->measured_s = -1;
	e->max_headroom = -1;
	e->base_headroom = e->base_measured_s = -1;
	if (!cJSON_IsObject(ej)) {
		input_error(c, c->file, path, "expected an object");
		return;
	}
	entry_keys(c, ej, path);
	entry_question eq = {0};
	if (entry_question_read(c, ej, defaults, path, &eq) < 0) {
		entry_question_free(&eq);
		return;
	}
	e->air = solar_xstrdup(eq.air);
	e->device_file = solar_xstrdup(eq.device);
	e->math = solar_xstrdup(eq.q.tf32 ? "tf32" : "strict");
	e->l2_cold = eq.q.l2_cold;
	cJSON *mh = cJSON_GetObjectItemCaseSensitive(ej, "max_headroom");
	if (cJSON_IsNumber(mh) && mh->valuedouble > 0)
		e->max_headroom = mh->valuedouble;

	/* the program, its counts and bounds, on the device with its overrides */
	char *air_path = resolve(c, eq.air);
	note_input(c, air_path, false);
	solar_job job = {.file = air_path, .question = eq.q};
	solar_result *res = solar_job_run_with(&job, c->diag);
	free(air_path);
	if (!solar_result_bounds(res)) {
		entry_failed(c, path, &eq, res);
	} else {
		e->dev = solar_device_clone(solar_result_device(res));
		e->device_name = solar_xstrdup(e->dev->name);
		entry_bounds(e, res);
		const char *name = json_string(c, ej, "name", path, NULL, false);
		e->name =
		    name ? solar_xstrdup(name)
			 : default_name(eq.air, cJSON_GetObjectItemCaseSensitive(ej, "params"));
		cJSON *m = cJSON_GetObjectItemCaseSensitive(ej, "measured");
		if (m)
			load_measured(c, m, path, e);
	}
	solar_result_free(res);
	entry_question_free(&eq);
}

static void entry_free(entry *e)
{
	free(e->name);
	free(e->air);
	free(e->device_file);
	free(e->device_name);
	free(e->math);
	free(e->measured_from);
	cJSON_Delete(e->params);
	for (int k = 0; k < e->nkernels; k++)
		free(e->kernel[k].name);
	free(e->kernel);
	solar_device_free(e->dev);
}

/* ---- baseline and gate --------------------------------------------------------------------- */

/* Reads headroom and measured time per entry name from an earlier JSON report. */
static void load_baseline(ctx *c, const char *file, entry *es, int n, cJSON **removed)
{
	cJSON *j = parse_json_file(c, file);
	if (!j)
		return;
	cJSON *ents = cJSON_GetObjectItemCaseSensitive(j, "entries");
	if (!cJSON_IsObject(j) || !cJSON_IsArray(ents)) {
		input_error(c, file, "entries", "expected an array (is this a solar report --json "
						"file?)");
		cJSON_Delete(j);
		return;
	}
	*removed = cJSON_CreateArray();
	int i = 0;
	cJSON *be;
	cJSON_ArrayForEach(be, ents)
	{
		char where[64];
		snprintf(where, sizeof where, "entries[%d]", i++);
		cJSON *name = cJSON_GetObjectItemCaseSensitive(be, "name");
		cJSON *h = cJSON_GetObjectItemCaseSensitive(be, "headroom");
		cJSON *m = cJSON_GetObjectItemCaseSensitive(be, "measured_s");
		if (!cJSON_IsString(name)) {
			input_error(c, file, where, "expected \"name\": a string");
			continue;
		}
		/* a repeated name would match one model twice: which headroom would gate it? */
		int seen = 0;
		cJSON *other;
		cJSON_ArrayForEach(other, ents)
		{
			if (other == be)
				break;
			cJSON *on = cJSON_GetObjectItemCaseSensitive(other, "name");
			if (cJSON_IsString(on) && !strcmp(on->valuestring, name->valuestring)) {
				strncat(where, ".name", sizeof where - strlen(where) - 1);
				input_error(c, file, where,
					    "'%s' is also the name of entries[%d]; a baseline's names "
					    "must be unique",
					    name->valuestring, seen);
				break;
			}
			seen++;
		}
		if (other != be)
			continue;
		/* a headroom is measured / bound > 0; null: the model had no measured time */
		if (!h || !(cJSON_IsNull(h) || (cJSON_IsNumber(h) && h->valuedouble > 0 &&
						isfinite(h->valuedouble)))) {
			strncat(where, ".headroom", sizeof where - strlen(where) - 1);
			input_error(c, file, where, h ? "expected a positive number or null"
						      : "missing (expected a positive number or null)");
			continue;
		}
		bool found = false;
		for (int k = 0; k < n; k++)
			if (es[k].name && !strcmp(es[k].name, name->valuestring)) {
				found = true;
				es[k].has_base = true;
				es[k].base_index = i - 1;
				es[k].base_headroom = cJSON_IsNumber(h) ? h->valuedouble : -1;
				es[k].base_measured_s = cJSON_IsNumber(m) ? m->valuedouble : -1;
			}
		if (!found)
			cJSON_AddItemToArray(*removed, cJSON_CreateString(name->valuestring));
	}
	cJSON_Delete(j);
}

static void add_reason(entry *e, const char *fmt, ...)
{
	size_t l = strlen(e->reasons);
	if (l)
		l += (size_t)snprintf(e->reasons + l, sizeof e->reasons - l, "; ");
	va_list ap;
	va_start(ap, fmt);
	if (l < sizeof e->reasons)
		vsnprintf(e->reasons + l, sizeof e->reasons - l, fmt, ap);
	va_end(ap);
	e->fail = true;
}

static void gate(const solar_report_opts *o, const ctx *c, entry *e)
{
	double h = entry_headroom(e, c->bound);
	double limit = e->max_headroom > 0 ? e->max_headroom : o->has_max_headroom ? o->max_headroom : -1;
	if (h > 0 && limit > 0 && r6(h) > limit)
		add_reason(e, "headroom %.3gx > %.3gx", h, limit);
	/* A time below a fused or cache-aware bound is impossible: the measurement is wrong (a
	 * partial ncu export, the wrong runs count, a warm cache the bound already allows for...)
	 * or solar is, and either way the report must not pass it (docs/soundness.md). */
	double hf = entry_headroom(e, SOLAR_BOUND_FUSED);
	if (hf > 0 && r6(hf) < 1)
		add_reason(e, "measured %.3gx the fused bound: below the speed of light, so the "
			      "measurement or solar is wrong",
			   hf);
	/* A measured model on a 0 s bound (no work) has no finite headroom: it cannot meet a
	 * limit, and must not pass one by showing "-". */
	bool unbounded = e->measured_s > 0 && e->bound_s[c->bound] <= 0;
	if (unbounded && (limit > 0 || (o->has_max_regression && e->has_base)))
		add_reason(e, "the %s bound is 0 s (no work to bound), so the headroom is unbounded",
			   solar_bound_name(c->bound));
	if (h > 0 && e->has_base && e->base_headroom > 0 && o->has_max_regression) {
		double change = r6(h) / e->base_headroom - 1;
		if (change > o->max_regression + 1e-12)
			add_reason(e, "headroom +%.1f%% since the baseline > %.1f%%", change * 100,
				   o->max_regression * 100);
	} else if (e->has_base && o->has_max_regression && h > 0) {
		add_reason(e, "the baseline has no headroom for this model (entries[%d].headroom is "
			      "null): the regression cannot be checked",
			   e->base_index);
	} else if (e->has_base && o->has_max_regression && e->base_headroom > 0 && !unbounded) {
		add_reason(e, "no headroom now (no measured time), the baseline had %.3gx: the "
			      "regression cannot be checked",
			   e->base_headroom);
	}
}

/* ---- outputs --------------------------------------------------------------------------------- */

static const char *res(int r, char *buf, size_t n)
{
	return solar_resource_name(r, buf, n);
}

/* "34.4 G", "256" (no trailing blank) */
static const char *si(char *buf, size_t n, double v)
{
	solar_fmt_si(buf, n, v);
	size_t l = strlen(buf);
	if (l && buf[l - 1] == ' ')
		buf[l - 1] = '\0';
	return buf;
}

static const char *md_escape(char *buf, size_t n, const char *s)
{
	size_t j = 0;
	for (; *s && j + 2 < n; s++) {
		if (*s == '|')
			buf[j++] = '\\';
		buf[j++] = *s;
	}
	buf[j] = '\0';
	return buf;
}

static void fmt_headroom(char *buf, size_t n, double h)
{
	if (h <= 0)
		snprintf(buf, n, "-");
	else if (h < 1000)
		snprintf(buf, n, "%.3gx", h);
	else
		snprintf(buf, n, "%.0fx", r6(h) >= 1e6 ? h : (double)lround(h));
}

static void write_md(FILE *out, const solar_report_opts *o, const ctx *c, entry *es, int n,
		     const cJSON *removed, int failures)
{
	char t[SOLAR_BOUND_COUNT][32], m[32], h[32], rb[48], nm[160], dn[160], ch[64], why[600];
	fputs("## solar: speed-of-light headroom\n\n", out);
	fprintf(out, "%s: ", failures ? "**FAIL**" : "**PASS**");
	if (failures)
		fprintf(out, "%d of %d models over the limits", failures, n);
	else
		fprintf(out, "%d model%s within the limits", n, n == 1 ? "" : "s");
	fprintf(out, " (headroom = measured / %s bound", solar_bound_name(c->bound));
	if (o->has_max_headroom)
		fprintf(out, "; max headroom %gx", o->max_headroom);
	if (o->has_max_regression)
		fprintf(out, "; max regression %g%%", o->max_regression * 100);
	fputs(").\n\n", out);
	fputs("| model | device | measured | unfused | cache-aware | fused | headroom | limited by | "
	      "vs baseline | status |\n|---|---|---|---|---|---|---|---|---|---|\n",
	      out);
	for (int i = 0; i < n; i++) {
		entry *e = &es[i];
		for (int k = 0; k < SOLAR_BOUND_COUNT; k++)
			solar_fmt_time(t[k], sizeof t[k], e->bound_s[k]);
		if (e->measured_s > 0)
			solar_fmt_time(m, sizeof m, e->measured_s);
		else
			snprintf(m, sizeof m, "-");
		double hr = entry_headroom(e, c->bound);
		fmt_headroom(h, sizeof h, hr);
		if (e->has_base && e->base_headroom > 0 && hr > 0)
			snprintf(ch, sizeof ch, "%+.1f%%", (r6(hr) / e->base_headroom - 1) * 100);
		else
			snprintf(ch, sizeof ch, "%s", e->has_base || !o->baseline ? "-" : "new");
		fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s%s |\n",
			md_escape(nm, sizeof nm, e->name), md_escape(dn, sizeof dn, e->device_name), m,
			t[0], t[1], t[2], h, res(e->limiter[c->bound], rb, sizeof rb), ch,
			e->fail ? "**fail**" : "ok", e->fail ? ": " : "",
			e->fail ? md_escape(why, sizeof why, e->reasons) : "");
	}
	if (o->baseline) {
		fputs("\n### Since the baseline\n\n", out);
		int lines = 0;
		for (int i = 0; i < n; i++) {
			entry *e = &es[i];
			double hr = entry_headroom(e, c->bound);
			if (!e->has_base) {
				fprintf(out, "- new: %s\n", md_escape(nm, sizeof nm, e->name));
				lines++;
				continue;
			}
			if (hr <= 0 || e->base_headroom <= 0)
				continue;
			char a[32], b[32];
			fmt_headroom(a, sizeof a, e->base_headroom);
			fmt_headroom(b, sizeof b, hr);
			double change = r6(hr) / e->base_headroom - 1;
			fprintf(out, "- %s: headroom %s -> %s (%+.1f%%)", md_escape(nm, sizeof nm, e->name),
				a, b, change * 100);
			if (e->base_measured_s > 0 && e->measured_s > 0)
				fprintf(out, ", measured %s -> %s",
					solar_fmt_time(a, sizeof a, e->base_measured_s),
					solar_fmt_time(b, sizeof b, e->measured_s));
			if (o->has_max_regression && change > o->max_regression + 1e-12)
				fprintf(out, " **over the %g%% limit**", o->max_regression * 100);
			fputs("\n", out);
			lines++;
		}
		const cJSON *r;
		cJSON_ArrayForEach(r, removed)
		{
			fprintf(out, "- removed: %s\n", md_escape(nm, sizeof nm, r->valuestring));
			lines++;
		}
		if (!lines)
			fputs("No model in the baseline has a headroom to compare.\n", out);
	}
	for (int i = 0; i < n; i++) {
		entry *e = &es[i];
		bool have_k = false;
		for (int k = 0; k < e->nkernels; k++)
			have_k |= e->kernel[k].measured_s >= 0;
		fprintf(out, "\n<details><summary>Kernels of %s</summary>\n\n",
			md_escape(nm, sizeof nm, e->name));
		fprintf(out, "| kernel | ops | DRAM traffic | intensity | bound | limited by |%s\n"
			     "|---|---|---|---|---|---|%s\n",
			have_k ? " measured | headroom |" : "", have_k ? "---|---|" : "");
		for (int k = 0; k < e->nkernels; k++) {
			kernel_row *kr = &e->kernel[k];
			char ops[32], dram[32], inten[32];
			si(ops, sizeof ops, kr->ops);
			solar_fmt_quantity(dram, sizeof dram, kr->dram_bytes, "B");
			if (kr->dram_bytes > 0)
				snprintf(inten, sizeof inten, "%.3g op/B", kr->ops / kr->dram_bytes);
			else
				snprintf(inten, sizeof inten, "-");
			solar_fmt_time(t[0], sizeof t[0], kr->time_s);
			fprintf(out, "| %s | %s | %s | %s | %s | %s |", md_escape(nm, sizeof nm, kr->name),
				ops, dram, inten, t[0],
				kr->time_s > 0 ? res(kr->limiter, rb, sizeof rb) : "-"); /* no work */
			if (have_k) {
				if (kr->measured_s > 0) {
					fmt_headroom(h, sizeof h, kr->measured_s / kr->time_s);
					fprintf(out, " %s | %s |", solar_fmt_time(m, sizeof m, kr->measured_s),
						h);
				} else
					fputs(" - | - |", out);
			}
			fputs("\n", out);
		}
		fprintf(out, "\n%s; measured: %s.\n\n</details>\n", e->air,
			e->measured_from ? e->measured_from : "none");
	}
	fputs("\nBounds: docs/bounds.md. Report format: docs/report.md.\n", out);
}

static cJSON *json_report(const solar_report_opts *o, const ctx *c, entry *es, int n, cJSON *removed,
			  int failures)
{
	char rb[48];
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "solar_report", 1);
	cJSON_AddStringToObject(j, "bound", solar_bound_key(c->bound));
	cJSON_AddItemToObject(j, "max_headroom", o->has_max_headroom ? num(o->max_headroom)
								      : cJSON_CreateNull());
	cJSON_AddItemToObject(j, "max_regression", o->has_max_regression ? num(o->max_regression)
									  : cJSON_CreateNull());
	cJSON_AddStringToObject(j, "status", failures ? "fail" : "pass");
	cJSON *ents = cJSON_AddArrayToObject(j, "entries");
	for (int i = 0; i < n; i++) {
		entry *e = &es[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", e->name);
		cJSON_AddStringToObject(x, "air", e->air);
		cJSON *d = cJSON_AddObjectToObject(x, "device");
		cJSON_AddStringToObject(d, "name", e->device_name);
		cJSON_AddStringToObject(d, "file", e->device_file);
		cJSON_AddItemToObject(x, "params", cJSON_Duplicate(e->params, true));
		cJSON_AddStringToObject(x, "math", e->math);
		cJSON_AddStringToObject(x, "l2", solar_l2_name(e->l2_cold));
		cJSON_AddItemToObject(x, "measured_s", num(e->measured_s));
		if (e->measured_from)
			cJSON_AddStringToObject(x, "measured_from", e->measured_from);
		else
			cJSON_AddNullToObject(x, "measured_from");
		cJSON *bs = cJSON_AddObjectToObject(x, "bounds");
		for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
			cJSON *b = cJSON_AddObjectToObject(bs, solar_bound_key(k));
			cJSON_AddItemToObject(b, "time_s", num(e->bound_s[k]));
			cJSON_AddStringToObject(b, "limited_by", res(e->limiter[k], rb, sizeof rb));
			cJSON_AddItemToObject(b, "dram_bytes", num(e->bound_dram_bytes[k]));
			cJSON_AddItemToObject(b, "headroom", num(entry_headroom(e, k)));
		}
		cJSON_AddItemToObject(x, "headroom", num(entry_headroom(e, c->bound)));
		cJSON_AddStringToObject(x, "limited_by", res(e->limiter[c->bound], rb, sizeof rb));
		cJSON_AddItemToObject(x, "ops", num(e->ops));
		cJSON *ks = cJSON_AddArrayToObject(x, "kernels");
		for (int k = 0; k < e->nkernels; k++) {
			kernel_row *kr = &e->kernel[k];
			cJSON *y = cJSON_CreateObject();
			cJSON_AddStringToObject(y, "name", kr->name);
			cJSON_AddItemToObject(y, "ops", num(kr->ops));
			cJSON_AddItemToObject(y, "dram_bytes", num(kr->dram_bytes));
			cJSON_AddItemToObject(y, "time_s", num(kr->time_s));
			if (kr->time_s > 0)
				cJSON_AddStringToObject(y, "limited_by", res(kr->limiter, rb, sizeof rb));
			else
				cJSON_AddNullToObject(y, "limited_by"); /* no work: nothing limits it */
			cJSON_AddItemToObject(y, "measured_s", num(kr->measured_s));
			cJSON_AddItemToObject(y, "headroom",
					      num(kr->measured_s > 0 ? kr->measured_s / kr->time_s : -1));
			cJSON_AddItemToArray(ks, y);
		}
		if (e->has_base) {
			cJSON *b = cJSON_AddObjectToObject(x, "baseline");
			cJSON_AddItemToObject(b, "headroom", num(e->base_headroom));
			cJSON_AddItemToObject(b, "measured_s", num(e->base_measured_s));
			double h = entry_headroom(e, c->bound);
			cJSON_AddItemToObject(b, "change", h > 0 && e->base_headroom > 0
								? cJSON_CreateNumber(r6(r6(h) / e->base_headroom - 1))
								: cJSON_CreateNull());
		} else
			cJSON_AddNullToObject(x, "baseline");
		cJSON_AddStringToObject(x, "status", e->fail ? "fail" : "pass");
		cJSON_AddStringToObject(x, "reasons", e->reasons);
		cJSON_AddItemToArray(ents, x);
	}
	cJSON_AddItemToObject(j, "removed", removed ? cJSON_Duplicate(removed, true)
						    : cJSON_CreateArray());
	return j;
}

/* ---- the roofline chart ------------------------------------------------------------------- */

/* The roof of a datapath: its peak; for special functions the SFU rate plus the FMA instruction
 * rate (rule "special functions"), as the bounds charge them.  0 when the device has neither. */
static double roof_rate(const solar_device *d, int u, int p)
{
	double r = solar_device_peak(d, u, p); /* at the SM clock (rule "clock domains") */
	if (u == SOLAR_UNIT_SFU)
		r += solar_device_peak(d, SOLAR_UNIT_SIMT, SOLAR_PREC_F32) / 2;
	return r;
}

/* One roofline panel as its parts draw it: the entries on its device, the roofs they use,
 * and the axes over the plot area. */
typedef struct {
	FILE *out;
	const solar_device *dev;
	int L, R, T, B; /* the plot area */
	bool on[256];	/* per entry: on this panel's device */
	/* per datapath (unit x precision): drawn as a roof */
	bool used[SOLAR_UNIT_COUNT * SOLAR_PREC_COUNT];
	struct {
		double bw; /* 0: the level has no bandwidth */
		const char *name;
	} mem[2];	   /* the memory roofs: DRAM, L2 */
	double pmax, pmin; /* the highest and lowest compute roof */
	solar_svg_axis x, y;
} panel;

/* The roofs: peaks of the datapaths of the kernels' limiters and of every counted op type. */
static void panel_roofs(panel *pn, const entry *es, int n)
{
	const solar_device *dev = pn->dev;
	const solar_mem_level *dram = solar_device_level(dev, "dram");
	const solar_mem_level *l2 = solar_device_level(dev, "l2");
	pn->mem[0].bw = dram->bandwidth_bytes_per_s.value;
	pn->mem[0].name = "DRAM";
	pn->mem[1].bw =
	    l2 && l2->bandwidth_bytes_per_s.present ? l2->bandwidth_bytes_per_s.value : 0;
	pn->mem[1].name = "L2";
	pn->pmax = 0, pn->pmin = INFINITY;
	for (int i = 0; i < n; i++)
		for (int k = 0; pn->on[i] && k < es[i].nkernels; k++)
			if (es[i].kernel[k].limiter >= SOLAR_RES_OPS)
				pn->used[es[i].kernel[k].limiter - SOLAR_RES_OPS] = true;
	for (int i = 0; i < n; i++)
		if (pn->on[i] && es[i].limiter[SOLAR_BOUND_FUSED] >= SOLAR_RES_OPS)
			pn->used[es[i].limiter[SOLAR_BOUND_FUSED] - SOLAR_RES_OPS] = true;
	int nroof = 0;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++)
			if (pn->used[u * SOLAR_PREC_COUNT + p] && roof_rate(dev, u, p) > 0) {
				pn->pmax = fmax(pn->pmax, roof_rate(dev, u, p));
				pn->pmin = fmin(pn->pmin, roof_rate(dev, u, p));
				nroof++;
			}
	if (!nroof) { /* no compute-limited kernel: show the fastest peak as the roof */
		for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
			for (int p = 0; p < SOLAR_PREC_COUNT; p++)
				if (solar_device_peak(dev, u, p) > pn->pmax) {
					pn->pmax = solar_device_peak(dev, u, p);
					memset(pn->used, 0, sizeof pn->used);
					pn->used[u * SOLAR_PREC_COUNT + p] = true;
				}
		pn->pmin = pn->pmax;
	}
}

/* The axes: the points' ranges, widened to show the ridges and every roof. */
static void panel_axes(panel *pn, const entry *es, int n)
{
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
	for (int i = 0; i < n; i++) {
		if (!pn->on[i])
			continue;
		for (int k = 0; k < es[i].nkernels; k++) {
			const kernel_row *kr = &es[i].kernel[k];
			if (kr->ops <= 0 || kr->time_s <= 0)
				continue;
			if (kr->dram_bytes > 0) {
				xlo = fmin(xlo, kr->ops / kr->dram_bytes);
				xhi = fmax(xhi, kr->ops / kr->dram_bytes);
			}
			ylo = fmin(ylo, kr->ops / kr->time_s);
			yhi = fmax(yhi, kr->ops / kr->time_s);
			if (kr->measured_s > 0)
				ylo = fmin(ylo, kr->ops / kr->measured_s);
		}
		if (es[i].measured_s > 0 && es[i].ops > 0)
			ylo = fmin(ylo, es[i].ops / es[i].measured_s);
	}
	double bw = pn->mem[0].bw, l2bw = pn->mem[1].bw;
	double ridge_lo = pn->pmin / fmax(bw, l2bw), ridge_hi = pn->pmax / bw;
	xlo = fmin(isfinite(xlo) ? xlo : ridge_lo, ridge_lo / 4);
	xhi = fmax(xhi, ridge_hi * 8);
	ylo = fmin(isfinite(ylo) ? ylo : pn->pmin / 100, bw * xlo);
	yhi = fmax(yhi, pn->pmax);
	solar_svg_axis_fit(&pn->x, xlo, xhi, true, pn->L, pn->R, "");
	solar_svg_axis_fit(&pn->y, ylo / 2, yhi * 2.5, true, pn->B, pn->T, "");
}

/* The roof lines: memory roofs (perf = bandwidth x intensity, up to the highest peak), then
 * compute roofs, horizontal from the ridge on. */
static void draw_roof_lines(const panel *pn)
{
	const solar_svg_axis *x = &pn->x, *y = &pn->y;
	for (int m = 0; m < 2; m++) {
		if (pn->mem[m].bw <= 0)
			continue;
		double xe = fmin(pn->pmax / pn->mem[m].bw, x->hi);
		fprintf(pn->out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\" "
			"stroke-width=\"2\"%s/>\n",
			solar_svg_map(x, x->lo), solar_svg_map(y, pn->mem[m].bw * x->lo),
			solar_svg_map(x, xe), solar_svg_map(y, pn->mem[m].bw * xe),
			m ? " stroke-dasharray=\"6 3\"" : "");
	}
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			double pk = roof_rate(pn->dev, u, p);
			if (!pn->used[u * SOLAR_PREC_COUNT + p] || pk <= 0)
				continue;
			double xs = fmax(pk / fmax(pn->mem[0].bw, pn->mem[1].bw), x->lo);
			fprintf(pn->out,
				"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#333333\" stroke-width=\"2\"/>\n",
				solar_svg_map(x, xs), solar_svg_map(y, pk), solar_svg_map(x, x->hi),
				solar_svg_map(y, pk));
		}
}

/* The roofs' labels: each compute roof's rate at its right end, each memory roof's
 * bandwidth along its slope. */
static void draw_roof_labels(const panel *pn)
{
	const solar_svg_axis *x = &pn->x, *y = &pn->y;
	char lab[96], q[48];
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			double pk = roof_rate(pn->dev, u, p);
			if (!pn->used[u * SOLAR_PREC_COUNT + p] || pk <= 0)
				continue;
			snprintf(lab, sizeof lab, "%s.%s%s %s", solar_unit_name(u), solar_prec_name(p),
				 u == SOLAR_UNIT_SFU ? " (+FMA)" : "",
				 solar_fmt_quantity(q, sizeof q, pk, p >= SOLAR_PREC_I64 ? "OP/s"
											: "FLOP/s"));
			solar_svg_text(pn->out, pn->R - 4, solar_svg_map(y, pk) - 5, "end", 10,
				       "fill=\"#333333\"", lab);
		}
	for (int m = 0; m < 2; m++) {
		double bw = pn->mem[m].bw;
		if (bw <= 0)
			continue;
		double xl = x->lo * pow(fmin(pn->pmax / bw, x->hi) / x->lo, 0.25);
		double px = solar_svg_map(x, xl), py = solar_svg_map(y, bw * xl);
		double ang =
		    atan2(solar_svg_map(y, bw * xl * 10) - py, solar_svg_map(x, xl * 10) - px) *
		    180 / 3.14159265358979;
		char rot[96];
		snprintf(rot, sizeof rot, "fill=\"#333333\" transform=\"rotate(%.1f %.1f %.1f)\"", ang,
			 px, py - 6);
		snprintf(lab, sizeof lab, "%s %s", pn->mem[m].name,
			 solar_fmt_quantity(q, sizeof q, bw, "B/s"));
		solar_svg_text(pn->out, px, py - 6, "start", 10, rot, lab);
	}
}

/* The points of the panel's entries: per kernel its bound and measured time joined by a line;
 * the whole program where only its total was measured.  A point without DRAM traffic sits at
 * the right edge (*edge_note). */
static void draw_points(const panel *pn, const ctx *c, const entry *es, int n,
			const int *legend_index, bool *edge_note)
{
	const solar_svg_axis *x = &pn->x, *y = &pn->y;
	for (int i = 0; i < n; i++) {
		if (!pn->on[i])
			continue;
		const char *col = solar_svg_color(legend_index[i]);
		bool per_kernel = false;
		for (int k = 0; k < es[i].nkernels; k++) {
			const kernel_row *kr = &es[i].kernel[k];
			if (kr->ops <= 0 || kr->time_s <= 0)
				continue;
			double xi = kr->dram_bytes > 0 ? kr->ops / kr->dram_bytes : x->hi / 1.02;
			if (kr->dram_bytes <= 0)
				*edge_note = true;
			double px = solar_svg_map(x, xi),
			       ps = solar_svg_map(y, kr->ops / kr->time_s);
			if (kr->measured_s > 0) {
				double pm = solar_svg_map(y, kr->ops / kr->measured_s);
				fprintf(pn->out,
					"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
					"stroke=\"%s\" stroke-width=\"1\"/>\n",
					px, ps, px, pm, col);
				solar_svg_marker(pn->out, px, pm, 0, 4, col, false);
				per_kernel = true;
			}
			solar_svg_marker(pn->out, px, ps, 0, 4, col, true);
		}
		/* the whole program, when only its total was measured */
		if (!per_kernel && es[i].measured_s > 0 && es[i].ops > 0) {
			double bytes = es[i].bound_dram_bytes[c->bound];
			double xi = bytes > 0 ? es[i].ops / bytes : x->hi / 1.02;
			if (bytes <= 0)
				*edge_note = true;
			double px = solar_svg_map(x, xi);
			double ps = solar_svg_map(y, es[i].ops / es[i].bound_s[c->bound]);
			double pm = solar_svg_map(y, es[i].ops / es[i].measured_s);
			fprintf(
			    pn->out,
			    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			    "stroke-width=\"1\" stroke-dasharray=\"3 2\"/>\n",
			    px, ps, px, pm, col);
			solar_svg_marker(pn->out, px, ps, 2, 4.5, col, true);
			solar_svg_marker(pn->out, px, pm, 2, 4.5, col, false);
		}
	}
}

/* One panel per distinct device: roofs for its memory levels (bandwidth x intensity) and for the
 * peaks the models on it use; per kernel a filled marker at its bound and a hollow one at its
 * measured time, joined by a line whose length is the headroom. */
static void roofline_panel(FILE *out, const ctx *c, entry *es, int n, int dev_first, int y0,
			   int *legend_index, bool *edge_note)
{
	panel pn = {
	    .out = out, .dev = es[dev_first].dev, .L = 100, .R = 640, .T = y0 + 50, .B = y0 + 410};
	/* which entries share this device (by name) */
	for (int i = 0; i < n && i < 256; i++)
		pn.on[i] = es[i].dev && !strcmp(es[i].device_name, es[dev_first].device_name) &&
			   !strcmp(es[i].device_file, es[dev_first].device_file);
	panel_roofs(&pn, es, n);
	panel_axes(&pn, es, n);
	char lab[96];
	snprintf(lab, sizeof lab, "%s", pn.dev->name);
	solar_svg_text(out, pn.L, y0 + 30, "start", 14, "font-weight=\"bold\"", lab);
	solar_svg_axes(out, &pn.x, &pn.y,
		       "arithmetic intensity (operations per DRAM byte, log scale)",
		       "performance (operations per second, log scale)");
	fprintf(out, "<g clip-path=\"url(#plot%d)\">\n", y0);
	fprintf(out,
		"<clipPath id=\"plot%d\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>"
		"</clipPath>\n",
		y0, pn.L, pn.T, pn.R - pn.L, pn.B - pn.T);
	draw_roof_lines(&pn);
	fputs("</g>\n", out);
	draw_roof_labels(&pn);
	draw_points(&pn, c, es, n, legend_index, edge_note);
}

static void write_svg(FILE *out, const ctx *c, entry *es, int n)
{
	const int W = 960, PH = 450;
	int first[256], nd = 0, legend_index[256] = {0};
	for (int i = 0; i < n && i < 256; i++) {
		legend_index[i] = i;
		if (!es[i].dev)
			continue;
		bool seen = false;
		for (int d = 0; d < nd; d++)
			seen |= !strcmp(es[first[d]].device_name, es[i].device_name) &&
				!strcmp(es[first[d]].device_file, es[i].device_file);
		if (!seen)
			first[nd++] = i;
	}
	int H = nd * PH + 40;
	solar_svg_begin(out, W, H, "solar roofline: speed of light and measured time per kernel");
	bool edge = false;
	for (int d = 0; d < nd; d++)
		roofline_panel(out, c, es, n, first[d], d * PH, legend_index, &edge);
	/* legend */
	int lx = 670, ly = 60;
	solar_svg_text(out, lx, ly, "start", 12, "font-weight=\"bold\"", "models");
	for (int i = 0; i < n && i < 256; i++) {
		ly += 20;
		solar_svg_marker(out, lx + 6, ly - 4, 0, 4.5, solar_svg_color(legend_index[i]), true);
		char lab[200];
		snprintf(lab, sizeof lab, "%.60s", es[i].name ? es[i].name : "?");
		solar_svg_text(out, lx + 18, ly, "start", 11, NULL, lab);
	}
	ly += 32;
	solar_svg_marker(out, lx + 6, ly - 4, 0, 4.5, "#555555", true);
	solar_svg_text(out, lx + 18, ly, "start", 11, NULL, "kernel at its bound (speed of light)");
	ly += 20;
	solar_svg_marker(out, lx + 6, ly - 4, 0, 4.5, "#555555", false);
	solar_svg_text(out, lx + 18, ly, "start", 11, NULL, "kernel at its measured time");
	ly += 20;
	solar_svg_marker(out, lx + 6, ly - 4, 2, 4.5, "#555555", true);
	char lab[160];
	snprintf(lab, sizeof lab, "whole model (%s bound, measured)", solar_bound_name(c->bound));
	solar_svg_text(out, lx + 18, ly, "start", 11, NULL, lab);
	ly += 20;
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\" "
		     "stroke-width=\"2\"/>\n",
		lx, ly - 4, lx + 12, ly - 4);
	solar_svg_text(out, lx + 18, ly, "start", 11, NULL, "roof: peak, or bandwidth x intensity");
	ly += 26;
	solar_svg_text(out, lx, ly, "start", 10, "fill=\"#555555\"",
		       "the vertical gap between a filled and a");
	solar_svg_text(out, lx, ly + 13, "start", 10, "fill=\"#555555\"",
		       "hollow marker is the headroom (log scale)");
	if (edge) {
		solar_svg_text(out, lx, ly + 33, "start", 10, "fill=\"#555555\"",
			       "at the right edge: no DRAM traffic (the");
		solar_svg_text(out, lx, ly + 46, "start", 10, "fill=\"#555555\"",
			       "data may stay in L2: docs/bounds.md#warm-l2)");
	}
	solar_svg_end(out);
}

/* ---- the report ------------------------------------------------------------------------------ */

struct solar_report {
	ctx c;
	cJSON *man;
	entry *es;
	int n;
	cJSON *removed;
	int failures;
};

int solar_report_load(const char *manifest, const solar_report_opts *o, solar_report **out)
{
	solar_report *r = solar_xcalloc(1, sizeof *r);
	*out = r;
	if (!r)
		return 2;
	ctx c = {.file = manifest,
		 .bound = SOLAR_BOUND_CACHE_AWARE,
		 .o = o,
		 .diag = solar_diag_new_tool(stderr)}; /* kept in r at the end */
	cJSON *man = parse_json_file(&c, c.file);
	if (!man) {
		r->c = c;
		return 2;
	}
	r->man = man;
	const char *slash = strrchr(c.file, '/');
	c.dir = slash ? solar_xstrndup(c.file, (size_t)(slash - c.file)) : solar_xstrdup("");
	cJSON *defaults = cJSON_GetObjectItemCaseSensitive(man, "defaults");
	cJSON *ents = cJSON_GetObjectItemCaseSensitive(man, "entries");
	const char *bound = o->bound ? o->bound : json_string(&c, defaults, "bound", "defaults", NULL, false);
	if (bound) {
		int k = solar_bound_parse(bound);
		if (k < 0)
			input_error(&c, o->bound ? "--bound" : c.file, o->bound ? NULL : "defaults.bound",
				    "expected unfused, cache-aware or fused, not '%s'", bound);
		else
			c.bound = k;
	}
	if (!cJSON_IsObject(man))
		input_error(&c, c.file, NULL,
			    "expected a JSON object at the top level ({\"defaults\", \"entries\"})");
	else if (!cJSON_IsArray(ents) || !cJSON_GetArraySize(ents))
		input_error(&c, c.file, "entries", "expected a non-empty array of models");
	if (defaults && !cJSON_IsObject(defaults))
		input_error(&c, c.file, "defaults", "expected an object (device, math, bound, l2)");
	/* the keys of objects only: an array's items have no names */
	cJSON *it, *top = cJSON_IsObject(man) ? man : NULL;
	cJSON *defs = cJSON_IsObject(defaults) ? defaults : NULL;
	cJSON_ArrayForEach(it, top)
	{
		if (strcmp(it->string, "entries") && strcmp(it->string, "defaults") &&
		    strcmp(it->string, "solar_manifest"))
			input_error(&c, c.file, it->string,
				    "unknown key (expected solar_manifest, defaults or entries)");
	}
	cJSON_ArrayForEach(it, defs)
	{
		if (strcmp(it->string, "device") && strcmp(it->string, "math") &&
		    strcmp(it->string, "bound") && strcmp(it->string, "l2")) {
			char where[96];
			snprintf(where, sizeof where, "defaults.%s", it->string);
			input_error(&c, c.file, where,
				    "unknown key (expected device, math, bound or l2)");
		}
	}
	int n = c.error ? 0 : cJSON_GetArraySize(ents);
	entry *es = solar_xcalloc((size_t)n + 1, sizeof *es);
	r->es = es;
	r->n = n;
	for (int i = 0; i < n; i++)
		load_entry(&c, cJSON_GetArrayItem(ents, i), defaults, i, &es[i]);
	for (int i = 0; i < n && !c.error; i++)
		for (int j = 0; j < i; j++)
			if (es[i].name && es[j].name && !strcmp(es[i].name, es[j].name)) {
				char where[64];
				snprintf(where, sizeof where, "entries[%d].name", i);
				input_error(&c, c.file, where,
					    "'%s' is also the name of entries[%d]; names must be "
					    "unique (a baseline matches models by name)",
					    es[i].name, j);
			}
	if (o->baseline && !c.error)
		load_baseline(&c, o->baseline, es, n, &r->removed);
	if (!c.error)
		for (int i = 0; i < n; i++) {
			gate(o, &c, &es[i]);
			r->failures += es[i].fail;
		}
	r->c = c;
	return c.error ? 2 : 0;
}

int solar_report_failures(const solar_report *r)
{
	return r->failures;
}

void solar_report_write_md(const solar_report *r, FILE *out)
{
	write_md(out, r->c.o, &r->c, r->es, r->n, r->removed, r->failures);
}

cJSON *solar_report_json(const solar_report *r)
{
	return json_report(r->c.o, &r->c, r->es, r->n, r->removed, r->failures);
}

void solar_report_write_svg(const solar_report *r, FILE *out)
{
	write_svg(out, &r->c, r->es, r->n);
}

void solar_report_free(solar_report *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n; i++)
		entry_free(&r->es[i]);
	free(r->es);
	cJSON_Delete(r->removed);
	cJSON_Delete(r->man);
	free(r->c.dir);
	solar_diag_free(r->c.diag);
	free(r);
}
