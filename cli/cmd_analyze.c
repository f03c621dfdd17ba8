/* cmd_analyze.c - `solar analyze FILE --device D [--measured T] [--format ...]`.
 *
 * Counts the program exactly, computes the three bounds on the device and prints them per
 * kernel and in total, with the limiting resource and, given measured times, the headroom
 * (measured / bound).  Layout follows shared/design/analyze-output.md; the JSON schema is in
 * docs/json.md.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/work.h"
#include "cli.h"
#include "output.h"
#include "roofline/roofline.h"

typedef struct {
	double total_s;   /* < 0: none */
	double *kernel_s; /* per kernel, < 0: none */
} measured;

/* Reads {"total": 1e-3, "kernels": {"name": 2e-4, ...}} (times in seconds, or strings with
 * units such as "341us"). */
static int load_measured(const char *file, const solar_program *p, measured *m)
{
	int32_t len;
	char *text = solar_read_file(file, &len);
	if (!text)
		return -1;
	cJSON *j = cJSON_Parse(text);
	free(text);
	int rc = 0;
	if (!cJSON_IsObject(j)) {
		fprintf(stderr, "solar: %s: expected a JSON object {\"total\": SECONDS, "
				"\"kernels\": {NAME: SECONDS}}\n",
			file);
		cJSON_Delete(j);
		return -1;
	}
	cJSON *item;
	cJSON_ArrayForEach(item, j)
	{
		if (!strcmp(item->string, "total")) {
			double t = cJSON_IsNumber(item) ? item->valuedouble
				   : cJSON_IsString(item) ? solar_cli_parse_time(item->valuestring)
							  : -1;
			if (t <= 0) {
				fprintf(stderr, "solar: %s: total: expected a positive time\n", file);
				rc = -1;
			}
			m->total_s = t;
		} else if (!strcmp(item->string, "kernels") && cJSON_IsObject(item)) {
			cJSON *k;
			cJSON_ArrayForEach(k, item)
			{
				int idx = -1;
				for (int i = 0; i < p->nkernels; i++)
					if (!strcmp(p->kernels[i].name, k->string))
						idx = i;
				double t = cJSON_IsNumber(k)   ? k->valuedouble
					   : cJSON_IsString(k) ? solar_cli_parse_time(k->valuestring)
							       : -1;
				if (idx < 0) {
					fprintf(stderr, "solar: %s: kernels.%s: no kernel of that name\n",
						file, k->string);
					rc = -1;
				} else if (t <= 0) {
					fprintf(stderr, "solar: %s: kernels.%s: expected a positive time\n",
						file, k->string);
					rc = -1;
				} else {
					m->kernel_s[idx] = t;
				}
			}
		} else {
			fprintf(stderr, "solar: %s: %s: unknown key (expected total or kernels)\n",
				file, item->string);
			rc = -1;
		}
	}
	cJSON_Delete(j);
	return rc;
}

static const char *res_label(int res, char *buf, size_t n)
{
	return solar_resource_name(res, buf, n);
}

/* "34.4 G tensor.bf16 + 2.1 G sfu.f32" (largest first, at most two; "+" when more) */
static void work_summary(char *buf, size_t n, const solar_ops *o)
{
	double v[SOLAR_UNIT_COUNT * SOLAR_PREC_COUNT];
	int idx[SOLAR_UNIT_COUNT * SOLAR_PREC_COUNT], m = 0;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (o->v[u][q] && !isl_val_is_zero(o->v[u][q])) {
				v[m] = isl_val_get_d(o->v[u][q]);
				idx[m++] = u * SOLAR_PREC_COUNT + q;
			}
	for (int i = 0; i < m; i++) /* selection sort, m is tiny */
		for (int j = i + 1; j < m; j++)
			if (v[j] > v[i]) {
				double tv = v[i];
				int ti = idx[i];
				v[i] = v[j];
				idx[i] = idx[j];
				v[j] = tv;
				idx[j] = ti;
			}
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < m && i < 2; i++) {
		char si[32];
		solar_fmt_si(si, sizeof si, v[i]);
		if (si[0] && si[strlen(si) - 1] == ' ')
			si[strlen(si) - 1] = '\0';
		off += (size_t)snprintf(buf + off, n - off, "%s%s %s.%s", i ? " + " : "",
					si, solar_unit_name((solar_unit)(idx[i] / SOLAR_PREC_COUNT)),
					solar_prec_name((solar_prec)(idx[i] % SOLAR_PREC_COUNT)));
		if (off >= n)
			break;
	}
	if (m > 2 && off + 3 < n)
		snprintf(buf + off, n - off, " +");
	if (!m)
		snprintf(buf, n, "0");
}

