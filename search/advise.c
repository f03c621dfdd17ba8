/* advise.c - the gap between a measured time and the speed of light, split into directions,
 * and the strategies under each with their what-if bounds (docs/advise.md).
 *
 * Input: a loaded AIR program, a device and a measured time (total, per kernel optional).
 * Output: a chain of levels from the measured time down to the speed of light,
 *
 *   L0 = measured, L1 = min(L0, unfused), L2 = min(L1, max(cache-aware, the lowest unfused
 *   bound of a fusion rewrite)), L3 = min(L2, cache-aware),
 *   L4 = min(L3, cache-aware bound of the best datapath rewrite),
 *   L5 = min(L4, cache-aware bound of the redundant-work rewrite),
 *
 * whose differences are the parts (implementation, fusion, data reuse, datapath, redundant
 * work): each is non-negative and they add up exactly to measured - L5.
 *
 * The one idea: a strategy is, where it can be, a rewrite of the program's IR (a shallow copy
 * with kernels merged, a math attribute or a dtype changed, a cast kernel added, a masked
 * statement split), printed as AIR and analysed again from that text, so a what-if bound is by
 * construction what `solar analyze` says of the emitted file.  The rewritten text goes through
 * the front end and the ISL checks like any input: a rewrite the checks reject is dropped.
 */
#include "advise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/work.h"
#include "api/detail.h"
#include "roofline/roofline.h"

static const char *const dir_names[SOLAR_DIR_COUNT] = {"implementation", "fusion", "data reuse",
						       "datapath", "redundant work"};

const char *solar_direction_name(solar_direction d)
{
	return d >= 0 && d < SOLAR_DIR_COUNT ? dir_names[d] : "?";
}

int solar_direction_parse(const char *name)
{
	for (int d = 0; d < SOLAR_DIR_COUNT; d++)
		if (!strcmp(name, dir_names[d]))
			return d;
	if (!strcmp(name, "data_reuse") || !strcmp(name, "reuse"))
		return SOLAR_DIR_DATA_REUSE;
	if (!strcmp(name, "redundant") || !strcmp(name, "redundant_work"))
		return SOLAR_DIR_REDUNDANT;
	return -1;
}

/* ---- the analysis ---------------------------------------------------------------------------
 * Every bound advise reads is a job of the API (api/detail.h), the chain every command runs:
 * the program as written runs once, on the program already loaded; each rewrite runs on its
 * AIR text, silently (a rewrite the checks reject is dropped without a word). */
static solar_job eval_job(const char *file, const solar_device *dev, const solar_advise_input *in)
{
	return (solar_job){.file = file,
			   .question = {.device = dev, .l2_cold = in->l2_cold,
					.tf32 = in->math == SOLAR_MATH_TF32}};
}

/* The numbers advise reads from a job's result.  0, or -1 when the job got no bounds. */
static int eval_result(const solar_result *r, solar_advise_eval *out)
{
	memset(out, 0, sizeof *out);
	const solar_bounds *b = r->status == SOLAR_JOB_OK ? solar_result_bounds(r) : NULL;
	if (!b)
		return -1;
	const solar_program *p = solar_result_program(r);
	const solar_work *w = solar_result_work(r);
	out->unfused_s = b->unfused.time_s;
	out->fused_s = b->fused.time_s;
	out->cache_aware_s = b->cache_aware.time_s;
	out->limiter_unfused = b->unfused.limiter;
	out->limiter_cache_aware = b->cache_aware.limiter;
	out->unfused_dram_bytes = b->unfused.dram_bytes;
	out->fused_dram_bytes = b->fused.dram_bytes;
	out->cache_aware_dram_bytes = b->cache_aware.dram_bytes;
	out->capacity_bytes = b->capacity_dram_bytes;
	out->nkernels = b->nkernels;
	out->kernel_s = solar_xcalloc((size_t)b->nkernels + 1, sizeof *out->kernel_s);
	for (int k = 0; k < b->nkernels; k++)
		out->kernel_s[k] = b->kernel[k].time_s;
	for (int q = 0; q < SOLAR_PREC_COUNT; q++) {
		out->uses_tensor |=
			b->fused.res_s[SOLAR_RES_OPS + SOLAR_UNIT_TENSOR * SOLAR_PREC_COUNT + q] > 0;
		out->uses_sfu |= b->fused.res_s[SOLAR_RES_OPS + SOLAR_UNIT_SFU * SOLAR_PREC_COUNT + q] > 0;
	}
	for (int i = 0; i < p->nstmts; i++)
		out->has_reduction |= p->stmts[i]->op != SOLAR_ASSIGN && !w->stmt[i].contraction;
	return 0;
}

/* The bounds of a rewrite's text (named file).  0, or -1 when it does not load, check, count
 * or bound. */
static int eval_text(const char *file, const char *text, const solar_device *dev,
		     const solar_advise_input *in, solar_advise_eval *out)
{
	solar_job job = eval_job(file, dev, in);
	job.source = text;
	solar_result *r = solar_job_run_with(&job, NULL);
	int rc = eval_result(r, out);
	solar_result_free(r);
	return rc;
}

void solar_advise_eval_free(solar_advise_eval *e)
{
	free(e->kernel_s);
	e->kernel_s = NULL;
}

/* ---- rewrites ----------------------------------------------------------------------------------
 * A rewrite is a shallow copy of the program whose changed tables live in its own arena; the
 * original IR is never modified.  Params are printed with their current values as defaults,
 * so an emitted file analyses alone, without the -D of the original. */
typedef struct {
	solar_program q;
	solar_arena *a;
	solar_math cli; /* advise's --math */
} rewrite;

/* A copy of a table of n entries with room for `more` (and one more) in the arena; tables may
 * be empty. */
static void *table_grow(solar_arena *a, const void *t, size_t size, int n, int more)
{
	void *c = solar_arena_alloc(a, size * (size_t)(n + more + 1));
	if (n > 0)
		memcpy(c, t, size * (size_t)n);
	return c;
}

static void *table_copy(solar_arena *a, const void *t, size_t size, int n)
{
	return table_grow(a, t, size, n, 0);
}

/* The IR a rewrite builds, in its arena (which zeroes what it gives). */
static solar_expr *new_expr(solar_arena *a, solar_expr_kind kind)
{
	solar_expr *e = solar_arena_alloc(a, sizeof *e);
	e->kind = kind;
	return e;
}

static solar_node *stmt_node(solar_arena *a, solar_stmt *st)
{
	solar_node *n = solar_arena_alloc(a, sizeof *n);
	n->kind = SOLAR_N_STMT;
	n->stmt = st;
	return n;
}

/* `for ITER in 0..EXTENT`, its body empty; joined: written in its parent's header. */
static solar_node *loop_node(solar_arena *a, int iter, int64_t extent, bool joined)
{
	solar_node *f = solar_arena_alloc(a, sizeof *f);
	f->kind = SOLAR_N_FOR;
	f->loop.iter = iter;
	f->loop.lo = new_expr(a, SOLAR_E_INT);
	f->loop.hi = new_expr(a, SOLAR_E_INT);
	f->loop.hi->ival = extent;
	f->loop.step_value = 1;
	f->loop.joined = joined;
	return f;
}

/* b holds n alone. */
static void one_node(solar_arena *a, solar_block *b, solar_node *n)
{
	b->items = solar_arena_alloc(a, sizeof(solar_node *));
	b->items[0] = n;
	b->n = 1;
}

static void rw_begin(rewrite *r, const solar_program *p, solar_math cli)
{
	r->a = solar_arena_new();
	r->cli = cli;
	r->q = *p;
	r->q.kernels = table_copy(r->a, p->kernels, sizeof *p->kernels, p->nkernels);
	r->q.tensors = table_copy(r->a, p->tensors, sizeof *p->tensors, p->ntensors);
	r->q.params = table_copy(r->a, p->params, sizeof *p->params, p->nparams);
	r->q.iters = table_copy(r->a, p->iters, sizeof *p->iters, p->niters);
	for (int i = 0; i < r->q.nparams; i++) {
		r->q.params[i].has_default = true;
		r->q.params[i].default_value = r->q.params[i].value;
	}
}


