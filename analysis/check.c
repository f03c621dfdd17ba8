/* check.c - the checks of `solar check` that need ISL.
 *
 * Out-of-bounds: for every reference and every dimension, the set of statement instances
 * whose index falls outside [0, extent) must be empty; if not, one instance (a sample point of
 * that set) is printed as the example.  This is exact: no instance is missed and none is
 * invented, whatever the sizes.  An index that interval arithmetic over the loop bounds
 * already places inside its extent skips the ISL test (it cannot fail).
 *
 * Uninitialised tmp: dataflow analysis (ISL's exact value-based flow over the whole program,
 * in program order) gives the read instances with no producing write; for a `tmp` tensor any
 * such instance reads garbage.
 */
#include <isl/constraint.h>
#include <isl/local_space.h>
#include <isl/space.h>
#include <isl/point.h>
#include <isl/val.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "model.h"
#include "../diag/alloc.h"

/* Writes "i=3, j=0" for the first n coordinates of a point (the statement's iterators). */
static void describe_point(const solar_program *p, const solar_stmt *s, isl_point *pt, int first,
			   solar_buf *b)
{
	for (int k = 0; k < s->depth; k++) {
		isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, first + k);
		char *txt = isl_val_to_str(v);
		solar_buf_printf(b, "%s%s=%s", k ? ", " : "", p->iters[s->loops[k]].name, txt);
		free(txt);
		isl_val_free(v);
	}
	if (!s->depth)
		solar_buf_printf(b, "its only instance");
}

/* Orders refs a and b by access text, then by the extents of their tensors. */
static int access_cmp(const solar_model *m, int a, int b)
{
	const solar_ref *x = &m->refs[a], *y = &m->refs[b];
	if (x->text_id != y->text_id)
		return (x->text_id > y->text_id) - (x->text_id < y->text_id);
	const solar_tensor *s = &m->prog->tensors[x->tensor], *t = &m->prog->tensors[y->tensor];
	for (int k = 0; k < s->rank; k++) /* equal texts index tensors of equal rank */
		if (s->extent[k] != t->extent[k])
			return (s->extent[k] > t->extent[k]) - (s->extent[k] < t->extent[k]);
	return 0;
}

static const solar_model *sort_model; /* for by_access: qsort has no user argument */

static int by_access(const void *a, const void *b)
{
	int ra = *(const int *)a, rb = *(const int *)b;
	int c = access_cmp(sort_model, ra, rb);
	return c ? c : (ra > rb) - (ra < rb);
}

/* For every ref, the first ref with the same access (up to the names of its tuples) into a
 * tensor of the same extents: the bounds check of both gives the same answer. */
static int *first_equal_refs(const solar_model *m)
{
	int *order = solar_xmalloc(((size_t)m->nrefs + 1) * sizeof *order);
	int *first = solar_xmalloc(((size_t)m->nrefs + 1) * sizeof *first);
	for (int r = 0; r < m->nrefs; r++)
		order[r] = r;
	sort_model = m;
	qsort(order, (size_t)m->nrefs, sizeof *order, by_access);
	for (int i = 0; i < m->nrefs; i++)
		first[order[i]] = i && !access_cmp(m, order[i - 1], order[i]) ? first[order[i - 1]]
									  : order[i];
	free(order);
	return first;
}

/* The elements of tensor t (rank dimensions) outside dimension k: T<t>[d..] with d_k < 0 or
 * d_k >= extent, the first disjunct first.  Built from its two constraints: parsing the text
 * took most of check_bounds' time on a model of hundreds of tensors. */
