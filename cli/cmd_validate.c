/* cmd_validate.c - `solar validate FILE --ref MODEL.py [--backend cpu|cuda] [--tol REL]
 *                   [--keep DIR] [--device D.json] [--json]`.
 *
 * Checks that an AIR program computes what its PyTorch original computes, on the same inputs,
 * and sets the original's measured time against the bounds (docs/validate.md):
 *   1. load and check the AIR;
 *   2. DIR/air.json: the AIR's tensors (name, role, dtype, shape) in declaration order;
 *   3. `harness.py run`: the harness binds the tensors to the PyTorch model, writes the inputs
 *      DIR/in_<name>.npy and the reference outputs DIR/ref_<name>.npy, times the model
 *      (DIR/ref.json);
 *   4. the AIR program, generated as C (CPU) or CUDA (GPU), reads the same inputs and writes
 *      DIR/air_<name>.npy;
 *   5. `harness.py compare` compares per output and prints JSON, which is reported here with
 *      the times and, given --device, the three bounds and the headroom = reference / bound.
 * Exit status: 0 every output matches, 1 a mismatch (or errors in the AIR), 2 usage or
 * environment errors (no harness, no compiler, no GPU, the reference failed).
 * SOLAR_TIME_LIMIT covers solar's own analysis (steps 1 and the bounds); it is paused during
 * steps 3 to 5, which run under --timeout.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "api/detail.h"
#include "analysis/work.h"
#include "devices/json.h"
#include "cli.h"
#include "diag/file.h"
#include "output.h"
#include "roofline/roofline.h"
#include "validate/validate.h"

#define DEFAULT_TIMEOUT_S 1200.0

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* validate/harness.py: $SOLAR_HARNESS, beside the executable (../validate, ./validate, the
 * installed ../share/solar/validate), the source tree solar was built from, or the current directory. */
static char *find_harness(void)
{
	const char *env = getenv("SOLAR_HARNESS");
	if (env && *env) {
		if (readable(env))
			return solar_xstrdup(env);
		solar_diag_tool_error(solar_cli_diag(), "SOLAR_HARNESS=%s: %s", env,
				      strerror(errno));
		return NULL;
	}
	char exe[PATH_MAX];
	solar_self_exe(exe, sizeof exe);
	char path[PATH_MAX + 64];
	if (exe[0]) {
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		static const char *rel[] = {"/../validate/harness.py", "/validate/harness.py",
					    "/../share/solar/validate/harness.py"};
		for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
			snprintf(path, sizeof path, "%s%s", exe, rel[i]);
			if (readable(path))
				return solar_xstrdup(path);
		}
	}
	snprintf(path, sizeof path, "%s/validate/harness.py", SOLAR_SOURCE_DIR);
	if (readable(path))
		return solar_xstrdup(path);
	if (readable("validate/harness.py"))
		return solar_xstrdup("validate/harness.py");
	return NULL;
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *s = solar_xmalloc(n);
	snprintf(s, n, "%s/%s", dir, name);
	return s;
}

static int write_json(const char *path, cJSON *j)
{
	char *s = cJSON_Print(j);
	FILE *f = fopen(path, "w");
	int rc = f && fprintf(f, "%s\n", s) > 0 ? 0 : -1;
	if (f && fclose(f))
		rc = -1;
	free(s);
	if (rc)
		solar_diag_tool_error(solar_cli_diag(), "cannot write %s: %s", path,
				      strerror(errno));
	return rc;
}

/* DIR/air.json: {"program", "params", "tensors": [{"name", "role", "dtype", "shape"}]}, and
 * "contraction": whether some statement accumulates a product over a reduction dimension (a
 * GEMM or a convolution: where TF32 may change the reference's f32 results). */
static cJSON *air_json(const char *file, const solar_program *p, solar_math math)
{
	cJSON *j = solar_json_program(file, p);
	bool contraction = false;
	for (int s = 0; s < p->nstmts; s++) {
		bool c = false;
		int rdims = 0;
		solar_stmt_op_mix(p, p->stmts[s], math, &c, &rdims);
		contraction |= c;
	}
	cJSON_AddBoolToObject(j, "contraction", contraction);
	cJSON *ts = cJSON_AddArrayToObject(j, "tensors");
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", t->name);
		cJSON_AddStringToObject(e, "role", solar_role_name(t->role));
		cJSON_AddStringToObject(e, "dtype", solar_dtype_name(t->dtype));
		/* the harness draws a rand tensor's values (docs/validate.md) */
		if (t->role == SOLAR_ROLE_RAND)
			cJSON_AddStringToObject(e, "dist", solar_dist_name(t->dist));
		cJSON *sh = cJSON_AddArrayToObject(e, "shape");
		for (int k = 0; k < t->rank; k++)
			cJSON_AddItemToArray(sh, solar_json_int((long long)t->extent[k]));
		cJSON_AddItemToArray(ts, e);
	}
	return j;
}

/* DIR/air_global.json of a program with a mesh: air.json of one rank's program with each
 * tensor's whole shape (a split dimension N times the rank's), its "local_shape" and
 * "layout" ([{"kind": "split", "axis", "dim"}, {"kind": "partial", "axis"}]), and the
 * "mesh" ([{"name", "size", "stride"}]): what the reference binds and `harness.py shard`
 * cuts into the ranks' parts. */
