/* cmd_triage.c - `solar triage POOL --device D [--history H.jsonl] [--budget N|P%] ...` and
 * `solar triage --record H.jsonl --candidate F --device D --ms T [--l2 cold] [--wrong]`.
 *
 * How the options go together and printing only (the parser, cli/args.c, read them against
 * the table of cli/commands.c); the method is search/ (docs/triage.md).  It runs the
 * translator as a child for candidates written in Python.  Exit status: 0 ok, 1 errors in an
 * input (a history or forecast line, the reference's AIR), 2 usage or environment.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diag/file.h"
#include "output.h"
#include "search/advise.h" /* solar_advise_below_sol */
#include "search/triage.h"

static int usage_error(const char *fmt, const char *arg)
{
	return solar_cli_usage("triage", fmt, arg);
}

/* The parsed options, and the pool they name. */
typedef struct {
	const solar_opts *o;
	const char *pool;
} triage_opts;

static void default_cache(char *buf, size_t n)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (x && *x)
		snprintf(buf, n, "%s/solar/translate", x);
	else if (home && *home)
		snprintf(buf, n, "%s/.cache/solar/translate", home);
	else
		snprintf(buf, n, "/tmp/solar-%d/translate", (int)getuid());
}

static const char *source_name(solar_cand_source s)
{
	return s == SOLAR_CAND_AIR ? "air" : s == SOLAR_CAND_TRANSLATED ? "translated" : "opaque";
}

static const char *fmt_t(char *buf, size_t n, double s)
{
	if (s <= 0)
		return snprintf(buf, n, "-"), buf;
	return solar_fmt_time(buf, n, s);
}

/* The candidate printed k-th: the ranked ones by rank, then the wrong ones (rank 0). */
static const solar_triage_cand *nth(const solar_pool *p, int k)
{
	int seen = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int r = pass ? 0 : 1; r <= (pass ? 0 : p->ncand); r++)
			for (int i = 0; i < p->ncand; i++)
				if (p->cand[i].rank == r && seen++ == k)
					return &p->cand[i];
	return NULL;
}

static void print_table(FILE *out, const solar_pool *p, const solar_device *dev,
			const solar_history *h, bool md)
{
	char a[32], b[32], c[32], d[32], e[80];
	fprintf(out, "%spool %s on %s, L2 %s, coverage %.0f%% (ACI alpha %.3g after %d steps)\n",
		md ? "### " : "", p->name, dev->name, solar_l2_name(p->l2_cold), 100 * p->coverage,
		p->alpha_eff, p->aci_steps);
	if (md)
		fputs("\n", out);
	fprintf(out, "reference %s: fused %s, cache-aware %s, unfused %s, measured %s\n",
		p->ref.name, fmt_t(a, sizeof a, p->ref.fused_s),
		fmt_t(b, sizeof b, p->ref.cache_aware_s), fmt_t(c, sizeof c, p->ref.unfused_s),
		fmt_t(d, sizeof d, p->ref_measured_s));
	if (p->incumbent)
		fprintf(out, "incumbent %s: %s\n", p->incumbent,
			fmt_t(a, sizeof a, p->incumbent_s));
	else
		fputs("incumbent: none measured (nothing can be pruned or skipped)\n", out);
	fprintf(out,
		"history: %d lines, %d points to learn from, %d of another device or L2 mode\n\n",
		h->n, p->calib_points, p->ignored_lines);
	if (md)
		fputs("| rank | candidate | source | bound | kind | predicted | interval | "
		      "measured | decision | reason |\n|---|---|---|---|---|---|---|---|---|---|\n",
		      out);
	else
		fprintf(out, "%-4s %-24s %-10s %-10s %-19s %-10s %-23s %-10s %-8s %s\n", "rank",
			"candidate", "source", "bound", "kind", "predicted", "interval", "measured",
			"decision", "reason");
	for (int k = 0; k < p->ncand; k++) {
		const solar_triage_cand *x = nth(p, k);
		char rk[16];
		snprintf(rk, sizeof rk, "%d", x->rank);
		snprintf(e, sizeof e, "[%s, %s]", fmt_t(a, sizeof a, x->lo_s),
			 fmt_t(b, sizeof b, x->hi_s));
		fprintf(out,
			md ? "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n"
			   : "%-4s %-24s %-10s %-10s %-19s %-10s %-23s %-10s %-8s %s\n",
			x->rank ? rk : "-", x->name, source_name(x->source),
			fmt_t(a, sizeof a, x->bound_s), x->bound_kind,
			fmt_t(b, sizeof b, x->predicted_s), e, fmt_t(c, sizeof c, x->measured_s),
			solar_decision_name(x->decision), x->reason);
	}
	fprintf(out, "\nplan (budget %d):", p->budget);
	for (int i = 0; i < p->nplan; i++)
		fprintf(out, "%s %s", i ? "," : "", p->cand[p->plan[i]].name);
	fputs(p->nplan ? "\n" : " nothing to measure\n", out);
	bool notes = false;
	for (int i = 0; i < p->ncand; i++) {
		const solar_triage_cand *x = &p->cand[i];
		if (x->note || x->forecast_cut > 0) {
			if (!notes)
				fputs("\nnotes:\n", out);
			notes = true;
			if (x->note)
				fprintf(out, "  %s: %s\n", x->name, x->note);
			if (x->forecast_cut > 0)
				fprintf(out,
					"  %s: the forecast put %.3g of its mass on speedups above "
					"the %.3gx physics allows (cut)\n",
					x->name, x->forecast_cut, x->max_speedup);
		}
	}
	if (p->below_sol)
		fprintf(out,
			"WARNING: %d measured time%s below the candidate's lower bound: a "
			"broken benchmark, a reward hack or a wrong bound; pruning is off for "
			"this pool\n",
			p->below_sol, p->below_sol > 1 ? "s are" : " is");
	fputs("Rules: docs/triage.md#decisions.\n", out);
}

