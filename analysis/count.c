/* count.c - exact number of integer points of a bounded ISL set, independent of its sizes.
 *
 * Input: an isl_set (or union set) whose points are loop iterations or tensor elements.  Output:
 * the exact count as an isl_val, or NULL and a one-line reason.  Nothing is sampled, hulled or
 * rounded; all arithmetic is GMP.
 *
 * The one idea (bounds.md section 2, "nested Bernoulli summation"): a count is the sum of the
 * polynomial 1 over the points, and summing a polynomial over one variable whose bounds are
 * x >= L(y) and x <= U(y) with unit coefficients gives another polynomial,
 *     sum_{x=L}^{U} x^m = F_m(U) - F_m(L-1),   F_m(n) = sum_{t=1}^{n} t^m  (Faulhaber),
 * so the variables can be summed away one at a time and the work depends on the shape of the
 * set, not on its sizes.  Steps, per basic set of a disjoint decomposition:
 *   1. every existential variable (div, from `mod`, `//`, strides) becomes an ordinary variable,
 *      with its defining constraints d*e <= f <= d*e + d-1 added ("lifting"); since each div is
 *      a function of the set variables this is a bijection on integer points;
 *   2. a variable fixed by an equality with a +-1 coefficient is substituted ("unit equality");
 *   3. a variable whose bounds all have +-1 coefficients is summed in closed form, splitting the
 *      remaining space into "chambers" where one lower and one upper bound are the active ones
 *      (ties go to the first, by strict inequalities), so min/max bounds are exact;
 *   4. otherwise either a variable x is made unit by a "residue split" (in a row 2x - 3y >= 0,
 *      writing y = 2y' + r for r = 0, 1 lets the gcd step divide the row by 2: x >= 3y' + r'),
 *      or the variable with the smallest range is enumerated, whichever makes fewer pieces.
 *      A split is always followed by a step 2 or 3, so the recursion ends.
 * ISL only normalises each sub-system (implicit equalities, redundant and empty pieces); the
 * correctness of the sum does not depend on it.  Tiny sets (a bounding box of fewer than 100
 * points) go to isl_set_count_val, which is faster there.  Every summation identity used is exact for integer bounds, and the final sum is
 * checked to be an integer.
 *
 * The same engine with the parameters kept as symbols that are never summed gives the symbolic
 * count: every leaf of the recursion is a polynomial in the parameters valid on a polyhedron of
 * parameter values (a residue split of a parameter makes it a quasi-polynomial); the leaves
 * overlap and are added with ISL into one isl_pw_qpolynomial.
 */
#include "count.h"

#include "../diag/alloc.h"

#include <gmp.h>
#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/ctx.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/lp.h>
#include <isl/mat.h>
#include <isl/space.h>
#include <isl/val_gmp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reasons handed back through *why. */
static const char WHY_ISL[] = "ISL error or operation limit exceeded";
static const char WHY_PARAMS[] = "set has parameters (fix them first)";
static const char WHY_UNBOUNDED[] = "set is unbounded";
static const char WHY_PIECES[] = "too many pieces (counting would take too long)";
static const char WHY_DIMS[] = "too many dimensions (more than 250 variables after lifting divs)";
static const char WHY_INTERNAL[] = "internal error: non-integral or inconsistent count";
static const char WHY_SYMBOLIC[] =
    "no closed form: a bound would need a large residue split or a parametric enumeration";

/* MAX_VARS: a 64-deep nest (the language's limit, SOLAR_MAX_NESTING) with a step on every loop
 * and the divs of its indices and conditions fits; a term's exponent of one variable, at most
 * MAX_VARS + 1, must fit its byte. */
enum { MAX_VARS = 250, MAX_SYMBOLIC_PIECES = 200 };
_Static_assert(MAX_VARS + 1 <= UINT8_MAX, "a term's exponents are bytes");

solar_count_options solar_count_defaults(void)
{
	return (solar_count_options){
	    .enumerate_below = 100,
	    .fallback_below = 1e9,
	    .max_pieces = 200000,
	};
}

/* --- small helpers ------------------------------------------------------------------------ */

typedef int (*idx_cmp)(const void *ctx, int a, int b);

/* Stable merge sort of an index array with a context-taking comparator (qsort has none). */
static void msort(int *a, int *tmp, int n, idx_cmp cmp, const void *ctx)
{
	if (n < 2)
		return;
	int h = n / 2;
	msort(a, tmp, h, cmp, ctx);
	msort(a + h, tmp, n - h, cmp, ctx);
	int i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = cmp(ctx, a[j], a[i]) < 0 ? a[j++] : a[i++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, (size_t)n * sizeof *a);
}

/* --- the counter: one per basic set -------------------------------------------------------- */

struct sys;
struct poly;

/* The pieces of a symbolic count, one per leaf of the summation; they overlap and are added. */
typedef struct piece_list {
	int n;
	isl_pw_qpolynomial **pw;
} piece_list;

/* The state of one count (one basic set).  Variables are numbered 0..nvar-1; the first nsym of
 * them are symbols (parameters of a symbolic count) that are never summed.  A constraint row
 * has width 1 + nvar: the constant, then one coefficient per variable; an inequality reads
 * row . (1, v) >= 0.  `leaf` consumes the pieces where no summable variable is left. */
typedef struct counter {
	isl_ctx *ctx;
	int nvar, nsym, width;
	int maxdeg;  /* highest m for which F_m is tabulated: nvar + 1 */
	mpq_t *faul; /* faul[m * (maxdeg + 2) + k]: coefficient of n^k in F_m(n) */
	bool symbolic;
	long pieces, max_pieces; /* sub-systems visited, and the budget */
	int depth;		 /* of the recursion: each level eliminates or splits a variable */
	mpq_t total;		 /* numeric count so far */
	const char *why;	 /* first failure reason */
	/* symbolic count: the parameters' space, the pieces found so far, and for each symbol slot
	 * k the residue class it stands for: parameter k = sym_m[k] * slot k + sym_r[k] */
	isl_space *param_space;
	struct piece_list *sym_pieces;
	int max_leaves;
	mpz_t *sym_m, *sym_r;
	int (*leaf)(struct counter *c, struct sys *s, struct poly *p);
} counter;

static int fail(counter *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return -1;
}

/* --- polynomials with exact rational coefficients ------------------------------------------ */

/* A sparse polynomial in the counter's variables: n terms, each an exponent vector (one byte per
 * variable) and a canonical mpq coefficient; coefficients stay initialised up to cap. */
typedef struct poly {
	int n, cap;
	uint8_t *exp;
	mpq_t *coef;
} poly;

static void poly_init(poly *p) { memset(p, 0, sizeof *p); }

static void poly_clear(poly *p)
{
	for (int i = 0; i < p->cap; i++)
		mpq_clear(p->coef[i]);
	free(p->exp);
	free(p->coef);
	memset(p, 0, sizeof *p);
}

static void poly_reserve(const counter *c, poly *p, int n)
{
	if (n <= p->cap)
		return;
	int cap = p->cap ? p->cap : 4;
	while (cap < n)
		cap *= 2;
	p->exp = solar_xrealloc(p->exp, (size_t)cap * (size_t)c->nvar);
	p->coef = solar_xrealloc(p->coef, (size_t)cap * sizeof *p->coef);
	for (int i = p->cap; i < cap; i++)
		mpq_init(p->coef[i]);
	p->cap = cap;
}

static uint8_t *term_exp(const counter *c, const poly *p, int t)
{
	return p->exp + (size_t)t * (size_t)c->nvar;
}

/* Appends the term q * x^(e1 + e2) (e2 may be NULL); normalise afterwards. */
static void poly_push(const counter *c, poly *p, const uint8_t *e1, const uint8_t *e2,
		      const mpq_t q)
{
	poly_reserve(c, p, p->n + 1);
	uint8_t *e = term_exp(c, p, p->n);
	for (int k = 0; k < c->nvar; k++)
		e[k] = (uint8_t)(e1[k] + (e2 ? e2[k] : 0));
	mpq_set(p->coef[p->n], q);
	p->n++;
}

static void poly_set_si(const counter *c, poly *p, long v)
{
	p->n = 0;
	if (v == 0)
		return;
	poly_reserve(c, p, 1);
	memset(term_exp(c, p, 0), 0, (size_t)c->nvar);
	mpq_set_si(p->coef[0], v, 1);
	p->n = 1;
}

typedef struct {
	const counter *c;
	const poly *p;
} poly_sort_ctx;

static int cmp_terms(const void *ctx, int a, int b)
{
	const poly_sort_ctx *s = ctx;
	return memcmp(term_exp(s->c, s->p, a), term_exp(s->c, s->p, b), (size_t)s->c->nvar);
}

/* Sorts the terms, merges equal monomials and drops zero coefficients. */
static void poly_normalize(const counter *c, poly *p)
{
	int n = p->n;
	if (n == 0)
		return;
	int *idx = solar_xrealloc(NULL, 2 * (size_t)n * sizeof *idx);
	for (int i = 0; i < n; i++)
		idx[i] = i;
	poly_sort_ctx ctx = {c, p};
	msort(idx, idx + n, n, cmp_terms, &ctx);
	poly q;
	poly_init(&q);
	poly_reserve(c, &q, n);
	for (int i = 0; i < n;) {
		int k = idx[i++];
		memcpy(term_exp(c, &q, q.n), term_exp(c, p, k), (size_t)c->nvar);
		mpq_swap(q.coef[q.n], p->coef[k]);
		while (i < n && cmp_terms(&ctx, idx[i], k) == 0)
			mpq_add(q.coef[q.n], q.coef[q.n], p->coef[idx[i++]]);
		if (mpq_sgn(q.coef[q.n]) != 0)
			q.n++;
	}
	free(idx);
	poly_clear(p);
	*p = q;
}

/* r = a * b; r must be empty and distinct from a and b. */
static void poly_mul(const counter *c, poly *r, const poly *a, const poly *b)
{
	mpq_t q;
	mpq_init(q);
	poly_reserve(c, r, a->n * b->n);
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < b->n; j++) {
			mpq_mul(q, a->coef[i], b->coef[j]);
			poly_push(c, r, term_exp(c, a, i), term_exp(c, b, j), q);
		}
	mpq_clear(q);
	poly_normalize(c, r);
}

/* The affine form sign * (row without variable `skip`) as a polynomial. */
static void poly_from_row(const counter *c, poly *r, const mpz_t *row, int skip, int sign)
{
	uint8_t *e = solar_xrealloc(NULL, (size_t)c->nvar);
	mpq_t q;
	mpq_init(q);
	r->n = 0;
	for (int k = -1; k < c->nvar; k++) {
		if (k == skip || mpz_sgn(row[1 + k]) == 0)
			continue;
		memset(e, 0, (size_t)c->nvar);
		if (k >= 0)
			e[k] = 1;
		mpq_set_z(q, row[1 + k]);
		if (sign < 0)
			mpq_neg(q, q);
		poly_push(c, r, e, NULL, q);
	}
	mpq_clear(q);
	free(e);
}

/* Highest power of variable x in p. */
static int poly_degree_in(const counter *c, const poly *p, int x)
{
	int d = 0;
	for (int t = 0; t < p->n; t++)
		if (term_exp(c, p, t)[x] > d)
			d = term_exp(c, p, t)[x];
	return d;
}

/* r = sum over the terms t of p of coef_t * (monomial_t without x) * table[power of x in t].
 * With table[m] = A^m this substitutes x := A; with table[m] = F_m(U) - F_m(L-1) it sums x
 * from L to U. */
