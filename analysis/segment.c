/* segment.c - per-statement inputs of the cache-aware bound (docs/bounds.md, "cache-aware").
 *
 * Hong and Kung's segment argument: cut any execution into segments of S I/Os.  In one
 * segment the elements of each accessed tensor that the segment touches number at most 3S in
 * total (resident at its start, resident at its end, or moved).  If the statement's accesses
 * are projections (each index is one iterator times a non-zero constant plus a constant),
 * Hoelder-Brascamp-Lieb caps the iterations E of a segment by prod_j |phi_j(E)|^sigma_j for
 * any weights sigma with sum_{j uses x} sigma_j >= 1 for every iterator x; AM-GM with
 * sum_j |phi_j(E)| <= 3S gives U(S) = (3S)^sum(sigma) prod_j (sigma_j/sum(sigma))^sigma_j.
 * Accesses that are not projections (convolution: In[oh*2 + r]) are handled by slicing: fix
 * the iterators T that break projectivity (r, s); each slice is projective, and if one access
 * J sees T directly its slices are disjoint, so Hoelder over slices multiplies U by
 * taps^(1 - sigma_J), taps being the number of distinct values of T.  Then the statement moves
 * at least S (|D| / U(S) - 1) elements.  im2col-as-GEMM is NOT such a rule (it is unsound).
 *
 * Soundness preconditions checked here: the accesses are to pairwise distinct tensors (so the
 * 3S budget is not shared), every read is of a program input and the written tensor is a
 * program output (an intermediate produced on chip costs no I/O, which breaks the budget).
 *
 * A contraction T[o] += X * Y of two inputs into an intermediate (attention's scores) gets
 * rule "complete pairs" instead: an output completed inside a segment needs a whole row of d
 * elements of X and of Y there, so at most (rows of X) x (rows of Y) outputs complete; the
 * outputs left unfinished have partial sums that cross the segment's boundary and are charged
 * against the 3S budget with the rows.  That caps the segment's iterations at
 * 9 S^2 / (4 d) + S^1.5 whether or not T is ever stored.
 *
 * Rule "row statistic" (softmax, normalisation) is not a segment rule: it adds rows x (L - S)
 * to the compulsory traffic.  Its preconditions need the program's dataflow and are checked in
 * work.c; solar_row_stat_extra only evaluates it.
 */
#include <isl/set.h>
#include <math.h>
#include <string.h>

#include "count.h"
#include "model.h"
#include "work.h"

#define MAX_ACC 8
#define MAX_LOOPS 16

typedef struct {
	int tensor;
	int rank;
	unsigned dims[SOLAR_MAX_NESTING]; /* per index: bit k = loop k of the statement used */
	unsigned iters;
} acc_info;

/* Coefficients of the loops of s in an index (coef[k] for loop k); false when the index is not
 * of the form sum c_k x_k + c (the front end has checked that it is affine). */
static bool index_coefs(const solar_program *p, const solar_stmt *s, const solar_expr *e,
			int64_t *coef)
{
	memset(coef, 0, sizeof(int64_t) * (size_t)s->depth);
	switch (e->kind) {
	case SOLAR_E_INT:
	case SOLAR_E_CONST:
	case SOLAR_E_PARAM:
		return true;
	case SOLAR_E_ITER:
		for (int k = 0; k < s->depth; k++)
			if (s->loops[k] == e->sym) {
				coef[k] = 1;
				return true;
			}
		return false;
	case SOLAR_E_NEG:
		if (!index_coefs(p, s, e->args[0], coef))
			return false;
		for (int k = 0; k < s->depth; k++)
			coef[k] = -coef[k];
		return true;
	case SOLAR_E_BIN: {
		int64_t b[MAX_LOOPS];
		if (e->binop != SOLAR_OP_ADD && e->binop != SOLAR_OP_SUB &&
		    e->binop != SOLAR_OP_MUL)
			return false;
		if (!index_coefs(p, s, e->args[0], coef) || !index_coefs(p, s, e->args[1], b))
			return false;
		bool a_const = true, b_const = true;
		for (int k = 0; k < s->depth; k++) {
			a_const &= coef[k] == 0;
			b_const &= b[k] == 0;
		}
		if (e->binop == SOLAR_OP_MUL) {
			if (!a_const && !b_const)
				return false;
			int64_t f = solar_ir_eval_const(p, e->args[a_const ? 0 : 1]);
			for (int k = 0; k < s->depth; k++)
				coef[k] = (a_const ? b[k] : coef[k]) * f;
			return true;
		}
		for (int k = 0; k < s->depth; k++)
			coef[k] += e->binop == SOLAR_OP_ADD ? b[k] : -b[k];
		return true;
	}
	default:
		return false;
	}
}