static cJSON *air_global_json(const char *file, const solar_program *p, solar_math math)
{
	cJSON *j = air_json(file, p, math);
	cJSON *mesh = cJSON_AddArrayToObject(j, "mesh");
	for (int a = 0; a < p->nmesh; a++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", p->mesh[a].name);
		cJSON_AddItemToObject(e, "size", solar_json_int((long long)p->mesh[a].value));
		cJSON_AddItemToObject(e, "stride",
				      solar_json_int((long long)solar_mesh_stride(p, a)));
		cJSON_AddItemToArray(mesh, e);
	}
	cJSON *ts = cJSON_GetObjectItem(j, "tensors");
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		cJSON *e = cJSON_GetArrayItem(ts, i);
		cJSON_AddItemToObject(e, "local_shape",
				      cJSON_Duplicate(cJSON_GetObjectItem(e, "shape"), 1));
		cJSON *sh = cJSON_GetObjectItem(e, "shape"), *ly = cJSON_AddArrayToObject(e, "layout");
		for (int l = 0; l < t->nlayout; l++) {
			const solar_layout *x = &t->layout[l];
			cJSON *le = cJSON_CreateObject();
			cJSON_AddStringToObject(le, "kind",
						x->kind == SOLAR_LAYOUT_SPLIT	? "split"
						: x->kind == SOLAR_LAYOUT_STAGE ? "stage"
										: "partial");
			cJSON_AddStringToObject(le, "axis", p->mesh[x->axis].name);
			if (x->kind == SOLAR_LAYOUT_STAGE)
				cJSON_AddItemToObject(le, "stage", solar_json_int(x->dim));
			if (x->kind == SOLAR_LAYOUT_SPLIT) {
				cJSON_AddItemToObject(le, "dim", solar_json_int(x->dim));
				cJSON_ReplaceItemInArray(
				    sh, x->dim,
				    solar_json_int((long long)(t->extent[x->dim] *
								p->mesh[x->axis].value)));
			}
			cJSON_AddItemToArray(ly, le);
		}
	}
	return j;
}

/* DIR/air_run.json: how the AIR program ran and what its output files hold. */
static cJSON *run_json(const solar_program *p, const char *backend, const solar_run *r)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "backend", backend);
	cJSON_AddStringToObject(j, "device", r->device);
	cJSON_AddNumberToObject(j, "compile_s", r->compile_s);
	cJSON_AddNumberToObject(j, "run_s", r->run_s);
	cJSON *ks = cJSON_AddArrayToObject(j, "kernels");
	for (int k = 0; k < p->nkernels; k++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", p->kernels[k].name);
		cJSON_AddNumberToObject(e, "run_s", r->kernel_s[k]);
		cJSON_AddItemToArray(ks, e);
	}
	cJSON *outs = cJSON_AddArrayToObject(j, "outputs");
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		if (t->role != SOLAR_ROLE_OUT && t->role != SOLAR_ROLE_INOUT)
			continue;
		bool widened;
		solar_npy_type nt = solar_npy_out_type(t->dtype, &widened);
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", t->name);
		cJSON_AddStringToObject(e, "dtype", t->dtype == SOLAR_DT_BOOL ? "bool"
											: solar_dtype_name(t->dtype));
		cJSON_AddStringToObject(e, "npy_dtype", solar_npy_descr(nt));
		cJSON_AddBoolToObject(e, "widened", widened);
		cJSON_AddItemToArray(outs, e);
	}
	return j;
}

static cJSON *read_json(const char *path)
{
	int32_t len;
	char *text = solar_read_file(path, &len, solar_cli_diag());
	if (!text)
		return NULL;
	solar_diag *d = solar_diag_new_file(solar_cli_diag(), path, text, len);
	cJSON *j = solar_json_parse(text, (size_t)len, d); /* syntax, duplicate keys, 1e400 */
	solar_diag_free(d);
	free(text);
	return j;
}

/* The python interpreter: $SOLAR_PYTHON or python3. */
static const char *python(void)
{
	const char *py = getenv("SOLAR_PYTHON");
	return py && *py ? py : "python3";
}

typedef struct {
	const solar_opts *o;
	const char *harness, *dir, *air_path;
	const char *device; /* where the reference runs: "cuda", or NULL for the harness's choice */
	double timeout_s;
} ctx;

