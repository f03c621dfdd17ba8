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
	int **split_dim;	      /* per tensor and dimension: the axis splitting it, -1 */
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

/* A size of the program by name: the param or const `name` (a param first), its value and
 * declaration, and the slot of s's that says which axis splits it; NULL for none. */
static int *size_named(shard *s, const char *name, solar_expr_kind *kind, int *sym, int64_t *v,
		       solar_span *at)
{
	const solar_program *p = s->p;
	for (int i = 0; i < p->nparams; i++)
		if (!strcmp(p->params[i].name, name)) {
			*kind = SOLAR_E_PARAM;
			*sym = i;
			*v = p->params[i].value;
			*at = p->params[i].span;
			return &s->param_axis[i];
		}
	for (int i = 0; i < p->nconsts; i++)
		if (!strcmp(p->consts[i].name, name)) {
			*kind = SOLAR_E_CONST;
			*sym = i;
			*v = p->consts[i].value;
			*at = p->consts[i].span;
			return &s->const_axis[i];
		}
	return NULL;
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
			solar_span at = {0, 0};
			solar_expr_kind kind;
			int sym;
			int *slot = size_named(s, name, &kind, &sym, &v, &at);
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
	const int *iter_axis; /* per iterator: the axis its loop runs on blocks of (a loop over the
			       * sequence under --sequence-parallel), -1; NULL: none */
	int k;
	signed char *partial; /* per tensor x axis: 0 none, 1 sum, 2 max */
	int *group_of;	      /* per tensor: the kernel that last made it partial */
	bool *made;	      /* per tensor: made partial by this kernel */
	int nreduce, cap;
	struct pending {
		int before; /* the kernel it goes before; nkernels: the end */
		int tensor, axis, red, group;
		int cut;    /* inside kernel `before`: at cuts[cut]; -1: before the kernel */
	} *pend;
	/* where the walk is: the kernel's top-level node, and the item of its distribution loop
	 * (the loop of its perfect chain whose body has several items: `for i0 { max; sum;
	 * write }`) that holds the statement, -1 when none */
	int node, seg;
	const solar_node *dist; /* the node's distribution loop, NULL */
	int *made_node, *made_seg; /* per tensor: where this kernel made it partial */
	struct cut {
		int k, node, seg; /* kernel k is cut before item seg of node's distribution loop
				   * (seg -1: before the node) */
	} *cuts;
	int ncuts;
} walk;

/* Tensor t made partial by the statement the walk is at. */
static void made(walk *w, int t)
{
	w->made[t] = true;
	w->group_of[t] = w->k;
	w->made_node[t] = w->node;
	w->made_seg[t] = w->seg;
}

static bool is_partial(const walk *w, int t)
{
	for (int a = 0; a < w->s->naxes; a++)
		if (w->partial[t * w->s->naxes + a])
			return true;
	return false;
}

/* Whether tensor t holds a partial sum: the walk's, or those a nest on sequence blocks leaves
 * in its kernel. */
typedef bool (*partial_fn)(const void *ctx, int t);

static bool walk_partial(const void *ctx, int t)
{
	return is_partial(ctx, t);
}

static bool holds_by(const solar_expr *e, partial_fn partial, const void *ctx)
{
	if (e->kind == SOLAR_E_ACCESS && partial(ctx, e->sym))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (holds_by(e->args[i], partial, ctx))
			return true;
	return false;
}

static bool holds_partial(const walk *w, const solar_expr *e)
{
	return holds_by(e, walk_partial, w);
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
static bool linear_by(const solar_expr *e, partial_fn partial, const void *ctx)
{
	switch (e->kind) {
	case SOLAR_E_ACCESS:
		return partial(ctx, e->sym);
	case SOLAR_E_CAST:
	case SOLAR_E_NEG:
		return linear_by(e->args[0], partial, ctx);
	case SOLAR_E_BIN:
		if (e->binop == SOLAR_OP_MUL || e->binop == SOLAR_OP_DIV) /* by a number: a mean */
			return (linear_by(e->args[0], partial, ctx) &&
				!solar_ir_index_reads_data(e->args[1])) ||
			       (e->binop == SOLAR_OP_MUL && linear_by(e->args[1], partial, ctx) &&
				!solar_ir_index_reads_data(e->args[0]));
		return (e->binop == SOLAR_OP_ADD || e->binop == SOLAR_OP_SUB) &&
		       linear_by(e->args[0], partial, ctx) && linear_by(e->args[1], partial, ctx);
	default:
		return false;
	}
}

static bool linear(const walk *w, const solar_expr *e)
{
	return linear_by(e, walk_partial, w);
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
		w->pend[w->nreduce++] = (struct pending){before, t, a, red, w->group_of[t], -1};
		w->partial[t * s->naxes + a] = 0;
	}
}

/* The distribution loop of top-level node x: the first loop of its perfect chain of loops
 * whose body has several items (NULL: none); *depth: the loops down to it. */
static const solar_node *distribution_loop(const solar_node *x, int *depth)
{
	*depth = 0;
	while (x && x->kind == SOLAR_N_FOR) {
		++*depth;
		if (x->loop.body.n != 1 || x->loop.body.items[0]->kind != SOLAR_N_FOR)
			return x->loop.body.n > 1 ? x : NULL;
		x = x->loop.body.items[0];
	}
	return NULL;
}

/* Whether every access of tensor t in a block is at exactly the chain's iterators (one per
 * loop of the chain, each a whole index position): one element per iteration of the
 * distributed loops. */
typedef struct {
	const solar_node *chain[SOLAR_MAX_NESTING + 1];
	int depth, t;
	bool ok;
} per_iteration;

static void per_iteration_access(per_iteration *c, const solar_program *p, int t,
				 solar_expr *const *index)
{
	if (t != c->t)
		return;
	const solar_tensor *x = &p->tensors[t];
	for (int l = 0; l < c->depth; l++) {
		bool found = false;
		for (int d = 0; d < x->rank; d++)
			found |= index[d]->kind == SOLAR_E_ITER &&
				 index[d]->sym == c->chain[l]->loop.iter;
		c->ok &= found;
	}
}

static void per_iteration_expr(per_iteration *c, const solar_program *p, const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS)
		per_iteration_access(c, p, e->sym, e->args);
	for (int i = 0; i < e->nargs; i++)
		per_iteration_expr(c, p, e->args[i]);
}

static void per_iteration_block(per_iteration *c, const solar_program *p, const solar_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const solar_node *n = b->items[i];
		if (n->kind == SOLAR_N_FOR) {
			per_iteration_expr(c, p, n->loop.lo);
			per_iteration_expr(c, p, n->loop.hi);
			per_iteration_block(c, p, &n->loop.body);
		} else if (n->kind == SOLAR_N_IF) {
			per_iteration_expr(c, p, n->cond.cond);
			per_iteration_block(c, p, &n->cond.then);
			per_iteration_block(c, p, &n->cond.els);
		} else {
			per_iteration_access(c, p, n->stmt->tensor, n->stmt->index);
			per_iteration_expr(c, p, n->stmt->value);
			for (int d = 0; d < p->tensors[n->stmt->tensor].rank; d++)
				per_iteration_expr(c, p, n->stmt->index[d]);
		}
	}
}

typedef struct {
	int t;
	bool hit, wrote;
} touch;

static void touch_visit(void *ctx, int tensor, bool write)
{
	touch *h = ctx;
	h->hit |= tensor == h->t;
	h->wrote |= tensor == h->t && write;
}

/* Whether items [0, seg) and [seg, n) of node's distribution loop L may run as two nests,
 * the first for every iteration of the chain before the second (loop distribution): every
 * tensor that both touch and one writes is touched at exactly the chain's iterators on both
 * sides, so each iteration's element is its own (the row maximum m[i0] of a softmax, not a
 * scalar reused from row to row), and no dependence crosses iterations. */
static bool distributable(const solar_program *p, const solar_node *x, int seg)
{
	per_iteration c = {.ok = true};
	const solar_node *L = distribution_loop(x, &c.depth);
	if (!L || seg <= 0 || seg >= L->loop.body.n)
		return false;
	const solar_node *n = x;
	for (int l = 0; l < c.depth; l++, n = n->loop.body.items[0])
		c.chain[l] = n;
	for (int t = 0; t < p->ntensors && c.ok; t++) {
		bool before = false, after = false, wrote = false;
		for (int i = 0; i < L->loop.body.n; i++) {
			touch h = {.t = t};
			solar_ir_node_tensors(p, L->loop.body.items[i], touch_visit, &h);
			if (h.hit)
				*(i < seg ? &before : &after) = true;
			wrote |= h.wrote;
		}
		if (!before || !after || !wrote) /* a tensor both only read is no dependence */
			continue;
		c.t = t;
		per_iteration_block(&c, p, &L->loop.body);
	}
	return c.ok;
}

