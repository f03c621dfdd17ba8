/* verify.c - the IR's structural invariants, checked.
 *
 * What every pass may assume of a loaded program, and what this file checks: every index
 * into a table is in range; an expression has the arguments its kind needs; an iterator is
 * used only inside the loop that defines it, and each iterator is defined by exactly one
 * loop; a tensor access has one index per dimension; a `joined` loop is the only item of
 * its parent loop's body; statements are numbered in program order, each kernel's
 * statements are the contiguous run stmts[first_stmt, first_stmt + nstmts), and each
 * statement's `depth` and `loops` list its enclosing loops; extents and steps are positive;
 * consts use only earlier consts.  A failure is a bug in solar, not in the user's program.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

#include "ir.h"
#include "../diag/alloc.h"

typedef struct {
	const solar_program *p;
	solar_diag *d;
	int problems;
	int scope[4096]; /* iterators of the enclosing loops */
	int nscope;
	bool *defined; /* per iterator: a loop defines it */
	int next_stmt; /* the id the next statement in program order must have */
	int kernel;
} verifier;

/* `FILE: error: internal error: ...`, one a problem, through the file's context (whose cap
 * stops the printing). */
SOLAR_PRINTF(2, 3) static void bad(verifier *v, const char *fmt, ...)
{
	v->problems++;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	solar_diag_error_nowhere(v->d,
				 "internal error: the IR of this file is inconsistent (a bug "
				 "in solar): %s",
				 msg);
}

/* Integer expressions of literals and consts (before const `limit`) and, with
 * `params`, params. */
static void check_int_expr(verifier *v, const solar_expr *e, int limit, bool params,
			   const char *what, int depth)
{
	if (!e) {
		bad(v, "%s: missing expression", what);
		return;
	}
	if (depth > 100000) {
		bad(v, "%s: expression too deep", what);
		return;
	}
	switch (e->kind) {
	case SOLAR_E_INT:
		return;
	case SOLAR_E_CONST:
		if (e->sym < 0 || e->sym >= limit)
			bad(v, "%s: const %d out of range", what, e->sym);
		return;
	case SOLAR_E_PARAM:
		if (!params || e->sym < 0 || e->sym >= v->p->nparams)
			bad(v, "%s: param %d not allowed here", what, e->sym);
		return;
	case SOLAR_E_NEG:
		if (e->nargs != 1)
			bad(v, "%s: negation with %d arguments", what, e->nargs);
		else
			check_int_expr(v, e->args[0], limit, params, what, depth + 1);
		return;
	case SOLAR_E_BIN:
		if (e->nargs != 2 || !(e->binop == SOLAR_OP_ADD || e->binop == SOLAR_OP_SUB ||
				       e->binop == SOLAR_OP_MUL || e->binop == SOLAR_OP_FLOORDIV ||
				       e->binop == SOLAR_OP_MOD)) {
			bad(v, "%s: operator not allowed in an integer expression", what);
			return;
		}
		check_int_expr(v, e->args[0], limit, params, what, depth + 1);
		check_int_expr(v, e->args[1], limit, params, what, depth + 1);
		return;
	default:
		bad(v, "%s: expression kind %d not allowed", what, (int)e->kind);
	}
}

static bool in_scope(const verifier *v, int iter)
{
	for (int i = 0; i < v->nscope; i++)
		if (v->scope[i] == iter)
			return true;
	return false;
}

