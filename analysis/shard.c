/* shard.c - `solar shard` (shard.h, docs/shard.md): the rank's program of a one-GPU program. */
#include "shard.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag/alloc.h"
#include "pipeline.h"

typedef struct {
	const solar_program *p;
	const solar_shard_axis *axes;
	int naxes;
	int *param_axis, *const_axis; /* the axis splitting each param / const, or -1 */
	solar_diag *d, *tool;
	int errors;
} shard;

/* The axis whose split sizes e mentions (a const through its definition), -1 for none, -2
 * for two different axes. */
static int axis_of(const shard *s, const solar_expr *e)
{
	int a = -1;
	if (e->kind == SOLAR_E_PARAM)
		a = s->param_axis[e->sym];
	else if (e->kind == SOLAR_E_CONST)
		a = s->const_axis[e->sym] >= 0 ? s->const_axis[e->sym]
						: axis_of(s, s->p->consts[e->sym].expr);
	for (int i = 0; i < e->nargs && a != -2; i++) {
		int b = axis_of(s, e->args[i]);
		if (b == -2 || (b >= 0 && a >= 0 && a != b))
			return -2;
		if (b >= 0)
			a = b;
	}
	return a;
}

/* Which sizes each axis splits: every name a param or a const, split by one axis, divisible
 * by the axis's size at its value. */
static int resolve(shard *s)
{
	const solar_program *p = s->p;
	s->param_axis = solar_xcalloc((size_t)p->nparams + 1, sizeof *s->param_axis);
	s->const_axis = solar_xcalloc((size_t)p->nconsts + 1, sizeof *s->const_axis);
	for (int i = 0; i < p->nparams; i++)
		s->param_axis[i] = -1;
	for (int i = 0; i < p->nconsts; i++)
		s->const_axis[i] = -1;
	for (int a = 0; a < s->naxes; a++)
		for (int n = 0; n < s->axes[a].nnames; n++) {
			const char *name = s->axes[a].names[n];
			int64_t N = s->axes[a].size, v = 0;
			int *slot = NULL;
			solar_span at = {0, 0};
			for (int i = 0; i < p->nparams && !slot; i++)
				if (!strcmp(p->params[i].name, name)) {
					slot = &s->param_axis[i];
					v = p->params[i].value;
					at = p->params[i].span;
				}
			for (int i = 0; i < p->nconsts && !slot; i++)
				if (!strcmp(p->consts[i].name, name)) {
					slot = &s->const_axis[i];
					v = p->consts[i].value;
					at = p->consts[i].span;
				}
			if (!slot) {
				solar_diag_tool_error(s->tool,
						      "--split %s=%s: %s has no param or const '%s'",
						      s->axes[a].axis, name, p->file, name);
				s->errors++;
				continue;
			}
			if (*slot >= 0) {
				solar_diag_tool_error(s->tool, "--split: '%s' is split twice", name);
				s->errors++;
				continue;
			}
			if (v % N) {
				solar_diag_error(s->d, at,
						 "'%s' is %" PRId64 ", which %s = %" PRId64
						 " does not divide: the mesh must divide every size it "
						 "splits",
						 name, v, s->axes[a].axis, N);
				s->errors++;
				continue;
			}
			*slot = a;
		}
	return s->errors ? -1 : 0;
}

/* ---- partial sums --------------------------------------------------------------------- */

typedef struct {
	const solar_node *loops[SOLAR_MAX_NESTING + 1];
	int n;
} loop_stack;

/* The partial sums, kernel by kernel in program order (rule in docs/shard.md): partial[t *
 * naxes + a] says tensor t now holds one rank's part of a sum (1) or max (2) over axis a.  A
 * statement linear in partial sums (a copy of an accumulator, a sum of two partial gradients)
 * leaves its target partial; any other read of a partial sum needs the all-reduce first,
 * emitted just before the kernel that reads it (reduce_before[t] = that kernel), or at the end
 * for an output still partial.  A read of a partial sum the same kernel made, not linear in
 * it, is an error: no all-reduce can go inside a kernel. */
typedef struct {
	shard *s;
	int k;
	signed char *partial; /* per tensor x axis: 0 none, 1 sum, 2 max */
	int *group_of;	      /* per tensor: the kernel that last made it partial */
	bool *made;	      /* per tensor: made partial by this kernel */
	int nreduce, cap;
	struct pending {
		int before; /* the kernel it goes before; nkernels: the end */
		int tensor, axis, red, group;
	} *pend;
} walk;

static bool is_partial(const walk *w, int t)
{
	for (int a = 0; a < w->s->naxes; a++)
		if (w->partial[t * w->s->naxes + a])
			return true;
	return false;
}

static bool holds_partial(const walk *w, const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS && is_partial(w, e->sym))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (holds_partial(w, e->args[i]))
			return true;
	return false;
}

/* Whether e carries the partial sums it reads on unchanged: a read of one, a cast or negation
 * of such, a sum or difference of two.  The sum over the ranks commutes with it (up to
 * rounding), and the all-reduce can wait: a copy of an f32 accumulator into the output, or two
 * partial input gradients added (a column-parallel gate and up projection), are reduced once,
 * after it; so does a product with, or a quotient by, a number that reads no tensor (a mean's
 * divisor, which the statement's value keeps at the whole model's size).  A product with a
 * replicated tensor is linear too, but would spread one partial sum over several tensors,
 * each then reduced: it ends the wait, so that no program shard writes reduces more bytes
 * than the reduction at the source would. */