/* harness.py run: 0, or an exit code (its stderr already explained). */
static int harness_run(const ctx *c)
{
	int n = 0;
	char **argv = solar_xcalloc((size_t)(16 + 2 * c->o->ndefs), sizeof *argv);
	argv[n++] = (char *)python();
	argv[n++] = (char *)c->harness;
	argv[n++] = "run";
	argv[n++] = "--ref";
	argv[n++] = (char *)c->o->ref;
	argv[n++] = "--air";
	argv[n++] = (char *)c->air_path;
	argv[n++] = "--dir";
	argv[n++] = (char *)c->dir;
	if (c->device) { /* else the harness picks: the GPU when there is one */
		argv[n++] = "--device";
		argv[n++] = (char *)c->device;
	}
	char **defs = solar_xcalloc((size_t)c->o->ndefs + 1, sizeof *defs);
	for (int i = 0; i < c->o->ndefs; i++) {
		size_t len = strlen(c->o->defs[i].name) + 32;
		defs[i] = solar_xmalloc(len);
		snprintf(defs[i], len, "%s=%lld", c->o->defs[i].name, (long long)c->o->defs[i].value);
		argv[n++] = "-D";
		argv[n++] = defs[i];
	}
	solar_proc pr;
	int rc = 0;
	solar_proc_how how = {.out_fd = 2, .timeout_s = c->timeout_s}; /* stdout off ours */
	if (solar_proc_run(argv, &how, &pr) < 0) {
		solar_diag_tool_error(
		    solar_cli_diag(),
		    "cannot run the reference harness with '%s': %s (set SOLAR_PYTHON)", argv[0],
		    strerror(errno));
		rc = SOLAR_EXIT_USAGE;
	} else if (pr.timed_out) {
		solar_diag_tool_error(
		    solar_cli_diag(),
		    "the reference harness ran past the time limit of %g s and was "
		    "stopped (--timeout SECONDS sets it)",
		    c->timeout_s);
		rc = SOLAR_EXIT_USAGE;
	} else if (pr.status != 0) {
		if (pr.status != 2)
			solar_diag_tool_error(solar_cli_diag(),
					      "the reference harness failed (exit %d)", pr.status);
		rc = SOLAR_EXIT_USAGE;
	}
	solar_proc_free(&pr);
	for (int i = 0; i < c->o->ndefs; i++)
		free(defs[i]);
	free(defs);
	free(argv);
	return rc;
}

/* harness.py compare (or localise, cmd): its JSON, an object with the array `key`, or NULL
 * after a message. */
static cJSON *harness_verdict(const ctx *c, const char *cmd, const char *key)
{
	char *argv[] = {(char *)python(), (char *)c->harness, (char *)cmd, "--air",
			(char *)c->air_path, "--dir", (char *)c->dir, NULL, NULL, NULL};
	if (c->o->tol) {
		argv[7] = "--tol";
		argv[8] = (char *)c->o->tol;
	}
	solar_proc pr;
	if (solar_proc_run(argv, &(solar_proc_how){.capture_out = true, .timeout_s = c->timeout_s},
			   &pr) < 0) {
		solar_diag_tool_error(solar_cli_diag(), "cannot run the reference harness: %s",
				      strerror(errno));
		return NULL;
	}
	cJSON *j = pr.out ? cJSON_Parse(pr.out) : NULL;
	solar_diag *jd = solar_diag_new_file(solar_cli_diag(), "the harness's result", NULL, 0);
	if (j && solar_json_check(j, -1, jd)) { /* a key twice, a number past a double */
		cJSON_Delete(j);
		j = NULL;
	}
	solar_diag_free(jd);
	if (!cJSON_IsObject(j) || !cJSON_IsArray(cJSON_GetObjectItem(j, key))) {
		if (pr.status != 2) /* 2: its stderr said why */
			solar_diag_tool_error(solar_cli_diag(),
					      "the harness's %s (exit %d%s) printed no JSON result",
					      cmd, pr.status, pr.timed_out ? ", timed out" : "");
		cJSON_Delete(j);
		j = NULL;
	}
	solar_proc_free(&pr);
	return j;
}