static isl_set *outside_set(isl_ctx *ctx, int t, int rank, int k, int64_t extent)
{
	char name[32];
	solar_model_tensor_name(name, sizeof name, t);
	isl_space *sp = isl_space_set_tuple_name(isl_space_set_alloc(ctx, 0, (unsigned)rank),
						 isl_dim_set, name);
	isl_local_space *ls = isl_local_space_from_space(sp);
	isl_constraint *below = isl_constraint_alloc_inequality(isl_local_space_copy(ls));
	below = isl_constraint_set_coefficient_si(below, isl_dim_set, k, -1);
	below = isl_constraint_set_constant_si(below, -1); /* -d_k - 1 >= 0 */
	isl_constraint *above = isl_constraint_alloc_inequality(ls);
	above = isl_constraint_set_coefficient_si(above, isl_dim_set, k, 1);
	above = isl_constraint_set_constant_val(above, isl_val_int_from_si(ctx, (long)-extent));
	return isl_set_union(isl_set_from_basic_set(isl_basic_set_from_constraint(below)),
			     isl_set_from_basic_set(isl_basic_set_from_constraint(above)));
}

/* ---- intervals: indices in bounds without ISL ----
 * An index whose values, bounded by interval arithmetic over the loops' bounds (an iterator
 * lies in [min of its lo, max of its hi - 1]; conditions and steps only remove instances),
 * lie in [0, extent) cannot be out of bounds, so ISL need not check it.  Anything else (and
 * any interval beyond 2^62) goes to ISL, which decides exactly. */
typedef struct {
	__int128 lo, hi;
	bool ok;
} range;

typedef struct {
	const solar_program *p;
	const solar_node **loop_of; /* per iterator: its loop */
	range *iter;                /* per iterator: its range, once computed */
	char *state;                /* per iterator: 0 not yet, 1 done */
} ranges;

static void find_loops(ranges *c, const solar_block *b)
{
	for (int i = 0; i < b->n; i++) {
		const solar_node *n = b->items[i];
		if (n->kind == SOLAR_N_FOR) {
			c->loop_of[n->loop.iter] = n;
			find_loops(c, &n->loop.body);
		} else if (n->kind == SOLAR_N_IF) {
			find_loops(c, &n->cond.then);
			find_loops(c, &n->cond.els);
		}
	}
}

static bool uses_iter(const solar_expr *e)
{
	if (e->kind == SOLAR_E_ITER || e->kind == SOLAR_E_ACCESS || e->kind == SOLAR_E_CAST)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (uses_iter(e->args[i]))
			return true;
	return false;
}

static range make_range(__int128 lo, __int128 hi)
{
	const __int128 big = (__int128)1 << 62;
	return (range){lo, hi, lo <= hi && lo > -big && hi < big};
}

static __int128 floor_div(__int128 a, __int128 c)
{
	return a >= 0 ? a / c : -((-a + c - 1) / c);
}

static range expr_range(ranges *c, const solar_expr *e);

static range iter_range(ranges *c, int it)
{
	if (c->state[it])
		return c->iter[it];
	const solar_node *n = c->loop_of[it];
	range r = {0, 0, false};
	if (n) {
		range lo = expr_range(c, n->loop.lo), hi = expr_range(c, n->loop.hi);
		if (lo.ok && hi.ok)
			r = make_range(lo.lo, hi.hi - 1);
	}
	c->state[it] = 1;
	c->iter[it] = r;
	return r;
}