static bool linear(const walk *w, const solar_expr *e)
{
	switch (e->kind) {
	case SOLAR_E_ACCESS:
		return is_partial(w, e->sym);
	case SOLAR_E_CAST:
	case SOLAR_E_NEG:
		return linear(w, e->args[0]);
	case SOLAR_E_BIN:
		if (e->binop == SOLAR_OP_MUL || e->binop == SOLAR_OP_DIV) /* by a number: a mean */
			return (linear(w, e->args[0]) && !solar_ir_index_reads_data(e->args[1])) ||
			       (e->binop == SOLAR_OP_MUL && linear(w, e->args[1]) &&
				!solar_ir_index_reads_data(e->args[0]));
		return (e->binop == SOLAR_OP_ADD || e->binop == SOLAR_OP_SUB) &&
		       linear(w, e->args[0]) && linear(w, e->args[1]);
	default:
		return false;
	}
}

static void pend(walk *w, int before, int t)
{
	shard *s = w->s;
	for (int a = 0; a < s->naxes; a++) {
		int red = w->partial[t * s->naxes + a];
		if (!red)
			continue;
		if (w->nreduce == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 16;
			w->pend = solar_xrealloc(w->pend, (size_t)w->cap * sizeof *w->pend);
		}
		w->pend[w->nreduce++] = (struct pending){before, t, a, red, w->group_of[t]};
		w->partial[t * s->naxes + a] = 0;
	}
}

/* The partial sums statement st reads: linear (its target becomes partial) or whole first. */
static void reads_partial(walk *w, const solar_stmt *st)
{
	shard *s = w->s;
	const solar_program *p = s->p;
	if (!holds_partial(w, st->value))
		return;
	if ((st->op == SOLAR_ASSIGN || st->op == SOLAR_ADD_TO) && linear(w, st->value) &&
	    (st->op == SOLAR_ASSIGN || is_partial(w, st->tensor) || w->made[st->tensor])) {
		for (int t = 0; t < p->ntensors; t++)
			if (is_partial(w, t) && solar_ir_expr_reads(st->value, t))
				for (int a = 0; a < s->naxes; a++)
					if (w->partial[t * s->naxes + a])
						w->partial[st->tensor * s->naxes + a] =
						    w->partial[t * s->naxes + a];
		w->made[st->tensor] = true;
		w->group_of[st->tensor] = w->k;
		return;
	}
	for (int t = 0; t < p->ntensors; t++) {
		if (!is_partial(w, t) || !solar_ir_expr_reads(st->value, t))
			continue;
		if (w->made[t]) {
			solar_diag_error(s->d, st->span,
					 "this statement reads '%s', a partial sum of the kernel's "
					 "own (it reduces over a split size), and is not linear in it, "
					 "so no all-reduce can go before it: split the kernel after "
					 "the reduction",
					 p->tensors[t].name);
			s->errors++;
			continue;
		}
		pend(w, w->k, t); /* made whole before this kernel */
	}
}

/* Whether index e moves with iterator `iter` itself, not through data: a store at
 * `g[ids[b], j]` reduces over b (two samples may hold the same id), at `g[b, j]` it does not. */
static bool indexes_by(const solar_expr *e, int iter)
{
	if (e->kind == SOLAR_E_ITER)
		return e->sym == iter;
	if (e->kind == SOLAR_E_ACCESS)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (indexes_by(e->args[i], iter))
			return true;
	return false;
}

static void stmt(walk *w, const solar_stmt *st, const loop_stack *ls)
{
	shard *s = w->s;
	const solar_program *p = s->p;
	if (st->op == SOLAR_ASSIGN && !w->made[st->tensor] && !holds_partial(w, st->value))
		for (int a = 0; a < s->naxes; a++) /* overwritten with whole values */
			w->partial[st->tensor * s->naxes + a] = 0;
	reads_partial(w, st);
	if (st->op != SOLAR_ADD_TO && st->op != SOLAR_MAX_TO && st->op != SOLAR_MUL_TO &&
	    st->op != SOLAR_MIN_TO)
		return;
	const solar_tensor *t = &p->tensors[st->tensor];
	for (int i = 0; i < ls->n; i++) {
		const solar_node *L = ls->loops[i];
		bool in_store = false;
		for (int d = 0; d < t->rank; d++)
			in_store |= indexes_by(st->index[d], L->loop.iter);
		if (in_store)
			continue; /* not a reduction over this loop */
		int a = axis_of(s, L->loop.hi);
		int b = axis_of(s, L->loop.lo);
		a = a >= 0 ? a : b;
		if (a < 0)
			continue;
		bool split_target = false;
		for (int d = 0; d < t->rank; d++)
			split_target |= axis_of(s, t->dims[d]) == a;
		if (split_target)
			continue; /* a reduction inside the rank's own block */
		if (st->op == SOLAR_MUL_TO || st->op == SOLAR_MIN_TO || t->role == SOLAR_ROLE_INOUT) {
			solar_diag_error(s->d, st->span,
					 "this statement reduces over '%s', which %s splits, into "
					 "'%s' with %s: only a sum (+=) or a max (max=) into an `out` "
					 "or `tmp` tensor can be made whole by an all-reduce",
					 p->iters[L->loop.iter].name, s->axes[a].axis, t->name,
					 t->role == SOLAR_ROLE_INOUT ? "an inout target"
								     : solar_assign_text(st->op));
			s->errors++;
			continue;
		}
		w->partial[st->tensor * s->naxes + a] = st->op == SOLAR_MAX_TO ? 2 : 1;
		w->made[st->tensor] = true;
		w->group_of[st->tensor] = w->k;
	}
}

