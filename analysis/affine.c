/* affine.c - ISL sets and maps of the lowering built directly from affine forms.
 *
 * The lowering (model.c) writes each statement domain, access relation and tensor shape as ISL
 * text, which is also the key of its parse cache.  ISL's text parser is slow (about 1.7 M
 * instructions per set: a fifth of a small example's whole analysis), while the common case is
 * plain: loops of step 1 whose bounds are affine forms or a max (lo) / min (hi) of them, `if`s
 * that are conjunctions of comparisons, and affine indices.  For that case this file extracts
 * each expression as a row of int64 coefficients (overflow checked) and hands the rows to ISL
 * as constraint matrices (isl_basic_set_from_constraint_matrices), with the dims, params and
 * tuples named as the text names them; anything else makes an extractor return false and the
 * caller parses the text as before.  The two paths give equal sets (tests/unit/test_lower.c
 * checks it on every program of the tree), so only the time to build them differs.
 *
 * The one idea: an expression is affine here exactly when print_aff's text is affine for ISL
 * without a division, a `mod` or a piecewise min/max: constants (no iterator, and no param in
 * symbolic mode) are their value, as print_aff prints them.
 */
#include "affine.h"

#include <isl/constraint.h>
#include <isl/mat.h>
#include <isl/space.h>
#include <isl/val.h>
#include <stdio.h>
#include <string.h>

#include "../diag/alloc.h"

void solar_affine_rows_init(solar_affine_rows *r, const solar_model *m)
{
	memset(r, 0, sizeof *r);
	r->np = m->symbolic ? m->prog->nparams : 0;
	r->width = 1 + r->np + SOLAR_MAX_NESTING + 1;
}

void solar_affine_rows_free(solar_affine_rows *r)
{
	free(r->c);
	free(r->eq);
	r->c = NULL;
	r->eq = NULL;
	r->n = r->cap = 0;
}

bool solar_affine_is_constant(const solar_model *m, const solar_expr *e)
{
	if (e->kind == SOLAR_E_ITER || e->kind == SOLAR_E_ACCESS)
		return false;
	if (e->kind == SOLAR_E_PARAM) /* rank(A): a number on each rank, even in symbolic mode */
		return !m->symbolic || m->prog->params[e->sym].axis >= 0;
	for (int i = 0; i < e->nargs; i++)
		if (!solar_affine_is_constant(m, e->args[i]))
			return false;
	return true;
}

/* A new row, all zero, an inequality. */
static int64_t *push_row(solar_affine_rows *r)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->c = solar_xrealloc(r->c, (size_t)r->cap * (size_t)r->width * sizeof *r->c);
		r->eq = solar_xrealloc(r->eq, (size_t)r->cap * sizeof *r->eq);
	}
	int64_t *row = r->c + (size_t)r->n * (size_t)r->width;
	memset(row, 0, (size_t)r->width * sizeof *row);
	r->eq[r->n++] = false;
	return row;
}

static bool add_scaled(int64_t *to, int64_t v, int64_t scale)
{
	int64_t p;
	return !__builtin_mul_overflow(v, scale, &p) && !__builtin_add_overflow(*to, p, to);
}

/* floor(a / c) for c > 0. */
static int64_t floor_div(int64_t a, int64_t c)
{
	int64_t q = a / c;
	return a % c < 0 ? q - 1 : q;
}