static void poly_expand(const counter *c, poly *r, const poly *p, int x, const poly *table)
{
	uint8_t *e = solar_xrealloc(NULL, (size_t)c->nvar);
	mpq_t q;
	mpq_init(q);
	r->n = 0;
	for (int t = 0; t < p->n; t++) {
		const poly *f = &table[term_exp(c, p, t)[x]];
		memcpy(e, term_exp(c, p, t), (size_t)c->nvar);
		e[x] = 0;
		for (int u = 0; u < f->n; u++) {
			mpq_mul(q, p->coef[t], f->coef[u]);
			poly_push(c, r, e, term_exp(c, f, u), q);
		}
	}
	mpq_clear(q);
	free(e);
	poly_normalize(c, r);
}

/* pw[0..n] = A^0 .. A^n. */
static void poly_powers(const counter *c, poly *pw, int n, const poly *a)
{
	poly_set_si(c, &pw[0], 1);
	for (int k = 1; k <= n; k++)
		poly_mul(c, &pw[k], &pw[k - 1], a);
}

static poly *poly_array(int n)
{
	poly *a = solar_xrealloc(NULL, (size_t)n * sizeof *a);
	for (int i = 0; i < n; i++)
		poly_init(&a[i]);
	return a;
}

static void poly_array_free(poly *a, int n)
{
	for (int i = 0; i < n; i++)
		poly_clear(&a[i]);
	free(a);
}

/* r = p with x := A (A affine, not involving x). */
static void poly_substitute(const counter *c, poly *r, const poly *p, int x, const poly *a)
{
	int d = poly_degree_in(c, p, x);
	poly *pw = poly_array(d + 1);
	poly_powers(c, pw, d, a);
	poly_expand(c, r, p, x, pw);
	poly_array_free(pw, d + 1);
}

/* r = sum_{x=L}^{U} p, by Faulhaber: sum_{x=L}^{U} x^m = F_m(U) - F_m(L-1).  This is an
 * identity of polynomials, valid whenever L <= U + 1 and L, U are integers. */
static void poly_sum(const counter *c, poly *r, const poly *p, int x, const poly *lo,
		     const poly *hi)
{
	int d = poly_degree_in(c, p, x);
	poly lm1;
	poly_init(&lm1);
	poly_reserve(c, &lm1, lo->n + 1);
	for (int t = 0; t < lo->n; t++)
		poly_push(c, &lm1, term_exp(c, lo, t), NULL, lo->coef[t]);
	mpq_t q;
	mpq_init(q);
	mpq_set_si(q, -1, 1);
	uint8_t *zero = solar_xcalloc((size_t)c->nvar + 1, 1);
	poly_push(c, &lm1, zero, NULL, q);
	poly_normalize(c, &lm1);
	poly *pu = poly_array(d + 2), *pl = poly_array(d + 2), *tab = poly_array(d + 1);
	poly_powers(c, pu, d + 1, hi);
	poly_powers(c, pl, d + 1, &lm1);
	for (int m = 0; m <= d; m++) {
		for (int k = 0; k <= m + 1; k++) {
			const mpq_t *f = &c->faul[m * (c->maxdeg + 2) + k];
			if (mpq_sgn(*f) == 0)
				continue;
			for (int t = 0; t < pu[k].n; t++) {
				mpq_mul(q, *f, pu[k].coef[t]);
				poly_push(c, &tab[m], term_exp(c, &pu[k], t), NULL, q);
			}
			for (int t = 0; t < pl[k].n; t++) {
				mpq_mul(q, *f, pl[k].coef[t]);
				mpq_neg(q, q);
				poly_push(c, &tab[m], term_exp(c, &pl[k], t), NULL, q);
			}
		}
		poly_normalize(c, &tab[m]);
	}
	poly_expand(c, r, p, x, tab);
	poly_array_free(pu, d + 2);
	poly_array_free(pl, d + 2);
	poly_array_free(tab, d + 1);
	poly_clear(&lm1);
	free(zero);
	mpq_clear(q);
}

/* Faulhaber coefficients from the Bernoulli numbers (B_1 = +1/2 convention):
 * F_m(n) = 1/(m+1) sum_{j=0}^{m} C(m+1, j) B_j n^{m+1-j}. */
static void faulhaber_init(counter *c)
{
	int M = c->maxdeg, w = M + 2;
	mpq_t *b = solar_xrealloc(NULL, (size_t)(M + 1) * sizeof *b);
	mpq_t q, t;
	mpz_t bin;
	mpq_inits(q, t, NULL);
	mpz_init(bin);
	for (int m = 0; m <= M; m++) {
		mpq_init(b[m]);
		if (m == 0) {
			mpq_set_ui(b[0], 1, 1);
			continue;
		}
		mpq_set_ui(q, 0, 1);
		for (int j = 0; j < m; j++) {
			mpz_bin_uiui(bin, (unsigned long)m + 1, (unsigned long)j);
			mpq_set_z(t, bin);
			mpq_mul(t, t, b[j]);
			mpq_add(q, q, t);
		}
		mpq_set_si(t, -1, (unsigned long)m + 1);
		mpq_mul(b[m], q, t);
	}
	if (M >= 1)
		mpq_neg(b[1], b[1]);
	c->faul = solar_xrealloc(NULL, (size_t)(M + 1) * (size_t)w * sizeof *c->faul);
	for (int m = 0; m <= M; m++)
		for (int k = 0; k < w; k++) {
			mpq_ptr f = c->faul[m * w + k];
			mpq_init(f);
			int j = m + 1 - k;
			if (k == 0 || j < 0 || j > m)
				continue;
			mpz_bin_uiui(bin, (unsigned long)m + 1, (unsigned long)j);
			mpq_set_z(f, bin);
			mpq_mul(f, f, b[j]);
			mpq_set_ui(t, 1, (unsigned long)m + 1);
			mpq_mul(f, f, t);
		}
	for (int m = 0; m <= M; m++)
		mpq_clear(b[m]);
	free(b);
	mpq_clears(q, t, NULL);
	mpz_clear(bin);
}

/* --- constraint systems -------------------------------------------------------------------- */

/* n rows of c->width integers; eq[r] says whether row r is an equality (= 0) or an
 * inequality (>= 0).  Entries stay initialised up to cap rows. */
typedef struct sys {
	int n, cap;
	mpz_t *a;
	bool *eq;
} sys;

static mpz_t *row_of(const counter *c, const sys *s, int r)
{
	return s->a + (size_t)r * (size_t)c->width;
}

static void sys_init(sys *s) { memset(s, 0, sizeof *s); }

static void sys_clear(const counter *c, sys *s)
{
	for (size_t i = 0; i < (size_t)s->cap * (size_t)c->width; i++)
		mpz_clear(s->a[i]);
	free(s->a);
	free(s->eq);
	memset(s, 0, sizeof *s);
}

/* Appends a zero row and returns it. */
static mpz_t *sys_add_row(const counter *c, sys *s, bool eq)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 8;
		s->a = solar_xrealloc(s->a, (size_t)cap * (size_t)c->width * sizeof *s->a);
		s->eq = solar_xrealloc(s->eq, (size_t)cap * sizeof *s->eq);
		for (size_t i = (size_t)s->cap * (size_t)c->width;
		     i < (size_t)cap * (size_t)c->width; i++)
			mpz_init(s->a[i]);
		s->cap = cap;
	}
	mpz_t *r = row_of(c, s, s->n);
	for (int k = 0; k < c->width; k++)
		mpz_set_ui(r[k], 0);
	s->eq[s->n++] = eq;
	return r;
}

static void sys_copy_row(const counter *c, sys *dst, const sys *src, int r)
{
	mpz_t *d = sys_add_row(c, dst, src->eq[r]);
	const mpz_t *o = row_of(c, src, r);
	for (int k = 0; k < c->width; k++)
		mpz_set(d[k], o[k]);
}

static void sys_drop_row(const counter *c, sys *s, int r)
{
	s->n--;
	if (r == s->n)
		return;
	mpz_t *a = row_of(c, s, r), *b = row_of(c, s, s->n);
	for (int k = 0; k < c->width; k++)
		mpz_swap(a[k], b[k]);
	s->eq[r] = s->eq[s->n];
}

static void sys_copy(const counter *c, sys *dst, const sys *src)
{
	dst->n = 0;
	for (int r = 0; r < src->n; r++)
		sys_copy_row(c, dst, src, r);
}

/* Coefficient of variable x in row r. */
static mpz_ptr coef(const counter *c, const sys *s, int r, int x) { return row_of(c, s, r)[1 + x]; }

/* Compares the variable parts of two rows: 0 if equal, 2 if opposite, 1 otherwise. */
static int rows_relation(const counter *c, const mpz_t *a, const mpz_t *b)
{
	bool same = true, opp = true;
	for (int k = 1; k < c->width && (same || opp); k++) {
		int s = mpz_cmp(a[k], b[k]);
		if (s != 0)
			same = false;
		if (opp) {
			/* a[k] == -b[k] */
			if (mpz_cmpabs(a[k], b[k]) != 0 ||
			    (mpz_sgn(a[k]) == mpz_sgn(b[k]) && mpz_sgn(a[k])))
				opp = false;
		}
	}
	return same ? 0 : opp ? 2 : 1;
}

/* Cheap normalisation, no ISL: divides every row by the gcd of its variable coefficients (an
 * inequality's constant rounds down: "gcd tightening", 0 <= 2j <= i becomes j <= floor(i/2)),
 * checks and drops rows without variables, keeps the tightest of parallel inequalities and turns
 * an opposite pair that meets into an equality.  Returns false when there is no integer point. */
static bool sys_tidy(const counter *c, sys *s, mpz_t g)
{
	for (int r = 0; r < s->n; r++) {
		mpz_t *a = row_of(c, s, r);
		mpz_set_ui(g, 0);
		for (int k = 1; k < c->width; k++)
			if (mpz_sgn(a[k]))
				mpz_gcd(g, g, a[k]);
		if (mpz_sgn(g) == 0) {
			if (s->eq[r] ? mpz_sgn(a[0]) != 0 : mpz_sgn(a[0]) < 0)
				return false;
			sys_drop_row(c, s, r--);
			continue;
		}
		if (mpz_cmp_ui(g, 1) == 0)
			continue;
		if (s->eq[r]) {
			if (!mpz_divisible_p(a[0], g))
				return false;
			mpz_divexact(a[0], a[0], g);
		} else {
			mpz_fdiv_q(a[0], a[0], g);
		}
		for (int k = 1; k < c->width; k++)
			mpz_divexact(a[k], a[k], g);
	}
	for (int i = 0; i < s->n; i++) {
		for (int j = i + 1; j < s->n; j++) {
			mpz_t *a = row_of(c, s, i), *b = row_of(c, s, j);
			int rel = rows_relation(c, a, b);
			if (rel == 1)
				continue;
			/* row i: v.y + ci (>)= 0; row j: +-v.y + cj (>)= 0 */
			if (rel == 0) {
				if (s->eq[i] && s->eq[j]) {
					if (mpz_cmp(a[0], b[0]) != 0)
						return false;
				} else if (s->eq[i] || s->eq[j]) {
					/* equality v.y = -ce, inequality v.y >= -ci: need ci - ce
					 * >= 0 */
					mpz_srcptr ce = s->eq[i] ? a[0] : b[0],
						   ci = s->eq[i] ? b[0] : a[0];
					if (mpz_cmp(ci, ce) < 0)
						return false;
					if (!s->eq[i]) {
						for (int k = 0; k < c->width; k++)
							mpz_swap(a[k], b[k]);
						s->eq[i] = true;
					}
				} else if (mpz_cmp(b[0], a[0]) < 0) {
					mpz_swap(a[0], b[0]);
				}
			} else {
				mpz_add(g, a[0], b[0]);
				if (s->eq[i] && s->eq[j]) {
					if (mpz_sgn(g) != 0)
						return false;
				} else if (s->eq[i] || s->eq[j]) {
					/* v.y = -ce and -v.y + ci >= 0: need ci + ce >= 0 */
					if (mpz_sgn(g) < 0)
						return false;
					if (!s->eq[i]) {
						for (int k = 0; k < c->width; k++)
							mpz_swap(a[k], b[k]);
						s->eq[i] = true;
					}
				} else {
					if (mpz_sgn(g) < 0)
						return false;
					if (mpz_sgn(g) == 0)
						s->eq[i] = true;
					else
						continue;
				}
			}
			sys_drop_row(c, s, j--);
		}
	}
	return true;
}

