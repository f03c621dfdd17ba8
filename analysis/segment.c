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

/* Loop-iterator mask of an index; -1 when the index is not of the form sum c_k x_k + c. */
static long index_mask(const solar_stmt *s, const solar_expr *e)
{
	switch (e->kind) {
	case SOLAR_E_INT:
	case SOLAR_E_CONST:
	case SOLAR_E_PARAM:
		return 0;
	case SOLAR_E_ITER:
		for (int k = 0; k < s->depth; k++)
			if (s->loops[k] == e->sym)
				return 1L << k;
		return -1;
	case SOLAR_E_NEG:
		return index_mask(s, e->args[0]);
	case SOLAR_E_BIN:
		if (e->binop == SOLAR_OP_ADD || e->binop == SOLAR_OP_SUB ||
		    e->binop == SOLAR_OP_MUL) {
			long a = index_mask(s, e->args[0]), b = index_mask(s, e->args[1]);
			if (a < 0 || b < 0)
				return -1;
			return a | b;
		}
		return -1;
	default:
		return -1;
	}
}

static int add_access(acc_info *acc, int n, const solar_stmt *s, int tensor, solar_expr **index,
		      int rank)
{
	if (n < 0 || n >= MAX_ACC)
		return -1;
	acc_info a = {.tensor = tensor, .rank = rank};
	for (int i = 0; i < rank; i++) {
		long m = index_mask(s, index[i]);
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

static int collect(acc_info *acc, int n, const solar_stmt *s, const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS)
		n = add_access(acc, n, s, e->sym, e->args, e->nargs);
	for (int i = 0; i < e->nargs && n >= 0; i++)
		n = collect(acc, n, s, e->args[i]);
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

/* Number of distinct values of the loops in T over the statement's domain. */
static double count_taps(isl_set *domain, unsigned T, int depth)
{
	isl_set *s = isl_set_copy(domain);
	for (int k = depth - 1; k >= 0; k--)
		if (!(T & (1u << k)))
			s = isl_set_project_out(s, isl_dim_set, (unsigned)k, 1);
	isl_val *v = solar_count_set(s, NULL);
	isl_set_free(s);
	double d = v ? isl_val_get_d(v) : -1;
	isl_val_free(v);
	return d;
}

void solar_segment_rules(const solar_program *p, const solar_stmt *s, isl_set *domain,
			 bool eligible, solar_stmt_work *sw)
{
	sw->nrules = 0;
	sw->segment_eligible = eligible;
	if (!eligible || s->depth > MAX_LOOPS)
		return;
	acc_info acc[MAX_ACC];
	const solar_tensor *out = &p->tensors[s->tensor];
	int n = add_access(acc, 0, s, s->tensor, s->index, out->rank);
	n = n < 0 ? n : collect(acc, n, s, s->value);
	if (n < 2)
		return;
	int bytes = 1 << 30;
	for (int j = 0; j < n; j++) {
		int b = solar_dtype_bytes(p->tensors[acc[j].tensor].dtype);
		if (b < bytes)
			bytes = b;
	}
	sw->segment_elem_bytes = bytes;
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

double solar_segment_bound(const solar_stmt_work *sw, double S)
{
	if (!sw->segment_eligible || !sw->nrules || !sw->instances || S <= 0)
		return 0;
	double D = isl_val_get_d(sw->instances);
	double best = 0;
	for (int i = 0; i < sw->nrules; i++) {
		const solar_segment_rule *r = &sw->rules[i];
		double U = pow(r->taps, 1 - r->sigma_disjoint) * r->coef * pow(3 * S, r->sigma_sum);
		double q = S * (D / U - 1);
		if (q > best)
			best = q;
	}
	return best;
}
