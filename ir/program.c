/* program.c - the end of a program's life, and the queries every pass asks of its nodes.
 *
 * A program owns one arena that holds the program struct itself, its tables, every IR node
 * and string, and its copy of the source; freeing the arena frees all of it at once.
 */
#include "ir.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void solar_program_free(solar_program *p)
{
	if (p)
		solar_arena_free(p->arena); /* p itself lives in the arena */
}

bool solar_ir_expr_reads(const solar_expr *e, int t)
{
	if (e->kind == SOLAR_E_ACCESS && e->sym == t)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (solar_ir_expr_reads(e->args[i], t))
			return true;
	return false;
}

static void visit_expr(const solar_expr *e, solar_tensor_visit fn, void *ctx)
{
	if (!e)
		return;
	if (e->kind == SOLAR_E_ACCESS)
		fn(ctx, e->sym, false);
	for (int i = 0; i < e->nargs; i++)
		visit_expr(e->args[i], fn, ctx);
}

static void visit_block(const solar_program *p, const solar_block *b, solar_tensor_visit fn,
			void *ctx)
{
	for (int i = 0; i < b->n; i++)
		solar_ir_node_tensors(p, b->items[i], fn, ctx);
}

void solar_ir_node_tensors(const solar_program *p, const solar_node *n, solar_tensor_visit fn,
			   void *ctx)
{
	switch (n->kind) {
	case SOLAR_N_FOR:
		visit_block(p, &n->loop.body, fn, ctx);
		break;
	case SOLAR_N_IF:
		visit_expr(n->cond.cond, fn, ctx);
		visit_block(p, &n->cond.then, fn, ctx);
		visit_block(p, &n->cond.els, fn, ctx);
		break;
	case SOLAR_N_STMT: {
		const solar_stmt *s = n->stmt;
		for (int d = 0; d < p->tensors[s->tensor].rank; d++)
			visit_expr(s->index[d], fn, ctx);
		visit_expr(s->value, fn, ctx);
		if (s->op != SOLAR_ASSIGN)
			fn(ctx, s->tensor, false);
		fn(ctx, s->tensor, true);
		break;
	}
	}
}

void solar_ir_kernel_tensors(const solar_program *p, int k, solar_tensor_visit fn, void *ctx)
{
	visit_block(p, &p->kernels[k].body, fn, ctx);
}

bool solar_ir_expr_uses_iter(const solar_expr *e, int iter)
{
	if (e->kind == SOLAR_E_ITER && e->sym == iter)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (solar_ir_expr_uses_iter(e->args[i], iter))
			return true;
	return false;
}

bool solar_tensor_ranged(const solar_tensor *t)
{
	return t->range_hi != NULL;
}

bool solar_ir_index_reads_data(const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (solar_ir_index_reads_data(e->args[i]))
			return true;
	return false;
}

/* Whether a read inside e has an index that reads data. */
static bool value_reads_data(const solar_expr *e)
{
	for (int i = 0; i < e->nargs; i++) {
		if (e->kind == SOLAR_E_ACCESS ? solar_ir_index_reads_data(e->args[i])
					      : value_reads_data(e->args[i]))
			return true;
	}
	return false;
}

bool solar_ir_stmt_reads_data(const solar_program *p, const solar_stmt *s)
{
	for (int i = 0; i < p->tensors[s->tensor].rank; i++)
		if (solar_ir_index_reads_data(s->index[i]))
			return true;
	return value_reads_data(s->value);
}

static const char *const xop_names[SOLAR_XOP_COUNT] = {"all_reduce", "all_gather",
						       "reduce_scatter", "all_to_all", "broadcast",
						       "send"};

const char *solar_xop_name(solar_xop op)
{
	return (unsigned)op < SOLAR_XOP_COUNT ? xop_names[op] : "?";
}

int solar_xop_parse(const char *name)
{
	for (int i = 0; name && i < SOLAR_XOP_COUNT; i++)
		if (!strcmp(name, xop_names[i]))
			return i;
	return -1;
}

int64_t solar_program_ranks(const solar_program *p)
{
	int64_t n = 1;
	for (int a = 0; a < p->nmesh; a++)
		n *= p->mesh[a].value;
	return n;
}