/* Rule "fidelity levels": rate figures (peaks, bandwidths) of status measured are ceilings one
 * code reached, not limits; bounds computed with them are estimates.  Their number. */
static int measured_rates(const solar_device *dev)
{
	int n = 0;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			n += dev->peak[u][q].present && dev->peak[u][q].status == SOLAR_SRC_MEASURED;
	for (int i = 0; i < dev->nlevels; i++)
		n += dev->levels[i].bandwidth_bytes_per_s.present &&
		     dev->levels[i].bandwidth_bytes_per_s.status == SOLAR_SRC_MEASURED;
	return n;
}

static void print_peaks(FILE *out, const solar_device *dev, const solar_work *w)
{
	char a[32], b2[32];
	fprintf(out, "  peaks:");
	bool first = true;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (w->total.ops.v[u][q] && dev->peak[u][q].present) {
				fprintf(out, "%s %s%s/s %s.%s", first ? "" : ",",
					solar_fmt_si(a, sizeof a, solar_device_peak(dev, u, q)),
					q >= SOLAR_PREC_I64 ? "OP" : "FLOP", solar_unit_name(u),
					solar_prec_name(q));
				first = false;
			}
	char missing[40]; /* rule "clock domains": the clock the compute peaks are at */
	if (!first && !solar_device_unclocked(dev, missing, sizeof missing))
		fprintf(out, " (SM clock %sHz)", solar_fmt_si(a, sizeof a, dev->clock_hz.value));
	const solar_mem_level *d = solar_device_level(dev, "dram");
	const solar_mem_level *l2 = solar_device_level(dev, "l2");
	fprintf(out, "%s %sB/s DRAM", first ? "" : ",",
		solar_fmt_si(a, sizeof a, d->bandwidth_bytes_per_s.value));
	if (l2 && l2->capacity_bytes.present)
		fprintf(out, ", %sB L2", solar_fmt_si(b2, sizeof b2, l2->capacity_bytes.value));
	fputs("\n", out);
}

/* A measured time below a bound that holds for every execution on the device (the fused and
 * cache-aware bounds of the program, or a kernel's own bound for that kernel) is impossible:
 * the measurement or solar is wrong.  Worded as `solar report` words it (docs/report.md); each
 * case is one line on err (NULL: only counted), and the count makes analyze exit 1. */
static bool below(double measured_s, double bound_s)
{
	return measured_s > 0 && bound_s > 0 && measured_s < bound_s * (1 - 1e-6);
}

static int report_below_sol(FILE *err, const char *file, const solar_program *p,
			    const solar_bounds *b, const measured *m)
{
	char t1[32], t2[32];
	int n = 0;
	const solar_roof *r = below(m->total_s, b->fused.time_s) ? &b->fused : &b->cache_aware;
	if (below(m->total_s, r->time_s)) {
		n++;
		if (err)
			fprintf(err, "solar: %s: measured %s is %.3gx the %s bound (%s): below the "
				     "speed of light, so the measurement or solar is wrong\n",
				file, solar_fmt_time(t1, sizeof t1, m->total_s),
				m->total_s / r->time_s, r == &b->fused ? "fused" : "cache-aware",
				solar_fmt_time(t2, sizeof t2, r->time_s));
	}
	for (int k = 0; k < p->nkernels; k++) {
		if (!below(m->kernel_s[k], b->kernel[k].time_s))
			continue;
		n++;
		if (err)
			fprintf(err, "solar: %s: kernel %s: measured %s is %.3gx its bound (%s): "
				     "below the speed of light, so the measurement or solar is wrong\n",
				file, p->kernels[k].name,
				solar_fmt_time(t1, sizeof t1, m->kernel_s[k]),
				m->kernel_s[k] / b->kernel[k].time_s,
				solar_fmt_time(t2, sizeof t2, b->kernel[k].time_s));
	}
	return n;
}