static void block(walk *w, const solar_block *b, loop_stack *ls)
{
	for (int i = 0; i < b->n; i++) {
		const solar_node *n = b->items[i];
		if (n->kind == SOLAR_N_FOR) {
			ls->loops[ls->n++] = n;
			block(w, &n->loop.body, ls);
			ls->n--;
		} else if (n->kind == SOLAR_N_IF) {
			block(w, &n->cond.then, ls);
			block(w, &n->cond.els, ls);
		} else {
			stmt(w, n->stmt, ls);
		}
	}
}

/* ---- ZeRO: the optimizer's state sharded over dp (docs/shard.md, "ZeRO") ------------- */

/* A nest the rank can run on its block of the ZeRO dimension: a perfect nest of loops from 0
 * in steps of 1 whose body is statements alone, each reading and writing tensors of the
 * nest's rank at exactly its iterators in order (so every tensor it touches has the nest's
 * shape), scalars only read, and no iterator used as a value.  *depth: the loops. */
typedef struct {
	const solar_node *loops[SOLAR_MAX_NESTING + 1];
	int depth;
} nest;

static bool pointwise_expr(const solar_program *p, const solar_expr *e, const nest *n)
{
	if (e->kind == SOLAR_E_ITER)
		return false; /* an iterator as a value: the rank's local index would differ */
	if (e->kind == SOLAR_E_ACCESS) {
		const solar_tensor *t = &p->tensors[e->sym];
		if (t->rank == 0)
			return true;
		if (t->rank != n->depth)
			return false;
		for (int j = 0; j < t->rank; j++)
			if (e->args[j]->kind != SOLAR_E_ITER ||
			    e->args[j]->sym != n->loops[j]->loop.iter ||
			    !solar_ir_expr_equal(t->dims[j], n->loops[j]->loop.hi))
				return false;
		return true;
	}
	for (int i = 0; i < e->nargs; i++)
		if (!pointwise_expr(p, e->args[i], n))
			return false;
	return true;
}

static bool pointwise(const solar_program *p, const solar_node *top, nest *n)
{
	n->depth = 0;
	const solar_node *x = top;
	while (x->kind == SOLAR_N_FOR) {
		if (n->depth == SOLAR_MAX_NESTING || x->loop.lo->kind != SOLAR_E_INT ||
		    x->loop.lo->ival != 0 || x->loop.step_value > 1)
			return false;
		n->loops[n->depth++] = x;
		const solar_block *b = &x->loop.body;
		if (b->n == 1 && b->items[0]->kind == SOLAR_N_FOR) {
			x = b->items[0];
			continue;
		}
		for (int i = 0; i < b->n; i++) {
			if (b->items[i]->kind != SOLAR_N_STMT)
				return false;
			const solar_stmt *st = b->items[i]->stmt;
			const solar_tensor *t = &p->tensors[st->tensor];
			solar_expr target = {.kind = SOLAR_E_ACCESS, .sym = st->tensor,
					     .args = st->index, .nargs = t->rank};
			if (t->rank == 0 || !pointwise_expr(p, &target, n) ||
			    !pointwise_expr(p, st->value, n))
				return false;
		}
		return true;
	}
	return false;
}

/* A node's accesses as two flag arrays over the program's tensors (solar_ir_node_tensors). */
typedef struct {
	bool *rd, *wr;
} flags;

static void flag(void *ctx, int t, bool write)
{
	flags *f = ctx;
	(write ? f->wr : f->rd)[t] = true;
}

/* One node's access to one tensor (a node: a top-level item of a kernel's body). */
typedef struct {
	int node, tensor;
	bool rd, wr;
} zaccess;

/* What --zero decided.  Node i of kernel k is node base[k] + i. */
typedef struct {
	int axis;      /* the dp axis; -1: --zero is off */
	int64_t N;
	int *base;     /* per kernel: its first node's index */
	int *kernel;   /* per node: its kernel */
	bool *sharded; /* per node: runs on the rank's block */
	int *split_iter; /* per node on blocks: the iterator of its loop over ZeRO's dimension */
	zaccess *acc;  /* every node's accesses, node by node */
	int *node_acc; /* per node: its first access in acc (nnodes + 1 entries) */
	int *by_tensor, *tensor_acc; /* acc's indices tensor by tensor, in node order; per tensor
				      * its first in by_tensor (ntensors + 1 entries) */
	int *dim;      /* per tensor: the dimension ZeRO splits (sharded or scattered), -1 none */
	bool *scatter; /* per tensor: a gradient reduce-scattered instead of all-reduced */
	int *scatter_at; /* per tensor: the kernel before which it is reduce-scattered */
	int *gather;   /* per tensor: the kernel before which it is all-gathered, -1 none */
	char **full;   /* per tensor: the whole tensor's name (X_gathered, G_partial), or NULL */
	int nnodes, ntensors;
} zero_plan;

static bool optimizer_kernel(const solar_kernel *kn)
{
	return kn->group && !strcmp(kn->group, "optimizer");
}