/* Tensor t, a partial sum this kernel made, is read by the statement the walk is at, not
 * linearly: the kernel can be cut there (an all-reduce between two kernels) when the read is
 * in a later top-level node, or in a later item of the same node's distribution loop and the
 * loop distributes.  The cut's index in w->cuts (recorded once; the walk meets the reads in
 * program order, so each kernel's cuts are in order), or -1 when it cannot. */
static int cut(walk *w, int t)
{
	const solar_program *p = w->s->p;
	struct cut c = {w->k, w->node, -1};
	if (w->node == w->made_node[t])
		c.seg = w->seg;
	if (w->node < w->made_node[t] || (c.seg >= 0 && c.seg <= w->made_seg[t]) ||
	    (c.seg >= 0 && !distributable(p, p->kernels[w->k].body.items[w->node], c.seg)) ||
	    (w->node == w->made_node[t] && c.seg < 0))
		return -1;
	for (int i = 0; i < w->ncuts; i++)
		if (w->cuts[i].k == c.k && w->cuts[i].node == c.node && w->cuts[i].seg == c.seg)
			return i; /* already cut here */
	w->cuts = solar_xrealloc(w->cuts, (size_t)(w->ncuts + 1) * sizeof *w->cuts);
	w->cuts[w->ncuts] = c;
	return w->ncuts++;
}

/* Whether st stores a partial sum it reads into a wider dtype (a bf16 residual cast to f32
 * for a norm): carried on, the all-reduce would move twice the bytes, so it is reduced
 * before, where it is narrow (as Megatron reduces the bf16 output of a row-parallel linear). */
static bool widens(const walk *w, const solar_stmt *st)
{
	const shard *s = w->s;
	const solar_program *p = s->p;
	int bytes = solar_dtype_bytes(p->tensors[st->tensor].dtype);
	for (int t = 0; t < p->ntensors; t++) {
		if (!solar_ir_expr_reads(st->value, t) ||
		    solar_dtype_bytes(p->tensors[t].dtype) >= bytes)
			continue;
		for (int a = 0; a < s->naxes; a++) /* dp: a gradient, reduced as its parameter is
						    * held (DDP and ZeRO reduce the f32 master's) */
			if (w->partial[t * s->naxes + a] && strcmp(s->axes[a].axis, "dp"))
				return true;
	}
	return false;
}

/* The partial sums statement st reads: linear (its target becomes partial) or whole first. */
static void reads_partial(walk *w, const solar_stmt *st)
{
	shard *s = w->s;
	const solar_program *p = s->p;
	if (!holds_partial(w, st->value))
		return;
	if ((st->op == SOLAR_ASSIGN || st->op == SOLAR_ADD_TO) && linear(w, st->value) &&
	    !widens(w, st) &&
	    (st->op == SOLAR_ASSIGN || is_partial(w, st->tensor) || w->made[st->tensor])) {
		for (int t = 0; t < p->ntensors; t++)
			if (is_partial(w, t) && solar_ir_expr_reads(st->value, t))
				for (int a = 0; a < s->naxes; a++)
					if (w->partial[t * s->naxes + a])
						w->partial[st->tensor * s->naxes + a] =
						    w->partial[t * s->naxes + a];
		made(w, st->tensor);
		return;
	}
	for (int t = 0; t < p->ntensors; t++) {
		if (!is_partial(w, t) || !solar_ir_expr_reads(st->value, t))
			continue;
		int at = w->made[t] ? cut(w, t) : -1;
		if (at >= 0) {
			pend(w, w->k, t); /* made whole at the cut, inside this kernel */
			w->pend[w->nreduce - 1].cut = at;
			continue;
		}
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

/* Statement st, a reduction over loop L, which axis a splits: its target a partial sum over a
 * (or an error, rule 3), unless the target is split by a too. */
static void reduction(walk *w, const solar_stmt *st, const solar_node *L, int a)
{
	shard *s = w->s;
	const solar_program *p = s->p;
	const solar_tensor *t = &p->tensors[st->tensor];
	for (int d = 0; d < t->rank; d++)
		if (axis_of(s, t->dims[d]) == a)
			return; /* a reduction inside the rank's own block */
	if (st->op == SOLAR_MUL_TO || st->op == SOLAR_MIN_TO || t->role == SOLAR_ROLE_INOUT) {
		solar_diag_error(s->d, st->span,
				 "this statement reduces over '%s', which %s splits, into "
				 "'%s' with %s: only a sum (+=) or a max (max=) into an `out` "
				 "or `tmp` tensor can be made whole by an all-reduce",
				 p->iters[L->loop.iter].name, s->axes[a].axis, t->name,
				 t->role == SOLAR_ROLE_INOUT ? "an inout target"
							     : solar_assign_text(st->op));
		s->errors++;
		return;
	}
	w->partial[st->tensor * s->naxes + a] = st->op == SOLAR_MAX_TO ? 2 : 1;
	made(w, st->tensor);
}

/* ---- reads and stores by data into a split dimension ------------------------------------ */

/* The dimension of an access to tensor t whose index reads data and which an axis splits (a
 * token's row of a vocabulary split over tp), -1 for none. */
static int data_split_dim(const shard *s, int t, solar_expr *const *index)
{
	for (int d = 0; d < s->p->tensors[t].rank; d++)
		if (s->split_dim[t][d] >= 0 && solar_ir_index_reads_data(index[d]))
			return d;
	return -1;
}

/* The picks of a value: reads by data into a split dimension, by tensor, with their axis. */
typedef struct {
	const walk *w;
	signed char *pick; /* per tensor: 1 read by a pick, 2 also read otherwise */
	int axis;	   /* the picks' axis; -2 when two differ */
} picks;

static void picks_of(picks *c, const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS) {
		int d = data_split_dim(c->w->s, e->sym, e->args);
		if (d >= 0) {
			int a = c->w->s->split_dim[e->sym][d];
			c->axis = c->axis == -1 || c->axis == a ? a : -2;
		}
		c->pick[e->sym] |= d >= 0 ? 1 : 2;
	}
	for (int i = 0; i < e->nargs; i++)
		picks_of(c, e->args[i]);
}

static bool pick_or_partial(const void *ctx, int t)
{
	const picks *c = ctx;
	return c->pick[t] == 1 || is_partial(c->w, t);
}

/* Rule "reads by data" (docs/shard.md): a read whose index into a dimension an axis splits
 * reads data (`E[ids[b, s], h]`, `logp[i, labels[i]]`) finds its element on one rank only, the
 * one whose block holds it; every rank reads its clamped block and keeps the value where the
 * index falls in its block, 0 elsewhere (rank_text's pick_access), so that the sum over the
 * ranks is the element: Megatron's vocab-parallel embedding and cross-entropy.  The statement
 * must be linear in the read (the target is then a partial sum over the axis), into a tensor
 * that axis does not split.  A store by data into a split dimension (the embedding's
 * gradient, `g[ids[b, s], h] += dy`) accumulates on the rank whose block holds the row
 * (pick_store): it must be a `+=`. */
static void data_split(walk *w, const solar_stmt *st)
{
	shard *s = w->s;
	const solar_program *p = s->p;
	const solar_tensor *t = &p->tensors[st->tensor];
	int sd = data_split_dim(s, st->tensor, st->index);
	if (sd >= 0 && st->op != SOLAR_ADD_TO) {
		solar_diag_error(s->d, st->span,
				 "this statement stores into '%s' at a row its data chooses, in "
				 "dimension %d, which %s splits: only a sum (+=) can be split so, "
				 "each rank adding the rows its block holds",
				 t->name, sd, s->axes[s->split_dim[st->tensor][sd]].axis);
		s->errors++;
	}
	picks c = {.w = w, .axis = -1};
	c.pick = solar_xcalloc((size_t)p->ntensors + 1, 1);
	picks_of(&c, st->value);
	if (c.axis == -1) {
		free(c.pick);
		return;
	}
	const char *why = NULL;
	bool mixed = false;
	for (int i = 0; i < p->ntensors; i++)
		mixed |= c.pick[i] == 3;
	for (int d = 0; d < t->rank && c.axis >= 0; d++)
		if (s->split_dim[st->tensor][d] == c.axis)
			why = "into a tensor the same axis splits";
	if (c.axis == -2)
		why = "by data into dimensions of two axes";
	else if (mixed)
		why = "by data and otherwise from one tensor";
	else if ((st->op != SOLAR_ASSIGN && st->op != SOLAR_ADD_TO) ||
		 !linear_by(st->value, pick_or_partial, &c))
		why = "and the statement is not a copy or a sum of it (= or +=, linear)";
	if (why) {
		solar_diag_error(s->d, st->span,
				 "this statement reads by data into a dimension %s splits, %s: "
				 "each rank holds one block of it, and the ranks' parts can be "
				 "summed into the element only through a copy or a sum",
				 c.axis >= 0 ? s->axes[c.axis].axis : "an axis", why);
		s->errors++;
	} else {
		w->partial[st->tensor * s->naxes + c.axis] = 1;
		made(w, st->tensor);
	}
	free(c.pick);
}

static void stmt(walk *w, const solar_stmt *st, const loop_stack *ls)
{
	shard *s = w->s;
	const solar_program *p = s->p;
	if (st->op == SOLAR_ASSIGN && !w->made[st->tensor] && !holds_partial(w, st->value))
		for (int a = 0; a < s->naxes; a++) /* overwritten with whole values */
			w->partial[st->tensor * s->naxes + a] = 0;
	data_split(w, st);
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
		if (a >= 0)
			reduction(w, st, L, a);
		/* a loop over the rank's block of the sequence: over tp too (the batch's tokens
		 * of BATCH * SEQ are over dp as well) */
		int q = w->iter_axis ? w->iter_axis[L->loop.iter] : -1;
		if (q >= 0 && q != a)
			reduction(w, st, L, q);
	}
}