/* --- ISL round trips ----------------------------------------------------------------------- */

static isl_mat *mat_from_rows(const counter *c, const sys *s, bool eq)
{
	int n = 0;
	for (int r = 0; r < s->n; r++)
		n += s->eq[r] == eq;
	isl_mat *m = isl_mat_alloc(c->ctx, (unsigned)n, (unsigned)c->width);
	int i = 0;
	for (int r = 0; r < s->n && m; r++) {
		if (s->eq[r] != eq)
			continue;
		const mpz_t *a = row_of(c, s, r);
		for (int k = 0; k < c->width && m; k++) {
			if (mpz_fits_sint_p(a[k]))
				m = isl_mat_set_element_si(m, i, k, (int)mpz_get_si(a[k]));
			else
				m = isl_mat_set_element_val(
				    m, i, k, isl_val_int_from_gmp(c->ctx, (mpz_ptr)a[k]));
		}
		i++;
	}
	return m;
}

/* The system as an ISL basic set in a space of nvar set dimensions. */
static __isl_give isl_basic_set *sys_to_isl(const counter *c, const sys *s)
{
	isl_space *sp = isl_space_set_alloc(c->ctx, 0, (unsigned)c->nvar);
	return isl_basic_set_from_constraint_matrices(sp, mat_from_rows(c, s, true),
						      mat_from_rows(c, s, false), isl_dim_cst,
						      isl_dim_param, isl_dim_set, isl_dim_div);
}

static int rows_from_mat(const counter *c, sys *s, __isl_take isl_mat *m, bool eq)
{
	isl_size n = isl_mat_rows(m), w = isl_mat_cols(m);
	if (n < 0 || w != c->width) {
		isl_mat_free(m);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		mpz_t *a = sys_add_row(c, s, eq);
		for (int k = 0; k < w; k++) {
			isl_val *v = isl_mat_get_element_val(m, i, k);
			if (!v || isl_val_get_num_gmp(v, a[k]) < 0) {
				isl_val_free(v);
				isl_mat_free(m);
				return -1;
			}
			isl_val_free(v);
		}
	}
	isl_mat_free(m);
	return 0;
}

/* Replaces s by the constraints of b (taken). */
static int sys_from_isl(const counter *c, sys *s, __isl_take isl_basic_set *b)
{
	isl_size nd = isl_basic_set_dim(b, isl_dim_div);
	if (nd != 0) {
		isl_basic_set_free(b);
		return -1;
	}
	s->n = 0;
	isl_mat *eq = isl_basic_set_equalities_matrix(b, isl_dim_cst, isl_dim_param, isl_dim_set,
						      isl_dim_div);
	isl_mat *in = isl_basic_set_inequalities_matrix(b, isl_dim_cst, isl_dim_param, isl_dim_set,
							isl_dim_div);
	isl_basic_set_free(b);
	int r1 = rows_from_mat(c, s, eq, true);
	int r2 = rows_from_mat(c, s, in, false);
	return r1 < 0 || r2 < 0 ? -1 : 0;
}

/* Full normalisation of a sub-system: cheap tidy, then ISL's implicit equalities, redundancy
 * removal and (rational) emptiness.  Returns 1 if s has no integer point, 0 if it may have some,
 * -1 on an ISL error. */
static int sys_prepare(counter *c, sys *s)
{
	mpz_t g;
	mpz_init(g);
	bool ok = sys_tidy(c, s, g);
	mpz_clear(g);
	if (!ok)
		return 1;
	if (s->n == 0)
		return 0;
	isl_basic_set *b = sys_to_isl(c, s);
	b = isl_basic_set_detect_equalities(b);
	b = isl_basic_set_remove_redundancies(b);
	isl_bool empty = isl_basic_set_plain_is_empty(b);
	if (empty < 0) {
		isl_basic_set_free(b);
		return fail(c, WHY_ISL);
	}
	if (empty) {
		isl_basic_set_free(b);
		return 1;
	}
	if (sys_from_isl(c, s, b) < 0)
		return fail(c, WHY_ISL);
	mpz_init(g);
	ok = sys_tidy(c, s, g);
	mpz_clear(g);
	return ok ? 0 : 1;
}

/* Whether s has no integer point at all (an exact ISL test, for the rare cases where the
 * method relies on it).  1: empty, 0: not, -1: error. */
static int sys_is_empty(counter *c, const sys *s)
{
	isl_basic_set *b = sys_to_isl(c, s);
	isl_bool e = isl_basic_set_is_empty(b);
	isl_basic_set_free(b);
	if (e < 0)
		return fail(c, WHY_ISL);
	return e ? 1 : 0;
}

/* --- the recursive summation --------------------------------------------------------------- */

static int count_piece(counter *c, sys *s, poly *p);

/* Whether variable x occurs in some row of s / in some term of p. */
static bool in_rows(const counter *c, const sys *s, int x)
{
	for (int r = 0; r < s->n; r++)
		if (mpz_sgn(coef(c, s, r, x)))
			return true;
	return false;
}

static bool in_poly(const counter *c, const poly *p, int x)
{
	for (int t = 0; t < p->n; t++)
		if (term_exp(c, p, t)[x])
			return true;
	return false;
}

/* Leaf of a numeric count: no variable is left, p is a constant. */
static int leaf_numeric(counter *c, sys *s, poly *p)
{
	if (s->n != 0 || p->n > 1)
		return fail(c, WHY_INTERNAL);
	if (p->n == 1) {
		for (int k = 0; k < c->nvar; k++)
			if (term_exp(c, p, 0)[k])
				return fail(c, WHY_INTERNAL);
		mpq_add(c->total, c->total, p->coef[0]);
	}
	return 0;
}

/* The polynomial p, which involves symbols only, as an ISL quasi-polynomial on the parameters. */
static __isl_give isl_qpolynomial *poly_to_isl(const counter *c, const poly *p)
{
	isl_qpolynomial *r = isl_qpolynomial_zero_on_domain(isl_space_copy(c->param_space));
	for (int t = 0; t < p->n && r; t++) {
		isl_val *v =
		    isl_val_from_gmp(c->ctx, mpq_numref(p->coef[t]), mpq_denref(p->coef[t]));
		isl_qpolynomial *m =
		    isl_qpolynomial_val_on_domain(isl_space_copy(c->param_space), v);
		for (int k = 0; k < c->nvar; k++) {
			int e = term_exp(c, p, t)[k];
			if (!e)
				continue;
			if (k >= c->nsym) {
				isl_qpolynomial_free(m);
				isl_qpolynomial_free(r);
				return NULL;
			}
			isl_qpolynomial *x = isl_qpolynomial_var_on_domain(
			    isl_space_copy(c->param_space), isl_dim_param, (unsigned)k);
			m = isl_qpolynomial_mul(m, isl_qpolynomial_pow(x, (unsigned)e));
		}
		r = isl_qpolynomial_add(r, m);
	}
	return r;
}

/* Leaf of a symbolic count: only symbols are left.  The rows describe the parameter values
 * where this piece applies, p counts its points there.  A symbol split into residue classes
 * (parameter k = M*y + R) is mapped back: the domain gets an existential y, the polynomial
 * y := (N_k - R)/M. */
static int leaf_symbolic(counter *c, sys *s, poly *p)
{
	int np = c->nsym, n_eq = np, n_in = 0;
	for (int r = 0; r < s->n; r++) {
		for (int k = np; k < c->nvar; k++)
			if (mpz_sgn(coef(c, s, r, k)))
				return fail(c, WHY_INTERNAL);
		n_eq += s->eq[r];
		n_in += !s->eq[r];
	}
	unsigned w = 1 + 2 * (unsigned)np;
	isl_mat *eq = isl_mat_alloc(c->ctx, (unsigned)n_eq, w);
	isl_mat *in = isl_mat_alloc(c->ctx, (unsigned)n_in, w);
	for (int i = 0; i < n_eq; i++)
		for (unsigned k = 0; k < w; k++)
			eq = isl_mat_set_element_si(eq, i, (int)k, 0);
	for (int i = 0; i < n_in; i++)
		for (unsigned k = 0; k < w; k++)
			in = isl_mat_set_element_si(in, i, (int)k, 0);
	/* columns: constant, parameters N, symbol slots y */
	int ie = 0, ii = 0;
	for (int r = 0; r < s->n; r++) {
		const mpz_t *a = row_of(c, s, r);
		isl_mat **m = s->eq[r] ? &eq : &in;
		int i = s->eq[r] ? ie++ : ii++;
		*m = isl_mat_set_element_val(*m, i, 0, isl_val_int_from_gmp(c->ctx, (mpz_ptr)a[0]));
		for (int k = 0; k < np; k++)
			*m = isl_mat_set_element_val(
			    *m, i, 1 + np + k, isl_val_int_from_gmp(c->ctx, (mpz_ptr)a[1 + k]));
	}
	mpz_t t;
	mpz_init(t);
	for (int k = 0; k < np; k++, ie++) {
		/* N_k - M y_k - R = 0 */
		mpz_neg(t, c->sym_r[k]);
		eq = isl_mat_set_element_val(eq, ie, 0, isl_val_int_from_gmp(c->ctx, t));
		eq = isl_mat_set_element_si(eq, ie, 1 + k, 1);
		mpz_neg(t, c->sym_m[k]);
		eq = isl_mat_set_element_val(eq, ie, 1 + np + k, isl_val_int_from_gmp(c->ctx, t));
	}
	isl_space *sp = isl_space_set_from_params(isl_space_copy(c->param_space));
	sp = isl_space_add_dims(sp, isl_dim_set, (unsigned)np);
	isl_basic_set *b = isl_basic_set_from_constraint_matrices(
	    sp, eq, in, isl_dim_cst, isl_dim_param, isl_dim_set, isl_dim_div);
	b = isl_basic_set_project_out(b, isl_dim_set, 0, (unsigned)np);
	isl_set *dom = isl_set_params(isl_set_from_basic_set(b));

	poly q, tmp, aff;
	poly_init(&q);
	poly_init(&tmp);
	poly_init(&aff);
	for (int u = 0; u < p->n; u++)
		poly_push(c, &q, term_exp(c, p, u), NULL, p->coef[u]);
	uint8_t *e = solar_xcalloc((size_t)c->nvar + 1, 1);
	mpq_t v;
	mpq_init(v);
	for (int k = 0; k < np; k++) {
		if (mpz_cmp_ui(c->sym_m[k], 1) == 0 && mpz_sgn(c->sym_r[k]) == 0)
			continue;
		/* y_k := (N_k - R) / M, N_k in the same slot */
		aff.n = 0;
		memset(e, 0, (size_t)c->nvar);
		mpq_set_num(v, c->sym_r[k]);
		mpq_set_den(v, c->sym_m[k]);
		mpq_canonicalize(v);
		mpq_neg(v, v);
		if (mpq_sgn(v))
			poly_push(c, &aff, e, NULL, v);
		e[k] = 1;
		mpq_set_ui(v, 1, 1);
		mpq_set_den(v, c->sym_m[k]);
		mpq_canonicalize(v);
		poly_push(c, &aff, e, NULL, v);
		poly_substitute(c, &tmp, &q, k, &aff);
		poly sw = q;
		q = tmp;
		tmp = sw;
	}
	mpq_clear(v);
	free(e);
	mpz_clear(t);
	isl_qpolynomial *qp = poly_to_isl(c, &q);
	poly_clear(&q);
	poly_clear(&tmp);
	poly_clear(&aff);
	if (!qp || !dom) {
		isl_qpolynomial_free(qp);
		isl_set_free(dom);
		return fail(c, WHY_ISL);
	}
	/* pieces are only collected here: adding them is the expensive part, done at the end */
	if (c->sym_pieces->n >= c->max_leaves) {
		isl_set_free(dom);
		isl_qpolynomial_free(qp);
		return fail(c, WHY_PIECES);
	}
	isl_pw_qpolynomial *piece = isl_pw_qpolynomial_alloc(dom, qp);
	if (!piece)
		return fail(c, WHY_ISL);
	c->sym_pieces->pw[c->sym_pieces->n++] = piece;
	return 0;
}

