/* cmd_advise.c - `solar advise PROGRAM --measured T --device D [--memory M.json] [--previous DIR]
 *                 [--emit DIR] [--tol REL] [--stop-factor X] [--l2 warm|cold] [--format ...]`
 *               `solar advise PROGRAM --measured T --device D --record M.json --direction DIR
 *                 --strategy TEXT --after T2 [--previous DIR] [--wrong WHY] [--problem NAME]`
 *
 * How the options go together and printing only (the parser, cli/args.c, read them against
 * the table of cli/commands.c); the decomposition and the strategies are search/advise.c, the
 * memory search/memory.c (docs/advise.md).  PROGRAM is AIR, or a PyTorch model (.py) that is
 * translated first with `solar translate --no-validate`.  Exit status: 0 advice printed (or
 * step recorded), 1 bad input (the program, a measured time below the speed of light, a
 * malformed memory file, a failed translation), 2 usage.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diag/file.h"
#include "output.h"
#include "report/measured.h"
#include "search/advise.h"
#include "search/memory.h"
#include "validate/validate.h"

/* advise's own copy of the options: the measured time and the tolerance are settled from the
 * program once it is loaded (a measured file's total, the default tolerance of its outputs). */
typedef struct {
	solar_opts o;
} advise_opts;

static int usage_error(const char *fmt, const char *arg)
{
	return solar_cli_usage("advise", fmt, arg);
}

/* The options as advise keeps them, and how they go together (each value the parser checked). */
static int take_opts(const solar_opts *opts, advise_opts *a)
{
	const solar_opts *o = &a->o;
	a->o = *opts;
	if (o->nfiles != 1)
		return usage_error("%s", "needs exactly one PROGRAM (.air or .py)");
	if (!o->device)
		return usage_error("%s", "needs --device FILE (see devices/*.json)");
	if (o->measured_s < 0 && !o->measured_file)
		return usage_error("%s", "needs --measured TIME (or a JSON file of kernel times)");
	if (o->record && (o->direction < 0 || !o->strategy || o->after_s < 0))
		return usage_error("%s", "--record needs --direction DIR, --strategy TEXT and "
					 "--after TIME");
	if (!o->record && (o->direction >= 0 || o->strategy || o->after_s >= 0 || o->wrong))
		return usage_error("%s", "--direction, --strategy, --after and --wrong go with "
					 "--record");
	if (o->record && o->memory)
		return usage_error("%s", "--record names the memory file itself; drop --memory");
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* `solar translate FILE.py -o DIR/model.air --no-validate -D...` with this executable. */
static int translate(const advise_opts *a, const char *py, char *air, size_t n, char *dir)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, PATH_MAX, "%s/solar-advise-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	solar_proc_catch_signals();
	solar_proc_temp(dir, true); /* before it exists: a signal may come at any time */
	if (!mkdtemp(dir)) {
		solar_diag_tool_error(solar_cli_diag(), "cannot make a temporary folder: %s",
				      strerror(errno));
		solar_proc_temp_done(dir);
		dir[0] = '\0';
		return SOLAR_EXIT_USAGE;
	}
	snprintf(air, n, "%s/model.air", dir);
	char exe[PATH_MAX];
	solar_self_exe(exe, sizeof exe);
	char **args = solar_xcalloc((size_t)a->o.ndefs * 2 + 8, sizeof *args);
	char **defs = solar_xcalloc((size_t)a->o.ndefs + 1, sizeof *defs);
	int k = 0;
	args[k++] = exe;
	args[k++] = "translate";
	args[k++] = (char *)py;
	args[k++] = "-o";
	args[k++] = air;
	args[k++] = "--no-validate";
	for (int i = 0; i < a->o.ndefs; i++) {
		size_t dl = strlen(a->o.defs[i].name) + 24;
		defs[i] = solar_xmalloc(dl);
		snprintf(defs[i], dl, "-D%s=%lld", a->o.defs[i].name,
			 (long long)a->o.defs[i].value);
		args[k++] = defs[i];
	}
	fflush(NULL);
	/* its messages stay off advise's output; it runs under its own SOLAR_TIME_LIMIT */
	solar_proc pr;
	int ran = solar_proc_run(args, &(solar_proc_how){.out_fd = 2, .own_limit = true}, &pr);
	for (int i = 0; i < a->o.ndefs; i++)
		free(defs[i]);
	free(defs);
	free(args);
	if (ran < 0 || pr.status || access(air, R_OK)) {
		solar_diag_tool_error(
		    solar_cli_diag(),
		    "%s: the translation to AIR failed (solar translate exit %d; its "
		    "messages are above); advise needs the program as AIR: fix the "
		    "model or write the AIR by hand",
		    py, ran < 0 ? -1 : pr.status);
		return SOLAR_EXIT_ERRORS;
	}
	return SOLAR_EXIT_OK;
}