/* --math tf32 given to advise: the rewrite says it on every kernel without an attribute, so
 * the emitted file analyses the same without the option. */
static void rw_cli_math(rewrite *r, solar_math cli)
{
	for (int k = 0; cli == SOLAR_MATH_TF32 && k < r->q.nkernels; k++)
		if (r->q.kernels[k].math == SOLAR_MATH_DEFAULT) {
			r->q.kernels[k].math = SOLAR_MATH_TF32;
			r->q.kernels[k].implicit = false; /* an attribute needs a kernel block */
		}
}

/* The rewrite's text (malloc'd), with a comment saying what was rewritten. */
static char *rw_text(rewrite *r, const char *file, const char *what)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	fprintf(m, "# solar advise: %s, rewritten from %s\n", what, file);
	rw_cli_math(r, r->cli);
	solar_ir_print(&r->q, m);
	fclose(m);
	solar_arena_free(r->a);
	r->a = NULL;
	return text;
}

static solar_math kernel_math(const solar_program *p, int k, solar_math cli)
{
	return p->kernels[k].math != SOLAR_MATH_DEFAULT ? p->kernels[k].math : cli;
}

static bool name_taken(const solar_program *p, const char *name)
{
	for (int k = 0; k < p->nkernels; k++)
		if (!strcmp(p->kernels[k].name, name))
			return true;
	return false;
}

/* Merges kernels [lo, hi] into one kernel that runs their bodies in order.  Fails (false)
 * when their math modes differ: one kernel has one mode. */
static bool rw_merge(rewrite *r, int lo, int hi, solar_math cli)
{
	solar_program *q = &r->q;
	solar_math m = kernel_math(q, lo, cli);
	int items = 0;
	for (int k = lo; k <= hi; k++) {
		if (kernel_math(q, k, cli) != m)
			return false;
		items += q->kernels[k].body.n;
	}
	solar_kernel merged = q->kernels[lo];
	merged.implicit = false;
	merged.math = m == cli ? q->kernels[lo].math : m;
	merged.body.items = solar_arena_alloc(r->a, sizeof(solar_node *) * (size_t)(items + 1));
	merged.body.n = 0;
	for (int k = lo; k <= hi; k++)
		for (int i = 0; i < q->kernels[k].body.n; i++)
			merged.body.items[merged.body.n++] = q->kernels[k].body.items[i];
	char name[96];
	snprintf(name, sizeof name, "%s_to_%s", q->kernels[lo].name, q->kernels[hi].name);
	for (int n = 2; name_taken(q, name); n++)
		snprintf(name, sizeof name, "%s_to_%s_%d", q->kernels[lo].name, q->kernels[hi].name, n);
	merged.name = solar_arena_strdup(r->a, name);
	q->kernels[lo] = merged;
	memmove(&q->kernels[lo + 1], &q->kernels[hi + 1],
		sizeof *q->kernels * (size_t)(q->nkernels - hi - 1));
	q->nkernels -= hi - lo;
	return true;
}

/* The kernels that write (bit 0) and read (bit 1) each tensor: uses[t * nk + k]. */
static void expr_reads(const solar_expr *e, unsigned char *uses, int nk, int k)
{
	if (e->kind == SOLAR_E_ACCESS)
		uses[e->sym * nk + k] |= 2;
	for (int i = 0; i < e->nargs; i++)
		expr_reads(e->args[i], uses, nk, k);
}

static unsigned char *tensor_uses(const solar_program *p)
{
	int nk = p->nkernels;
	unsigned char *uses = solar_xcalloc((size_t)(p->ntensors * nk + 1), 1);
	for (int i = 0; i < p->nstmts; i++) {
		const solar_stmt *s = p->stmts[i];
		uses[s->tensor * nk + s->kernel] |= 1;
		if (s->op != SOLAR_ASSIGN)
			uses[s->tensor * nk + s->kernel] |= 2;
		expr_reads(s->value, uses, nk, s->kernel);
	}
	return uses;
}

static bool expr_is_free(const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!expr_is_free(e->args[i]))
			return false;
	return true;
}

/* ---- strategies -------------------------------------------------------------------------- */

typedef struct {
	const char *file;
	const solar_program *p;
	const solar_device *dev;
	const solar_advise_input *in;
	solar_advice *adv;
	solar_diag *diag;
} ctx;

static solar_strategy *add_strategy(solar_advice_dir *d)
{
	if (d->nstrat >= SOLAR_ADVISE_MAX_STRATEGIES)
		return NULL;
	solar_strategy *s = &d->strat[d->nstrat++];
	memset(s, 0, sizeof *s);
	return s;
}

/* A strategy that is no rewrite leaves the program as written: its what-if bounds are the
 * program's own. */
static void as_written(solar_strategy *s, const solar_advise_eval *b)
{
	s->what_if_bound_s = b->unfused_s;
	s->what_if_cache_aware_s = b->cache_aware_s;
	s->what_if_sol_s = b->fused_s;
}

/* Constant efficiency: the step keeps the implementation's measured / bound, so it can win
 * measured x (1 - new bound / old bound) (docs/advise.md "what a step can win"). */
static double scaled_gain(const ctx *c, double old_bound_s, double new_bound_s)
{
	if (old_bound_s <= 0 || new_bound_s >= old_bound_s)
		return 0;
	return c->in->measured_s * (1 - new_bound_s / old_bound_s);
}

/* Analyses a rewrite's text and files it as a strategy of direction d; frees the text when
 * the rewrite is dropped (it does not check, or it wins nothing). */
static solar_strategy *file_rewrite(ctx *c, solar_direction dir, char *text, const char *name,
				    const char *emit, const char *why)
{
	solar_advise_eval ev;
	if (eval_text(emit, text, c->dev, c->in, &ev) < 0) {
		free(text);
		return NULL;
	}
	solar_advice_dir *d = &c->adv->dir[dir];
	solar_strategy *s = add_strategy(d);
	if (!s) {
		free(text);
		solar_advise_eval_free(&ev);
		return NULL;
	}
	snprintf(s->name, sizeof s->name, "%s", name);
	snprintf(s->why, sizeof s->why, "%s", why);
	snprintf(s->emit_name, sizeof s->emit_name, "%s", emit);
	s->rewrite = true;
	s->air = text;
	s->what_if_bound_s = ev.unfused_s;
	s->what_if_sol_s = ev.fused_s;
	s->what_if_cache_aware_s = ev.cache_aware_s;
	s->gain_s = scaled_gain(c, c->adv->base.unfused_s, ev.unfused_s);
	solar_advise_eval_free(&ev);
	return s;
}

/* A kernel that only moves data (rule "copy kernel", docs/advise.md): every statement stores a
 * read of another tensor (perhaps cast) or a literal into a tmp.  Its work is redundant: the
 * consumer can read the source in place. */
static bool is_copy_value(const solar_expr *e)
{
	if (e->kind == SOLAR_E_CAST)
		return is_copy_value(e->args[0]);
	return e->kind == SOLAR_E_ACCESS || e->kind == SOLAR_E_INT || e->kind == SOLAR_E_FLOAT;
}

static bool *copy_kernels(const solar_program *p)
{
	bool *copy = solar_xcalloc((size_t)p->nkernels + 1, 1);
	for (int k = 0; k < p->nkernels; k++)
		copy[k] = p->kernels[k].nstmts > 0;
	for (int i = 0; i < p->nstmts; i++) {
		const solar_stmt *s = p->stmts[i];
		bool reads_access = false;
		const solar_expr *v = s->value;
		while (v->kind == SOLAR_E_CAST)
			v = v->args[0];
		reads_access = v->kind == SOLAR_E_ACCESS;
		if (s->op != SOLAR_ASSIGN || !is_copy_value(s->value) ||
		    p->tensors[s->tensor].role != SOLAR_ROLE_TMP || (reads_access && v->sym == s->tensor))
			copy[s->kernel] = false;
	}
	return copy;
}

#define MAX_FUSION_REWRITES 12
#define MAX_RANGE_KERNELS 512