static void headroom_cell(char *buf, size_t n, double measured_s, double bound_s)
{
	if (measured_s > 0 && bound_s > 0)
		snprintf(buf, n, "%.3gx", measured_s / bound_s);
	else
		snprintf(buf, n, "-");
}

/* Rule "capacity": all inputs are in device memory when the program starts, all outputs when
 * it ends, so a program whose inputs or outputs alone exceed the DRAM capacity cannot run. */
static bool capacity_exceeded(const solar_bounds *b)
{
	return b->dram_capacity_bytes > 0 && b->live_bytes > b->dram_capacity_bytes;
}

static void print_table(FILE *out, const solar_opts *o, const solar_program *p,
			const solar_device *dev, const solar_work *w, const solar_bounds *b,
			const measured *m, bool md)
{
	char t1[32], t2[32], t3[32], rb[48], work[160], hr[32];
	const char *base = strrchr(o->files[0], '/');
	fprintf(out, "%s%s", md ? "### " : "", base ? base + 1 : o->files[0]);
	for (int i = 0; i < p->nparams; i++)
		fprintf(out, "%s%s=%lld", i ? " " : "  ", p->params[i].name,
			(long long)p->params[i].value);
	fprintf(out, "   on %s, math %s", dev->name, o->math == SOLAR_MATH_TF32 ? "tf32" : "strict");
	for (int k = 0; k < p->nkernels; k++)
		if (p->kernels[k].math != SOLAR_MATH_DEFAULT)
			fprintf(out, " (%s: %s)", p->kernels[k].name,
				p->kernels[k].math == SOLAR_MATH_TF32 ? "tf32" : "strict");
	fputs("\n", out);
	if (!md)
		print_peaks(out, dev, w);
	for (int i = 0; i < o->nsets; i++)
		fprintf(out, "%s  hypothetical: %s (--set)\n", md ? "\n" : "", o->sets[i]);
	if (o->ceilings_measured)
		fprintf(out, "%s  ESTIMATE, not a bound: %d measured ceilings (--ceilings measured); "
			     "good code reaches about this, better code may beat it\n",
			md ? "\n" : "", measured_rates(dev));
	fputs("\n", out);
	bool have_k = false;
	for (int k = 0; k < p->nkernels; k++)
		have_k |= m->kernel_s[k] > 0;
	if (md)
		fprintf(out, "| kernel | work | DRAM traffic | intensity | bound | limited by |%s\n"
			     "|---|---|---|---|---|---|%s\n",
			have_k ? " measured | headroom |" : "", have_k ? "---|---|" : "");
	else
		fprintf(out, "%-14s %-38s %-13s %-12s %-10s %s%s\n", "kernel", "work",
			"DRAM traffic", "intensity", "bound", have_k ? "limited by  " : "limited by",
			have_k ? "measured   headroom" : "");
	for (int k = 0; k < p->nkernels; k++) {
		const solar_roof *r = &b->kernel[k];
		work_summary(work, sizeof work, &w->kernel[k].ops);
		char traffic[32], inten[32];
		snprintf(traffic, sizeof traffic, "%sB", solar_fmt_si(t1, sizeof t1, r->dram_bytes));
		if (r->dram_bytes > 0)
			snprintf(inten, sizeof inten, "%.3g op/B", r->ops / r->dram_bytes);
		else
			snprintf(inten, sizeof inten, "-");
		solar_fmt_time(t2, sizeof t2, r->time_s);
		res_label(r->limiter, rb, sizeof rb);
		char meas[32] = "";
		hr[0] = '\0';
		if (m->kernel_s[k] > 0) {
			solar_fmt_time(meas, sizeof meas, m->kernel_s[k]);
			headroom_cell(hr, sizeof hr, m->kernel_s[k], r->time_s);
		}
		if (md) {
			fprintf(out, "| %s | %s | %s | %s | %s | %s |", p->kernels[k].name, work,
				traffic, inten, t2, rb);
			if (have_k)
				fprintf(out, " %s | %s |", meas[0] ? meas : "-", hr[0] ? hr : "-");
			fputs("\n", out);
		} else
			if (have_k)
				fprintf(out, "%-14s %-38s %-13s %-12s %-10s %-12s%-10s %s\n",
					p->kernels[k].name, work, traffic, inten, t2, rb, meas, hr);
			else
				fprintf(out, "%-14s %-38s %-13s %-12s %-10s %s\n", p->kernels[k].name,
					work, traffic, inten, t2, rb);
	}
	fputs("\n", out);
	char mh[64] = "";
	if (m->total_s > 0)
		snprintf(mh, sizeof mh, "headroom (measured %s)", solar_fmt_time(t3, sizeof t3, m->total_s));
	if (md)
		fprintf(out, "| bound | time | limited by | DRAM traffic |%s\n|---|---|---|---|%s\n",
			m->total_s > 0 ? " headroom |" : "", m->total_s > 0 ? "---|" : "");
	else
		fprintf(out, "%-34s %-10s %-14s %s%s%s\n", "bound", "time", "limited by",
			mh[0] ? "DRAM traffic " : "DRAM traffic", mh[0] ? "  " : "", mh);
	struct {
		const char *name;
		const solar_roof *r;
	} rows[3] = {{"unfused (kernels as written)", &b->unfused},
		     {"cache-aware (fused, on-chip)", &b->cache_aware},
		     {"fused (inputs and outputs once)", &b->fused}};
	for (int i = 0; i < 3; i++) {
		const solar_roof *r = rows[i].r;
		solar_fmt_time(t1, sizeof t1, r->time_s);
		res_label(r->limiter, rb, sizeof rb);
		char traffic[32];
		snprintf(traffic, sizeof traffic, "%sB", solar_fmt_si(t2, sizeof t2, r->dram_bytes));
		headroom_cell(hr, sizeof hr, m->total_s, r->time_s);
		if (md)
			fprintf(out, "| %s | %s | %s | %s |%s%s%s\n", rows[i].name, t1, rb, traffic,
				m->total_s > 0 ? " " : "", m->total_s > 0 ? hr : "",
				m->total_s > 0 ? " |" : "");
		else
			fprintf(out, "%-34s %-10s %-14s %-*s%s%s\n", rows[i].name, t1, rb,
				m->total_s > 0 ? 13 : 0, traffic, m->total_s > 0 ? "  " : "",
				m->total_s > 0 ? hr : "");
	}
	fputs("\n", out);
	if (!o->ceilings_measured && report_below_sol(NULL, o->files[0], p, b, m))
		fputs("ERROR: a measured time is below the speed of light, so the measurement or "
		      "solar is wrong (details on stderr).\n",
		      out);
	if (!p->nstmts)
		fputs("The program has no statements: there is no work to bound.\n", out);
	if (b->fused.time_s > 0 && b->unfused.time_s > 1.5 * b->fused.time_s)
		fprintf(out, "Fusion gap: unfused/fused = %.3gx (intermediates written and read "
			     "back: %sB more DRAM traffic than fused).\n",
			b->unfused.time_s / b->fused.time_s,
			solar_fmt_si(t1, sizeof t1, b->unfused.dram_bytes - b->fused.dram_bytes));
	if (b->cache_rule_stmt >= 0) {
		char *st = solar_out_stmt_str(p, p->stmts[b->cache_rule_stmt]);
		fprintf(out, "Cache-aware DRAM traffic set by a rule on statement S%d "
			     "(docs/bounds.md#cache-aware): %s\n",
			b->cache_rule_stmt, st);
		free(st);
	}
	/* Rule "compulsory traffic" before rule "warm L2": the fused row's DRAM traffic is what
	 * is left of it once the L2 allowance is taken off the loads and off the stores. */
	isl_val *lv = solar_scope_bytes(w, &w->total, 2), *sv = solar_scope_bytes(w, &w->total, 3);
	double ld = isl_val_get_d(lv), st = isl_val_get_d(sv);
	isl_val_free(lv);
	isl_val_free(sv);
	char t4[32];
	fprintf(out, "Compulsory traffic: %sB (%sB of inputs read once + %sB of outputs written "
		     "once).\n",
		solar_fmt_si(t1, sizeof t1, ld + st), solar_fmt_si(t2, sizeof t2, ld),
		solar_fmt_si(t4, sizeof t4, st));
	if (b->l2_cold)
		fprintf(out, "L2 cold (--l2 cold: the L2 is flushed before each run): the program's "
			     "inputs come from DRAM; DRAM traffic is what exceeds the %sB the L2 may "
			     "hold of the stores, and of the loads of later kernels "
			     "(docs/bounds.md#l2-state).\n",
			solar_fmt_si(t1, sizeof t1, b->l2_carry_bytes));
	else if (b->l2_carry_bytes > 0)
		fprintf(out, "L2 warm (the default, sound for any protocol; --l2 cold if it is "
			     "flushed): DRAM traffic is what exceeds the %sB the L2 may hold across "
			     "launches, of the loads and of the stores (docs/bounds.md#warm-l2).\n",
			solar_fmt_si(t1, sizeof t1, b->l2_carry_bytes));
	if (b->placed_bytes > 0)
		fprintf(out, "Unfused DRAM traffic includes %sB that the kernels' own allowances "
			     "leave out: all kernels share one L2, so together they move at least the "
			     "fused traffic (docs/bounds.md#one-l2-for-all-kernels).\n",
			solar_fmt_si(t1, sizeof t1, b->placed_bytes));
	if (capacity_exceeded(b))
		fprintf(out, "Warning: the program's live data (%sB at least) exceeds the device's "
			     "DRAM capacity (%sB); it cannot run on one device as written.\n",
			solar_fmt_si(t1, sizeof t1, b->live_bytes),
			solar_fmt_si(t2, sizeof t2, b->dram_capacity_bytes));
	if (b->capacity_dram_bytes <= 0)
		fputs("Note: the descriptor lacks on-chip capacities; cache-aware = fused.\n", out);
	if (b->missing_peak)
		fputs("Note: some work has no peak in the descriptor and was charged at its fastest "
		      "peak (docs/bounds.md#missing-peak).\n",
		      out);
	fputs("Rules: docs/bounds.md#unfused, #fused, #cache-aware.\n", out);
}