static void remove_tree(const char *dir)
{
	if (!dir[0])
		return;
	solar_proc_remove_tree(dir);
	solar_proc_temp_done(dir);
}

/* The default tolerance: KernelBench's, by the outputs' dtype. */
static double default_tol(const solar_program *p)
{
	for (int t = 0; t < p->ntensors; t++)
		if (p->tensors[t].role != SOLAR_ROLE_IN && p->tensors[t].role != SOLAR_ROLE_TMP &&
		    p->tensors[t].role != SOLAR_ROLE_RAND &&
		    (p->tensors[t].dtype == SOLAR_DT_BF16 || p->tensors[t].dtype == SOLAR_DT_F16))
			return 1e-2;
	return 1e-4;
}

/* Writes each rewrite to DIR/NAME as every output is written (cli/output.c: a temporary
 * file renamed into place, never over an input of the run: DIR may hold the program). */
static int emit_all(const char *dir, solar_advice *adv)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		solar_diag_tool_error(solar_cli_diag(), "--emit %s: %s", dir, strerror(errno));
		return -1;
	}
	for (int d = 0; d < SOLAR_DIR_COUNT; d++)
		for (int i = 0; i < adv->dir[d].nstrat; i++) {
			solar_strategy *s = &adv->dir[d].strat[i];
			if (!s->air)
				continue;
			char path[PATH_MAX];
			snprintf(path, sizeof path, "%s/%s", dir, s->emit_name);
			FILE *f = solar_out_open_path(path);
			if (!f)
				return -1;
			fputs(s->air, f);
			if (solar_out_commit(f) < 0)
				return -1;
		}
	return 0;
}

/* ---- output -------------------------------------------------------------------------------- */

static const char *t_(char *buf, size_t n, double s)
{
	return s > 0 ? solar_fmt_time(buf, n, s) : "-";
}

