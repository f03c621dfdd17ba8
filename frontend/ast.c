/* ast.c - constructors for the syntax tree, called from the grammar actions in parser.y.
 *
 * Every node and list comes from the parse arena.  Expression constructors also track each
 * node's depth: a tree deeper than SOLAR_MAX_EXPR_DEPTH is reported once and stops the parse
 * (ps->fatal), so that later passes may recurse over expressions without risking the stack.
 */
#include <string.h>

#include "ast.h"

void solar_ast_error_limit(solar_pstate *ps, solar_span at, const char *what)
{
	if (ps->fatal)
		return;
	solar_diag_error(ps->diag, at, "%s", what);
	ps->fatal = true;
}

/* Appends to a list whose buffer lives in the arena; a full buffer is copied to one twice
 * its size (the old one stays in the arena until it is freed). */
void solar_ast_push(solar_pstate *ps, ast_list *l, void *item)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 4;
		void **items = solar_arena_alloc(ps->arena, (size_t)cap * sizeof *items);
		if (l->n)
			memcpy(items, l->items, (size_t)l->n * sizeof *items);
		l->items = items;
		l->cap = cap;
	}
	l->items[l->n++] = item;
}

/* A new list holding `first`, or an empty list when first is NULL. */
ast_list *solar_ast_list(solar_pstate *ps, void *first)
{
	ast_list *l = solar_arena_alloc(ps->arena, sizeof *l);
	if (first)
		solar_ast_push(ps, l, first);
	return l;
}

ast_block solar_ast_block(ast_list *l)
{
	return (ast_block){.items = (ast_node **)l->items, .n = l->n};
}

/* Stops the parse once the tree outgrows SOLAR_MAX_AST_BYTES. */
static void check_size(solar_pstate *ps, solar_span at)
{
	if (solar_arena_used(ps->arena) > SOLAR_MAX_AST_BYTES && !ps->fatal) {
		char msg[128];
		snprintf(msg, sizeof msg,
			 "the program is too large: its syntax tree passed %zu MiB here",
			 SOLAR_MAX_AST_BYTES >> 20);
		solar_ast_error_limit(ps, at, msg);
	}
}

ast_node *solar_ast_node(solar_pstate *ps, ast_node_kind kind, solar_span at)
{
	check_size(ps, at);
	ast_node *n = solar_arena_alloc(ps->arena, sizeof *n);
	n->kind = kind;
	n->span = at;
	return n;
}

static ast_expr *expr(solar_pstate *ps, ast_expr_kind kind, solar_span at, int depth)
{
	ast_expr *e = solar_arena_alloc(ps->arena, sizeof *e);
	e->kind = kind;
	e->span = at;
	e->depth = depth;
	check_size(ps, at);
	if (depth > SOLAR_MAX_EXPR_DEPTH) {
		char msg[96];
		snprintf(msg, sizeof msg, "expression too deeply nested (more than %d levels)",
			 SOLAR_MAX_EXPR_DEPTH);
		solar_ast_error_limit(ps, at, msg);
	}
	return e;
}

ast_expr *solar_ast_leaf(solar_pstate *ps, ast_expr_kind kind, solar_span at)
{
	return expr(ps, kind, at, 1);
}

ast_expr *solar_ast_unary(solar_pstate *ps, ast_expr_kind kind, ast_expr *a, solar_span at)
{
	ast_expr *e = expr(ps, kind, at, a->depth + 1);
	e->args = solar_arena_alloc(ps->arena, sizeof *e->args);
	e->args[0] = a;
	e->nargs = 1;
	return e;
}

ast_expr *solar_ast_binary(solar_pstate *ps, solar_binop op, ast_expr *a, ast_expr *b,
			   solar_span at)
{
	int depth = (a->depth > b->depth ? a->depth : b->depth) + 1;
	ast_expr *e = expr(ps, AST_BIN, at, depth);
	e->op = op;
	e->args = solar_arena_alloc(ps->arena, 2 * sizeof *e->args);
	e->args[0] = a;
	e->args[1] = b;
	e->nargs = 2;
	return e;
}

/* NAME[args] or NAME(args). */
ast_expr *solar_ast_apply(solar_pstate *ps, ast_expr_kind kind, const char *name,
			  solar_span name_span, ast_list *args, solar_span at)
{
	int depth = 0;
	for (int i = 0; i < args->n; i++) {
		ast_expr *a = args->items[i];
		if (a->depth > depth)
			depth = a->depth;
	}
	ast_expr *e = expr(ps, kind, at, depth + 1);
	e->name = name;
	e->name_span = name_span;
	e->args = (ast_expr **)args->items;
	e->nargs = args->n;
	return e;
}

/* `t -= v` is `t += -v` (docs/air.md, "Assignments"); the minus goes on the left factor of a
 * product, so that `C -= A * B` stays a contraction (`C += (-A) * B`, one multiply-add per
 * instance on the tensor unit, docs/bounds.md "Contraction"; a unary minus costs 0 ops). */
ast_expr *solar_ast_negate_term(solar_pstate *ps, ast_expr *v)
{
	if (v->kind == AST_BIN && v->op == SOLAR_OP_MUL)
		return solar_ast_binary(ps, SOLAR_OP_MUL,
					solar_ast_unary(ps, AST_NEG, v->args[0], v->args[0]->span),
					v->args[1], v->span);
	return solar_ast_unary(ps, AST_NEG, v, v->span);
}