static double num_or(cJSON *j, const char *key, double dflt)
{
	cJSON *v = cJSON_GetObjectItem(j, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *str_or(cJSON *j, const char *key, const char *dflt)
{
	cJSON *v = cJSON_GetObjectItem(j, key);
	return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* The names of a JSON array of strings, "a, b and c", into buf. */
static const char *name_list(cJSON *arr, char *buf, size_t n)
{
	int count = cJSON_GetArraySize(arr), i = 0;
	size_t len = 0;
	buf[0] = '\0';
	cJSON *e;
	cJSON_ArrayForEach(e, arr)
	{
		if (cJSON_IsString(e) && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s",
						i == 0 ? "" : i + 1 == count ? " and " : ", ",
						e->valuestring);
		i++;
	}
	return buf;
}

/* The localisation of a mismatch (harness.py localise), or the reason there is none. */
static void print_localised(FILE *out, cJSON *loc, const char *backend)
{
	if (!loc) {
		if (!strcmp(backend, "cuda"))
			fputs("\nlocalise: run with --backend cpu (at small sizes, -D) to find the kernel "
			      "that first computes wrong values\n",
			      out);
		return;
	}
	char names[1024], hidden[1024];
	if (!cJSON_IsTrue(cJSON_GetObjectItem(loc, "localised"))) {
		fputs("\nnot localised: run on the original's values of the tensors they read, "
		      "every kernel's checked tensors match it within tolerance\n",
		      out);
		return;
	}
	cJSON *sus = cJSON_GetObjectItem(loc, "suspects");
	cJSON *worst = cJSON_GetObjectItem(loc, "worst");
	fprintf(out, "\nfirst wrong kernel: %s (%s)\n", str_or(loc, "kernel", "?"),
		str_or(loc, "where", "?"));
	double rl = num_or(loc, "rel_l2", NAN), tl = num_or(loc, "tol", NAN);
	fprintf(out, "  tensor %s, against %s: ", str_or(loc, "tensor", "?"),
		str_or(loc, "against", "?"));
	if (cJSON_IsObject(worst) && !isnan(rl) && !isnan(tl))
		fprintf(out, "rel_l2 %.3g > tol %g\n", rl, tl);
	else
		fprintf(out, "%s\n", str_or(loc, "reason", ""));
	if (cJSON_IsObject(worst)) {
		fputs("  worst element: ", out);
		cJSON *ix = cJSON_GetObjectItem(worst, "index"), *e;
		fputc('[', out);
		int i = 0;
		cJSON_ArrayForEach(e, ix) fprintf(out, "%s%d", i++ ? ", " : "", e->valueint);
		fputc(']', out);
		double a = num_or(worst, "air", NAN), r = num_or(worst, "reference", NAN);
		fprintf(out, ", expected %.6g, got %.6g\n", r, a);
	}
	if (cJSON_GetArraySize(sus) > 1)
		fprintf(out,
			"  not one kernel: it reads %s, which earlier kernels wrote and the original "
			"does not expose; the first wrong values come from one of the kernels %s\n",
			name_list(cJSON_GetObjectItem(loc, "unexposed"), hidden, sizeof hidden),
			name_list(sus, names, sizeof names));
	cJSON *also = cJSON_GetObjectItem(loc, "also_wrong");
	if (cJSON_GetArraySize(also) > 0)
		fprintf(out, "  also wrong on the original's inputs: %s\n",
			name_list(also, names, sizeof names));
	fputs("  how: the AIR ran again (C backend) comparing, after each kernel, the tensors it "
	      "finished that the original has too (outputs; tmps named like a submodule or a "
	      "local of forward()), then continuing from the original's values\n",
	      out);
}

/* What the comparison of a program with rand tensors checks (docs/validate.md, "Random
 * numbers"): the same fixed draws on both sides, so not their distribution. */
static void print_random(FILE *out, const solar_program *p, const cJSON *ref)
{
	int n = 0;
	for (int t = 0; t < p->ntensors; t++)
		n += p->tensors[t].role == SOLAR_ROLE_RAND;
	if (!n)
		return;
	const cJSON *served = cJSON_GetObjectItem(cJSON_GetObjectItem(ref, "random"), "served");
	fprintf(out,
		"\nrandom:       %d rand tensor%s, fixed draws served to %d random call%s of "
		"the reference, in order;\n              checked: everything computed from the "
		"draws; not checked: their distribution\n",
		n, n == 1 ? "" : "s", cJSON_GetArraySize(served),
		cJSON_GetArraySize(served) == 1 ? "" : "s");
}

static void print_table(FILE *out, const solar_opts *o, const solar_program *p,
			const char *backend, const solar_run *r, cJSON *ref, cJSON *cmp,
			cJSON *loc, const solar_device *dev, const solar_bounds *b, const char *dir)
{
	char t1[32], t2[32];
	fputs("validate ", out);
	solar_out_header(out, o->files[0], p, false); /* every rank runs */
	fprintf(out, "  AIR program: %s backend, %s\n", backend, r->device);
	fprintf(out, "  reference:   %s on %s\n\n", o->ref, str_or(ref, "device", "?"));
	int ow = 16; /* the output column: as wide as its longest name */
	cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(cmp, "outputs"))
	{
		int len = (int)strlen(str_or(e, "name", "?"));
		ow = len > ow ? len : ow;
	}
	fprintf(out, "%-*s %-7s %-11s %-11s %-9s %-19s %s\n", ow, "output", "dtype", "max_abs",
		"rel_l2", "tol", "f64: air / ref", "result");
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(cmp, "outputs"))
	{
		const char *name = str_or(e, "name", "?");
		const char *dt = "?";
		for (int i = 0; i < p->ntensors; i++)
			if (!strcmp(p->tensors[i].name, name))
				dt = solar_dtype_name(p->tensors[i].dtype);
		char a[32] = "-", rl[32] = "-", tl[32] = "-";
		double v;
		if (!isnan(v = num_or(e, "max_abs", NAN)))
			snprintf(a, sizeof a, "%.3g", v);
		if (!isnan(v = num_or(e, "rel_l2", NAN)))
			snprintf(rl, sizeof rl, "%.3g", v);
		if (!isnan(v = num_or(e, "tol", NAN)))
			snprintf(tl, sizeof tl, "%.3g", v);
		char f64[48] = "-"; /* the float64 rule's errors, where it was asked */
		double ea = num_or(e, "rel_l2_f64", NAN), er = num_or(e, "ref_rel_l2_f64", NAN);
		if (!isnan(ea) && !isnan(er))
			snprintf(f64, sizeof f64, "%.3g / %.3g", ea, er);
		bool pass = cJSON_IsTrue(cJSON_GetObjectItem(e, "pass"));
		const char *reason = pass ? str_or(e, "check", "") : str_or(e, "reason", "");
		fprintf(out, "%-*s %-7s %-11s %-11s %-9s %-19s %s%s%s%s\n", ow, name, dt, a, rl, tl,
			f64, pass ? "PASS" : "FAIL", *reason ? (pass ? " (" : ": ") : "", reason,
			pass && *reason ? ")" : "");
	}
	if (!cJSON_IsTrue(cJSON_GetObjectItem(cmp, "pass")))
		print_localised(out, loc, backend);
	print_random(out, p, ref);
	fprintf(out, "\nAIR program:  compile %s, run %s", solar_fmt_time(t1, sizeof t1, r->compile_s),
		solar_fmt_time(t2, sizeof t2, r->run_s));
	if (p->nkernels > 1) {
		fputs(" (", out);
		for (int k = 0; k < p->nkernels; k++)
			fprintf(out, "%s%s %s", k ? ", " : "", p->kernels[k].name,
				solar_fmt_time(t1, sizeof t1, r->kernel_s[k]));
		fputs(")", out);
	}
	fputs("\n", out);
	double ref_s = num_or(ref, "time_s", -1);
	if (ref_s > 0)
		fprintf(out, "reference:    %s (median)\n", solar_fmt_time(t1, sizeof t1, ref_s));
	else
		fputs("reference:    not timed\n", out);
	if (dev && b) {
		struct {
			const char *name;
			const solar_roof *r;
		} rows[3] = {{"unfused", &b->unfused},
			     {"cache-aware", &b->cache_aware},
			     {"fused", &b->fused}};
		fprintf(out, "\nbound on %s, L2 %s%s\n", dev->name, solar_l2_name(b->l2_cold),
			ref_s > 0 ? "         time        headroom (reference / bound)" : "");
		for (int i = 0; i < 3; i++) {
			char rb[48], hr[32] = "";
			if (ref_s > 0 && rows[i].r->time_s > 0)
				snprintf(hr, sizeof hr, "%.3gx", ref_s / rows[i].r->time_s);
			fprintf(out, "  %-13s %-10s %-14s %s\n", rows[i].name,
				solar_fmt_time(t1, sizeof t1, rows[i].r->time_s),
				solar_resource_name(rows[i].r->limiter, rb, sizeof rb), hr);
		}
	}
	if (dir)
		fprintf(out, "\nfiles kept in %s\n", dir);
	fprintf(out, "\n%s\n", cJSON_IsTrue(cJSON_GetObjectItem(cmp, "pass")) ? "PASS" : "FAIL");
}

static cJSON *json_result(const solar_opts *o, const solar_program *p, const char *backend,
			  const solar_run *r, cJSON *ref, cJSON *cmp, cJSON *loc,
			  const solar_device *dev, const solar_bounds *b, const char *dir)
{
	cJSON *j = solar_json_program(o->files[0], p);
	cJSON_AddStringToObject(j, "backend", backend);
	cJSON_AddBoolToObject(j, "pass", cJSON_IsTrue(cJSON_GetObjectItem(cmp, "pass")));
	cJSON_AddItemToObject(j, "outputs",
			      cJSON_Duplicate(cJSON_GetObjectItem(cmp, "outputs"), true));
	if (loc)
		cJSON_AddItemToObject(j, "localised", cJSON_Duplicate(loc, true));
	else
		cJSON_AddNullToObject(j, "localised");
	cJSON *air = cJSON_AddObjectToObject(j, "air");
	cJSON_AddStringToObject(air, "device", r->device);
	cJSON_AddNumberToObject(air, "compile_s", r->compile_s);
	cJSON_AddNumberToObject(air, "run_s", r->run_s);
	cJSON *ks = cJSON_AddArrayToObject(air, "kernels");
	for (int k = 0; k < p->nkernels; k++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", p->kernels[k].name);
		cJSON_AddNumberToObject(e, "run_s", r->kernel_s[k]);
		cJSON_AddItemToArray(ks, e);
	}
	cJSON *rf = cJSON_AddObjectToObject(j, "reference");
	cJSON_AddStringToObject(rf, "file", o->ref);
	if (cJSON_GetObjectItem(ref, "random")) /* the fixed draws (docs/validate.md) */
		cJSON_AddItemToObject(rf, "random",
				      cJSON_Duplicate(cJSON_GetObjectItem(ref, "random"), true));
	cJSON_AddStringToObject(rf, "device", str_or(ref, "device", "?"));
	double ref_s = num_or(ref, "time_s", -1);
	if (ref_s > 0)
		cJSON_AddNumberToObject(rf, "time_s", ref_s);
	else
		cJSON_AddNullToObject(rf, "time_s");
	cJSON *flags = cJSON_GetObjectItem(ref, "flags");
	if (flags)
		cJSON_AddItemToObject(rf, "flags", cJSON_Duplicate(flags, true));
	if (dev && b) {
		cJSON *bs = cJSON_AddObjectToObject(j, "bounds");
		cJSON *d = cJSON_AddObjectToObject(bs, "device");
		cJSON_AddStringToObject(d, "name", dev->name);
		cJSON_AddStringToObject(d, "file", o->device);
		cJSON_AddStringToObject(bs, "l2", solar_l2_name(b->l2_cold));
		const solar_roof *rows[3] = {&b->unfused, &b->cache_aware, &b->fused};
		const char *names[3] = {"unfused", "cache_aware", "fused"};
		for (int i = 0; i < 3; i++) {
			char rb[48];
			cJSON *e = cJSON_AddObjectToObject(bs, names[i]);
			cJSON_AddNumberToObject(e, "time_s", rows[i]->time_s);
			cJSON_AddStringToObject(e, "limited_by",
						solar_resource_name(rows[i]->limiter, rb, sizeof rb));
			if (ref_s > 0 && rows[i]->time_s > 0)
				cJSON_AddNumberToObject(e, "headroom", ref_s / rows[i]->time_s);
			else
				cJSON_AddNullToObject(e, "headroom");
		}
	}
	if (dir)
		cJSON_AddStringToObject(j, "dir", dir);
	else
		cJSON_AddNullToObject(j, "dir");
	return j;
}

/* A fresh working directory: --keep DIR (created if missing), else one under $TMPDIR. */
static char *make_dir(const solar_opts *o)
{
	if (o->keep) {
		if (mkdir(o->keep, 0777) < 0 && errno != EEXIST) {
			solar_diag_tool_error(solar_cli_diag(), "cannot create %s: %s", o->keep,
					      strerror(errno));
			return NULL;
		}
		return solar_xstrdup(o->keep);
	}
	const char *tmp = getenv("TMPDIR");
	char *dir = join(tmp && *tmp ? tmp : "/tmp", "solar-validate-XXXXXX");
	if (!mkdtemp(dir)) {
		solar_diag_tool_error(solar_cli_diag(), "cannot create a directory under %s: %s",
				      tmp && *tmp ? tmp : "/tmp", strerror(errno));
		free(dir);
		return NULL;
	}
	solar_proc_catch_signals();
	solar_proc_temp(dir, true); /* an interrupted run leaves nothing behind either */
	return dir;
}

/* One run of validate: what it loaded, made and learned, freed together (validation_free). */
typedef struct validation validation;
struct validation {
	const solar_opts *o;
	const char *backend; /* cpu or cuda */
	solar_question q;    /* the question of the bounds (cold L2 unless --l2 says) */
	solar_device *dev;   /* --device as loaded, or NULL: no bounds */
	solar_loaded l;
	/* a program with a mesh: its single-process form (validate/spmd.c), which the backend
	 * runs and the comparison reads; run = l.prog otherwise */
	char *spmd_text;
	solar_diag *spmd_diag;
	solar_program *spmd;
	const solar_program *run_prog;
	char *global_path; /* DIR/air_global.json: the whole tensors, for the reference */
	solar_analysis *a;
	char *harness, *dir, *air_path;
	ctx c;
	cJSON *ref, *cmp, *loc; /* the harness's ref.json, comparison and localisation */
	solar_run run;
	solar_result *res;
	const solar_bounds *b;
};

/* A program with a mesh (docs/validate.md, "Programs on many GPUs"): every rank in one
 * process, on the CPU, against the whole model; its single-process form loaded as run_prog. */
static int load_mesh(validation *v)
{
	const solar_program *p = v->l.prog;
	const solar_opts *o = v->o;
	const char *why = strcmp(v->backend, "cpu") ? "runs its ranks on the CPU backend only"
			  : o->device ? "takes no --device: the reference is the whole model on one "
					"device, so no measured time is one rank's (`solar analyze "
					"--device SYSTEM` bounds the program)"
				      : NULL;
	for (int i = 0; !why && i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		if (t->role == SOLAR_ROLE_RAND)
			why = "cannot draw a rand tensor's values for every rank";
		for (int l = 0; !why && l < t->nlayout; l++)
			if (t->layout[l].kind == SOLAR_LAYOUT_PARTIAL && t->role == SOLAR_ROLE_INOUT)
				why = "cannot split the initial value of a partial inout tensor "
				      "among the ranks";
	}
	if (why) {
		solar_diag_error(v->l.diag, p->mesh[0].span,
				 "validate of a program with a mesh %s", why);
		return SOLAR_EXIT_USAGE;
	}
	v->spmd_text = solar_spmd_unroll(p, o->files[0]);
	int32_t len = (int32_t)strlen(v->spmd_text);
	char name[512];
	snprintf(name, sizeof name, "%s (all ranks)", o->files[0]);
	v->spmd_diag = solar_diag_new(name, v->spmd_text, len, stderr);
	v->spmd = solar_frontend_load(name, v->spmd_text, len, NULL, 0, v->spmd_diag);
	solar_diag_finish(v->spmd_diag);
	if (!v->spmd) {
		solar_diag_tool_error(solar_cli_diag(),
				      "internal error: the single-process form of %s does not load "
				      "(above); this is a bug in solar",
				      o->files[0]);
		return SOLAR_EXIT_USAGE;
	}
	v->run_prog = v->spmd;
	return SOLAR_EXIT_OK;
}

/* The request can be served: one FILE, a readable --ref, the backend available.  0 or an exit
 * code after a message. */
static int check_request(const solar_opts *o, const char *backend)
{
	solar_diag *d = solar_cli_diag();
	if (o->nfiles != 1 || !o->ref) {
		solar_diag_tool_error(d, "%s",
				      o->nfiles != 1
					  ? "validate needs exactly one FILE"
					  : "validate needs --ref MODEL.py (the PyTorch original)");
		solar_diag_hint(d, "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	if (!readable(o->ref)) {
		solar_diag_tool_error(d, "%s: %s", o->ref, strerror(errno));
		return SOLAR_EXIT_USAGE;
	}
	char why[512];
	if (!strcmp(backend, "cuda") && solar_cuda_available(why, sizeof why) < 0) {
		solar_diag_tool_error(d, "the CUDA backend is unavailable: %s", why);
		return SOLAR_EXIT_USAGE;
	}
	return SOLAR_EXIT_OK;
}

/* The device (given --device) and the program, loaded and checked. */
static int load(validation *v)
{
	const solar_opts *o = v->o;
	/* The harness flushes the L2 before each timed run of the reference, so its times follow
	 * the cold protocol (docs/bounds.md, rule "L2 state"): the bounds it is set against are
	 * cold ones unless --l2 says otherwise. */
	v->q = solar_cli_question(o);
	if (!o->l2)
		v->q.l2_cold = true;
	if (o->device && !(v->dev = solar_question_device(&v->q, solar_cli_diag())))
		return SOLAR_EXIT_USAGE;
	int rc = solar_cli_load(o->files[0], o, &v->l);
	if (rc != SOLAR_EXIT_OK)
		return rc;
	v->run_prog = v->l.prog;
	if (v->l.prog->nmesh && (rc = load_mesh(v)) != SOLAR_EXIT_OK)
		return rc;
	v->a = solar_analysis_new(v->l.prog, v->l.diag);
	if (!v->a || solar_analysis_run_checks(v->a, v->l.diag))
		return SOLAR_EXIT_ERRORS;
	return SOLAR_EXIT_OK;
}

/* The harness found, the working directory made, DIR/air.json written. */
static int prepare(validation *v)
{
	const solar_opts *o = v->o;
	if (!(v->harness = find_harness())) {
		solar_diag_tool_error(solar_cli_diag(),
				      "cannot find validate/harness.py (set SOLAR_HARNESS)");
		return SOLAR_EXIT_USAGE;
	}
	if (!(v->dir = make_dir(o)))
		return SOLAR_EXIT_USAGE;
	v->air_path = join(v->dir, "air.json");
	cJSON *aj = air_json(o->files[0], v->run_prog, o->math);
	int wrc = write_json(v->air_path, aj);
	cJSON_Delete(aj);
	if (wrc)
		return SOLAR_EXIT_USAGE;
	if (v->spmd) {
		v->global_path = join(v->dir, "air_global.json");
		cJSON *gj = air_global_json(o->files[0], v->l.prog, o->math);
		wrc = write_json(v->global_path, gj);
		cJSON_Delete(gj);
		if (wrc)
			return SOLAR_EXIT_USAGE;
	}
	v->c = (ctx){o,
		     v->harness,
		     v->dir,
		     v->air_path,
		     !strcmp(v->backend, "cuda") ? "cuda" : NULL,
		     o->timeout_s > 0 ? o->timeout_s : DEFAULT_TIMEOUT_S};
	return SOLAR_EXIT_OK;
}

/* Step 3: the reference ran and said so in DIR/ref.json. */
static int run_reference(validation *v)
{
	ctx c = v->c;
	if (v->spmd)
		c.air_path = v->global_path; /* the whole model's tensors */
	int rc = harness_run(&c);
	if (rc != 0)
		return rc;
	if (v->spmd) { /* the whole tensors cut into the ranks' parts */
		c.air_path = v->global_path;
		cJSON *sh = harness_verdict(&c, "shard", "tensors");
		if (!sh)
			return SOLAR_EXIT_USAGE;
		cJSON_Delete(sh);
	}
	char *ref_path = join(v->dir, "ref.json");
	v->ref = read_json(ref_path);
	free(ref_path);
	if (!cJSON_IsObject(v->ref) || !cJSON_IsTrue(cJSON_GetObjectItem(v->ref, "ok"))) {
		solar_diag_tool_error(solar_cli_diag(), "the reference did not run: %s",
				      str_or(v->ref, "error", "no DIR/ref.json with \"ok\": true"));
		return SOLAR_EXIT_USAGE;
	}
	return SOLAR_EXIT_OK;
}

/* Step 4: the AIR program ran on the backend and DIR/air_run.json says how. */
static int run_air(validation *v)
{
	const solar_program *p = v->run_prog;
	const char *file = v->o->files[0];
	int bad = solar_validate_index_data(p, v->dir, v->l.diag, solar_cli_diag());
	if (bad)
		return SOLAR_EXIT_USAGE; /* as a binding error: the data do not fit the AIR */
	int rc =
	    !strcmp(v->backend, "cuda")
		? solar_run_cuda(p, file, v->a, v->dir, v->c.timeout_s, &v->run, solar_cli_diag())
		: solar_run_c(p, file, v->dir, v->c.timeout_s, &v->run, solar_cli_diag());
	if (rc)
		return rc;
	char *run_path = join(v->dir, "air_run.json");
	cJSON *rj = run_json(p, v->backend, &v->run);
	int wrc = write_json(run_path, rj);
	cJSON_Delete(rj);
	free(run_path);
	/* the comparison reads it: a stale or missing file is no verdict */
	return wrc ? SOLAR_EXIT_USAGE : SOLAR_EXIT_OK;
}

/* The float64 rule's two runs of the AIR program, on the run's backend. */
static int wide_runs(validation *v, const solar_program *p, const char *file)
{
	if (strcmp(v->backend, "cuda") != 0)
		return solar_run_c_f64(p, file, v->dir, v->c.timeout_s, solar_cli_diag()) ||
		       solar_run_c_acc(p, file, v->dir, v->c.timeout_s, solar_cli_diag());
	return solar_run_cuda_wide(p, file, v->a, v->dir, v->c.timeout_s, SOLAR_WIDE_ALL,
				   solar_cli_diag()) ||
	       solar_run_cuda_wide(p, file, v->a, v->dir, v->c.timeout_s, SOLAR_WIDE_REDUCED,
				   solar_cli_diag());
}

/* Step 5: the comparison, the float64 rule for a mismatch, and on the CPU the kernel that
 * first goes wrong. */
static int compare(validation *v)
{
	const solar_program *p = v->run_prog;
	const char *file = v->o->files[0];
	bool cpu = strcmp(v->backend, "cuda") != 0;
	if (!(v->cmp = harness_verdict(&v->c, "compare", "outputs")))
		return SOLAR_EXIT_USAGE;
	/* A mismatch, and the reference ran in float64 too: the AIR program runs once more
	 * with its f32 tensors in f64, and once with only its f32 sums in f64 (each rounded at
	 * the end of its kernel), and the comparison is made again, so that the float64 rule
	 * (docs/validate.md, "Comparison") can tell rounding from a wrong program. */
	if (!cJSON_IsTrue(cJSON_GetObjectItem(v->cmp, "pass")) &&
	    cJSON_GetArraySize(
		cJSON_GetObjectItem(cJSON_GetObjectItem(v->ref, "float64"), "written")) > 0 &&
	    wide_runs(v, p, file) == 0) {
		cJSON *again = harness_verdict(&v->c, "compare", "outputs");
		if (again) {
			cJSON_Delete(v->cmp);
			v->cmp = again;
		}
	}
	/* A mismatch: which kernel first computes wrong values (validate/localise.c).  A
	 * failure here leaves the verdict as it is. */
	if (!cJSON_IsTrue(cJSON_GetObjectItem(v->cmp, "pass")) && cpu) {
		if (solar_localise_run(p, file, v->dir, v->c.timeout_s, solar_cli_diag()) == 0)
			v->loc = harness_verdict(&v->c, "localise", "kernels");
		if (!v->loc)
			solar_diag_tool_warning(solar_cli_diag(),
						"the mismatch could not be localised to a kernel "
						"(above)");
	}
	return SOLAR_EXIT_OK;
}

/* The bounds: a job on the program loaded above, on the device as loaded. */
static void bound(validation *v)
{
	solar_job job = {.file = v->o->files[0], .question = v->q};
	job.question.device_file = NULL;
	job.question.device = v->dev;
	job.question.nsets = 0; /* applied when it was loaded */
	v->res = solar_job_run_program(&job, v->l.prog, v->l.diag);
	v->b = solar_result_bounds(v->res);
}

/* The verdict as a table or JSON; 0 when every output matched, 1 on a mismatch. */
static int print_verdict(validation *v)
{
	const solar_opts *o = v->o;
	const char *kept = o->keep ? v->dir : NULL;
	FILE *out = solar_out_open(o);
	if (!out)
		return SOLAR_EXIT_USAGE;
	if (o->format == SOLAR_FMT_JSON)
		solar_json_print(
		    out, solar_json_schema(json_result(o, v->l.prog, v->backend, &v->run, v->ref,
						       v->cmp, v->loc, v->dev, v->b, kept),
					   "validate"));
	else
		print_table(out, o, v->l.prog, v->backend, &v->run, v->ref, v->cmp, v->loc, v->dev,
			    v->b, kept);
	solar_out_close(o, out);
	return cJSON_IsTrue(cJSON_GetObjectItem(v->cmp, "pass")) ? SOLAR_EXIT_OK
								 : SOLAR_EXIT_ERRORS;
}

static void validation_free(validation *v)
{
	if (v->dir && !v->o->keep) {
		solar_proc_remove_tree(v->dir);
		solar_proc_temp_done(v->dir);
	}
	cJSON_Delete(v->ref);
	cJSON_Delete(v->cmp);
	cJSON_Delete(v->loc);
	solar_run_free(&v->run);
	solar_result_free(v->res);
	solar_analysis_free(v->a);
	solar_diag_finish(v->l.diag);
	solar_cli_unload(&v->l);
	solar_device_free(v->dev);
	solar_cli_question_free(&v->q);
	free(v->harness);
	free(v->dir);
	free(v->air_path);
	free(v->global_path);
	solar_program_free(v->spmd);
	solar_diag_free(v->spmd_diag);
	free(v->spmd_text);
}

int solar_cmd_validate(const solar_opts *o)
{
	validation v = {.o = o, .backend = o->backend ? o->backend : "cpu"};
	int rc = check_request(o, v.backend);
	if (rc != SOLAR_EXIT_OK)
		return rc;
	if ((rc = load(&v)) != SOLAR_EXIT_OK || (rc = prepare(&v)) != SOLAR_EXIT_OK)
		goto done;
	/* From here to the comparison, the reference and the AIR program run under --timeout;
	 * SOLAR_TIME_LIMIT is for solar's own analysis (before, and the bounds after). */
	solar_cli_time_limit_pause();
	if ((rc = run_reference(&v)) != 0 || (rc = run_air(&v)) != 0 || (rc = compare(&v)) != 0)
		goto done;
	solar_cli_time_limit_resume();
	if (v.dev)
		bound(&v);
	rc = print_verdict(&v);
done:
	validation_free(&v);
	return rc;
}
