/* roofline.c - time bounds from exact counts and device peaks (docs/bounds.md, "Bounds").
 *
 * Rule "time of a scope": max over resources of need / rate; a lower bound because a machine
 * cannot do more per second on any resource than its peak, and the slowest resource alone
 * already takes that long even if everything else overlaps perfectly.
 *
 * Rule "warm L2": only the L2 keeps data between launches (shared memory and registers do
 * not), so up to its capacity C of a scope's loads may already be on chip and up to C of its
 * stores may still sit dirty in L2 when the time is taken: DRAM bytes >= (loads - C)+ +
 * (stores - C)+.  Every byte a kernel reads or writes still crosses the L2-SM boundary.
 */
#include "roofline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *solar_resource_name(int res, char *buf, size_t n)
{
	if (res == SOLAR_RES_DRAM || res == SOLAR_RES_L2) {
		snprintf(buf, n, "%s", res == SOLAR_RES_DRAM ? "dram" : "l2");
		return buf;
	}
	int k = res - SOLAR_RES_OPS;
	snprintf(buf, n, "%s.%s", solar_unit_name((solar_unit)(k / SOLAR_PREC_COUNT)),
		 solar_prec_name((solar_prec)(k % SOLAR_PREC_COUNT)));
	return buf;
}

static double fastest_peak(const solar_device *dev)
{
	double best = 0;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			best = fmax(best, solar_device_peak(dev, u, q));
	return best;
}

/* Rate at which ops of (unit, prec) can execute, every peak at the SM clock (rule "clock
 * domains", solar_device_peak).  Rule "special functions": a transcendental
 * needs at least one instruction on the SFU or on the FMA pipes, and packed half-precision
 * forms (ex2.approx.f16x2, HFMA2) do two per instruction, so its rate is at most twice the SFU
 * rate plus the fastest SIMT FLOP rate (FLOP/s / 2 = FMA lanes per second, x2 packed, / 2).
 * Rule "missing peak": work whose datapath the descriptor does not list runs at most at the
 * device's fastest peak. */
static double rate(const solar_device *dev, int u, int q, bool *missing)
{
	double peak = solar_device_peak(dev, u, q);
	if (u == SOLAR_UNIT_SFU) {
		double simt = 0;
		for (int p = 0; p < SOLAR_PREC_COUNT; p++)
			simt = fmax(simt, solar_device_peak(dev, SOLAR_UNIT_SIMT, p));
		double r = 2 * peak + simt;
		if (r > 0)
			return r;
	} else if (peak > 0) {
		return peak;
	}
	*missing = true;
	return fastest_peak(dev);
}

static void finish(solar_roof *r)
{
	r->time_s = 0;
	r->limiter = SOLAR_RES_DRAM;
	for (int i = 0; i < SOLAR_RES_COUNT; i++)
		if (r->res_s[i] > r->time_s) {
			r->time_s = r->res_s[i];
			r->limiter = i;
		}
}

static void charge_ops(solar_roof *r, const solar_ops *ops, const solar_device *dev, bool *missing)
{
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++) {
			if (!ops->v[u][q])
				continue;
			double n = isl_val_get_d(ops->v[u][q]);
			if (n <= 0)
				continue;
			r->ops += n;
			r->res_s[SOLAR_RES_OPS + u * SOLAR_PREC_COUNT + q] = n / rate(dev, u, q, missing);
		}
}

static void charge_bytes(solar_roof *r, double dram, double l2, const solar_device *dev)
{
	const solar_mem_level *d = solar_device_level(dev, "dram");
	const solar_mem_level *c = solar_device_level(dev, "l2");
	r->dram_bytes = dram;
	r->l2_bytes = l2;
	r->res_s[SOLAR_RES_DRAM] = dram / d->bandwidth_bytes_per_s.value;
	if (c && c->bandwidth_bytes_per_s.present)
		r->res_s[SOLAR_RES_L2] = l2 / c->bandwidth_bytes_per_s.value;
}

static double capacity(const solar_device *dev, const char *const *levels, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++) {
		const solar_mem_level *l = solar_device_level(dev, levels[i]);
		if (!l || !l->capacity_bytes.present)
			return 0; /* unknown: the segment rules would be unsound with less */
		s += l->capacity_bytes.value;
	}
	return s;
}

static double pos(double x)
{
	return x > 0 ? x : 0;
}

/* Largest segment bound over statements with a segment rule (the HBL rules of eligible
 * statements, rule "complete pairs"), in bytes, at capacity cap_bytes: a max of lower bounds,
 * never a sum.  Rule "row statistic" gives a statement the bound compulsory_bytes + its extra
 * loads of X, which enters the same max. */