static range expr_range(ranges *c, const solar_expr *e)
{
	range fail = {0, 0, false};
	if (e->kind == SOLAR_E_ACCESS) { /* a read of an index tensor: its declared range */
		const solar_tensor *t = &c->p->tensors[e->sym];
		return solar_tensor_ranged(t) ? make_range(t->range[0], t->range[1] - 1) : fail;
	}
	if (e->kind == SOLAR_E_PARAM && c->p->params[e->sym].axis >= 0) /* rank(A): every rank's */
		return make_range(0, c->p->mesh[c->p->params[e->sym].axis].value - 1);
	if (!uses_iter(e) && !solar_ir_index_reads_data(e) && !solar_ir_expr_reads_rank(c->p, e)) {
		int64_t v = solar_ir_eval_const(c->p, e);
		return make_range(v, v);
	}
	if (e->kind == SOLAR_E_ITER)
		return iter_range(c, e->sym);
	range a = e->nargs ? expr_range(c, e->args[0]) : fail;
	if (!a.ok)
		return fail;
	if (e->kind == SOLAR_E_NEG)
		return make_range(-a.hi, -a.lo);
	if (e->kind == SOLAR_E_CALL && (e->fn == SOLAR_FN_MIN || e->fn == SOLAR_FN_MAX)) {
		for (int i = 1; i < e->nargs && a.ok; i++) {
			range b = expr_range(c, e->args[i]);
			if (!b.ok)
				return fail;
			bool mn = e->fn == SOLAR_FN_MIN;
			a = make_range(mn ? (a.lo < b.lo ? a.lo : b.lo) : (a.lo > b.lo ? a.lo : b.lo),
				       mn ? (a.hi < b.hi ? a.hi : b.hi) : (a.hi > b.hi ? a.hi : b.hi));
		}
		return a;
	}
	if (e->kind != SOLAR_E_BIN)
		return fail;
	if (e->binop == SOLAR_OP_FLOORDIV || e->binop == SOLAR_OP_MOD) {
		if (uses_iter(e->args[1]))
			return fail;
		__int128 d = solar_ir_eval_const(c->p, e->args[1]);
		if (d <= 0)
			return fail;
		return e->binop == SOLAR_OP_MOD ? make_range(0, d - 1)
						: make_range(floor_div(a.lo, d), floor_div(a.hi, d));
	}
	range b = expr_range(c, e->args[1]);
	if (!b.ok)
		return fail;
	switch (e->binop) {
	case SOLAR_OP_ADD:
		return make_range(a.lo + b.lo, a.hi + b.hi);
	case SOLAR_OP_SUB:
		return make_range(a.lo - b.hi, a.hi - b.lo);
	case SOLAR_OP_MUL: {
		__int128 x[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
		__int128 lo = x[0], hi = x[0];
		for (int i = 1; i < 4; i++) {
			lo = x[i] < lo ? x[i] : lo;
			hi = x[i] > hi ? x[i] : hi;
		}
		return make_range(lo, hi);
	}
	default:
		return fail;
	}
}

static int check_bounds(const solar_model *m, solar_diag *d)
{
	const solar_program *p = m->prog;
	int errors = 0, kernel = -1;
	/* per tensor, the elements outside dimension k (outside_set), made once */
	isl_set ***outside_dim = solar_xcalloc((size_t)p->ntensors + 1, sizeof *outside_dim);
	int *first = first_equal_refs(m);
	bool *clean = solar_xcalloc((size_t)m->nrefs + 1, sizeof *clean); /* checked, in bounds */
	ranges rg = {p, solar_xcalloc((size_t)p->niters + 1, sizeof *rg.loop_of),
		     solar_xcalloc((size_t)p->niters + 1, sizeof *rg.iter),
		     solar_xcalloc((size_t)p->niters + 1, sizeof *rg.state)};
	for (int k = 0; k < p->nkernels; k++)
		find_loops(&rg, &p->kernels[k].body);
	for (int r = 0; r < m->nrefs && !solar_diag_full(d); r++) {
		const solar_ref *ref = &m->refs[r];
		if (!ref->write && !ref->expr)
			continue; /* a reduction's read of its target: the write reports it */
		if (first[r] != r && clean[first[r]] && !ref->data) {
			clean[r] = true;
			continue;
		}
		int before = errors;
		const solar_stmt *s = p->stmts[ref->stmt];
		if (s->kernel != kernel) /* ISL's budget is per kernel */
			solar_isl_budget_kernel(m->ctx);
		kernel = s->kernel;
		const solar_tensor *t = &p->tensors[ref->tensor];
		solar_expr **index = ref->write ? s->index : ref->expr->args;
		if (t->rank && !outside_dim[ref->tensor]) {
			outside_dim[ref->tensor] = solar_xcalloc((size_t)t->rank, sizeof **outside_dim);
			for (int k = 0; k < t->rank; k++)
				outside_dim[ref->tensor][k] =
					outside_set(m->ctx, ref->tensor, t->rank, k, t->extent[k]);
		}
		for (int k = 0; k < t->rank; k++) {
			range ix = expr_range(&rg, index[k]);
			if (ix.ok && ix.lo >= 0 && ix.hi < t->extent[k])
				continue; /* in bounds by its interval */
			isl_set *outside = isl_set_copy(outside_dim[ref->tensor][k]);
			isl_map *bad = isl_map_intersect_range(solar_model_may_access(m, r), outside);
			isl_bool empty = isl_map_is_empty(bad);
			if (empty == isl_bool_false) {
				isl_point *pt = isl_set_sample_point(isl_map_wrap(isl_map_copy(bad)));
				isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set,
									  s->depth + k);
				char *vt = isl_val_to_str(v);
				solar_buf ex = {0};
				describe_point(p, s, pt, 0, &ex);
				solar_diag_error(d, index[k]->span,
						 "index %d of '%s' is out of bounds: it reaches %s at %s, "
						 "but dimension %d has extent %lld (valid 0..%lld)",
						 k, t->name, vt, ex.s, k, (long long)t->extent[k],
						 (long long)t->extent[k] - 1);
				if (solar_ir_index_reads_data(index[k]))
					solar_diag_note(d, index[k]->span,
							"the index reads data: it is checked for every "
							"value the index tensors' declared ranges allow");
				solar_buf_free(&ex);
				free(vt);
				isl_val_free(v);
				isl_point_free(pt);
				errors++;
			}
			isl_map_free(bad);
			if (empty == isl_bool_error) {
				solar_diag_error(d, index[k]->span,
						 "cannot check index %d of '%s' against its extent: %s",
						 k, t->name,
						 isl_ctx_last_error(m->ctx) == isl_error_quota
							 ? "ISL operation limit reached"
							 : "ISL error");
				errors++;
				goto done;
			}
		}
		clean[r] = errors == before;
	}
done:
	free(first);
	free(clean);
	free(rg.loop_of);
	free(rg.iter);
	free(rg.state);
	for (int t = 0; t < p->ntensors; t++) {
		for (int k = 0; outside_dim[t] && k < p->tensors[t].rank; k++)
			isl_set_free(outside_dim[t][k]);
		free(outside_dim[t]);
	}
	free(outside_dim);
	return errors;
}