/* The values e can take over the recorded loop ranges, [*lo, *hi]; false when unknown. */
static bool range_of(const solar_model *m, const solar_expr *e, int64_t *lo, int64_t *hi)
{
	if (solar_affine_is_constant(m, e)) {
		*lo = *hi = solar_ir_eval_const(m->prog, e);
		return true;
	}
	int64_t a0, a1, b0, b1;
	switch (e->kind) {
	case SOLAR_E_ITER: {
		int pos = m->iter_pos[e->sym];
		if (pos < 0 || pos >= SOLAR_MAX_NESTING || !m->iter_ranged[pos])
			return false;
		*lo = m->iter_range[pos][0];
		*hi = m->iter_range[pos][1];
		return true;
	}
	case SOLAR_E_NEG:
		if (!range_of(m, e->args[0], &a0, &a1) || a0 == INT64_MIN)
			return false;
		*lo = -a1;
		*hi = -a0;
		return true;
	case SOLAR_E_CALL: /* min or max of its arguments */
		if ((e->fn != SOLAR_FN_MIN && e->fn != SOLAR_FN_MAX) || !e->nargs ||
		    !range_of(m, e->args[0], lo, hi))
			return false;
		for (int k = 1; k < e->nargs; k++) {
			if (!range_of(m, e->args[k], &b0, &b1))
				return false;
			bool mn = e->fn == SOLAR_FN_MIN;
			*lo = mn ? (b0 < *lo ? b0 : *lo) : (b0 > *lo ? b0 : *lo);
			*hi = mn ? (b1 < *hi ? b1 : *hi) : (b1 > *hi ? b1 : *hi);
		}
		return true;
	case SOLAR_E_BIN:
		if (!range_of(m, e->args[0], &a0, &a1))
			return false;
		switch (e->binop) {
		case SOLAR_OP_ADD:
		case SOLAR_OP_SUB: {
			if (!range_of(m, e->args[1], &b0, &b1))
				return false;
			bool add = e->binop == SOLAR_OP_ADD;
			return add ? !__builtin_add_overflow(a0, b0, lo) && !__builtin_add_overflow(a1, b1, hi)
				   : !__builtin_sub_overflow(a0, b1, lo) && !__builtin_sub_overflow(a1, b0, hi);
		}
		case SOLAR_OP_MUL: { /* a constant factor: the front end allows no other */
			if (!range_of(m, e->args[1], &b0, &b1) || (a0 != a1 && b0 != b1))
				return false;
			int64_t k = a0 == a1 ? a0 : b0, x0 = a0 == a1 ? b0 : a0, x1 = a0 == a1 ? b1 : a1;
			if (__builtin_mul_overflow(x0, k, lo) || __builtin_mul_overflow(x1, k, hi))
				return false;
			if (*lo > *hi) {
				int64_t t = *lo;
				*lo = *hi;
				*hi = t;
			}
			return true;
		}
		case SOLAR_OP_FLOORDIV:
		case SOLAR_OP_MOD: {
			if (!solar_affine_is_constant(m, e->args[1]))
				return false;
			int64_t c = solar_ir_eval_const(m->prog, e->args[1]);
			if (c <= 0)
				return false;
			int64_t q0 = floor_div(a0, c), q1 = floor_div(a1, c);
			if (e->binop == SOLAR_OP_FLOORDIV) {
				*lo = q0;
				*hi = q1;
			} else if (q0 == q1) {
				*lo = a0 - q0 * c;
				*hi = a1 - q0 * c;
			} else {
				*lo = 0;
				*hi = c - 1;
			}
			return true;
		}
		default:
			return false;
		}
	default:
		return false;
	}
}

void solar_affine_enter_loop(solar_model *m, int depth, const solar_expr *lo, const solar_expr *hi)
{
	if (depth < 0 || depth >= SOLAR_MAX_NESTING)
		return;
	int64_t l0, l1, h0, h1;
	m->iter_ranged[depth] = range_of(m, lo, &l0, &l1) && range_of(m, hi, &h0, &h1) &&
				h1 != INT64_MIN;
	if (m->iter_ranged[depth]) {
		m->iter_range[depth][0] = l0;
		m->iter_range[depth][1] = h1 - 1;
	}
}

/* e // c (or e % c, mod) as the affine q (or e - q c) when every value of e over the loop
 * ranges lies in [q c, q c + c - 1]; false otherwise. */
static bool one_quotient(const solar_model *m, const solar_expr *e, int64_t *q, int64_t *c)
{
	int64_t lo, hi;
	if (!solar_affine_is_constant(m, e->args[1]))
		return false;
	*c = solar_ir_eval_const(m->prog, e->args[1]);
	if (*c <= 0 || !range_of(m, e->args[0], &lo, &hi))
		return false;
	*q = floor_div(lo, *c);
	return *q == floor_div(hi, *c);
}