static void block(walk *w, const solar_block *b, loop_stack *ls)
{
	for (int i = 0; i < b->n; i++) {
		const solar_node *n = b->items[i];
		if (w->dist && b == &w->dist->loop.body)
			w->seg = i;
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

/* The partial sums of the whole program, kernel by kernel, and the outputs still partial at
 * the end (made whole there); iter_axis as in walk. */
static void walk_run(walk *w, shard *s, const int *iter_axis)
{
	const solar_program *p = s->p;
	*w = (walk){.s = s, .iter_axis = iter_axis};
	w->partial = solar_xcalloc((size_t)p->ntensors * s->naxes + 1, 1);
	w->group_of = solar_xcalloc((size_t)p->ntensors + 1, sizeof *w->group_of);
	w->made = solar_xcalloc((size_t)p->ntensors + 1, sizeof *w->made);
	w->made_node = solar_xcalloc((size_t)p->ntensors + 1, sizeof *w->made_node);
	w->made_seg = solar_xcalloc((size_t)p->ntensors + 1, sizeof *w->made_seg);
	for (int k = 0; k < p->nkernels; k++) {
		w->k = k;
		memset(w->made, 0, (size_t)p->ntensors * sizeof *w->made);
		const solar_block *body = &p->kernels[k].body;
		for (int i = 0; i < body->n; i++) {
			int depth;
			w->node = i;
			w->seg = -1;
			w->dist = distribution_loop(body->items[i], &depth);
			loop_stack ls = {.n = 0};
			solar_block one = {.items = &body->items[i], .n = 1};
			block(w, &one, &ls);
		}
	}
	for (int t = 0; t < p->ntensors; t++)
		if (p->tensors[t].role == SOLAR_ROLE_OUT || p->tensors[t].role == SOLAR_ROLE_INOUT)
			pend(w, p->nkernels, t);
}

static void walk_free(walk *w)
{
	free(w->partial);
	free(w->group_of);
	free(w->made);
	free(w->made_node);
	free(w->made_seg);
	free(w->cuts);
	free(w->pend);
	*w = (walk){0};
}

/* ---- nests on blocks: ZeRO over dp, sequence parallelism over tp --------------------- */

/* --zero and --sequence-parallel are one mechanism over two axes (docs/shard.md, "ZeRO" and
 * "Sequence parallelism"): some top-level nests of the kernels (nodes) run on the rank's
 * block of one dimension, their loop over it 1/N as long; a tensor that only such nodes write
 * is held in blocks; a partial sum that only such nodes read is reduce-scattered into blocks
 * instead of all-reduced; a whole reader of a tensor held in blocks reads a copy all-gathered
 * before its kernel.  They differ in which nodes may run on blocks (ZeRO: pointwise nests;
 * sequence parallelism: nests whose loop over the sequence moves the sequence index alone) and
 * which tensors may be held (ZeRO: the optimizer's state and tmps; sequence parallelism: tmps
 * and the inputs, the rank's tokens). */

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

/* One node's access to one tensor (a node: a top-level item of a kernel's body).  at: every
 * access indexes the plan's dimension of the tensor by the node's split iterator (ZeRO's
 * pointwise nests always do). */
typedef struct {
	int node, tensor;
	bool rd, wr, at;
} zaccess;

/* What --zero or --sequence-parallel decided.  Node i of kernel k is node base[k] + i. */
typedef struct {
	int axis;      /* dp (ZeRO) or tp (sequence parallelism); -1: off */
	int64_t N;
	bool seq;      /* sequence parallelism: blocks of the sequence */
	const char *option; /* "--zero", "--sequence-parallel" */
	solar_expr_kind seq_kind; /* the sequence size: SOLAR_E_PARAM or SOLAR_E_CONST, */
	int seq_sym;		  /* its index */
	int64_t seq_value;	  /* and value */
	int *base;     /* per kernel: its first node's index */
	int *kernel;   /* per node: its kernel */
	bool *sharded; /* per node: runs on the rank's block */
	int *split_iter; /* per node on blocks: the iterator of its loop over the blocked dimension */
	zaccess *acc;  /* every node's accesses, node by node */
	int *node_acc; /* per node: its first access in acc (nnodes + 1 entries) */
	int *by_tensor, *tensor_acc; /* acc's indices tensor by tensor, in node order; per tensor
				      * its first in by_tensor (ntensors + 1 entries) */
	int *dim;      /* per tensor: the dimension in blocks (held or scattered), -1 none */
	bool *scatter; /* per tensor: a partial sum reduce-scattered instead of all-reduced */
	int *scatter_at; /* per tensor: the kernel before which it is reduce-scattered */
	int *gather;   /* per tensor: the kernel before which it is all-gathered, -1 none */
	char **full;   /* per tensor: the whole tensor's name (X_gathered, G_partial), or NULL */
	int nnodes, ntensors;
} blocks;

/* The plans of a program: ZeRO's and sequence parallelism's (axis -1 where off). */
enum { NPLANS = 2 };

static bool optimizer_kernel(const solar_kernel *kn)
{
	return kn->group && !strcmp(kn->group, "optimizer");
}

/* The dimension ZeRO splits in tensor t: its first that no axis splits yet and that N
 * divides; -1 when none. */
static int zero_dim(const shard *s, const blocks *z, int **split_dim, int t)
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

static bool is_seq_size(const blocks *z, const solar_expr *e)
{
	return e->kind == z->seq_kind && e->sym == z->seq_sym;
}

static bool is_iter(const solar_expr *e, int iter)
{
	return e->kind == SOLAR_E_ITER && e->sym == iter;
}

/* The value of extent or bound e on a rank: the whole model's, over N where it involves a size
 * an axis splits (rule 1's blocks). */
static int64_t rank_value(const shard *s, const solar_expr *e)
{
	int64_t v = solar_ir_eval_const(s->p, e);
	int a = axis_of(s, e);
	return a >= 0 ? v / s->axes[a].size : v;
}

/* Whether extent or loop bound e counts the rank's tokens: the sequence size, or a product of
 * it with a size that is 1 on the rank (the batch and the sequence in one dimension, as the
 * translated matmuls have them: BATCH * SEQ under dp = BATCH, one sequence per rank). */
static bool seq_extent(const shard *s, const blocks *z, const solar_expr *e)
{
	if (is_seq_size(z, e))
		return true;
	return e->kind == SOLAR_E_BIN && e->binop == SOLAR_OP_MUL &&
	       (is_seq_size(z, e->args[0]) || is_seq_size(z, e->args[1])) &&
	       rank_value(s, e) == z->seq_value;
}

/* Sequence parallelism needs one sequence per rank where a dimension holds the batch and the
 * sequence (the matmuls' [BATCH * SEQ, H] rows, batch-major): a block of those rows is not a
 * block of each sequence.  A partial sum over tp with such a dimension is an error at its
 * declaration. */
static int seq_batch(shard *s, const blocks *z, const walk *w)
{
	const solar_program *p = s->p;
	for (int i = 0; i < w->nreduce; i++) {
		const solar_tensor *t = &p->tensors[w->pend[i].tensor];
		if (w->pend[i].axis != z->axis)
			continue;
		for (int k = 0; k < t->rank; k++) {
			const solar_expr *e = t->dims[k];
			if (e->kind != SOLAR_E_BIN || e->binop != SOLAR_OP_MUL ||
			    !(is_seq_size(z, e->args[0]) || is_seq_size(z, e->args[1])) ||
			    rank_value(s, e) == z->seq_value)
				continue;
			solar_diag_error(s->d, t->span,
					 "--sequence-parallel: '%s', a partial sum over tp, holds %" PRId64
					 " sequences of %" PRId64 " tokens in dimension %d, batch-major: "
					 "a block of it is not a block of each sequence; shard one sequence "
					 "per rank (dp = the batch, or translate --batch 1)",
					 t->name, rank_value(s, e) / z->seq_value, z->seq_value, k);
			s->errors++;
			return -1;
		}
	}
	return 0;
}

/* The sequence dimension of tensor t: the one whose extent counts the rank's tokens, which no
 * other axis splits (but a tmp's batch and sequence in one, which dp splits); -1 when none, or
 * two (attention's scores: not a block of tokens). */
static int seq_dim(const shard *s, const blocks *z, int **split_dim, const solar_tensor *x,
		   int t)
{
	int d = -1;
	for (int k = 0; k < x->rank; k++)
		if (seq_extent(s, z, x->dims[k]) &&
		    (split_dim[t][k] < 0 ||
		     (split_dim[t][k] != z->axis && x->role == SOLAR_ROLE_TMP))) {
			if (d >= 0)
				return -1;
			d = k;
		}
	return d;
}

/* ZeRO's candidate: a pointwise nest, split along the dimension ZeRO holds of the tensor its
 * first statement writes; its iterator, -1 for none. */
static int zero_nest(const solar_program *p, const blocks *z, const solar_node *x)
{
	nest n;
	if (!pointwise(p, x, &n))
		return -1;
	const solar_stmt *st = n.loops[n.depth - 1]->loop.body.items[0]->stmt;
	int d = z->dim[st->tensor];
	return d >= 0 ? n.loops[d]->loop.iter : -1;
}

/* One node's check for sequence blocks: its loop over the sequence (iterator iter) and, per
 * tensor, whether an access does not index its sequence dimension by iter (off), and whether
 * the node leaves it a partial sum over tp (part: 1 a sum over iter, 2 a copy of one). */
typedef struct {
	const shard *s;
	const solar_program *p;
	const blocks *z;
	int iter;
	bool ok;
	bool *off;
	signed char *part;
	bool *once; /* per iterator: its loop runs once on the rank, from 0 (a batch of one) */
} seqcheck;

static void seq_expr(seqcheck *c, const solar_expr *e);

/* Whether index e is the rank's token at the iterator: i, i % SEQ, or i + j * SEQ where j's
 * loop runs once on the rank (the batch of one of a dimension that holds both). */
static bool seq_at(const seqcheck *c, const solar_expr *e)
{
	if (is_iter(e, c->iter))
		return true;
	if (e->kind != SOLAR_E_BIN)
		return false;
	const solar_expr *a = e->args[0], *b = e->args[1];
	if (e->binop == SOLAR_OP_MOD)
		return is_iter(a, c->iter) && is_seq_size(c->z, b);
	if (e->binop != SOLAR_OP_ADD)
		return false;
	if (!is_iter(a, c->iter)) {
		a = e->args[1];
		b = e->args[0];
	}
	if (!is_iter(a, c->iter) || b->kind != SOLAR_E_BIN || b->binop != SOLAR_OP_MUL)
		return false;
	const solar_expr *j = b->args[0], *n = b->args[1];
	if (j->kind != SOLAR_E_ITER) {
		j = b->args[1];
		n = b->args[0];
	}
	return j->kind == SOLAR_E_ITER && c->once[j->sym] && is_seq_size(c->z, n);
}

/* An access of tensor t: the iterator may be the rank's token (seq_at) in t's sequence
 * dimension and nowhere else (not in another index, not through data, not beside other
 * terms), but as i // SEQ, the batch of one. */
static void seq_access(seqcheck *c, int t, solar_expr *const *index, int rank)
{
	int d = c->z->dim[t];
	bool at = false;
	for (int k = 0; k < rank; k++) {
		const solar_expr *e = index[k];
		if (k == d && seq_at(c, e))
			at = true;
		else
			seq_expr(c, e);
	}
	c->off[t] |= !at;
}

static void seq_expr(seqcheck *c, const solar_expr *e)
{
	if (e->kind == SOLAR_E_BIN && e->binop == SOLAR_OP_FLOORDIV &&
	    is_iter(e->args[0], c->iter) && is_seq_size(c->z, e->args[1]))
		return; /* the batch index of a token: 0 on the rank, as on one sequence */
	if (e->kind == SOLAR_E_ITER)
		c->ok &= e->sym != c->iter; /* a token's position as a number: the rank's differs */
	else if (e->kind == SOLAR_E_ACCESS)
		seq_access(c, e->sym, e->args, e->nargs);
	else
		for (int i = 0; i < e->nargs; i++)
			seq_expr(c, e->args[i]);
}

static void seq_node(seqcheck *c, const solar_node *n, bool inside)
{
	if (n->kind == SOLAR_N_FOR) {
		seq_expr(c, n->loop.lo);
		seq_expr(c, n->loop.hi);
		c->once[n->loop.iter] = n->loop.lo->kind == SOLAR_E_INT && n->loop.lo->ival == 0 &&
					rank_value(c->s, n->loop.hi) == 1;
		for (int i = 0; i < n->loop.body.n; i++)
			seq_node(c, n->loop.body.items[i], inside || n->loop.iter == c->iter);
	} else if (n->kind == SOLAR_N_IF) {
		seq_expr(c, n->cond.cond);
		for (int i = 0; i < n->cond.then.n; i++)
			seq_node(c, n->cond.then.items[i], inside);
		for (int i = 0; i < n->cond.els.n; i++)
			seq_node(c, n->cond.els.items[i], inside);
	} else {
		const solar_stmt *st = n->stmt;
		const solar_tensor *t = &c->p->tensors[st->tensor];
		seq_access(c, st->tensor, st->index, t->rank);
		seq_expr(c, st->value);
		if (c->z->dim[st->tensor] < 0 && inside) { /* not along the sequence: a sum over it */
			c->ok &= (st->op == SOLAR_ADD_TO || st->op == SOLAR_MAX_TO) &&
				 (t->role == SOLAR_ROLE_OUT || t->role == SOLAR_ROLE_TMP);
			c->part[st->tensor] = 1;
		}
	}
}

/* The first loop of node n (outermost first) that `is` accepts, or NULL. */
typedef bool (*loop_fn)(const void *ctx, const solar_node *L);

static const solar_node *find_loop(const solar_node *n, loop_fn is, const void *ctx)
{
	const solar_block *b[2] = {NULL, NULL};
	if (n->kind == SOLAR_N_FOR) {
		if (is(ctx, n))
			return n;
		b[0] = &n->loop.body;
	} else if (n->kind == SOLAR_N_IF) {
		b[0] = &n->cond.then;
		b[1] = &n->cond.els;
	}
	for (int j = 0; j < 2 && b[j]; j++)
		for (int i = 0; i < b[j]->n; i++) {
			const solar_node *L = find_loop(b[j]->items[i], is, ctx);
			if (L)
				return L;
		}
	return NULL;
}

/* A loop from 0 in steps of 1 over the rank's tokens. */
static bool seq_loop(const void *ctx, const solar_node *L)
{
	const seqcheck *c = ctx;
	return L->loop.lo->kind == SOLAR_E_INT && L->loop.lo->ival == 0 &&
	       L->loop.step_value <= 1 && seq_extent(c->s, c->z, L->loop.hi);
}

static bool part_of(const void *ctx, int t)
{
	return ((const signed char *)ctx)[t] != 0;
}

/* Whether kernel k (statements stmts[from .. to)) only carries on the partial sums the node
 * leaves (rule 2's copies: the f32 accumulator copied into a gradient, a mean's division);
 * any other read of one, or one inside the loop over the sequence, would read a partial sum of
 * its own kernel, which no all-reduce can precede.  The copies' targets are partial too (2). */
static bool seq_carried(seqcheck *c, int from, int to)
{
	for (int j = from; j < to; j++) {
		const solar_stmt *st = c->p->stmts[j];
		if (!holds_by(st->value, part_of, c->part))
			continue;
		bool inside = false;
		for (int l = 0; l < st->depth; l++)
			inside |= st->loops[l] == c->iter;
		if (inside || !linear_by(st->value, part_of, c->part) ||
		    !(st->op == SOLAR_ASSIGN || (st->op == SOLAR_ADD_TO && c->part[st->tensor])))
			return false;
		if (!c->part[st->tensor])
			c->part[st->tensor] = 2;
	}
	return true;
}

/* Sequence parallelism's candidate (docs/shard.md, "Sequence parallelism", rule 1): a nest
 * with a loop from 0 over the sequence size whose iterator is the whole index of the sequence
 * dimension of every tensor that has one and that it reads there, and of every such tensor it
 * writes, and is nowhere else (not a value, a bound, a condition, another index); inside that
 * loop, what it writes without a sequence dimension it sums over the loop (+= or max= into an
 * out or tmp: a partial sum over tp), carried on only by copies in the rest of its kernel.  The
 * iterator, or -1. */
static int seq_nest(seqcheck *c, const int *kstmt, int k, const solar_node *x)
{
	const solar_node *L = find_loop(x, seq_loop, c);
	if (!L)
		return -1;
	c->iter = L->loop.iter;
	c->ok = true;
	seq_node(c, x, false);
	return c->ok && seq_carried(c, kstmt[k], kstmt[k + 1]) ? c->iter : -1;
}

static double tensor_bytes(const solar_tensor *t)
{
	double n = solar_dtype_bytes(t->dtype);
	for (int k = 0; k < t->rank; k++)
		n *= (double)t->extent[k];
	return n;
}

/* Each node's accesses (z->acc, z->node_acc) and whether it is a candidate for blocks, with its
 * split iterator; a node that the other plan runs on blocks is not one, nor, for sequence
 * parallelism, one that touches a tensor tp splits (tp's own work: its blocks are the heads).  state[t]: an inout
 * that an optimizer kernel writes (ZeRO's state).  Sequence parallelism's candidates leave no
 * partial sums larger than half of what they read along the sequence: all-reducing those moves
 * fewer bytes than all-gathering these would (a norm's weight gradient, H numbers, runs on
 * blocks and is all-reduced; the LM head's and the embedding's gradients, V x H, read their
 * operands gathered). */
static void blocks_nodes(const shard *s, blocks *z, const blocks *other, int **split_dim,
			 bool *state)
{
	const solar_program *p = s->p;
	int T = p->ntensors, K = p->nkernels, nacc = 0, cap = 0;
	bool *rd = solar_xcalloc((size_t)T + 1, 1), *wr = solar_xcalloc((size_t)T + 1, 1);
	seqcheck c = {.s = s, .p = p, .z = z};
	int *kstmt = NULL;
	if (z->seq) {
		c.off = solar_xcalloc((size_t)T + 1, sizeof *c.off);
		c.part = solar_xcalloc((size_t)T + 1, sizeof *c.part);
		c.once = solar_xcalloc((size_t)p->niters + 1, sizeof *c.once);
		kstmt = solar_xcalloc((size_t)K + 1, sizeof *kstmt);
		for (int j = 0, k = 0; k <= K; k++) {
			while (j < p->nstmts && p->stmts[j]->kernel < k)
				j++;
			kstmt[k] = j;
		}
	}
	for (int k = 0; k < K; k++)
		for (int i = 0; i < p->kernels[k].body.n; i++) {
			int m = z->base[k] + i, it = -1;
			const solar_node *x = p->kernels[k].body.items[i];
			z->kernel[m] = k;
			z->node_acc[m] = nacc;
			if (!other || !other->sharded[m])
				it = z->seq ? seq_nest(&c, kstmt, k, x) : zero_nest(p, z, x);
			solar_ir_node_tensors(p, x, flag, &(flags){rd, wr});
			double summed = 0, read = 0;
			for (int t = 0; t < T; t++) {
				if (!rd[t] && !wr[t])
					continue;
				bool at = !z->seq || !c.off[t];
				if (z->seq && it >= 0) {
					for (int d = 0; d < p->tensors[t].rank; d++)
						if (split_dim[t][d] == z->axis) /* tp's heads */
							it = -1;
					if (wr[t] && z->dim[t] >= 0 && !at)
						it = -1;
					summed += c.part[t] == 1 ? tensor_bytes(&p->tensors[t]) : 0;
					read += rd[t] && at && z->dim[t] >= 0
						    ? tensor_bytes(&p->tensors[t])
						    : 0;
				}
				if (nacc == cap) {
					cap = cap ? 2 * cap : 1024;
					z->acc = solar_xrealloc(z->acc, (size_t)cap * sizeof *z->acc);
				}
				z->acc[nacc++] = (zaccess){m, t, rd[t], wr[t], at};
				state[t] |= wr[t] && optimizer_kernel(&p->kernels[k]) &&
					    p->tensors[t].role == SOLAR_ROLE_INOUT;
				rd[t] = wr[t] = false;
				if (c.off)
					c.off[t] = false;
			}
			if (summed > 0 && 2 * summed >= read)
				it = -1;
			for (int j = kstmt ? kstmt[k] : 0; kstmt && j < kstmt[k + 1]; j++)
				c.part[p->stmts[j]->tensor] = 0;
			z->sharded[m] = it >= 0;
			z->split_iter[m] = it;
		}
	z->node_acc[z->nnodes] = nacc;
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
	free(rd);
	free(wr);
	free(c.off);
	free(c.part);
	free(c.once);
	free(kstmt);
}

/* Which tensors may be held in blocks, given which nodes run on them: every node that writes
 * it runs on blocks (an input: none writes it, and one on blocks reads it), no block of it is
 * written between its gather and its last whole read, it has the plan's dimension, no partial
 * sum of the plan's axis is pending on it, and it is ZeRO's state or a tmp (ZeRO), a tmp or an
 * input (sequence parallelism).  The gathers and the scatters follow. */
static void blocks_held(const solar_program *p, blocks *z, const bool *state,
			const int *pend_before, bool *held)
{
	for (int t = 0; t < p->ntensors; t++) {
		bool written = false, all = true, stale = false, sc = true, read_on_blocks = false;
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
			read_on_blocks |= x->rd && x->at && z->sharded[x->node];
			/* a partial sum: read, from its pending all-reduce on, on blocks only */
			if (x->rd && k >= pend_before[t] && !z->sharded[x->node])
				sc = false;
		}
		/* all-gathered once, before its first whole reader: no write of its blocks may
		 * come between that gather and its last whole read */
		for (int j = z->tensor_acc[t]; j < z->tensor_acc[t + 1] && first_whole >= 0; j++) {
			const zaccess *x = &z->acc[z->by_tensor[j]];
			int k = z->kernel[x->node];
			stale |= x->wr && k >= first_whole && k <= last_whole;
		}
		solar_role role = p->tensors[t].role;
		bool kind = z->seq ? (role == SOLAR_ROLE_TMP && written && all) ||
					 (role == SOLAR_ROLE_IN && !written && read_on_blocks)
				   : written && all &&
					 ((state[t] && role == SOLAR_ROLE_INOUT) || role == SOLAR_ROLE_TMP);
		held[t] = kind && !stale && z->dim[t] >= 0 && pend_before[t] < 0;
		z->gather[t] = held[t] ? first_whole : -1;
		z->scatter[t] = sc && pend_before[t] >= 0 && z->dim[t] >= 0;
	}
}

/* The plan: the greatest set of candidate nodes that can run on the rank's block, each
 * reading at least one tensor held in blocks or reduce-scattered to them, reading and writing
 * every tensor of the plan's dimension at its split iterator in blocks, and nothing held in
 * blocks otherwise (blocks_held says which tensors are held).  A partial sum over the plan's
 * axis whose all-reduce is pending and that only such nests read is reduce-scattered instead.
 * Any other node reading a tensor held in blocks reads it whole, all-gathered before its
 * kernel.  other: the plan built first, whose nodes on blocks this one leaves alone. */
static void blocks_build(shard *s, blocks *z, int **split_dim, const walk *w, const blocks *other)
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
	for (int t = 0; t < T; t++) {
		z->dim[t] = z->seq ? seq_dim(s, z, split_dim, &p->tensors[t], t)
				   : zero_dim(s, z, split_dim, t);
		pend_before[t] = -1;
	}
	for (int i = 0; i < w->nreduce; i++)
		if (w->pend[i].axis == z->axis && w->pend[i].red == 1 &&
		    w->pend[i].before < K)
			pend_before[w->pend[i].tensor] = w->pend[i].before;
	blocks_nodes(s, z, other, split_dim, state);
	for (bool changed = true; changed;) {
		changed = false;
		blocks_held(p, z, state, pend_before, held);
		/* a nest stays on blocks when it reads one, reads and writes every tensor of the
		 * plan's dimension in blocks, and reads nothing else held in blocks */
		for (int m = 0; m < M; m++) {
			if (!z->sharded[m])
				continue;
			bool rooted = false, ok = true;
			for (int a = z->node_acc[m]; a < z->node_acc[m + 1] && ok; a++) {
				const zaccess *x = &z->acc[a];
				int t = x->tensor;
				if (!p->tensors[t].rank)
					continue;
				if (x->at)
					ok = !(x->wr && !held[t]) &&
					     !(x->rd && !held[t] && !z->scatter[t]);
				else
					ok = !held[t] && !z->scatter[t];
				rooted |= x->rd && x->at && (held[t] || z->scatter[t]);
			}
			if (!ok || !rooted) {
				z->sharded[m] = false;
				changed = true;
			}
		}
	}
	/* a partial sum is reduce-scattered right after the kernel that last makes it partial,
	 * so that it is whole no longer than there (ZeRO-2's buckets), unless a kernel before its
	 * first reader on blocks carries it on (then right before that reader) */
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
	free(state);
	free(held);
	free(pend_before);
}