static void print_text(FILE *out, const advise_opts *a, const solar_program *p,
		       const solar_device *dev, const solar_advice *adv, bool md, bool memory)
{
	char t1[32], t2[32], t3[32], t4[32], t5[32];
	const char *file = a->o.files[0], *base = strrchr(file, '/');
	fprintf(out, "%s%s", md ? "### solar advise: " : "", base ? base + 1 : file);
	for (int i = 0; i < p->nparams; i++)
		if (solar_param_shown(p, i))
			fprintf(out, "%s%s=%lld", i ? " " : "  ", p->params[i].name,
				(long long)p->params[i].value);
	fprintf(out, "   on %s, L2 %s, tol %.3g\n\n", dev->name, a->o.l2 ? a->o.l2 : "warm",
		a->o.tol_rel);
	const solar_advise_eval *b = &adv->base;
	fprintf(out,
		"%smeasured %s; speed of light %s (the cache-aware bound%s; as written: "
		"unfused %s, cache-aware %s, fused %s; limited by %s)\n",
		md ? "- " : "", t_(t1, sizeof t1, a->o.measured_s), t_(t2, sizeof t2, adv->sol_s),
		adv->sol_s < b->cache_aware_s ? " of a datapath or redundant-work rewrite" : "",
		t_(t3, sizeof t3, b->unfused_s), t_(t4, sizeof t4, b->cache_aware_s),
		t_(t5, sizeof t5, b->fused_s), adv->limiter);
	char ratio[48] = "above a speed of light of 0 s";
	if (adv->sol_s > 0)
		snprintf(ratio, sizeof ratio, "%.3gx the speed of light",
			 a->o.measured_s / adv->sol_s);
	fprintf(out, "%sverdict: %s (measured is %s; stop within %.3gx of the reachable bound)\n\n",
		md ? "- " : "", adv->stop ? "STOP" : "continue", ratio, a->o.stop_factor);
	if (md)
		fprintf(
		    out,
		    "| rank | direction | share | part | max gain |%s\n|---|---|---|---|---|%s\n",
		    memory ? " weight |" : "", memory ? "---|" : "");
	else
		fprintf(out, "%-5s %-16s %-7s %-10s %-10s%s\n", "rank", "direction", "share",
			"part", "max gain", memory ? "  weight" : "");
	for (int r = 0; r < SOLAR_DIR_COUNT; r++) {
		const solar_advice_dir *d = &adv->dir[r];
		char w[32] = "";
		if (memory)
			snprintf(w, sizeof w, "%.2f", d->p_paid * d->mean_gain / 0.25);
		if (md)
			fprintf(out, "| %d | %s | %.1f%% | %s | %s |%s%s%s\n", r + 1,
				solar_direction_name(d->dir), 100 * d->share,
				solar_fmt_time(t1, sizeof t1, d->part_s),
				solar_fmt_time(t2, sizeof t2, d->max_gain_s), memory ? " " : "", w,
				memory ? " |" : "");
		else
			fprintf(out, "%-5d %-16s %5.1f%%  %-10s %-10s%s%s\n", r + 1,
				solar_direction_name(d->dir), 100 * d->share,
				solar_fmt_time(t1, sizeof t1, d->part_s),
				solar_fmt_time(t2, sizeof t2, d->max_gain_s), memory ? "  " : "",
				w);
	}
	fputs("\n", out);
	for (int r = 0; r < SOLAR_DIR_COUNT; r++) {
		const solar_advice_dir *d = &adv->dir[r];
		fprintf(out, "%s%d. %s: %s\n", md ? "" : "", r + 1, solar_direction_name(d->dir),
			d->reason);
		for (int i = 0; i < d->nstrat; i++) {
			const solar_strategy *s = &d->strat[i];
			fprintf(out, "%s%s\n", md ? "   - " : "     - ", s->name);
			fprintf(out, "%swhat-if bound %s (SOL %s), can win %s; %s%s%s\n",
				md ? "     " : "       ", t_(t1, sizeof t1, s->what_if_bound_s),
				t_(t2, sizeof t2, s->what_if_cache_aware_s),
				solar_fmt_time(t3, sizeof t3, s->gain_s), s->why,
				a->o.emit && s->air ? "; written to " : "",
				a->o.emit && s->air ? s->emit_name : "");
		}
	}
	fputs("\nRules: docs/advise.md#decomposition, #strategies, #ranking.\n", out);
}