static double tensor_bytes(const solar_tensor *t)
{
	return (double)solar_tensor_elements(t) * solar_dtype_bytes(t->dtype);
}

/* Whether s is a contraction (under its kernel's math mode); if it is, operands[t] is nonzero
 * for each tensor it reads besides the one it writes (ntensors entries, cleared here). */
static bool contraction_operands(const ctx *c, const solar_stmt *s, unsigned char *operands)
{
	const solar_program *p = c->p;
	bool contr = false;
	int rd = 0;
	solar_stmt_op_mix(p, s, kernel_math(p, s->kernel, c->in->math), &contr, &rd);
	if (!contr)
		return false;
	memset(operands, 0, (size_t)p->ntensors + 1);
	expr_reads(s->value, operands, 1, 0);
	operands[s->tensor] = 0;
	return true;
}

/* The candidate kernel ranges of the fusion rewrites, deduplicated: range (lo, hi) at index
 * lo * nk + hi, with a name (NULL: no candidate) and a priority (the bytes of the largest tmp
 * it keeps on chip; "fuse all kernels" first). */
typedef struct {
	int nk;
	unsigned char *uses; /* tensor_uses */
	bool *copy_k;        /* copy_kernels */
	bool *contr_operand; /* the tensors some contraction reads */
	int ncontr;          /* the contraction statements */
	char **label;
	double *prio;
} fusion_ranges;

static void ranges_begin(const ctx *c, fusion_ranges *f)
{
	const solar_program *p = c->p;
	int nk = f->nk = p->nkernels;
	f->uses = tensor_uses(p);
	f->copy_k = copy_kernels(p);
	f->contr_operand = solar_xcalloc((size_t)p->ntensors + 1, 1);
	f->ncontr = 0;
	unsigned char *ops = solar_xcalloc((size_t)p->ntensors + 1, 1);
	for (int i = 0; i < p->nstmts; i++)
		if (contraction_operands(c, p->stmts[i], ops)) {
			f->ncontr++;
			for (int t = 0; t < p->ntensors; t++)
				f->contr_operand[t] |= ops[t] != 0;
		}
	free(ops);
	f->label = solar_xcalloc((size_t)nk * (size_t)nk, sizeof *f->label);
	f->prio = solar_xcalloc((size_t)nk * (size_t)nk, sizeof *f->prio);
	f->label[nk - 1] = solar_xstrdup("fuse all kernels");
	f->prio[nk - 1] = INFINITY;
}

static void ranges_end(fusion_ranges *f)
{
	for (int i = 0; i < f->nk * f->nk; i++)
		free(f->label[i]);
	free(f->label);
	free(f->prio);
	free(f->uses);
	free(f->contr_operand);
	free(f->copy_k);
}

/* For each tmp, the kernels from its first writer to its last reader ("keep T on chip"). */
static void tmp_ranges(const solar_program *p, fusion_ranges *f)
{
	int nk = f->nk;
	for (int t = 0; t < p->ntensors; t++) {
		if (p->tensors[t].role != SOLAR_ROLE_TMP)
			continue;
		int lo = -1, hi = -1;
		for (int k = 0; k < nk; k++)
			if (f->uses[t * nk + k]) {
				if (lo < 0)
					lo = k;
				hi = k;
			}
		if (lo < 0 || lo == hi || f->copy_k[lo])
			continue; /* a copy's tmp: redundant work (redundant_strategies) */
		int i = lo * nk + hi;
		char buf[160];
		if (f->label[i]) {
			snprintf(buf, sizeof buf, "%s, %s", f->label[i], p->tensors[t].name);
			free(f->label[i]);
		} else {
			snprintf(buf, sizeof buf, "keep on chip: %s", p->tensors[t].name);
		}
		f->label[i] = solar_xstrdup(buf);
		double bytes = tensor_bytes(&p->tensors[t]);
		f->prio[i] = bytes > f->prio[i] ? bytes : f->prio[i];
	}
}

/* Each adjacent pair of kernels that passes a tmp. */
static void pair_ranges(const solar_program *p, fusion_ranges *f)
{
	int nk = f->nk;
	for (int k = 0; k + 1 < nk; k++) {
		bool passes = false;
		for (int t = 0; t < p->ntensors && !passes; t++)
			passes = p->tensors[t].role == SOLAR_ROLE_TMP && (f->uses[t * nk + k] & 1) &&
				 (f->uses[t * nk + k + 1] & 2);
		int i = k * nk + k + 1;
		if (passes && !f->label[i] && !f->copy_k[k])
			f->label[i] = solar_xstrdup("fuse the pair");
	}
}

/* Takes the candidate of highest priority left: its index, or -1 when none is left. */
static int take_range(fusion_ranges *f)
{
	int pick = -1;
	for (int i = 0; i < f->nk * f->nk; i++)
		if (f->label[i] && f->prio[i] >= 0 && (pick < 0 || f->prio[i] > f->prio[pick]))
			pick = i;
	if (pick >= 0)
		f->prio[pick] = -1;
	return pick;
}

/* Rule "tiled reuse" (docs/advise.md): a tmp kept on chip by fusing lo..hi that is larger
 * than the chip holds and feeds a contraction can only stay on chip in tiles consumed as they
 * are made (flash attention): data reuse, not fusion.  Its name, or NULL. */
static const char *tiled_tmp(const ctx *c, const fusion_ranges *f, int lo, int hi)
{
	const solar_program *p = c->p;
	double cap = c->adv->base.capacity_bytes;
	int nk = f->nk;
	for (int t = 0; t < p->ntensors; t++) {
		if (p->tensors[t].role != SOLAR_ROLE_TMP || !f->contr_operand[t])
			continue;
		bool inside = true, used = false;
		for (int k = 0; k < nk; k++) {
			used |= f->uses[t * nk + k] && k >= lo && k <= hi;
			inside &= !f->uses[t * nk + k] || (k >= lo && k <= hi);
		}
		if (used && inside && cap > 0 && tensor_bytes(&p->tensors[t]) > cap)
			return p->tensors[t].name;
	}
	return NULL;
}

/* The rewrite that merges kernels lo..hi (candidate `label`): a fusion strategy, or one of
 * data reuse when a tmp it keeps stays on chip only in tiles. */
static void fuse_range(ctx *c, const fusion_ranges *f, int lo, int hi, const char *label)
{
	const solar_program *p = c->p;
	const char *first = p->kernels[lo].name, *last = p->kernels[hi].name;
	char name[160], emit[64], why[240];
	rewrite r;
	rw_begin(&r, p, c->in->math);
	bool ok = rw_merge(&r, lo, hi, c->in->math);
	if (lo == 0 && hi == f->nk - 1)
		snprintf(name, sizeof name, "fuse all kernels (%s..%s)", first, last);
	else if (!strncmp(label, "keep", 4))
		snprintf(name, sizeof name, "%s (fuse %s..%s)", label, first, last);
	else
		snprintf(name, sizeof name, "fuse kernels %s..%s", first, last);
	snprintf(emit, sizeof emit, "fuse_%s_%s.air", first, last);
	snprintf(why, sizeof why, "AIR rewrite: kernels %s..%s merged into one kernel, whose "
				  "intermediates need not reach DRAM",
		 first, last);
	const char *big = tiled_tmp(c, f, lo, hi);
	if (big)
		snprintf(why + strlen(why), sizeof why - strlen(why),
			 "; %s exceeds the on-chip capacity and feeds a contraction, so it stays on "
			 "chip only in tiles (flash-style)",
			 big);
	if (ok)
		file_rewrite(c, big ? SOLAR_DIR_DATA_REUSE : SOLAR_DIR_FUSION,
			     rw_text(&r, c->file, name), name, emit, why);
	else
		solar_arena_free(r.a);
}

/* A library path: attention (two contractions around an exp) is what SDPA's flash kernel
 * fuses; it carries the bound of the full fusion. */
