/* segment.c - the cache-aware rules (docs/bounds.md, "cache-aware"): for each statement, which
 * rules apply (their preconditions on the program and its exact dataflow) and their numbers,
 * and the bounds they give at a fast-memory size (segment.h).
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
 * to the compulsory traffic.  Its preconditions need the program's dataflow (row_stat below);
 * solar_row_stat_extra evaluates it.
 */
#include "segment.h"

#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <math.h>
#include <stdlib.h>
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

/* Mask of the loops an index really uses (non-zero coefficient: `i - i` uses no loop);
 * -1 when the index is not of the form sum c_k x_k + c. */
static long index_mask(const solar_program *p, const solar_stmt *s, const solar_expr *e)
{
	int64_t coef[MAX_LOOPS];
	if (!solar_model_index_coefs(p, s, e, coef))
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

static void keep_rule(solar_stmt_rules *sw, solar_segment_rule r)
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
static void rules_for_slicing(solar_stmt_rules *sw, const acc_info *acc, int n, unsigned T,
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
 * counting fails.  The projection of a padded or strided domain comes out of ISL in pieces
 * (conv2d_7x7_s2's output loops: four pieces of one 112 x 112 box); coalescing them first
 * makes the count cheaper (11 M of count_proj's 22 M instructions there).  Runs of loops
 * outside T are projected out in one call. */
static isl_val *count_proj(solar_count_memo *memo, isl_set *domain, unsigned T, int depth)
{
	isl_set *s = isl_set_copy(domain);
	for (int k = depth - 1; k >= 0; k--) {
		if (T & (1u << k))
			continue;
		int first = k; /* a run of loops outside T: projected out at once */
		while (first > 0 && !(T & (1u << (first - 1))))
			first--;
		s = isl_set_project_out(s, isl_dim_set, (unsigned)first, (unsigned)(k - first + 1));
		k = first;
	}
	s = isl_set_coalesce(s);
	isl_val *v = solar_count_set_memo(memo, s, NULL);
	isl_set_free(s);
	return v;
}

static double count_taps(solar_count_memo *memo, isl_set *domain, unsigned T, int depth)
{
	isl_val *v = count_proj(memo, domain, T, depth);
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
static void pairs_rule(solar_count_memo *memo, const acc_info *acc, int n, const solar_stmt *s,
		       isl_set *domain, isl_val *instances, solar_stmt_rules *sw)
{
	if (n != 3 || !instances)
		return;
	for (int j = 0; j < 3; j++)
		for (int i = 0; i < acc[j].rank; i++)
			if (popcount(acc[j].dims[i]) > 1)
				return;
	unsigned all = (1u << s->depth) - 1, out = acc[0].iters, red = all & ~out;
	if (!red || (acc[1].iters & red) != red || (acc[2].iters & red) != red ||
	    (out & ~(acc[1].iters | acc[2].iters)))
		return;
	isl_val *outputs = count_proj(memo, domain, out, s->depth);
	isl_val *d = count_proj(memo, domain, red, s->depth);
	isl_val *product =
	    outputs && d ? isl_val_mul(isl_val_copy(outputs), isl_val_copy(d)) : NULL;
	if (product && isl_val_eq(product, instances) == isl_bool_true)
		sw->pairs_row = isl_val_get_d(d);
	isl_val_free(product);
	isl_val_free(outputs);
	isl_val_free(d);
}

/* The HBL rules when `eligible`, rule "complete pairs" when `pairs` (its preconditions on the
 * program, pairs_eligible) and the statement's shape allow it. */
static void segment_rules(solar_count_memo *memo, const solar_program *p, const solar_stmt *s,
			  isl_set *domain, bool eligible, bool pairs, isl_val *instances,
			  solar_stmt_rules *sw)
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
		pairs_rule(memo, acc, n, s, domain, instances, sw);
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
		double taps = T ? count_taps(memo, domain, T, s->depth) : 1;
		if (taps < 1)
			continue;
		rules_for_slicing(sw, acc, n, T, disjoint, taps, s->depth);
		if (!T)
			break; /* projective as written: slicing can only weaken the rule */
	}
}

/* ---- the preconditions on the program and its dataflow ---- */

static bool reads_only_inputs_but(const solar_program *p, const solar_expr *e, int except)
{
	if (e->kind == SOLAR_E_ACCESS && e->sym != except &&
	    p->tensors[e->sym].role != SOLAR_ROLE_IN)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!reads_only_inputs_but(p, e->args[i], except))
			return false;
	return true;
}

static bool reads_only_inputs(const solar_program *p, const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS && p->tensors[e->sym].role != SOLAR_ROLE_IN)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!reads_only_inputs(p, e->args[i]))
			return false;
	return true;
}