static cJSON *json_advice(const advise_opts *a, const solar_program *p, const solar_device *dev,
			  const solar_advice *adv, const solar_memory *mem)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "schema", "solar.advise/1");
	cJSON *pj = solar_json_program(a->o.files[0], p);
	cJSON_AddItemToObject(j, "program", cJSON_DetachItemFromObject(pj, "program"));
	cJSON_AddItemToObject(j, "params", cJSON_DetachItemFromObject(pj, "params"));
	cJSON_Delete(pj);
	cJSON *d = cJSON_AddObjectToObject(j, "device");
	cJSON_AddStringToObject(d, "name", dev->name);
	cJSON_AddStringToObject(d, "file", a->o.device);
	cJSON_AddStringToObject(j, "l2", a->o.l2 ? a->o.l2 : "warm");
	cJSON_AddNumberToObject(j, "tol", a->o.tol_rel);
	cJSON_AddNumberToObject(j, "measured_s", a->o.measured_s);
	const solar_advise_eval *b = &adv->base;
	cJSON *bj = cJSON_AddObjectToObject(j, "bounds");
	cJSON_AddNumberToObject(bj, "unfused_s", b->unfused_s);
	cJSON_AddNumberToObject(bj, "cache_aware_s", b->cache_aware_s);
	cJSON_AddNumberToObject(bj, "fused_s", b->fused_s);
	cJSON_AddNumberToObject(j, "sol_s", adv->sol_s);
	cJSON_AddStringToObject(j, "limited_by", adv->limiter);
	/* the state as the memory keys it (docs/advise.md "memory") */
	cJSON *sig = cJSON_AddObjectToObject(j, "signature");
	cJSON *oc = cJSON_AddArrayToObject(sig, "op_classes");
	unsigned opc = solar_memory_op_classes(&adv->base);
	static const char *const opc_names[] = {"contraction", "reduction", "sfu"};
	for (int i = 0; i < 3; i++)
		if (opc & (1u << i))
			cJSON_AddItemToArray(oc, cJSON_CreateString(opc_names[i]));
	cJSON_AddStringToObject(sig, "limiter", adv->limiter);
	cJSON *sh = cJSON_AddObjectToObject(sig, "shares");
	for (int di = 0; di < SOLAR_DIR_COUNT; di++)
		for (int r = 0; r < SOLAR_DIR_COUNT; r++)
			if ((int)adv->dir[r].dir == di)
				cJSON_AddNumberToObject(sh, solar_direction_name(di),
							adv->dir[r].share);
	cJSON *lv = cJSON_AddArrayToObject(j, "levels_s");
	for (int i = 0; i < SOLAR_ADVISE_LEVELS; i++)
		cJSON_AddItemToArray(lv, cJSON_CreateNumber(adv->levels_s[i]));
	cJSON_AddStringToObject(j, "verdict", adv->stop ? "stop" : "continue");
	cJSON_AddNumberToObject(j, "stop_factor", a->o.stop_factor);
	if (a->o.previous >= 0)
		cJSON_AddStringToObject(j, "previous", solar_direction_name(a->o.previous));
	else
		cJSON_AddNullToObject(j, "previous");
	if (mem) {
		cJSON *m = cJSON_AddObjectToObject(j, "memory");
		cJSON_AddStringToObject(m, "file", a->o.memory);
		cJSON_AddNumberToObject(m, "steps", mem->n);
	} else
		cJSON_AddNullToObject(j, "memory");
	cJSON *ds = cJSON_AddArrayToObject(j, "directions");
	for (int r = 0; r < SOLAR_DIR_COUNT; r++) {
		const solar_advice_dir *x = &adv->dir[r];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", solar_direction_name(x->dir));
		cJSON_AddNumberToObject(e, "rank", r + 1);
		cJSON_AddNumberToObject(e, "share", x->share);
		cJSON_AddNumberToObject(e, "part_s", x->part_s);
		cJSON_AddNumberToObject(e, "max_gain_s", x->max_gain_s);
		cJSON_AddNumberToObject(e, "score", x->score);
		if (mem) {
			cJSON_AddNumberToObject(e, "p_paid", x->p_paid);
			cJSON_AddNumberToObject(e, "mean_realised", x->mean_gain);
			cJSON_AddNumberToObject(e, "similar_steps", x->n_similar);
		}
		cJSON_AddStringToObject(e, "reason", x->reason);
		cJSON *ss = cJSON_AddArrayToObject(e, "strategies");
		for (int i = 0; i < x->nstrat; i++) {
			const solar_strategy *s = &x->strat[i];
			cJSON *sj = cJSON_CreateObject();
			cJSON_AddStringToObject(sj, "name", s->name);
			cJSON_AddBoolToObject(sj, "rewrite", s->rewrite);
			cJSON_AddNumberToObject(sj, "what_if_bound_s", s->what_if_bound_s);
			cJSON_AddNumberToObject(sj, "what_if_cache_aware_s",
						s->what_if_cache_aware_s);
			cJSON_AddNumberToObject(sj, "what_if_sol_s", s->what_if_sol_s);
			cJSON_AddNumberToObject(sj, "gain_s", s->gain_s);
			cJSON_AddStringToObject(sj, "why", s->why);
			if (s->air)
				cJSON_AddStringToObject(sj, "emit", s->emit_name);
			cJSON_AddItemToArray(ss, sj);
		}
		cJSON_AddItemToArray(ds, e);
	}
	return j;
}

/* ---- the command --------------------------------------------------------------------------- */