static void blocks_free(blocks *z)
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

/* The axis named `name`, which the mesh must have (else a tool error naming the option). */
static int blocks_axis(shard *s, blocks *z, const char *name, const char *why)
{
	for (int a = 0; a < s->naxes; a++)
		if (!strcmp(s->axes[a].axis, name)) {
			z->axis = a;
			z->N = s->axes[a].size;
			return 0;
		}
	solar_diag_tool_error(s->tool, "%s %s: the mesh has no %s axis (--mesh %s=N,...)",
			      z->option, why, name, name);
	s->errors++;
	return -1;
}

/* The usual names of the sequence size (translated language models: SEQ). */
static const char *const seq_names[] = {"SEQ", "S", "seq", "seq_len", NULL};

/* --sequence-parallel's axis, tp, and the sequence size: the first of seq_names the program
 * has, a param or const that no axis splits and that tp divides. */
static int seq_start(shard *s, blocks *z)
{
	const solar_program *p = s->p;
	z->seq = true;
	z->option = "--sequence-parallel";
	if (blocks_axis(s, z, "tp", "splits the sequence over tp") < 0)
		return -1;
	for (int n = 0; seq_names[n]; n++) {
		int64_t v = 0;
		solar_span at = {0, 0};
		int *slot = size_named(s, seq_names[n], &z->seq_kind, &z->seq_sym, &v, &at);
		if (!slot || *slot >= 0)
			continue;
		z->seq_value = v;
		if (v % z->N == 0)
			return 0;
		solar_diag_error(s->d, at,
				 "'%s' is %" PRId64 ", which tp = %" PRId64
				 " does not divide: --sequence-parallel splits the sequence into "
				 "tp equal blocks",
				 seq_names[n], v, z->N);
		s->errors++;
		return -1;
	}
	solar_diag_tool_error(s->tool,
			      "--sequence-parallel: %s has no sequence size to split (a param or "
			      "const named SEQ, S, seq or seq_len that no axis splits)",
			      p->file);
	s->errors++;
	return -1;
}