/* Step 3: sum variable x, whose inequalities all have +-1 coefficients, chamber by chamber. */
static int sum_variable(counter *c, const sys *s, const poly *p, int x)
{
	int *lo = solar_xrealloc(NULL, (size_t)s->n * sizeof *lo),
	    *up = solar_xrealloc(NULL, (size_t)s->n * sizeof *up);
	int nl = 0, nu = 0;
	for (int r = 0; r < s->n; r++) {
		int sg = mpz_sgn(coef(c, s, r, x));
		if (sg > 0)
			lo[nl++] = r;
		else if (sg < 0)
			up[nu++] = r;
	}
	sys child;
	poly cp, lp, up_p;
	sys_init(&child);
	poly_init(&cp);
	poly_init(&lp);
	poly_init(&up_p);
	int rc = 0;
	for (int a = 0; a < nl && rc == 0; a++) {
		for (int b = 0; b < nu && rc == 0; b++) {
			child.n = 0;
			for (int r = 0; r < s->n; r++)
				if (!mpz_sgn(coef(c, s, r, x)))
					sys_copy_row(c, &child, s, r);
			/* lower row: x + ra >= 0, L = -ra; upper row: -x + rb >= 0, U = rb */
			const mpz_t *ra = row_of(c, s, lo[a]), *rb = row_of(c, s, up[b]);
			for (int k = 0; k < nl; k++) {
				if (k == a)
					continue;
				/* L_a >= L_k (+1 when k comes first): r_k - r_a - [k < a] >= 0 */
				mpz_t *n = sys_add_row(c, &child, false);
				const mpz_t *rk = row_of(c, s, lo[k]);
				for (int j = 0; j < c->width; j++)
					mpz_sub(n[j], rk[j], ra[j]);
				if (k < a)
					mpz_sub_ui(n[0], n[0], 1);
			}
			for (int k = 0; k < nu; k++) {
				if (k == b)
					continue;
				/* U_b <= U_k (-1 when k comes first): r_k - r_b - [k < b] >= 0 */
				mpz_t *n = sys_add_row(c, &child, false);
				const mpz_t *rk = row_of(c, s, up[k]);
				for (int j = 0; j < c->width; j++)
					mpz_sub(n[j], rk[j], rb[j]);
				if (k < b)
					mpz_sub_ui(n[0], n[0], 1);
			}
			mpz_t *n = sys_add_row(c, &child, false);
			for (int j = 0; j < c->width; j++)
				mpz_add(n[j], ra[j], rb[j]);
			mpz_set_ui(n[1 + x], 0);
			int e = sys_prepare(c, &child);
			if (e < 0) {
				rc = -1;
				break;
			}
			if (e == 1)
				continue;
			poly_from_row(c, &lp, ra, x, -1);
			poly_from_row(c, &up_p, rb, x, +1);
			poly_sum(c, &cp, p, x, &lp, &up_p);
			rc = count_piece(c, &child, &cp);
		}
	}
	sys_clear(c, &child);
	poly_clear(&cp);
	poly_clear(&lp);
	poly_clear(&up_p);
	free(lo);
	free(up);
	return rc;
}

/* Range of variable x over the rational relaxation of b: [ceil(min), floor(max)]. */
static int var_range(isl_basic_set *b, int x, mpz_t lo, mpz_t hi)
{
	isl_local_space *ls = isl_local_space_from_space(isl_basic_set_get_space(b));
	isl_aff *obj = isl_aff_var_on_domain(ls, isl_dim_set, (unsigned)x);
	isl_val *mn = isl_basic_set_min_lp_val(b, obj);
	isl_val *mx = isl_basic_set_max_lp_val(b, obj);
	isl_aff_free(obj);
	int rc = -1;
	if (mn && mx && isl_val_is_rat(mn) && isl_val_is_rat(mx)) {
		mn = isl_val_ceil(mn);
		mx = isl_val_floor(mx);
		if (mn && mx && isl_val_get_num_gmp(mn, lo) >= 0 &&
		    isl_val_get_num_gmp(mx, hi) >= 0)
			rc = 0;
	} else if (mn && mx) {
		rc = 1; /* unbounded or empty */
	}
	isl_val_free(mn);
	isl_val_free(mx);
	return rc;
}

/* Step 4a, enumeration: the sum over x in [lo, hi] of the pieces with x fixed. */
static int enumerate_variable(counter *c, const sys *s, const poly *p, int x, const mpz_t lo,
			      const mpz_t hi)
{
	sys child;
	poly cp, val;
	sys_init(&child);
	poly_init(&cp);
	poly_init(&val);
	uint8_t *zero = solar_xcalloc((size_t)c->nvar + 1, 1);
	mpq_t q;
	mpz_t v;
	mpq_init(q);
	mpz_init(v);
	int rc = 0;
	for (mpz_set(v, lo); rc == 0 && mpz_cmp(v, hi) <= 0; mpz_add_ui(v, v, 1)) {
		sys_copy(c, &child, s);
		for (int r = 0; r < child.n; r++) {
			mpz_t *a = row_of(c, &child, r);
			mpz_addmul(a[0], a[1 + x], v);
			mpz_set_ui(a[1 + x], 0);
		}
		int e = sys_prepare(c, &child);
		if (e < 0) {
			rc = -1;
			break;
		}
		if (e == 1)
			continue;
		val.n = 0;
		mpq_set_z(q, v);
		if (mpq_sgn(q))
			poly_push(c, &val, zero, NULL, q);
		poly_substitute(c, &cp, p, x, &val);
		rc = count_piece(c, &child, &cp);
	}
	mpq_clear(q);
	mpz_clear(v);
	free(zero);
	sys_clear(c, &child);
	poly_clear(&cp);
	poly_clear(&val);
	return rc;
}

enum { SPLIT_NEVER = 1 << 30 };

/* Moduli of a residue split that gives variable x unit coefficients: in a row a*x + b*y + ...
 * with |a| > 1, writing y = m*y' + r with a | b*m lets the gcd step divide the row by |a|.  So
 * m[y] = lcm over such rows of |a| / gcd(a, b).  Returns the number of residue classes, the
 * product of the m[y] (SPLIT_NEVER if a symbol would have to be split or it is huge). */
static long split_moduli(const counter *c, const sys *s, int x, long *m)
{
	mpz_t g;
	mpz_init(g);
	for (int y = 0; y < c->nvar; y++)
		m[y] = 1;
	long cost = 1;
	for (int r = 0; r < s->n && cost < SPLIT_NEVER; r++) {
		mpz_srcptr a = coef(c, s, r, x);
		if (mpz_cmpabs_ui(a, 1) <= 0)
			continue;
		for (int y = 0; y < c->nvar && cost < SPLIT_NEVER; y++) {
			mpz_srcptr b = coef(c, s, r, y);
			if (y == x || !mpz_sgn(b))
				continue;
			mpz_gcd(g, a, b);
			mpz_divexact(g, a, g);
			mpz_abs(g, g);
			if (mpz_cmp_ui(g, 1) == 0)
				continue;
			if (mpz_cmp_ui(g, 1 << 12) > 0) {
				cost = SPLIT_NEVER;
				break;
			}
			mpz_lcm_ui(g, g, (unsigned long)m[y]);
			if (mpz_cmp_ui(g, 1 << 12) > 0)
				cost = SPLIT_NEVER;
			else
				m[y] = (long)mpz_get_ui(g);
		}
	}
	for (int y = 0; y < c->nvar && cost < SPLIT_NEVER; y++) {
		cost *= m[y];
		if (cost >= SPLIT_NEVER)
			cost = SPLIT_NEVER;
	}
	mpz_clear(g);
	return cost;
}

/* Step 4b, residue split: one piece per residue class y = m[y]*y' + r of the variables with
 * m[y] > 1 (y' takes y's place).  Each piece has unit coefficients on x (see split_moduli). */
static int split_residues(counter *c, const sys *s, const poly *p, const long *m)
{
	long *res = solar_xcalloc((size_t)c->nvar + 1, sizeof *res);
	mpz_t *old_m = solar_xrealloc(NULL, 2 * ((size_t)c->nsym + 1) * sizeof *old_m),
	      *old_r = old_m + c->nsym + 1;
	for (int y = 0; y < c->nsym; y++)
		mpz_inits(old_m[y], old_r[y], NULL);
	sys child;
	poly cp, tmp, aff;
	sys_init(&child);
	poly_init(&cp);
	poly_init(&tmp);
	poly_init(&aff);
	uint8_t *e = solar_xcalloc((size_t)c->nvar + 1, 1);
	mpq_t q;
	mpq_init(q);
	int rc = 0;
	for (;;) {
		sys_copy(c, &child, s);
		for (int y = 0; y < c->nvar; y++) {
			if (m[y] == 1)
				continue;
			for (int r = 0; r < child.n; r++) {
				mpz_t *a = row_of(c, &child, r);
				mpz_addmul_ui(a[0], a[1 + y], (unsigned long)res[y]);
				mpz_mul_ui(a[1 + y], a[1 + y], (unsigned long)m[y]);
			}
		}
		int st = sys_prepare(c, &child);
		if (st < 0) {
			rc = -1;
			break;
		}
		if (st == 0) {
			cp.n = 0;
			for (int t = 0; t < p->n; t++)
				poly_push(c, &cp, term_exp(c, p, t), NULL, p->coef[t]);
			for (int y = 0; y < c->nvar; y++) {
				if (m[y] == 1)
					continue;
				/* y := m*y + r */
				aff.n = 0;
				memset(e, 0, (size_t)c->nvar);
				mpq_set_ui(q, (unsigned long)res[y], 1);
				if (res[y])
					poly_push(c, &aff, e, NULL, q);
				e[y] = 1;
				mpq_set_ui(q, (unsigned long)m[y], 1);
				poly_push(c, &aff, e, NULL, q);
				poly_substitute(c, &tmp, &cp, y, &aff);
				poly t = cp;
				cp = tmp;
				tmp = t;
			}
			/* a split symbol now stands for a finer residue class: m*(M*y' + r) + R */
			for (int y = 0; y < c->nsym; y++) {
				if (m[y] == 1)
					continue;
				mpz_set(old_m[y], c->sym_m[y]);
				mpz_set(old_r[y], c->sym_r[y]);
				mpz_addmul_ui(c->sym_r[y], c->sym_m[y], (unsigned long)res[y]);
				mpz_mul_ui(c->sym_m[y], c->sym_m[y], (unsigned long)m[y]);
			}
			rc = count_piece(c, &child, &cp);
			for (int y = 0; y < c->nsym; y++) {
				if (m[y] == 1)
					continue;
				mpz_set(c->sym_m[y], old_m[y]);
				mpz_set(c->sym_r[y], old_r[y]);
			}
			if (rc < 0)
				break;
		}
		/* next residue vector, mixed radix */
		int y = 0;
		while (y < c->nvar && (m[y] == 1 || ++res[y] == m[y])) {
			res[y] = 0;
			y++;
		}
		if (y == c->nvar)
			break;
	}
	mpq_clear(q);
	free(e);
	free(res);
	for (int y = 0; y < c->nsym; y++)
		mpz_clears(old_m[y], old_r[y], NULL);
	free(old_m);
	sys_clear(c, &child);
	poly_clear(&cp);
	poly_clear(&tmp);
	poly_clear(&aff);
	return rc;
}