/* The dimension ZeRO splits in tensor t: its first that no axis splits yet and that N
 * divides; -1 when none. */
static int zero_dim(const shard *s, const zero_plan *z, int **split_dim, int t)
{
	const solar_tensor *x = &s->p->tensors[t];
	for (int k = 0; k < x->rank; k++) {
		int64_t e = x->extent[k];
		if (split_dim[t][k] >= 0)
			e /= s->axes[split_dim[t][k]].size;
		if (split_dim[t][k] < 0 && e % z->N == 0)
			return k;
	}
	return -1;
}

/* The ZeRO plan: the greatest set of pointwise nests that can run on the rank's block, each
 * reading at least one tensor held in blocks (rooted in the optimizer's state), where a tensor
 * is held in blocks when every nest that writes it is one of them and it is the optimizer's
 * state (an inout that an optimizer kernel writes) or a tmp; a gradient whose all-reduce is
 * pending and that only such nests read is reduce-scattered instead.  Any other nest reading
 * a tensor held in blocks reads it whole, all-gathered before its kernel. */
static void zero_build(shard *s, zero_plan *z, int **split_dim, const walk *w)
{
	const solar_program *p = s->p;
	int T = p->ntensors, K = p->nkernels;
	z->base = solar_xcalloc((size_t)K + 1, sizeof *z->base);
	for (int k = 0; k < K; k++)
		z->base[k + 1] = z->base[k] + p->kernels[k].body.n;
	int M = z->nnodes = z->base[K];
	z->ntensors = T;
	z->kernel = solar_xcalloc((size_t)M + 1, sizeof *z->kernel);
	z->sharded = solar_xcalloc((size_t)M + 1, sizeof *z->sharded);
	z->split_iter = solar_xcalloc((size_t)M + 1, sizeof *z->split_iter);
	z->node_acc = solar_xcalloc((size_t)M + 2, sizeof *z->node_acc);
	z->tensor_acc = solar_xcalloc((size_t)T + 2, sizeof *z->tensor_acc);
	z->dim = solar_xcalloc((size_t)T + 1, sizeof *z->dim);
	z->scatter = solar_xcalloc((size_t)T + 1, sizeof *z->scatter);
	z->gather = solar_xcalloc((size_t)T + 1, sizeof *z->gather);
	z->scatter_at = solar_xcalloc((size_t)T + 1, sizeof *z->scatter_at);
	z->full = solar_xcalloc((size_t)T + 1, sizeof *z->full);
	bool *state = solar_xcalloc((size_t)T + 1, sizeof *state);
	bool *held = solar_xcalloc((size_t)T + 1, sizeof *held);
	int *pend_before = solar_xcalloc((size_t)T + 1, sizeof *pend_before);
	bool *rd = solar_xcalloc((size_t)T + 1, 1), *wr = solar_xcalloc((size_t)T + 1, 1);
	int nacc = 0, cap = 0;
	for (int t = 0; t < T; t++) {
		z->dim[t] = zero_dim(s, z, split_dim, t);
		pend_before[t] = -1;
	}
	for (int i = 0; i < w->nreduce; i++)
		if (w->pend[i].axis == z->axis && w->pend[i].red == 1 &&
		    w->pend[i].before < K)
			pend_before[w->pend[i].tensor] = w->pend[i].before;
	/* each node's accesses, from two flag arrays over the tensors reset after each */
	for (int k = 0; k < K; k++)
		for (int i = 0; i < p->kernels[k].body.n; i++) {
			int m = z->base[k] + i;
			nest n;
			const solar_node *x = p->kernels[k].body.items[i];
			z->kernel[m] = k;
			z->node_acc[m] = nacc;
			z->sharded[m] = pointwise(p, x, &n); /* a candidate; pruned below */
			solar_ir_node_tensors(p, x, flag, &(flags){rd, wr});
			for (int t = 0; t < T; t++) {
				if (!rd[t] && !wr[t])
					continue;
				if (nacc == cap) {
					cap = cap ? 2 * cap : 1024;
					z->acc = solar_xrealloc(z->acc, (size_t)cap * sizeof *z->acc);
				}
				z->acc[nacc++] = (zaccess){m, t, rd[t], wr[t]};
				state[t] |= wr[t] && optimizer_kernel(&p->kernels[k]) &&
					    p->tensors[t].role == SOLAR_ROLE_INOUT;
				rd[t] = wr[t] = false;
			}
		}
	z->node_acc[M] = nacc;
	/* the same, tensor by tensor */
	for (int a = 0; a < nacc; a++)
		z->tensor_acc[z->acc[a].tensor + 1]++;
	for (int t = 0; t < T; t++)
		z->tensor_acc[t + 1] += z->tensor_acc[t];
	z->by_tensor = solar_xcalloc((size_t)nacc + 1, sizeof *z->by_tensor);
	int *fill = solar_xcalloc((size_t)T + 1, sizeof *fill);
	for (int a = 0; a < nacc; a++) {
		int t = z->acc[a].tensor;
		z->by_tensor[z->tensor_acc[t] + fill[t]++] = a;
	}
	free(fill);
	for (bool changed = true; changed;) {
		changed = false;
		/* which tensors are held in blocks, which gradients are scattered */
		for (int t = 0; t < T; t++) {
			bool written = false, all = true, stale = false, sc = true;
			int first_whole = -1, last_whole = -1;
			for (int j = z->tensor_acc[t]; j < z->tensor_acc[t + 1]; j++) {
				const zaccess *x = &z->acc[z->by_tensor[j]];
				int k = z->kernel[x->node];
				if (x->wr) {
					written = true;
					all &= z->sharded[x->node];
				}
				if (x->rd && !z->sharded[x->node]) {
					first_whole = first_whole < 0 ? k : first_whole;
					last_whole = k;
				}
				/* a gradient: read, from its pending all-reduce on, by nests on blocks only */
				if (x->rd && k >= pend_before[t] && !z->sharded[x->node])
					sc = false;
			}
			/* all-gathered once, before its first whole reader: no write of its blocks
			 * may come between that gather and its last whole read */
			for (int j = z->tensor_acc[t]; j < z->tensor_acc[t + 1] && first_whole >= 0; j++) {
				const zaccess *x = &z->acc[z->by_tensor[j]];
				int k = z->kernel[x->node];
				stale |= x->wr && k >= first_whole && k <= last_whole;
			}
			held[t] = written && all && !stale && z->dim[t] >= 0 && pend_before[t] < 0 &&
				  ((state[t] && p->tensors[t].role == SOLAR_ROLE_INOUT) ||
				   p->tensors[t].role == SOLAR_ROLE_TMP);
			z->gather[t] = held[t] ? first_whole : -1;
			z->scatter[t] = sc && pend_before[t] >= 0 && z->dim[t] >= 0;
		}
		/* a nest stays on blocks when it reads one, reads nothing else whole, and every
		 * tensor it writes is held in blocks */
		for (int m = 0; m < M; m++) {
			if (!z->sharded[m])
				continue;
			bool rooted = false, ok = true;
			for (int a = z->node_acc[m]; a < z->node_acc[m + 1] && ok; a++) {
				const zaccess *x = &z->acc[a];
				int t = x->tensor;
				if (!p->tensors[t].rank)
					continue;
				ok = !(x->wr && !held[t]) && !(x->rd && !held[t] && !z->scatter[t]);
				rooted |= x->rd && (held[t] || z->scatter[t]);
			}
			if (!ok || !rooted) {
				z->sharded[m] = false;
				changed = true;
			}
		}
	}
	/* a gradient is reduce-scattered right after the kernel that last makes it partial, so
	 * that its whole partial sum is live no longer than there (ZeRO-2's buckets), unless a
	 * kernel before its first reader on blocks carries it on (then right before that reader) */
	for (int i = 0; i < w->nreduce; i++) {
		const struct pending *q = &w->pend[i];
		int t = q->tensor;
		if (q->axis != z->axis || q->before >= K || !z->scatter[t])
			continue;
		int at = q->group + 1;
		for (int j = z->tensor_acc[t]; j < z->tensor_acc[t + 1]; j++) {
			const zaccess *x = &z->acc[z->by_tensor[j]];
			int k = z->kernel[x->node];
			if (x->rd && k >= q->group + 1 && k < q->before)
				at = q->before;
		}
		z->scatter_at[t] = at;
	}
	/* a nest on blocks: every tensor it touches has its shape, so its loop at the depth of
	 * ZeRO's dimension of a tensor it writes is the one that runs 1/N as long */
	for (int m = 0; m < M; m++) {
		const solar_kernel *kn = &p->kernels[z->kernel[m]];
		nest n;
		if (!z->sharded[m] || !pointwise(p, kn->body.items[m - z->base[z->kernel[m]]], &n))
			continue;
		const solar_stmt *st = n.loops[n.depth - 1]->loop.body.items[0]->stmt;
		z->split_iter[m] = n.loops[z->dim[st->tensor]]->loop.iter;
	}
	for (int t = 0; t < T; t++) {
		if (!held[t] && !z->scatter[t])
			z->dim[t] = -1;
		if (held[t] && z->gather[t] < 0)
			continue;
		if (!held[t] && !z->scatter[t])
			continue;
		char buf[300];
		snprintf(buf, sizeof buf, "%s_%s", p->tensors[t].name,
			 z->scatter[t] ? "partial" : "gathered");
		z->full[t] = solar_xstrdup(buf);
	}
	free(rd);
	free(wr);
	free(state);
	free(held);
	free(pend_before);
}