/* Adds the step to the memory: under the store's lock, the steps are read again (another
 * record may have added one since), the step added and the store renamed into place; only
 * then is it said recorded.  An --after below the speed of light is refused as --measured is
 * (unless --wrong: a wrong output may well be that fast). */
static int record_step(const advise_opts *a, const solar_program *p, const solar_advice *adv)
{
	if (!a->o.wrong &&
	    solar_advise_below_sol(a->o.files[0], "--after: ", a->o.after_s, adv->sol_s,
				   "the speed of light", solar_cli_diag()))
		return SOLAR_EXIT_ERRORS;
	int lock = solar_memory_lock(a->o.record, solar_cli_diag());
	if (lock < 0)
		return SOLAR_EXIT_USAGE;
	solar_memory mem;
	if (solar_memory_load(a->o.record, &mem, solar_cli_diag()) < 0) {
		close(lock);
		return SOLAR_EXIT_ERRORS;
	}
	solar_memory_step s = {0};
	const char *base = strrchr(a->o.files[0], '/');
	s.problem = (char *)(a->o.problem ? a->o.problem : base ? base + 1 : a->o.files[0]);
	s.op_classes = solar_memory_op_classes(&adv->base);
	snprintf(s.limiter, sizeof s.limiter, "%s", adv->limiter);
	for (int r = 0; r < SOLAR_DIR_COUNT; r++) {
		s.shares[adv->dir[r].dir] = adv->dir[r].share;
		if ((int)adv->dir[r].dir == a->o.direction)
			s.max_gain_s = adv->dir[r].max_gain_s;
	}
	cJSON *pj = solar_json_program(a->o.files[0], p);
	s.sizes = cJSON_DetachItemFromObject(pj, "params");
	cJSON_Delete(pj);
	s.previous = a->o.previous;
	s.direction = a->o.direction;
	s.strategy = (char *)a->o.strategy;
	s.before_s = a->o.measured_s;
	s.after_s = a->o.after_s;
	s.before_bound_s = adv->base.unfused_s;
	s.after_bound_s = -1;
	s.correct = !a->o.wrong;
	char why[512];
	if (a->o.wrong)
		snprintf(why, sizeof why, "wrong output: %s", a->o.wrong);
	else
		snprintf(why, sizeof why, "%s",
			 a->o.after_s < a->o.measured_s ? "faster" : "slower");
	s.why = why;
	solar_memory_add(&mem, &s);
	cJSON_Delete(s.sizes);
	FILE *f = solar_out_open_path(a->o.record);
	if (!f) {
		close(lock);
		solar_memory_free(&mem);
		return SOLAR_EXIT_USAGE;
	}
	cJSON *j = solar_memory_to_json(&mem);
	cJSON *st = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "directions"),
					solar_direction_name(a->o.direction));
	int paid = (int)cJSON_GetObjectItem(st, "paid")->valuedouble;
	int tried = (int)cJSON_GetObjectItem(st, "tried")->valuedouble;
	solar_json_print(f, j);
	int written = solar_out_commit(f);
	close(lock); /* after the rename: the next record reads this store */
	if (written < 0) {
		solar_memory_free(&mem);
		return SOLAR_EXIT_USAGE;
	}
	char t1[32], t2[32];
	printf("recorded step %d in %s: %s / %s, %s -> %s (%s); %s: paid %d of %d\n", mem.n,
	       a->o.record, solar_direction_name(a->o.direction), a->o.strategy,
	       solar_fmt_time(t1, sizeof t1, a->o.measured_s),
	       solar_fmt_time(t2, sizeof t2, a->o.after_s), why,
	       solar_direction_name(a->o.direction), paid, tried);
	solar_memory_free(&mem);
	return SOLAR_EXIT_OK;
}