static void flash_attention_path(ctx *c, int ncontr)
{
	const solar_strategy *fa = NULL;
	solar_advice_dir *d = NULL;
	for (int dd = SOLAR_DIR_FUSION; dd <= SOLAR_DIR_DATA_REUSE; dd++)
		for (int i = 0; i < c->adv->dir[dd].nstrat; i++)
			if (!strncmp(c->adv->dir[dd].strat[i].name, "fuse all", 8)) {
				fa = &c->adv->dir[dd].strat[i];
				d = &c->adv->dir[dd];
			}
	if (ncontr < 2 || !c->adv->base.uses_sfu || !fa)
		return;
	solar_strategy all = *fa;
	solar_strategy *s = add_strategy(d);
	if (!s)
		return;
	*s = all;
	s->air = NULL;
	s->rewrite = false;
	s->emit_name[0] = '\0';
	snprintf(s->name, sizeof s->name, "library path: flash attention "
					  "(F.scaled_dot_product_attention)");
	snprintf(s->why, sizeof s->why, "no AIR rewrite: carries the bound of the rewrite '%.150s'",
		 all.name);
}

/* Fusion: every kernel into one; each adjacent pair that passes a tmp; for each tmp, the
 * kernels from its first writer to its last reader ("keep T on chip").  Only the
 * MAX_FUSION_REWRITES candidates of highest priority are analysed, and a program of more than
 * MAX_RANGE_KERNELS kernels gets only "fuse all kernels" (each rewrite is a whole analysis);
 * a range of copy kernels only is the copy's rewrite (redundant work). */
static void fusion_strategies(ctx *c)
{
	const solar_program *p = c->p;
	if (p->nkernels < 2)
		return;
	fusion_ranges f;
	ranges_begin(c, &f);
	if (f.nk <= MAX_RANGE_KERNELS) {
		tmp_ranges(p, &f);
		pair_ranges(p, &f);
	}
	for (int n = 0; n < MAX_FUSION_REWRITES; n++) {
		int pick = take_range(&f);
		if (pick < 0)
			break;
		int lo = pick / f.nk, hi = pick % f.nk;
		bool only_copies = true;
		for (int k = lo; k < hi; k++)
			only_copies &= f.copy_k[k];
		if (!only_copies)
			fuse_range(c, &f, lo, hi, f.label[pick]);
	}
	int ncontr = f.ncontr;
	ranges_end(&f);
	flash_attention_path(c, ncontr);
}

/* Datapath: f32 contractions on SIMT -> TF32 tensor cores (tol >= 1e-3); f32 contraction
 * operands -> bf16 (tol >= 1e-2): tmps change dtype, inputs get a cast kernel. */
#define TF32_TOL 1e-3
#define BF16_TOL 1e-2
#define F32_TOL 1e-5

/* What the datapath rewrites may change: the kernels whose f32 contractions may run on TF32
 * tensor cores, the tensors that may be stored in bf16, and how many f64 tmps may be f32. */
typedef struct {
	bool *tf32_k, *bf16_t;
	int n_tf32, n_bf16, n_f64;
} datapath_plan;

/* The f32 operands of contractions: their kernels may go to TF32, they to bf16. */
static void contraction_datapaths(const ctx *c, datapath_plan *d)
{
	const solar_program *p = c->p;
	unsigned char *ops = solar_xcalloc((size_t)p->ntensors + 1, 1);
	for (int i = 0; i < p->nstmts; i++) {
		const solar_stmt *s = p->stmts[i];
		if (!contraction_operands(c, s, ops))
			continue;
		solar_math m = kernel_math(p, s->kernel, c->in->math);
		for (int t = 0; t < p->ntensors; t++)
			if (ops[t] && p->tensors[t].dtype == SOLAR_DT_F32 && p->tensors[t].rank > 0) {
				if (m != SOLAR_MATH_TF32 && !d->tf32_k[s->kernel]) {
					d->tf32_k[s->kernel] = true;
					d->n_tf32++;
				}
				if (!d->bf16_t[t]) {
					d->bf16_t[t] = true;
					d->n_bf16++;
				}
			}
	}
	free(ops);
}

/* f32 (and f64) intermediates that are no accumulator (written by `=` only) may be stored in
 * bf16 too: half the traffic of a memory-bound chain; accumulators stay.  f64 tmps, the
 * accumulators too, may be f32 (f32 suffices at 1e-5). */
static void intermediate_datapaths(const solar_program *p, datapath_plan *d)
{
	bool *accum = solar_xcalloc((size_t)p->ntensors + 1, 1);
	for (int i = 0; i < p->nstmts; i++)
		accum[p->stmts[i]->tensor] |= p->stmts[i]->op != SOLAR_ASSIGN;
	for (int t = 0; t < p->ntensors; t++) {
		const solar_tensor *x = &p->tensors[t];
		if (x->role != SOLAR_ROLE_TMP)
			continue;
		d->n_f64 += x->dtype == SOLAR_DT_F64;
		if (!accum[t] && (x->dtype == SOLAR_DT_F32 || x->dtype == SOLAR_DT_F64) &&
		    !d->bf16_t[t]) {
			d->bf16_t[t] = true;
			d->n_bf16++;
		}
	}
	free(accum);
}

/* The changes of the datapath rewrites, on r (a copy of c->p). */
static void to_f32(const ctx *c, rewrite *r, const datapath_plan *d)
{
	(void)c, (void)d;
	for (int t = 0; t < r->q.ntensors; t++)
		if (r->q.tensors[t].role == SOLAR_ROLE_TMP && r->q.tensors[t].dtype == SOLAR_DT_F64)
			r->q.tensors[t].dtype = SOLAR_DT_F32;
}

static void to_tf32(const ctx *c, rewrite *r, const datapath_plan *d)
{
	(void)c;
	for (int k = 0; k < r->q.nkernels; k++)
		if (d->tf32_k[k])
			r->q.kernels[k].math = SOLAR_MATH_TF32;
}

/* Input t read in bf16: its declaration moves to a new entry (name and dtype kept), entry t
 * becomes the tmp NAME_bf16 that every existing read (sym t) now reads, and the kernel
 * returned makes it:
 *   kernel cast_NAME { for NAME_i0 in 0..E0, .. { NAME_bf16[NAME_i0, ..] = bf16(NAME[..]); } }
 * The tensor and iterator tables of r have room for the new entries. */
static solar_kernel cast_input(rewrite *r, int t, const solar_tensor *orig, int *group)
{
	solar_program *q = &r->q;
	int copy = q->ntensors++;
	q->tensors[copy] = *orig;
	q->tensors[copy].decl_group = ++*group;
	char nm[1100];
	snprintf(nm, sizeof nm, "%s_bf16", orig->name);
	q->tensors[t].name = solar_arena_strdup(r->a, nm);
	q->tensors[t].role = SOLAR_ROLE_TMP;
	q->tensors[t].dtype = SOLAR_DT_BF16;
	q->tensors[t].decl_group = ++*group;
	solar_expr **idx = solar_arena_alloc(r->a, sizeof *idx * (size_t)(orig->rank + 1));
	solar_node *outer = NULL, *parent = NULL;
	for (int dd = 0; dd < orig->rank; dd++) {
		snprintf(nm, sizeof nm, "%s_i%d", orig->name, dd);
		q->iters[q->niters].name = solar_arena_strdup(r->a, nm);
		idx[dd] = new_expr(r->a, SOLAR_E_ITER);
		idx[dd]->sym = q->niters;
		solar_node *f = loop_node(r->a, q->niters++, orig->extent[dd], dd > 0);
		if (parent)
			one_node(r->a, &parent->loop.body, f);
		else
			outer = f;
		parent = f;
	}
	solar_expr *rd = new_expr(r->a, SOLAR_E_ACCESS);
	rd->sym = copy;
	rd->args = idx;
	rd->nargs = orig->rank;
	solar_expr *cast = new_expr(r->a, SOLAR_E_CAST);
	cast->dtype = SOLAR_DT_BF16;
	cast->args = solar_arena_alloc(r->a, sizeof(solar_expr *));
	cast->args[0] = rd;
	cast->nargs = 1;
	solar_stmt *st = solar_arena_alloc(r->a, sizeof *st);
	st->tensor = t;
	st->index = idx;
	st->op = SOLAR_ASSIGN;
	st->value = cast;
	one_node(r->a, &parent->loop.body, stmt_node(r->a, st));
	solar_kernel k = {0};
	snprintf(nm, sizeof nm, "cast_%s", orig->name);
	k.name = solar_arena_strdup(r->a, nm);
	one_node(r->a, &k.body, outer);
	return k;
}