/* Any expression inside a kernel: names resolve, iterators are in scope, arities hold. */
static void check_expr(verifier *v, const solar_expr *e, const char *what, int depth)
{
	const solar_program *p = v->p;
	if (!e) {
		bad(v, "%s: missing expression", what);
		return;
	}
	if (depth > 100000) {
		bad(v, "%s: expression too deep", what);
		return;
	}
	if (e->nargs < 0 || (e->nargs > 0 && !e->args)) {
		bad(v, "%s: bad argument list", what);
		return;
	}
	int want = -1; /* required number of arguments, -1: checked below */
	switch (e->kind) {
	case SOLAR_E_INT:
	case SOLAR_E_INF:
		want = 0;
		break;
	case SOLAR_E_FLOAT:
		want = 0;
		break;
	case SOLAR_E_PARAM:
		want = 0;
		if (e->sym < 0 || e->sym >= p->nparams)
			bad(v, "%s: param %d out of range", what, e->sym);
		break;
	case SOLAR_E_CONST:
		want = 0;
		if (e->sym < 0 || e->sym >= p->nconsts)
			bad(v, "%s: const %d out of range", what, e->sym);
		break;
	case SOLAR_E_ITER:
		want = 0;
		if (e->sym < 0 || e->sym >= p->niters)
			bad(v, "%s: iterator %d out of range", what, e->sym);
		else if (!in_scope(v, e->sym))
			bad(v, "%s: iterator '%s' used outside its loop", what,
			    p->iters[e->sym].name);
		break;
	case SOLAR_E_ACCESS:
		if (e->sym < 0 || e->sym >= p->ntensors)
			bad(v, "%s: tensor %d out of range", what, e->sym);
		else
			want = p->tensors[e->sym].rank;
		break;
	case SOLAR_E_NEG:
	case SOLAR_E_NOT:
	case SOLAR_E_CAST:
		want = 1;
		if (e->kind == SOLAR_E_CAST && (unsigned)e->dtype >= SOLAR_DT_COUNT)
			bad(v, "%s: cast to unknown dtype %d", what, (int)e->dtype);
		break;
	case SOLAR_E_BIN:
		want = 2;
		if ((unsigned)e->binop > SOLAR_OP_OR)
			bad(v, "%s: unknown operator %d", what, (int)e->binop);
		break;
	case SOLAR_E_CALL:
		if ((unsigned)e->fn >= SOLAR_FN_COUNT) {
			bad(v, "%s: unknown function %d", what, (int)e->fn);
		} else if (e->nargs < solar_fn_min_args(e->fn) ||
			   (solar_fn_max_args(e->fn) >= 0 && e->nargs > solar_fn_max_args(e->fn))) {
			bad(v, "%s: %s with %d arguments", what, solar_fn_name(e->fn), e->nargs);
		}
		break;
	default:
		bad(v, "%s: unknown expression kind %d", what, (int)e->kind);
		return;
	}
	if (want >= 0 && e->nargs != want) {
		bad(v, "%s: expression kind %d has %d arguments, not %d", what, (int)e->kind,
		    e->nargs, want);
		return;
	}
	for (int i = 0; i < e->nargs; i++)
		check_expr(v, e->args[i], what, depth + 1);
}

static void check_block(verifier *v, const solar_block *b, bool parent_for);

static void check_stmt(verifier *v, const solar_stmt *s)
{
	const solar_program *p = v->p;
	char what[64];
	snprintf(what, sizeof what, "stmt %d", v->next_stmt);
	if (!s) {
		bad(v, "%s: missing", what);
		return;
	}
	if (v->next_stmt >= p->nstmts || p->stmts[v->next_stmt] != s)
		bad(v, "%s: not at its place in program->stmts", what);
	if (s->id != v->next_stmt)
		bad(v, "%s: has id %d", what, s->id);
	if (s->kernel != v->kernel)
		bad(v, "%s: says kernel %d but is in kernel %d", what, s->kernel, v->kernel);
	v->next_stmt++;
	if (s->depth != v->nscope)
		bad(v, "%s: depth %d, but %d loops enclose it", what, s->depth, v->nscope);
	else
		for (int i = 0; i < s->depth; i++)
			if (!s->loops || s->loops[i] != v->scope[i])
				bad(v, "%s: loops[%d] is not the enclosing loop's iterator", what,
				    i);
	if (s->tensor < 0 || s->tensor >= p->ntensors) {
		bad(v, "%s: tensor %d out of range", what, s->tensor);
		return;
	}
	if ((unsigned)s->op > SOLAR_MIN_TO)
		bad(v, "%s: unknown assignment %d", what, (int)s->op);
	int rank = p->tensors[s->tensor].rank;
	for (int i = 0; i < rank; i++)
		check_expr(v, s->index ? s->index[i] : NULL, what, 0);
	check_expr(v, s->value, what, 0);
}

static void check_node(verifier *v, const solar_node *n, bool only_child_of_for)
{
	const solar_program *p = v->p;
	if (!n) {
		bad(v, "kernel %d: missing node", v->kernel);
		return;
	}
	switch (n->kind) {
	case SOLAR_N_FOR: {
		int it = n->loop.iter;
		if (it < 0 || it >= p->niters) {
			bad(v, "kernel %d: loop iterator %d out of range", v->kernel, it);
			return;
		}
		if (v->defined[it])
			bad(v, "iterator %d ('%s') is defined by two loops", it, p->iters[it].name);
		v->defined[it] = true;
		if (n->loop.joined && !only_child_of_for)
			bad(v, "loop of '%s' is joined but not the only item of a loop body",
			    p->iters[it].name);
		check_expr(v, n->loop.lo, "loop bound", 0);
		check_expr(v, n->loop.hi, "loop bound", 0);
		if (n->loop.step)
			check_int_expr(v, n->loop.step, p->nconsts, false, "step", 0);
		if (n->loop.step_value <= 0)
			bad(v, "loop of '%s': step %" PRId64, p->iters[it].name,
			    n->loop.step_value);
		if (v->nscope >= (int)(sizeof v->scope / sizeof *v->scope)) {
			bad(v, "loops nested too deeply");
			return;
		}
		v->scope[v->nscope++] = it;
		check_block(v, &n->loop.body, true);
		v->nscope--;
		return;
	}
	case SOLAR_N_IF:
		check_expr(v, n->cond.cond, "condition", 0);
		check_block(v, &n->cond.then, false);
		check_block(v, &n->cond.els, false);
		return;
	case SOLAR_N_STMT:
		check_stmt(v, n->stmt);
		return;
	}
	bad(v, "kernel %d: unknown node kind %d", v->kernel, (int)n->kind);
}