static void zero_free(zero_plan *z)
{
	free(z->base);
	free(z->kernel);
	free(z->sharded);
	free(z->split_iter);
	free(z->acc);
	free(z->node_acc);
	free(z->by_tensor);
	free(z->tensor_acc);
	free(z->dim);
	free(z->scatter);
	free(z->scatter_at);
	free(z->gather);
	for (int t = 0; z->full && t < z->ntensors; t++)
		free(z->full[t]);
	free(z->full);
}

/* --zero's axis: dp, which the mesh must have. */
static int zero_start(shard *s, zero_plan *z, solar_diag *tool)
{
	for (int a = 0; a < s->naxes; a++)
		if (!strcmp(s->axes[a].axis, "dp")) {
			z->axis = a;
			z->N = s->axes[a].size;
			return 0;
		}
	solar_diag_tool_error(tool, "--zero shards the optimizer's state over dp: the mesh has no "
				    "dp axis (--mesh dp=N,...)");
	s->errors++;
	return -1;
}

/* The collectives ZeRO puts before kernel k: the reduce-scatters of the gradients made
 * whole there, the all-gathers of the blocks a whole reader in k needs. */
static void zero_collectives(const solar_program *p, const zero_plan *z,
			     const solar_shard_axis *axes, int k, FILE *f)
{
	const char *ax = axes[z->axis].axis;
	for (int t = 0; t < p->ntensors; t++) {
		if (!z->full[t])
			continue;
		const char *name = p->tensors[t].name;
		if (z->scatter[t] && z->scatter_at[t] == k) {
			const char *g = p->kernels[k - 1].group;
			fprintf(f, "\nkernel %s_reduce_scatter_%s ", name, ax);
			if (g)
				fprintf(f, "[group = %s] ", g);
			fprintf(f, "{ reduce_scatter(%s, sum, dim = %d) %s <- %s; }\n", ax, z->dim[t],
				name, z->full[t]);
		} else if (!z->scatter[t] && z->gather[t] == k) {
			const char *g = p->kernels[k].group;
			fprintf(f, "\nkernel %s_all_gather_%s ", name, ax);
			if (g)
				fprintf(f, "[group = %s] ", g);
			fprintf(f, "{ all_gather(%s, dim = %d) %s <- %s; }\n", ax, z->dim[t],
				z->full[t], name);
		}
	}
}

