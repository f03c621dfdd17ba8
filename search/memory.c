/* memory.c - the transition memory of `solar advise` (docs/advise.md "memory").
 *
 * The store is a JSON file {"schema": "solar.advise-memory/1", "steps": [...], "directions":
 * {...}, "transitions": {...}}.  Only the steps are read back; the statistics are recomputed
 * from them on every write, so they can never disagree with the steps.  Every malformed field
 * is reported with its JSON path (`M.json: steps[2].direction: ...`, solar_diag_path_error).
 *
 * The one idea of the weighting: a past step counts for a new state in proportion to how
 * alike the two states are (the gap shares, the limiting resource, the op classes), and a
 * direction's weight is a shrunk success rate times a shrunk realised fraction of its
 * predicted gain, first over all similar steps, then over those that followed the same
 * previous direction.
 */
#define _DEFAULT_SOURCE /* realpath, flock */
#include "memory.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "devices/json.h"
#include "frontend/frontend.h"
#include "roofline/roofline.h"

static const char *const opc_names[] = {"contraction", "reduction", "sfu"};

unsigned solar_memory_op_classes(const solar_advise_eval *e)
{
	return (e->uses_tensor ? SOLAR_OPC_CONTRACTION : 0) |
	       (e->has_reduction ? SOLAR_OPC_REDUCTION : 0) | (e->uses_sfu ? SOLAR_OPC_SFU : 0);
}

static char *sdup(const char *s) { return s ? solar_xstrdup(s) : NULL; }

void solar_memory_add(solar_memory *m, const solar_memory_step *s)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->steps = solar_xrealloc(m->steps, sizeof *m->steps * (size_t)m->cap);
	}
	solar_memory_step *d = &m->steps[m->n++];
	*d = *s;
	d->problem = sdup(s->problem);
	d->strategy = sdup(s->strategy);
	d->why = sdup(s->why);
	d->sizes = s->sizes ? cJSON_Duplicate(s->sizes, true) : NULL;
}

void solar_memory_free(solar_memory *m)
{
	for (int i = 0; i < m->n; i++) {
		free(m->steps[i].problem);
		free(m->steps[i].strategy);
		free(m->steps[i].why);
		cJSON_Delete(m->steps[i].sizes);
	}
	free(m->steps);
	memset(m, 0, sizeof *m);
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct {
	solar_diag *d; /* the memory file's context, hung off the caller's channel */
} reader;

/* `FILE: PATH: message` (PATH NULL: the top level), through the diag module. */
SOLAR_PRINTF(3, 4) static void bad(reader *r, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_vpath_error(r->d, path, fmt, ap);
	va_end(ap);
}

static double get_time(reader *r, cJSON *o, const char *key, const char *path, bool required)
{
	char where[160];
	if (snprintf(where, sizeof where, "%s.%s", path, key) >= (int)sizeof where)
		where[sizeof where - 1] = '\0'; /* a path that long is only ever printed */
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v)) {
		if (required)
			bad(r, where, "missing (a time in seconds)");
		return -1;
	}
	if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble)) {
		bad(r, where, "expected a positive number of seconds");
		return -1;
	}
	return v->valuedouble;
}

static int get_direction(reader *r, cJSON *o, const char *key, const char *path, bool nullable)
{
	char where[160];
	snprintf(where, sizeof where, "%s.%s", path, key);
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (nullable && (!v || cJSON_IsNull(v)))
		return -1;
	int d = cJSON_IsString(v) ? solar_direction_parse(v->valuestring) : -1;
	if (d < 0)
		bad(r, where, "expected one of \"implementation\", \"fusion\", \"data reuse\", "
			      "\"datapath\", \"redundant work\"%s",
		    nullable ? " or null" : "");
	return d;
}

