/* roofline.c - time bounds from exact counts and device peaks (docs/bounds.md, "Bounds").
 *
 * Rule "time of a scope": max over resources of need / rate; a lower bound because a machine
 * cannot do more per second on any resource than its peak, and the slowest resource alone
 * already takes that long even if everything else overlaps perfectly.
 *
 * Rule "L2 state": warm (the default) lets up to the L2 capacity C of a scope's loads already
 * be on chip and up to C of its stores still sit dirty in L2 when the time is taken, DRAM
 * bytes >= (loads - C)+ + (stores - C)+ (rule "warm L2"); cold (--l2 cold, a protocol that
 * flushes the L2 before each run) gives the program's (and the first kernel's) loads none.  Every byte a kernel reads
 * or writes still crosses the L2-SM boundary (rule "L2 bandwidth").
 *
 * Rule "one L2 for all kernels": the kernels share one L2 of C bytes, so besides each kernel's
 * own allowance the kernels together move at least the whole program's DRAM traffic; the
 * bytes the kernel sum lacks are placed where they cost least (first where a kernel is bound by
 * another resource), which keeps the unfused row a lower bound and makes its time and traffic
 * one computation.
 */
#include "roofline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../diag/alloc.h"

const char *solar_resource_name(int res, char *buf, size_t n)
{
	if (res < SOLAR_RES_OPS) {
		static const char *const names[] = {"dram", "l2", "links", "network"};
		snprintf(buf, n, "%s", res >= 0 ? names[res] : "?");
		return buf;
	}
	int k = res - SOLAR_RES_OPS;
	snprintf(buf, n, "%s.%s", solar_unit_name((solar_unit)(k / SOLAR_PREC_COUNT)),
		 solar_prec_name((solar_prec)(k % SOLAR_PREC_COUNT)));
	return buf;
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
	return solar_device_fastest_peak(dev);
}

void solar_roof_finish(solar_roof *r)
{
	r->time_s = 0;
	r->limiter = SOLAR_RES_DRAM;
	for (int i = 0; i < SOLAR_RES_COUNT; i++)
		if (r->res_s[i] > r->time_s) {
			r->time_s = r->res_s[i];
			r->limiter = i;
		}
}

/* Rule "f32 emulation": where the descriptor gives a tensor.f32 peak (an f32-exact contraction
 * on the matrix unit, as cuBLAS's BF16x9 on Blackwell), a library may run any part x of the
 * strict f32 multiply-accumulate ops M on it instead of the SIMT f32 pipes.  The scope's time is
 * then max(other, (S - x) / s, x / e) for S simt.f32 ops at rate s and tensor.f32 rate e; the
 * least over 0 <= x <= M is at x = S e / (s + e) (both sides equal), clamped to [0, M].  Every
 * split a real run makes (one per contraction, or any finer) is one x, so the least is below it. */
static void split_f32_mma(solar_roof *r, const solar_ops *ops, const solar_device *dev)
{
	double e = solar_device_peak(dev, SOLAR_UNIT_TENSOR, SOLAR_PREC_F32);
	double s = solar_device_peak(dev, SOLAR_UNIT_SIMT, SOLAR_PREC_F32);
	double m = ops->f32_mma ? solar_count_double(ops->f32_mma) : 0;
	double *simt = &r->res_s[SOLAR_RES_OPS + SOLAR_UNIT_SIMT * SOLAR_PREC_COUNT + SOLAR_PREC_F32];
	if (e <= 0 || s <= 0 || m <= 0)
		return;
	double n = solar_count_double(ops->v[SOLAR_UNIT_SIMT][SOLAR_PREC_F32]);
	double x = fmin(m, n * e / (s + e));
	*simt = (n - x) / s;
	r->res_s[SOLAR_RES_OPS + SOLAR_UNIT_TENSOR * SOLAR_PREC_COUNT + SOLAR_PREC_F32] = x / e;
	r->emulated_ops = x;
}