static int count_reads_of(const solar_expr *e, int tensor, const solar_expr **which)
{
	int n = 0;
	if (e->kind == SOLAR_E_ACCESS && e->sym == tensor) {
		*which = e;
		n++;
	}
	for (int i = 0; i < e->nargs; i++)
		n += count_reads_of(e->args[i], tensor, which);
	return n;
}

/* Whether every statement that reads tmp tensor t (other than the reductions into t itself)
 * copies it element for element into a program output: it writes an out/inout tensor with
 * index expressions identical to those it reads t with, reads t once, and reads nothing but t
 * and inputs.  Then every value of t maps to its own output element (rule "accumulator
 * copied to an output" in docs/bounds.md). */
static bool copied_to_output(const solar_program *p, int t)
{
	for (int i = 0; i < p->nstmts; i++) {
		const solar_stmt *c = p->stmts[i];
		const solar_expr *rd = NULL;
		int n = count_reads_of(c->value, t, &rd);
		if (c->tensor == t) {
			if (n) /* t feeds itself other than as a reduction target */
				return false;
			continue;
		}
		if (!n)
			continue;
		solar_role r = p->tensors[c->tensor].role;
		if ((r != SOLAR_ROLE_OUT && r != SOLAR_ROLE_INOUT) || n != 1 ||
		    c->op != SOLAR_ASSIGN || p->tensors[c->tensor].rank != p->tensors[t].rank)
			return false;
		for (int k = 0; k < p->tensors[t].rank; k++)
			if (!solar_ir_expr_equal(rd->args[k], c->index[k]))
				return false;
		/* the other reads must be inputs */
		if (!reads_only_inputs_but(p, c->value, t))
			return false;
	}
	return true;
}

/* Precondition of the cache-aware segment rule in the fused program: every value read is a
 * program input and the result is a program output, or a tmp copied to one element for
 * element (docs/bounds.md, "cache-aware"). */
static bool segment_eligible(const solar_program *p, const solar_stmt *s)
{
	solar_role r = p->tensors[s->tensor].role;
	if (!reads_only_inputs(p, s->value))
		return false;
	if (r == SOLAR_ROLE_OUT || r == SOLAR_ROLE_INOUT)
		return true;
	return r == SOLAR_ROLE_TMP && copied_to_output(p, s->tensor);
}

static bool count_eq(solar_count_memo *memo, isl_set *a, isl_val *b)
{
	isl_val *n = a ? solar_count_set_memo(memo, a, NULL) : NULL;
	bool eq = n && b && isl_val_eq(n, b) == isl_bool_true;
	isl_val_free(n);
	return eq;
}

/* Whether the instances of reduction statement i form one chain per element of its target:
 * every instance but the first of an element reads the value the previous instance wrote,
 * with no other write in between.  Exact on the dataflow: the instances whose target read
 * statement i fed number |D| - |elements written| (counted unless the statement is a chain
 * of the dataflow shortcut, which is one by construction). */
static bool one_chain_per_element(solar_count_memo *memo, const solar_model *m, isl_union_map *dep,
				  int i, int target, isl_val *instances)
{
	/* A reduction chain of the dataflow shortcut (model.c) is one by construction: the
	 * element fixes one execution of its loop m, whose points after the first read the
	 * previous one, and nothing else writes the element inside it. */
	if (solar_model_chain_depth(m, i) >= 0)
		return true;
	isl_map *chain = solar_model_fed_by(m, dep, i, target);
	isl_set *links = chain ? isl_map_range(chain) : NULL;
	isl_set *elems = isl_set_apply(isl_set_copy(m->domain[i]),
				       isl_map_copy(m->refs[m->write_ref[i]].access));
	isl_val *n_links = links ? solar_count_set_memo(memo, links, NULL) : NULL;
	isl_val *n_el = elems ? solar_count_set_memo(memo, elems, NULL) : NULL;
	bool ok = false;
	if (n_links && n_el && instances) {
		isl_val *sum = isl_val_add(isl_val_copy(n_links), isl_val_copy(n_el));
		ok = sum && isl_val_eq(sum, instances) == isl_bool_true;
		isl_val_free(sum);
	}
	isl_val_free(n_links);
	isl_val_free(n_el);
	isl_set_free(links);
	isl_set_free(elems);
	return ok;
}