static void read_step(reader *r, cJSON *j, int i, solar_memory_step *s)
{
	char path[64], where[160];
	snprintf(path, sizeof path, "steps[%d]", i);
	memset(s, 0, sizeof *s);
	s->previous = -1;
	if (!cJSON_IsObject(j)) {
		bad(r, path, "expected an object");
		return;
	}
	cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "problem");
	if (v && !cJSON_IsString(v))
		bad(r, (snprintf(where, sizeof where, "%s.problem", path), where), "expected a string");
	s->problem = sdup(cJSON_IsString(v) ? v->valuestring : "");
	cJSON *sig = cJSON_GetObjectItemCaseSensitive(j, "signature");
	snprintf(where, sizeof where, "%s.signature", path);
	if (!cJSON_IsObject(sig)) {
		bad(r, where, "expected an object {op_classes, limiter, shares, sizes}");
	} else {
		char w2[200];
		cJSON *oc = cJSON_GetObjectItemCaseSensitive(sig, "op_classes"), *e;
		snprintf(w2, sizeof w2, "%s.op_classes", where);
		if (!cJSON_IsArray(oc))
			bad(r, w2, "expected an array of \"contraction\", \"reduction\", \"sfu\"");
		int k = 0;
		cJSON_ArrayForEach(e, oc)
		{
			int bit = -1;
			for (int b = 0; b < 3; b++)
				if (cJSON_IsString(e) && !strcmp(e->valuestring, opc_names[b]))
					bit = b;
			if (bit < 0) {
				char w3[220];
				snprintf(w3, sizeof w3, "%s[%d]", w2, k);
				bad(r, w3, "expected \"contraction\", \"reduction\" or \"sfu\"");
			} else
				s->op_classes |= 1u << bit;
			k++;
		}
		cJSON *lim = cJSON_GetObjectItemCaseSensitive(sig, "limiter");
		snprintf(w2, sizeof w2, "%s.limiter", where);
		if (!cJSON_IsString(lim))
			bad(r, w2, "expected a resource name such as \"dram\" or \"tensor.bf16\"");
		else
			snprintf(s->limiter, sizeof s->limiter, "%s", lim->valuestring);
		cJSON *sh = cJSON_GetObjectItemCaseSensitive(sig, "shares");
		snprintf(w2, sizeof w2, "%s.shares", where);
		if (!cJSON_IsObject(sh))
			bad(r, w2, "expected an object {DIRECTION: share}");
		cJSON_ArrayForEach(e, sh)
		{
			char w3[240];
			snprintf(w3, sizeof w3, "%s.%s", w2, e->string);
			int d = solar_direction_parse(e->string);
			if (d < 0)
				bad(r, w3, "not a direction");
			else if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > 1)
				bad(r, w3, "expected a share from 0 to 1");
			else
				s->shares[d] = e->valuedouble;
		}
		cJSON *sz = cJSON_GetObjectItemCaseSensitive(sig, "sizes");
		if (sz && !cJSON_IsObject(sz)) {
			snprintf(w2, sizeof w2, "%s.sizes", where);
			bad(r, w2, "expected an object {PARAM: value}");
		} else if (sz)
			s->sizes = cJSON_Duplicate(sz, true);
	}
	s->previous = get_direction(r, j, "previous", path, true);
	s->direction = get_direction(r, j, "direction", path, false);
	v = cJSON_GetObjectItemCaseSensitive(j, "strategy");
	snprintf(where, sizeof where, "%s.strategy", path);
	if (!cJSON_IsString(v))
		bad(r, where, "expected a string");
	s->strategy = sdup(cJSON_IsString(v) ? v->valuestring : "");
	cJSON *before = cJSON_GetObjectItemCaseSensitive(j, "before");
	cJSON *after = cJSON_GetObjectItemCaseSensitive(j, "after");
	snprintf(where, sizeof where, "%s.before", path);
	if (!cJSON_IsObject(before))
		bad(r, where, "expected an object {measured_s, bound_s}");
	else {
		s->before_s = get_time(r, before, "measured_s", where, true);
		s->before_bound_s = get_time(r, before, "bound_s", where, false);
	}
	snprintf(where, sizeof where, "%s.after", path);
	if (!cJSON_IsObject(after))
		bad(r, where, "expected an object {measured_s, bound_s}");
	else {
		s->after_s = get_time(r, after, "measured_s", where, true);
		s->after_bound_s = get_time(r, after, "bound_s", where, false);
	}
	v = cJSON_GetObjectItemCaseSensitive(j, "max_gain_s");
	snprintf(where, sizeof where, "%s.max_gain_s", path);
	if (v && (!cJSON_IsNumber(v) || v->valuedouble < 0))
		bad(r, where, "expected a non-negative number of seconds");
	s->max_gain_s = cJSON_IsNumber(v) ? v->valuedouble : 0;
	v = cJSON_GetObjectItemCaseSensitive(j, "correct");
	snprintf(where, sizeof where, "%s.correct", path);
	if (!cJSON_IsBool(v))
		bad(r, where, "expected true or false");
	s->correct = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(j, "why");
	snprintf(where, sizeof where, "%s.why", path);
	if (v && !cJSON_IsString(v))
		bad(r, where, "expected a string");
	s->why = sdup(cJSON_IsString(v) ? v->valuestring : "");
}