/* bf16 storage: tmps change dtype; each input read in bf16 gets a cast kernel, before every
 * other kernel (accumulators stay as they are). */
static void to_bf16(const ctx *c, rewrite *r, const datapath_plan *d)
{
	const solar_program *p = c->p;
	solar_program *q = &r->q;
	int ncast = 0, rank_sum = 0, group = 0;
	for (int t = 0; t < p->ntensors; t++) {
		ncast += d->bf16_t[t] && p->tensors[t].role != SOLAR_ROLE_TMP;
		rank_sum += d->bf16_t[t] ? p->tensors[t].rank : 0;
		group = p->tensors[t].decl_group > group ? p->tensors[t].decl_group : group;
	}
	q->tensors = table_grow(r->a, q->tensors, sizeof *q->tensors, q->ntensors, ncast);
	q->iters = table_grow(r->a, q->iters, sizeof *q->iters, q->niters, rank_sum);
	solar_kernel *ks = solar_arena_alloc(r->a, sizeof *ks * (size_t)(q->nkernels + ncast + 1));
	int nc = 0;
	for (int t = 0; t < p->ntensors; t++) {
		if (!d->bf16_t[t])
			continue;
		if (p->tensors[t].role == SOLAR_ROLE_TMP) {
			q->tensors[t].dtype = SOLAR_DT_BF16;
			q->tensors[t].decl_group = ++group;
		} else {
			ks[nc++] = cast_input(r, t, &p->tensors[t], &group);
		}
	}
	memcpy(ks + nc, q->kernels, sizeof *ks * (size_t)q->nkernels);
	q->kernels = ks;
	q->nkernels += nc;
}

/* The datapath rewrites, in the order they are filed: each is allowed from a tolerance on. */
static const struct {
	double tol;
	const char *name, *unit; /* "NAME (N UNITs)" */
	const char *what, *tail; /* why: "AIR rewrite: WHAT; allowed because --tol .. >= TOLTAIL" */
	const char *emit;
	void (*change)(const ctx *c, rewrite *r, const datapath_plan *d);
} datapath_rewrites[] = {
	{F32_TOL, "f32 instead of f64 for the intermediates", "tensor",
	 "f64 tmps stored and computed in f32", "", "f32.air", to_f32},
	{TF32_TOL, "TF32 tensor cores for the f32 contractions", "kernel",
	 "[math = tf32] on the kernels", " (TF32 keeps 10 mantissa bits)", "tf32.air", to_tf32},
	{BF16_TOL, "bf16 tensor cores and storage", "tensor",
	 "f32 contraction operands and intermediates in bf16 (inputs get a cast kernel, "
	 "accumulators stay)",
	 "", "bf16.air", to_bf16},
};

/* Files datapath rewrite i, which changes n tensors or kernels. */
static void datapath_rewrite(ctx *c, const datapath_plan *d, int i, int n)
{
	rewrite r;
	rw_begin(&r, c->p, c->in->math);
	datapath_rewrites[i].change(c, &r, d);
	char name[160], why[240];
	snprintf(name, sizeof name, "%s (%d %s%s)", datapath_rewrites[i].name, n,
		 datapath_rewrites[i].unit, n == 1 ? "" : "s");
	snprintf(why, sizeof why, "AIR rewrite: %s; allowed because --tol %.3g >= %.0e%s",
		 datapath_rewrites[i].what, c->in->tol, datapath_rewrites[i].tol,
		 datapath_rewrites[i].tail);
	file_rewrite(c, SOLAR_DIR_DATAPATH, rw_text(&r, c->file, name), name,
		     datapath_rewrites[i].emit, why);
}

/* An SFU-limited program: the bound already lets a transcendental use the FMA pipes
 * (docs/bounds.md "special functions"); only a software exp reaches it. */
static void sfu_strategy(ctx *c)
{
	char rb[48];
	solar_resource_name(c->adv->base.limiter_cache_aware, rb, sizeof rb);
	if (strncmp(rb, "sfu", 3))
		return;
	solar_strategy *s = add_strategy(&c->adv->dir[SOLAR_DIR_DATAPATH]);
	if (!s)
		return;
	snprintf(s->name, sizeof s->name, "exp on the FMA pipes (polynomial exp2, as "
					  "FlashAttention-4)");
	snprintf(s->why, sizeof s->why, "no AIR rewrite: the bound already charges transcendentals "
					"at SFU + FMA rate (docs/bounds.md #special-functions); an "
					"SFU-only exp cannot reach it");
	as_written(s, &c->adv->base);
}

/* Each datapath rewrite that --tol allows, then the SFU note. */
static void datapath_strategies(ctx *c)
{
	const solar_program *p = c->p;
	datapath_plan d = {solar_xcalloc((size_t)p->nkernels + 1, 1),
			   solar_xcalloc((size_t)p->ntensors + 1, 1), 0, 0, 0};
	contraction_datapaths(c, &d);
	intermediate_datapaths(p, &d);
	int n[] = {d.n_f64, d.n_tf32, d.n_bf16};
	_Static_assert(sizeof n / sizeof *n == sizeof datapath_rewrites / sizeof *datapath_rewrites,
		       "one count per datapath rewrite");
	for (int i = 0; i < (int)(sizeof n / sizeof *n); i++)
		if (n[i] && c->in->tol >= datapath_rewrites[i].tol)
			datapath_rewrite(c, &d, i, n[i]);
	free(d.tf32_k);
	free(d.bf16_t);
	sfu_strategy(c);
}

/* Replaces the node of statement s under block b by `with`, copying the nodes on the path
 * (the original IR is shared and stays as it was).  False when s is not under b. */
static bool replace_stmt(solar_arena *a, solar_block *b, const solar_stmt *s, solar_node *with)
{
	for (int j = 0; j < b->n; j++) {
		solar_node *n = b->items[j], *copy = NULL;
		if (n->kind == SOLAR_N_STMT) {
			if (n->stmt != s)
				continue;
			copy = with;
		} else {
			copy = solar_arena_memdup(a, n, sizeof *n);
			bool found = n->kind == SOLAR_N_FOR
					     ? replace_stmt(a, &copy->loop.body, s, with)
					     : replace_stmt(a, &copy->cond.then, s, with) ||
						       replace_stmt(a, &copy->cond.els, s, with);
			if (!found)
				continue;
		}
		b->items = solar_arena_memdup(a, b->items, sizeof *b->items * (size_t)b->n);
		b->items[j] = copy;
		return true;
	}
	return false;
}

/* A node `if COND { THEN } else { ELSE }` (no else arm when else_s is NULL), in a's memory. */
static solar_node *if_node(solar_arena *a, solar_expr *cond, solar_stmt *then_s, solar_stmt *else_s)
{
	solar_node *ifn = solar_arena_alloc(a, sizeof *ifn);
	ifn->kind = SOLAR_N_IF;
	ifn->cond.cond = cond;
	solar_block *arm[2] = {&ifn->cond.then, &ifn->cond.els};
	solar_stmt *st[2] = {then_s, else_s};
	for (int k = 0; k < 2; k++) {
		arm[k]->n = 0;
		if (st[k])
			one_node(a, arm[k], stmt_node(a, st[k]));
	}
	return ifn;
}

/* Redundant work: a statement T[..] = select(COND, A, B) whose COND reads no tensor computes
 * A for every element although only COND's elements keep it.  The rewrite splits it into
 * `if COND { T = A } else { T = B }`, so A's work is charged on COND's elements only.  That is
 * all it measures (docs/advise.md): work upstream of A (a full score matrix before a causal
 * mask) and recomputation are not found. */
