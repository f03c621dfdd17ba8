/* equal.c - structural equality of two programs (the `solar fmt --verify` round trip).
 *
 * Two programs are equal when every table entry and every node matches, spans aside: same
 * names, roles, dtypes, extents and values; the same kernels with the same names, math modes
 * and statements in the same order; the same expression trees (float literals compared by
 * value and by the text they were written with, since that is what the printer writes).
 */
#include <string.h>

#include "ir.h"

static bool str_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

bool solar_ir_expr_equal(const solar_expr *a, const solar_expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->nargs != b->nargs)
		return false;
	switch (a->kind) {
	case SOLAR_E_INT:
		if (a->ival != b->ival)
			return false;
		break;
	case SOLAR_E_FLOAT:
		if (a->fval != b->fval || !str_eq(a->name, b->name))
			return false;
		break;
	case SOLAR_E_PARAM:
	case SOLAR_E_CONST:
	case SOLAR_E_ITER:
	case SOLAR_E_ACCESS:
		if (a->sym != b->sym)
			return false;
		break;
	case SOLAR_E_BIN:
		if (a->binop != b->binop)
			return false;
		break;
	case SOLAR_E_CALL:
		if (a->fn != b->fn)
			return false;
		break;
	case SOLAR_E_CAST:
		if (a->dtype != b->dtype)
			return false;
		break;
	default:
		break;
	}
	for (int i = 0; i < a->nargs; i++)
		if (!solar_ir_expr_equal(a->args[i], b->args[i]))
			return false;
	return true;
}

static bool stmt_eq(const solar_stmt *a, const solar_stmt *b, int rank)
{
	if (a->id != b->id || a->kernel != b->kernel || a->tensor != b->tensor || a->op != b->op ||
	    a->depth != b->depth || !solar_ir_expr_equal(a->value, b->value))
		return false;
	for (int i = 0; i < rank; i++)
		if (!solar_ir_expr_equal(a->index[i], b->index[i]))
			return false;
	for (int i = 0; i < a->depth; i++)
		if (a->loops[i] != b->loops[i])
			return false;
	return true;
}

static bool block_eq(const solar_block *a, const solar_block *b);

static bool node_eq(const solar_node *a, const solar_node *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case SOLAR_N_FOR:
		return a->loop.iter == b->loop.iter && a->loop.step_value == b->loop.step_value &&
		       a->loop.joined == b->loop.joined && solar_ir_expr_equal(a->loop.lo, b->loop.lo) &&
		       solar_ir_expr_equal(a->loop.hi, b->loop.hi) && solar_ir_expr_equal(a->loop.step, b->loop.step) &&
		       block_eq(&a->loop.body, &b->loop.body);
	case SOLAR_N_IF:
		return solar_ir_expr_equal(a->cond.cond, b->cond.cond) &&
		       block_eq(&a->cond.then, &b->cond.then) &&
		       block_eq(&a->cond.els, &b->cond.els);
	case SOLAR_N_STMT:
		return a->stmt->id == b->stmt->id;
	}
	return false;
}

static bool block_eq(const solar_block *a, const solar_block *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (!node_eq(a->items[i], b->items[i]))
			return false;
	return true;
}

bool solar_ir_equal(const solar_program *a, const solar_program *b)
{
	if (!a || !b)
		return a == b;
	if (a->air_version != b->air_version || a->air_minor != b->air_minor || a->nparams != b->nparams ||
	    a->nconsts != b->nconsts || a->ntensors != b->ntensors || a->niters != b->niters ||
	    a->nkernels != b->nkernels || a->nstmts != b->nstmts)
		return false;
	for (int i = 0; i < a->nparams; i++) {
		const solar_param *x = &a->params[i], *y = &b->params[i];
		if (!str_eq(x->name, y->name) || x->has_default != y->has_default ||
		    (x->has_default && x->default_value != y->default_value) ||
		    x->value != y->value || x->overridden != y->overridden)
			return false;
	}
	for (int i = 0; i < a->nconsts; i++) {
		const solar_const *x = &a->consts[i], *y = &b->consts[i];
		if (!str_eq(x->name, y->name) || x->value != y->value || !solar_ir_expr_equal(x->expr, y->expr))
			return false;
	}
	for (int i = 0; i < a->ntensors; i++) {
		const solar_tensor *x = &a->tensors[i], *y = &b->tensors[i];
		if (!str_eq(x->name, y->name) || x->role != y->role || x->dtype != y->dtype ||
		    x->dist != y->dist || x->rank != y->rank || x->decl_group != y->decl_group)
			return false;
		for (int d = 0; d < x->rank; d++)
			if (x->extent[d] != y->extent[d] || !solar_ir_expr_equal(x->dims[d], y->dims[d]))
				return false;
		if (x->nlayout != y->nlayout)
			return false;
		for (int l = 0; l < x->nlayout; l++)
			if (x->layout[l].kind != y->layout[l].kind ||
			    x->layout[l].axis != y->layout[l].axis || x->layout[l].dim != y->layout[l].dim)
				return false;
		if (!solar_ir_expr_equal(x->range_lo, y->range_lo) ||
		    !solar_ir_expr_equal(x->range_hi, y->range_hi) ||
		    (x->range_hi && (x->range[0] != y->range[0] || x->range[1] != y->range[1])))
			return false;
	}
	if (a->nassumes != b->nassumes || a->nmesh != b->nmesh)
		return false;
	for (int i = 0; i < a->nmesh; i++)
		if (!str_eq(a->mesh[i].name, b->mesh[i].name) ||
		    a->mesh[i].value != b->mesh[i].value ||
		    !solar_ir_expr_equal(a->mesh[i].size, b->mesh[i].size))
			return false;
	for (int i = 0; i < a->nassumes; i++)
		if (a->assumes[i].tensor != b->assumes[i].tensor ||
		    a->assumes[i].value != b->assumes[i].value ||
		    !solar_ir_expr_equal(a->assumes[i].count, b->assumes[i].count))
			return false;
	for (int i = 0; i < a->niters; i++)
		if (!str_eq(a->iters[i].name, b->iters[i].name))
			return false;
	for (int i = 0; i < a->nstmts; i++)
		if (!stmt_eq(a->stmts[i], b->stmts[i], a->tensors[a->stmts[i]->tensor].rank))
			return false;
	for (int i = 0; i < a->nkernels; i++) {
		const solar_kernel *x = &a->kernels[i], *y = &b->kernels[i];
		if (!str_eq(x->name, y->name) || x->implicit != y->implicit || x->math != y->math ||
		    x->first_stmt != y->first_stmt || x->nstmts != y->nstmts ||
		    !block_eq(&x->body, &y->body) || !x->coll != !y->coll)
			return false;
		if (x->coll && (x->coll->op != y->coll->op || x->coll->axis != y->coll->axis ||
				x->coll->red != y->coll->red || x->coll->dim != y->coll->dim ||
				x->coll->root != y->coll->root || x->coll->out != y->coll->out ||
				x->coll->in != y->coll->in))
			return false;
	}
	return true;
}