static void charge_ops(solar_roof *r, const solar_ops *ops, const solar_device *dev, bool *missing)
{
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++) {
			if (!ops->v[u][q])
				continue;
			double n = solar_count_double(ops->v[u][q]);
			if (n <= 0)
				continue;
			r->ops += n;
			r->res_s[SOLAR_RES_OPS + u * SOLAR_PREC_COUNT + q] = n / rate(dev, u, q, missing);
		}
	split_f32_mma(r, ops, dev);
}

/* DRAM bytes at the DRAM bandwidth; rule "L2 bandwidth": l2 bytes (loads + stores that cross
 * the L2-SM boundary) of which l2_dir_bytes at least go one way, at the L2 bandwidth, which is
 * a per-direction limit (each SM takes in, and gives out, at most its bytes per clock). */
static void charge_bytes(solar_roof *r, double dram, double l2, double l2_dir_bytes,
			 const solar_device *dev)
{
	const solar_mem_level *d = solar_device_level(dev, "dram");
	const solar_mem_level *c = solar_device_level(dev, "l2");
	r->dram_bytes = dram;
	r->l2_bytes = l2;
	r->res_s[SOLAR_RES_DRAM] = dram / d->bandwidth_bytes_per_s.value;
	if (c && c->bandwidth_bytes_per_s.present)
		r->res_s[SOLAR_RES_L2] = fmax(l2_dir_bytes, l2 / 2) / c->bandwidth_bytes_per_s.value;
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
		const solar_stmt_rules *sw = &w->rules[i];
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

/* Rule "one L2 for all kernels".  Each kernel k alone needs a_k DRAM bytes (its own scope with
 * the warm-L2 allowance) and o_k seconds of its other resources; the kernels together need
 * F = the fused DRAM traffic, because the whole program is also a scope and its L2 holds C
 * bytes at its start and at its end, however the kernels share it.  Any execution moves some
 * t_k >= a_k bytes during kernel k with sum t_k >= F, and takes sum_k max(o_k, t_k / BW).  The
 * least of that over all such t: every kernel at a_k, then the missing F - sum a_k bytes first
 * into the slack of kernels bound by another resource (o_k BW - a_k, free), the rest at 1 / BW
 * each.  Per-kernel bounds stay a_k: the placement is the sum's, not any one kernel's. */
static void unfused_sum(solar_bounds *b, const solar_device *dev)
{
	double bw = solar_device_level(dev, "dram")->bandwidth_bytes_per_s.value;
	double missing = b->fused.dram_bytes - b->unfused.dram_bytes, slack = 0;
	for (int k = 0; k < b->nkernels; k++) {
		const solar_roof *r = &b->kernel[k];
		double other = 0;
		for (int i = 0; i < SOLAR_RES_COUNT; i++)
			if (i != SOLAR_RES_DRAM)
				other = fmax(other, r->res_s[i]);
		slack += pos(other * bw - r->dram_bytes);
		b->unfused.time_s += r->time_s;
		b->unfused.emulated_ops += r->emulated_ops;
		b->unfused.res_s[r->limiter] += r->time_s; /* time spent limited by each */
	}
	b->placed_bytes = pos(missing);
	if (missing > 0) {
		double charged = pos(missing - slack);
		b->unfused.dram_bytes += missing;
		b->unfused.time_s += charged / bw;
		b->unfused.res_s[SOLAR_RES_DRAM] += charged / bw;
	}
	b->unfused.limiter = SOLAR_RES_DRAM;
	for (int i = 0; i < SOLAR_RES_COUNT; i++)
		if (b->unfused.res_s[i] > b->unfused.res_s[b->unfused.limiter])
			b->unfused.limiter = i;
}

/* A time is a double, the counts it comes from are exact: counts whose time is past the largest
 * double (a deep enough nest) have no bound to print, only "inf s".  True after a message. */
static bool overflowed(const solar_bounds *b, const solar_program *p, solar_diag *diag)
{
	char res[48];
	for (int k = 0; k < b->nkernels; k++)
		if (!isfinite(b->kernel[k].time_s)) {
			solar_diag_tool_error(
			    diag,
			    "kernel '%s': its bound overflows a double (%s alone takes more than "
			    "1.8e308 s); its counts are exact (solar count prints them), a time "
			    "from them is not",
			    p->kernels[k].name,
			    solar_resource_name(b->kernel[k].limiter, res, sizeof res));
			return true;
		}
	const solar_roof *whole[] = {&b->unfused, &b->fused, &b->cache_aware};
	for (int i = 0; i < 3; i++)
		if (!isfinite(whole[i]->time_s)) {
			solar_diag_tool_error(diag,
					      "the program's bound overflows a double (more than "
					      "1.8e308 s); its counts are exact (solar count prints "
					      "them), a time from them is not");
			return true;
		}
	return false;
}

static void stage_bounds(const solar_work *w, const solar_device *dev, double C_start, double C,
			 solar_bounds *b);

int solar_bounds_compute(const solar_work *w, const solar_device *dev, bool l2_cold,
			 solar_bounds *b, solar_diag *diag)
{
	memset(b, 0, sizeof *b);
	const solar_mem_level *dram = solar_device_level(dev, "dram");
	if (!dram || !dram->bandwidth_bytes_per_s.present) {
		solar_diag_tool_error(diag, "%s: the descriptor gives no DRAM bandwidth",
				      dev->file);
		return -1;
	}
	const solar_mem_level *l2 = solar_device_level(dev, "l2");
	b->l2_carry_bytes = l2 && l2->capacity_bytes.present ? l2->capacity_bytes.value : 0;
	b->l2_cold = l2_cold;
	static const char *const outer[] = {"l2", "smem", "regs"};
	b->capacity_dram_bytes = capacity(dev, outer, 3);
	b->capacity_l2_bytes = capacity(dev, outer + 1, 2);
	const solar_program *p = w->prog;
	b->nkernels = p->nkernels;
	b->kernel = solar_xcalloc((size_t)p->nkernels + 1, sizeof *b->kernel);
	double C = b->l2_carry_bytes;
	/* rule "L2 state": a cold run starts with none of the program's data in L2, so the first
	 * kernel and the whole program find none of their loads there; later kernels may find
	 * what earlier kernels of the run left, and outputs may still sit dirty at the end */
	double C_start = l2_cold ? 0 : C;

	/* Unfused: rule "unfused traffic" per kernel, times summed over kernels. */
	for (int k = 0; k < p->nkernels; k++) {
		solar_roof *r = &b->kernel[k];
		solar_count *lv = solar_scope_bytes(w, &w->kernel[k], SOLAR_DATA_LOAD);
		solar_count *sv = solar_scope_bytes(w, &w->kernel[k], SOLAR_DATA_STORE);
		double ld = solar_count_double(lv), st = solar_count_double(sv);
		solar_count_free(lv);
		solar_count_free(sv);
		charge_ops(r, &w->kernel[k].ops, dev, &b->missing_peak);
		charge_bytes(r, pos(ld - (k ? C : C_start)) + pos(st - C), ld + st, fmax(ld, st), dev);
		solar_roof_finish(r);
		b->unfused.ops += r->ops;
		b->unfused.dram_bytes += r->dram_bytes;
		b->unfused.l2_bytes += r->l2_bytes;
	}
	/* Fused: rule "compulsory traffic". */
	solar_count *lv = solar_scope_bytes(w, &w->total, SOLAR_DATA_LOAD), *sv = solar_scope_bytes(w, &w->total, SOLAR_DATA_STORE);
	double ld = solar_count_double(lv), st = solar_count_double(sv);
	solar_count_free(lv);
	solar_count_free(sv);
	charge_ops(&b->fused, &w->total.ops, dev, &b->missing_peak);
	charge_bytes(&b->fused, pos(ld - C_start) + pos(st - C), ld + st, fmax(ld, st), dev);
	solar_roof_finish(&b->fused);
	b->compulsory_bytes = ld + st;
	b->live_bytes = fmax(ld, st);
	b->dram_capacity_bytes = dram->capacity_bytes.present ? dram->capacity_bytes.value : 0;
	unfused_sum(b, dev);

	/* Cache-aware: rule "cache-aware", max of compulsory and the segment rules. */
	b->cache_rule_stmt = -1;
	double seg_dram = segment_traffic(w, b->capacity_dram_bytes, b->fused.dram_bytes,
					 &b->cache_rule_stmt);
	double seg_l2 = segment_traffic(w, b->capacity_l2_bytes, b->fused.l2_bytes, NULL);
	if (seg_dram <= b->fused.dram_bytes)
		b->cache_rule_stmt = -1;
	charge_ops(&b->cache_aware, &w->total.ops, dev, &b->missing_peak);
	charge_bytes(&b->cache_aware, fmax(b->fused.dram_bytes, seg_dram),
		     fmax(b->fused.l2_bytes, seg_l2), fmax(ld, st), dev);
	solar_roof_finish(&b->cache_aware);

	b->f32_emulation = b->fused.emulated_ops > 0 || b->cache_aware.emulated_ops > 0;
	for (int k = 0; k < p->nkernels; k++)
		b->f32_emulation |= b->kernel[k].emulated_ops > 0;
	/* Rule "unfused floor": the kernels as written are one execution of the program, so the
	 * fused bound holds for them too.  unfused_sum already charges the fused DRAM traffic and
	 * every kernel's ops, so this only guards against rounding. */
	if (b->fused.time_s > b->unfused.time_s) {
		b->unfused.time_s = b->fused.time_s;
		b->unfused.limiter = b->fused.limiter;
	}
	if (overflowed(b, p, diag)) {
		solar_bounds_free(b);
		return -2;
	}
	if (p->pipe_axis >= 0)
		stage_bounds(w, dev, C_start, C, b);
	return 0;
}

bool solar_kernel_runs_once(const solar_kernel *kn)
{
	return kn->group && !strcmp(kn->group, "optimizer");
}

bool solar_kernel_on_stage(const solar_program *p, int k, int s)
{
	const solar_kernel *kn = &p->kernels[k];
	if (kn->stage == s || kn->stage < 0)
		return true;
	return kn->coll && kn->coll->op == SOLAR_XOP_SEND &&
	       solar_tensor_stage(&p->tensors[kn->coll->out]) == s;
}

/* Rule "fused pipeline" (docs/bounds.md "Pipelines"), before communication: per stage, the
 * ops of its kernels (those outside the optimizer M times) and the compulsory traffic of its
 * own tensors in the whole program, with the warm-L2 allowance. */
static void stage_bounds(const solar_work *w, const solar_device *dev, double C_start, double C,
			 solar_bounds *b)
{
	const solar_program *p = w->prog;
	int P = (int)p->mesh[p->pipe_axis].value;
	double M = (double)p->microbatches;
	b->nstages = P;
	b->stage = solar_xcalloc((size_t)P, sizeof *b->stage);
	solar_tensor_data *mine = solar_xcalloc((size_t)w->total.ntensors + 1, sizeof *mine);
	for (int s = 0; s < P; s++) {
		solar_roof *r = &b->stage[s];
		solar_scope_work sub = w->total;
		sub.tensor = mine;
		sub.ntensors = 0;
		for (int i = 0; i < w->total.ntensors; i++)
			if (solar_tensor_stage(&p->tensors[w->total.tensor[i].tensor]) == s)
				mine[sub.ntensors++] = w->total.tensor[i];
		solar_count *lv = solar_scope_bytes(w, &sub, SOLAR_DATA_LOAD);
		solar_count *sv = solar_scope_bytes(w, &sub, SOLAR_DATA_STORE);
		double ld = solar_count_double(lv), st = solar_count_double(sv);
		solar_count_free(lv);
		solar_count_free(sv);
		charge_bytes(r, pos(ld - C_start) + pos(st - C), 0, 0, dev);
		for (int k = 0; k < p->nkernels; k++) {
			if (!solar_kernel_on_stage(p, k, s))
				continue;
			double m = solar_kernel_runs_once(&p->kernels[k]) ? 1 : M;
			r->ops += m * b->kernel[k].ops;
			for (int q = SOLAR_RES_OPS; q < SOLAR_RES_COUNT; q++)
				r->res_s[q] += m * b->kernel[k].res_s[q];
		}
		solar_roof_finish(r);
	}
	free(mine);
}

void solar_bounds_free(solar_bounds *b)
{
	free(b->kernel);
	b->kernel = NULL;
	free(b->stage);
	b->stage = NULL;
}