struct uninit_ctx {
	const solar_model *m;
	solar_diag *d;
	int errors;
};

static isl_stat report_uninit(isl_set *set, void *user)
{
	struct uninit_ctx *c = user;
	const solar_program *p = c->m->prog;
	const char *name = isl_set_get_tuple_name(set);
	if (!name || name[0] != 'R' || solar_diag_full(c->d)) {
		isl_set_free(set);
		return isl_stat_ok;
	}
	const solar_ref *ref = &c->m->refs[atoi(name + 1)];
	const solar_tensor *t = &p->tensors[ref->tensor];
	if (t->role != SOLAR_ROLE_TMP) {
		isl_set_free(set);
		return isl_stat_ok;
	}
	const solar_stmt *s = p->stmts[ref->stmt];
	if (ref->data) { /* its shadow has no source: uninit_data decides */
		isl_set_free(set);
		return isl_stat_ok;
	}
	isl_point *pt = isl_set_sample_point(set);
	solar_buf ex = {0};
	describe_point(p, s, pt, 0, &ex);
	if (ref->expr)
		solar_diag_error(c->d, ref->expr->span,
				 "reads an element of tmp '%s' that was never written before "
				 "(e.g. at %s)",
				 t->name, ex.s);
	else
		solar_diag_error(c->d, s->span,
				 "'%s' reads its target, an element of tmp '%s' that was never "
				 "written before (e.g. at %s); initialise it with '=' first",
				 solar_assign_text(s->op), t->name, ex.s);
	solar_buf_free(&ex);
	isl_point_free(pt);
	c->errors++;
	return isl_stat_ok;
}