/* Step 4, no variable has unit bounds: split residues, or enumerate the variable with the
 * smallest range, whichever makes fewer pieces. */
static int split_or_enumerate(counter *c, const sys *s, const poly *p)
{
	long *m = solar_xrealloc(NULL, 2 * (size_t)c->nvar * sizeof *m), *bm = m + c->nvar;
	long best_split = SPLIT_NEVER;
	for (int x = c->nsym; x < c->nvar; x++) {
		if (!in_rows(c, s, x))
			continue;
		long cost = split_moduli(c, s, x, m);
		if (cost < best_split) {
			best_split = cost;
			memcpy(bm, m, (size_t)c->nvar * sizeof *m);
		}
	}
	int rc = 0;
	if (best_split <= 2) {
		rc = split_residues(c, s, p, bm);
		free(m);
		return rc;
	}
	isl_basic_set *b = sys_to_isl(c, s);
	if (!b) {
		free(m);
		return fail(c, WHY_ISL);
	}
	mpz_t lo, hi, blo, bhi, w, bw;
	mpz_inits(lo, hi, blo, bhi, w, bw, NULL);
	int best = -1;
	for (int x = c->nsym; x < c->nvar && rc == 0; x++) {
		if (!in_rows(c, s, x))
			continue;
		int e = var_range(b, x, lo, hi);
		if (e < 0) {
			rc = fail(c, WHY_ISL);
			break;
		}
		if (e > 0)
			continue; /* unbounded here: only symbols can make it so */
		mpz_sub(w, hi, lo);
		if (best < 0 || mpz_cmp(w, bw) < 0) {
			best = x;
			mpz_set(bw, w);
			mpz_set(blo, lo);
			mpz_set(bhi, hi);
		}
	}
	isl_basic_set_free(b);
	if (rc == 0) {
		if (best >= 0 && mpz_cmp_si(bw, best_split) < 0) {
			if (mpz_cmp_si(bw, c->max_pieces) > 0)
				rc = fail(c, WHY_PIECES);
			else
				rc = enumerate_variable(c, s, p, best, blo, bhi);
		} else if (best_split < SPLIT_NEVER) {
			rc = split_residues(c, s, p, bm);
		} else {
			rc = fail(c, c->symbolic ? WHY_SYMBOLIC
				     : best < 0	 ? WHY_UNBOUNDED
						 : WHY_PIECES);
		}
	}
	mpz_clears(lo, hi, blo, bhi, w, bw, NULL);
	free(m);
	return rc;
}

/* Counts (or, symbolically, collects) the sum of p over the integer points of s.  s has been
 * prepared; it may be modified.  p is borrowed. */
/* Step 2b.  When no row links two groups of the summable variables (a convolution's domain:
 * (n), (k), (c), (oh, r), (ow, s)), the system's points are the product of the groups' points,
 * so a constant summand's sum is that constant times the product of the groups' counts, each a
 * smaller system counted on its own.  Numeric counts with a constant summand only (a symbolic
 * count's leaves carry the parameter values they hold for).  *done says whether it applied. */
static int group_root(const int *root, int x)
{
	while (root[x] != x)
		x = root[x];
	return x;
}

static int count_product(counter *c, sys *s, const poly *cur, bool *done)
{
	*done = false;
	if (c->symbolic || c->nsym || cur->n > 1 || s->n < 2)
		return 0;
	for (int k = 0; cur->n == 1 && k < c->nvar; k++)
		if (term_exp(c, cur, 0)[k])
			return 0;
	int *root = solar_xmalloc((size_t)c->nvar * sizeof *root);
	for (int x = 0; x < c->nvar; x++)
		root[x] = x;
	for (int r = 0; r < s->n; r++) { /* union the variables of each row, by lowest root */
		int first = -1;
		for (int x = 0; x < c->nvar; x++) {
			if (!mpz_sgn(coef(c, s, r, x)))
				continue;
			int y = group_root(root, x);
			if (first < 0) {
				first = y;
			} else if (y != first) {
				root[y > first ? y : first] = y < first ? y : first;
				first = y < first ? y : first;
			}
		}
	}
	int *group = solar_xmalloc((size_t)s->n * sizeof *group), ngroups = 0;
	for (int r = 0; r < s->n; r++) {
		int x = 0;
		while (x < c->nvar && !mpz_sgn(coef(c, s, r, x)))
			x++;
		group[r] = x < c->nvar ? group_root(root, x) : -1; /* no variable: sys_tidy drops */
		bool seen = false;
		for (int q = 0; q < r && !seen; q++)
			seen = group[q] == group[r];
		ngroups += !seen;
	}
	int rc = 0;
	if (ngroups >= 2) {
		*done = true;
		mpq_t saved, prod;
		mpq_inits(saved, prod, NULL);
		mpq_swap(saved, c->total);
		mpq_set_ui(prod, cur->n ? 1 : 0, 1);
		sys sub;
		sys_init(&sub);
		poly one;
		poly_init(&one);
		poly_set_si(c, &one, 1);
		for (int r = 0; r < s->n && rc == 0 && mpq_sgn(prod); r++) {
			bool first = true;
			for (int q = 0; q < r && first; q++)
				first = group[q] != group[r];
			if (!first)
				continue;
			sub.n = 0;
			for (int q = r; q < s->n; q++)
				if (group[q] == group[r])
					sys_copy_row(c, &sub, s, q);
			mpq_set_ui(c->total, 0, 1);
			rc = count_piece(c, &sub, &one);
			mpq_mul(prod, prod, c->total);
		}
		if (cur->n)
			mpq_mul(prod, prod, cur->coef[0]);
		mpq_swap(saved, c->total);
		if (rc == 0)
			mpq_add(c->total, c->total, prod);
		mpq_clears(saved, prod, NULL);
		sys_clear(c, &sub);
		poly_clear(&one);
	}
	free(group);
	free(root);
	return rc;
}

static int count_piece(counter *c, sys *s, poly *p)
{
	if (++c->pieces > c->max_pieces || c->depth > 4 * c->nvar + 8)
		return fail(c, WHY_PIECES);
	c->depth++;
	poly cur, tmp, aff;
	poly_init(&cur);
	poly_init(&tmp);
	poly_init(&aff);
	poly_reserve(c, &cur, p->n);
	for (int t = 0; t < p->n; t++)
		poly_push(c, &cur, term_exp(c, p, t), NULL, p->coef[t]);
	mpz_t g;
	mpz_init(g);
	int rc = 0;
	/* Step 2: substitute variables fixed by unit equalities. */
	for (;;) {
		if (!sys_tidy(c, s, g))
			goto done;
		int er = -1, ex = -1;
		for (int r = 0; r < s->n && er < 0; r++) {
			if (!s->eq[r])
				continue;
			for (int x = c->nvar - 1; x >= c->nsym; x--)
				if (mpz_cmpabs_ui(coef(c, s, r, x), 1) == 0) {
					er = r;
					ex = x;
					break;
				}
		}
		if (er < 0)
			break;
		/* e_x * x + rest = 0 with e_x = +-1: x = -e_x * rest */
		int ex_sign = mpz_sgn(coef(c, s, er, ex));
		poly_from_row(c, &aff, row_of(c, s, er), ex, -ex_sign);
		poly_substitute(c, &tmp, &cur, ex, &aff);
		poly_clear(&cur);
		cur = tmp;
		poly_init(&tmp);
		const mpz_t *e = row_of(c, s, er);
		for (int r = 0; r < s->n; r++) {
			if (r == er || !mpz_sgn(coef(c, s, r, ex)))
				continue;
			/* row -= (row_x * e_x) * eq */
			mpz_mul_si(g, coef(c, s, r, ex), ex_sign);
			mpz_t *a = row_of(c, s, r);
			for (int k = 0; k < c->width; k++)
				mpz_submul(a[k], g, e[k]);
		}
		sys_drop_row(c, s, er);
	}
	/* Step 2b: a product of independent groups of variables. */
	bool product = false;
	rc = count_product(c, s, &cur, &product);
	if (rc < 0 || product)
		goto done;
	/* A summable variable left in p but in no row would be unbounded: the piece is empty. */
	bool any = false, orphan = false;
	for (int x = c->nsym; x < c->nvar; x++) {
		bool r = in_rows(c, s, x);
		any |= r;
		orphan |= !r && in_poly(c, &cur, x);
	}
	if (orphan) {
		int e = sys_is_empty(c, s);
		rc = e < 0 ? -1 : e == 1 ? 0 : fail(c, WHY_INTERNAL);
		goto done;
	}
	if (!any) {
		rc = c->leaf(c, s, &cur);
		goto done;
	}
	/* Step 3: the summable variable with unit bounds and the fewest chambers. */
	int best = -1;
	long best_score = LONG_MAX;
	for (int x = c->nsym; x < c->nvar; x++) {
		int nl = 0, nu = 0;
		bool ok = in_rows(c, s, x);
		for (int r = 0; r < s->n && ok; r++) {
			mpz_srcptr a = coef(c, s, r, x);
			if (!mpz_sgn(a))
				continue;
			if (s->eq[r] || mpz_cmpabs_ui(a, 1) != 0)
				ok = false;
			else if (mpz_sgn(a) > 0)
				nl++;
			else
				nu++;
		}
		if (!ok)
			continue;
		if (nl == 0 || nu == 0) {
			/* unbounded direction: only possible in an empty piece */
			int e = sys_is_empty(c, s);
			rc = e < 0 ? -1 : e == 1 ? 0 : fail(c, WHY_UNBOUNDED);
			goto done;
		}
		/* other variables in the bounds make later steps harder: a mild tie-break */
		int others = 0;
		for (int y = 0; y < c->nvar; y++) {
			if (y == x)
				continue;
			for (int r = 0; r < s->n; r++)
				if (mpz_sgn(coef(c, s, r, x)) && mpz_sgn(coef(c, s, r, y))) {
					others++;
					break;
				}
		}
		long score = (long)nl * nu * 64 + others;
		if (score < best_score) {
			best_score = score;
			best = x;
		}
	}
	if (best >= 0)
		rc = sum_variable(c, s, &cur, best);
	else
		rc = split_or_enumerate(c, s, &cur);
done:
	c->depth--;
	mpz_clear(g);
	poly_clear(&cur);
	poly_clear(&tmp);
	poly_clear(&aff);
	return rc;
}

/* --- one basic set ------------------------------------------------------------------------- */

static void counter_init(counter *c, isl_ctx *ctx, int nsym, int nvar, long max_pieces)
{
	memset(c, 0, sizeof *c);
	c->ctx = ctx;
	c->nsym = nsym;
	c->nvar = nvar;
	c->width = 1 + nvar;
	c->maxdeg = nvar + 1;
	c->max_pieces = max_pieces;
	mpq_init(c->total);
	c->leaf = leaf_numeric;
	faulhaber_init(c);
}