static void copy_strategies(ctx *c)
{
	const solar_program *p = c->p;
	int nk = p->nkernels;
	bool *copy_k = copy_kernels(p);
	unsigned char *uses = tensor_uses(p);
	int n = 0;
	for (int k = 0; k < nk && n < MAX_FUSION_REWRITES; k++) {
		if (!copy_k[k])
			continue;
		/* the kernels from the copy to the last reader of what it wrote */
		int hi = k;
		for (int i = p->kernels[k].first_stmt;
		     i < p->kernels[k].first_stmt + p->kernels[k].nstmts; i++)
			for (int j = k + 1; j < nk; j++)
				if (uses[p->stmts[i]->tensor * nk + j] && j > hi)
					hi = j;
		if (hi == k)
			continue; /* nobody reads it: dead, and the counts already charge nothing */
		rewrite r;
		rw_begin(&r, p, c->in->math);
		char name[160], emit[64], why[240];
		snprintf(name, sizeof name, "drop the copy kernel %s (its consumers read the source; "
					  "fuse %s..%s)",
			 p->kernels[k].name, p->kernels[k].name, p->kernels[hi].name);
		snprintf(emit, sizeof emit, "nocopy_%s.air", p->kernels[k].name);
		snprintf(why, sizeof why, "AIR rewrite: kernels %s..%s merged, so the copy %s makes "
					  "never reaches DRAM (rule \"copy kernel\": it does no work)",
			 p->kernels[k].name, p->kernels[hi].name, p->kernels[k].name);
		if (rw_merge(&r, k, hi, c->in->math)) {
			file_rewrite(c, SOLAR_DIR_REDUNDANT, rw_text(&r, c->file, name), name, emit, why);
			n++;
		} else {
			solar_arena_free(r.a);
		}
	}
	free(uses);
	free(copy_k);
}

/* Structural zeros (rule "zero operand", docs/advise.md): a tmp X written by one statement
 * `X[i, j, ..] = select(COND, V, 0)` (plain iterators as indices, COND and V on iterators and
 * other tensors, not X) and read as a factor of sums `T[..] += X[e..] * Y[..]`: eager PyTorch
 * materialises X (torch.diag, a mask, tril) and runs the dense contraction, whose terms outside
 * COND add 0 * Y.  The rewrite reads V in place of X and puts the sum under
 * `if COND[i := e] { .. }`, so only the terms that can be nonzero are charged; X's kernel goes
 * when nothing reads X any more.  Exact for finite Y (0 * inf is NaN, which the dense product
 * would have produced and the rewrite does not). */
typedef struct {
	const solar_stmt *def; /* X[i..] = select(COND, V, 0) */
	const solar_expr *const *at; /* the access's index expressions, by X's dimension */
} zero_sub;

static bool is_zero_literal(const solar_expr *e)
{
	return (e->kind == SOLAR_E_INT && e->ival == 0) ||
	       (e->kind == SOLAR_E_FLOAT && e->fval == 0);
}

/* e with X's iterators replaced by the access's indices (NULL: e uses another iterator or
 * reads X itself, so it is not a function of X's element alone). */
static solar_expr *substitute(solar_arena *a, const solar_expr *e, const zero_sub *z)
{
	const solar_stmt *d = z->def;
	if (e->kind == SOLAR_E_ITER) {
		for (int k = 0; k < d->depth; k++)
			if (d->index[k]->sym == e->sym)
				return solar_arena_memdup(a, z->at[k], sizeof *z->at[k]);
		return NULL;
	}
	if (e->kind == SOLAR_E_ACCESS && e->sym == d->tensor)
		return NULL;
	solar_expr *c = solar_arena_memdup(a, e, sizeof *e);
	if (e->nargs) {
		c->args = solar_arena_alloc(a, sizeof *c->args * (size_t)e->nargs);
		for (int i = 0; i < e->nargs; i++)
			if (!(c->args[i] = substitute(a, e->args[i], z)))
				return NULL;
	}
	return c;
}

/* The one defining statement of a zero-pattern tmp, or NULL. */
static const solar_stmt *zero_def(const solar_program *p, int tensor)
{
	const solar_stmt *def = NULL;
	if (p->tensors[tensor].role != SOLAR_ROLE_TMP)
		return NULL;
	for (int i = 0; i < p->nstmts; i++)
		if (p->stmts[i]->tensor == tensor) {
			if (def)
				return NULL;
			def = p->stmts[i];
		}
	const solar_tensor *t = &p->tensors[tensor];
	if (!def || def->op != SOLAR_ASSIGN || def->depth != t->rank || !t->rank)
		return NULL;
	for (int k = 0; k < t->rank; k++)
		if (def->index[k]->kind != SOLAR_E_ITER || def->index[k]->sym != def->loops[k])
			return NULL;
	const solar_expr *v = def->value;
	if (v->kind != SOLAR_E_CALL || v->fn != SOLAR_FN_SELECT || v->nargs != 3 ||
	    !expr_is_free(v->args[0]) || !is_zero_literal(v->args[2]))
		return NULL;
	return def;
}

static void zero_strategies(ctx *c)
{
	const solar_program *p = c->p;
	rewrite r;
	rw_begin(&r, p, c->in->math);
	int nsum = 0;
	bool *gone = solar_xcalloc((size_t)p->ntensors + 1, 1);
	/* each statement's value in the rewrite (NULL: as written) */
	const solar_expr **now = solar_xcalloc((size_t)p->nstmts + 1, sizeof *now);
	for (int i = 0; i < p->nstmts; i++) {
		solar_stmt *s = p->stmts[i];
		const solar_expr *v = s->value;
		if (s->op != SOLAR_ADD_TO || v->kind != SOLAR_E_BIN || v->binop != SOLAR_OP_MUL)
			continue;
		for (int side = 0; side < 2; side++) {
			const solar_expr *x = v->args[side];
			const solar_stmt *def = x->kind == SOLAR_E_ACCESS ? zero_def(p, x->sym) : NULL;
			if (!def)
				continue;
			zero_sub z = {def, (const solar_expr *const *)x->args};
			const solar_expr *sel = def->value;
			solar_expr *cond = substitute(r.a, sel->args[0], &z);
			solar_expr *val = substitute(r.a, sel->args[1], &z);
			if (!cond || !val)
				continue;
			solar_expr *prod = solar_arena_memdup(r.a, v, sizeof *v);
			prod->args = solar_arena_alloc(r.a, 2 * sizeof *prod->args);
			prod->args[side] = val;
			prod->args[1 - side] = v->args[1 - side];
			solar_stmt *ns = solar_arena_memdup(r.a, s, sizeof *s);
			ns->value = prod;
			if (replace_stmt(r.a, &r.q.kernels[s->kernel].body, s,
					 if_node(r.a, cond, ns, NULL))) {
				nsum++;
				gone[x->sym] = true;
				now[i] = prod;
			}
			break;
		}
	}
	if (!nsum) {
		free(now);
		free(gone);
		solar_arena_free(r.a);
		return;
	}
	/* a zero-pattern tmp nobody reads any more: its kernel goes, when that is all it does */
	char dropped[96] = "";
	for (int t = 0; t < p->ntensors; t++) {
		if (!gone[t])
			continue;
		bool read = false;
		for (int i = 0; i < p->nstmts && !read; i++) /* in the rewrite: X * X keeps one X */
			read = solar_ir_expr_reads(now[i] ? now[i] : p->stmts[i]->value, t);
		int k = zero_def(p, t)->kernel;
		if (read || p->kernels[k].nstmts != 1)
			continue;
		for (int j = 0; j < r.q.nkernels; j++)
			if (r.q.kernels[j].name == p->kernels[k].name) {
				if (!dropped[0])
					snprintf(dropped, sizeof dropped, "%s", p->kernels[k].name);
				memmove(&r.q.kernels[j], &r.q.kernels[j + 1],
					sizeof *r.q.kernels * (size_t)(r.q.nkernels - j - 1));
				r.q.nkernels--;
				break;
			}
	}
	free(now);
	free(gone);
	char name[160], why[320];
	snprintf(name, sizeof name, "skip structural zeros (%d sum%s over a select(COND, V, 0) "
				    "operand%s%s)",
		 nsum, nsum == 1 ? "" : "s", dropped[0] ? "; drop kernel " : "", dropped);
	snprintf(why, sizeof why, "AIR rewrite: T += X * Y with X = select(COND, V, 0) becomes "
				  "if COND { T += V * Y }: the terms that add 0 * Y are not computed, "
				  "and X need not be built (rule \"zero operand\"; exact for finite Y)");
	file_rewrite(c, SOLAR_DIR_REDUNDANT, rw_text(&r, c->file, name), name, "skip_zeros.air",
		     why);
}