/* Preconditions of rule "complete pairs" on the program (docs/bounds.md, "cache-aware"; the
 * statement's shape is checked in segment.c).  Statement i is a contraction T[o] += X * Y whose
 * operands, casts aside, are reads of two distinct `in` tensors, and the d multiply-adds of
 * each output form one chain: every instance but the first of each output reads the partial
 * sum that the previous instance of this statement wrote, with no other write to T[o] in
 * between (which could restart the sum, or leave part of it dead).  Checked exactly on the
 * dataflow: the instances whose target read this statement fed number |D| - |outputs|.  Then
 * the values that carry an output's partial sum across a segment boundary are its own. */
static bool pairs_eligible(solar_count_memo *memo, const solar_model *m, isl_union_map *dep, int i,
			   bool contraction, isl_val *instances)
{
	const solar_program *p = m->prog;
	const solar_stmt *s = p->stmts[i];
	const solar_expr *v = solar_model_uncast(s->value);
	if (!contraction || !instances || !dep || v->kind != SOLAR_E_BIN ||
	    v->binop != SOLAR_OP_MUL)
		return false;
	const solar_expr *x = solar_model_uncast(v->args[0]), *y = solar_model_uncast(v->args[1]);
	if (x->kind != SOLAR_E_ACCESS || y->kind != SOLAR_E_ACCESS || x->sym == y->sym ||
	    p->tensors[x->sym].role != SOLAR_ROLE_IN || p->tensors[y->sym].role != SOLAR_ROLE_IN)
		return false;
	int target = solar_model_target_ref(m, i);
	return target >= 0 && one_chain_per_element(memo, m, dep, i, target, instances);
}

/* ---- rule "row statistic" ---- */

/* The first read of tensor t in e whose first `n` indices equal idx[0..n); NULL if none. */
static const solar_expr *read_with_prefix(const solar_expr *e, int t, solar_expr *const *idx,
					  int n)
{
	if (e->kind == SOLAR_E_ACCESS && e->sym == t && e->nargs >= n) {
		bool eq = true;
		for (int k = 0; k < n && eq; k++)
			eq = solar_ir_expr_equal(e->args[k], idx[k]);
		if (eq)
			return e;
	}
	for (int i = 0; i < e->nargs; i++) {
		const solar_expr *r = read_with_prefix(e->args[i], t, idx, n);
		if (r)
			return r;
	}
	return NULL;
}

/* Whether every instance of read ref `rd` (n instances) is fed by statement ri, and only by the
 * last instance of one of ri's chains (one that feeds no instance of ri through its target
 * read `target`). */
static bool fed_by_chain_ends(solar_count_memo *memo, const solar_model *m, isl_union_map *dep,
			      int ri, int target, int rd, isl_val *n)
{
	isl_map *to = solar_model_fed_by(m, dep, ri, rd);
	isl_map *chain = solar_model_fed_by(m, dep, ri, target);
	bool ok = to && chain;
	if (ok) {
		isl_set *fed = isl_map_range(isl_map_copy(to));
		ok = count_eq(memo, fed, n);
		isl_set_free(fed);
	}
	if (ok) {
		isl_set *both = isl_set_intersect(isl_map_domain(isl_map_copy(to)),
						  isl_map_domain(isl_map_copy(chain)));
		ok = isl_set_is_empty(both) == isl_bool_true;
		isl_set_free(both);
	}
	isl_map_free(to);
	isl_map_free(chain);
	return ok;
}

/* Whether every read of tensor x in e has its first n indices equal to idx[0..n); counts the
 * reads in *reads. */
static bool reads_rows(const solar_expr *e, int x, solar_expr *const *idx, int n, int *reads)
{
	if (e->kind == SOLAR_E_ACCESS && e->sym == x) {
		if (e->nargs != n + 1)
			return false;
		for (int k = 0; k < n; k++)
			if (!solar_ir_expr_equal(e->args[k], idx[k]))
				return false;
		(*reads)++;
	}
	for (int a = 0; a < e->nargs; a++)
		if (!reads_rows(e->args[a], x, idx, n, reads))
			return false;
	return true;
}