static void counter_clear(counter *c)
{
	int w = c->maxdeg + 2;
	for (int i = 0; i < (c->maxdeg + 1) * w; i++)
		mpq_clear(c->faul[i]);
	free(c->faul);
	mpq_clear(c->total);
	isl_space_free(c->param_space);
	for (int k = 0; c->sym_m && k < c->nsym; k++)
		mpz_clears(c->sym_m[k], c->sym_r[k], NULL);
	free(c->sym_m);
	free(c->sym_r);
}

/* Step 1, lifting: the constraints of b with its divs as ordinary variables (columns: constant,
 * parameters, set variables, divs), plus each div's definition d*e <= f <= d*e + d - 1, which
 * makes the lifting a bijection on integer points. */
static int lift_basic_set(counter *c, sys *s, __isl_keep isl_basic_set *b)
{
	isl_mat *eq = isl_basic_set_equalities_matrix(b, isl_dim_cst, isl_dim_param, isl_dim_set,
						      isl_dim_div);
	isl_mat *in = isl_basic_set_inequalities_matrix(b, isl_dim_cst, isl_dim_param, isl_dim_set,
							isl_dim_div);
	if (rows_from_mat(c, s, eq, true) < 0 || rows_from_mat(c, s, in, false) < 0)
		return fail(c, WHY_ISL);
	isl_size np = isl_basic_set_dim(b, isl_dim_param), ns = isl_basic_set_dim(b, isl_dim_set),
		 nd = isl_basic_set_dim(b, isl_dim_div);
	if (np < 0 || ns < 0 || nd < 0)
		return fail(c, WHY_ISL);
	mpz_t d, v;
	mpz_inits(d, v, NULL);
	int rc = 0;
	for (int k = 0; k < nd && rc == 0; k++) {
		isl_aff *f = isl_basic_set_get_div(b, k);
		isl_val *den = isl_aff_get_denominator_val(f);
		if (!f || !den || isl_val_get_num_gmp(den, d) < 0) {
			rc = fail(c, WHY_ISL);
		} else {
			/* lower: f - d*e >= 0; upper: d*e + d - 1 - f >= 0 */
			sys_add_row(c, s, false);
			sys_add_row(c, s, false);
			mpz_t *lo = row_of(c, s, s->n - 2), *hi = row_of(c, s, s->n - 1);
			for (int col = 0; col < c->width && rc == 0; col++) {
				isl_val *x;
				if (col == 0)
					x = isl_aff_get_constant_val(f);
				else if (col <= np)
					x = isl_aff_get_coefficient_val(f, isl_dim_param, col - 1);
				else if (col <= np + ns)
					x = isl_aff_get_coefficient_val(f, isl_dim_in,
									col - 1 - np);
				else
					x = isl_aff_get_coefficient_val(f, isl_dim_div,
									col - 1 - np - ns);
				x = isl_val_mul(x, isl_val_copy(den));
				if (!x || !isl_val_is_int(x) || isl_val_get_num_gmp(x, v) < 0)
					rc = fail(c, WHY_ISL);
				isl_val_free(x);
				mpz_set(lo[col], v);
				mpz_neg(hi[col], v);
			}
			int ecol = 1 + np + ns + k;
			mpz_sub(lo[ecol], lo[ecol], d);
			mpz_add(hi[ecol], hi[ecol], d);
			mpz_add(hi[0], hi[0], d);
			mpz_sub_ui(hi[0], hi[0], 1);
		}
		isl_val_free(den);
		isl_aff_free(f);
	}
	mpz_clears(d, v, NULL);
	return rc;
}

/* Adds the count of the basic set b (kept) to `total`. */
static int count_basic_set(__isl_keep isl_basic_set *b, const solar_count_options *opt, mpq_t total,
			   const char **why)
{
	isl_size ns = isl_basic_set_dim(b, isl_dim_set), nd = isl_basic_set_dim(b, isl_dim_div);
	if (ns < 0 || nd < 0) {
		*why = WHY_ISL;
		return -1;
	}
	if (ns + nd > MAX_VARS) {
		*why = WHY_DIMS;
		return -1;
	}
	counter c;
	counter_init(&c, isl_basic_set_get_ctx(b), 0, ns + nd, opt->max_pieces);
	sys s;
	sys_init(&s);
	poly p;
	poly_init(&p);
	int rc = lift_basic_set(&c, &s, b);
	if (rc == 0) {
		int e = sys_prepare(&c, &s);
		if (e < 0) {
			rc = -1;
		} else if (e == 0) {
			poly_set_si(&c, &p, 1);
			rc = count_piece(&c, &s, &p);
		}
	}
	if (rc == 0)
		mpq_add(total, total, c.total);
	else
		*why = c.why ? c.why : WHY_INTERNAL;
	poly_clear(&p);
	sys_clear(&c, &s);
	counter_clear(&c);
	return rc;
}

/* --- public entry points ------------------------------------------------------------------- */

typedef struct {
	const solar_count_options *opt;
	mpq_t total;
	const char *why;
} set_walk;

static isl_stat walk_basic_set(__isl_take isl_basic_set *b, void *user)
{
	set_walk *w = user;
	int rc = count_basic_set(b, w->opt, w->total, &w->why);
	isl_basic_set_free(b);
	return rc < 0 ? isl_stat_error : isl_stat_ok;
}

/* Number of points of the bounding box of a bounded, non-empty, parameter-free set; -1 on an
 * ISL error.  The box itself goes to *box (a set in set's space) when box != NULL. */
static int box_volume(__isl_keep isl_set *set, mpz_t vol, isl_set **box)
{
	isl_size n = isl_set_dim(set, isl_dim_set);
	if (n < 0)
		return -1;
	if (box)
		*box = isl_set_universe(isl_set_get_space(set));
	mpz_set_ui(vol, 1);
	mpz_t lo, hi;
	mpz_inits(lo, hi, NULL);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		isl_val *mn = isl_set_dim_min_val(isl_set_copy(set), i);
		isl_val *mx = isl_set_dim_max_val(isl_set_copy(set), i);
		if (!mn || !mx || !isl_val_is_int(mn) || !isl_val_is_int(mx) ||
		    isl_val_get_num_gmp(mn, lo) < 0 || isl_val_get_num_gmp(mx, hi) < 0)
			rc = -1;
		if (box && rc == 0) {
			*box = isl_set_lower_bound_val(*box, isl_dim_set, i, mn);
			*box = isl_set_upper_bound_val(*box, isl_dim_set, i, mx);
		} else {
			isl_val_free(mn);
			isl_val_free(mx);
		}
		if (rc == 0) {
			mpz_sub(hi, hi, lo);
			mpz_add_ui(hi, hi, 1);
			mpz_mul(vol, vol, hi);
		}
	}
	mpz_clears(lo, hi, NULL);
	return rc;
}

/* Whether a constraint involves at most one set variable (counted in *user, -1 on more). */
static isl_stat one_variable(__isl_take isl_constraint *c, void *user)
{
	int *vars = user;
	isl_size n = isl_constraint_dim(c, isl_dim_set);
	int k = 0;
	for (int i = 0; i < n; i++)
		k += isl_constraint_involves_dims(c, isl_dim_set, (unsigned)i, 1) == isl_bool_true;
	isl_constraint_free(c);
	if (n < 0 || k > 1)
		*vars = -1;
	return *vars < 0 ? isl_stat_error : isl_stat_ok;
}

/* Whether a set is one basic set without existential variables whose every constraint bounds a
 * single variable: a product of integer intervals, so its points are exactly those of its
 * bounding box (box_volume).  The common footprint and domain of a dense loop nest is one. */
static bool is_box(__isl_keep isl_set *set)
{
	if (isl_set_n_basic_set(set) != 1)
		return false;
	isl_basic_set_list *l = isl_set_get_basic_set_list(set);
	isl_basic_set *b = isl_basic_set_list_get_basic_set(l, 0);
	isl_basic_set_list_free(l);
	int vars = 0;
	bool box = b && isl_basic_set_dim(b, isl_dim_div) == 0 &&
		   isl_basic_set_foreach_constraint(b, one_variable, &vars) == isl_stat_ok &&
		   vars == 0;
	isl_basic_set_free(b);
	return box;
}

typedef struct {
	mpz_t *lo, *hi;
	bool *has_lo, *has_hi;
	int n;
	bool box; /* every constraint so far bounds a single variable */
} box_walk;

/* Tightens the bounds of box_walk by one constraint a x + c >= 0 (or = 0) of a single
 * variable x: x >= ceil(-c / a) for a > 0, x <= floor(-c / a) for a < 0, both for = 0. */
static isl_stat box_constraint(__isl_take isl_constraint *c, void *user)
{
	box_walk *b = user;
	int var = -1;
	for (int i = 0; i < b->n && b->box; i++)
		if (isl_constraint_involves_dims(c, isl_dim_set, (unsigned)i, 1) == isl_bool_true) {
			if (var >= 0)
				b->box = false;
			var = i;
		}
	if (!b->box || var < 0) {
		isl_constraint_free(c);
		return b->box ? isl_stat_ok : isl_stat_error;
	}
	isl_val *a = isl_constraint_get_coefficient_val(c, isl_dim_set, var);
	isl_val *k = isl_constraint_get_constant_val(c);
	bool eq = isl_constraint_is_equality(c) == isl_bool_true;
	isl_constraint_free(c);
	mpz_t za, zk, q;
	mpz_inits(za, zk, q, NULL);
	if (!a || !k || !isl_val_is_int(a) || !isl_val_is_int(k) || isl_val_get_num_gmp(a, za) < 0 ||
	    isl_val_get_num_gmp(k, zk) < 0) {
		b->box = false;
	} else {
		mpz_neg(zk, zk); /* a x >= -c */
		bool pos = mpz_sgn(za) > 0;
		if (pos || eq) { /* lower bound */
			mpz_cdiv_q(q, zk, za);
			if (!b->has_lo[var] || mpz_cmp(q, b->lo[var]) > 0)
				mpz_set(b->lo[var], q);
			b->has_lo[var] = true;
		}
		if (!pos || eq) { /* upper bound */
			mpz_fdiv_q(q, zk, za);
			if (!b->has_hi[var] || mpz_cmp(q, b->hi[var]) < 0)
				mpz_set(b->hi[var], q);
			b->has_hi[var] = true;
		}
	}
	mpz_clears(za, zk, q, NULL);
	isl_val_free(a);
	isl_val_free(k);
	return b->box ? isl_stat_ok : isl_stat_error;
}

/* The intervals of a basic set without existential variables whose every constraint bounds a
 * single variable (a product of integer intervals), read off its constraints: lo[i]..hi[i]
 * (mpz_t arrays of n, initialised).  1 when b is such a box, bounded in every variable (an
 * interval may be empty: hi < lo), 0 when not, -1 on error. */
static int basic_box(__isl_keep isl_basic_set *bs, int n, mpz_t *lo, mpz_t *hi)
{
	isl_size nd = isl_basic_set_dim(bs, isl_dim_div);
	if (nd != 0)
		return nd < 0 ? -1 : 0;
	box_walk b = {lo, hi, solar_xcalloc((size_t)n + 1, sizeof(bool)),
		      solar_xcalloc((size_t)n + 1, sizeof(bool)), n, true};
	isl_basic_set_foreach_constraint(bs, box_constraint, &b);
	int rc = b.box ? 1 : 0;
	for (int i = 0; i < n && rc == 1; i++)
		rc = b.has_lo[i] && b.has_hi[i];
	free(b.has_lo);
	free(b.has_hi);
	return rc;
}