static void redundant_strategies(ctx *c)
{
	const solar_program *p = c->p;
	copy_strategies(c);
	zero_strategies(c);
	rewrite r;
	rw_begin(&r, p, c->in->math);
	int nsplit = 0;
	for (int i = 0; i < p->nstmts; i++) {
		solar_stmt *s = p->stmts[i];
		const solar_expr *v = s->value;
		if (s->op != SOLAR_ASSIGN || v->kind != SOLAR_E_CALL || v->fn != SOLAR_FN_SELECT ||
		    v->nargs != 3 || !expr_is_free(v->args[0]) || expr_is_free(v->args[1]))
			continue;
		/* replace the statement's node in its block by an IF node */
		solar_stmt *then_s = solar_arena_memdup(r.a, s, sizeof *s);
		solar_stmt *else_s = solar_arena_memdup(r.a, s, sizeof *s);
		then_s->value = v->args[1];
		else_s->value = v->args[2];
		if (replace_stmt(r.a, &r.q.kernels[s->kernel].body, s,
				 if_node(r.a, v->args[0], then_s, else_s)))
			nsplit++;
	}
	if (!nsplit) {
		solar_arena_free(r.a);
		return;
	}
	char name[160];
	snprintf(name, sizeof name, "skip masked work (%d select%s split into if/else)", nsplit,
		 nsplit == 1 ? "" : "s");
	file_rewrite(c, SOLAR_DIR_REDUNDANT, rw_text(&r, c->file, name), name, "skip_masked.air",
		     "AIR rewrite: select(COND, A, B) with a COND on iterators only becomes "
		     "if COND {A} else {B}: A is computed where it is kept");
}

/* Implementation: measured / own bound per kernel (per-kernel times), else the program's. */
static void implementation_strategies(ctx *c)
{
	const solar_program *p = c->p;
	const solar_advise_eval *b = &c->adv->base;
	solar_advice_dir *d = &c->adv->dir[SOLAR_DIR_IMPLEMENTATION];
	double f = c->in->stop_factor;
	bool per_kernel = false;
	for (int k = 0; k < p->nkernels && c->in->kernel_measured_s; k++)
		per_kernel |= c->in->kernel_measured_s[k] > 0;
	if (per_kernel)
		for (int k = 0; k < p->nkernels; k++) {
			double t = c->in->kernel_measured_s[k];
			if (t <= 0 || t <= f * b->kernel_s[k])
				continue;
			solar_strategy *s = add_strategy(d);
			if (!s)
				break;
			snprintf(s->name, sizeof s->name, "tune kernel %s (measured %.3gx its bound)",
				 p->kernels[k].name, t / b->kernel_s[k]);
			snprintf(s->why, sizeof s->why, "no AIR rewrite: tiles, vector loads, occupancy "
							"or a library kernel; wins its time above %.3gx "
							"its own bound",
				 f);
			as_written(s, b);
			s->gain_s = t - f * b->kernel_s[k];
		}
	else if (c->in->measured_s > f * b->unfused_s) {
		solar_strategy *s = add_strategy(d);
		if (s) {
			if (b->unfused_s > 0)
				snprintf(s->name, sizeof s->name, "tune the kernels as written (measured "
								  "%.3gx their bound)",
					 c->in->measured_s / b->unfused_s);
			else
				snprintf(s->name, sizeof s->name, "cut the launch and host overhead (the "
								  "program has no work to bound)");
			snprintf(s->why, sizeof s->why, "no AIR rewrite: tiles, vector loads, launch "
							"overhead, a library kernel; wins the time above "
							"%.3gx the unfused bound",
				 f);
			as_written(s, b);
			s->gain_s = c->in->measured_s - f * b->unfused_s;
		}
	}
}

static void reuse_strategies(ctx *c)
{
	const solar_advise_eval *b = &c->adv->base;
	if (b->cache_aware_s <= b->fused_s || c->adv->dir[SOLAR_DIR_DATA_REUSE].nstrat)
		return;
	solar_strategy *s = add_strategy(&c->adv->dir[SOLAR_DIR_DATA_REUSE]);
	if (!s)
		return;
	snprintf(s->name, sizeof s->name, "tile for on-chip reuse (reach the cache-aware traffic, "
					  "%.3g MB)",
		 b->cache_aware_dram_bytes / 1e6);
	snprintf(s->why, sizeof s->why, "no AIR rewrite: AIR has no tiling; the cache-aware "
					"rule (docs/bounds.md#cache-aware) says no execution on this "
					"chip moves less: the target, not a gain below it");
	as_written(s, b);
	s->what_if_bound_s = b->cache_aware_s; /* the traffic it reaches */
	s->gain_s = 0;
}

/* The lowest fused (or, with cache_aware, cache-aware) bound of a direction's rewrites. */
static double best_sol(const solar_advice_dir *d, double fallback, bool cache_aware)
{
	double best = fallback;
	for (int i = 0; i < d->nstrat; i++) {
		double v = cache_aware ? d->strat[i].what_if_cache_aware_s : d->strat[i].what_if_sol_s;
		if (d->strat[i].rewrite && v < best)
			best = v;
	}
	return best;
}

static const char *fmt_s(char *buf, size_t n, double s)
{
	if (s >= 1)
		snprintf(buf, n, "%.3g s", s);
	else if (s >= 1e-3)
		snprintf(buf, n, "%.3g ms", s * 1e3);
	else
		snprintf(buf, n, "%.3g us", s * 1e6);
	return buf;
}