int solar_memory_load(const char *file, solar_memory *m, solar_diag *diag)
{
	memset(m, 0, sizeof *m);
	if (access(file, F_OK) != 0)
		return 0; /* a new store */
	int32_t len = 0;
	char *text = solar_read_file(file, &len, diag);
	if (!text)
		return -1;
	reader r = {solar_diag_new_file(diag, file, text, len)};
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithOpts(text, &end, true);
	if (!j) {
		solar_diag_error(r.d, (solar_span){end ? (int32_t)(end - text) : 0, 0},
				 "invalid JSON (a truncated or hand-edited memory file?)");
		solar_diag_free(r.d);
		free(text);
		return -1;
	}
	if (solar_json_check(j, -1, r.d)) { /* a key twice, a number past a double */
		cJSON_Delete(j);
		solar_diag_free(r.d);
		free(text);
		return -1;
	}
	cJSON *sc = cJSON_GetObjectItemCaseSensitive(j, "schema");
	cJSON *steps = cJSON_GetObjectItemCaseSensitive(j, "steps");
	if (!cJSON_IsObject(j))
		bad(&r, NULL,
		    "expected an object {\"schema\": \"solar.advise-memory/1\", "
		    "\"steps\": [...]}");
	else if (!cJSON_IsString(sc) || strcmp(sc->valuestring, "solar.advise-memory/1"))
		bad(&r, "schema", "expected \"solar.advise-memory/1\"");
	else if (!cJSON_IsArray(steps))
		bad(&r, "steps", "expected an array of steps");
	else {
		int i = 0;
		cJSON *e;
		cJSON_ArrayForEach(e, steps)
		{
			solar_memory_step s;
			read_step(&r, e, i++, &s);
			solar_memory_add(m, &s);
			free(s.problem);
			free(s.strategy);
			free(s.why);
			cJSON_Delete(s.sizes);
		}
	}
	cJSON_Delete(j);
	int errors = solar_diag_errors(r.d);
	solar_diag_finish(r.d);
	solar_diag_free(r.d);
	free(text);
	if (errors) {
		solar_memory_free(m);
		return -1;
	}
	return 0;
}

/* ---- statistics and writing --------------------------------------------------------------- */

int solar_memory_lock(const char *file, solar_diag *diag)
{
	char *real = realpath(file, NULL);
	const char *path = real ? real : file, *slash = strrchr(path, '/');
	char *dir = slash ? solar_xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
			  : solar_xstrdup(".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		solar_diag_tool_error(diag, "%s: cannot lock its folder %s: %s", file, dir,
				      strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(dir);
	free(real);
	return fd;
}

static bool paid(const solar_memory_step *s)
{
	return s->correct && s->after_s < s->before_s;
}

static double gain(const solar_memory_step *s)
{
	return paid(s) ? (s->before_s - s->after_s) / s->before_s : 0;
}

/* The realised fraction of the predicted gain, in [0, 1]. */
static double realised(const solar_memory_step *s)
{
	if (!paid(s))
		return 0;
	if (s->max_gain_s <= 0)
		return 1;
	double f = (s->before_s - s->after_s) / s->max_gain_s;
	return f > 1 ? 1 : f;
}

static void add_stat(cJSON *obj, const char *key, const solar_memory_step *s)
{
	cJSON *e = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!e) {
		e = cJSON_AddObjectToObject(obj, key);
		cJSON_AddNumberToObject(e, "tried", 0);
		cJSON_AddNumberToObject(e, "paid", 0);
		cJSON_AddNumberToObject(e, "mean_gain", 0);
	}
	cJSON *t = cJSON_GetObjectItem(e, "tried"), *p = cJSON_GetObjectItem(e, "paid"),
	      *g = cJSON_GetObjectItem(e, "mean_gain");
	double n = t->valuedouble;
	cJSON_SetNumberValue(g, (g->valuedouble * n + gain(s)) / (n + 1));
	cJSON_SetNumberValue(t, n + 1);
	cJSON_SetNumberValue(p, p->valuedouble + paid(s));
}