/* ---- the text ------------------------------------------------------------------------- */

/* The extents of the rank's program against the whole one's: a split dimension is 1/N of it,
 * the others equal. */
static int verify(shard *s, const char *text, int **split_dim)
{
	const solar_program *p = s->p;
	solar_diag *quiet = solar_diag_new("<shard>", text, (int32_t)strlen(text), stderr);
	solar_program *q = solar_frontend_load("<shard>", text, (int32_t)strlen(text), NULL, 0,
					       quiet);
	solar_diag_free(quiet);
	if (!q) {
		solar_diag_tool_error(s->tool, "internal error: the rank's program of %s does not "
					       "load; this is a bug in solar",
				      p->file);
		return -1;
	}
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i], *u = &q->tensors[i];
		for (int k = 0; k < t->rank; k++) {
			int a = split_dim[i][k];
			int64_t N = a >= 0 ? s->axes[a].size : 1;
			if (u->extent[k] * N == t->extent[k] && u->extent[k] > 0)
				continue;
			solar_diag_error(s->d, t->span,
					 "dimension %d of '%s' is %" PRId64 " on one GPU and %" PRId64
					 " on a rank%s%s: %s",
					 k, t->name, t->extent[k], u->extent[k], a >= 0 ? " of " : "",
					 a >= 0 ? s->axes[a].axis : "",
					 a >= 0 ? "not equal blocks of it"
						: "a size it holds whole changed (a const of a split "
						  "size?)");
			s->errors++;
		}
	}
	solar_program_free(q);
	return s->errors ? -1 : 0;
}

/* Text of expression e as printed with o (malloc'd). */
static char *expr_text(const solar_program *p, const solar_expr *e, const solar_print_opts *o)
{
	char *t = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&t, &n);
	if (!f)
		solar_out_of_memory();
	solar_ir_print_expr_with(p, e, o, f);
	if (fclose(f) != 0 || !t)
		solar_out_of_memory();
	return t;
}

/* Tensor t's name and extents, ZeRO's dimension (zdim >= 0) as the rank's block of it. */
static void print_decl(const solar_program *p, const solar_tensor *t, const char *name,
		       int zdim, int64_t N, const solar_print_opts *o, FILE *f)
{
	fputs(name, f);
	if (!t->rank)
		return;
	fputc('[', f);
	for (int k = 0; k < t->rank; k++) {
		if (k)
			fputs(", ", f);
		if (k == zdim)
			fputc('(', f);
		solar_ir_print_expr_with(p, t->dims[k], o, f);
		if (k == zdim)
			fprintf(f, " // %" PRId64 ")", N);
	}
	fputc(']', f);
}

/* Kernel k's node i as the rank runs it: on its ZeRO block (the loop over ZeRO's dimension
 * 1/N as long), or whole, reading the gathered tensors. */
static void print_node(const solar_program *p, const zero_plan *z, int k, int i,
		       const solar_print_opts *base, FILE *f)
{
	const solar_node *x = p->kernels[k].body.items[i];
	solar_print_opts o = *base;
	const char **names = NULL, **hi = NULL;
	char *hi_text = NULL;
	if (z->axis >= 0) {
		int m = z->base[k] + i;
		names = solar_xcalloc((size_t)p->ntensors + 1, sizeof *names);
		for (int t = 0; t < p->ntensors; t++)
			if (z->full[t] && ((z->scatter[t] && k < z->scatter_at[t]) ||
					   (!z->scatter[t] && !z->sharded[m] && k >= z->gather[t])))
				names[t] = z->full[t];
		o.tensor_text = names;
		if (z->sharded[m]) {
			const solar_node *L = x; /* the nest's loop over ZeRO's dimension */
			while (L->loop.iter != z->split_iter[m])
				L = L->loop.body.items[0];
			char *e = expr_text(p, L->loop.hi, base);
			size_t len = strlen(e) + 32;
			hi_text = solar_xmalloc(len);
			snprintf(hi_text, len, "(%s // %" PRId64 ")", e, z->N);
			free(e);
			hi = solar_xcalloc((size_t)p->niters + 1, sizeof *hi);
			hi[z->split_iter[m]] = hi_text;
			o.iter_hi_text = hi;
		}
	}
	solar_block one = {.items = (solar_node **)&x, .n = 1};
	solar_ir_print_block_with(p, &one, 1, &o, f);
	free(names);
	free(hi);
	free(hi_text);
}