/* Whether statement `ri` is a reduction chain computing the statistic that W's read `wt` of
 * T takes, over row r of X: ri writes T[r..] with += / max= / min= and reads X, always as
 * X[r.., j'] with the same r.. as its store; its instances of each T element form one chain
 * (every instance but the first of an element is fed by the previous one, checked exactly as
 * for rule "complete pairs"); every instance of W's read is fed by the last instance of a chain
 * (one that feeds no other instance of ri), or by a finaliser `T[r..] = g(T[r..])` (an `=`
 * that reads T once, at its store's index) whose every read is so fed: W reads final
 * statistics, never running ones; and the chains read every element of X that W reads
 * (exact image inclusion). */
static bool stat_chain(solar_count_memo *memo, const solar_model *m, isl_union_map *dep, int ri,
		       int wt, int wx, int x, isl_val *w_instances)
{
	const solar_program *p = m->prog;
	const solar_stmt *r = p->stmts[ri];
	int t = m->refs[wt].tensor, rank = p->tensors[t].rank, w = m->refs[wt].stmt;
	int nx = 0;
	if (r->tensor != t || r->op == SOLAR_ASSIGN || p->tensors[x].rank != rank + 1 ||
	    !reads_rows(r->value, x, r->index, rank, &nx) || !nx)
		return false;
	int target = solar_model_target_ref(m, ri);
	if (target < 0)
		return false;
	isl_val *n_r = solar_count_set_memo(memo, m->domain[ri], NULL);
	bool ok = one_chain_per_element(memo, m, dep, ri, target, n_r);
	isl_val_free(n_r);
	if (ok) { /* the chains read every element of X that W reads */
		isl_set *rd = isl_set_empty(isl_set_get_space(m->shape[x]));
		for (int q = 0; q < m->nrefs; q++)
			if (m->refs[q].stmt == ri && !m->refs[q].write && m->refs[q].tensor == x)
				rd = isl_set_union(rd, isl_map_range(isl_map_copy(m->refs[q].access)));
		isl_set *wd = isl_map_range(isl_map_copy(m->refs[wx].access));
		ok = isl_set_is_subset(wd, rd) == isl_bool_true;
		isl_set_free(rd);
		isl_set_free(wd);
	}
	if (!ok)
		return false;
	if (fed_by_chain_ends(memo, m, dep, ri, target, wt, w_instances))
		return true;
	for (int f = 0; f < p->nstmts; f++) { /* a finaliser between the chains and W */
		const solar_stmt *fs = p->stmts[f];
		const solar_expr *fe = NULL;
		if (f == ri || f == w || fs->tensor != t || fs->op != SOLAR_ASSIGN ||
		    count_reads_of(fs->value, t, &fe) != 1 || fe->nargs != rank)
			continue;
		bool same = true;
		for (int k = 0; k < rank && same; k++)
			same = solar_ir_expr_equal(fe->args[k], fs->index[k]);
		int fr = same ? solar_model_read_ref(m, f, fe) : -1;
		if (fr < 0)
			continue;
		isl_map *to_w = solar_model_fed_by(m, dep, f, wt);
		isl_set *fed = to_w ? isl_map_range(to_w) : NULL;
		isl_val *n_f = solar_count_set_memo(memo, m->domain[f], NULL);
		bool fin = fed && count_eq(memo, fed, w_instances) && n_f &&
			   fed_by_chain_ends(memo, m, dep, ri, target, fr, n_f);
		isl_set_free(fed);
		isl_val_free(n_f);
		if (fin)
			return true;
	}
	return false;
}

/* Rule "row statistic" (docs/bounds.md, "cache-aware"): statement i is `Y[r.., j] = f(..)`
 * with Y an out/inout tensor that no other statement writes, each element written once
 * (|D| = elements written); f reads X[r.., j] with the store's own index expressions, X an
 * `in` tensor, and T[r..] (the store's first indices), a statistic that stat_chain accepts.
 * The elements W reads of X must form a rectangle rows x L (exact counts).  Sets
 * sw->stat_rows, sw->stat_len and sw->stat_elem_bytes. */