/* row += scale * e; false when e is not affine or a coefficient overflows. */
static bool add_form(const solar_model *m, const solar_affine_rows *r, int64_t *row,
		     const solar_expr *e, int64_t scale)
{
	if (solar_affine_is_constant(m, e))
		return add_scaled(&row[0], solar_ir_eval_const(m->prog, e), scale);
	switch (e->kind) {
	case SOLAR_E_PARAM: /* symbolic: p<sym> */
		return add_scaled(&row[1 + e->sym], 1, scale);
	case SOLAR_E_ITER:
		return add_scaled(&row[1 + r->np + m->iter_pos[e->sym]], 1, scale);
	case SOLAR_E_NEG:
		return scale != INT64_MIN && add_form(m, r, row, e->args[0], -scale);
	case SOLAR_E_BIN: {
		const solar_expr *a = e->args[0], *b = e->args[1];
		switch (e->binop) {
		case SOLAR_OP_ADD:
			return add_form(m, r, row, a, scale) && add_form(m, r, row, b, scale);
		case SOLAR_OP_SUB:
			return scale != INT64_MIN && add_form(m, r, row, a, scale) &&
			       add_form(m, r, row, b, -scale);
		case SOLAR_OP_MUL: {
			int64_t k;
			if (solar_affine_is_constant(m, b)) {
				const solar_expr *t = a;
				a = b;
				b = t;
			} else if (!solar_affine_is_constant(m, a)) {
				return false; /* a product of two non-constants */
			}
			if (__builtin_mul_overflow(solar_ir_eval_const(m->prog, a), scale, &k))
				return false;
			return add_form(m, r, row, b, k);
		}
		case SOLAR_OP_FLOORDIV: /* of a non-constant: affine within one quotient */
		case SOLAR_OP_MOD: {
			int64_t q, c, qc;
			if (!one_quotient(m, e, &q, &c) || __builtin_mul_overflow(q, c, &qc))
				return false;
			if (e->binop == SOLAR_OP_FLOORDIV)
				return add_scaled(&row[0], q, scale);
			return qc != INT64_MIN && add_form(m, r, row, a, scale) &&
			       add_scaled(&row[0], -qc, scale);
		}
		default:
			return false;
		}
	}
	default: /* min, max, a read: not one affine form */
		return false;
	}
}

bool solar_affine_push_form(const solar_model *m, solar_affine_rows *r, const solar_expr *e)
{
	int64_t *row = push_row(r);
	if (add_form(m, r, row, e, 1))
		return true;
	r->n--;
	return false;
}

/* The row a - b + k (>= 0, or = 0 when eq); false when a or b is not affine. */
static bool push_diff(const solar_model *m, solar_affine_rows *r, const solar_expr *a,
		      const solar_expr *b, int64_t k, bool eq)
{
	int64_t *row = push_row(r);
	r->eq[r->n - 1] = eq;
	if (add_form(m, r, row, a, 1) && add_form(m, r, row, b, -1) &&
	    !__builtin_add_overflow(row[0], k, &row[0]))
		return true;
	r->n--;
	return false;
}

/* The rows of `x >= e` (lower) or `x < e` (upper) for the iterator in column `col`, with e a
 * max (lower) or min (upper) of affine forms flattened: one row per form. */
static bool push_bound(const solar_model *m, solar_affine_rows *r, const solar_expr *e, int col,
		       bool lower)
{
	solar_fn fn = lower ? SOLAR_FN_MAX : SOLAR_FN_MIN;
	if (e->kind == SOLAR_E_CALL && e->fn == fn && !solar_affine_is_constant(m, e)) {
		for (int k = 0; k < e->nargs; k++)
			if (!push_bound(m, r, e->args[k], col, lower))
				return false;
		return true;
	}
	int64_t *row = push_row(r);
	/* lower: x - e >= 0; upper: e - x - 1 >= 0 */
	row[col] = lower ? 1 : -1;
	if (add_form(m, r, row, e, lower ? -1 : 1) && (lower || row[0] != INT64_MIN)) {
		row[0] -= !lower;
		return true;
	}
	r->n--;
	return false;
}

bool solar_affine_push_loop(const solar_model *m, solar_affine_rows *r, const solar_expr *lo,
			    const solar_expr *hi, int depth)
{
	int n = r->n, col = 1 + r->np + depth;
	if (push_bound(m, r, lo, col, true) && push_bound(m, r, hi, col, false))
		return true;
	r->n = n;
	return false;
}

bool solar_affine_push_cond(const solar_model *m, solar_affine_rows *r, const solar_expr *e)
{
	int n = r->n;
	bool ok = false;
	if (e->kind == SOLAR_E_BIN) {
		const solar_expr *a = e->args[0], *b = e->args[1];
		switch (e->binop) {
		case SOLAR_OP_AND:
			ok = solar_affine_push_cond(m, r, a) && solar_affine_push_cond(m, r, b);
			break;
		case SOLAR_OP_LT: /* a < b: b - a - 1 >= 0 */
		case SOLAR_OP_LE: /* a <= b: b - a >= 0 */
		case SOLAR_OP_GT:
		case SOLAR_OP_GE:
		case SOLAR_OP_EQ: { /* a == b: a - b = 0 */
			bool less = e->binop == SOLAR_OP_LT || e->binop == SOLAR_OP_LE;
			bool strict = e->binop == SOLAR_OP_LT || e->binop == SOLAR_OP_GT;
			ok = push_diff(m, r, less ? b : a, less ? a : b, -(int64_t)strict,
				       e->binop == SOLAR_OP_EQ);
			break;
		}
		default: /* or, != (a disjunction) */
			break;
		}
	}
	if (!ok)
		r->n = n;
	return ok;
}

