/* cmd_provision.c - `solar provision FILE --device D --target-time T [--bound B] [--set P=V]`.
 *
 * The inverse roofline: for each resource of the device (DRAM bandwidth, L2 bandwidth, the
 * peak of each datapath the program uses, L2 and on-chip capacity), the smallest factor of that
 * resource alone that makes a bound meet the target time, which resource binds now, and, when
 * no resource alone can, which must scale together and by how much.  The answers come from
 * roofline/provision.c (exact recomputation and bisection).  Docs: docs/provision.md.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/work.h"
#include "api/detail.h"
#include "cli.h"
#include "output.h"
#include "roofline/provision.h"


/* ---- provision -------------------------------------------------------------------------- */

static const char *bound_title(solar_bound_kind k)
{
	static const char *const t[] = {"unfused (kernels as written)", "cache-aware (fused, on-chip)",
					"fused (inputs and outputs once)"};
	return t[k];
}

/* "2.05", "163", "22800" */
static const char *ratio(char *buf, size_t n, double r)
{
	if (r < 1000) {
		snprintf(buf, n, "%.3g", r);
	} else {
		double sc = pow(10, floor(log10(r)) - 2);
		snprintf(buf, n, "%.0f", round(r / sc) * sc);
	}
	return buf;
}

static bool is_peak(const solar_knob *k)
{
	return k->resource >= SOLAR_RES_OPS;
}

/* The knobs needing more than they have, binding knob first, then by factor. */
static int needs_order(const solar_provision *p, int *order)
{
	int n = 0;
	if (p->binding >= 0 && p->knob[p->binding].factor > 1 && isfinite(p->knob[p->binding].factor))
		order[n++] = p->binding;
	for (int i = 0; i < p->nknobs; i++)
		if (i != p->binding && p->knob[i].factor > 1 && isfinite(p->knob[i].factor))
			order[n++] = i;
	for (int a = (p->binding >= 0 && n && order[0] == p->binding); a < n; a++)
		for (int b = a + 1; b < n; b++)
			if (p->knob[order[b]].factor < p->knob[order[a]].factor) {
				int t = order[a];
				order[a] = order[b];
				order[b] = t;
			}
	return n;
}

static void scaled_text(char *buf, size_t n, const solar_knob *k, double f)
{
	char a[48], b[48], fx[32];
	solar_cli_fmt_factor(fx, sizeof fx, f);
	if (isfinite(k->headline))
		snprintf(buf, n, "%s %s (%s -> %s)", fx, k->label,
			 solar_fmt_quantity(a, sizeof a, k->headline, k->unit),
			 solar_fmt_quantity(b, sizeof b, k->headline * f, k->unit));
	else
		snprintf(buf, n, "%s %s", fx, k->label);
}

/* The verdict of one bound in a sentence or two (docs/provision.md, "Reading the output"). */
static void verdict(FILE *out, const solar_provision *p)
{
	char line[256], t1[32];
	int order[SOLAR_RES_COUNT + 8];
	if (p->time_s <= p->target_s) {
		fprintf(out, "  already meets the target (%sx to spare); the table gives the least of "
			     "each resource that still would\n",
			ratio(t1, sizeof t1, p->target_s / p->time_s));
		return;
	}
	if (p->single) {
		int n = needs_order(p, order);
		fputs("  needs ", out);
		for (int i = 0; i < n; i++) {
			scaled_text(line, sizeof line, &p->knobs[order[i]], p->knob[order[i]].factor);
			fprintf(out, "%s%s", i ? ", or " : "", line);
		}
	} else {
		fputs("  no single resource reaches the target:", out);
		bool first = true;
		for (int a = 0; a < p->njoint; a++) {
			int i = p->joint[a];
			const solar_provision_knob *r = &p->knob[i];
			char lim[48];
			solar_resource_name(r->floor_limiter, lim, sizeof lim);
			fprintf(out, "%s %s alone gets to %s at best (then %s limits)",
				first ? "" : ";", p->knobs[i].label,
				solar_fmt_time(t1, sizeof t1, r->floor_s), lim);
			first = false;
		}
		fputs("\n  scale together: ", out);
		if (!p->joint_ok)
			fputs("no scaling of the rates reaches it (capacity-limited)", out);
		for (int a = 0; p->joint_ok && a < p->njoint; a++) {
			scaled_text(line, sizeof line, &p->knobs[p->joint[a]], p->joint_factor[a]);
			fprintf(out, "%s%s", a ? " and " : "", line);
		}
	}
	/* What already suffices. */
	bool any_peak = false, all_peaks = true;
	for (int i = 0; i < p->nknobs; i++)
		if (is_peak(&p->knobs[i])) {
			any_peak = true;
			all_peaks &= p->knob[i].own <= 1;
		}
	if (any_peak && all_peaks)
		fputs("; compute already suffices", out);
	for (int i = 0; i < p->nknobs; i++)
		if (!is_peak(&p->knobs[i]) && p->knobs[i].kind == SOLAR_KNOB_RATE &&
		    p->knob[i].own <= 1)
			fprintf(out, "; %s already suffices", p->knobs[i].label);
	fputs("\n", out);
}