static void num_or_null(cJSON *o, const char *k, double v)
{
	if (v > 0)
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *json_triage(const solar_pool *p, const solar_device *dev, const char *device_arg,
			  const solar_history *h)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "schema", "solar.triage/1");
	cJSON_AddStringToObject(j, "pool", p->name);
	cJSON *d = cJSON_AddObjectToObject(j, "device");
	cJSON_AddStringToObject(d, "name", dev->name);
	cJSON_AddStringToObject(d, "file", device_arg);
	cJSON_AddStringToObject(j, "l2", solar_l2_name(p->l2_cold));
	cJSON_AddNumberToObject(j, "coverage", p->coverage);
	cJSON_AddNumberToObject(j, "alpha_effective", p->alpha_eff);
	cJSON_AddNumberToObject(j, "aci_steps", p->aci_steps);
	cJSON *ref = cJSON_AddObjectToObject(j, "reference");
	cJSON_AddStringToObject(ref, "file", p->ref.file);
	num_or_null(ref, "unfused_s", p->ref.unfused_s);
	num_or_null(ref, "fused_s", p->ref.fused_s);
	num_or_null(ref, "cache_aware_s", p->ref.cache_aware_s);
	num_or_null(ref, "measured_s", p->ref_measured_s);
	cJSON *hist = cJSON_AddObjectToObject(j, "history");
	cJSON_AddNumberToObject(hist, "lines", h->n);
	cJSON_AddNumberToObject(hist, "learning_points", p->calib_points);
	cJSON_AddNumberToObject(hist, "ignored_lines", p->ignored_lines);
	cJSON_AddNumberToObject(hist, "forecast_calibration_points", p->forecast_calib);
	cJSON_AddNumberToObject(j, "below_sol", p->below_sol);
	if (p->incumbent) {
		cJSON *inc = cJSON_AddObjectToObject(j, "incumbent");
		cJSON_AddStringToObject(inc, "name", p->incumbent);
		cJSON_AddNumberToObject(inc, "measured_s", p->incumbent_s);
	} else {
		cJSON_AddNullToObject(j, "incumbent");
	}
	cJSON_AddNumberToObject(j, "budget", p->budget);
	cJSON *plan = cJSON_AddArrayToObject(j, "plan");
	for (int i = 0; i < p->nplan; i++)
		cJSON_AddItemToArray(plan, cJSON_CreateString(p->cand[p->plan[i]].name));
	cJSON *cs = cJSON_AddArrayToObject(j, "candidates");
	for (int k = 0; k < p->ncand; k++) {
		const solar_triage_cand *x = nth(p, k);
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", x->name);
		cJSON_AddStringToObject(c, "file", x->file);
		cJSON_AddStringToObject(c, "source", source_name(x->source));
		cJSON_AddBoolToObject(c, "own_structure", x->own_structure);
		num_or_null(c, "bound_s", x->bound_s);
		cJSON_AddStringToObject(c, "bound_kind", x->bound_kind);
		if (x->limiter[0])
			cJSON_AddStringToObject(c, "limited_by", x->limiter);
		num_or_null(c, "unfused_s", x->unfused_s);
		num_or_null(c, "problem_fused_s", p->ref.fused_s);
		num_or_null(c, "problem_cache_aware_s", p->ref.cache_aware_s);
		num_or_null(c, "prune_bound_s", x->prune_bound_s);
		num_or_null(c, "max_speedup", x->max_speedup);
		num_or_null(c, "measured_s", x->measured_s);
		num_or_null(c, "predicted_s", x->predicted_s);
		cJSON *iv = cJSON_AddArrayToObject(c, "interval_s");
		cJSON_AddItemToArray(iv, cJSON_CreateNumber(x->lo_s));
		cJSON_AddItemToArray(iv, cJSON_CreateNumber(x->hi_s));
		cJSON_AddStringToObject(c, "class", x->class_used);
		cJSON_AddNumberToObject(c, "class_points", x->class_n);
		num_or_null(c, "forecast_s", x->forecast_s);
		if (x->forecast_s > 0)
			cJSON_AddNumberToObject(c, "forecast_cut_mass", x->forecast_cut);
		cJSON_AddStringToObject(c, "decision", solar_decision_name(x->decision));
		cJSON_AddStringToObject(c, "reason", x->reason);
		if (x->rank)
			cJSON_AddNumberToObject(c, "rank", x->rank);
		else
			cJSON_AddNullToObject(c, "rank");
		if (x->note)
			cJSON_AddStringToObject(c, "note", x->note);
		cJSON_AddItemToArray(cs, c);
	}
	return j;
}