/* Mask of the loops an index really uses (non-zero coefficient: `i - i` uses no loop);
 * -1 when the index is not of the form sum c_k x_k + c. */
static long index_mask(const solar_program *p, const solar_stmt *s, const solar_expr *e)
{
	int64_t coef[MAX_LOOPS];
	if (!index_coefs(p, s, e, coef))
		return -1;
	long m = 0;
	for (int k = 0; k < s->depth; k++)
		if (coef[k])
			m |= 1L << k;
	return m;
}

static int add_access(acc_info *acc, int n, const solar_program *p, const solar_stmt *s, int tensor,
		      solar_expr **index, int rank)
{
	if (n < 0 || n >= MAX_ACC || rank > SOLAR_MAX_NESTING) /* dims[] has SOLAR_MAX_NESTING */
		return -1;
	acc_info a = {.tensor = tensor, .rank = rank};
	for (int i = 0; i < rank; i++) {
		long m = index_mask(p, s, index[i]);
		if (m < 0)
			return -1;
		a.dims[i] = (unsigned)m;
		a.iters |= (unsigned)m;
	}
	for (int j = 0; j < n; j++)
		if (acc[j].tensor == tensor) {
			/* the same tensor twice: only the reduction target equal to the store */
			if (acc[j].rank == rank && !memcmp(acc[j].dims, a.dims, sizeof a.dims))
				return n;
			return -1;
		}
	acc[n] = a;
	return n + 1;
}

static int collect(acc_info *acc, int n, const solar_program *p, const solar_stmt *s,
		   const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS)
		n = add_access(acc, n, p, s, e->sym, e->args, e->nargs);
	for (int i = 0; i < e->nargs && n >= 0; i++)
		n = collect(acc, n, p, s, e->args[i]);
	return n;
}

static int popcount(unsigned x)
{
	return __builtin_popcount(x);
}

/* U(S) = K S^sigma_sum with K = taps^(1 - sigma_J) coef 3^sigma_sum.  Rule a is never worse
 * than rule b (U_a <= U_b for every S >= 1) when a's exponent and constant are both no larger:
 * only rules on that Pareto front are kept. */
static double rule_k(const solar_segment_rule *r)
{
	return pow(r->taps, 1 - r->sigma_disjoint) * r->coef * pow(3, r->sigma_sum);
}

static bool dominates(const solar_segment_rule *a, const solar_segment_rule *b)
{
	return a->sigma_sum <= b->sigma_sum && rule_k(a) <= rule_k(b);
}

static void keep_rule(solar_stmt_work *sw, solar_segment_rule r)
{
	for (int i = 0; i < sw->nrules; i++)
		if (dominates(&sw->rules[i], &r))
			return;
	int n = 0;
	for (int i = 0; i < sw->nrules; i++)
		if (!dominates(&r, &sw->rules[i]))
			sw->rules[n++] = sw->rules[i];
	sw->nrules = n;
	if (n < SOLAR_MAX_SEGMENT_RULES) {
		sw->rules[sw->nrules++] = r;
		return;
	}
	/* Front full (never seen in practice): replace the rule with the largest constant. */
	int worst = 0;
	for (int i = 1; i < n; i++)
		if (rule_k(&sw->rules[i]) > rule_k(&sw->rules[worst]))
			worst = i;
	if (rule_k(&r) < rule_k(&sw->rules[worst]))
		sw->rules[worst] = r;
}