static void print_bound(FILE *out, const solar_provision *p)
{
	char t1[32], t2[32], lim[48], now[48], need[48], fx[32];
	solar_fmt_time(t1, sizeof t1, p->time_s);
	solar_resource_name(p->limiter, lim, sizeof lim);
	fprintf(out, "%s: %s, limited by %s; ", bound_title(p->bound), t1, lim);
	if (p->time_s <= p->target_s)
		fprintf(out, "meets the target\n");
	else
		fprintf(out, "misses the target by %sx\n", ratio(t2, sizeof t2, p->time_s / p->target_s));
	verdict(out, p);
	fprintf(out, "  %-34s %-14s %-16s factor\n", "resource", "now",
		(snprintf(t2, sizeof t2, "to meet %s", solar_fmt_time(t1, sizeof t1, p->target_s)), t2));
	for (int i = 0; i < p->nknobs; i++) {
		const solar_knob *k = &p->knobs[i];
		const solar_provision_knob *r = &p->knob[i];
		solar_fmt_quantity(now, sizeof now, k->headline, k->unit);
		const char *note = "";
		char buf[96];
		if (r->factor <= 0) {
			snprintf(need, sizeof need, "any");
			note = "does not limit";
		} else if (!isfinite(r->factor)) {
			snprintf(need, sizeof need, "-");
			solar_resource_name(r->floor_limiter, lim, sizeof lim);
			if (r->own <= 1) /* its own need is met; others set the bound */
				snprintf(buf, sizeof buf, "suffices; %s limits (%s at best)", lim,
					 solar_fmt_time(t1, sizeof t1, r->floor_s));
			else
				snprintf(buf, sizeof buf, "cannot alone: %s at best, then %s limits",
					 solar_fmt_time(t1, sizeof t1, r->floor_s), lim);
			note = buf;
		} else {
			solar_fmt_quantity(need, sizeof need, k->headline * r->factor, k->unit);
			note = r->factor <= 1 ? "suffices" : "";
		}
		char line[512];
		snprintf(line, sizeof line, "  %-34s %-14s %-16s %-10s %s%s%s", k->label, now, need,
			 solar_cli_fmt_factor(fx, sizeof fx, r->factor), note,
			 i == p->binding && note[0] ? ", " : "", i == p->binding ? "limits now" : "");
		size_t l = strlen(line);
		while (l && line[l - 1] == ' ')
			line[--l] = '\0';
		fprintf(out, "%s\n", line);
	}
}

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *json_bound(const solar_provision *p)
{
	char lim[48];
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "time_s", p->time_s);
	cJSON_AddStringToObject(j, "limited_by", solar_resource_name(p->limiter, lim, sizeof lim));
	cJSON_AddBoolToObject(j, "meets_target", p->time_s <= p->target_s);
	cJSON_AddNumberToObject(j, "ratio_to_target", p->time_s / p->target_s);
	if (p->binding >= 0)
		cJSON_AddStringToObject(j, "binding", p->knobs[p->binding].name);
	else
		cJSON_AddNullToObject(j, "binding");
	cJSON_AddBoolToObject(j, "reachable_by_one_resource", p->single);
	cJSON *rs = cJSON_AddArrayToObject(j, "resources");
	for (int i = 0; i < p->nknobs; i++) {
		const solar_knob *k = &p->knobs[i];
		const solar_provision_knob *r = &p->knob[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", k->name);
		cJSON_AddStringToObject(e, "label", k->label);
		cJSON_AddStringToObject(e, "unit", k->unit);
		cJSON *figs = cJSON_AddArrayToObject(e, "figures");
		for (int f = 0; f < k->nfig; f++)
			cJSON_AddItemToArray(figs, cJSON_CreateString(k->path[f]));
		cJSON_AddItemToObject(e, "now", num_or_null(k->headline));
		/* factor: null = no factor reaches the target alone; 0 = any value meets it */
		cJSON_AddItemToObject(e, "factor", num_or_null(r->factor));
		cJSON_AddItemToObject(e, "needed", num_or_null(k->headline * r->factor));
		cJSON_AddItemToObject(e, "own_factor", num_or_null(r->own));
		cJSON_AddNumberToObject(e, "unlimited_time_s", r->floor_s);
		cJSON_AddStringToObject(e, "unlimited_limited_by",
					solar_resource_name(r->floor_limiter, lim, sizeof lim));
		cJSON_AddItemToArray(rs, e);
	}
	if (!p->single) {
		cJSON *js = cJSON_AddArrayToObject(j, "scale_together");
		for (int a = 0; p->joint_ok && a < p->njoint; a++) {
			const solar_knob *k = &p->knobs[p->joint[a]];
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "name", k->name);
			cJSON_AddNumberToObject(e, "factor", p->joint_factor[a]);
			cJSON_AddItemToObject(e, "needed", num_or_null(k->headline * p->joint_factor[a]));
			cJSON_AddItemToArray(js, e);
		}
	}
	return j;
}