/* The rank's program of the axes that split sizes (dp, tp, ...). */
static char *shard_sizes(const solar_program *p, const solar_shard_axis *axes, int naxes, bool zero,
			 const char *cmdline, solar_diag *d, solar_diag *tool)
{
	shard s = {.p = p, .axes = axes, .naxes = naxes, .d = d, .tool = tool};
	zero_plan z = {.axis = -1};
	if (p->nmesh) {
		solar_diag_error(d, p->mesh[0].span,
				 "the program has a mesh already: solar shard takes a one-GPU "
				 "program");
		return NULL;
	}
	char *text = NULL;
	int **split_dim = NULL;
	walk w = {0};
	if (resolve(&s) < 0)
		goto done;

	/* the layout of every tensor: split along the dimension whose extent a split size sets */
	split_dim = solar_xcalloc((size_t)p->ntensors + 1, sizeof *split_dim);
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		split_dim[i] = solar_xcalloc((size_t)t->rank + 1, sizeof **split_dim);
		bool *used = solar_xcalloc((size_t)naxes + 1, sizeof *used);
		for (int k = 0; k < t->rank; k++) {
			int a = axis_of(&s, t->dims[k]);
			split_dim[i][k] = a >= 0 ? a : -1;
			if (a == -2) {
				solar_diag_error(d, t->span, "dimension %d of '%s' is split by two axes",
						 k, t->name);
				s.errors++;
			} else if (a >= 0 && used[a]) {
				solar_diag_error(d, t->span,
						 "'%s' would be split twice by %s (dimension %d too)",
						 t->name, axes[a].axis, k);
				s.errors++;
			}
			if (a >= 0)
				used[a] = true;
		}
		free(used);
	}

	/* the partial sums, kernel by kernel */
	w.s = &s;
	w.partial = solar_xcalloc((size_t)p->ntensors * naxes + 1, 1);
	w.group_of = solar_xcalloc((size_t)p->ntensors + 1, sizeof *w.group_of);
	w.made = solar_xcalloc((size_t)p->ntensors + 1, sizeof *w.made);
	for (int k = 0; k < p->nkernels; k++) {
		w.k = k;
		memset(w.made, 0, (size_t)p->ntensors * sizeof *w.made);
		loop_stack ls = {.n = 0};
		block(&w, &p->kernels[k].body, &ls);
	}
	/* outputs still partial: made whole at the end */
	for (int t = 0; t < p->ntensors; t++)
		if (p->tensors[t].role == SOLAR_ROLE_OUT || p->tensors[t].role == SOLAR_ROLE_INOUT)
			pend(&w, p->nkernels, t);
	if (s.errors)
		goto done;
	if (zero) {
		if (zero_start(&s, &z, tool) < 0)
			goto done;
		zero_build(&s, &z, split_dim, &w);
		bool any = false;
		for (int t = 0; t < p->ntensors; t++)
			if (z.dim[t] >= 0) {
				split_dim[t][z.dim[t]] = z.axis;
				any = true;
			}
		if (!any) {
			solar_diag_tool_error(tool,
					      "--zero: %s has no optimizer state to shard over %s (an "
					      "inout tensor that an optimizer kernel updates elementwise, "
					      "with a dimension %s divides): translate the step with "
					      "--train --optimizer sgd|adamw",
					      p->file, axes[z.axis].axis, axes[z.axis].axis);
			s.errors++;
			goto done;
		}
	}

	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		solar_out_of_memory();
	const char **ptext = solar_xcalloc((size_t)p->nparams + 1, sizeof *ptext);
	for (int i = 0; i < p->nparams; i++)
		if (s.param_axis[i] >= 0) {
			char buf[256];
			snprintf(buf, sizeof buf, "(%s // %" PRId64 ")", p->params[i].name,
				 axes[s.param_axis[i]].size);
			ptext[i] = solar_xstrdup(buf);
		}
	solar_print_opts o = {.param_text = ptext, .values_by_name = true};
	/* the source's leading comments, then ours */
	for (const char *c = p->src; c && *c == '#';) {
		const char *nl = strchr(c, '\n');
		size_t n = nl ? (size_t)(nl - c + 1) : strlen(c);
		fwrite(c, 1, n, f);
		c += n;
	}
	fprintf(f, "# One rank's program: %s (docs/shard.md).\nair 1.2;\n\n", cmdline);
	for (int i = 0; i < p->nparams; i++)
		fprintf(f, "param %s = %" PRId64 ";%s\n", p->params[i].name, p->params[i].value,
			s.param_axis[i] >= 0 ? "   # the whole model's; a rank holds 1/N" : "");
	for (int i = 0; i < p->nconsts; i++) {
		int a = s.const_axis[i];
		if (a >= 0) {
			fprintf(f, "const %s = %" PRId64 ";   # %" PRId64 " / %s\n", p->consts[i].name,
				p->consts[i].value / axes[a].size, p->consts[i].value, axes[a].axis);
			continue;
		}
		fprintf(f, "const %s = ", p->consts[i].name);
		solar_ir_print_expr_with(p, p->consts[i].expr, &o, f);
		fputs(";\n", f);
	}
	fputs("mesh ", f);
	for (int a = 0; a < naxes; a++)
		fprintf(f, "%s%s = %" PRId64, a ? ", " : "", axes[a].axis, axes[a].size);
	fputs(";\n\n", f);
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		fprintf(f, "%s ", solar_role_name(t->role));
		print_decl(p, t, t->name, zero ? z.dim[i] : -1, zero ? z.N : 1, &o, f);
		fprintf(f, ": %s", solar_dtype_name(t->dtype));
		if (t->dist != SOLAR_DIST_NONE)
			fprintf(f, " %s", solar_dist_name(t->dist));
		if (t->role != SOLAR_ROLE_TMP && t->role != SOLAR_ROLE_RAND)
			for (int k = 0; k < t->rank; k++)
				if (split_dim[i][k] >= 0)
					fprintf(f, " split(%s, %d)", axes[split_dim[i][k]].axis, k);
		if (t->range_hi) {
			fputs(" in ", f);
			solar_ir_print_expr_with(p, t->range_lo, &o, f);
			fputs("..", f);
			solar_ir_print_expr_with(p, t->range_hi, &o, f);
		}
		fputs(";\n", f);
	}
	/* the whole tensors ZeRO's collectives gather into and scatter from */
	for (int i = 0; zero && i < p->ntensors; i++) {
		if (!z.full[i])
			continue;
		fputs("tmp ", f);
		print_decl(p, &p->tensors[i], z.full[i], -1, 1, &o, f);
		fprintf(f, ": %s;   # %s whole (--zero)\n", solar_dtype_name(p->tensors[i].dtype),
			p->tensors[i].name);
	}
	for (int i = 0; i < p->nassumes; i++) {
		fprintf(f, "assume distinct(%s) >= ", p->tensors[p->assumes[i].tensor].name);
		solar_ir_print_expr_with(p, p->assumes[i].count, &o, f);
		fputs(";\n", f);
	}
	for (int k = 0; k <= p->nkernels; k++) {
		/* the all-reduces that make partial sums whole before this kernel reads them */
		for (int i = 0; i < w.nreduce; i++) {
			const struct pending *q = &w.pend[i];
			if (q->before != k || (zero && q->axis == z.axis && z.scatter[q->tensor]))
				continue;
			const char *g = p->kernels[q->group].group;
			fprintf(f, "\nkernel %s_all_reduce_%s ", p->tensors[q->tensor].name,
				axes[q->axis].axis);
			if (g)
				fprintf(f, "[group = %s] ", g);
			fprintf(f, "{ all_reduce(%s, %s) %s; }\n", axes[q->axis].axis,
				q->red == 2 ? "max" : "sum", p->tensors[q->tensor].name);
		}
		if (zero)
			zero_collectives(p, &z, axes, k, f);
		if (k == p->nkernels)
			break;
		const solar_kernel *kn = &p->kernels[k];
		fprintf(f, "\nkernel %s ", kn->name);
		solar_ir_print_kernel_attrs(kn, f);
		fputs("{\n", f);
		for (int i = 0; i < kn->body.n; i++)
			print_node(p, &z, k, i, &o, f);
		fputs("}\n", f);
	}
	if (fclose(f) != 0 || !text)
		solar_out_of_memory();
	for (int i = 0; i < p->nparams; i++)
		free((char *)ptext[i]);
	free(ptext);
	if (verify(&s, text, split_dim) < 0) {
		free(text);
		text = NULL;
	}