/* Tries every sigma in {0, 1/2, 1}^n for the slicing T and keeps the undominated rules. */
static void rules_for_slicing(solar_stmt_work *sw, const acc_info *acc, int n, unsigned T,
			      int disjoint, double taps, int depth)
{
	int combos = 1;
	for (int j = 0; j < n; j++)
		combos *= 3;
	for (int c = 1; c < combos; c++) {
		double sigma[MAX_ACC];
		int x = c;
		for (int j = 0; j < n; j++) {
			sigma[j] = (x % 3) * 0.5;
			x /= 3;
		}
		bool ok = true;
		for (int k = 0; k < depth && ok; k++) {
			if (T & (1u << k))
				continue;
			double cover = 0;
			for (int j = 0; j < n; j++)
				if (acc[j].iters & (1u << k))
					cover += sigma[j];
			ok = cover >= 1;
		}
		if (!ok)
			continue;
		double sum = 0, coef = 1;
		for (int j = 0; j < n; j++)
			sum += sigma[j];
		for (int j = 0; j < n; j++)
			if (sigma[j] > 0)
				coef *= pow(sigma[j] / sum, sigma[j]);
		double sj = disjoint >= 0 ? sigma[disjoint] : 1;
		if (disjoint >= 0 && sj > 1)
			continue;
		solar_segment_rule r = {taps, sj, sum, coef, T};
		keep_rule(sw, r);
	}
}

/* Exact number of distinct values of the loops in T over the statement's domain; NULL if
 * counting fails. */
static isl_val *count_proj(isl_set *domain, unsigned T, int depth)
{
	isl_set *s = isl_set_copy(domain);
	for (int k = depth - 1; k >= 0; k--)
		if (!(T & (1u << k)))
			s = isl_set_project_out(s, isl_dim_set, (unsigned)k, 1);
	isl_val *v = solar_count_set(s, NULL);
	isl_set_free(s);
	return v;
}

static double count_taps(isl_set *domain, unsigned T, int depth)
{
	isl_val *v = count_proj(domain, T, depth);
	double d = v ? isl_val_get_d(v) : -1;
	isl_val_free(v);
	return d;
}

/* Rule "complete pairs" (docs/bounds.md, "Cache-aware"), the statement's side: acc[0] is the
 * target T, acc[1] and acc[2] the operands X and Y of T[o] += X * Y.  It applies when every
 * index of T, X and Y uses at most one loop, X and Y each use every reduction loop (so an
 * output's instances read a whole row of each: d elements, and distinct rows are disjoint),
 * every output loop appears in X or in Y (else one pair of rows completes several outputs),
 * and the domain is (outputs) x (a fixed set of reduction values), checked exactly by
 * counting.  Sets sw->pairs_row to d. */
static void pairs_rule(const acc_info *acc, int n, const solar_stmt *s, isl_set *domain,
		       solar_stmt_work *sw)
{
	if (n != 3 || !sw->instances)
		return;
	for (int j = 0; j < 3; j++)
		for (int i = 0; i < acc[j].rank; i++)
			if (popcount(acc[j].dims[i]) > 1)
				return;
	unsigned all = (1u << s->depth) - 1, out = acc[0].iters, red = all & ~out;
	if (!red || (acc[1].iters & red) != red || (acc[2].iters & red) != red ||
	    (out & ~(acc[1].iters | acc[2].iters)))
		return;
	isl_val *outputs = count_proj(domain, out, s->depth);
	isl_val *d = count_proj(domain, red, s->depth);
	isl_val *product =
	    outputs && d ? isl_val_mul(isl_val_copy(outputs), isl_val_copy(d)) : NULL;
	if (product && isl_val_eq(product, sw->instances) == isl_bool_true)
		sw->pairs_row = isl_val_get_d(d);
	isl_val_free(product);
	isl_val_free(outputs);
	isl_val_free(d);
}