/* The points of the box lo..hi (n intervals) in vol: 0 when an interval is empty. */
static void intervals_volume(int n, mpz_t *lo, mpz_t *hi, mpz_t vol)
{
	mpz_t w;
	mpz_init(w);
	mpz_set_ui(vol, 1);
	for (int i = 0; i < n; i++) {
		mpz_sub(w, hi[i], lo[i]);
		mpz_add_ui(w, w, 1);
		if (mpz_sgn(w) <= 0)
			mpz_set_ui(w, 0);
		mpz_mul(vol, vol, w);
	}
	mpz_clear(w);
}

/* The volume of a non-empty set that is one basic set without existential variables whose
 * every constraint bounds a single variable (a product of integer intervals: is_box), read off
 * its constraints: the same numbers as box_volume's ILP, without solving one.  Returns 1 with
 * *vol set when the set is such a box, 0 when it is not, -1 on error. */
static int box_volume_plain(__isl_keep isl_set *set, mpz_t vol)
{
	isl_size n = isl_set_dim(set, isl_dim_set);
	if (n < 0)
		return -1;
	if (!is_box(set))
		return 0;
	isl_basic_set_list *l = isl_set_get_basic_set_list(set);
	isl_basic_set *bs = isl_basic_set_list_get_basic_set(l, 0);
	isl_basic_set_list_free(l);
	if (!bs)
		return -1;
	mpz_t *lo = solar_xmalloc(((size_t)n + 1) * sizeof(mpz_t));
	mpz_t *hi = solar_xmalloc(((size_t)n + 1) * sizeof(mpz_t));
	for (int i = 0; i < n; i++)
		mpz_inits(lo[i], hi[i], NULL);
	int rc = basic_box(bs, n, lo, hi);
	isl_basic_set_free(bs);
	for (int i = 0; i < n && rc == 1; i++)
		if (mpz_cmp(hi[i], lo[i]) < 0)
			rc = 0; /* empty: not for this path */
	if (rc == 1)
		intervals_volume(n, lo, hi, vol);
	for (int i = 0; i < n; i++)
		mpz_clears(lo[i], hi[i], NULL);
	free(lo);
	free(hi);
	return rc;
}

/* The count of a union of boxes that are pairwise disjoint (for each pair, some variable whose
 * intervals do not meet), each a basic set as basic_box reads: the sum of their volumes.  Such
 * unions are common: the padded edges of a convolution's output, a chain's first points under
 * clamped bounds (one box per combination of active bounds, told apart by fixed values).
 * Boxes meet exactly when every pair of their intervals does, so the test is exact.  1 with
 * *vol set, 0 when the set is not such a union, -1 on error. */
static int box_union_volume(__isl_keep isl_set *set, mpz_t vol)
{
	isl_size n = isl_set_dim(set, isl_dim_set);
	isl_basic_set_list *l = isl_set_get_basic_set_list(set);
	isl_size nb = isl_basic_set_list_n_basic_set(l);
	if (n < 0 || nb < 0) {
		isl_basic_set_list_free(l);
		return -1;
	}
	enum { MAX_BOXES = 64 };
	if (nb < 2 || nb > MAX_BOXES) {
		isl_basic_set_list_free(l);
		return 0;
	}
	size_t cells = (size_t)nb * (size_t)n + 1;
	mpz_t *lo = solar_xmalloc(cells * sizeof(mpz_t)), *hi = solar_xmalloc(cells * sizeof(mpz_t));
	for (size_t i = 0; i + 1 < cells; i++)
		mpz_inits(lo[i], hi[i], NULL);
	int rc = 1;
	for (int b = 0; b < nb && rc == 1; b++) {
		isl_basic_set *bs = isl_basic_set_list_get_basic_set(l, b);
		rc = bs ? basic_box(bs, n, lo + (size_t)b * n, hi + (size_t)b * n) : -1;
		isl_basic_set_free(bs);
	}
	for (int a = 0; a < nb && rc == 1; a++)
		for (int b = 0; b < a && rc == 1; b++) {
			bool apart = false;
			for (int i = 0; i < n && !apart; i++) {
				size_t x = (size_t)a * n + i, y = (size_t)b * n + i;
				apart = mpz_cmp(hi[x], lo[y]) < 0 || mpz_cmp(hi[y], lo[x]) < 0 ||
					mpz_cmp(hi[x], lo[x]) < 0 || mpz_cmp(hi[y], lo[y]) < 0;
			}
			rc = apart;
		}
	if (rc == 1) {
		mpz_t v;
		mpz_init(v);
		mpz_set_ui(vol, 0);
		for (int b = 0; b < nb; b++) {
			intervals_volume(n, lo + (size_t)b * n, hi + (size_t)b * n, v);
			mpz_add(vol, vol, v);
		}
		mpz_clear(v);
	}
	for (size_t i = 0; i + 1 < cells; i++)
		mpz_clears(lo[i], hi[i], NULL);
	free(lo);
	free(hi);
	isl_basic_set_list_free(l);
	return rc;
}

/* b (taken) without the variables that an equality with a +-1 coefficient fixes, projected
 * out one at a time: x = f(y) with f integral is a bijection between the points of b and those
 * of its projection, so the count stays; ISL eliminates such a variable by Gaussian
 * elimination, without an existential.  A footprint of several reads of one element (the key
 * of a hoisted group: [i, j, i, j]) is a box after this.  NULL on an ISL error. */
static __isl_give isl_basic_set *unit_equalities_out(__isl_take isl_basic_set *b, int *removed)
{
	*removed = 0;
	for (bool again = true; b && again;) {
		again = false;
		isl_size n = isl_basic_set_dim(b, isl_dim_set);
		isl_mat *eq = isl_basic_set_equalities_matrix(b, isl_dim_set, isl_dim_div,
							      isl_dim_param, isl_dim_cst);
		isl_size rows = isl_mat_rows(eq);
		if (n < 0 || rows < 0) {
			isl_mat_free(eq);
			return isl_basic_set_free(b);
		}
		for (int r = 0; r < rows && !again; r++)
			for (int x = 0; x < n && !again; x++) {
				isl_val *a = isl_mat_get_element_val(eq, r, x);
				again = a && (isl_val_is_one(a) || isl_val_is_negone(a));
				isl_val_free(a);
				if (again) {
					b = isl_basic_set_project_out(b, isl_dim_set, (unsigned)x,
								      1);
					++*removed;
				}
			}
		isl_mat_free(eq);
	}
	return b;
}

/* box_volume_plain after unit_equalities_out, for a set that is one basic set without
 * existential variables: 1 with *vol set when that is a box, 0 when not, -1 on error. */
static int box_volume_unit(__isl_keep isl_set *set, mpz_t vol)
{
	if (isl_set_n_basic_set(set) != 1)
		return 0;
	isl_basic_set_list *l = isl_set_get_basic_set_list(set);
	isl_basic_set *b = isl_basic_set_list_get_basic_set(l, 0);
	isl_basic_set_list_free(l);
	isl_size nd = isl_basic_set_dim(b, isl_dim_div);
	if (nd != 0) {
		isl_basic_set_free(b);
		return nd < 0 ? -1 : 0;
	}
	int removed;
	isl_set *r = isl_set_from_basic_set(unit_equalities_out(b, &removed));
	int rc = !r ? -1 : removed ? box_volume_plain(r, vol) : 0; /* none: box_volume_plain's */
	isl_set_free(r);
	return rc;
}

/* Whether the set may be its bounding box in a way that the plain tests miss: a union of
 * basic sets without existential variables (boxes that tile one, as the padded edges of a
 * convolution's output do).  0 no, 1 yes, -1 error. */
static int may_be_box(__isl_keep isl_set *set)
{
	isl_basic_set_list *l = isl_set_get_basic_set_list(set);
	isl_size n = isl_basic_set_list_n_basic_set(l);
	int rc = n < 0 ? -1 : n > 1;
	for (int i = 0; i < n && rc == 1; i++) {
		isl_basic_set *b = isl_basic_set_list_get_basic_set(l, i);
		isl_size nd = isl_basic_set_dim(b, isl_dim_div);
		rc = nd < 0 ? -1 : nd == 0;
		isl_basic_set_free(b);
	}
	isl_basic_set_list_free(l);
	return rc;
}

static __isl_give isl_val *fail_val(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return NULL;
}

/* isl_set_count_val on a set known to be bounded and parameter-free. */
static __isl_give isl_val *count_by_enumeration(__isl_keep isl_set *set, const char **why)
{
	isl_val *v = isl_set_count_val(set);
	if (!v || !isl_val_is_int(v)) {
		isl_val_free(v);
		return fail_val(why, WHY_ISL);
	}
	return v;
}

__isl_give isl_val *solar_count_set_opt(__isl_keep isl_set *set, const solar_count_options *opt,
					const char **why)
{
	if (!set)
		return fail_val(why, WHY_ISL);
	isl_ctx *ctx = isl_set_get_ctx(set);
	isl_size np = isl_set_dim(set, isl_dim_param);
	if (np < 0)
		return fail_val(why, WHY_ISL);
	isl_set *s = isl_set_copy(set);
	/* parameters the set does not involve, or fixes to one value, can go */
	for (int k = 0; k < np; k++) {
		isl_bool inv = isl_set_involves_dims(s, isl_dim_param, (unsigned)k, 1);
		isl_val *v =
		    inv > 0 ? isl_set_plain_get_val_if_fixed(s, isl_dim_param, (unsigned)k) : NULL;
		bool fixed = v && isl_val_is_int(v);
		isl_val_free(v);
		if (inv < 0 || (inv && !fixed)) {
			isl_set_free(s);
			return fail_val(why, inv < 0 ? WHY_ISL : WHY_PARAMS);
		}
	}
	if (np > 0)
		s = isl_set_project_out(s, isl_dim_param, 0, (unsigned)np);
	isl_bool bounded = isl_set_is_bounded(s);
	if (bounded <= 0) {
		isl_set_free(s);
		return fail_val(why, bounded < 0 ? WHY_ISL : WHY_UNBOUNDED);
	}
	isl_bool empty = isl_set_is_empty(s);
	if (empty) {
		isl_set_free(s);
		return empty < 0 ? fail_val(why, WHY_ISL) : isl_val_zero(ctx);
	}
	mpz_t vol;
	mpz_init(vol);
	int plain = box_volume_plain(s, vol);
	if (plain == 0)
		plain = box_volume_unit(s, vol);
	if (plain == 0)
		plain = box_union_volume(s, vol);
	if (plain == 1) { /* its count is the volume of its box (or the boxes' sum) */
		isl_val *v = isl_val_int_from_gmp(ctx, vol);
		mpz_clear(vol);
		isl_set_free(s);
		return v;
	}
	/* A set holds its bounding box, so it is the box when the box lies in it.  Tried only on
	 * unions of basic sets without existential variables (may_be_box): elsewhere the test
	 * fails nearly always and costs more than the count (measured on the RoPE decoder's
	 * triangles and mod footprints). */
	int maybe = plain < 0 ? -1 : is_box(s) ? 0 : may_be_box(s);
	isl_set *box = NULL;
	if (maybe < 0 || box_volume(s, vol, maybe ? &box : NULL) < 0 || (maybe && !box)) {
		isl_set_free(box);
		mpz_clear(vol);
		isl_set_free(s);
		return fail_val(why, WHY_ISL);
	}
	isl_bool full = is_box(s) ? isl_bool_true
			: box	  ? isl_set_is_subset(box, s)
				  : isl_bool_false;
	isl_set_free(box);
	if (full < 0) {
		mpz_clear(vol);
		isl_set_free(s);
		return fail_val(why, WHY_ISL);
	}
	if (full) { /* non-empty, so its count is the volume of its bounding box */
		isl_val *v = isl_val_int_from_gmp(ctx, vol);
		mpz_clear(vol);
		isl_set_free(s);
		return v;
	}
	if (opt->enumerate_below > 0 && mpz_cmp_d(vol, opt->enumerate_below) < 0) {
		mpz_clear(vol);
		isl_val *v = count_by_enumeration(s, why);
		isl_set_free(s);
		return v;
	}
	isl_set *d = isl_set_copy(s);
	d = isl_set_compute_divs(d);
	d = isl_set_make_disjoint(d);
	d = isl_set_compute_divs(d);
	set_walk w = {.opt = opt, .why = NULL};
	mpq_init(w.total);
	isl_val *res = NULL;
	if (!d) {
		w.why = WHY_ISL;
	} else if (isl_set_foreach_basic_set(d, walk_basic_set, &w) == 0) {
		if (mpz_cmp_ui(mpq_denref(w.total), 1) != 0 || mpq_sgn(w.total) < 0)
			w.why = WHY_INTERNAL;
		else
			res = isl_val_int_from_gmp(ctx, mpq_numref(w.total));
	} else if (!w.why) {
		w.why = WHY_ISL;
	}
	isl_set_free(d);
	if (!res && w.why == WHY_PIECES && opt->fallback_below > 0 &&
	    mpz_cmp_d(vol, opt->fallback_below) < 0)
		res = count_by_enumeration(s, &w.why);
	mpq_clear(w.total);
	mpz_clear(vol);
	isl_set_free(s);
	if (!res)
		return fail_val(why, w.why ? w.why : WHY_ISL);
	return res;
}

