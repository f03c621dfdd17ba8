/* fuzz_analysis.c - libFuzzer target for the whole analysis: front end -> check -> count ->
 * bounds -> graph, on AIR text.
 *
 * Every program that loads is held to what the counts and bounds promise (docs/bounds.md):
 *   counts   every count is a non-negative integer; per scope and tensor, loads <= distinct
 *            elements read and stores <= distinct elements written; the whole program's ops
 *            are the sum of its kernels' and of its statements'; its footprints lie between the
 *            largest kernel's and the kernels' sum, and its loads and stores (compulsory
 *            traffic) are at most the kernels' sum;
 *   bounds   every time and resource time is finite and >= 0; fused <= unfused ("unfused
 *            floor"), fused <= cache-aware and fused DRAM bytes <= cache-aware's ("cache-aware"
 *            is a max with compulsory), the kernels' sum <= unfused; on a device with twice the
 *            DRAM bandwidth or twice the L2 capacity no bound is higher;
 *   graph    it builds, and every edge names real statements and tensors.
 * Params above PARAM_CAP are lowered to it (with -D) so that one input stays fast; the ISL
 * operation budget of the analysis ends the rest.  The device is devices/h200-sxm.json.
 */
#include <isl/ctx.h>
#include <isl/val.h>
#include <math.h>

#include "analysis/graph.h"
#include "analysis/work.h"
#include "frontend/frontend.h"
#include "fuzz.h"
#include "roofline/roofline.h"

#define PARAM_CAP 24
static const double eps = 1e-9;

/* The device and two variants with one figure doubled, loaded once. */
enum { DEV_BASE, DEV_DRAM_BW, DEV_L2_CAP, NDEV };
static solar_device **devices(void)
{
	static solar_device *dev[NDEV];
	if (dev[0])
		return dev;
	static const char *const set[NDEV] = {NULL, "memory.dram.bandwidth_bytes_per_s",
					      "memory.l2.capacity_bytes"};
	for (int i = 0; i < NDEV; i++) {
		dev[i] = solar_device_load(SOLAR_SOURCE_DIR "/devices/h200-sxm.json",
					   fuzz_diag_stderr());
		FUZZ_REQUIRE(dev[i], "devices/h200-sxm.json does not load");
	}
	const solar_mem_level *dram = solar_device_level(dev[0], "dram"),
			      *l2 = solar_device_level(dev[0], "l2");
	FUZZ_REQUIRE(dram && l2 && l2->capacity_bytes.present, "h200-sxm.json lacks L2 capacity");
	FUZZ_REQUIRE(!solar_device_set(dev[DEV_DRAM_BW], set[DEV_DRAM_BW],
				       2 * dram->bandwidth_bytes_per_s.value, fuzz_diag_stderr()) &&
			 !solar_device_set(dev[DEV_L2_CAP], set[DEV_L2_CAP],
					   2 * l2->capacity_bytes.value, fuzz_diag_stderr()),
		     "cannot set the doubled figures");
	return dev;
}

static int sign(isl_val *v)
{
	return v ? isl_val_sgn(v) : 0;
}

/* a <= b for counts where NULL is zero. */
static bool le(isl_val *a, isl_val *b)
{
	if (!a)
		return sign(b) >= 0;
	if (!b)
		return isl_val_sgn(a) <= 0;
	return isl_val_le(a, b) == isl_bool_true;
}

static isl_val *add(isl_ctx *ctx, isl_val *sum, isl_val *v)
{
	return v ? isl_val_add(sum, isl_val_copy(v)) : sum;
}

static isl_val *max(isl_val *m, isl_val *v)
{
	return v && isl_val_gt(v, m) == isl_bool_true ? isl_val_free(m), isl_val_copy(v) : m;
}

static bool is_count(isl_val *v)
{
	return !v || (isl_val_is_int(v) == isl_bool_true && isl_val_sgn(v) >= 0);
}

static void check_ops(const solar_work *w)
{
	const solar_program *p = w->prog;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++) {
			isl_val *by_kernel = isl_val_zero(w->ctx), *by_stmt = isl_val_zero(w->ctx);
			for (int k = 0; k < p->nkernels; k++) {
				FUZZ_REQUIRE(is_count(w->kernel[k].ops.v[u][q]), "kernel %d ops", k);
				by_kernel = add(w->ctx, by_kernel, w->kernel[k].ops.v[u][q]);
			}
			for (int s = 0; s < p->nstmts; s++) {
				FUZZ_REQUIRE(is_count(w->stmt[s].ops.v[u][q]), "statement %d ops", s);
				by_stmt = add(w->ctx, by_stmt, w->stmt[s].ops.v[u][q]);
			}
			isl_val *total = w->total.ops.v[u][q];
			FUZZ_REQUIRE(le(total, by_kernel) && le(by_kernel, total),
				     "%s.%s: program ops != sum over kernels", solar_unit_name(u),
				     solar_prec_name(q));
			FUZZ_REQUIRE(le(total, by_stmt) && le(by_stmt, total),
				     "%s.%s: program ops != sum over statements", solar_unit_name(u),
				     solar_prec_name(q));
			isl_val_free(by_kernel);
			isl_val_free(by_stmt);
		}
	for (int s = 0; s < p->nstmts; s++)
		FUZZ_REQUIRE(w->stmt[s].instances && is_count(w->stmt[s].instances),
			     "statement %d: instances not a count", s);
}