static cJSON *json_roof(const solar_roof *r, double measured_s)
{
	char rb[48];
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "time_s", r->time_s);
	cJSON_AddStringToObject(j, "limited_by", res_label(r->limiter, rb, sizeof rb));
	cJSON_AddNumberToObject(j, "ops", r->ops);
	cJSON *bytes = cJSON_AddObjectToObject(j, "bytes");
	cJSON_AddNumberToObject(bytes, "dram", r->dram_bytes);
	cJSON_AddNumberToObject(bytes, "l2", r->l2_bytes);
	cJSON *res = cJSON_AddObjectToObject(j, "resource_time_s");
	for (int i = 0; i < SOLAR_RES_COUNT; i++)
		if (r->res_s[i] > 0)
			cJSON_AddNumberToObject(res, res_label(i, rb, sizeof rb), r->res_s[i]);
	if (measured_s > 0) {
		cJSON_AddNumberToObject(j, "measured_s", measured_s);
		cJSON_AddNumberToObject(j, "headroom", measured_s / r->time_s);
	}
	return j;
}

static cJSON *json_ops_d(const solar_ops *o)
{
	cJSON *j = cJSON_CreateObject();
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (o->v[u][q] && !isl_val_is_zero(o->v[u][q])) {
				char key[48];
				snprintf(key, sizeof key, "%s_%s", solar_unit_name(u), solar_prec_name(q));
				cJSON_AddItemToObject(j, key, solar_json_count(o->v[u][q]));
			}
	return j;
}