done:
	if (split_dim)
		for (int i = 0; i < p->ntensors; i++)
			free(split_dim[i]);
	free(split_dim);
	free(w.partial);
	free(w.group_of);
	free(w.made);
	free(w.pend);
	free(s.param_axis);
	free(s.const_axis);
	if (z.axis >= 0)
		zero_free(&z);
	return text;
}

char *solar_shard(const solar_program *p, const solar_shard_axis *axes, int naxes, bool zero,
		  int64_t microbatches, const char *cmdline, solar_diag *d, solar_diag *tool)
{
	int pp = 0;
	while (pp < naxes && strcmp(axes[pp].axis, "pp"))
		pp++;
	if (pp == naxes)
		return shard_sizes(p, axes, naxes, zero, cmdline, d, tool);
	if (p->nmesh) {
		solar_diag_error(d, p->mesh[0].span,
				 "the program has a mesh already: solar shard takes a one-GPU "
				 "program");
		return NULL;
	}
	if (naxes == 1)
		return solar_pipeline(p, "pp", axes[pp].size, microbatches, cmdline, d, tool);
	/* the other axes first, then the stages of that program */
	solar_shard_axis *rest = solar_xcalloc((size_t)naxes, sizeof *rest);
	for (int a = 0, n = 0; a < naxes; a++)
		if (a != pp)
			rest[n++] = axes[a];
	char *text = shard_sizes(p, rest, naxes - 1, zero, cmdline, d, tool), *out = NULL;
	free(rest);
	if (!text)
		return NULL;
	solar_diag *quiet = solar_diag_new(p->file, text, (int32_t)strlen(text), stderr);
	solar_program *q =
	    solar_frontend_load(p->file, text, (int32_t)strlen(text), NULL, 0, quiet);
	solar_diag_free(quiet);
	if (q)
		out = solar_pipeline(q, "pp", axes[pp].size, microbatches, cmdline, NULL, tool);
	solar_program_free(q);
	free(text);
	return out;
}