/* The scope's entry for tensor t, or NULL: a scope lists only the tensors it references (the
 * others have empty footprints), in declaration order. */
static const solar_tensor_data *scope_entry(const solar_scope_work *sc, int t)
{
	for (int i = 0; i < sc->ntensors; i++)
		if (sc->tensor[i].tensor == t)
			return &sc->tensor[i];
	return NULL;
}

static void check_scope(const solar_scope_work *sc, const char *what)
{
	for (int i = 0; i < sc->ntensors; i++) {
		const solar_tensor_data *d = &sc->tensor[i];
		int t = d->tensor;
		FUZZ_REQUIRE(i == 0 || sc->tensor[i - 1].tensor < t,
			     "%s: scope entries not in declaration order", what);
		FUZZ_REQUIRE(is_count(d->read) && is_count(d->written) && is_count(d->load) &&
				 is_count(d->store),
			     "%s, tensor %d: a count is not a non-negative integer", what, t);
		FUZZ_REQUIRE(le(d->load, d->read), "%s, tensor %d: loads > distinct elements read",
			     what, t);
		FUZZ_REQUIRE(le(d->store, d->written),
			     "%s, tensor %d: stores > distinct elements written", what, t);
	}
}

static void check_data(const solar_work *w)
{
	const solar_program *p = w->prog;
	check_scope(&w->total, "program");
	for (int k = 0; k < p->nkernels; k++)
		check_scope(&w->kernel[k], p->kernels[k].name);
	for (int t = 0; t < p->ntensors; t++) {
		isl_val *sum[4], *most[4];
		for (int f = 0; f < 4; f++) {
			sum[f] = isl_val_zero(w->ctx);
			most[f] = isl_val_zero(w->ctx);
		}
		for (int k = 0; k < p->nkernels; k++) {
			const solar_tensor_data *d = scope_entry(&w->kernel[k], t);
			isl_val *v[4] = {d ? d->read : NULL, d ? d->written : NULL,
					 d ? d->load : NULL, d ? d->store : NULL};
			for (int f = 0; f < 4; f++) {
				sum[f] = add(w->ctx, sum[f], v[f]);
				most[f] = max(most[f], v[f]);
			}
		}
		const solar_tensor_data *d = scope_entry(&w->total, t);
		isl_val *v[4] = {d ? d->read : NULL, d ? d->written : NULL, d ? d->load : NULL,
				 d ? d->store : NULL};
		static const char *const field[4] = {"read", "written", "loads", "stores"};
		for (int f = 0; f < 4; f++) {
			FUZZ_REQUIRE(le(v[f], sum[f]), "tensor %s: program %s > sum over kernels",
				     p->tensors[t].name, field[f]);
			FUZZ_REQUIRE(f >= 2 || le(most[f], v[f]),
				     "tensor %s: a kernel's %s > the program's", p->tensors[t].name,
				     field[f]);
			isl_val_free(sum[f]);
			isl_val_free(most[f]);
		}
	}
}

static void check_roof(const solar_roof *r, const char *what)
{
	FUZZ_REQUIRE(isfinite(r->time_s) && r->time_s >= 0, "%s time %g", what, r->time_s);
	FUZZ_REQUIRE(r->limiter >= 0 && r->limiter < SOLAR_RES_COUNT, "%s limiter %d", what,
		     r->limiter);
	for (int i = 0; i < SOLAR_RES_COUNT; i++)
		FUZZ_REQUIRE(isfinite(r->res_s[i]) && r->res_s[i] >= 0, "%s resource %d: %g s", what,
			     i, r->res_s[i]);
	FUZZ_REQUIRE(isfinite(r->dram_bytes) && r->dram_bytes >= 0 && isfinite(r->l2_bytes) &&
			 r->l2_bytes >= 0 && isfinite(r->ops) && r->ops >= 0,
		     "%s: bytes or ops not finite and >= 0", what);
}