solar_analysis *solar_analysis_new(const solar_program *p, solar_diag *d)
{
	solar_analysis *a = solar_xcalloc(1, sizeof *a);
	a->ctx = solar_isl_ctx_new();
	a->model = solar_model_build(p, a->ctx, false, d);
	if (a->model && solar_model_flow(a->model, false, &a->dep, &a->no_source) < 0) {
		solar_diag_error_nowhere(d, "dataflow analysis failed (%s)",
					 isl_ctx_last_error(a->ctx) == isl_error_quota
						 ? "ISL operation limit reached"
						 : "ISL error");
		solar_model_free(a->model);
		a->model = NULL;
	}
	if (!a->model) {
		solar_analysis_free(a);
		return NULL;
	}
	return a;
}

void solar_analysis_free(solar_analysis *a)
{
	if (!a)
		return;
	isl_union_map_free(a->dep);
	isl_union_set_free(a->no_source);
	solar_model_free(a->model);
	isl_ctx_free(a->ctx);
	free(a);
}

/* A data read of a tmp (AIR 1.1) is defined only when every element it may reach, for any
 * index data, is written by an affine store of an earlier statement: a scatter's elements are
 * the data's, so they cover nothing for certain (docs/air.md, "Indexing with data"). */
static int uninit_data(const solar_model *m, solar_diag *d)
{
	const solar_program *p = m->prog;
	int errors = 0;
	for (int r = 0; r < m->nrefs && !solar_diag_full(d); r++) {
		const solar_ref *ref = &m->refs[r];
		if (ref->write || !ref->data || p->tensors[ref->tensor].role != SOLAR_ROLE_TMP)
			continue;
		isl_set *reach = isl_map_range(solar_model_may_access(m, r));
		for (int w = 0; w < m->nrefs && reach; w++) {
			const solar_ref *wr = &m->refs[w];
			if (wr->write && !wr->data && wr->tensor == ref->tensor && wr->stmt < ref->stmt)
				reach = isl_set_subtract(reach, isl_map_range(isl_map_copy(wr->access)));
		}
		isl_bool empty = isl_set_is_empty(reach);
		isl_set_free(reach);
		if (empty == isl_bool_true)
			continue;
		const solar_stmt *s = p->stmts[ref->stmt];
		const char *what = p->tensors[ref->tensor].name;
		if (ref->expr)
			solar_diag_error(d, ref->expr->span,
					 "may read an element of tmp '%s' that no earlier statement "
					 "writes, for some index data the declared ranges allow; write "
					 "all of '%s' with '=' before it",
					 what, what);
		else
			solar_diag_error(d, s->span,
					 "'%s' reads its target, elements of tmp '%s' chosen by data, "
					 "which no earlier statement writes for every index data; "
					 "initialise all of '%s' with '=' first",
					 solar_assign_text(s->op), what, what);
		errors++;
	}
	return errors;
}

/* Whether e is integer arithmetic of literals, params, consts and iterators (+ - * // %,
 * unary minus), the expressions ISL can bound over a domain (a product of two non-constants
 * is refused by ISL, and then the value counts as unproved). */
static bool int_arith(const solar_expr *e)
{
	switch (e->kind) {
	case SOLAR_E_INT:
	case SOLAR_E_PARAM:
	case SOLAR_E_CONST:
	case SOLAR_E_ITER:
		return true;
	case SOLAR_E_NEG:
		return int_arith(e->args[0]);
	case SOLAR_E_BIN:
		return (e->binop == SOLAR_OP_ADD || e->binop == SOLAR_OP_SUB ||
			e->binop == SOLAR_OP_MUL || e->binop == SOLAR_OP_FLOORDIV ||
			e->binop == SOLAR_OP_MOD) &&
		       int_arith(e->args[0]) && int_arith(e->args[1]);
	default:
		return false;
	}
}

/* Whether every value e can take at the instances of statement st lies in [lo, hi): an affine
 * expression checked over the domain, a ranged tensor's element by its range, a select, max
 * or min by its operands (docs/air.md, "Indexing with data": computed index tensors). */