static void print_csv(FILE *out, const solar_pool *p)
{
	fputs("rank,name,source,bound_s,bound_kind,prune_bound_s,predicted_s,low_s,high_s,"
	      "measured_s,decision,reason\n",
	      out);
	for (int k = 0; k < p->ncand; k++) {
		const solar_triage_cand *x = nth(p, k);
		if (x->rank)
			fprintf(out, "%d", x->rank);
		fputc(',', out);
		solar_fmt_csv_field(out, x->name); /* a file name: may hold a comma or a quote */
		fputc(',', out);
		solar_fmt_csv_field(out, source_name(x->source));
		fprintf(out, ",%.6g,", x->bound_s);
		solar_fmt_csv_field(out, x->bound_kind);
		fprintf(out, ",%.6g,%.6g,%.6g,%.6g,", x->prune_bound_s, x->predicted_s, x->lo_s,
			x->hi_s);
		if (x->measured_s > 0)
			fprintf(out, "%.6g", x->measured_s);
		fputc(',', out);
		solar_fmt_csv_field(out, solar_decision_name(x->decision));
		fputc(',', out);
		solar_fmt_csv_field(out, x->reason);
		fputc('\n', out);
	}
}

/* Appends the measurement, unless the file named is an input (the candidate, the device) or
 * the time is below the candidate's lower bound (refused as advise refuses --measured). */
static int record(const triage_opts *t, const char *cache)
{
	if (!t->o->candidate || !t->o->device || t->o->ms <= 0)
		return usage_error("%s", "--record needs --candidate FILE, --device D and --ms T");
	solar_out_input(t->o->candidate);
	solar_out_input_device(t->o->device);
	if (solar_out_refuse_input(t->o->record))
		return SOLAR_EXIT_USAGE;
	/* a line may name its device as solar cannot load it ("NVIDIA H200 SXM"): then no check */
	solar_device *dev = solar_device_load(t->o->device, NULL);
	const char *bound_name = "";
	double bound_s = -1;
	if (dev) {
		solar_question q = {.device = dev, .l2_cold = t->o->l2_cold};
		bound_s = solar_triage_lower_bound(t->o->candidate, &q, cache, &bound_name);
		solar_device_free(dev);
	}
	if (!t->o->wrong_flag && bound_s > 0 &&
	    solar_advise_below_sol(t->o->candidate, "--ms: ", t->o->ms * 1e-3, bound_s, bound_name,
				   solar_cli_diag()))
		return SOLAR_EXIT_ERRORS;
	if (solar_history_append(t->o->record, t->o->candidate, t->o->device, t->o->ms,
				 t->o->l2_cold, !t->o->wrong_flag, solar_cli_diag()) < 0)
		return SOLAR_EXIT_USAGE;
	return SOLAR_EXIT_OK;
}

/* The triage of t->pool (its options checked): the pool and the history's other pools
 * loaded and bounded on t->o->device, decided, planned and printed. */