/* The three bounds on one device, checked; t gets unfused, fused, cache-aware. */
static void bounds(const solar_work *w, const solar_device *dev, double t[3])
{
	solar_bounds b;
	FUZZ_REQUIRE(solar_bounds_compute(w, dev, false, &b, fuzz_diag_stderr()) == 0, "no bounds");
	double sum = 0;
	for (int k = 0; k < b.nkernels; k++) {
		check_roof(&b.kernel[k], "kernel");
		sum += b.kernel[k].time_s;
	}
	check_roof(&b.unfused, "unfused");
	check_roof(&b.fused, "fused");
	check_roof(&b.cache_aware, "cache-aware");
	FUZZ_REQUIRE(b.fused.time_s <= b.unfused.time_s * (1 + eps), "fused %g > unfused %g",
		     b.fused.time_s, b.unfused.time_s);
	FUZZ_REQUIRE(b.fused.time_s <= b.cache_aware.time_s * (1 + eps),
		     "fused %g > cache-aware %g", b.fused.time_s, b.cache_aware.time_s);
	FUZZ_REQUIRE(b.fused.dram_bytes <= b.cache_aware.dram_bytes * (1 + eps),
		     "fused DRAM bytes %g > cache-aware %g", b.fused.dram_bytes,
		     b.cache_aware.dram_bytes);
	FUZZ_REQUIRE(sum <= b.unfused.time_s * (1 + eps), "kernels sum to %g > unfused %g", sum,
		     b.unfused.time_s);
	t[0] = b.unfused.time_s;
	t[1] = b.fused.time_s;
	t[2] = b.cache_aware.time_s;
	solar_bounds_free(&b);
}

static void check_bounds(const solar_work *w)
{
	solar_device **dev = devices();
	double t[NDEV][3];
	for (int i = 0; i < NDEV; i++)
		bounds(w, dev[i], t[i]);
	for (int i = 1; i < NDEV; i++)
		for (int j = 0; j < 3; j++)
			FUZZ_REQUIRE(t[i][j] <= t[0][j] * (1 + eps),
				     "bound %d rose from %g to %g on device variant %d", j, t[0][j],
				     t[i][j], i);
}

static void check_graph(const solar_program *p, solar_diag *d)
{
	solar_graph *g = solar_graph_build(p, d);
	FUZZ_REQUIRE(g, "the graph of a program that counts does not build");
	for (int i = 0; i < g->nedges; i++) {
		const solar_edge *e = &g->edges[i];
		FUZZ_REQUIRE(e->from >= 0 && e->from < p->nstmts && e->to >= -1 &&
				 e->to < p->nstmts && e->tensor >= 0 && e->tensor < p->ntensors,
			     "edge %d: %d -> %d (tensor %d)", i, e->from, e->to, e->tensor);
	}
	for (int t = 0; t < p->ntensors; t++)
		FUZZ_REQUIRE(g->tclass[t] >= SOLAR_TC_INPUT && g->tclass[t] <= SOLAR_TC_UNUSED,
			     "tensor %d class %d", t, (int)g->tclass[t]);
	solar_graph_print(g, false, fuzz_sink());
	solar_graph_print(g, true, fuzz_sink());
	solar_graph_free(g);
}

static solar_program *load(const char *src, size_t len, const solar_define *defs, int ndefs,
			   solar_diag **d)
{
	*d = solar_diag_new("fuzz.air", src, (int32_t)len, fuzz_sink());
	return solar_frontend_load("fuzz.air", src, (int32_t)len, defs, ndefs, *d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	char *src = fuzz_text(data, size);
	solar_diag *d;
	solar_program *p = load(src, size, NULL, 0, &d);
	/* Params above the cap: load again with -D NAME=PARAM_CAP. */
	solar_define *defs = p ? calloc((size_t)p->nparams + 1, sizeof *defs) : NULL;
	int ndefs = 0;
	for (int i = 0; p && i < p->nparams; i++)
		if (p->params[i].value > PARAM_CAP)
			defs[ndefs++] = (solar_define){p->params[i].name, PARAM_CAP};
	if (ndefs) {
		solar_diag *d2;
		solar_program *q = load(src, size, defs, ndefs, &d2);
		/* defs point at p's names: free p only now */
		solar_program_free(p);
		solar_diag_free(d);
		p = q;
		d = d2;
	}
	solar_math math = size && (data[0] & 1) ? SOLAR_MATH_TF32 : SOLAR_MATH_STRICT;
	solar_work *w = p ? solar_work_check_and_count(p, math, d) : NULL;
	if (w) {
		check_ops(w);
		check_data(w);
		check_bounds(w);
		check_graph(p, d);
	}
	solar_work_free(w);
	solar_diag_finish(d);
	free(defs);
	solar_program_free(p);
	solar_diag_free(d);
	free(src);
	return 0;
}
