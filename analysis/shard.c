/* shard.c - `solar shard` (shard.h, docs/shard.md): the rank's program of a one-GPU program. */
#include "shard.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag/alloc.h"

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
 * after it.  A product with a replicated factor is linear too, but would spread one partial
 * sum over several tensors, each then reduced: it ends the wait, so that no program shard
 * writes reduces more bytes than the reduction at the source would. */
static bool linear(const walk *w, const solar_expr *e)
{
	switch (e->kind) {
	case SOLAR_E_ACCESS:
		return is_partial(w, e->sym);
	case SOLAR_E_CAST:
	case SOLAR_E_NEG:
		return linear(w, e->args[0]);
	case SOLAR_E_BIN:
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
			in_store |= solar_ir_expr_uses_iter(st->index[d], L->loop.iter);
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

char *solar_shard(const solar_program *p, const solar_shard_axis *axes, int naxes,
		  const char *cmdline, solar_diag *d, solar_diag *tool)
{
	shard s = {.p = p, .axes = axes, .naxes = naxes, .d = d, .tool = tool};
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
	solar_print_opts o = {.param_text = ptext};
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
		solar_ir_print_tensor_with(p, t, &o, f);
		fprintf(f, ": %s", solar_dtype_name(t->dtype));
		if (t->dist != SOLAR_DIST_NONE)
			fprintf(f, " %s", solar_dist_name(t->dist));
		if (t->range_hi) {
			fputs(" in ", f);
			solar_ir_print_expr_with(p, t->range_lo, &o, f);
			fputs("..", f);
			solar_ir_print_expr_with(p, t->range_hi, &o, f);
		} else if (t->role != SOLAR_ROLE_TMP && t->role != SOLAR_ROLE_RAND) {
			for (int k = 0; k < t->rank; k++)
				if (split_dim[i][k] >= 0)
					fprintf(f, " split(%s, %d)", axes[split_dim[i][k]].axis, k);
		}
		fputs(";\n", f);
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
			if (q->before != k)
				continue;
			const char *g = p->kernels[q->group].group;
			fprintf(f, "\nkernel %s_all_reduce_%s ", p->tensors[q->tensor].name,
				axes[q->axis].axis);
			if (g)
				fprintf(f, "[group = %s] ", g);
			fprintf(f, "{ all_reduce(%s, %s) %s; }\n", axes[q->axis].axis,
				q->red == 2 ? "max" : "sum", p->tensors[q->tensor].name);
		}
		if (k == p->nkernels)
			break;
		const solar_kernel *kn = &p->kernels[k];
		fprintf(f, "\nkernel %s ", kn->name);
		solar_ir_print_kernel_attrs(kn, f);
		fputs("{\n", f);
		solar_ir_print_block_with(p, &kn->body, 1, &o, f);
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
	return text;
}