cJSON *solar_memory_to_json(const solar_memory *m)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "schema", "solar.advise-memory/1");
	cJSON *steps = cJSON_AddArrayToObject(j, "steps");
	cJSON *dirs = cJSON_CreateObject(), *trans = cJSON_CreateObject();
	for (int i = 0; i < m->n; i++) {
		const solar_memory_step *s = &m->steps[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "problem", s->problem ? s->problem : "");
		cJSON *sig = cJSON_AddObjectToObject(e, "signature");
		cJSON *oc = cJSON_AddArrayToObject(sig, "op_classes");
		for (int b = 0; b < 3; b++)
			if (s->op_classes & (1u << b))
				cJSON_AddItemToArray(oc, cJSON_CreateString(opc_names[b]));
		cJSON_AddStringToObject(sig, "limiter", s->limiter);
		cJSON *sh = cJSON_AddObjectToObject(sig, "shares");
		for (int d = 0; d < SOLAR_DIR_COUNT; d++)
			cJSON_AddNumberToObject(sh, solar_direction_name(d), s->shares[d]);
		if (s->sizes)
			cJSON_AddItemToObject(sig, "sizes", cJSON_Duplicate(s->sizes, true));
		if (s->previous >= 0)
			cJSON_AddStringToObject(e, "previous", solar_direction_name(s->previous));
		else
			cJSON_AddNullToObject(e, "previous");
		cJSON_AddStringToObject(e, "direction", solar_direction_name(s->direction));
		cJSON_AddStringToObject(e, "strategy", s->strategy ? s->strategy : "");
		cJSON *b = cJSON_AddObjectToObject(e, "before");
		cJSON_AddNumberToObject(b, "measured_s", s->before_s);
		if (s->before_bound_s > 0)
			cJSON_AddNumberToObject(b, "bound_s", s->before_bound_s);
		cJSON *a = cJSON_AddObjectToObject(e, "after");
		cJSON_AddNumberToObject(a, "measured_s", s->after_s);
		if (s->after_bound_s > 0)
			cJSON_AddNumberToObject(a, "bound_s", s->after_bound_s);
		cJSON_AddNumberToObject(e, "max_gain_s", s->max_gain_s);
		cJSON_AddBoolToObject(e, "correct", s->correct);
		cJSON_AddStringToObject(e, "why", s->why ? s->why : "");
		cJSON_AddItemToArray(steps, e);
		add_stat(dirs, solar_direction_name(s->direction), s);
		char key[96];
		snprintf(key, sizeof key, "%s -> %s",
			 s->previous >= 0 ? solar_direction_name(s->previous) : "start",
			 solar_direction_name(s->direction));
		add_stat(trans, key, s);
	}
	cJSON_AddItemToObject(j, "directions", dirs);
	cJSON_AddItemToObject(j, "transitions", trans);
	return j;
}

/* ---- weighting ---------------------------------------------------------------------------- */

static const char *limiter_class(const char *lim)
{
	if (!strcmp(lim, "dram") || !strcmp(lim, "l2"))
		return "memory";
	if (!strncmp(lim, "tensor", 6))
		return "tensor";
	if (!strncmp(lim, "sfu", 3))
		return "sfu";
	return "simt";
}

/* Similarity of a past step to the current state, in (0, 1]: exp(-L1 distance of the shares
 * / 0.25), halved when the limiter's class differs and again when the op classes differ. */
static double similarity(const solar_memory_step *s, const double *shares, const char *lim,
			 unsigned opc)
{
	double dist = 0;
	for (int d = 0; d < SOLAR_DIR_COUNT; d++)
		dist += fabs(s->shares[d] - shares[d]);
	double w = exp(-dist / 0.25);
	if (strcmp(limiter_class(s->limiter), limiter_class(lim)))
		w *= 0.5;
	if (s->op_classes != opc)
		w *= 0.5;
	return w;
}

void solar_memory_weigh(const solar_memory *m, solar_advice *a, unsigned op_classes,
			int previous, double measured_s)
{
	double shares[SOLAR_DIR_COUNT];
	for (int i = 0; i < SOLAR_DIR_COUNT; i++)
		shares[a->dir[i].dir] = a->dir[i].share;
	for (int i = 0; i < SOLAR_DIR_COUNT; i++) {
		solar_advice_dir *x = &a->dir[i];
		double n = 0, np = 0, nr = 0, tn = 0, tp = 0, tr = 0;
		for (int k = 0; k < m->n; k++) {
			const solar_memory_step *s = &m->steps[k];
			if (s->direction != (int)x->dir)
				continue;
			double w = similarity(s, shares, a->limiter, op_classes);
			n += w;
			np += w * paid(s);
			nr += w * realised(s);
			if (previous >= 0 && s->previous == previous) {
				tn += w;
				tp += w * paid(s);
				tr += w * realised(s);
			}
		}
		/* Laplace-shrunk success rate and realised fraction (prior 1/2 each), then
		 * shrunk again toward those by the steps after the same previous direction */
		double p = (np + 1) / (n + 2), g = (nr + 0.5) / (n + 1);
		if (previous >= 0) {
			p = (tp + 2 * p) / (tn + 2);
			g = (tr + 2 * g) / (tn + 2);
		}
		x->p_paid = p;
		x->mean_gain = g;
		x->n_similar = n;
		x->score = (x->max_gain_s + 0.01 * measured_s) * p * g / 0.25;
		char *r = x->reason + strlen(x->reason);
		size_t left = sizeof x->reason - strlen(x->reason);
		snprintf(r, left, "%smemory: %.1f similar step%s, paid %.0f%%, realised %.0f%% of "
				  "the predicted gain%s%s",
			 x->reason[0] ? "; " : "", n, n > 0.95 && n < 1.05 ? "" : "s", 100 * p, 100 * g,
			 previous >= 0 && tn > 0 ? ", after " : "",
			 previous >= 0 && tn > 0 ? solar_direction_name(previous) : "");
	}
	solar_advise_rank(a);
}