static cJSON *json_analyze(const solar_opts *o, const solar_program *p, const solar_device *dev,
			   const solar_work *w, const solar_bounds *b, const measured *m)
{
	cJSON *j = solar_json_program(o->files[0], p);
	cJSON *d = cJSON_AddObjectToObject(j, "device");
	cJSON_AddStringToObject(d, "name", dev->name);
	cJSON_AddStringToObject(d, "file", o->device);
	cJSON_AddStringToObject(j, "math", o->math == SOLAR_MATH_TF32 ? "tf32" : "strict");
	cJSON_AddItemToObject(j, "unfused", json_roof(&b->unfused, m->total_s));
	cJSON *fu = json_roof(&b->fused, m->total_s);
	cJSON *cb = cJSON_AddObjectToObject(fu, "compulsory_bytes"); /* before the L2 allowance */
	isl_val *lv = solar_scope_bytes(w, &w->total, 2), *sv = solar_scope_bytes(w, &w->total, 3);
	cJSON_AddItemToObject(cb, "loaded", solar_json_count(lv));
	cJSON_AddItemToObject(cb, "stored", solar_json_count(sv));
	isl_val_free(lv);
	isl_val_free(sv);
	cJSON_AddItemToObject(j, "fused", fu);
	cJSON *ca = json_roof(&b->cache_aware, m->total_s);
	cJSON *cap = cJSON_AddObjectToObject(ca, "capacity_bytes");
	cJSON_AddNumberToObject(cap, "dram", b->capacity_dram_bytes);
	cJSON_AddNumberToObject(cap, "l2", b->capacity_l2_bytes);
	if (b->cache_rule_stmt >= 0)
		cJSON_AddNumberToObject(ca, "segment_rule_statement", b->cache_rule_stmt);
	cJSON_AddItemToObject(j, "cache_aware", ca);
	if (m->total_s > 0)
		cJSON_AddNumberToObject(j, "measured_s", m->total_s);
	cJSON_AddStringToObject(j, "l2", b->l2_cold ? "cold" : "warm");
	cJSON_AddStringToObject(j, "ceilings", o->ceilings_measured ? "measured" : "bound");
	cJSON_AddNumberToObject(j, "l2_carry_bytes", b->l2_carry_bytes);
	if (b->placed_bytes > 0)
		cJSON_AddNumberToObject(cJSON_GetObjectItem(j, "unfused"), "placed_bytes",
					b->placed_bytes);
	cJSON_AddNumberToObject(j, "live_bytes", b->live_bytes);
	if (capacity_exceeded(b))
		cJSON_AddBoolToObject(j, "dram_capacity_exceeded", true);
	cJSON *ks = cJSON_AddArrayToObject(j, "kernels");
	for (int k = 0; k < p->nkernels; k++) {
		cJSON *e = json_roof(&b->kernel[k], m->kernel_s[k]);
		cJSON_AddItemToObject(e, "counted_ops", json_ops_d(&w->kernel[k].ops));
		cJSON *named = cJSON_CreateObject();
		cJSON_AddStringToObject(named, "name", p->kernels[k].name);
		cJSON *it = e->child;
		while (it) {
			cJSON *next = it->next;
			cJSON_AddItemToObject(named, it->string, cJSON_DetachItemViaPointer(e, it));
			it = next;
		}
		cJSON_Delete(e);
		cJSON_AddItemToArray(ks, named);
	}
	return j;
}

