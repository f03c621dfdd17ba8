/* sema.c - name resolution, the front end's checks, and lowering of the syntax tree to IR.
 *
 * Input: the syntax tree of parser.y (names as strings) and the -D overrides.  Output: a
 * solar_program (ir.h) in which every name is an index into the program's tables, every
 * const and extent is evaluated, and every statement knows its kernel, its position in
 * program order and its enclosing loops.  solar_frontend_load, at the bottom, runs the whole
 * front end: scan + parse (lexer.l, parser.y), then this pass, then solar_ir_verify.
 *
 * The one idea: each expression is lowered in a *context* (a value, an index, a loop bound,
 * an `if` condition, a step, a const, an extent, a param default) that says which names and
 * operators may appear in it.  The affine contexts classify every subexpression as constant
 * (literals and consts only) or varying (it involves iterators or params); a product needs a
 * constant factor and `//` and `%` a positive constant divisor, which is exactly what makes
 * the expression quasi-affine.  Each violation is reported once, on the smallest offending
 * subexpression, and its parents stay quiet, so one mistake gives one error.
 *
 * Passes, in order: the `air` header; declarations (duplicates); param defaults and -D;
 * consts (in order, each may use earlier ones); tensor extents; kernels and statements;
 * the warning for `out` tensors never written.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "frontend.h"
#include "../diag/hint.h"

/* ---- symbol tables ------------------------------------------------------------------- */

enum { SYM_PARAM, SYM_CONST, SYM_TENSOR };
static const char *const sym_kind_name[] = {"param", "const", "tensor"};

typedef struct {
	const char *name;
	int kind, index;
} sym;

/* Open addressing, in the parse arena (a grown table leaves the old one to the arena). */
typedef struct {
	sym *slots;
	int cap, n;
} symtab;

static sym *sym_find(const symtab *t, const char *name)
{
	if (!t->cap)
		return NULL;
	for (uint32_t i = solar_text_hash(name) & (uint32_t)(t->cap - 1);;
	     i = (i + 1) & (uint32_t)(t->cap - 1)) {
		if (!t->slots[i].name)
			return NULL;
		if (!strcmp(t->slots[i].name, name))
			return &t->slots[i];
	}
}

/* Adds name -> (kind, index) unless present; returns the slot holding `name`. */
static sym *sym_add(solar_arena *a, symtab *t, const char *name, int kind, int index)
{
	sym *old = sym_find(t, name);
	if (old)
		return old;
	if (2 * (t->n + 1) > t->cap) {
		symtab bigger = {.cap = t->cap ? 2 * t->cap : 64};
		bigger.slots = solar_arena_alloc(a, (size_t)bigger.cap * sizeof *bigger.slots);
		for (int i = 0; i < t->cap; i++)
			if (t->slots[i].name)
				sym_add(a, &bigger, t->slots[i].name, t->slots[i].kind,
					t->slots[i].index);
		*t = bigger;
	}
	uint32_t i = solar_text_hash(name) & (uint32_t)(t->cap - 1);
	while (t->slots[i].name)
		i = (i + 1) & (uint32_t)(t->cap - 1);
	t->slots[i] = (sym){name, kind, index};
	t->n++;
	return &t->slots[i];
}

/* ---- the pass's state ------------------------------------------------------------------ */

typedef struct {
	solar_pstate *ps;
	solar_program *p;
	solar_arena *a; /* the program's arena: everything the IR points to */
	solar_diag *d;
	symtab globals;
	bool *param_bad, *const_bad; /* no usable value: uses stay quiet */
	int const_limit;	     /* while lowering const i: consts >= i are not defined yet */
	const char *defining;	     /* the iterator whose bounds are being lowered */
	int scope[SOLAR_MAX_NESTING + 1]; /* iterators of the enclosing loops, outermost first */
	int nscope;
	int nesting; /* enclosing for and if nodes */
	int kernel;
	bool *written; /* per tensor: some statement writes it */
	solar_stmt **stmts;
	int nstmts, cap_stmts;
	solar_iter *iters;
	int niters, cap_iters;
	solar_kernel *kernels;
	int nkernels, cap_kernels;
	int cap_assumes;
	int kernel_items;		/* items of the kernel block being lowered (-1: none) */
	const solar_collective *coll;	/* the collective its body lowered to, or NULL */
} sema;

/* Grows an arena array of `size`-byte elements to hold one more. */
static void *grow(solar_arena *a, void *items, int n, int *cap, size_t size)
{
	if (n < *cap)
		return items;
	int c = *cap ? 2 * *cap : 16;
	void *bigger = solar_arena_alloc(a, (size_t)c * size);
	if (n)
		memcpy(bigger, items, (size_t)n * size);
	*cap = c;
	return bigger;
}

/* The source text of a span, on one line and cut to a readable length, for messages. */
static const char *snip(sema *s, solar_span at)
{
	enum { MAX = 40 };
	char buf[MAX + 4];
	int n = 0;
	bool space = false;
	for (int32_t i = at.off; i < at.off + at.len && i < s->ps->len; i++) {
		char c = s->ps->src[i];
		if (c == '\n' || c == '\t' || c == '\r' || c == ' ') {
			space = true;
			continue;
		}
		if (c == '#') { /* a comment inside a multi-line expression */
			while (i < at.off + at.len && s->ps->src[i] != '\n')
				i++;
			space = true;
			continue;
		}
		if (space && n > 0 && n < MAX)
			buf[n++] = ' ';
		space = false;
		if (n == MAX) {
			memcpy(buf + n, "...", 3);
			n += 3;
			break;
		}
		buf[n++] = c;
	}
	return solar_arena_strndup(s->ps->arena, buf, (size_t)n);
}

/* ---- "did you mean" ------------------------------------------------------------------- */

typedef struct {
	const char *name;
	const char *best;
	int dist;
} closest;

static void consider(closest *c, const char *cand)
{
	if (!cand || !strcmp(cand, c->name))
		return;
	int dist = solar_diag_edit_distance(c->name, cand, true);
	if (dist <= 2 && dist < (int)strlen(c->name) && dist < c->dist) {
		c->best = cand;
		c->dist = dist;
	}
}

/* "; did you mean 'X'?" for a name among the globals and iterators in scope, or "". */
static const char *suggest_name(sema *s, const char *name)
{
	if (solar_diag_full(s->d))
		return "";
	closest c = {name, NULL, 99};
	for (int i = 0; i < s->nscope; i++)
		consider(&c, s->iters[s->scope[i]].name);
	for (int i = 0; i < s->globals.cap; i++)
		consider(&c, s->globals.slots[i].name);
	if (!c.best)
		return "";
	char buf[SOLAR_MAX_NAME_BYTES + 32];
	snprintf(buf, sizeof buf, "; did you mean '%s'?", c.best);
	return solar_arena_strdup(s->ps->arena, buf);
}

/* Functions of other frameworks that AIR spells with its own (docs/air.md, "Value
 * expressions"): the hint says how, before any near name does. */
static const char *const fn_spellings[][2] = {
	{"silu", "silu(x) is x * sigmoid(x)"},
	{"swish", "swish(x) is x * sigmoid(x)"},
	{"relu", "relu(x) is max(x, 0.0)"},
	{"gelu", "gelu(x) is 0.5 * x * (1.0 + erf(x * 0.7071067811865476))"},
	{"softplus", "softplus(x) is log(1.0 + exp(x))"},
	{"exp2", "exp2(x) is pow(2.0, x)"},
	{"square", "square(x) is x * x"},
	{"where", "where(c, a, b) is select(c, a, b)"},
	{"clamp", "clamp(x, lo, hi) is min(max(x, lo), hi)"},
	{"clip", "clip(x, lo, hi) is min(max(x, lo), hi)"},
};

static const char *suggest_fn(sema *s, const char *name)
{
	for (size_t i = 0; i < sizeof fn_spellings / sizeof *fn_spellings; i++)
		if (!strcmp(name, fn_spellings[i][0])) {
			char buf[160];
			snprintf(buf, sizeof buf, "; in AIR, %s", fn_spellings[i][1]);
			return solar_arena_strdup(s->ps->arena, buf);
		}
	closest c = {name, NULL, 99};
	for (int i = 0; i < SOLAR_FN_COUNT; i++)
		consider(&c, solar_fn_name((solar_fn)i));
	for (int i = 0; i < SOLAR_DT_COUNT; i++)
		consider(&c, solar_dtype_name((solar_dtype)i));
	if (!c.best)
		return "";
	char buf[64];
	snprintf(buf, sizeof buf, "; did you mean '%s'?", c.best);
	return solar_arena_strdup(s->ps->arena, buf);
}

static const char *suggest_dtype(sema *s, const char *name)
{
	closest c = {name, NULL, 99};
	for (int i = 0; i < SOLAR_DT_COUNT; i++)
		consider(&c, solar_dtype_name((solar_dtype)i));
	if (!c.best)
		return "; the dtypes are f64 f32 bf16 f16 f8e4m3 f8e5m2 i64 i32 i8 u8 bool";
	char buf[64];
	snprintf(buf, sizeof buf, "; did you mean '%s'?", c.best);
	return solar_arena_strdup(s->ps->arena, buf);
}

/* ---- expression contexts ---------------------------------------------------------------- */

typedef enum { M_VALUE, M_AFFINE, M_COND, M_CONST, M_EXTENT, M_DEFAULT } mode;

typedef struct {
	mode m;
	const char *what;   /* "index": starts "index 'i*N' is not affine" */
	const char *where;  /* "an index": "cannot be used in an index" */
	const char *as;	    /* "as indices": "tensor values cannot be used as indices" */
	const char *plural; /* "indices": "indices are integers" */
	const char *why;    /* what the context allows */
} context;

static const context C_VALUE = {M_VALUE, "value", "a value", "as values", "values", ""};
static const context C_INDEX = {M_AFFINE,     "index",	 "an index",
				"as indices", "indices", "AIR indices are affine"};
/* The index of a read that sits inside another index (`ids[t]` in `E[ids[t], d]`): affine,
 * one level only. */
static const context C_INNER_INDEX = {
    M_AFFINE,	  "index",   "the index of a read inside an index", "as indices of a read inside an index",
    "indices",	  "a read inside an index is indexed affinely (one level: compute the inner "
		  "gather into a tensor of its own first)"};
static const context C_RANGE = {M_EXTENT,	"value range",
				"a value range", "in a value range",
				"value ranges", "a value range is made of params, consts and literals"};
static const context C_ASSUMED = {M_EXTENT, "assumed count", "an assumed count",
				  "in an assumed count", "assumed counts",
				  "an assumed count is made of params, consts and literals"};
static const context C_BOUND = {M_AFFINE,	  "loop bound",	 "a loop bound",
				"in loop bounds", "loop bounds", "AIR loop bounds are affine"};
static const context C_COND = {M_COND,
			       "condition",
			       "an `if` condition",
			       "in `if` conditions",
			       "conditions",
			       "AIR conditions compare affine expressions"};
static const context C_COMPARED = {M_AFFINE,
				   "condition",
				   "an `if` condition",
				   "in `if` conditions",
				   "the sides of a comparison",
				   "AIR conditions compare affine expressions"};
static const context C_STEP = {M_CONST,	 "step",
			       "a step", "in a step",
			       "steps",	 "a step is a positive constant (literals and consts)"};
static const context C_CONSTDEF = {M_CONST,   "const",
				   "a const", "in a const",
				   "consts",  "a const is made of literals and earlier consts"};
static const context C_EXTENT = {M_EXTENT,    "extent",
				 "an extent", "in an extent",
				 "extents",   "an extent is made of params, consts and literals"};
static const context C_DEFAULT = {
    M_DEFAULT,	       "param default",
    "a param default", "in a param default",
    "param defaults",  "a param default is an integer made of literals"};

/* Affine class of a lowered subexpression. */
typedef enum { CL_CONST, CL_VARY, CL_BAD } cls;

static cls join(cls a, cls b)
{
	return a == CL_BAD || b == CL_BAD     ? CL_BAD
	       : a == CL_VARY || b == CL_VARY ? CL_VARY
					      : CL_CONST;
}

static solar_expr *mk(sema *s, solar_expr_kind kind, solar_span at, int nargs)
{
	solar_expr *e = solar_arena_alloc(s->a, sizeof *e);
	e->kind = kind;
	e->span = at;
	e->nargs = nargs;
	if (nargs)
		e->args = solar_arena_alloc(s->a, (size_t)nargs * sizeof *e->args);
	return e;
}