void solar_segment_rules(const solar_program *p, const solar_stmt *s, isl_set *domain,
			 bool eligible, bool pairs, solar_stmt_work *sw)
{
	sw->nrules = 0;
	sw->pairs_row = 0;
	sw->segment_eligible = eligible;
	if ((!eligible && !pairs) || s->depth > MAX_LOOPS)
		return;
	acc_info acc[MAX_ACC];
	const solar_tensor *out = &p->tensors[s->tensor];
	int n = add_access(acc, 0, p, s, s->tensor, s->index, out->rank);
	n = n < 0 ? n : collect(acc, n, p, s, s->value);
	if (n < 2)
		return;
	int bytes = 1 << 30;
	for (int j = 0; j < n; j++) {
		int b = solar_dtype_bytes(p->tensors[acc[j].tensor].dtype);
		if (b < bytes)
			bytes = b;
	}
	sw->segment_elem_bytes = bytes;
	if (pairs)
		pairs_rule(acc, n, s, domain, sw);
	if (!eligible)
		return;
	unsigned all = s->depth >= 32 ? ~0u : (1u << s->depth) - 1;
	for (unsigned T = 0; T <= all; T++) {
		/* (a) after slicing T, every index uses at most one loop */
		bool ok = true;
		for (int j = 0; j < n && ok; j++)
			for (int i = 0; i < acc[j].rank && ok; i++)
				ok = popcount(acc[j].dims[i] & ~T) <= 1;
		if (!ok)
			continue;
		/* (b) some access sees each sliced loop alone in an index: disjoint slices */
		int disjoint = -1;
		if (T) {
			for (int j = 0; j < n && disjoint < 0; j++) {
				unsigned alone = 0;
				for (int i = 0; i < acc[j].rank; i++)
					if (popcount(acc[j].dims[i]) == 1)
						alone |= acc[j].dims[i];
				if ((alone & T) == T)
					disjoint = j;
			}
			if (disjoint < 0)
				continue;
		}
		double taps = T ? count_taps(domain, T, s->depth) : 1;
		if (taps < 1)
			continue;
		rules_for_slicing(sw, acc, n, T, disjoint, taps, s->depth);
		if (!T)
			break; /* projective as written: slicing can only weaken the rule */
	}
}

/* Rule "complete pairs": the iterations of a segment are at most 9 S^2 / (4 d) + S^1.5. */
static double pairs_cap(double d, double S) { return 9 * S * S / (4 * d) + S * sqrt(S); }

double solar_segment_bound(const solar_stmt_work *sw, double S)
{
	if (!sw->instances || S <= 0)
		return 0;
	double D = isl_val_get_d(sw->instances);
	double best = 0;
	for (int i = 0; sw->segment_eligible && i < sw->nrules; i++) {
		const solar_segment_rule *r = &sw->rules[i];
		double U = pow(r->taps, 1 - r->sigma_disjoint) * r->coef * pow(3 * S, r->sigma_sum);
		double q = S * (D / U - 1);
		if (q > best)
			best = q;
	}
	if (sw->pairs_row > 0) {
		double q = S * (D / pairs_cap(sw->pairs_row, S) - 1);
		if (q > best)
			best = q;
	}
	return best;
}

/* Rule "row statistic": after the statistic of row r is final, at most S of the row's L
 * elements of X are on chip, and every y[r, j] still needs its x[r, j]. */
double solar_row_stat_extra(const solar_stmt_work *sw, double S)
{
	if (sw->stat_rows <= 0 || S < 0 || sw->stat_len <= S)
		return 0;
	return sw->stat_rows * (sw->stat_len - S);
}