static isl_bool value_in_range(const solar_model *m, int st, const solar_expr *e, int64_t lo,
			       int64_t hi)
{
	e = solar_model_uncast(e);
	const solar_program *p = m->prog;
	if (e->kind == SOLAR_E_ACCESS) {
		const solar_tensor *t = &p->tensors[e->sym];
		return solar_tensor_ranged(t) && t->range[0] >= lo && t->range[1] <= hi;
	}
	if (e->kind == SOLAR_E_CALL &&
	    (e->fn == SOLAR_FN_SELECT || e->fn == SOLAR_FN_MAX || e->fn == SOLAR_FN_MIN)) {
		for (int i = e->fn == SOLAR_FN_SELECT; i < e->nargs; i++) {
			isl_bool ok = value_in_range(m, st, e->args[i], lo, hi);
			if (ok != isl_bool_true)
				return ok;
		}
		return isl_bool_true;
	}
	if (!int_arith(e))
		return isl_bool_false;
	return solar_model_values_within(m, st, e, lo, hi);
}

/* A computed index tensor (a `tmp` or `out` with a value range) is stored only values proved
 * inside its range, so that the ranges every data index relies on hold by construction. */
static int check_index_values(const solar_model *m, solar_diag *d)
{
	const solar_program *p = m->prog;
	int errors = 0;
	for (int i = 0; i < p->nstmts && !solar_diag_full(d); i++) {
		const solar_stmt *s = p->stmts[i];
		const solar_tensor *t = &p->tensors[s->tensor];
		if (!solar_tensor_ranged(t))
			continue;
		bool op_ok = s->op == SOLAR_ASSIGN || s->op == SOLAR_MAX_TO || s->op == SOLAR_MIN_TO;
		isl_bool ok = op_ok ? value_in_range(m, i, s->value, t->range[0], t->range[1])
				    : isl_bool_false;
		if (ok == isl_bool_true)
			continue;
		if (ok == isl_bool_error)
			isl_ctx_reset_error(m->ctx);
		solar_diag_error(d, op_ok ? s->value->span : s->span,
				 "%s '%s' is not provably in its range %lld..%lld; store an "
				 "affine expression of the iterators, an element of a tensor with a "
				 "range inside it, or a select, max or min of them",
				 op_ok ? "the value stored in" : "a '+=' or '*=' into", t->name,
				 (long long)t->range[0], (long long)t->range[1]);
		errors++;
	}
	return errors;
}

int solar_analysis_run_checks(solar_analysis *a, solar_diag *d)
{
	int errors = check_bounds(a->model, d) + check_index_values(a->model, d);
	struct uninit_ctx c = {a->model, d, 0};
	isl_union_set_foreach_set(a->no_source, report_uninit, &c);
	return errors + c.errors + uninit_data(a->model, d);
}

void solar_analysis_note_rank_class(const solar_program *p, solar_diag *d)
{
	char text[256];
	solar_program_rank_class_text(p, text, sizeof text);
	for (int i = 0; i < p->nparams; i++)
		if (p->params[i].axis >= 0) {
			solar_diag_note(d, p->mesh[p->params[i].axis].span,
					"on the ranks with %s: rank() makes their program differ",
					text);
			return;
		}
}

/* Every class of ranks that rank(A) tells apart is checked: an index may leave its tensor on
 * the last rank only. */
int solar_analysis_check(const solar_program *p, solar_diag *d)
{
	solar_program *ranked = (solar_program *)p; /* only its rank(A) values change */
	int64_t n = solar_program_rank_classes(p);
	int errors = 0;
	for (int64_t c = 0; c < n && !errors; c++) {
		if (n > 1)
			solar_program_set_rank_class(ranked, c);
		solar_analysis *a = solar_analysis_new(p, d);
		errors = a ? solar_analysis_run_checks(a, d) : 1;
		solar_analysis_free(a);
		if (errors && n > 1)
			solar_analysis_note_rank_class(p, d);
	}
	if (n > 1)
		solar_program_set_rank_class(ranked, 0);
	return errors;
}