int solar_cmd_advise(const solar_opts *opts)
{
	advise_opts a = {0};
	int rc = take_opts(opts, &a);
	if (rc)
		return rc;
	char air[PATH_MAX + 16] = "", dir[PATH_MAX] = "";
	const char *file = a.o.files[0];
	/* the device resolved once, for every what-if */
	solar_question q = solar_cli_question(&a.o);
	solar_device *dev = solar_question_device(&q, solar_cli_diag());
	bool l2_cold = q.l2_cold;
	solar_cli_question_free(&q);
	if (!dev)
		return SOLAR_EXIT_USAGE;
	solar_loaded l = {0};
	solar_advice adv;
	memset(&adv, 0, sizeof adv);
	solar_memory mem = {0};
	bool have_mem = false;
	double *kernel_s = NULL;
	if (ends_with(file, ".py")) {
		rc = translate(&a, file, air, sizeof air, dir);
		if (rc)
			goto done;
		solar_opts lo = a.o;
		lo.ndefs = 0; /* translate applied them */
		rc = solar_cli_load(air, &lo, &l);
	} else {
		rc = solar_cli_load(file, &a.o, &l);
	}
	if (rc)
		goto done;
	kernel_s = solar_xcalloc((size_t)l.prog->nkernels + 1, sizeof *kernel_s);
	for (int k = 0; k < l.prog->nkernels; k++)
		kernel_s[k] = -1;
	if (a.o.measured_file) {
		/* the one reader of measured times (report/measured.h): plain times, a validate
		 * result, an Nsight Compute CSV */
		solar_measured m;
		const char **names = solar_xcalloc((size_t)l.prog->nkernels + 1, sizeof *names);
		for (int k = 0; k < l.prog->nkernels; k++)
			names[k] = l.prog->kernels[k].name;
		int mrc = solar_measured_init(&m, l.prog->nkernels);
		if (!mrc)
			mrc = solar_measured_read(a.o.measured_file, SOLAR_MEASURED_AUTO, 1, names,
						  l.prog->nkernels, &m, solar_cli_diag());
		free(names);
		double total = m.total_s;
		for (int k = 0; !mrc && k < l.prog->nkernels; k++)
			kernel_s[k] = m.kernel_s[k];
		solar_measured_free(&m);
		if (mrc < 0) {
			rc = SOLAR_EXIT_ERRORS;
			goto done;
		}
		if (total <= 0) {
			total = 0;
			for (int k = 0; k < l.prog->nkernels; k++) {
				if (kernel_s[k] <= 0) {
					solar_diag_tool_error(
					    solar_cli_diag(),
					    "%s: no total and no time for kernel %s: "
					    "the measured time is unknown",
					    a.o.measured_file, l.prog->kernels[k].name);
					rc = SOLAR_EXIT_ERRORS;
					goto done;
				}
				total += kernel_s[k];
			}
		}
		a.o.measured_s = total;
	}
	if (a.o.tol_rel < 0)
		a.o.tol_rel = default_tol(l.prog);
	if (a.o.memory) {
		if (solar_memory_load(a.o.memory, &mem, solar_cli_diag()) < 0) {
			rc = SOLAR_EXIT_ERRORS;
			goto done;
		}
		have_mem = true;
	}
	solar_advise_input in = {a.o.measured_s,  kernel_s, a.o.tol_rel,
				 a.o.stop_factor, a.o.math, l2_cold};
	int c = solar_advise_compute(air[0] ? air : file, l.prog, l.diag, dev, &in, &adv,
				     solar_cli_diag());
	if (c) {
		rc = SOLAR_EXIT_ERRORS;
		goto done;
	}
	if (have_mem)
		solar_memory_weigh(&mem, &adv, solar_memory_op_classes(&adv.base), a.o.previous,
				   a.o.measured_s);
	else
		solar_advise_rank(&adv);
	if (a.o.record) {
		rc = record_step(&a, l.prog, &adv);
		goto done;
	}
	if (a.o.emit && emit_all(a.o.emit, &adv) < 0) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	FILE *out = solar_out_open(&a.o);
	if (!out) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	if (a.o.format == SOLAR_FMT_JSON)
		solar_json_print(out, json_advice(&a, l.prog, dev, &adv, have_mem ? &mem : NULL));
	else
		print_text(out, &a, l.prog, dev, &adv, a.o.format == SOLAR_FMT_MD, have_mem);
	solar_out_close(&a.o, out);
done:
	if (l.diag)
		solar_diag_finish(l.diag);
	solar_advice_free(&adv);
	solar_memory_free(&mem);
	free(kernel_s);
	solar_cli_unload(&l);
	solar_device_free(dev);
	remove_tree(dir);
	return rc;
}