/* Sets column col of row i of mat to v. */
static isl_mat *set_entry(isl_mat *mat, int i, int col, int64_t v)
{
	if (v >= -0x7fffffff && v <= 0x7fffffff)
		return isl_mat_set_element_si(mat, i, col, (int)v);
	return isl_mat_set_element_val(mat, i, col, isl_val_int_from_si(isl_mat_get_ctx(mat), v));
}

/* The rows with eq == want (the first `keep` columns of each, then `extra` zero columns). */
static isl_mat *rows_mat(isl_ctx *ctx, const solar_affine_rows *r, bool want, int keep, int extra)
{
	int n = 0;
	for (int i = 0; i < r->n; i++)
		n += r->eq[i] == want;
	isl_mat *mat = isl_mat_alloc(ctx, (unsigned)n, (unsigned)(keep + extra));
	int k = 0;
	for (int i = 0; i < r->n && mat; i++) {
		if (r->eq[i] != want)
			continue;
		const int64_t *row = r->c + (size_t)i * (size_t)r->width;
		for (int j = 0; j < keep + extra; j++)
			mat = set_entry(mat, k, j, j < keep ? row[j] : 0);
		k++;
	}
	return mat;
}

/* A space's params p0.. and its `type` dims i0.. (n of them). */
static isl_space *name_dims(isl_space *space, int np, enum isl_dim_type type, int n)
{
	char name[32];
	for (int i = 0; i < np; i++) {
		snprintf(name, sizeof name, "p%d", i);
		space = isl_space_set_dim_name(space, isl_dim_param, (unsigned)i, name);
	}
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "i%d", i);
		space = isl_space_set_dim_name(space, type, (unsigned)i, name);
	}
	return space;
}

isl_set *solar_affine_set(isl_ctx *ctx, const solar_affine_rows *r, int depth, const char *tuple)
{
	isl_space *space = isl_space_set_alloc(ctx, (unsigned)r->np, (unsigned)depth);
	space = isl_space_set_tuple_name(name_dims(space, r->np, isl_dim_set, depth), isl_dim_set,
					 tuple);
	int keep = 1 + r->np + depth;
	isl_basic_set *bset = isl_basic_set_from_constraint_matrices(
	    space, rows_mat(ctx, r, true, keep, 0), rows_mat(ctx, r, false, keep, 0), isl_dim_cst,
	    isl_dim_param, isl_dim_set, isl_dim_div);
	return isl_set_from_basic_set(bset);
}

isl_map *solar_affine_map(isl_ctx *ctx, const solar_affine_rows *r, int depth, const char *in,
			  const char *out)
{
	int rank = r->n, keep = 1 + r->np + depth;
	isl_space *space = isl_space_alloc(ctx, (unsigned)r->np, (unsigned)depth, (unsigned)rank);
	space = name_dims(space, r->np, isl_dim_in, depth);
	space = isl_space_set_tuple_name(space, isl_dim_in, in);
	space = isl_space_set_tuple_name(space, isl_dim_out, out);
	/* out_k = f_k: the row f_k - out_k = 0 */
	isl_mat *eq = rows_mat(ctx, r, false, keep, rank);
	for (int k = 0; k < rank && eq; k++)
		eq = isl_mat_set_element_si(eq, k, keep + k, -1);
	isl_basic_map *bmap = isl_basic_map_from_constraint_matrices(
	    space, eq, isl_mat_alloc(ctx, 0, (unsigned)(keep + rank)), isl_dim_cst, isl_dim_param,
	    isl_dim_in, isl_dim_out, isl_dim_div);
	return isl_map_from_basic_map(bmap);
}