__isl_give isl_val *solar_count_set(__isl_keep isl_set *set, const char **why)
{
	solar_count_options opt = solar_count_defaults();
	return solar_count_set_opt(set, &opt, why);
}

/* --- the memo ------------------------------------------------------------------------------ */

typedef struct {
	char *key; /* NULL: free slot */
	uint64_t hash;
	isl_val *count;
} memo_slot;

struct solar_count_memo {
	memo_slot *slot;
	size_t cap, n; /* cap a power of two, n <= cap / 2 */
	long lookups, hits;
};

solar_count_memo *solar_count_memo_new(void)
{
	solar_count_memo *m = solar_xcalloc(1, sizeof *m);
	m->cap = 64;
	m->slot = solar_xcalloc(m->cap, sizeof *m->slot);
	return m;
}

void solar_count_memo_free(solar_count_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++) {
		free(m->slot[i].key);
		isl_val_free(m->slot[i].count);
	}
	free(m->slot);
	free(m);
}

void solar_count_memo_stats(const solar_count_memo *m, long stats[2])
{
	stats[0] = m ? m->lookups : 0;
	stats[1] = m ? m->hits : 0;
}

static bool ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/* The memo's key of a set: its printed form without the names of its tuples (an identifier
 * right before a `[`), in place; its FNV-1a hash in *hash. */
static void memo_key(char *text, uint64_t *hash)
{
	uint64_t h = 14695981039346656037u;
	size_t w = 0, start = 0; /* start: where the current identifier began in the output */
	bool in_ident = false;
	for (size_t r = 0; text[r]; r++) {
		char ch = text[r];
		if (ch == '[' && in_ident)
			w = start;
		if (ident_char(ch)) {
			if (!in_ident)
				start = w;
			in_ident = true;
		} else {
			in_ident = false;
		}
		text[w++] = ch;
	}
	text[w] = 0;
	for (size_t i = 0; i < w; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211u;
	*hash = h;
}

static memo_slot *memo_find(solar_count_memo *m, const char *key, uint64_t hash)
{
	size_t i = hash & (m->cap - 1);
	while (m->slot[i].key && (m->slot[i].hash != hash || strcmp(m->slot[i].key, key) != 0))
		i = (i + 1) & (m->cap - 1);
	return &m->slot[i];
}

static void memo_grow(solar_count_memo *m)
{
	memo_slot *old = m->slot;
	size_t n = m->cap;
	m->cap *= 2;
	m->slot = solar_xcalloc(m->cap, sizeof *m->slot);
	for (size_t i = 0; i < n; i++)
		if (old[i].key)
			*memo_find(m, old[i].key, old[i].hash) = old[i];
	free(old);
}

__isl_give isl_val *solar_count_memo_get(solar_count_memo *m, const char *recipe)
{
	if (!m)
		return NULL;
	char *text = solar_xstrdup(recipe);
	uint64_t hash;
	memo_key(text, &hash);
	m->lookups++;
	memo_slot *slot = memo_find(m, text, hash);
	free(text);
	if (!slot->key)
		return NULL;
	m->hits++;
	return isl_val_copy(slot->count);
}

/* Remembers count under key (taken; its hash given), unless the key is known already. */
static void memo_put_key(solar_count_memo *m, char *key, uint64_t hash, __isl_keep isl_val *count)
{
	memo_slot *slot = memo_find(m, key, hash);
	if (slot->key) {
		free(key);
		return;
	}
	slot->key = key;
	slot->hash = hash;
	slot->count = isl_val_copy(count);
	if (++m->n > m->cap / 2)
		memo_grow(m);
}

void solar_count_memo_put(solar_count_memo *m, const char *recipe, __isl_keep isl_val *count)
{
	if (!m || !count)
		return;
	char *text = solar_xstrdup(recipe);
	uint64_t hash;
	memo_key(text, &hash);
	memo_put_key(m, text, hash, count);
}

__isl_give isl_val *solar_count_set_memo(solar_count_memo *m, __isl_keep isl_set *set,
					 const char **why)
{
	if (!m || !set)
		return solar_count_set(set, why);
	char *text = isl_set_to_str(set);
	if (!text)
		return fail_val(why, WHY_ISL);
	uint64_t hash;
	memo_key(text, &hash);
	m->lookups++;
	memo_slot *slot = memo_find(m, text, hash);
	if (slot->key) {
		m->hits++;
		free(text);
		return isl_val_copy(slot->count);
	}
	isl_val *v = solar_count_set(set, why);
	if (v)
		memo_put_key(m, text, hash, v);
	else
		free(text);
	return v;
}

/* --- union sets ---------------------------------------------------------------------------- */

typedef struct {
	isl_val *sum;
	const char *why;
} union_walk;

static isl_stat walk_set(__isl_take isl_set *set, void *user)
{
	union_walk *w = user;
	isl_val *v = solar_count_set(set, &w->why);
	isl_set_free(set);
	if (!v)
		return isl_stat_error;
	w->sum = isl_val_add(w->sum, v);
	return w->sum ? isl_stat_ok : isl_stat_error;
}

__isl_give isl_val *solar_count_union_set(__isl_keep isl_union_set *uset, const char **why)
{
	if (!uset)
		return fail_val(why, WHY_ISL);
	union_walk w = {isl_val_zero(isl_union_set_get_ctx(uset)), NULL};
	if (isl_union_set_foreach_set(uset, walk_set, &w) < 0 || !w.sum) {
		isl_val_free(w.sum);
		return fail_val(why, w.why ? w.why : WHY_ISL);
	}
	return w.sum;
}

typedef struct {
	isl_space *param_space;
	piece_list pieces;
	const char *why;
} sym_walk;

/* Collects the pieces of the symbolic count of one basic set (taken) into w->pieces. */
static isl_stat walk_basic_set_symbolic(__isl_take isl_basic_set *b, void *user)
{
	sym_walk *w = user;
	isl_size np = isl_basic_set_dim(b, isl_dim_param), ns = isl_basic_set_dim(b, isl_dim_set),
		 nd = isl_basic_set_dim(b, isl_dim_div);
	if (np < 0 || ns < 0 || nd < 0 || np + ns + nd > MAX_VARS) {
		w->why = np < 0 || ns < 0 || nd < 0 ? WHY_ISL : WHY_DIMS;
		isl_basic_set_free(b);
		return isl_stat_error;
	}
	solar_count_options opt = solar_count_defaults();
	counter c;
	counter_init(&c, isl_basic_set_get_ctx(b), np, np + ns + nd, opt.max_pieces);
	c.symbolic = true;
	c.leaf = leaf_symbolic;
	c.param_space = isl_space_copy(w->param_space);
	c.sym_pieces = &w->pieces;
	c.max_leaves = MAX_SYMBOLIC_PIECES;
	c.sym_m = solar_xrealloc(NULL, ((size_t)np + 1) * sizeof *c.sym_m);
	c.sym_r = solar_xrealloc(NULL, ((size_t)np + 1) * sizeof *c.sym_r);
	for (int k = 0; k < np; k++) {
		mpz_init_set_ui(c.sym_m[k], 1);
		mpz_init(c.sym_r[k]);
	}
	sys s;
	poly p;
	sys_init(&s);
	poly_init(&p);
	int rc = lift_basic_set(&c, &s, b);
	if (rc == 0) {
		int e = sys_prepare(&c, &s);
		if (e < 0) {
			rc = -1;
		} else if (e == 0) {
			poly_set_si(&c, &p, 1);
			rc = count_piece(&c, &s, &p);
		}
	}
	if (rc < 0)
		w->why = c.why ? c.why : WHY_INTERNAL;
	poly_clear(&p);
	sys_clear(&c, &s);
	counter_clear(&c);
	isl_basic_set_free(b);
	return rc < 0 ? isl_stat_error : isl_stat_ok;
}

/* Sum of pieces [lo, hi) (taken), added as a balanced tree: adding pieces one by one to a
 * growing sum makes ISL split ever more domains. */
static __isl_give isl_pw_qpolynomial *add_pieces(isl_pw_qpolynomial **pw, int lo, int hi)
{
	if (hi - lo == 1)
		return pw[lo];
	int mid = lo + (hi - lo) / 2;
	isl_pw_qpolynomial *a = add_pieces(pw, lo, mid), *b = add_pieces(pw, mid, hi);
	return isl_pw_qpolynomial_coalesce(isl_pw_qpolynomial_add(a, b));
}

__isl_give isl_pw_qpolynomial *solar_count_set_symbolic(__isl_keep isl_set *set_with_params,
							const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	if (!set_with_params) {
		*why = WHY_ISL;
		return NULL;
	}
	isl_bool bounded = isl_set_is_bounded(set_with_params);
	if (bounded <= 0) {
		*why = bounded < 0 ? WHY_ISL : WHY_UNBOUNDED;
		return NULL;
	}
	sym_walk w = {.param_space = isl_space_params(isl_set_get_space(set_with_params))};
	w.pieces.pw = solar_xrealloc(NULL, (MAX_SYMBOLIC_PIECES + 1) * sizeof *w.pieces.pw);
	isl_qpolynomial *zero = isl_qpolynomial_zero_on_domain(isl_space_copy(w.param_space));
	isl_pw_qpolynomial *sum = isl_pw_qpolynomial_zero(isl_qpolynomial_get_space(zero));
	isl_qpolynomial_free(zero);
	isl_set *d = isl_set_copy(set_with_params);
	d = isl_set_compute_divs(d);
	d = isl_set_make_disjoint(d);
	d = isl_set_compute_divs(d);
	bool ok = d && sum && isl_set_foreach_basic_set(d, walk_basic_set_symbolic, &w) == 0;
	if (ok && w.pieces.n > 0)
		sum = isl_pw_qpolynomial_add(sum, add_pieces(w.pieces.pw, 0, w.pieces.n));
	else
		for (int k = 0; k < w.pieces.n; k++)
			isl_pw_qpolynomial_free(w.pieces.pw[k]);
	if (!ok || !sum) {
		*why = w.why ? w.why : WHY_ISL;
		sum = isl_pw_qpolynomial_free(sum);
	}
	free(w.pieces.pw);
	isl_set_free(d);
	isl_space_free(w.param_space);
	if (sum)
		sum = isl_pw_qpolynomial_coalesce(sum);
	if (!sum && !*why)
		*why = WHY_ISL;
	return sum;
}