/* ---- integer evaluation -------------------------------------------------------------- */

/* " (S=0, B=8)": the params an expression uses, with their values, for messages. */
static const char *param_values(sema *s, const solar_expr *e)
{
	int seen[4], n = 0;
	const solar_expr *stack[SOLAR_MAX_EXPR_DEPTH + 8];
	int top = 0;
	stack[top++] = e;
	while (top && n < 4) {
		const solar_expr *x = stack[--top];
		if (!x)
			continue;
		if (x->kind == SOLAR_E_PARAM) {
			bool dup = false;
			for (int i = 0; i < n; i++)
				dup |= seen[i] == x->sym;
			if (!dup)
				seen[n++] = x->sym;
		}
		for (int i = x->nargs - 1; i >= 0 && top < SOLAR_MAX_EXPR_DEPTH + 8; i--)
			stack[top++] = x->args[i];
	}
	if (!n)
		return "";
	char buf[512];
	size_t used = 0;
	for (int i = 0; i < n && used < sizeof buf; i++) {
		const solar_param *par = &s->p->params[seen[i]];
		int w = snprintf(buf + used, sizeof buf - used, "%s%.64s=%" PRId64, i ? ", " : " (",
				 par->name, par->value);
		if (w > 0)
			used += (size_t)w;
	}
	if (used < sizeof buf - 1)
		buf[used++] = ')';
	buf[used < sizeof buf ? used : sizeof buf - 1] = '\0';
	return solar_arena_strdup(s->ps->arena, buf);
}