static double dmin(double a, double b)
{
	return a < b ? a : b;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

/* The lowest unfused bound of a direction's rewrites (fallback when it has none). */
static double lowest_unfused(const solar_advice_dir *d, double fallback)
{
	double best = fallback;
	for (int i = 0; i < d->nstrat; i++)
		if (d->strat[i].rewrite && d->strat[i].what_if_bound_s < best)
			best = d->strat[i].what_if_bound_s;
	return best;
}

static int cmp_strat(const void *a, const void *b)
{
	const solar_strategy *x = a, *y = b;
	return x->gain_s < y->gain_s ? 1 : x->gain_s > y->gain_s ? -1 : 0;
}

bool solar_advise_below_sol(const char *file, const char *what, double measured_s,
			    double bound_s, const char *bound_name, solar_diag *diag)
{
	if (!(measured_s < bound_s * (1 - 1e-6)))
		return false;
	solar_diag_tool_error(
	    diag,
	    "%s: %smeasured %.4g s is %.3gx %s (%.4g s): below the speed of light, so either the "
	    "benchmark is broken (it skipped work, timed asynchronously or timed a cached "
	    "result) or the bound is wrong (the AIR is not the program that was timed, or a "
	    "descriptor figure is too low)",
	    file, what, measured_s, measured_s / bound_s, bound_name, bound_s);
	return true;
}

/* Each direction's reason, in words: what its part is made of. */
static void explain_directions(solar_advice *out, const solar_program *p,
			       const solar_advise_input *in)
{
	const solar_advise_eval *b = &out->base;
	double T = in->measured_s;
	char t1[32], t2[32];
	if (b->unfused_s > 0)
		snprintf(out->dir[SOLAR_DIR_IMPLEMENTATION].reason, sizeof out->dir[0].reason,
			 "measured is %.3gx the bound of the kernels as written (%s)",
			 T / b->unfused_s, fmt_s(t1, sizeof t1, b->unfused_s));
	else
		snprintf(out->dir[SOLAR_DIR_IMPLEMENTATION].reason, sizeof out->dir[0].reason,
			 "every bound is 0 s (the program has no work): all of the measured time "
			 "is overhead");
	snprintf(out->dir[SOLAR_DIR_FUSION].reason, sizeof out->dir[0].reason,
		 "%d kernel%s as written: %.3g MB of DRAM traffic against %.3g MB fused; unfused "
		 "%s vs cache-aware %s",
		 p->nkernels, p->nkernels == 1 ? "" : "s", b->unfused_dram_bytes / 1e6,
		 b->cache_aware_dram_bytes / 1e6, fmt_s(t1, sizeof t1, b->unfused_s),
		 fmt_s(t2, sizeof t2, b->cache_aware_s));
	snprintf(out->dir[SOLAR_DIR_DATA_REUSE].reason, sizeof out->dir[0].reason,
		 "down to the cache-aware bound, intermediates too large for the chip kept on "
		 "chip in tiles; a finite on-chip memory still forces %.3g MB above the compulsory "
		 "%.3g MB (cache-aware %s vs fused %s)",
		 (b->cache_aware_dram_bytes - b->fused_dram_bytes) / 1e6, b->fused_dram_bytes / 1e6,
		 fmt_s(t1, sizeof t1, b->cache_aware_s), fmt_s(t2, sizeof t2, b->fused_s));
	const solar_advice_dir *dp = &out->dir[SOLAR_DIR_DATAPATH];
	if (dp->nstrat)
		snprintf(out->dir[SOLAR_DIR_DATAPATH].reason, sizeof out->dir[0].reason,
			 "%d faster datapath%s allowed by --tol %.3g; limited by %s", dp->nstrat,
			 dp->nstrat == 1 ? "" : "s", in->tol, out->limiter);
	else
		snprintf(out->dir[SOLAR_DIR_DATAPATH].reason, sizeof out->dir[0].reason,
			 "no f32 contraction or intermediate that --tol %.3g lets go to TF32 (>= %.0e) or bf16 "
			 "(>= %.0e); limited by %s",
			 in->tol, TF32_TOL, BF16_TOL, out->limiter);
	int ncopy = 0, nmask = 0, nzero = 0;
	for (int i = 0; i < out->dir[SOLAR_DIR_REDUNDANT].nstrat; i++) {
		const char *name = out->dir[SOLAR_DIR_REDUNDANT].strat[i].name;
		ncopy += !strncmp(name, "drop the copy", 13);
		nmask += !strncmp(name, "skip masked", 11);
		nzero += !strncmp(name, "skip structural zeros", 21);
	}
	if (ncopy || nmask || nzero)
		snprintf(out->dir[SOLAR_DIR_REDUNDANT].reason, sizeof out->dir[0].reason,
			 "%d copy kernel%s that only move%s data; %d masked select rewrite%s (work "
			 "computed and discarded)%s",
			 ncopy, ncopy == 1 ? "" : "s", ncopy == 1 ? "s" : "", nmask, nmask == 1 ? "" : "s",
			 nzero ? "; sums over a built zero pattern (terms that add 0)" : "");
	else
		snprintf(out->dir[SOLAR_DIR_REDUNDANT].reason, sizeof out->dir[0].reason,
			 "no copy kernel, masked select or zero-pattern operand found (recomputation "
			 "is not measured)");
}

int solar_advise_compute(const char *file, const solar_program *p, solar_diag *pd,
			 const solar_device *dev, const solar_advise_input *in, solar_advice *out,
			 solar_diag *diag)
{
	memset(out, 0, sizeof *out);
	for (int d = 0; d < SOLAR_DIR_COUNT; d++)
		out->dir[d].dir = (solar_direction)d;
	/* the program as written, once: the checks' messages on its own context, the bounds' on
	 * diag */
	solar_job job = eval_job(file, dev, in);
	solar_result *r = solar_job_run_program_with(&job, p, pd, diag);
	int rc = eval_result(r, &out->base);
	solar_result_free(r);
	if (rc < 0)
		return -1;
	const solar_advise_eval *b = &out->base;
	double T = in->measured_s;
	/* a measured time below a bound of the program as written is impossible */
	if (solar_advise_below_sol(file, "", T, b->cache_aware_s, "the cache-aware bound", diag))
		return 1;
	for (int k = 0; in->kernel_measured_s && k < p->nkernels; k++)
		if (in->kernel_measured_s[k] > 0 &&
		    in->kernel_measured_s[k] < b->kernel_s[k] * (1 - 1e-6)) {
			solar_diag_tool_error(
			    diag,
			    "%s: kernel %s: measured %.4g s is %.3gx its bound "
			    "(%.4g s): below the speed of light, so the benchmark or the "
			    "bound is wrong",
			    file, p->kernels[k].name, in->kernel_measured_s[k],
			    in->kernel_measured_s[k] / b->kernel_s[k], b->kernel_s[k]);
			return 1;
		}
	solar_resource_name(b->limiter_cache_aware, out->limiter, sizeof out->limiter);
	ctx c = {file, p, dev, in, out, diag};
	implementation_strategies(&c);
	fusion_strategies(&c);
	reuse_strategies(&c);
	datapath_strategies(&c);
	redundant_strategies(&c);
	/* the chain (docs/advise.md "decomposition"): redundant work is charged twice, as
	 * written (copies, masked arms) before fusion and at the cache-aware level last */
	double *L = out->levels_s;
	L[0] = T;
	L[1] = dmin(L[0], b->unfused_s);
	L[2] = dmin(L[1], dmax(b->cache_aware_s,
			       lowest_unfused(&out->dir[SOLAR_DIR_REDUNDANT], b->unfused_s)));
	L[3] = dmin(L[2], dmax(b->cache_aware_s,
			       lowest_unfused(&out->dir[SOLAR_DIR_FUSION], b->unfused_s)));
	L[4] = dmin(L[3], b->cache_aware_s);
	L[5] = dmin(L[4], best_sol(&out->dir[SOLAR_DIR_DATAPATH], L[4], true));
	L[6] = dmin(L[5], best_sol(&out->dir[SOLAR_DIR_REDUNDANT], L[5], true));
	out->sol_s = L[6];
	out->dir[SOLAR_DIR_IMPLEMENTATION].part_s = L[0] - L[1];
	out->dir[SOLAR_DIR_REDUNDANT].part_s = (L[1] - L[2]) + (L[5] - L[6]);
	out->dir[SOLAR_DIR_FUSION].part_s = L[2] - L[3];
	out->dir[SOLAR_DIR_DATA_REUSE].part_s = L[3] - L[4];
	out->dir[SOLAR_DIR_DATAPATH].part_s = L[4] - L[5];
	for (int d = 0; d < SOLAR_DIR_COUNT; d++) {
		solar_advice_dir *x = &out->dir[d];
		x->share = T > 0 ? x->part_s / T : 0;
		qsort(x->strat, (size_t)x->nstrat, sizeof *x->strat, cmp_strat);
		x->max_gain_s = x->nstrat ? x->strat[0].gain_s : 0;
		x->score = x->max_gain_s;
		x->p_paid = x->mean_gain = -1;
	}
	explain_directions(out, p, in);
	/* stop: measured within the factor of the reachable speed of light (the cache-aware
	 * bound, or a datapath or redundant-work rewrite's when one is lower) */
	double reach = dmin(b->cache_aware_s,
			    dmin(best_sol(&out->dir[SOLAR_DIR_DATAPATH], b->cache_aware_s, true),
				 best_sol(&out->dir[SOLAR_DIR_REDUNDANT], b->cache_aware_s, true)));
	out->stop = T <= in->stop_factor * reach;
	return 0;
}

static int cmp_dir(const void *a, const void *b)
{
	const solar_advice_dir *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return (int)x->dir - (int)y->dir;
}

void solar_advise_rank(solar_advice *a)
{
	qsort(a->dir, SOLAR_DIR_COUNT, sizeof *a->dir, cmp_dir);
}

void solar_advice_free(solar_advice *a)
{
	for (int d = 0; d < SOLAR_DIR_COUNT; d++)
		for (int i = 0; i < a->dir[d].nstrat; i++)
			free(a->dir[d].strat[i].air);
	solar_advise_eval_free(&a->base);
}