bool solar_ir_expr_reads_rank(const solar_program *p, const solar_expr *e)
{
	if (e->kind == SOLAR_E_PARAM)
		return p->params[e->sym].axis >= 0;
	for (int i = 0; i < e->nargs; i++)
		if (solar_ir_expr_reads_rank(p, e->args[i]))
			return true;
	return false;
}

/* Whether an index position list reads rank(A) affinely (not inside a position reading data);
 * the reads inside e (a value or a position) are looked into too. */
static bool rank_in_indices(const solar_program *p, solar_expr *const *index, int n);

static bool rank_in_reads(const solar_program *p, const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS && rank_in_indices(p, e->args, e->nargs))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (rank_in_reads(p, e->args[i]))
			return true;
	return false;
}

static bool rank_in_indices(const solar_program *p, solar_expr *const *index, int n)
{
	for (int d = 0; d < n; d++)
		if (!solar_ir_index_reads_data(index[d]) && (solar_ir_expr_reads_rank(p, index[d]) ||
							     rank_in_reads(p, index[d])))
			return true;
	return false;
}

static bool rank_shapes_block(const solar_program *p, const solar_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const solar_node *n = b->items[i];
		if (n->kind == SOLAR_N_FOR &&
		    (solar_ir_expr_reads_rank(p, n->loop.lo) || solar_ir_expr_reads_rank(p, n->loop.hi) ||
		     rank_shapes_block(p, &n->loop.body)))
			return true;
		if (n->kind == SOLAR_N_IF &&
		    (solar_ir_expr_reads_rank(p, n->cond.cond) || rank_shapes_block(p, &n->cond.then) ||
		     rank_shapes_block(p, &n->cond.els)))
			return true;
		if (n->kind == SOLAR_N_STMT &&
		    (rank_in_indices(p, n->stmt->index, p->tensors[n->stmt->tensor].rank) ||
		     rank_in_reads(p, n->stmt->value)))
			return true;
	}
	return false;
}

bool solar_program_rank_shapes_work(const solar_program *p)
{
	bool any = false;
	for (int i = 0; i < p->nparams; i++)
		any |= p->params[i].axis >= 0;
	for (int k = 0; any && k < p->nkernels; k++)
		if (rank_shapes_block(p, &p->kernels[k].body))
			return true;
	return false;
}

bool solar_param_shown(const solar_program *p, int i)
{
	return p->params[i].axis < 0 || p->params[i].overridden || solar_program_rank_shapes_work(p);
}

int64_t solar_program_rank_classes(const solar_program *p)
{
	if (!solar_program_rank_shapes_work(p))
		return 1;
	int64_t n = 1;
	for (int i = 0; i < p->nparams; i++)
		if (p->params[i].axis >= 0 && !p->params[i].overridden)
			n *= p->mesh[p->params[i].axis].value;
	return n;
}

void solar_program_set_rank_class(solar_program *p, int64_t c)
{
	for (int i = p->nparams - 1; i >= 0; i--) {
		if (p->params[i].axis < 0 || p->params[i].overridden) /* -D rank(A)=r */
			continue;
		int64_t n = p->mesh[p->params[i].axis].value;
		p->params[i].value = c % n;
		c /= n;
	}
}

void solar_program_rank_class_text(const solar_program *p, char *buf, size_t n)
{
	size_t used = 0;
	if (n)
		buf[0] = '\0';
	for (int i = 0; i < p->nparams && used < n; i++) {
		if (p->params[i].axis < 0)
			continue;
		int w = snprintf(buf + used, n - used, "%s%s=%" PRId64, used ? "," : "",
				 p->mesh[p->params[i].axis].name, p->params[i].value);
		if (w > 0)
			used += (size_t)w;
	}
}

int64_t solar_mesh_stride(const solar_program *p, int a)
{
	int64_t s = 1;
	for (int b = a + 1; b < p->nmesh; b++)
		s *= p->mesh[b].value;
	return s;
}

int solar_tensor_stage(const solar_tensor *t)
{
	for (int l = 0; l < t->nlayout; l++)
		if (t->layout[l].kind == SOLAR_LAYOUT_STAGE)
			return t->layout[l].dim;
	return -1;
}