int solar_cmd_provision(const solar_opts *o)
{
	solar_diag *diag = solar_cli_diag();
	if (o->nfiles != 1 || !o->device || o->target_s <= 0) {
		solar_diag_tool_error(diag,
				      "provision needs one FILE, --device FILE and --target-time "
				      "TIME");
		solar_diag_hint(diag, "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	int bounds[SOLAR_BOUND_COUNT], nb = 0;
	if (!o->bound) { /* one block by default: the cache-aware bound, as report gates */
		bounds[nb++] = SOLAR_BOUND_CACHE_AWARE;
	} else if (!strcmp(o->bound, "all")) {
		for (int k = 0; k < SOLAR_BOUND_COUNT; k++)
			bounds[nb++] = k;
	} else if ((bounds[0] = solar_bound_parse(o->bound)) >= 0) {
		nb = 1;
	} else {
		solar_diag_tool_error(
		    diag, "--bound expects unfused, fused, cache-aware or all, not '%s'", o->bound);
		solar_diag_hint(diag, "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	solar_job job = {.file = o->files[0], .question = solar_cli_question(o)};
	solar_result *res = solar_job_run(&job);
	solar_cli_question_free(&job.question);
	int rc = res->status;
	if (rc != SOLAR_EXIT_OK) {
		solar_result_free(res);
		return rc;
	}
	const solar_program *prog = solar_result_program(res);
	const solar_device *dev = solar_result_device(res);
	const solar_work *w = solar_result_work(res);
	const solar_system *sys = solar_result_system(res);
	solar_knob *knobs = NULL;
	solar_provision p[SOLAR_BOUND_COUNT] = {0};
	int np = 0;
	FILE *out = NULL;
	int nk = solar_knobs_default_on(w, dev, sys, &knobs);
	for (; np < nb; np++)
		if (solar_provision_compute(w, dev, sys, prog, res->l2_cold, knobs, nk, bounds[np],
					    o->target_s, &p[np], solar_cli_diag()) < 0) {
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
	out = solar_out_open(o);
	if (!out) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	if (o->format == SOLAR_FMT_JSON) {
		cJSON *j = solar_json_program(o->files[0], prog);
		cJSON *d = cJSON_AddObjectToObject(j, "device");
		cJSON_AddStringToObject(d, "name", dev->name);
		cJSON_AddStringToObject(d, "file", o->device);
		cJSON *sets = cJSON_AddArrayToObject(d, "set");
		for (int i = 0; i < o->nsets; i++)
			cJSON_AddItemToArray(sets, cJSON_CreateString(o->sets[i]));
		if (sys) {
			cJSON *sy = cJSON_AddObjectToObject(j, "system");
			cJSON_AddStringToObject(sy, "name", sys->name);
			cJSON_AddNumberToObject(sy, "ranks", (double)res->ranks);
		}
		cJSON_AddStringToObject(j, "math", o->math == SOLAR_MATH_TF32 ? "tf32" : "strict");
		cJSON_AddNumberToObject(j, "target_s", o->target_s);
		cJSON *bs = cJSON_AddObjectToObject(j, "bounds");
		for (int i = 0; i < np; i++)
			cJSON_AddItemToObject(bs, solar_bound_key(p[i].bound), json_bound(&p[i]));
		solar_json_print(out, solar_json_schema(j, "provision"));
	} else {
		char t1[32];
		solar_out_header(out, o->files[0], prog, true);
		if (sys)
			fprintf(out, "  on %s, %lld rank%s of %s, math %s%s\n", sys->name, res->ranks,
				res->ranks == 1 ? "" : "s", dev->name,
				o->math == SOLAR_MATH_TF32 ? "tf32" : "strict",
				res->l2_cold ? ", L2 cold (--l2 cold: flushed before each run)" : "");
		else
			fprintf(out, "  on %s, math %s%s\n", dev->name,
			o->math == SOLAR_MATH_TF32 ? "tf32" : "strict",
			res->l2_cold ? ", L2 cold (--l2 cold: flushed before each run)" : "");
		for (int i = 0; i < o->nsets; i++)
			fprintf(out, "  --set %s\n", o->sets[i]);
		fprintf(out, "target %s (%.6g Hz)\n", solar_fmt_time(t1, sizeof t1, o->target_s),
			1 / o->target_s);
		for (int i = 0; i < np; i++) {
			fputs("\n", out);
			print_bound(out, &p[i]);
		}
		fputs("\nEach factor scales one resource with the others as given; rules: "
		      "docs/provision.md.\n",
		      out);
	}
	solar_out_close(o, out);
	/* exit 1: a bound misses the target and no figure alone meets it (docs/provision.md) */
	for (int i = 0; i < np; i++)
		if (p[i].time_s > p[i].target_s && !p[i].single)
			rc = SOLAR_EXIT_ERRORS;
done:
	for (int i = 0; i < np; i++)
		solar_provision_free(&p[i]);
	free(knobs);
	solar_result_free(res);
	return rc;
}