static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if (a % b != 0 && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int64_t floormod(int64_t a, int64_t b)
{
	if (b == -1)
		return 0;
	int64_t r = a % b;
	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	return r;
}

enum { EVAL_OK = 0, EVAL_ERROR = -1, EVAL_QUIET = -2 };

/* Evaluates an integer expression of literals, consts and params with their current values.
 * Overflow and division by zero are located errors; an operand already known to be bad
 * (a const or param with an error of its own) fails quietly.  `root` is the whole
 * expression, for the param values shown in messages. */
static int eval(sema *s, const solar_expr *e, const solar_expr *root, int64_t *v)
{
	int64_t a, b;
	int r;
	switch (e->kind) {
	case SOLAR_E_INT:
		*v = e->ival;
		return EVAL_OK;
	case SOLAR_E_CONST:
		if (s->const_bad[e->sym])
			return EVAL_QUIET;
		*v = s->p->consts[e->sym].value;
		return EVAL_OK;
	case SOLAR_E_PARAM:
		if (s->param_bad[e->sym])
			return EVAL_QUIET;
		*v = s->p->params[e->sym].value;
		return EVAL_OK;
	case SOLAR_E_NEG:
		if ((r = eval(s, e->args[0], root, &a)))
			return r;
		if (__builtin_sub_overflow((int64_t)0, a, v))
			goto overflow;
		return EVAL_OK;
	case SOLAR_E_CALL: /* min, max (bounds and divisors only) */
		if ((r = eval(s, e->args[0], root, &a)))
			return r;
		for (int i = 1; i < e->nargs; i++) {
			if ((r = eval(s, e->args[i], root, &b)))
				return r;
			if (e->fn == SOLAR_FN_MAX ? b > a : b < a)
				a = b;
		}
		*v = a;
		return EVAL_OK;
	case SOLAR_E_BIN:
		if ((r = eval(s, e->args[0], root, &a)) || (r = eval(s, e->args[1], root, &b)))
			return r;
		switch (e->binop) {
		case SOLAR_OP_ADD:
			if (__builtin_add_overflow(a, b, v))
				goto overflow;
			return EVAL_OK;
		case SOLAR_OP_SUB:
			if (__builtin_sub_overflow(a, b, v))
				goto overflow;
			return EVAL_OK;
		case SOLAR_OP_MUL:
			if (__builtin_mul_overflow(a, b, v))
				goto overflow;
			return EVAL_OK;
		case SOLAR_OP_FLOORDIV:
		case SOLAR_OP_MOD:
			if (b == 0) {
				solar_diag_error(s->d, e->span, "division by zero in '%s'%s",
						 snip(s, e->span), param_values(s, root));
				return EVAL_ERROR;
			}
			if (e->binop == SOLAR_OP_FLOORDIV && a == INT64_MIN && b == -1)
				goto overflow;
			*v = e->binop == SOLAR_OP_FLOORDIV ? floordiv(a, b) : floormod(a, b);
			return EVAL_OK;
		default:
			break;
		}
		break;
	default:
		break;
	}
	return EVAL_QUIET; /* not an integer expression: already reported while lowering */
overflow:
	solar_diag_error(s->d, e->span,
			 "integer overflow in '%s'%s: the value does not fit in 64 bits",
			 snip(s, e->span), param_values(s, root));
	return EVAL_ERROR;
}

/* ---- lowering expressions ------------------------------------------------------------ */

static int find_iter(const sema *s, const char *name)
{
	for (int i = s->nscope - 1; i >= 0; i--)
		if (!strcmp(s->iters[s->scope[i]].name, name))
			return s->scope[i];
	return -1;
}

static solar_span decl_span(const sema *s, const sym *g)
{
	switch (g->kind) {
	case SYM_PARAM:
		return s->p->params[g->index].span;
	case SYM_CONST:
		return s->p->consts[g->index].span;
	default:
		return s->p->tensors[g->index].span;
	}
}

static void undeclared(sema *s, const char *name, solar_span at)
{
	if (s->defining && !strcmp(name, s->defining)) {
		solar_diag_error(
		    s->d, at, "iterator '%s' cannot be used in its own loop bounds or step", name);
		return;
	}
	solar_diag_error(s->d, at, "undeclared name '%s'%s", name, suggest_name(s, name));
}

static void rank_error(sema *s, const solar_tensor *t, int n, solar_span at)
{
	solar_diag_error(s->d, at, "tensor '%s' has rank %d but is indexed with %d ind%s", t->name,
			 t->rank, n, n == 1 ? "ex" : "ices");
}

static solar_expr *lower(sema *s, const ast_expr *x, const context *c, cls *out);

/* What a non-constant factor is, for the "not affine" messages. */
static const char *factor(sema *s, const solar_expr *e)
{
	char buf[128];
	if (e->kind == SOLAR_E_PARAM && s->p->params[e->sym].axis >= 0)
		snprintf(buf, sizeof buf, "%.64s is a rank's coordinate", e->name);
	else if (e->kind == SOLAR_E_PARAM)
		snprintf(buf, sizeof buf, "%.64s is a param", e->name);
	else if (e->kind == SOLAR_E_ITER)
		snprintf(buf, sizeof buf, "%.64s is an iterator", e->name);
	else
		snprintf(buf, sizeof buf, "'%s' is not a constant", snip(s, e->span));
	return solar_arena_strdup(s->ps->arena, buf);
}

/* A product in an affine context with no constant factor. */
static void not_affine_product(sema *s, const solar_expr *e, const context *c)
{
	const solar_expr *l = e->args[0], *r = e->args[1];
	const char *text = snip(s, e->span);
	if (l->kind == SOLAR_E_ITER && r->kind == SOLAR_E_ITER) {
		solar_diag_error(s->d, e->span,
				 "%s '%s' is not affine: it multiplies two iterators, %s and %s",
				 c->what, text, l->name, r->name);
		return;
	}
	if (l->kind == SOLAR_E_PARAM && r->kind == SOLAR_E_PARAM) {
		solar_diag_error(s->d, e->span,
				 "%s '%s' is not affine: it multiplies two params, %s and %s "
				 "(declare one of them with `const` if its value is fixed)",
				 c->what, text, l->name, r->name);
		return;
	}
	const solar_expr *par = l->kind == SOLAR_E_PARAM ? l : r->kind == SOLAR_E_PARAM ? r : NULL;
	if (par) {
		const solar_expr *other = par == l ? r : l;
		solar_diag_error(s->d, e->span,
				 "%s '%s' is not affine: %s; multiplying it by %s is not affine "
				 "(declare %s with `const` if its value is fixed)",
				 c->what, text, factor(s, par),
				 other->kind == SOLAR_E_ITER ? "an iterator"
							     : "an expression that is not constant",
				 par->name);
		return;
	}
	solar_diag_error(s->d, e->span,
			 "%s '%s' is not affine: %s and %s; one factor of '*' must be a constant "
			 "(literals and consts)",
			 c->what, text, factor(s, l), factor(s, r));
}

/* NAME in an expression. */
static solar_expr *lower_name(sema *s, const ast_expr *x, const context *c, cls *out)
{
	int it = find_iter(s, x->name);
	if (it >= 0) {
		if (c->m == M_CONST || c->m == M_EXTENT || c->m == M_DEFAULT) {
			solar_diag_error(s->d, x->span, "%s cannot use iterator '%s'; %s", c->where,
					 x->name, c->why);
			return NULL;
		}
		solar_expr *e = mk(s, SOLAR_E_ITER, x->span, 0);
		e->sym = it;
		e->name = s->iters[it].name;
		*out = CL_VARY;
		return e;
	}
	const sym *g = sym_find(&s->globals, x->name);
	if (!g) {
		undeclared(s, x->name, x->span);
		return NULL;
	}
	solar_expr *e;
	switch (g->kind) {
	case SYM_PARAM:
		if (c->m == M_CONST || c->m == M_DEFAULT) {
			solar_diag_error(s->d, x->span, "%s cannot use param '%s'; %s", c->where,
					 x->name, c->why);
			return NULL;
		}
		e = mk(s, SOLAR_E_PARAM, x->span, 0);
		e->sym = g->index;
		e->name = s->p->params[g->index].name;
		*out = CL_VARY;
		return e;
	case SYM_CONST:
		if (c->m == M_DEFAULT) {
			solar_diag_error(s->d, x->span, "%s cannot use const '%s'; %s", c->where,
					 x->name, c->why);
			return NULL;
		}
		if (g->index >= s->const_limit) {
			solar_diag_error(s->d, x->span,
					 "const '%s' is used before it is defined; a const may use "
					 "only the consts declared before it",
					 x->name);
			solar_diag_note(s->d, s->p->consts[g->index].span, "'%s' is defined here",
					x->name);
			return NULL;
		}
		e = mk(s, SOLAR_E_CONST, x->span, 0);
		e->sym = g->index;
		e->name = s->p->consts[g->index].name;
		*out = CL_CONST;
		return e;
	default: {
		const solar_tensor *t = &s->p->tensors[g->index];
		if (c->m != M_VALUE) {
			solar_diag_error(s->d, x->span, "tensor values cannot be used %s; %s",
					 c->as, c->why);
			return NULL;
		}
		if (t->rank != 0) {
			rank_error(s, t, 0, x->span);
			return NULL;
		}
		e = mk(s, SOLAR_E_ACCESS, x->span, 0);
		e->sym = g->index;
		e->name = t->name;
		*out = CL_VARY;
		return e;
	}
	}
}

/* A tensor read where the context takes no tensor values: a value range (AIR 1.1) lets an
 * integer tensor's reads sit in an index, one level deep; everything else says what the
 * context allows. */
static void data_index_refused(sema *s, const ast_expr *x, const context *c,
			       const solar_tensor *t)
{
	if (c == &C_INNER_INDEX) {
		solar_diag_error(s->d, x->span, "'%s' cannot be read in %s; %s", t->name, c->where,
				 c->why);
	} else if (c == &C_INDEX && solar_dtype_is_float(t->dtype)) {
		solar_diag_error(s->d, x->span,
				 "'%s' is %s: only an integer tensor with a value range can be "
				 "read inside an index",
				 t->name, solar_dtype_name(t->dtype));
	} else if (c == &C_INDEX && !s->p->air_minor) {
		solar_diag_error(s->d, x->span,
				 "tensor values cannot be used %s in AIR 1; indexing with data "
				 "needs `air 1.1;` and a value range on '%s' (`in %s[..]: %s in "
				 "0..N;`)",
				 c->as, t->name, t->name, solar_dtype_name(t->dtype));
	} else if (c == &C_INDEX) {
		solar_diag_error(s->d, x->span,
				 "'%s' has no value range, so its values cannot be used %s; "
				 "declare it `in %s[..]: %s in 0..N;` (docs/air.md, \"Indexing "
				 "with data\")",
				 t->name, c->as, t->name, solar_dtype_name(t->dtype));
	} else {
		solar_diag_error(s->d, x->span, "tensor values cannot be used %s; %s", c->as,
				 c->why);
	}
}

/* NAME[args]: a tensor read. */
static solar_expr *lower_access(sema *s, const ast_expr *x, const context *c, cls *out)
{
	const sym *g = find_iter(s, x->name) >= 0 ? NULL : sym_find(&s->globals, x->name);
	if (find_iter(s, x->name) >= 0 || (g && g->kind != SYM_TENSOR)) {
		solar_diag_error(s->d, x->name_span,
				 "'%s' is %s, not a tensor; only tensors can be indexed", x->name,
				 !g			? "an iterator"
				 : g->kind == SYM_PARAM ? "a param"
							: "a const");
		return NULL;
	}
	if (!g) {
		undeclared(s, x->name, x->name_span);
		return NULL;
	}
	const solar_tensor *t = &s->p->tensors[g->index];
	bool data = c == &C_INDEX && solar_tensor_ranged(t);
	if (c->m != M_VALUE && !data) {
		data_index_refused(s, x, c, t);
		return NULL;
	}
	solar_expr *e = mk(s, SOLAR_E_ACCESS, x->span, x->nargs);
	e->sym = g->index;
	e->name = t->name;
	bool ok = true;
	for (int i = 0; i < x->nargs; i++) {
		cls k;
		e->args[i] = lower(s, x->args[i], data ? &C_INNER_INDEX : &C_INDEX, &k);
		ok &= e->args[i] != NULL;
	}
	if (t->rank != x->nargs) {
		rank_error(s, t, x->nargs, x->span);
		return NULL;
	}
	*out = CL_VARY;
	return ok ? e : NULL;
}

/* The mesh axis called name, or -1 after an error at `at`. */
static int axis_named(sema *s, const char *name, solar_span at)
{
	for (int a = 0; a < s->p->nmesh; a++)
		if (!strcmp(s->p->mesh[a].name, name))
			return a;
	if (!s->p->nmesh)
		solar_diag_error(s->d, at,
				 "'%s' is not an axis: the program declares no mesh (`mesh dp = 8;` "
				 "after the params)",
				 name);
	else {
		solar_diag_error(s->d, at, "'%s' is not an axis of the mesh", name);
		solar_diag_note(s->d, s->p->mesh[0].span, "the mesh is declared here");
	}
	return -1;
}

/* The param that stands for rank(A) (axis a): made on first use, after the declared ones. */
static int rank_param(sema *s, int a)
{
	solar_program *p = s->p;
	for (int i = 0; i < p->nparams; i++)
		if (p->params[i].axis == a)
			return i;
	solar_param *grown = solar_arena_alloc(s->a, (size_t)(p->nparams + 1) * sizeof *grown);
	if (p->nparams)
		memcpy(grown, p->params, (size_t)p->nparams * sizeof *grown);
	char name[160];
	snprintf(name, sizeof name, "rank(%s)", p->mesh[a].name);
	grown[p->nparams] = (solar_param){.name = solar_arena_strdup(s->a, name),
					  .span = p->mesh[a].span,
					  .has_default = true,
					  .axis = a};
	p->params = grown;
	bool *bad = solar_arena_alloc(s->ps->arena, (size_t)p->nparams + 2);
	memcpy(bad, s->param_bad, (size_t)p->nparams + 1);
	bad[p->nparams] = bad[p->nparams + 1] = false;
	s->param_bad = bad;
	return p->nparams++;
}

/* rank(A) (AIR 1.2, docs/air.md "Many GPUs"): the rank's coordinate on mesh axis A, a param
 * whose value is the rank's; not in an extent, a value range, a const or a default, where
 * every rank must agree. */
static solar_expr *lower_rank(sema *s, const ast_expr *x, const context *c, cls *out)
{
	if (s->p->air_minor < 2) {
		solar_diag_error(s->d, x->name_span,
				 "rank(A) is AIR 1.2 (many GPUs): begin the file with `air 1.2;`");
		return NULL;
	}
	if (x->nargs != 1 || x->args[0]->kind != AST_NAME) {
		solar_diag_error(s->d, x->span,
				 "rank takes one argument, a mesh axis by name (`rank(tp)`)");
		return NULL;
	}
	if (c->m == M_CONST || c->m == M_EXTENT || c->m == M_DEFAULT) {
		solar_diag_error(s->d, x->span,
				 "rank(%s) cannot be used in %s: every rank declares the same "
				 "program, so %s",
				 x->args[0]->name, c->where, c->why);
		return NULL;
	}
	const ast_expr *axis = x->args[0];
	int a = axis_named(s, axis->name, axis->span);
	if (a < 0)
		return NULL;
	int before = s->p->nparams;
	solar_expr *e = mk(s, SOLAR_E_PARAM, x->span, 0);
	e->sym = rank_param(s, a);
	int64_t classes = 1; /* at most: the product of the sizes of the axes rank() reads */
	for (int i = 0; i < s->p->nparams; i++)
		if (s->p->params[i].axis >= 0)
			classes *= s->p->mesh[s->p->params[i].axis].value;
	if (s->p->nparams > before && classes > SOLAR_MAX_RANK_CLASSES) {
		solar_diag_error(s->d, x->span,
				 "rank(%s) makes up to %" PRId64 " classes of ranks whose programs "
				 "differ (the product of the sizes of the axes rank() reads); solar "
				 "bounds each, up to %d",
				 axis->name, classes, SOLAR_MAX_RANK_CLASSES);
		return NULL;
	}
	e->name = s->p->params[e->sym].name;
	*out = CL_CONST; /* a number on each rank: rank(cp) * S is affine (not a divisor) */
	return e;
}

/* NAME(args): a function or a cast. */
static solar_expr *lower_call(sema *s, const ast_expr *x, const context *c, cls *out)
{
	if (!strcmp(x->name, "rank") && !sym_find(&s->globals, x->name) &&
	    find_iter(s, x->name) < 0)
		return lower_rank(s, x, c, out);
	int fn = solar_fn_parse(x->name);
	int dt = fn < 0 ? solar_dtype_parse(x->name) : -1;
	if (fn < 0 && dt < 0) {
		int it = find_iter(s, x->name);
		const sym *g = it >= 0 ? NULL : sym_find(&s->globals, x->name);
		if (it >= 0 || g)
			solar_diag_error(
			    s->d, x->name_span, "'%s' is %s, not a function%s", x->name,
			    it >= 0		   ? "an iterator"
			    : g->kind == SYM_PARAM ? "a param"
			    : g->kind == SYM_CONST ? "a const"
						   : "a tensor",
			    g && g->kind == SYM_TENSOR ? "; index a tensor with [ ]" : "");
		else
			solar_diag_error(s->d, x->name_span, "unknown function '%s'%s", x->name,
					 suggest_fn(s, x->name));
		return NULL;
	}
	int lo = fn >= 0 ? solar_fn_min_args((solar_fn)fn) : 1;
	int hi = fn >= 0 ? solar_fn_max_args((solar_fn)fn) : 1;
	if (x->nargs < lo || (hi >= 0 && x->nargs > hi)) {
		const char *kind = fn >= 0 ? "function" : "cast";
		if (hi < 0)
			solar_diag_error(s->d, x->span,
					 "%s '%s' takes at least %d arguments, not %d", kind,
					 x->name, lo, x->nargs);
		else
			solar_diag_error(s->d, x->span, "%s '%s' takes %d argument%s, not %d", kind,
					 x->name, lo, lo == 1 ? "" : "s", x->nargs);
		return NULL;
	}
	bool minmax = fn == SOLAR_FN_MIN || fn == SOLAR_FN_MAX;
	if (c->m == M_AFFINE && !minmax) {
		solar_diag_error(s->d, x->span,
				 "%s '%s' cannot be used in %s; only min and max can (%s)",
				 fn >= 0 ? "function" : "cast", x->name, c->where, c->why);
		return NULL;
	}
	if (c->m == M_COND || c->m == M_CONST || c->m == M_EXTENT || c->m == M_DEFAULT) {
		if (c->m == M_COND)
			solar_diag_error(
			    s->d, x->span,
			    "%s must be a comparison such as `i < N` (joined with and, "
			    "or, not), not a call of '%s'",
			    c->where, x->name);
		else
			solar_diag_error(s->d, x->span, "function calls cannot be used in %s; %s",
					 c->where, c->why);
		return NULL;
	}
	solar_expr *e = mk(s, fn >= 0 ? SOLAR_E_CALL : SOLAR_E_CAST, x->span, x->nargs);
	if (fn >= 0)
		e->fn = (solar_fn)fn;
	else
		e->dtype = (solar_dtype)dt;
	e->name = fn >= 0 ? solar_fn_name((solar_fn)fn) : solar_dtype_name((solar_dtype)dt);
	cls all = CL_CONST;
	bool ok = true;
	for (int i = 0; i < x->nargs; i++) {
		cls k = CL_CONST;
		e->args[i] = lower(s, x->args[i], c, &k);
		ok &= e->args[i] != NULL;
		all = join(all, e->args[i] ? k : CL_BAD);
	}
	*out = c->m == M_VALUE ? CL_VARY : all;
	return ok ? e : NULL;
}

/* The divisor of `//` or `%` in an affine context: a positive constant. */
static bool check_divisor(sema *s, const solar_expr *e, cls rk, const context *c)
{
	const solar_expr *r = e->args[1];
	const char *op = solar_binop_text(e->binop);
	if (rk == CL_VARY) {
		solar_diag_error(
		    s->d, r->span,
		    "the divisor of '%s' in %s must be a constant (literals and consts); %s", op,
		    c->where, factor(s, r));
		return false;
	}
	if (solar_ir_expr_reads_rank(s->p, r)) { /* 0 on rank 0 */
		solar_diag_error(s->d, r->span,
				 "the divisor of '%s' in %s must be the same positive constant on "
				 "every rank; '%s' reads a rank's coordinate",
				 op, c->where, snip(s, r->span));
		return false;
	}
	int64_t v;
	if (eval(s, r, r, &v))
		return false;
	if (v <= 0) {
		solar_diag_error(s->d, r->span,
				 "the divisor of '%s' in %s must be positive; '%s' is %" PRId64, op,
				 c->where, snip(s, r->span), v);
		return false;
	}
	return true;
}

static solar_expr *lower_bin(sema *s, const ast_expr *x, const context *c, cls *out)
{
	solar_binop op = x->op;
	bool logic = op == SOLAR_OP_AND || op == SOLAR_OP_OR;
	bool cmp = op >= SOLAR_OP_LT && op <= SOLAR_OP_NE;
	const context *sub = c;
	if (c->m == M_COND)
		sub = logic ? &C_COND : cmp ? &C_COMPARED : c;
	if (c->m == M_COND && !logic && !cmp) {
		solar_diag_error(
		    s->d, x->span,
		    "%s must be a comparison such as `i < N` (joined with and, or, not); "
		    "'%s' is not one",
		    c->where, snip(s, x->span));
		return NULL;
	}
	if (c == &C_COMPARED && (logic || cmp)) {
		solar_diag_error(s->d, x->span, "'%s' cannot be used inside a comparison",
				 solar_binop_text(op));
		return NULL;
	}
	if (c->m != M_VALUE && c->m != M_COND && (logic || cmp)) {
		solar_diag_error(s->d, x->span, "%s '%s' cannot be used in %s; %s",
				 cmp ? "the comparison" : "the operator", solar_binop_text(op),
				 c->where, c->why);
		return NULL;
	}
	if (c->m != M_VALUE && c->m != M_COND && op == SOLAR_OP_DIV) {
		solar_diag_error(s->d, x->span,
				 "'/' is true division and cannot be used in %s; use // for floor "
				 "division",
				 c->where);
		return NULL;
	}
	cls lk = CL_CONST, rk = CL_CONST;
	solar_expr *l = lower(s, x->args[0], sub, &lk);
	solar_expr *r = lower(s, x->args[1], sub, &rk);
	if (!l || !r)
		return NULL;
	solar_expr *e = mk(s, SOLAR_E_BIN, x->span, 2);
	e->binop = op;
	e->args[0] = l;
	e->args[1] = r;
	*out = join(lk, rk);
	if (c->m == M_AFFINE) {
		if (op == SOLAR_OP_MUL && lk == CL_VARY && rk == CL_VARY) {
			not_affine_product(s, e, c);
			return NULL;
		}
		if ((op == SOLAR_OP_FLOORDIV || op == SOLAR_OP_MOD) && !check_divisor(s, e, rk, c))
			return NULL;
	}
	return e;
}

/* Lowers one expression in context c; *out gets its affine class.  NULL after an error
 * (reported once, at the smallest offending subexpression). */
static solar_expr *lower(sema *s, const ast_expr *x, const context *c, cls *out)
{
	solar_expr *e;
	cls k = CL_CONST;
	*out = CL_BAD;
	switch (x->kind) {
	case AST_INT:
		if (c->m == M_COND)
			goto not_condition;
		e = mk(s, SOLAR_E_INT, x->span, 0);
		e->ival = x->ival;
		*out = CL_CONST;
		return e;
	case AST_FLOAT:
	case AST_INF:
		if (c->m == M_COND)
			goto not_condition;
		if (c->m != M_VALUE) {
			solar_diag_error(s->d, x->span,
					 "%s '%s' cannot be used in %s; %s must be integers",
					 x->kind == AST_INF ? "the value" : "float literal",
					 x->kind == AST_INF ? "inf" : x->text, c->where, c->plural);
			return NULL;
		}
		e = mk(s, x->kind == AST_INF ? SOLAR_E_INF : SOLAR_E_FLOAT, x->span, 0);
		e->fval = x->fval;
		e->name = x->kind == AST_FLOAT ? solar_arena_strdup(s->a, x->text) : NULL;
		*out = CL_VARY;
		return e;
	case AST_NAME:
		if (c->m == M_COND)
			goto not_condition;
		return lower_name(s, x, c, out);
	case AST_INDEX:
		if (c->m == M_COND)
			goto not_condition;
		return lower_access(s, x, c, out);
	case AST_CALL:
		return lower_call(s, x, c, out);
	case AST_NEG:
		if (c->m == M_COND)
			goto not_condition;
		e = mk(s, SOLAR_E_NEG, x->span, 1);
		if (!(e->args[0] = lower(s, x->args[0], c, &k)))
			return NULL;
		*out = k;
		return e;
	case AST_NOT:
		if (c == &C_COMPARED) {
			solar_diag_error(s->d, x->span, "'not' cannot be used inside a comparison");
			return NULL;
		}
		if (c->m != M_VALUE && c->m != M_COND) {
			solar_diag_error(s->d, x->span,
					 "the operator 'not' cannot be used in %s; %s", c->where,
					 c->why);
			return NULL;
		}
		e = mk(s, SOLAR_E_NOT, x->span, 1);
		if (!(e->args[0] = lower(s, x->args[0], c, &k)))
			return NULL;
		*out = CL_VARY;
		return e;
	case AST_BIN:
		return lower_bin(s, x, c, out);
	}
	return NULL;
not_condition:
	solar_diag_error(s->d, x->span,
			 "%s must be a comparison such as `i < N` (joined with and, or, not); '%s' "
			 "is not one",
			 c->where, snip(s, x->span));
	return NULL;
}

/* Lowers and evaluates an integer expression (const, extent, default, step). */
static solar_expr *lower_int(sema *s, const ast_expr *x, const context *c, int64_t *v, int *r)
{
	cls k;
	solar_expr *e = lower(s, x, c, &k);
	*r = e ? eval(s, e, e, v) : EVAL_ERROR;
	return e;
}

/* ---- statements --------------------------------------------------------------------- */

static solar_block lower_block(sema *s, const ast_block *b);
static solar_node *lower_node(sema *s, const ast_node *n);

/* `what` is "the loop over 'i'" or "this `if`". */
static bool nesting_ok(sema *s, solar_span at, const char *what, const char *name)
{
	if (s->nesting < SOLAR_MAX_NESTING)
		return true;
	solar_diag_error(s->d, at,
			 "%s%s%s is nested too deeply: loops and `if`s may nest at most %d deep",
			 what, name ? name : "", name ? "'" : "", SOLAR_MAX_NESTING);
	return false;
}

/* Iterator k of a for header (k > 0: nested in the previous one, `joined`). */
static solar_node *lower_for(sema *s, const ast_node *n, int k)
{
	const ast_iter *it = n->iters[k];
	if (!nesting_ok(s, it->clause, "the loop over '", it->name))
		return NULL;
	cls c;
	s->defining = it->name;
	solar_expr *lo = lower(s, it->lo, &C_BOUND, &c);
	solar_expr *hi = lower(s, it->hi, &C_BOUND, &c);
	solar_expr *step = NULL;
	int64_t step_value = 1;
	if (it->step) {
		int r;
		step = lower_int(s, it->step, &C_STEP, &step_value, &r);
		if (!r && step_value <= 0)
			solar_diag_error(s->d, it->step->span,
					 "the step must be positive; '%s' is %" PRId64,
					 snip(s, it->step->span), step_value);
	}
	s->defining = NULL;

	int outer = find_iter(s, it->name);
	const sym *g = sym_find(&s->globals, it->name);
	if (outer >= 0) {
		solar_diag_error(s->d, it->span,
				 "iterator '%s' shadows the iterator '%s' of an enclosing loop",
				 it->name, it->name);
		solar_diag_note(s->d, s->iters[outer].span, "the enclosing '%s' is here", it->name);
	} else if (g) {
		solar_diag_error(s->d, it->span, "iterator '%s' has the same name as %s '%s'",
				 it->name, sym_kind_name[g->kind], it->name);
		solar_diag_note(s->d, decl_span(s, g), "%s '%s' is declared here",
				sym_kind_name[g->kind], it->name);
	}

	s->iters = grow(s->a, s->iters, s->niters, &s->cap_iters, sizeof *s->iters);
	int id = s->niters++;
	s->iters[id] = (solar_iter){solar_arena_strdup(s->a, it->name), it->span};

	solar_node *node = solar_arena_alloc(s->a, sizeof *node);
	node->kind = SOLAR_N_FOR;
	node->span = k == 0 ? n->span : it->clause;
	node->loop.iter = id;
	node->loop.lo = lo;
	node->loop.hi = hi;
	node->loop.step = step;
	node->loop.step_value = step_value;
	node->loop.joined = k > 0;

	s->scope[s->nscope++] = id;
	s->nesting++;
	if (k + 1 < n->niters) {
		solar_node *inner = lower_for(s, n, k + 1);
		if (inner) {
			node->loop.body.items =
			    solar_arena_alloc(s->a, sizeof *node->loop.body.items);
			node->loop.body.items[0] = inner;
			node->loop.body.n = 1;
		}
	} else {
		node->loop.body = lower_block(s, &n->body);
	}
	s->nesting--;
	s->nscope--;
	return node;
}

static solar_node *lower_if(sema *s, const ast_node *n)
{
	if (!nesting_ok(s, (solar_span){n->span.off, 2}, "this `if`", NULL))
		return NULL;
	cls c;
	solar_node *node = solar_arena_alloc(s->a, sizeof *node);
	node->kind = SOLAR_N_IF;
	node->span = n->span;
	node->cond.cond = lower(s, n->cond, &C_COND, &c);
	s->nesting++;
	node->cond.then = lower_block(s, &n->then);
	/* `else if` nests an if in the else block, one level deeper, as in the IR */
	node->cond.els = lower_block(s, &n->els);
	s->nesting--;
	return node;
}

static solar_node *lower_assign(sema *s, const ast_node *n)
{
	cls c;
	int it = find_iter(s, n->name);
	const sym *g = it >= 0 ? NULL : sym_find(&s->globals, n->name);
	solar_tensor *t = g && g->kind == SYM_TENSOR ? &s->p->tensors[g->index] : NULL;
	/* the target first, so that errors come out in source order */
	if (it >= 0 || (g && !t)) {
		solar_diag_error(s->d, n->name_span,
				 "cannot assign to '%s': it is %s, not a tensor", n->name,
				 it >= 0		? "a loop iterator"
				 : g->kind == SYM_PARAM ? "a param"
							: "a const");
	} else if (!g) {
		undeclared(s, n->name, n->name_span);
	} else if (t->role == SOLAR_ROLE_IN || t->role == SOLAR_ROLE_RAND) {
		solar_diag_error(
		    s->d, n->name_span, "cannot write '%s': it is declared %s", n->name,
		    t->role == SOLAR_ROLE_IN
			? "`in`; declare it `inout` to update it in place, or `out` if "
			  "the program only writes it"
			: "`rand`, the values of a random generator; write the draws "
			  "into a `tmp` or `out` tensor instead");
		solar_diag_note(s->d, t->span, "'%s' is declared here", n->name);
		t = NULL;
	} else if (t->rank != n->nindex) {
		rank_error(s, t, n->nindex, n->target_span);
		t = NULL;
	}
	solar_expr **index =
	    n->nindex ? solar_arena_alloc(s->a, (size_t)n->nindex * sizeof *index) : NULL;
	bool ok = t != NULL;
	for (int i = 0; i < n->nindex; i++)
		ok &= (index[i] = lower(s, n->index[i], &C_INDEX, &c)) != NULL;
	solar_expr *value = lower(s, n->value, &C_VALUE, &c);
	if (!ok || !value)
		return NULL;
	s->written[g->index] = true;

	solar_stmt *st = solar_arena_alloc(s->a, sizeof *st);
	st->id = s->nstmts;
	st->kernel = s->kernel;
	st->span = n->span;
	st->tensor = g->index;
	st->index = index;
	st->op = n->op;
	st->value = value;
	st->depth = s->nscope;
	st->loops = solar_arena_memdup(s->a, s->scope, (size_t)s->nscope * sizeof *st->loops);
	s->stmts = grow(s->a, s->stmts, s->nstmts, &s->cap_stmts, sizeof *s->stmts);
	s->stmts[s->nstmts++] = st;

	solar_node *node = solar_arena_alloc(s->a, sizeof *node);
	node->kind = SOLAR_N_STMT;
	node->span = n->span;
	node->stmt = st;
	return node;
}

/* ---- collectives (AIR 1.2, docs/air.md "Many GPUs") ------------------------------------ */

static solar_node *lower_collective(sema *s, const ast_node *n);

static solar_node *lower_node(sema *s, const ast_node *n)
{
	switch (n->kind) {
	case AST_FOR:
		return lower_for(s, n, 0);
	case AST_IF:
		return lower_if(s, n);
	case AST_ASSIGN:
		return lower_assign(s, n);
	case AST_COLLECTIVE:
		return lower_collective(s, n);
	default:
		return NULL; /* declarations appear only at top level (grammar) */
	}
}

static solar_block lower_block(sema *s, const ast_block *b)
{
	solar_block out = {0};
	if (!b->n)
		return out;
	out.items = solar_arena_alloc(s->a, (size_t)b->n * sizeof *out.items);
	for (int i = 0; i < b->n; i++) {
		solar_node *node = lower_node(s, b->items[i]);
		if (node)
			out.items[out.n++] = node;
	}
	return out;
}


/* The mesh axis a collective names (its first argument), or -1 after an error. */
static int coll_axis(sema *s, const ast_node *n, const ast_carg *c)
{
	if (!c || c->key || c->value->kind != AST_NAME) {
		solar_diag_error(s->d, c ? c->value->span : n->args_span,
				 "the first argument of %s is the mesh axis it runs over, a name "
				 "(`%s(dp, ...)`)",
				 n->name, n->name);
		return -1;
	}
	return axis_named(s, c->value->name, c->value->span);
}

/* A tensor a collective names: NULL after an error (write: it is stored to). */
static solar_tensor *coll_tensor(sema *s, const char *name, solar_span at, bool write)
{
	const sym *g = sym_find(&s->globals, name);
	if (!g) {
		undeclared(s, name, at);
		return NULL;
	}
	if (g->kind != SYM_TENSOR) {
		solar_diag_error(s->d, at, "'%s' is a %s; a collective moves tensors", name,
				 sym_kind_name[g->kind]);
		return NULL;
	}
	solar_tensor *t = &s->p->tensors[g->index];
	if (write && (t->role == SOLAR_ROLE_IN || t->role == SOLAR_ROLE_RAND)) {
		solar_diag_error(s->d, at,
				 "cannot write '%s': it is declared `%s`; a collective's result is "
				 "an `out`, `inout` or `tmp` tensor",
				 name, solar_role_name(t->role));
		solar_diag_note(s->d, t->span, "'%s' is declared here", name);
		return NULL;
	}
	return t;
}

static solar_expr *coll_iter(sema *s, int id, solar_span at)
{
	solar_expr *e = mk(s, SOLAR_E_ITER, at, 0);
	e->sym = id;
	e->name = s->iters[id].name;
	return e;
}

/* i // n */
static solar_expr *coll_div(sema *s, solar_expr *i, int64_t n, solar_span at)
{
	solar_expr *e = mk(s, SOLAR_E_BIN, at, 2);
	e->binop = SOLAR_OP_FLOORDIV;
	e->args[0] = i;
	e->args[1] = mk(s, SOLAR_E_INT, at, 0);
	e->args[1]->ival = n;
	return e;
}

/* The kernel body that stands for a collective in counting and dataflow: one loop per
 * dimension of `over` (OUT, or IN for a reduce_scatter) around `OUT[...] = IN[...]`, the
 * index on `dim` divided by the axis size on the smaller side, so that the store covers all of
 * OUT and the read all of IN. */
static solar_node *coll_body(sema *s, const solar_collective *c, int64_t N)
{
	const solar_tensor *out = &s->p->tensors[c->out], *in = &s->p->tensors[c->in];
	const solar_tensor *over = c->op == SOLAR_XOP_REDUCE_SCATTER ? in : out;
	int rank = over->rank;
	solar_span at = c->span;
	int first = s->niters;
	for (int k = 0; k < rank; k++) {
		char name[24];
		snprintf(name, sizeof name, "_x%d", k);
		s->iters = grow(s->a, s->iters, s->niters, &s->cap_iters, sizeof *s->iters);
		s->iters[s->niters++] = (solar_iter){solar_arena_strdup(s->a, name), at};
	}
	solar_stmt *st = solar_arena_alloc(s->a, sizeof *st);
	st->id = s->nstmts;
	st->kernel = s->kernel;
	st->span = at;
	st->tensor = c->out;
	st->op = SOLAR_ASSIGN;
	st->depth = rank;
	st->loops = rank ? solar_arena_alloc(s->a, (size_t)rank * sizeof *st->loops) : NULL;
	st->index = rank ? solar_arena_alloc(s->a, (size_t)rank * sizeof *st->index) : NULL;
	solar_expr *rd = mk(s, SOLAR_E_ACCESS, at, rank);
	rd->sym = c->in;
	rd->name = in->name;
	for (int k = 0; k < rank; k++) {
		st->loops[k] = first + k;
		st->index[k] = coll_iter(s, first + k, at);
		rd->args[k] = coll_iter(s, first + k, at);
		if (k == c->dim && c->op == SOLAR_XOP_ALL_GATHER)
			rd->args[k] = coll_div(s, rd->args[k], N, at);
		if (k == c->dim && c->op == SOLAR_XOP_REDUCE_SCATTER)
			st->index[k] = coll_div(s, st->index[k], N, at);
	}
	st->value = rd;
	s->stmts = grow(s->a, s->stmts, s->nstmts, &s->cap_stmts, sizeof *s->stmts);
	s->stmts[s->nstmts++] = st;
	s->written[c->out] = true;

	solar_node *node = solar_arena_alloc(s->a, sizeof *node);
	node->kind = SOLAR_N_STMT;
	node->span = at;
	node->stmt = st;
	for (int k = rank - 1; k >= 0; k--) {
		solar_node *loop = solar_arena_alloc(s->a, sizeof *loop);
		loop->kind = SOLAR_N_FOR;
		loop->span = at;
		loop->loop.iter = first + k;
		loop->loop.lo = mk(s, SOLAR_E_INT, at, 0);
		loop->loop.hi = over->dims[k];
		loop->loop.step_value = 1;
		loop->loop.joined = k > 0;
		loop->loop.body.items = solar_arena_alloc(s->a, sizeof *loop->loop.body.items);
		loop->loop.body.items[0] = node;
		loop->loop.body.n = 1;
		node = loop;
	}
	return node;
}

/* Whether OUT and IN of a collective have the shapes its definition needs (docs/air.md,
 * "Many GPUs"); reports the first mismatch. */
static bool coll_shapes(sema *s, const ast_node *n, const solar_collective *c, int64_t N)
{
	const solar_tensor *out = &s->p->tensors[c->out], *in = &s->p->tensors[c->in];
	const char *axis = s->p->mesh[c->axis].name;
	if (out->dtype != in->dtype || out->rank != in->rank) {
		solar_diag_error(s->d, n->span,
				 "%s moves '%s' (%s, rank %d) into '%s' (%s, rank %d): a collective "
				 "keeps the dtype and the rank",
				 n->name, in->name, solar_dtype_name(in->dtype), in->rank, out->name,
				 solar_dtype_name(out->dtype), out->rank);
		return false;
	}
	if (c->dim >= out->rank) {
		solar_diag_error(s->d, n->args_span, "dim = %d, but '%s' has rank %d", c->dim,
				 out->name, out->rank);
		return false;
	}
	for (int k = 0; k < out->rank; k++) {
		int64_t want = in->extent[k];
		if (k == c->dim && c->op == SOLAR_XOP_ALL_GATHER)
			want = in->extent[k] * N;
		if (k == c->dim && c->op == SOLAR_XOP_REDUCE_SCATTER) {
			if (in->extent[k] % N) {
				solar_diag_error(s->d, n->span,
						 "reduce_scatter over '%s' (%" PRId64 " ranks) splits "
						 "dimension %d of '%s', %" PRId64 ", which %" PRId64
						 " does not divide",
						 axis, N, k, in->name, in->extent[k], N);
				return false;
			}
			want = in->extent[k] / N;
		}
		if (k == c->dim && c->op == SOLAR_XOP_ALL_TO_ALL && in->extent[k] % N) {
			solar_diag_error(s->d, n->span,
					 "all_to_all over '%s' (%" PRId64 " ranks) splits dimension %d "
					 "of '%s', %" PRId64 ", which %" PRId64 " does not divide",
					 axis, N, k, in->name, in->extent[k], N);
			return false;
		}
		if (out->extent[k] != want) {
			solar_diag_error(s->d, n->span,
					 "%s over '%s' (%" PRId64 " ranks) needs dimension %d of '%s' "
					 "to be %" PRId64 ", not %" PRId64,
					 n->name, axis, N, k, out->name, want, out->extent[k]);
			solar_diag_note(s->d, out->span, "'%s' is declared here", out->name);
			return false;
		}
	}
	return true;
}

/* An integer argument `key = INT` of a collective; -1 after an error. */
static int64_t coll_int(sema *s, const ast_carg *c)
{
	if (c->value->kind != AST_INT || c->value->ival < 0) {
		solar_diag_error(s->d, c->value->span, "%s is a non-negative integer, not '%s'",
				 c->key, snip(s, c->value->span));
		return -1;
	}
	return c->value->ival;
}

static solar_node *lower_collective(sema *s, const ast_node *n)
{
	int op = solar_xop_parse(n->name);
	if (op < 0) {
		solar_diag_error(s->d, n->name_span,
				 "unknown collective '%s'; the collectives are all_reduce, "
				 "all_gather, reduce_scatter, all_to_all, broadcast and send",
				 n->name);
		return NULL;
	}
	if (s->p->air_minor < 2) {
		solar_diag_error(s->d, n->name_span,
				 "collectives need AIR 1.2: begin the file with `air 1.2;`");
		return NULL;
	}
	if (s->kernel_items != 1 || s->nesting) {
		solar_diag_error(s->d, n->span,
				 "a collective is alone in its kernel: give it a `kernel NAME { ... }` "
				 "of its own, outside any loop or `if`");
		return NULL;
	}
	solar_collective *c = solar_arena_alloc(s->a, sizeof *c);
	*c = (solar_collective){.op = (solar_xop)op, .dim = -1, .root = -1, .span = n->span};
	bool ok = true;
	c->axis = coll_axis(s, n, n->ncargs ? n->cargs[0] : NULL);
	ok &= c->axis >= 0;
	bool has_red = op == SOLAR_XOP_ALL_REDUCE || op == SOLAR_XOP_REDUCE_SCATTER;
	bool has_dim = op == SOLAR_XOP_ALL_GATHER || op == SOLAR_XOP_REDUCE_SCATTER ||
		       op == SOLAR_XOP_ALL_TO_ALL;
	bool has_root = op == SOLAR_XOP_BROADCAST;
	for (int i = 1; i < n->ncargs; i++) {
		const ast_carg *a = n->cargs[i];
		if (!a->key && has_red && i == 1 && a->value->kind == AST_NAME &&
		    (!strcmp(a->value->name, "sum") || !strcmp(a->value->name, "max"))) {
			c->red = strcmp(a->value->name, "sum") ? SOLAR_XRED_MAX : SOLAR_XRED_SUM;
		} else if (a->key && ((!strcmp(a->key, "dim") && c->dim >= 0) ||
				      (!strcmp(a->key, "root") && c->root >= 0))) {
			solar_diag_error(s->d, a->key_span, "`%s` is given twice", a->key);
			ok = false;
		} else if (a->key && !strcmp(a->key, "dim") && has_dim && c->dim < 0) {
			int64_t v = coll_int(s, a);
			ok &= v >= 0;
			c->dim = v > INT32_MAX ? INT32_MAX : (int)v;
		} else if (a->key && !strcmp(a->key, "root") && has_root && c->root < 0) {
			c->root = coll_int(s, a);
			ok &= c->root >= 0;
		} else {
			solar_diag_error(s->d, a->key ? a->key_span : a->value->span,
					 "%s takes %s; '%s' is not one of them", n->name,
					 op == SOLAR_XOP_ALL_REDUCE ? "(AXIS, sum|max)"
					 : op == SOLAR_XOP_REDUCE_SCATTER
					     ? "(AXIS, sum|max, dim = D)"
					 : op == SOLAR_XOP_BROADCAST ? "(AXIS, root = R)"
					 : op == SOLAR_XOP_SEND	     ? "(AXIS)"
								     : "(AXIS, dim = D)",
					 snip(s, a->key ? a->key_span : a->value->span));
			ok = false;
		}
	}
	const char *missing = has_red && !c->red ? "the reduction, sum or max,"
			      : has_dim && c->dim < 0 ? "`dim = D`"
			      : has_root && c->root < 0 ? "`root = R`"
						      : NULL;
	if (ok && missing) {
		solar_diag_error(s->d, n->args_span, "%s needs %s after the axis", n->name,
				 missing);
		ok = false;
	}
	bool in_place = op == SOLAR_XOP_ALL_REDUCE || op == SOLAR_XOP_BROADCAST;
	if (in_place && n->source) {
		solar_diag_error(s->d, n->source_span,
				 "%s works in place: `%s(...) T;`, with no `<- SOURCE`", n->name,
				 n->name);
		return NULL;
	}
	if (!in_place && !n->source) {
		solar_diag_error(s->d, n->target_span_c,
				 "%s writes a tensor of its own: `%s(...) OUT <- IN;`", n->name,
				 n->name);
		return NULL;
	}
	solar_tensor *out = coll_tensor(s, n->target, n->target_span_c, true);
	solar_tensor *in = n->source ? coll_tensor(s, n->source, n->source_span, false) : out;
	if (!ok || !out || !in)
		return NULL;
	c->out = (int)(out - s->p->tensors);
	c->in = (int)(in - s->p->tensors);
	int64_t N = s->p->mesh[c->axis].value;
	if (has_root && c->root >= N) {
		solar_diag_error(s->d, n->args_span,
				 "root = %" PRId64 ", but axis '%s' has ranks 0..%" PRId64, c->root,
				 s->p->mesh[c->axis].name, N - 1);
		return NULL;
	}
	if (!in_place && out == in) {
		solar_diag_error(s->d, n->source_span,
				 "%s reads and writes '%s': give it a tensor of its own to write",
				 n->name, out->name);
		return NULL;
	}
	if (!coll_shapes(s, n, c, N))
		return NULL;
	s->coll = c;
	return coll_body(s, c, N);
}

/* `mesh A = N, ...;` (AIR 1.2): once, after the params; every size a positive integer of
 * params, consts and literals, every name new. */
static void mesh(sema *s)
{
	const ast_list *items = &s->ps->items;
	solar_program *p = s->p;
	const ast_node *first = NULL;
	for (int i = 0; i < items->n; i++) {
		const ast_node *n = items->items[i];
		if (n->kind != AST_MESH)
			continue;
		if (!strcmp(n->name, "microbatches"))
			continue; /* microbatches(): after the layouts */
		if (strcmp(n->name, "mesh")) {
			solar_diag_error(s->d, n->name_span,
					 "'%s' starts no declaration; the declarations are param, "
					 "const, mesh and microbatches (AIR 1.2) and the tensor roles",
					 n->name);
			continue;
		}
		if (p->air_minor < 2) {
			solar_diag_error(s->d, n->name_span,
					 "a mesh needs AIR 1.2: begin the file with `air 1.2;`");
			continue;
		}
		if (first) {
			solar_diag_error(s->d, n->name_span,
					 "the mesh is declared twice; declare all its axes in one "
					 "`mesh` statement");
			solar_diag_note(s->d, first->span, "the first mesh is here");
			continue;
		}
		first = n;
		p->mesh = solar_arena_alloc(s->a, (size_t)n->ndecls * sizeof *p->mesh);
		int64_t ranks = 1;
		for (int j = 0; j < n->ndecls; j++) {
			const ast_decl *dc = n->decls[j];
			const sym *g = sym_find(&s->globals, dc->name);
			if (g) {
				solar_diag_error(s->d, dc->span,
						 "mesh axis '%s' has the same name as %s '%s'",
						 dc->name, sym_kind_name[g->kind], dc->name);
				continue;
			}
			for (int k = 0; k < p->nmesh; k++)
				if (!strcmp(p->mesh[k].name, dc->name))
					solar_diag_error(s->d, dc->span,
							 "mesh axis '%s' is declared twice", dc->name);
			int r;
			int64_t v = 0;
			solar_expr *e = lower_int(s, dc->value, &C_EXTENT, &v, &r);
			if (r == EVAL_OK && (v < 1 || v > (int64_t)1 << 24)) {
				solar_diag_error(s->d, dc->value->span,
						 "mesh axis '%s' has %" PRId64 " ranks; an axis has "
						 "1 to 16777216",
						 dc->name, v);
				continue;
			}
			if (r != EVAL_OK)
				continue;
			if (ranks * v > (int64_t)1 << 24) {
				solar_diag_error(s->d, dc->span,
						 "the mesh has more than 16777216 ranks");
				continue;
			}
			ranks *= v;
			p->mesh[p->nmesh++] = (solar_mesh_axis){
			    .name = solar_arena_strdup(s->a, dc->name), .span = dc->span,
			    .size = e, .value = v};
		}
	}
}

/* ---- the passes ----------------------------------------------------------------------- */

static void check_header(sema *s)
{
	const ast_list *prog = &s->ps->items;
	const ast_node *first = prog->n ? prog->items[0] : NULL;
	if (!first || first->kind != AST_AIR) {
		solar_span at = first ? first->span : (solar_span){0, 0};
		at.len = 0;
		solar_diag_error(s->d, at,
				 "missing `air 1;` header: an AIR file must begin with `air 1;`");
	}
	for (int i = 0; i < prog->n; i++) {
		const ast_node *n = prog->items[i];
		if (n->kind != AST_AIR)
			continue;
		if (i > 0)
			solar_diag_error(
			    s->d, n->span,
			    "the `air` header must be the first statement of the file, "
			    "and appear once");
		else if (n->version != 1)
			solar_diag_error(s->d, n->version_span,
					 "AIR version %s is not supported; this solar reads "
					 "versions 1, 1.1 and 1.2 (`air 1;`, `air 1.1;`, `air 1.2;`)",
					 snip(s, n->version_span));
		else {
			s->p->air_version = 1;
			s->p->air_minor = (int)n->version_minor;
		}
	}
}

/* The distribution of a tensor declaration (docs/air.md, "Random tensors"): a `rand` tensor
 * must name one after its dtype, which must be a float type; no other role may name one. */
static solar_dist declared_dist(sema *s, const ast_node *n, int dt)
{
	if (n->role != SOLAR_ROLE_RAND) {
		if (n->dist)
			solar_diag_error(
			    s->d, n->dist_span,
			    "only `rand` tensors have a distribution; a `%s` declaration "
			    "ends with its dtype",
			    solar_role_name(n->role));
		return SOLAR_DIST_NONE;
	}
	if (!n->dist) {
		solar_diag_error(s->d, n->dtype_span,
				 "a `rand` declaration names its distribution after the dtype: "
				 "`: %s uniform;` or `: %s normal;`",
				 n->dtype, n->dtype);
		return SOLAR_DIST_UNIFORM;
	}
	int d = solar_dist_parse(n->dist);
	if (d < 0) {
		solar_diag_error(
		    s->d, n->dist_span,
		    "unknown distribution '%s'; a `rand` tensor is uniform (in [0, 1)) "
		    "or normal (mean 0, standard deviation 1)",
		    n->dist);
		return SOLAR_DIST_UNIFORM;
	}
	if (dt >= 0 && !solar_dtype_is_float((solar_dtype)dt))
		solar_diag_error(
		    s->d, n->dtype_span,
		    "a `rand` tensor holds floats; '%s' is not a float dtype (convert a "
		    "uniform draw, e.g. i64(u[i] * 10.0))",
		    n->dtype);
	return (solar_dist)d;
}

/* Enters every declared name, in order, into the tables; reports duplicates. */
static void declare(sema *s)
{
	const ast_list *items = &s->ps->items;
	int np = 0, nc = 0, nt = 0;
	for (int i = 0; i < items->n; i++) {
		const ast_node *n = items->items[i];
		int *count = n->kind == AST_PARAM     ? &np
			     : n->kind == AST_CONST   ? &nc
			     : n->kind == AST_TENSORS ? &nt
						      : NULL;
		if (count)
			*count += n->ndecls;
	}
	solar_program *p = s->p;
	p->params = solar_arena_alloc(s->a, (size_t)np * sizeof *p->params);
	p->consts = solar_arena_alloc(s->a, (size_t)nc * sizeof *p->consts);
	p->tensors = solar_arena_alloc(s->a, (size_t)nt * sizeof *p->tensors);
	s->param_bad = solar_arena_alloc(s->ps->arena, (size_t)np + 1);
	s->const_bad = solar_arena_alloc(s->ps->arena, (size_t)nc + 1);
	s->written = solar_arena_alloc(s->ps->arena, (size_t)nt + 1);
	int group = 0;
	for (int i = 0; i < items->n; i++) {
		const ast_node *n = items->items[i];
		if (n->kind != AST_PARAM && n->kind != AST_CONST && n->kind != AST_TENSORS)
			continue;
		int dt = 0;
		solar_dist dist = SOLAR_DIST_NONE;
		if (n->kind == AST_TENSORS) {
			dt = solar_dtype_parse(n->dtype);
			if (dt < 0) {
				solar_diag_error(s->d, n->dtype_span, "unknown dtype '%s'%s",
						 n->dtype, suggest_dtype(s, n->dtype));
			}
			dist = declared_dist(s, n, dt);
		}
		for (int j = 0; j < n->ndecls; j++) {
			const ast_decl *dc = n->decls[j];
			int kind = n->kind == AST_PARAM	  ? SYM_PARAM
				   : n->kind == AST_CONST ? SYM_CONST
							  : SYM_TENSOR;
			int index = kind == SYM_PARAM	? p->nparams
				    : kind == SYM_CONST ? p->nconsts
							: p->ntensors;
			const char *name = solar_arena_strdup(s->a, dc->name);
			sym *old = sym_add(s->ps->arena, &s->globals, name, kind, index);
			if (old->kind != kind || old->index != index) {
				solar_diag_error(s->d, dc->span, "duplicate declaration of '%s'",
						 name);
				solar_diag_note(s->d, decl_span(s, old),
						"'%s' is first declared here, as a %s", name,
						sym_kind_name[old->kind]);
			}
			if (kind == SYM_PARAM) {
				p->params[p->nparams++] =
				    (solar_param){.name = name, .span = dc->span, .axis = -1};
			} else if (kind == SYM_CONST) {
				p->consts[p->nconsts++] =
				    (solar_const){.name = name, .span = dc->span};
			} else {
				solar_tensor *t = &p->tensors[p->ntensors++];
				t->name = name;
				t->span = dc->span;
				t->role = n->role;
				t->dtype = dt < 0 ? SOLAR_DT_F32 : (solar_dtype)dt;
				t->dist = dist;
				t->rank = dc->rank;
				t->dims =
				    solar_arena_alloc(s->a, (size_t)dc->rank * sizeof *t->dims);
				t->extent =
				    solar_arena_alloc(s->a, (size_t)dc->rank * sizeof *t->extent);
				t->decl_span = n->span;
				t->decl_group = group;
			}
		}
		if (n->kind == AST_TENSORS)
			group++;
	}
}

/* Param defaults, then -D, then the params left without a value. */
static void params(sema *s, const solar_define *defs, int ndefs)
{
	solar_program *p = s->p;
	const ast_list *items = &s->ps->items;
	int k = 0;
	for (int i = 0; i < items->n; i++) {
		const ast_node *n = items->items[i];
		if (n->kind != AST_PARAM)
			continue;
		for (int j = 0; j < n->ndecls; j++, k++) {
			const ast_decl *dc = n->decls[j];
			if (!dc->value)
				continue;
			int64_t v = 0;
			int r;
			lower_int(s, dc->value, &C_DEFAULT, &v, &r);
			p->params[k].has_default = true;
			p->params[k].default_value = v;
			p->params[k].value = v;
			s->param_bad[k] = r != EVAL_OK;
		}
	}
	for (int i = 0; i < ndefs; i++) {
		if (!strncmp(defs[i].name, "rank(", 5))
			continue; /* rank_defines, once the kernels have made the rank(A) params */
		const sym *g = sym_find(&s->globals, defs[i].name);
		if (!g) {
			solar_diag_error_nowhere(
			    s->d, "-D %s=%" PRId64 ": there is no param '%s'%s", defs[i].name,
			    defs[i].value, defs[i].name, suggest_name(s, defs[i].name));
		} else if (g->kind != SYM_PARAM) {
			solar_diag_error_nowhere(
			    s->d,
			    "-D %s=%" PRId64 ": '%s' is a %s, not a param; only "
			    "params can be set with -D",
			    defs[i].name, defs[i].value, defs[i].name, sym_kind_name[g->kind]);
			solar_diag_note(s->d, decl_span(s, g), "'%s' is declared here",
					defs[i].name);
		} else {
			p->params[g->index].value = defs[i].value;
			p->params[g->index].overridden = true;
			s->param_bad[g->index] = false;
		}
	}
	for (int i = 0; i < p->nparams; i++) {
		if (p->params[i].has_default || p->params[i].overridden)
			continue;
		solar_diag_error(s->d, p->params[i].span,
				 "param '%s' has no default; give it with -D %s=VALUE",
				 p->params[i].name, p->params[i].name);
		s->param_bad[i] = true;
	}
}

static void consts(sema *s)
{
	solar_program *p = s->p;
	const ast_list *items = &s->ps->items;
	int k = 0;
	for (int i = 0; i < items->n; i++) {
		const ast_node *n = items->items[i];
		if (n->kind != AST_CONST)
			continue;
		for (int j = 0; j < n->ndecls; j++, k++) {
			int r;
			s->const_limit = k;
			p->consts[k].expr =
			    lower_int(s, n->decls[j]->value, &C_CONSTDEF, &p->consts[k].value, &r);
			s->const_bad[k] = r != EVAL_OK;
		}
	}
	s->const_limit = p->nconsts;
}

/* The value range of a declaration's tensors (AIR 1.1, docs/air.md "Indexing with data"):
 * LO..HI of params, consts and literals with LO < HI, on an integer dtype whose values hold
 * it, of an `in`, `tmp` or `out` tensor (analysis/check.c proves what a computed one
 * stores). */
static void value_range(sema *s, const ast_node *n, solar_tensor *first, int count)
{
	if (!n->range_lo)
		return;
	solar_dtype dt = first->dtype;
	if (!s->p->air_minor) {
		solar_diag_error(s->d, n->range_span,
				 "a value range needs AIR 1.1: begin the file with `air 1.1;`");
		return;
	}
	if (solar_dtype_is_float(dt) || dt == SOLAR_DT_BOOL) {
		solar_diag_error(s->d, n->range_span,
				 "only integer tensors take a value range; '%s' is %s",
				 first->name, solar_dtype_name(dt));
		return;
	}
	if (n->role == SOLAR_ROLE_INOUT || n->role == SOLAR_ROLE_RAND) {
		solar_diag_error(s->d, n->range_span,
				 "a value range on a `%s` tensor is not supported: `in` tensors "
				 "(the program's index inputs) and computed `tmp` and `out` ones "
				 "take one",
				 solar_role_name(n->role));
		return;
	}
	int64_t lo, hi;
	int rl, rh;
	solar_expr *elo = lower_int(s, n->range_lo, &C_RANGE, &lo, &rl);
	solar_expr *ehi = lower_int(s, n->range_hi, &C_RANGE, &hi, &rh);
	if (rl != EVAL_OK || rh != EVAL_OK)
		return;
	int bits = 8 * solar_dtype_bytes(dt);
	int64_t most = bits >= 64 ? INT64_MAX : (dt == SOLAR_DT_U8 ? 255 : (INT64_C(1) << (bits - 1)) - 1);
	int64_t least = dt == SOLAR_DT_U8 ? 0 : bits >= 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
	if (lo >= hi) {
		solar_diag_error(s->d, n->range_span,
				 "the value range %" PRId64 "..%" PRId64 "%s is empty; a range "
				 "LO..HI holds LO <= v < HI",
				 lo, hi, param_values(s, ehi));
		return;
	}
	if (lo < least || hi - 1 > most) {
		solar_diag_error(s->d, n->range_span,
				 "the value range %" PRId64 "..%" PRId64 " does not fit in %s "
				 "(%" PRId64 "..%" PRId64 ")",
				 lo, hi, solar_dtype_name(dt), least, most);
		return;
	}
	for (int j = 0; j < count; j++) {
		first[j].range_lo = elo;
		first[j].range_hi = ehi;
		first[j].range[0] = lo;
		first[j].range[1] = hi;
	}
}

/* `assume distinct(X) >= N;` (docs/air.md, "Assumptions"): X a ranged tensor, N an integer of
 * params, consts and literals that some data could meet (1 <= N <= min(|X|, range size)); a
 * second assumption on X replaces the first (so that --assume overrides the file's). */
static void assumption(sema *s, const ast_node *n)
{
	const ast_expr *x = n->value;
	if (strcmp(n->name, "assume")) {
		solar_diag_error(s->d, n->span,
				 "'%s' followed by an expression is no statement; an assignment is "
				 "`NAME[...] = expr;`, an assumption `assume distinct(ids) >= N;`",
				 n->name);
		return;
	}
	const ast_expr *call = x->kind == AST_BIN && x->op == SOLAR_OP_GE ? x->args[0] : NULL;
	if (!call || call->kind != AST_CALL || strcmp(call->name, "distinct") || call->nargs != 1 ||
	    call->args[0]->kind != AST_NAME) {
		solar_diag_error(s->d, x->span,
				 "an assumption reads `distinct(TENSOR) >= N` (the elements of a "
				 "ranged tensor take at least N different values); '%s' is not one",
				 snip(s, x->span));
		return;
	}
	const char *name = call->args[0]->name;
	const sym *g = sym_find(&s->globals, name);
	const solar_tensor *t = g && g->kind == SYM_TENSOR ? &s->p->tensors[g->index] : NULL;
	if (!t || !solar_tensor_ranged(t)) {
		solar_diag_error(s->d, call->args[0]->span,
				 "'%s' is not a tensor with a value range; only the data of "
				 "index tensors is assumed about",
				 name);
		return;
	}
	if (!s->p->air_minor) {
		solar_diag_error(s->d, n->span, "assumptions need AIR 1.1: begin the file with "
						"`air 1.1;`");
		return;
	}
	int64_t v;
	int r;
	solar_expr *e = lower_int(s, x->args[1], &C_ASSUMED, &v, &r);
	if (r != EVAL_OK)
		return;
	int64_t most = solar_tensor_elements(t), span = t->range[1] - t->range[0];
	most = span < most ? span : most;
	if (v < 1 || v > most) {
		solar_diag_error(s->d, x->args[1]->span,
				 "distinct(%s) >= %" PRId64 " can never hold: '%s' has %" PRId64
				 " elements and %" PRId64 " possible values, so 1..%" PRId64
				 " different values",
				 name, v, name, solar_tensor_elements(t), span, most);
		return;
	}
	solar_program *p = s->p;
	int k = 0;
	while (k < p->nassumes && p->assumes[k].tensor != g->index)
		k++;
	if (k == p->nassumes)
		p->assumes = grow(s->a, p->assumes, p->nassumes++, &s->cap_assumes,
				  sizeof *p->assumes);
	p->assumes[k] = (solar_assume){.tensor = g->index, .count = e, .value = v,
				       .span = n->span};
}

static void assumptions(sema *s)
{
	const ast_list *items = &s->ps->items;
	for (int i = 0; i < items->n; i++)
		if (((const ast_node *)items->items[i])->kind == AST_ASSUME)
			assumption(s, items->items[i]);
}

/* The layout clauses of a declaration's tensors (AIR 1.2, docs/air.md "Many GPUs"):
 * `split(A, d)` and `partial(A)`, each axis at most once, each dimension split by one axis. */
static void layouts(sema *s, const ast_node *n, solar_tensor *first, int count)
{
	if (!n->nlayouts)
		return;
	solar_program *p = s->p;
	if (p->air_minor < 2) {
		solar_diag_error(s->d, n->layouts[0]->span,
				 "a tensor layout needs AIR 1.2: begin the file with `air 1.2;`");
		return;
	}
	solar_layout *ls = solar_arena_alloc(s->a, (size_t)n->nlayouts * sizeof *ls);
	int nl = 0;
	for (int i = 0; i < n->nlayouts; i++) {
		const ast_expr *x = n->layouts[i];
		bool split = !strcmp(x->name, "split"), partial = !strcmp(x->name, "partial");
		bool stage = !strcmp(x->name, "stage");
		if ((!split && !partial && !stage) || x->nargs != (partial ? 1 : 2) ||
		    x->args[0]->kind != AST_NAME || (!partial && x->args[1]->kind != AST_INT)) {
			solar_diag_error(s->d, x->span,
					 "'%s' is no layout; a tensor's layout is `split(AXIS, DIM)` "
					 "(DIM an integer), `partial(AXIS)` or `stage(AXIS, S)` (S an "
					 "integer)",
					 snip(s, x->span));
			continue;
		}
		int a = 0;
		while (a < p->nmesh && strcmp(p->mesh[a].name, x->args[0]->name))
			a++;
		if (a == p->nmesh) {
			solar_diag_error(s->d, x->args[0]->span, "'%s' is not an axis of the mesh",
					 x->args[0]->name);
			continue;
		}
		int64_t dim = partial ? -1 : x->args[1]->ival;
		if (stage) {
			if (dim >= p->mesh[a].value) {
				solar_diag_error(s->d, x->args[1]->span,
						 "stage %" PRId64 ", but axis '%s' has stages 0..%" PRId64,
						 dim, p->mesh[a].name, p->mesh[a].value - 1);
				continue;
			}
			if (p->pipe_axis >= 0 && p->pipe_axis != a) {
				solar_diag_error(s->d, x->args[0]->span,
						 "the stages are on axis '%s'; one axis of a program is "
						 "its pipeline",
						 p->mesh[p->pipe_axis].name);
				continue;
			}
			p->pipe_axis = a;
		}
		int low = 0;
		for (int j = 1; j < count; j++)
			if (first[j].rank < first[low].rank)
				low = j;
		if (split && dim >= first[low].rank) {
			solar_diag_error(s->d, x->args[1]->span,
					 "split along dimension %" PRId64 ", but '%s' has rank %d", dim,
					 first[low].name, first[low].rank);
			continue;
		}
		if (partial && (n->role == SOLAR_ROLE_IN || n->role == SOLAR_ROLE_RAND)) {
			solar_diag_error(s->d, x->span,
					 "an `%s` tensor is not partial: a partial tensor is a sum the "
					 "program computes (`out`, `inout`, `tmp`)",
					 solar_role_name(n->role));
			continue;
		}
		bool dup = false;
		for (int j = 0; j < nl && !dup; j++) {
			if (ls[j].axis == a)
				solar_diag_error(s->d, x->span, "axis '%s' is given a layout twice",
						 p->mesh[a].name);
			else if (split && ls[j].kind == SOLAR_LAYOUT_SPLIT && ls[j].dim == dim)
				solar_diag_error(s->d, x->span,
						 "dimension %" PRId64 " is split twice; split it along "
						 "one axis",
						 dim);
			dup = ls[j].axis == a ||
			      (split && ls[j].kind == SOLAR_LAYOUT_SPLIT && ls[j].dim == dim);
		}
		if (dup)
			continue;
		ls[nl++] = (solar_layout){split	    ? SOLAR_LAYOUT_SPLIT
					  : partial ? SOLAR_LAYOUT_PARTIAL
						    : SOLAR_LAYOUT_STAGE,
					  a, (int)dim, x->span};
	}
	for (int j = 0; j < count; j++) {
		first[j].layout = ls;
		first[j].nlayout = nl;
	}
}

static void extents(sema *s)
{
	solar_program *p = s->p;
	const ast_list *items = &s->ps->items;
	int k = 0;
	for (int i = 0; i < items->n; i++) {
		const ast_node *n = items->items[i];
		if (n->kind != AST_TENSORS)
			continue;
		value_range(s, n, &p->tensors[k], n->ndecls);
		layouts(s, n, &p->tensors[k], n->ndecls);
		for (int j = 0; j < n->ndecls; j++, k++) {
			const ast_decl *dc = n->decls[j];
			solar_tensor *t = &p->tensors[k];
			for (int d = 0; d < dc->rank; d++) {
				int r;
				t->dims[d] =
				    lower_int(s, dc->dims[d], &C_EXTENT, &t->extent[d], &r);
				if (r == EVAL_OK && t->extent[d] <= 0)
					solar_diag_error(
					    s->d, dc->dims[d]->span,
					    "extent of dimension %d of '%s' is %" PRId64
					    "%s; extents must be positive",
					    d + 1, t->name, t->extent[d],
					    param_values(s, t->dims[d]));
			}
		}
	}
}

static void kernel_attrs(sema *s, solar_kernel *k, const ast_node *n)
{
	bool seen = false, seen_group = false;
	for (int i = 0; i < n->nattrs; i++) {
		const ast_attr *at = n->attrs[i];
		if (!strcmp(at->key, "group")) {
			/* docs/air.md, "Kernels": the part of the program the kernel belongs to
			 * (a training step's forward, backward, optimizer), a name */
			if (seen_group)
				solar_diag_error(s->d, at->key_span,
						 "the kernel attribute `group` is given twice");
			seen_group = true;
			if (!(isalpha((unsigned char)at->value[0]) || at->value[0] == '_'))
				solar_diag_error(s->d, at->value_span,
						 "a kernel group is a name, not '%s'", at->value);
			else
				k->group = solar_arena_strdup(s->a, at->value);
			continue;
		}
		if (strcmp(at->key, "math")) {
			solar_diag_error(
			    s->d, at->key_span,
			    "unknown kernel attribute '%s'; the attributes are `math` "
			    "(strict, tf32 or tf32x3) and `group` (a name)",
			    at->key);
			continue;
		}
		if (seen)
			solar_diag_error(s->d, at->key_span,
					 "the kernel attribute `math` is given twice");
		seen = true;
		if (!strcmp(at->value, "strict"))
			k->math = SOLAR_MATH_STRICT;
		else if (!strcmp(at->value, "tf32"))
			k->math = SOLAR_MATH_TF32;
		else if (!strcmp(at->value, "tf32x3"))
			k->math = SOLAR_MATH_TF32X3;
		else
			solar_diag_error(s->d, at->value_span,
					 "unknown math mode '%s'; expected strict, tf32 or tf32x3",
					 at->value);
	}
}

/* A unique name for an implicit kernel: the written tensor's, then _2, _3, ... */
static const char *implicit_name(sema *s, symtab *taken, symtab *next, const char *base)
{
	if (!sym_find(taken, base)) {
		sym_add(s->ps->arena, taken, base, 0, 0);
		return base;
	}
	sym *counter = sym_add(s->ps->arena, next, base, 0, 2);
	size_t size = strlen(base) + 24;
	char *name = solar_arena_alloc(s->a, size);
	for (;; counter->index++) {
		snprintf(name, size, "%s_%d", base, counter->index);
		if (!sym_find(taken, name))
			break;
	}
	counter->index++;
	sym_add(s->ps->arena, taken, name, 0, 0);
	return name;
}

static void kernels(sema *s)
{
	const ast_list *items = &s->ps->items;
	symtab taken = {0}, next = {0};
	for (int i = 0; i < items->n; i++) {
		const ast_node *n = items->items[i];
		if (n->kind != AST_KERNEL)
			continue;
		sym *old = sym_add(s->ps->arena, &taken, n->name, 0, i);
		if (old->index != i) {
			const ast_node *first = items->items[old->index];
			solar_diag_error(s->d, n->name_span, "duplicate kernel name '%s'", n->name);
			solar_diag_note(s->d, first->name_span, "the first kernel '%s' is here",
					n->name);
		}
	}
	for (int i = 0; i < items->n; i++) {
		const ast_node *n = items->items[i];
		if (n->kind != AST_KERNEL && n->kind != AST_FOR && n->kind != AST_IF &&
		    n->kind != AST_ASSIGN)
			continue;
		s->kernels =
		    grow(s->a, s->kernels, s->nkernels, &s->cap_kernels, sizeof *s->kernels);
		s->kernel = s->nkernels;
		solar_kernel k = {.span = n->span, .first_stmt = s->nstmts, .stage = -1};
		if (n->kind == AST_KERNEL) {
			k.name = solar_arena_strdup(s->a, n->name);
			kernel_attrs(s, &k, n);
			s->kernel_items = n->body.n;
			s->coll = NULL;
			k.body = lower_block(s, &n->body);
			k.coll = s->coll;
			s->kernel_items = -1;
		} else {
			k.implicit = true;
			k.body = lower_block(s, &(ast_block){(ast_node **)&items->items[i], 1});
		}
		k.nstmts = s->nstmts - k.first_stmt;
		if (k.implicit) {
			const char *base = k.nstmts
					       ? s->p->tensors[s->stmts[k.first_stmt]->tensor].name
					       : "kernel";
			k.name = implicit_name(s, &taken, &next, base);
		}
		s->kernels[s->nkernels++] = k;
	}
}

/* `microbatches A = M;` (AIR 1.2 pipelines): once, A the axis of the program's stages, M a
 * positive integer of params, consts and literals. */
static void microbatches(sema *s)
{
	const ast_list *items = &s->ps->items;
	solar_program *p = s->p;
	const ast_node *first = NULL;
	for (int i = 0; i < items->n; i++) {
		const ast_node *n = items->items[i];
		if (n->kind != AST_MESH || strcmp(n->name, "microbatches"))
			continue;
		if (p->air_minor < 2) {
			solar_diag_error(s->d, n->name_span,
					 "microbatches need AIR 1.2: begin the file with `air 1.2;`");
			continue;
		}
		if (first) {
			solar_diag_error(s->d, n->name_span, "microbatches are declared twice");
			solar_diag_note(s->d, first->span, "the first declaration is here");
			continue;
		}
		first = n;
		if (n->ndecls != 1) {
			solar_diag_error(s->d, n->span,
					 "microbatches names one axis, the pipeline's: "
					 "`microbatches pp = 16;`");
			continue;
		}
		const ast_decl *dc = n->decls[0];
		int a = 0;
		while (a < p->nmesh && strcmp(p->mesh[a].name, dc->name))
			a++;
		if (a == p->nmesh) {
			solar_diag_error(s->d, dc->span, "'%s' is not an axis of the mesh", dc->name);
			continue;
		}
		if (p->pipe_axis != a) {
			solar_diag_error(s->d, dc->span,
					 "microbatches run through stages: no tensor is placed on a "
					 "stage of '%s' (`stage(%s, S)`)",
					 dc->name, dc->name);
			continue;
		}
		int r;
		int64_t v = 0;
		lower_int(s, dc->value, &C_EXTENT, &v, &r);
		if (r != EVAL_OK)
			continue;
		if (v < 1 || v > (int64_t)1 << 24) {
			solar_diag_error(s->d, dc->value->span,
					 "%" PRId64 " microbatches; a step has 1 to 16777216", v);
			continue;
		}
		p->microbatches = v;
		p->microbatches_span = n->span;
	}
}

/* The stages of the tensors a kernel touches (AIR 1.2 pipelines). */
typedef struct {
	const solar_program *p;
	int stage, first, clash; /* the first staged tensor's stage and index; a second stage's */
	int unstaged_write;	 /* a written tensor every stage holds, -1: none */
} stage_seen;

static void stage_visit(void *ctx, int t, bool write)
{
	stage_seen *v = ctx;
	int st = solar_tensor_stage(&v->p->tensors[t]);
	if (st < 0) {
		if (write && v->unstaged_write < 0)
			v->unstaged_write = t;
		return;
	}
	if (v->stage < 0) {
		v->stage = st;
		v->first = t;
	} else if (st != v->stage && v->clash < 0)
		v->clash = t;
}

/* Each kernel's stage: the one stage of the staged tensors it touches (-1: none, every rank
 * runs it); a kernel of one stage writes only that stage's tensors; a send moves a tensor of
 * one stage into another's, along the pipeline axis; no other collective runs over it. */
static void stages(sema *s)
{
	solar_program *p = s->p;
	for (int k = 0; k < p->nkernels; k++) {
		solar_kernel *kn = &p->kernels[k];
		const solar_collective *c = kn->coll;
		if (c && c->op == SOLAR_XOP_SEND) {
			const solar_tensor *in = &p->tensors[c->in], *out = &p->tensors[c->out];
			int from = solar_tensor_stage(in), to = solar_tensor_stage(out);
			if (p->pipe_axis >= 0 && c->axis != p->pipe_axis) {
				solar_diag_error(s->d, c->span,
						 "send moves tensors between the stages of the pipeline's "
						 "axis, '%s', not '%s'",
						 p->mesh[p->pipe_axis].name, p->mesh[c->axis].name);
				continue;
			}
			if (c->axis != p->pipe_axis || from < 0 || to < 0 || from == to) {
				solar_diag_error(s->d, c->span,
						 "send(%s) moves a tensor from one stage of '%s' to "
						 "another: '%s' and '%s' need `stage(%s, S)` layouts "
						 "with two stages",
						 p->mesh[c->axis].name, p->mesh[c->axis].name, in->name,
						 out->name, p->mesh[c->axis].name);
				continue;
			}
			kn->stage = from;
			continue;
		}
		stage_seen v = {p, -1, -1, -1, -1};
		solar_ir_kernel_tensors(p, k, stage_visit, &v);
		if (v.clash >= 0) {
			solar_diag_error(s->d, kn->span,
					 "kernel '%s' touches '%s' (stage %d of '%s') and '%s' "
					 "(stage %d): a kernel runs on one stage; move a tensor to "
					 "another with send(%s)",
					 kn->name, p->tensors[v.first].name, v.stage,
					 p->mesh[p->pipe_axis].name, p->tensors[v.clash].name,
					 solar_tensor_stage(&p->tensors[v.clash]),
					 p->mesh[p->pipe_axis].name);
			continue;
		}
		if (v.stage >= 0 && v.unstaged_write >= 0) {
			const solar_tensor *t = &p->tensors[v.unstaged_write];
			solar_diag_error(s->d, kn->span,
					 "kernel '%s' runs on stage %d of '%s' only, so it cannot "
					 "write '%s', which every stage holds: give '%s' `stage(%s, "
					 "%d)`",
					 kn->name, v.stage, p->mesh[p->pipe_axis].name, t->name,
					 t->name, p->mesh[p->pipe_axis].name, v.stage);
			solar_diag_note(s->d, t->span, "'%s' is declared here", t->name);
			continue;
		}
		if (c && v.stage >= 0 && c->axis == p->pipe_axis) {
			solar_diag_error(s->d, c->span,
					 "%s over '%s' on '%s', which only stage %d holds: over the "
					 "pipeline's axis only send moves staged tensors",
					 solar_xop_name(c->op), p->mesh[c->axis].name,
					 p->tensors[v.first].name, v.stage);
			continue;
		}
		kn->stage = v.stage;
	}
}

static void unwritten_outputs(sema *s)
{
	for (int i = 0; i < s->p->ntensors; i++) {
		const solar_tensor *t = &s->p->tensors[i];
		if (t->role == SOLAR_ROLE_OUT && !s->written[i])
			solar_diag_warning(s->d, t->span,
					   "'%s' is declared `out` but never written", t->name);
	}
}

/* -D rank(A)=r: the ranks of coordinate r on A only (the other classes are not analysed). */
static void rank_defines(sema *s, const solar_define *defs, int ndefs)
{
	solar_program *p = s->p;
	for (int i = 0; i < ndefs; i++) {
		const char *name = defs[i].name;
		if (strncmp(name, "rank(", 5))
			continue;
		int k = -1;
		for (int j = 0; j < p->nparams; j++)
			if (p->params[j].axis >= 0 && !strcmp(p->params[j].name, name))
				k = j;
		if (k < 0) {
			solar_diag_error_nowhere(s->d,
						 "-D %s=%" PRId64 ": the program reads no %s (its "
						 "kernels decide what differs between ranks)",
						 name, defs[i].value, name);
			continue;
		}
		int64_t n = p->mesh[p->params[k].axis].value;
		if (defs[i].value < 0 || defs[i].value >= n) {
			solar_diag_error_nowhere(s->d,
						 "-D %s=%" PRId64 ": a coordinate on %s is 0 to %" PRId64,
						 name, defs[i].value, p->mesh[p->params[k].axis].name,
						 n - 1);
			continue;
		}
		p->params[k].value = defs[i].value;
		p->params[k].overridden = true;
	}
}

solar_program *solar_sema_run(solar_pstate *ps, solar_program *p, const solar_define *defs,
			      int ndefs)
{
	sema s = {.ps = ps, .p = p, .a = p->arena, .d = ps->diag, .kernel_items = -1};
	p->pipe_axis = -1;
	p->microbatches = 1;
	int before = solar_diag_errors(s.d);
	check_header(&s);
	declare(&s);
	params(&s, defs, ndefs);
	consts(&s);
	mesh(&s);
	extents(&s);
	microbatches(&s);
	assumptions(&s);
	kernels(&s);
	rank_defines(&s, defs, ndefs);
	if (solar_diag_errors(s.d) != before)
		return NULL;
	unwritten_outputs(&s);
	p->iters = s.iters;
	p->niters = s.niters;
	p->kernels = s.kernels;
	p->nkernels = s.nkernels;
	p->stmts = s.stmts;
	p->nstmts = s.nstmts;
	stages(&s);
	if (solar_diag_errors(s.d) != before)
		return NULL;
	return p;
}

/* ---- the front end -------------------------------------------------------------------- */

solar_program *solar_frontend_load(const char *file, const char *src, int32_t len,
				   const solar_define *defs, int ndefs, solar_diag *d)
{
	if (!src || len < 0 || len > SOLAR_MAX_SOURCE_BYTES) {
		solar_diag_error_nowhere(d,
					 "the source is larger than the limit of %d bytes (64 MiB)",
					 SOLAR_MAX_SOURCE_BYTES);
		return NULL;
	}
	solar_arena *a = solar_arena_new();
	solar_program *p = solar_arena_alloc(a, sizeof *p);
	p->arena = a;
	p->file = solar_arena_strdup(a, file ? file : "<input>");
	char *copy = solar_arena_alloc(a, (size_t)len + 1);
	memcpy(copy, src, (size_t)len);
	p->src = copy;
	p->src_len = len;

	solar_pstate ps = {.arena = solar_arena_new(), .diag = d, .src = copy, .len = len};
	bool ok = solar_parse(&ps) == 0 && solar_sema_run(&ps, p, defs, ndefs);
	solar_arena_free(ps.arena);
	if (!ok) {
		solar_arena_free(a);
		return NULL;
	}
	if (solar_ir_verify(p, d)) {
		solar_arena_free(a);
		p = NULL;
	}
	return p;
}