static void row_stat(solar_count_memo *memo, const solar_model *m, isl_union_map *dep, int i,
		     isl_val *instances, solar_stmt_rules *sw)
{
	const solar_program *p = m->prog;
	const solar_stmt *s = p->stmts[i];
	int y = s->tensor, rank = p->tensors[y].rank;
	solar_role role = p->tensors[y].role;
	if (!dep || !instances || s->op != SOLAR_ASSIGN || rank < 1 ||
	    (role != SOLAR_ROLE_OUT && role != SOLAR_ROLE_INOUT))
		return;
	for (int k = 0; k < p->nstmts; k++)
		if (k != i && p->stmts[k]->tensor == y)
			return;
	/* X[r.., j] with the store's index expressions, X an input */
	const solar_expr *xe = NULL;
	for (int t = 0; t < p->ntensors && !xe; t++)
		if (p->tensors[t].role == SOLAR_ROLE_IN && p->tensors[t].rank == rank)
			xe = read_with_prefix(s->value, t, s->index, rank);
	int wx = xe ? solar_model_read_ref(m, i, xe) : -1;
	if (wx < 0)
		return;
	isl_set *xs = isl_map_range(isl_map_copy(m->refs[wx].access));
	isl_val *n_x = xs ? solar_count_set_memo(memo, xs, NULL) : NULL;
	/* written once: as many elements as instances (X's index is the store's) */
	bool ok = n_x && isl_val_eq(n_x, instances) == isl_bool_true;
	/* a statistic T[r..] read by W, produced by a reduction chain over the row */
	bool stat = false;
	for (int q = 0; q < m->nrefs && ok && !stat; q++) {
		const solar_ref *rf = &m->refs[q];
		if (rf->stmt != i || rf->write || !rf->expr || rf->tensor == y ||
		    rf->tensor == xe->sym || p->tensors[rf->tensor].rank != rank - 1)
			continue;
		bool eq = true;
		for (int k = 0; k < rank - 1 && eq; k++)
			eq = solar_ir_expr_equal(rf->expr->args[k], s->index[k]);
		for (int ri = 0; ri < p->nstmts && eq && !stat; ri++)
			stat = ri != i && stat_chain(memo, m, dep, ri, q, wx, xe->sym, instances);
	}
	if (ok && stat) { /* a rectangle: rows x L */
		isl_set *rows = isl_set_project_out(isl_set_copy(xs), isl_dim_set,
						    (unsigned)rank - 1, 1);
		isl_set *cols = isl_set_project_out(isl_set_copy(xs), isl_dim_set, 0,
						    (unsigned)rank - 1);
		isl_val *nr = rows ? solar_count_set_memo(memo, rows, NULL) : NULL;
		isl_val *nc = cols ? solar_count_set_memo(memo, cols, NULL) : NULL;
		isl_val *prod = nr && nc ? isl_val_mul(isl_val_copy(nr), isl_val_copy(nc)) : NULL;
		if (prod && isl_val_eq(prod, n_x) == isl_bool_true) {
			sw->stat_rows = isl_val_get_d(nr);
			sw->stat_len = isl_val_get_d(nc);
			sw->stat_elem_bytes = solar_dtype_bytes(p->tensors[xe->sym].dtype);
		}
		isl_val_free(prod);
		isl_val_free(nr);
		isl_val_free(nc);
		isl_set_free(rows);
		isl_set_free(cols);
	}
	isl_val_free(n_x);
	isl_set_free(xs);
}

void solar_segment_analyse(const solar_analysis *a, solar_count_memo *memo, int i,
			   const solar_stmt_work *sw, solar_stmt_rules *out)
{
	const solar_model *m = a->model;
	const solar_program *p = m->prog;
	const solar_stmt *s = p->stmts[i];
	memset(out, 0, sizeof *out);
	if (!sw->instances)
		return;
	out->instances = isl_val_get_d(sw->instances);
	/* an index that reads data (AIR 1.1): the data choose the elements, so no reuse
	 * argument is made about them and no rule applies (docs/bounds.md, "Indexing with
	 * data") */
	if (solar_ir_stmt_reads_data(p, s))
		return;
	segment_rules(memo, p, s, m->domain[i], segment_eligible(p, s),
		      pairs_eligible(memo, m, a->dep, i, sw->contraction, sw->instances),
		      sw->instances, out);
	row_stat(memo, m, a->dep, i, sw->instances, out);
}

/* Rule "complete pairs": the iterations of a segment are at most 9 S^2 / (4 d) + S^1.5. */
static double pairs_cap(double d, double S) { return 9 * S * S / (4 * d) + S * sqrt(S); }

double solar_segment_bound(const solar_stmt_rules *sw, double S)
{
	if (S <= 0)
		return 0;
	double D = sw->instances;
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
double solar_row_stat_extra(const solar_stmt_rules *sw, double S)
{
	if (sw->stat_rows <= 0 || S < 0 || sw->stat_len <= S)
		return 0;
	return sw->stat_rows * (sw->stat_len - S);
}