static int triage(const triage_opts *t, const char *cache)
{
	char exe[PATH_MAX];
	solar_self_exe(exe, sizeof exe);

	solar_question q = {.device_file = t->o->device, .l2_cold = t->o->l2_cold};
	solar_device *dev = solar_question_device(&q, solar_cli_diag());
	if (!dev)
		return SOLAR_EXIT_USAGE;
	q = (solar_question){.device = dev,
			     .l2_cold = t->o->l2_cold}; /* loaded once for every job */
	int rc = SOLAR_EXIT_OK;
	solar_history h = {0};
	solar_forecasts f = {0};
	solar_pool *pools = NULL;
	int npools = 0;
	if (t->o->history && solar_history_load(t->o->history, false, &h, solar_cli_diag()) < 0)
		rc = access(t->o->history, R_OK) ? SOLAR_EXIT_USAGE : SOLAR_EXIT_ERRORS;
	if (rc == SOLAR_EXIT_OK && t->o->forecasts &&
	    solar_forecasts_load(t->o->forecasts, &f, solar_cli_diag()) < 0)
		rc = access(t->o->forecasts, R_OK) ? SOLAR_EXIT_USAGE : SOLAR_EXIT_ERRORS;
	if (rc != SOLAR_EXIT_OK)
		goto done;
	solar_pool cur;
	if (solar_pool_load(t->pool, exe, cache, &cur, solar_cli_diag()) < 0) {
		rc = access(t->pool, R_OK) ? SOLAR_EXIT_USAGE : SOLAR_EXIT_ERRORS;
		solar_pool_free(&cur);
		goto done;
	}
	if (solar_pool_bounds(&cur, &q, cache, solar_cli_diag()) < 0) {
		solar_pool_free(&cur);
		rc = SOLAR_EXIT_ERRORS;
		goto done;
	}
	solar_pool *others = NULL;
	int nothers = solar_pool_load_others(&h, &cur, exe, cache, &q, &others);
	pools = solar_xcalloc((size_t)nothers + 1, sizeof *pools);
	pools[0] = cur;
	for (int i = 0; i < nothers; i++)
		pools[i + 1] = others[i];
	free(others);
	npools = nothers + 1;
	cur.coverage = t->o->coverage;
	pools[0].coverage = t->o->coverage;
	pools[0].trust_translation = t->o->trust;
	for (int i = 0; i < npools; i++)
		pools[i].l2_cold = t->o->l2_cold;
	long budget_n = t->o->budget_n;
	double budget_pct = t->o->budget_pct;
	pools[0].budget = budget_n >= 0	    ? (int)fmin((double)budget_n, pools[0].ncand)
			  : budget_pct >= 0 ? (int)ceil(budget_pct / 100 * pools[0].ncand)
					    : pools[0].ncand;
	solar_triage_run(pools, npools, 0, &h, t->o->forecasts ? &f : NULL, t->o->device, dev);
	switch (t->o->format) {
	case SOLAR_FMT_JSON:
		solar_json_print(stdout, json_triage(&pools[0], dev, t->o->device, &h));
		break;
	case SOLAR_FMT_CSV:
		print_csv(stdout, &pools[0]);
		break;
	default:
		print_table(stdout, &pools[0], dev, &h, t->o->format == SOLAR_FMT_MD);
		break;
	}
done:
	for (int i = 0; i < npools; i++)
		solar_pool_free(&pools[i]);
	free(pools);
	solar_history_free(&h);
	solar_forecasts_free(&f);
	solar_device_free(dev);
	return rc;
}

/* The options as triage keeps them (each value the parser checked). */
static int take_opts(const solar_opts *o, triage_opts *t)
{
	*t = (triage_opts){.o = o};
	if (o->nfiles > 1)
		return usage_error("one POOL only, not also '%s'", o->files[1]);
	t->pool = o->nfiles ? o->files[0] : NULL;
	return 0;
}

int solar_cmd_triage(const solar_opts *o)
{
	triage_opts t;
	if (take_opts(o, &t))
		return SOLAR_EXIT_USAGE;
	char cache[PATH_MAX];
	if (o->cache)
		snprintf(cache, sizeof cache, "%s", o->cache);
	else
		default_cache(cache, sizeof cache);
	if (o->record) {
		if (t.pool || o->history || o->forecasts || o->budget_n >= 0 ||
		    o->budget_pct >= 0 || o->trust)
			return usage_error("%s",
					   "--record takes --candidate, --device, --ms, --l2, "
					   "--wrong and --cache only");
		return record(&t, cache);
	}
	if (o->candidate || o->ms > 0 || o->wrong_flag)
		return usage_error("%s", "--candidate, --ms and --wrong go with --record");
	if (!t.pool)
		return usage_error("%s", "triage needs a POOL (a folder or a JSON manifest)");
	if (!o->device)
		return usage_error("%s", "triage needs --device FILE (see devices/*.json)");
	return triage(&t, cache);
}