static double segment_traffic(const solar_work *w, double cap_bytes, double compulsory_bytes,
			      int *which)
{
	double best = 0;
	for (int i = 0; i < w->prog->nstmts && cap_bytes > 0; i++) {
		const solar_stmt_work *sw = &w->stmt[i];
		double q = 0;
		if ((sw->segment_eligible && sw->nrules) || sw->pairs_row > 0) {
			double eb = sw->segment_elem_bytes;
			q = solar_segment_bound(sw, cap_bytes / eb) * eb;
		}
		if (sw->stat_rows > 0) {
			double xb = sw->stat_elem_bytes;
			double extra = solar_row_stat_extra(sw, cap_bytes / xb) * xb;
			if (extra > 0)
				q = fmax(q, compulsory_bytes + extra);
		}
		if (q > best) {
			best = q;
			if (which)
				*which = i;
		}
	}
	return best;
}

int solar_bounds_compute(const solar_work *w, const solar_device *dev, solar_bounds *b, FILE *err)
{
	memset(b, 0, sizeof *b);
	const solar_mem_level *dram = solar_device_level(dev, "dram");
	if (!dram || !dram->bandwidth_bytes_per_s.present) {
		fprintf(err, "solar: %s: the descriptor gives no DRAM bandwidth\n", dev->file);
		return -1;
	}
	const solar_mem_level *l2 = solar_device_level(dev, "l2");
	b->l2_carry_bytes = l2 && l2->capacity_bytes.present ? l2->capacity_bytes.value : 0;
	static const char *const outer[] = {"l2", "smem", "regs"};
	b->capacity_dram_bytes = capacity(dev, outer, 3);
	b->capacity_l2_bytes = capacity(dev, outer + 1, 2);
	const solar_program *p = w->prog;
	b->nkernels = p->nkernels;
	b->kernel = calloc((size_t)p->nkernels + 1, sizeof *b->kernel);
	double C = b->l2_carry_bytes;

	/* Unfused: rule "unfused traffic" per kernel, times summed over kernels. */
	for (int k = 0; k < p->nkernels; k++) {
		solar_roof *r = &b->kernel[k];
		isl_val *lv = solar_scope_bytes(w, &w->kernel[k], 2);
		isl_val *sv = solar_scope_bytes(w, &w->kernel[k], 3);
		double ld = isl_val_get_d(lv), st = isl_val_get_d(sv);
		isl_val_free(lv);
		isl_val_free(sv);
		charge_ops(r, &w->kernel[k].ops, dev, &b->missing_peak);
		charge_bytes(r, pos(ld - C) + pos(st - C), ld + st, dev);
		finish(r);
		b->unfused.ops += r->ops;
		b->unfused.dram_bytes += r->dram_bytes;
		b->unfused.l2_bytes += r->l2_bytes;
		b->unfused.time_s += r->time_s;
		b->unfused.res_s[r->limiter] += r->time_s; /* time spent limited by each */
	}
	/* Fused: rule "compulsory traffic". */
	isl_val *lv = solar_scope_bytes(w, &w->total, 2), *sv = solar_scope_bytes(w, &w->total, 3);
	double ld = isl_val_get_d(lv), st = isl_val_get_d(sv);
	isl_val_free(lv);
	isl_val_free(sv);
	charge_ops(&b->fused, &w->total.ops, dev, &b->missing_peak);
	charge_bytes(&b->fused, pos(ld - C) + pos(st - C), ld + st, dev);
	finish(&b->fused);

	/* Cache-aware: rule "cache-aware", max of compulsory and the segment rules. */
	b->cache_rule_stmt = -1;
	double seg_dram = segment_traffic(w, b->capacity_dram_bytes, b->fused.dram_bytes,
					 &b->cache_rule_stmt);
	double seg_l2 = segment_traffic(w, b->capacity_l2_bytes, b->fused.l2_bytes, NULL);
	if (seg_dram <= b->fused.dram_bytes)
		b->cache_rule_stmt = -1;
	charge_ops(&b->cache_aware, &w->total.ops, dev, &b->missing_peak);
	charge_bytes(&b->cache_aware, fmax(b->fused.dram_bytes, seg_dram),
		     fmax(b->fused.l2_bytes, seg_l2), dev);
	finish(&b->cache_aware);

	/* Rule "unfused floor": the kernels as written are one execution of the program, so the
	 * fused bound holds for them too; the unfused bound is never below it. */
	b->unfused.limiter = SOLAR_RES_DRAM;
	for (int i = 0; i < SOLAR_RES_COUNT; i++)
		if (b->unfused.res_s[i] > b->unfused.res_s[b->unfused.limiter])
			b->unfused.limiter = i;
	if (b->fused.time_s > b->unfused.time_s) {
		b->unfused.time_s = b->fused.time_s;
		b->unfused.limiter = b->fused.limiter;
	}
	return 0;
}

void solar_bounds_free(solar_bounds *b)
{
	free(b->kernel);
	b->kernel = NULL;
}