static void print_csv(FILE *out, const solar_program *p, const solar_bounds *b, const measured *m)
{
	char rb[48];
	fputs("scope,time_s,limited_by,dram_bytes,l2_bytes,ops,measured_s,headroom\n", out);
	for (int k = 0; k < p->nkernels; k++) {
		const solar_roof *r = &b->kernel[k];
		fprintf(out, "kernel:%s,%.9g,%s,%.17g,%.17g,%.17g,", p->kernels[k].name, r->time_s,
			res_label(r->limiter, rb, sizeof rb), r->dram_bytes, r->l2_bytes, r->ops);
		if (m->kernel_s[k] > 0)
			fprintf(out, "%.9g,%.6g\n", m->kernel_s[k], m->kernel_s[k] / r->time_s);
		else
			fputs(",\n", out);
	}
	const solar_roof *rows[3] = {&b->unfused, &b->cache_aware, &b->fused};
	const char *names[3] = {"unfused", "cache_aware", "fused"};
	for (int i = 0; i < 3; i++) {
		fprintf(out, "%s,%.9g,%s,%.17g,%.17g,%.17g,", names[i], rows[i]->time_s,
			res_label(rows[i]->limiter, rb, sizeof rb), rows[i]->dram_bytes,
			rows[i]->l2_bytes, rows[i]->ops);
		if (m->total_s > 0)
			fprintf(out, "%.9g,%.6g\n", m->total_s, m->total_s / rows[i]->time_s);
		else
			fputs(",\n", out);
	}
}