static void check_block(verifier *v, const solar_block *b, bool parent_for)
{
	if (b->n < 0 || (b->n > 0 && !b->items)) {
		bad(v, "kernel %d: bad block", v->kernel);
		return;
	}
	for (int i = 0; i < b->n; i++)
		check_node(v, b->items[i], parent_for && b->n == 1);
}

int solar_ir_verify(const solar_program *p, solar_diag *diag)
{
	verifier v = {.p = p, .d = diag};
	if (!p) {
		bad(&v, "no program");
		return -1;
	}
	if ((p->nparams && !p->params) || (p->nconsts && !p->consts) ||
	    (p->ntensors && !p->tensors) || (p->niters && !p->iters) ||
	    (p->nkernels && !p->kernels) || (p->nstmts && !p->stmts) || p->nparams < 0 ||
	    p->nconsts < 0 || p->ntensors < 0 || p->niters < 0 || p->nkernels < 0 ||
	    p->nstmts < 0) {
		bad(&v, "a table is missing or has a negative size");
		return -1;
	}
	for (int i = 0; i < p->nparams; i++)
		if (!p->params[i].name)
			bad(&v, "param %d has no name", i);
	for (int i = 0; i < p->nconsts; i++) {
		if (!p->consts[i].name)
			bad(&v, "const %d has no name", i);
		check_int_expr(&v, p->consts[i].expr, i, false, "const", 0);
	}
	int group = -1;
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		if (!t->name)
			bad(&v, "tensor %d has no name", i);
		if ((unsigned)t->dtype >= SOLAR_DT_COUNT || (unsigned)t->role > SOLAR_ROLE_RAND ||
		    (t->role == SOLAR_ROLE_RAND) != (t->dist != SOLAR_DIST_NONE))
			bad(&v, "tensor '%s': bad dtype, role or distribution", t->name);
		if (t->rank < 0 || (t->rank && (!t->dims || !t->extent))) {
			bad(&v, "tensor '%s': bad rank or dims", t->name);
			continue;
		}
		if (t->decl_group < group || t->decl_group > group + 1)
			bad(&v, "tensor '%s': declaration groups out of order", t->name);
		group = t->decl_group;
		for (int d = 0; d < t->rank; d++) {
			check_int_expr(&v, t->dims[d], p->nconsts, true, "extent", 0);
			if (t->extent[d] <= 0)
				bad(&v, "tensor '%s': extent %d is %" PRId64, t->name, d,
				    t->extent[d]);
		}
	}
	for (int i = 0; i < p->niters; i++)
		if (!p->iters[i].name)
			bad(&v, "iterator %d has no name", i);
	v.defined = solar_xcalloc((size_t)p->niters + 1, 1);
	for (int k = 0; k < p->nkernels; k++) {
		const solar_kernel *kn = &p->kernels[k];
		v.kernel = k;
		if (!kn->name)
			bad(&v, "kernel %d has no name", k);
		if (kn->first_stmt != v.next_stmt)
			bad(&v, "kernel %d: first_stmt %d, expected %d", k, kn->first_stmt,
			    v.next_stmt);
		check_block(&v, &kn->body, false);
		if (kn->first_stmt + kn->nstmts != v.next_stmt)
			bad(&v, "kernel %d: nstmts %d, but it holds %d", k, kn->nstmts,
			    v.next_stmt - kn->first_stmt);
	}
	if (v.next_stmt != p->nstmts)
		bad(&v, "program->stmts has %d statements, the kernels hold %d", p->nstmts,
		    v.next_stmt);
	for (int i = 0; i < p->niters; i++)
		if (!v.defined[i])
			bad(&v, "iterator %d ('%s') is defined by no loop", i,
			    p->iters[i].name ? p->iters[i].name : "?");
	free(v.defined);
	return v.problems ? -1 : 0;
}