/* The reduce-scatters and all-gathers a plan puts before kernel k: the partial sums made
 * whole in blocks there, the blocks a whole reader in k needs. */
static void blocks_collectives(const solar_program *p, const blocks *z,
			       const solar_shard_axis *axes, int k, FILE *f)
{
	if (z->axis < 0)
		return;
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
static int verify(shard *s, const char *text, int **split_dim, const blocks *plans)
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
			for (int j = 0; j < NPLANS; j++) /* a tmp's tokens, split by dp and tp */
				if (plans[j].axis >= 0 && plans[j].dim[i] == k && plans[j].axis != a)
					N *= plans[j].N;
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

/* Tensor t's name and extents, the dimension a plan holds in blocks (zdim >= 0) as the rank's
 * block of it. */
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

/* The loop of the iterator *ctx. */
static bool loop_of(const void *ctx, const solar_node *L)
{
	return L->loop.iter == *(const int *)ctx;
}

/* Kernel k's node i as the rank runs it: on a plan's block (its loop over the plan's
 * dimension 1/N as long), or whole, reading the gathered tensors. */
static void print_node(const solar_program *p, const blocks *plans, int k, int i,
		       const solar_node *x, const solar_print_opts *base, FILE *f)
{
	solar_print_opts o = *base;
	const char **names = NULL, **hi = NULL;
	char *hi_text = NULL;
	for (int j = 0; j < NPLANS; j++) {
		const blocks *z = &plans[j];
		if (z->axis < 0)
			continue;
		int m = z->base[k] + i;
		if (!names)
			names = solar_xcalloc((size_t)p->ntensors + 1, sizeof *names);
		for (int t = 0; t < p->ntensors; t++)
			if (z->full[t] && ((z->scatter[t] && k < z->scatter_at[t]) ||
					   (!z->scatter[t] && !z->sharded[m] && k >= z->gather[t])))
				names[t] = z->full[t];
		o.tensor_text = names;
		if (z->sharded[m]) {
			const solar_node *L = find_loop(x, loop_of, &z->split_iter[m]);
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

/* The kernel of pending all-reduce q: `kernel T_all_reduce_A [group = G] { all_reduce(A, sum) T; }`. */
static void print_all_reduce(const solar_program *p, const struct pending *q,
			     const solar_shard_axis *axes, FILE *f)
{
	const char *g = p->kernels[q->group].group;
	fprintf(f, "\nkernel %s_all_reduce_%s ", p->tensors[q->tensor].name, axes[q->axis].axis);
	if (g)
		fprintf(f, "[group = %s] ", g);
	fprintf(f, "{ all_reduce(%s, %s) %s; }\n", axes[q->axis].axis, q->red == 2 ? "max" : "sum",
		p->tensors[q->tensor].name);
}

/* The all-reduces before kernel k (rule 2), but of a partial sum a plan reduce-scatters over
 * its own axis.  late: only those of tensors a plan reduce-scatters over another axis, which
 * come after that reduce-scatter (a norm's weight gradient, partial over tp under
 * --sequence-parallel, all-reduced over tp in its ZeRO block); else only the others. */
static void print_all_reduces(const solar_program *p, const walk *w, const blocks *plans,
			      const solar_shard_axis *axes, int k, bool late, FILE *f)
{
	for (int i = 0; i < w->nreduce; i++) {
		const struct pending *q = &w->pend[i];
		bool same = false, other = false;
		for (int j = 0; j < NPLANS; j++)
			if (plans[j].axis >= 0 && plans[j].scatter[q->tensor]) {
				same |= q->axis == plans[j].axis;
				other |= q->axis != plans[j].axis;
			}
		if (q->before != k || q->cut >= 0 || same || other != late)
			continue;
		print_all_reduce(p, q, axes, f);
	}
}

/* A tensor's value range (AIR 1.1), after its layout. */
static void print_range(const solar_program *p, const solar_tensor *t, const solar_print_opts *o,
			FILE *f)
{
	if (!t->range_hi)
		return;
	solar_print_opts whole = *o; /* values: the whole model's (ids in 0..VOCAB) */
	whole.param_text = NULL;
	fputs(" in ", f);
	solar_ir_print_expr_with(p, t->range_lo, &whole, f);
	fputs("..", f);
	solar_ir_print_expr_with(p, t->range_hi, &whole, f);
}

/* The tensors' declarations: each with the block a plan holds of it, its layout, and the whole
 * tensors the plans' collectives gather into and scatter from. */
static void print_decls(const solar_program *p, const blocks *plans, int **split_dim,
			const solar_shard_axis *axes, const solar_print_opts *o, FILE *f)
{
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		int zdim = -1;
		int64_t N = 1;
		for (int j = 0; j < NPLANS; j++)
			if (plans[j].axis >= 0 && plans[j].dim[i] >= 0) {
				zdim = plans[j].dim[i];
				N = plans[j].N;
			}
		fprintf(f, "%s ", solar_role_name(t->role));
		print_decl(p, t, t->name, zdim, N, o, f);
		fprintf(f, ": %s", solar_dtype_name(t->dtype));
		if (t->dist != SOLAR_DIST_NONE)
			fprintf(f, " %s", solar_dist_name(t->dist));
		if (t->role != SOLAR_ROLE_TMP && t->role != SOLAR_ROLE_RAND)
			for (int k = 0; k < t->rank; k++)
				if (split_dim[i][k] >= 0)
					fprintf(f, " split(%s, %d)", axes[split_dim[i][k]].axis, k);
		print_range(p, t, o, f);
		fputs(";\n", f);
	}
	for (int j = 0; j < NPLANS; j++)
		for (int i = 0; plans[j].axis >= 0 && i < p->ntensors; i++) {
			const solar_tensor *t = &p->tensors[i];
			if (!plans[j].full[i])
				continue;
			fputs("tmp ", f);
			print_decl(p, t, plans[j].full[i], -1, 1, o, f);
			fprintf(f, ": %s", solar_dtype_name(t->dtype));
			print_range(p, t, o, f); /* the token ids, gathered where read whole */
			fprintf(f, ";   # %s whole (%s)\n", t->name, plans[j].option);
		}
}

/* The layout of every tensor: split along the dimension whose extent a split size sets
 * (split_dim[t][k]: the axis, -1), or NULL after errors. */
static int **layouts(shard *s)
{
	const solar_program *p = s->p;
	int **split_dim = solar_xcalloc((size_t)p->ntensors + 1, sizeof *split_dim);
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		split_dim[i] = solar_xcalloc((size_t)t->rank + 1, sizeof **split_dim);
		bool *used = solar_xcalloc((size_t)s->naxes + 1, sizeof *used);
		for (int k = 0; k < t->rank; k++) {
			int a = axis_of(s, t->dims[k]);
			split_dim[i][k] = a >= 0 ? a : -1;
			if (a == -2) {
				solar_diag_error(s->d, t->span,
						 "dimension %d of '%s' is split by two axes", k, t->name);
				s->errors++;
			} else if (a >= 0 && used[a]) {
				solar_diag_error(s->d, t->span,
						 "'%s' would be split twice by %s (dimension %d too)",
						 t->name, s->axes[a].axis, k);
				s->errors++;
			}
			if (a >= 0)
				used[a] = true;
		}
		free(used);
	}
	return split_dim;
}

/* The plans the options ask for, sequence parallelism's first (plans[1]), then ZeRO's
 * (plans[0]), and each one's blocks in the layouts.  After sequence parallelism's, the partial
 * sums are found again with its loops on blocks: what a nest on the rank's tokens sums over
 * them (a norm's weight gradient, the loss) is a partial sum over tp. */
static int plan(shard *s, blocks *plans, int **split_dim, walk *w, const solar_shard_opts *o)
{
	const solar_program *p = s->p;
	blocks *z = &plans[0], *q = &plans[1];
	if (o->sequence_parallel) {
		if (seq_start(s, q) < 0 || seq_batch(s, q, w) < 0)
			return -1;
		blocks_build(s, q, split_dim, w, NULL);
		int *iter_axis = solar_xcalloc((size_t)p->niters + 1, sizeof *iter_axis);
		bool any = false;
		for (int i = 0; i < p->niters; i++)
			iter_axis[i] = -1;
		for (int m = 0; m < q->nnodes; m++)
			if (q->sharded[m]) {
				iter_axis[q->split_iter[m]] = q->axis;
				any = true;
			}
		walk_free(w);
		walk_run(w, s, iter_axis);
		free(iter_axis);
		if (!any) {
			solar_diag_tool_error(s->tool,
					      "--sequence-parallel: no nest of %s can run on blocks of "
					      "the sequence over tp (a loop over it around the norms and "
					      "residual adds between the linears)",
					      p->file);
			s->errors++;
		}
		if (s->errors)
			return -1;
		for (int t = 0; t < p->ntensors; t++)
			if (q->dim[t] >= 0 && split_dim[t][q->dim[t]] < 0)
				split_dim[t][q->dim[t]] = q->axis;
	}
	if (o->zero) {
		z->option = "--zero";
		if (blocks_axis(s, z, "dp", "shards the optimizer's state over dp") < 0)
			return -1;
		blocks_build(s, z, split_dim, w, o->sequence_parallel ? q : NULL);
		bool any = false;
		for (int t = 0; t < p->ntensors; t++)
			if (z->dim[t] >= 0) {
				split_dim[t][z->dim[t]] = z->axis;
				any = true;
			}
		if (!any) {
			solar_diag_tool_error(s->tool,
					      "--zero: %s has no optimizer state to shard over %s (an "
					      "inout tensor that an optimizer kernel updates elementwise, "
					      "with a dimension %s divides): translate the step with "
					      "--train --optimizer sgd|adamw",
					      p->file, s->axes[z->axis].axis, s->axes[z->axis].axis);
			s->errors++;
			return -1;
		}
	}
	return 0;
}

/* ---- printing picks, iterators as values and cut kernels ----------------------------- */

/* `X >= rank(A) * B and X < (rank(A) + 1) * B`: X the data index of an access to tensor t in
 * its dimension dim, B the rank's block of it. */
static void in_block(const shard *s, int t, solar_expr *const *index, int dim,
		     const solar_print_opts *io, FILE *f)
{
	const char *A = s->axes[s->split_dim[t][dim]].axis;
	const solar_expr *x = index[dim], *extent = s->p->tensors[t].dims[dim];
	solar_ir_print_expr_with(s->p, x, io, f);
	fprintf(f, " >= rank(%s) * ", A);
	solar_ir_print_expr_with(s->p, extent, io, f);
	fputs(" and ", f);
	solar_ir_print_expr_with(s->p, x, io, f);
	fprintf(f, " < (rank(%s) + 1) * ", A);
	solar_ir_print_expr_with(s->p, extent, io, f);
}

/* NAME[.., min(max(X - rank(A) * B, 0), B - 1), ..]: the access inside the rank's block. */
static void clamped(const shard *s, int t, solar_expr *const *index, int dim,
		    const solar_print_opts *io, FILE *f)
{
	const solar_tensor *x = &s->p->tensors[t];
	const solar_expr *B = x->dims[dim];
	fputs(io->tensor_text && io->tensor_text[t] ? io->tensor_text[t] : x->name, f);
	fputc('[', f);
	for (int d = 0; d < x->rank; d++) {
		if (d)
			fputs(", ", f);
		if (d != dim) {
			solar_ir_print_expr_with(s->p, index[d], io, f);
			continue;
		}
		fputs("min(max(", f);
		solar_ir_print_expr_with(s->p, index[d], io, f);
		fprintf(f, " - rank(%s) * ", s->axes[s->split_dim[t][d]].axis);
		solar_ir_print_expr_with(s->p, B, io, f);
		fputs(", 0), ", f);
		solar_ir_print_expr_with(s->p, B, io, f);
		fputs(" - 1)", f);
	}
	fputc(']', f);
}

/* A pick (rule "reads by data"): select(in the rank's block, the clamped read, 0). */
static bool pick_access(void *ctx, const solar_expr *e, const solar_print_opts *o, FILE *f)
{
	const shard *s = ctx;
	int d = data_split_dim(s, e->sym, e->args);
	if (d < 0)
		return false;
	solar_print_opts io;
	solar_ir_print_index_opts(o, &io);
	fputs("select(", f);
	in_block(s, e->sym, e->args, d, &io, f);
	fputs(", ", f);
	clamped(s, e->sym, e->args, d, &io, f);
	fputs(", 0)", f);
	return true;
}

/* A store by data into a split dimension: the clamped row += the value where it is the
 * rank's, 0 elsewhere. */
static bool pick_store(void *ctx, const solar_stmt *st, const solar_print_opts *o, FILE *f)
{
	const shard *s = ctx;
	int d = data_split_dim(s, st->tensor, st->index);
	if (d < 0)
		return false;
	solar_print_opts io;
	solar_ir_print_index_opts(o, &io);
	clamped(s, st->tensor, st->index, d, &io, f);
	fputs(" += select(", f);
	in_block(s, st->tensor, st->index, d, &io, f);
	fputs(", ", f);
	solar_ir_print_value_with(s->p, st->value, o, f);
	fputs(", 0)", f);
	return true;
}

/* Per iterator of a loop from 0 over a split size (a rank's block of it), its position in the
 * whole where a value reads it: `(i + rank(A) * B)`, B the loop's bound on the rank (a token's
 * vocabulary index compared with its label); NULL for the others. */
static void iter_values(const shard *s, const solar_block *b, const solar_print_opts *o,
			char **text)
{
	for (int i = 0; i < b->n; i++) {
		const solar_node *n = b->items[i];
		if (n->kind == SOLAR_N_IF) {
			iter_values(s, &n->cond.then, o, text);
			iter_values(s, &n->cond.els, o, text);
		}
		if (n->kind != SOLAR_N_FOR)
			continue;
		int a = axis_of(s, n->loop.hi);
		if (a >= 0 && n->loop.lo->kind == SOLAR_E_INT && n->loop.lo->ival == 0 &&
		    !n->loop.step) {
			char *hi = expr_text(s->p, n->loop.hi, o);
			size_t len = strlen(hi) + strlen(s->p->iters[n->loop.iter].name) + 64;
			text[n->loop.iter] = solar_xmalloc(len);
			snprintf(text[n->loop.iter], len, "(%s + rank(%s) * %s)",
				 s->p->iters[n->loop.iter].name, s->axes[a].axis, hi);
			free(hi);
		}
		iter_values(s, &n->loop.body, o, text);
	}
}

/* The all-reduces at cut c (rule "cuts"), as kernels. */
static void print_cut_reduces(const solar_program *p, const walk *w, const solar_shard_axis *axes,
			      int c, FILE *f)
{
	for (int i = 0; i < w->nreduce; i++)
		if (w->pend[i].cut == c)
			print_all_reduce(p, &w->pend[i], axes, f);
}

/* Node x with its distribution loop's items [from, to) only (to < 0: to the end): copies of
 * its chain of loops (owned by *chain, which the caller frees with segment_free). */
static const solar_node *segment(const solar_node *x, int from, int to, solar_node **chain)
{
	int depth;
	const solar_node *L = distribution_loop(x, &depth);
	if (to < 0)
		to = L->loop.body.n;
	*chain = solar_xcalloc((size_t)depth + 1, sizeof **chain);
	const solar_node *n = x;
	for (int l = 0; l < depth; l++, n = n->loop.body.items[0]) {
		(*chain)[l] = *n;
		if (n == L) {
			(*chain)[l].loop.body.items = n->loop.body.items + from;
			(*chain)[l].loop.body.n = to - from;
			break;
		}
		(*chain)[l].loop.body.items = (solar_node **)solar_xmalloc(sizeof(solar_node *));
		(*chain)[l].loop.body.items[0] = &(*chain)[l + 1];
		(*chain)[l].loop.body.n = 1;
	}
	return &(*chain)[0];
}

static void segment_free(const solar_node *x, solar_node *chain)
{
	int depth;
	const solar_node *L = distribution_loop(x, &depth);
	const solar_node *n = x;
	for (int l = 0; l < depth && n != L; l++, n = n->loop.body.items[0])
		free(chain[l].loop.body.items);
	free(chain);
}

/* The cuts of kernel k, as indices into w->cuts: in order, as cut() records them. */
static int kernel_cuts(const walk *w, int k, int *out)
{
	int n = 0;
	for (int i = 0; i < w->ncuts; i++)
		if (w->cuts[i].k == k)
			out[n++] = i;
	return n;
}

/* `<kernel>_part<j>`, made longer until no kernel of the program has the name. */
static const char *piece_name(const solar_program *p, const char *kernel, int j, char *buf,
			      size_t n)
{
	snprintf(buf, n, "%s_part%d", kernel, j);
	for (bool taken = true; taken && strlen(buf) + 8 < n;) {
		taken = false;
		for (int k = 0; k < p->nkernels && !taken; k++)
			taken = !strcmp(p->kernels[k].name, buf);
		if (taken)
			strcat(buf, "_part");
	}
	return buf;
}

/* Kernel k, cut into pieces where an all-reduce must come inside it (rule "cuts",
 * docs/shard.md): piece j runs from cut j - 1 to cut j, the first keeps the kernel's name,
 * the others get `_part2`, `_part3`, ..., each with the kernel's attributes. */
static void print_kernel(const shard *s, const blocks *plans, const walk *w, int k,
			 const solar_print_opts *o, FILE *f)
{
	const solar_program *p = s->p;
	const solar_kernel *kn = &p->kernels[k];
	int *cuts = solar_xcalloc((size_t)w->ncuts + 1, sizeof *cuts);
	int ncuts = kernel_cuts(w, k, cuts);
	int node = 0, seg = -1; /* where the current piece starts */
	char name[512];
	for (int piece = 0; piece <= ncuts; piece++) {
		if (piece) {
			print_cut_reduces(p, w, s->axes, cuts[piece - 1], f);
			fprintf(f, "\nkernel %s ", piece_name(p, kn->name, piece + 1, name, sizeof name));
		} else {
			fprintf(f, "\nkernel %s ", kn->name);
		}
		solar_ir_print_kernel_attrs(kn, f);
		fputs("{\n", f);
		const struct cut *end = piece < ncuts ? &w->cuts[cuts[piece]] : NULL;
		int last = end ? end->node : kn->body.n;
		for (int i = node; i <= last && i < kn->body.n; i++) {
			int from = i == node && seg >= 0 ? seg : 0;
			int to = -1; /* the whole node */
			if (end && i == end->node) {
				if (end->seg < 0)
					break;
				to = end->seg;
			}
			const solar_node *x = kn->body.items[i];
			if (from == 0 && to < 0) {
				print_node(p, plans, k, i, x, o, f);
				continue;
			}
			solar_node *chain;
			const solar_node *y = segment(x, from, to, &chain);
			print_node(p, plans, k, i, y, o, f);
			segment_free(x, chain);
		}
		fputs("}\n", f);
		if (end) {
			node = end->node;
			seg = end->seg;
		}
	}
	free(cuts);
}

/* The rank's program as text: the header, the declarations, and the kernels with the
 * collectives before each. */
static char *rank_text(const shard *s, const blocks *plans, int **split_dim, const walk *w,
		       const char *cmdline)
{
	const solar_program *p = s->p;
	const solar_shard_axis *axes = s->axes;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		solar_out_of_memory();
	const char **ptext = solar_xcalloc((size_t)p->nparams + 1, sizeof *ptext);
	for (int i = 0; i < p->nparams; i++)
		if (s->param_axis[i] >= 0) {
			char buf[256];
			snprintf(buf, sizeof buf, "(%s // %" PRId64 ")", p->params[i].name,
				 axes[s->param_axis[i]].size);
			ptext[i] = solar_xstrdup(buf);
		}
	char **itext = solar_xcalloc((size_t)p->niters + 1, sizeof *itext);
	solar_print_opts o = {.param_text = ptext,
			      .values_by_name = true,
			      .access_hook = pick_access,
			      .stmt_hook = pick_store,
			      .hook_ctx = (void *)s};
	for (int k = 0; k < p->nkernels; k++)
		iter_values(s, &p->kernels[k].body, &o, itext);
	o.iter_value_text = (const char *const *)itext;
	/* the source's leading comments, then ours */
	for (const char *c = p->src; c && *c == '#';) {
		const char *nl = strchr(c, '\n');
		size_t n = nl ? (size_t)(nl - c + 1) : strlen(c);
		fwrite(c, 1, n, f);
		c += n;
	}
	fprintf(f, "# One rank's program: %s (docs/shard.md).\nair 1.2;\n\n", cmdline);
	for (int i = 0; i < p->nparams; i++)
		if (p->params[i].axis < 0) /* not rank(A) */
			fprintf(f, "param %s = %" PRId64 ";%s\n", p->params[i].name,
				p->params[i].value,
				s->param_axis[i] >= 0 ? "   # the whole model's; a rank holds 1/N"
						      : "");
	for (int i = 0; i < p->nconsts; i++) {
		int a = s->const_axis[i];
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
	for (int a = 0; a < s->naxes; a++)
		fprintf(f, "%s%s = %" PRId64, a ? ", " : "", axes[a].axis, axes[a].size);
	fputs(";\n\n", f);
	print_decls(p, plans, split_dim, axes, &o, f);
	for (int i = 0; i < p->nassumes; i++) {
		fprintf(f, "assume distinct(%s) >= ", p->tensors[p->assumes[i].tensor].name);
		solar_ir_print_expr_with(p, p->assumes[i].count, &o, f);
		fputs(";\n", f);
	}
	for (int k = 0; k <= p->nkernels; k++) {
		/* the collectives that make partial sums whole, or whole in blocks, and gather
		 * blocks, before this kernel reads them */
		print_all_reduces(p, w, plans, axes, k, false, f);
		blocks_collectives(p, &plans[0], axes, k, f);
		print_all_reduces(p, w, plans, axes, k, true, f);
		blocks_collectives(p, &plans[1], axes, k, f);
		if (k == p->nkernels)
			break;
		print_kernel(s, plans, w, k, &o, f);
	}
	if (fclose(f) != 0 || !text)
		solar_out_of_memory();
	for (int i = 0; i < p->nparams; i++)
		free((char *)ptext[i]);
	free(ptext);
	for (int i = 0; i < p->niters; i++)
		free(itext[i]);
	free(itext);
	return text;
}

/* The rank's program of the axes that split sizes (dp, tp, ...). */
static char *shard_sizes(const solar_program *p, const solar_shard_axis *axes, int naxes,
			 const solar_shard_opts *opts, const char *cmdline, solar_diag *d,
			 solar_diag *tool)
{
	shard s = {.p = p, .axes = axes, .naxes = naxes, .d = d, .tool = tool};
	blocks plans[NPLANS] = {{.axis = -1}, {.axis = -1}};
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
	split_dim = s.split_dim = layouts(&s);
	walk_run(&w, &s, NULL);
	if (s.errors || plan(&s, plans, split_dim, &w, opts) < 0)
		goto done;
	text = rank_text(&s, plans, split_dim, &w, cmdline);
	if (verify(&s, text, split_dim, plans) < 0) {
		free(text);
		text = NULL;
	}
done:
	if (split_dim)
		for (int i = 0; i < p->ntensors; i++)
			free(split_dim[i]);
	free(split_dim);
	walk_free(&w);
	free(s.param_axis);
	free(s.const_axis);
	for (int j = 0; j < NPLANS; j++)
		if (plans[j].base)
			blocks_free(&plans[j]);
	return text;
}

char *solar_shard(const solar_program *p, const solar_shard_axis *axes, int naxes,
		  const solar_shard_opts *opts, const char *cmdline, solar_diag *d, solar_diag *tool)
{
	int pp = 0;
	while (pp < naxes && strcmp(axes[pp].axis, "pp"))
		pp++;
	if (pp == naxes)
		return shard_sizes(p, axes, naxes, opts, cmdline, d, tool);
	if (p->nmesh) {
		solar_diag_error(d, p->mesh[0].span,
				 "the program has a mesh already: solar shard takes a one-GPU "
				 "program");
		return NULL;
	}
	if (naxes == 1)
		return solar_pipeline(p, "pp", axes[pp].size, opts->microbatches, &opts->pp_cut,
				      cmdline, d, tool);
	/* the other axes first, then the stages of that program */
	solar_shard_axis *rest = solar_xcalloc((size_t)naxes, sizeof *rest);
	for (int a = 0, n = 0; a < naxes; a++)
		if (a != pp)
			rest[n++] = axes[a];
	char *text = shard_sizes(p, rest, naxes - 1, opts, cmdline, d, tool), *out = NULL;
	free(rest);
	if (!text)
		return NULL;
	solar_diag *quiet = solar_diag_new(p->file, text, (int32_t)strlen(text), stderr);
	solar_program *q =
	    solar_frontend_load(p->file, text, (int32_t)strlen(text), NULL, 0, quiet);
	solar_diag_free(quiet);
	if (q)
		out = solar_pipeline(q, "pp", axes[pp].size, opts->microbatches, &opts->pp_cut,
				     cmdline, NULL, tool);
	solar_program_free(q);
	free(text);
	return out;
}