int solar_cmd_analyze(const solar_opts *o)
{
	if (o->nfiles != 1) {
		fputs("solar: analyze needs exactly one FILE\nTry 'solar --help'.\n", stderr);
		return SOLAR_EXIT_USAGE;
	}
	if (!o->device) {
		fputs("solar: analyze needs --device FILE (see devices/*.json)\n"
		      "Try 'solar --help'.\n",
		      stderr);
		return SOLAR_EXIT_USAGE;
	}
	solar_device *dev = solar_cli_load_device(o);
	if (!dev)
		return SOLAR_EXIT_USAGE;
	if (o->ceilings_measured && !measured_rates(dev)) {
		fprintf(stderr, "solar: %s: --ceilings measured: the descriptor has no measured "
				"ceilings (a peak or bandwidth of status measured; "
				"devices/h200-measured.json has the H200's)\n",
			o->device);
		solar_device_free(dev);
		return SOLAR_EXIT_USAGE;
	}
	if (!o->ceilings_measured && measured_rates(dev))
		fprintf(stderr, "solar: %s: warning: %d figures are measured ceilings, not peaks: "
				"the result is an estimate, not a bound (--ceilings measured labels it)\n",
			o->device, measured_rates(dev));
	solar_loaded l;
	int rc = solar_cli_load(o->files[0], o, &l);
	if (rc != SOLAR_EXIT_OK) {
		solar_device_free(dev);
		return rc;
	}
	measured m = {o->measured_s, calloc((size_t)l.prog->nkernels + 1, sizeof(double))};
	for (int k = 0; k < l.prog->nkernels; k++)
		m.kernel_s[k] = -1;
	solar_work *w = NULL;
	solar_bounds b = {0};
	FILE *out = NULL;
	if (o->measured_file && load_measured(o->measured_file, l.prog, &m) < 0) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	w = solar_work_check_and_count(l.prog, o->math, l.diag);
	if (!w) {
		rc = SOLAR_EXIT_ERRORS;
		goto done;
	}
	if (solar_bounds_compute(w, dev, &b, stderr) < 0) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	if (capacity_exceeded(&b)) {
		char t1[32], t2[32];
		fprintf(stderr, "solar: %s: warning: the program's live data (%sB at least: its "
				"inputs or its outputs) exceeds the DRAM capacity of %s (%sB)\n",
			o->files[0], solar_fmt_si(t1, sizeof t1, b.live_bytes), dev->name,
			solar_fmt_si(t2, sizeof t2, b.dram_capacity_bytes));
	}
	out = solar_out_open(o);
	if (!out) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	switch (o->format) {
	case SOLAR_FMT_JSON:
		solar_json_print(out, json_analyze(o, l.prog, dev, w, &b, &m));
		break;
	case SOLAR_FMT_CSV:
		print_csv(out, l.prog, &b, &m);
		break;
	default:
		print_table(out, o, l.prog, dev, w, &b, &m, o->format == SOLAR_FMT_MD);
		break;
	}
	solar_out_close(o, out);
	/* an estimate may be beaten: a time below it is no error */
	if (!o->ceilings_measured && report_below_sol(stderr, o->files[0], l.prog, &b, &m))
		rc = SOLAR_EXIT_ERRORS;
done:
	solar_diag_finish(l.diag);
	solar_bounds_free(&b);
	solar_work_free(w);
	free(m.kernel_s);
	solar_cli_unload(&l);
	solar_device_free(dev);
	return rc;
}

int solar_cli_load_measured(const char *file, const solar_program *p, double *total_s,
			    double *kernel_s)
{
	measured m = {*total_s, kernel_s};
	int rc = load_measured(file, p, &m);
	*total_s = m.total_s;
	return rc;
}