isl_set *solar_affine_box(isl_ctx *ctx, int rank, const int64_t *extent, const char *tuple)
{
	isl_space *space = isl_space_set_alloc(ctx, 0, (unsigned)rank);
	char name[32];
	for (int i = 0; i < rank; i++) {
		snprintf(name, sizeof name, "d%d", i);
		space = isl_space_set_dim_name(space, isl_dim_set, (unsigned)i, name);
	}
	space = isl_space_set_tuple_name(space, isl_dim_set, tuple);
	/* per dim: d >= 0, then extent - 1 - d >= 0 (as an isl_val: no overflow) */
	isl_mat *ineq = isl_mat_alloc(ctx, 2 * (unsigned)rank, 1 + (unsigned)rank);
	for (int i = 0; i < 2 * rank && ineq; i++)
		for (int j = 0; j <= rank; j++)
			ineq = isl_mat_set_element_si(ineq, i, j, 0);
	for (int i = 0; i < rank && ineq; i++) {
		ineq = isl_mat_set_element_si(ineq, 2 * i, 1 + i, 1);
		ineq = isl_mat_set_element_si(ineq, 2 * i + 1, 1 + i, -1);
		isl_val *hi = isl_val_sub_ui(isl_val_int_from_si(ctx, extent[i]), 1);
		ineq = isl_mat_set_element_val(ineq, 2 * i + 1, 0, hi);
	}
	isl_basic_set *bset = isl_basic_set_from_constraint_matrices(
	    space, isl_mat_alloc(ctx, 0, 1 + (unsigned)rank), ineq, isl_dim_cst, isl_dim_set,
	    isl_dim_param, isl_dim_div);
	return isl_set_from_basic_set(bset);
}

/* The arguments of a bound: a max (lo) or min (hi) of non-constants flattened, else the bound
 * itself; at most `most` of them in args; -1 when there are more. */
static int bound_args(const solar_model *m, const solar_expr *e, solar_fn fn,
		      const solar_expr **args, int n, int most)
{
	if (e->kind == SOLAR_E_CALL && e->fn == fn && !solar_affine_is_constant(m, e)) {
		for (int k = 0; k < e->nargs && n >= 0; k++)
			n = bound_args(m, e->args[k], fn, args, n, most);
		return n;
	}
	if (n >= most)
		return -1;
	args[n] = e;
	return n + 1;
}

isl_set *solar_affine_ends(const solar_model *m, const solar_expr *const *lo,
			   const solar_expr *const *hi, int c, int depth, bool last,
			   const char *tuple)
{
	enum { MOST_ARGS = 8, MOST_PIECES = 64 };
	const solar_expr *args[SOLAR_MAX_NESTING][MOST_ARGS];
	int nargs[SOLAR_MAX_NESTING], pick[SOLAR_MAX_NESTING];
	long pieces = 1;
	for (int j = c; j < depth; j++) {
		nargs[j] = bound_args(m, last ? hi[j - c] : lo[j - c],
				      last ? SOLAR_FN_MIN : SOLAR_FN_MAX, args[j], 0, MOST_ARGS);
		if (nargs[j] <= 0 || (pieces *= nargs[j]) > MOST_PIECES)
			return NULL;
		pick[j] = 0;
	}
	solar_affine_rows r;
	solar_affine_rows_init(&r, m);
	isl_set *ends = NULL;
	for (long p = 0; p < pieces; p++) {
		/* the piece: i_j = a (lo) or a - 1 (hi) for the picked argument a, which is
		 * strictly beyond the arguments before it and at least as far as those after */
		r.n = 0;
		bool ok = true;
		for (int j = c; j < depth && ok; j++) {
			const solar_expr *a = args[j][pick[j]];
			int64_t *row = push_row(&r);
			r.eq[r.n - 1] = true;
			row[1 + r.np + j] = -1;
			ok = add_form(m, &r, row, a, 1) && !__builtin_sub_overflow(row[0], last, &row[0]);
			for (int k = 0; k < nargs[j] && ok; k++)
				if (k != pick[j]) /* lo: a - b - [k < pick] >= 0; hi: b - a - .. */
					ok = push_diff(m, &r, last ? args[j][k] : a, last ? a : args[j][k],
						       -(int64_t)(k < pick[j]), false);
		}
		isl_set *piece = ok ? solar_affine_set(m->ctx, &r, depth, tuple) : NULL;
		if (!piece) {
			isl_set_free(ends);
			ends = NULL;
			break;
		}
		ends = ends ? isl_set_union_disjoint(ends, piece) : piece;
		for (int j = depth - 1; j >= c; j--) { /* the next choice */
			if (++pick[j] < nargs[j])
				break;
			pick[j] = 0;
		}
	}
	solar_affine_rows_free(&r);
	return ends;
}
