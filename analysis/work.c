/* work.c - exact operation and data counting (docs/bounds.md, "Counting").
 *
 * Operations: a per-instance mix read off the statement's expression tree (rule "ops per
 * instance": constants folded, common subexpressions once), multiplied by the exact instance
 * count of the statement's domain; work on `in` tensors alone charged once per distinct value
 * it can take (hoisting); and the combines of a reduction counted on the dataflow (rule
 * "identity combine": none where the running value is an `=`-written identity).
 *
 * Data: footprints are the exact counts of unions of access images (never hulls).  Traffic of
 * a scope (one kernel, or the whole program) comes from exact dataflow: a value read in the
 * scope must be loaded unless its producing write is in the scope (rule "loads"); a value
 * written in the scope must be stored if some read outside the scope, or the final read of
 * an out/inout tensor, takes it from this write (rule "stores").
 */
#include "work.h"

#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "count.h"
#include "data_index.h"
#include "model.h"
#include "../diag/alloc.h"

solar_count *solar_tensor_data_get(const solar_tensor_data *td, solar_data_field f)
{
	return f == SOLAR_DATA_READ	? td->read
	       : f == SOLAR_DATA_WRITTEN ? td->written
	       : f == SOLAR_DATA_LOAD	? td->load
					: td->store;
}

/* ---- operations per instance ---- */

static int special_fn(solar_fn f)
{
	switch (f) {
	case SOLAR_FN_EXP:
	case SOLAR_FN_LOG:
	case SOLAR_FN_SQRT:
	case SOLAR_FN_RSQRT:
	case SOLAR_FN_TANH:
	case SOLAR_FN_ERF:
	case SOLAR_FN_SIGMOID:
	case SOLAR_FN_POW:
	case SOLAR_FN_SIN:
	case SOLAR_FN_COS:
		return 1;
	default:
		return 0;
	}
}

/* The precision class SIMT arithmetic on this dtype runs at. */
static solar_prec simt_prec(solar_dtype t)
{
	switch (t) {
	case SOLAR_DT_F64:
		return SOLAR_PREC_F64;
	case SOLAR_DT_F32:
		return SOLAR_PREC_F32;
	case SOLAR_DT_BF16:
		return SOLAR_PREC_BF16;
	case SOLAR_DT_F16:
	case SOLAR_DT_F8E4M3:
	case SOLAR_DT_F8E5M2:
		return SOLAR_PREC_F16;
	case SOLAR_DT_I64:
		return SOLAR_PREC_I64;
	default:
		return SOLAR_PREC_I32;
	}
}

/* Rank of a dtype by precision, to pick the narrowest operand of a contraction. */
static int dtype_width(solar_dtype t)
{
	return solar_dtype_bytes(t) * 2 + (t == SOLAR_DT_BF16 || t == SOLAR_DT_F8E5M2);
}

/* The dtype an operand expression is computed in: the narrowest tensor read or cast that
 * determines it; -1 for expressions with no tensor (literals, params). */
static int expr_dtype(const solar_program *p, const solar_expr *e)
{
	switch (e->kind) {
	case SOLAR_E_ACCESS:
		return (int)p->tensors[e->sym].dtype;
	case SOLAR_E_CAST:
		return (int)e->dtype;
	default: {
		int best = -1;
		for (int i = 0; i < e->nargs; i++) {
			int t = expr_dtype(p, e->args[i]);
			if (t >= 0 && (best < 0 || dtype_width(t) > dtype_width(best)))
				best = t;
		}
		return best;
	}
	}
}

static bool has_access(const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (has_access(e->args[i]))
			return true;
	return false;
}

/* Whether an operand reads a tensor and is reused across the output: some iterator of the
 * output index does not appear in it (A[i, k] is reused along j in C[i, j]).  A matrix unit
 * needs reuse on both sides; a product whose operand changes with every output element (a
 * dot product, a GEMV, x * x) is vector work and bandwidth-bound. */
/* Whether e uses iterator `iter` outside the data positions of its reads (AIR 1.1): the element
 * W[route[t], f, d] is the same for every t the data send to one expert, so t does not make
 * the operand change (a grouped GEMM of routed tokens reuses each expert's weights). */
static bool uses_iter_affinely(const solar_expr *e, int iter)
{
	if (e->kind == SOLAR_E_ITER)
		return e->sym == iter;
	for (int i = 0; i < e->nargs; i++) {
		if (e->kind == SOLAR_E_ACCESS && solar_ir_index_reads_data(e->args[i]))
			continue;
		if (uses_iter_affinely(e->args[i], iter))
			return true;
	}
	return false;
}

static bool reuses(const solar_program *p, const solar_stmt *s, const solar_expr *operand)
{
	if (!has_access(operand))
		return false;
	const solar_tensor *out = &p->tensors[s->tensor];
	for (int k = 0; k < s->depth; k++) {
		bool in_out = false;
		for (int j = 0; j < out->rank && !in_out; j++)
			in_out = solar_ir_expr_uses_iter(s->index[j], s->loops[k]);
		if (in_out && !uses_iter_affinely(operand, s->loops[k]))
			return true;
	}
	return false;
}

/* Tensor-unit precision for a contraction whose narrowest operand has dtype t, and the unit
 * products each multiply-accumulate takes (*products: 3 for tf32x3, whose f32-grade result is
 * big*big + big*small + small*big of the operands split into two TF32 halves; else 1). */
static solar_prec tensor_prec(solar_dtype t, solar_math math, bool *on_tensor, int *products)
{
	*on_tensor = true;
	*products = 1;
	switch (t) {
	case SOLAR_DT_F64:
		return SOLAR_PREC_F64;
	case SOLAR_DT_F32:
		if (math == SOLAR_MATH_TF32 || math == SOLAR_MATH_TF32X3) {
			*products = math == SOLAR_MATH_TF32X3 ? 3 : 1;
			return SOLAR_PREC_TF32;
		}
		*on_tensor = false;
		return SOLAR_PREC_F32;
	case SOLAR_DT_BF16:
		return SOLAR_PREC_BF16;
	case SOLAR_DT_F16:
		return SOLAR_PREC_F16;
	case SOLAR_DT_F8E4M3:
	case SOLAR_DT_F8E5M2:
		return SOLAR_PREC_F8;
	case SOLAR_DT_I8:
	case SOLAR_DT_U8:
		return SOLAR_PREC_I8;
	default:
		*on_tensor = false;
		return simt_prec(t);
	}
}

/* Rule "ops per instance", read off a statement's value expression in two passes.  The first
 * records, per node in pre-order (node i's first child is node i + 1, each next child follows
 * its elder sibling's subtree), what the counting needs: a hash that is equal for expressions
 * that compute the same value, the size of the subtree, the iterators it uses outside indices,
 * whether it reads a tensor and whether it reads only `in` tensors.  The second charges each
 * node that needs an instruction, once:
 *   - folding: a subtree that reads no tensor (literals, consts, params, iterators) is 0;
 *   - merged constants: in a chain of + and - (or of * and of / by a free operand) the free
 *     operands merge into one (x * a * y * b is x * y * (a * b): 2 multiplies);
 *   - common subexpressions: a subtree that computes the same value as one already counted in
 *     this instance (same operators, same reads at the same indices) is 0;
 *   - hoisting: a subtree has one value per distinct key, the elements it reads, the iterators
 *     it uses outside indices and, for each tensor it reads that a statement of the same
 *     kernel writes, the loops enclosing both (fixed_loops: within one iteration of those the
 *     elements keep their values), so its ops are charged once per key (a group; counted on
 *     the polyhedral model), not per instance.  A read of `in` tensors or of tensors that only
 *     other kernels write adds no loop; a read of the statement's own target adds them all. */

enum { CHAIN_ADD, CHAIN_MUL };

typedef struct {
	uint64_t hash;  /* equal for expressions that compute the same value */
	int size;       /* nodes in the subtree */
	uint64_t direct; /* bit k: it uses loop k's iterator outside an index */
	bool reads;     /* it reads a tensor (otherwise it is free: rule "folding") */
	bool pure;      /* it may be hoisted (every read is fixed over its key: fixed_loops) */
	bool chain[2];  /* a CHAIN_ADD / CHAIN_MUL node with a free operand in its chain */
	int nreads;     /* tensor reads in the subtree */
} node_info;

/* A subtree with more reads than this is charged per instance, not per key: comparing read sets
 * grows with their product, and hostile input must not make counting quadratic. */
#define HOIST_MAX_READS 32

typedef struct {
	const solar_program *p;
	const solar_stmt *s;
	solar_prec prec;
	const solar_expr **node; /* pre-order */
	node_info *info;
	int n;
	int *seen; /* open-addressing table of counted nodes (index + 1; 0: empty) */
	int seen_cap;
	solar_op_group *groups; /* groups[0]: per instance; the others per key */
	int *group_node;        /* per group: the node whose key it has */
	int ngroups, cap_groups;
} op_count;

static uint64_t mix64(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

static bool commutative(const solar_expr *e)
{
	if (e->kind == SOLAR_E_BIN)
		return e->binop == SOLAR_OP_ADD || e->binop == SOLAR_OP_MUL ||
		       e->binop == SOLAR_OP_EQ || e->binop == SOLAR_OP_NE ||
		       e->binop == SOLAR_OP_AND || e->binop == SOLAR_OP_OR;
	return e->kind == SOLAR_E_CALL && e->nargs == 2 &&
	       (e->fn == SOLAR_FN_MAX || e->fn == SOLAR_FN_MIN);
}

static uint64_t payload(const solar_expr *e)
{
	switch (e->kind) {
	case SOLAR_E_INT:
		return (uint64_t)e->ival;
	case SOLAR_E_FLOAT: {
		double f = e->fval == 0 ? 0.0 : e->fval; /* -0.0 == 0.0 */
		uint64_t u;
		memcpy(&u, &f, sizeof u);
		return u;
	}
	case SOLAR_E_PARAM:
	case SOLAR_E_CONST:
	case SOLAR_E_ITER:
	case SOLAR_E_ACCESS:
		return (uint64_t)e->sym;
	case SOLAR_E_BIN:
		return (uint64_t)e->binop;
	case SOLAR_E_CALL:
		return (uint64_t)e->fn;
	case SOLAR_E_CAST:
		return (uint64_t)e->dtype;
	default:
		return 0;
	}
}

static int subtree_nodes(const solar_expr *e)
{
	int n = 1;
	for (int i = 0; i < e->nargs; i++)
		n += subtree_nodes(e->args[i]);
	return n;
}

/* The chain class of node i (CHAIN_ADD, CHAIN_MUL), or -1. */
static int chain_class(const op_count *c, int i)
{
	const solar_expr *e = c->node[i];
	if (e->kind != SOLAR_E_BIN)
		return -1;
	if (e->binop == SOLAR_OP_ADD || e->binop == SOLAR_OP_SUB)
		return CHAIN_ADD;
	if (e->binop == SOLAR_OP_MUL)
		return CHAIN_MUL;
	if (e->binop == SOLAR_OP_DIV && !c->info[i + 1 + c->info[i + 1].size].reads)
		return CHAIN_MUL; /* x / a is x * (1 / a) */
	return -1;
}

/* Node i with unary minuses skipped (they are free and move through a chain). */
static int unneg(const op_count *c, int i)
{
	while (c->node[i]->kind == SOLAR_E_NEG)
		i++;
	return i;
}

/* Whether operand node i of a chain node of class cls is free or holds a free operand in the
 * chain below it.  In a chain with f > 0 free operands, the nodes both of whose sides do are
 * exactly f - 1: charging them 0 leaves one op per non-free operand, as after merging the free
 * ones into one constant. */
static bool free_side(const op_count *c, int i, int cls)
{
	return !c->info[i].reads || c->info[unneg(c, i)].chain[cls];
}

/* The loops of statement c->s whose iterators a hoisting key must include for a read of
 * tensor t (rule "hoisting"): for each statement w of the same kernel that writes t, the loops
 * that enclose both w and c->s.  Within one iteration of those loops, w's instances run all
 * before or all after c->s's (they lie in different subtrees of the loop body, or w is c->s
 * and then every loop is common), so t's elements keep their values over the instances of
 * c->s that share the key; a tensor no statement of the kernel writes (an `in` tensor, or one
 * written by other kernels only) is fixed for the whole kernel. */
static uint64_t fixed_loops(const op_count *c, int t)
{
	uint64_t bits = 0;
	const solar_stmt *s = c->s;
	const solar_kernel *k = &c->p->kernels[s->kernel];
	for (int j = k->first_stmt; j < k->first_stmt + k->nstmts; j++) {
		const solar_stmt *w = c->p->stmts[j];
		if (w->tensor != t)
			continue;
		int common = 0;
		while (common < s->depth && common < w->depth && w->loops[common] == s->loops[common])
			common++;
		bits |= common >= 64 ? ~0ULL : (1ULL << common) - 1;
	}
	return bits;
}

/* Pass 1: fills the node table for e and returns e's index. */
static int fill(op_count *c, const solar_expr *e)
{
	int me = c->n++;
	c->node[me] = e;
	node_info ni = {.size = 1, .pure = true};
	ni.hash = mix64((uint64_t)e->kind + 1, payload(e));
	if (e->kind == SOLAR_E_ACCESS) {
		ni.reads = true;
		ni.nreads = 1;
		ni.direct = fixed_loops(c, e->sym); /* the key's loops for this read */
	} else if (e->kind == SOLAR_E_ITER) {
		for (int k = 0; k < c->s->depth; k++)
			if (c->s->loops[k] == e->sym)
				ni.direct = 1ULL << k;
	}
	uint64_t sum = 0;
	for (int i = 0; i < e->nargs; i++) {
		int ci = fill(c, e->args[i]);
		const node_info *ch = &c->info[ci];
		ni.size += ch->size;
		if (e->kind != SOLAR_E_ACCESS)
			ni.direct |= ch->direct;
		ni.reads |= ch->reads;
		ni.nreads += ch->nreads;
		ni.pure &= ch->pure;
		sum += ch->hash;
		ni.hash = mix64(ni.hash, ch->hash + (uint64_t)i);
	}
	if (commutative(e))
		ni.hash = mix64(mix64((uint64_t)e->kind + 1, payload(e)), sum);
	c->info[me] = ni;
	int cls = chain_class(c, me);
	if (cls >= 0) {
		int a = me + 1, b = a + c->info[a].size;
		c->info[me].chain[cls] = free_side(c, a, cls) || free_side(c, b, cls);
	}
	return me;
}

/* Whether nodes i and j compute the same value: the same operators and reads at the same
 * indices, float literals by value, commutative operands in either order. */
static bool same_value(const op_count *c, int i, int j)
{
	const node_info *x = &c->info[i], *y = &c->info[j];
	const solar_expr *a = c->node[i], *b = c->node[j];
	if (x->hash != y->hash || x->size != y->size || a->kind != b->kind ||
	    a->nargs != b->nargs || payload(a) != payload(b))
		return false;
	if (commutative(a)) {
		int a0 = i + 1, a1 = a0 + c->info[a0].size, b0 = j + 1, b1 = b0 + c->info[b0].size;
		return (same_value(c, a0, b0) && same_value(c, a1, b1)) ||
		       (same_value(c, a0, b1) && same_value(c, a1, b0));
	}
	for (int k = 0, ci = i + 1, cj = j + 1; k < a->nargs; k++) {
		if (!same_value(c, ci, cj))
			return false;
		ci += c->info[ci].size;
		cj += c->info[cj].size;
	}
	return true;
}

/* Whether a node computing the same value as node i was counted; if not, records node i. */
static bool seen_before(op_count *c, int i)
{
	size_t mask = (size_t)c->seen_cap - 1, h = (size_t)c->info[i].hash & mask;
	for (; c->seen[h]; h = (h + 1) & mask)
		if (same_value(c, c->seen[h] - 1, i))
			return true;
	c->seen[h] = i + 1;
	return false;
}

/* Whether every read in subtree i computes the same value as a read in subtree j. */
static bool reads_within(const op_count *c, int i, int j)
{
	for (int x = i; x < i + c->info[i].size; x++) {
		if (c->node[x]->kind != SOLAR_E_ACCESS)
			continue;
		bool found = false;
		for (int y = j; y < j + c->info[j].size && !found; y++)
			found = c->node[y]->kind == SOLAR_E_ACCESS && same_value(c, x, y);
		if (!found)
			return false;
	}
	return true;
}

/* Charges node i: per instance, or when it reads only `in` tensors once per key (its reads
 * and the iterators it uses outside indices), in the group of nodes with that key. */
static void charge(op_count *c, int i, solar_unit u, solar_prec q, int ops)
{
	const node_info *ni = &c->info[i];
	int g = 0;
	if (ni->pure && ni->nreads <= HOIST_MAX_READS) {
		for (g = 1; g < c->ngroups; g++) {
			int j = c->group_node[g];
			if (c->info[j].direct == ni->direct && reads_within(c, i, j) &&
			    reads_within(c, j, i))
				break;
		}
		if (g == c->ngroups) {
			if (c->ngroups == c->cap_groups) {
				c->cap_groups *= 2;
				c->groups = solar_xrealloc(c->groups, (size_t)c->cap_groups * sizeof *c->groups);
				c->group_node = solar_xrealloc(c->group_node,
							(size_t)c->cap_groups * sizeof *c->group_node);
			}
			memset(&c->groups[g], 0, sizeof c->groups[g]);
			c->groups[g].key = c->node[i];
			c->groups[g].iters = ni->direct;
			c->group_node[g] = i;
			c->ngroups++;
		}
	}
	c->groups[g].mix.n[u][q] += ops;
}

/* Pass 2: + - * / comparisons and/or: 1; max/min of n: n-1; special functions: 1 on the SFU;
 * unary minus, abs, not, select, casts, literals, reads: 0; each node at most once. */
static void count_node(op_count *c, int i)
{
	const solar_expr *e = c->node[i];
	const node_info *ni = &c->info[i];
	if (!ni->reads || e->kind == SOLAR_E_ACCESS || seen_before(c, i))
		return; /* index arithmetic is address computation, not work */
	for (int k = 0, ci = i + 1; k < e->nargs; k++, ci += c->info[ci].size)
		count_node(c, ci);
	int cls = chain_class(c, i);
	switch (e->kind) {
	case SOLAR_E_BIN:
		if (cls >= 0) {
			int a = i + 1, b = a + c->info[a].size;
			if (free_side(c, a, cls) && free_side(c, b, cls))
				return; /* the free operands of its two sides merge into one */
		}
		charge(c, i, SOLAR_UNIT_SIMT, c->prec, 1);
		break;
	case SOLAR_E_CALL:
		if (special_fn(e->fn)) {
			charge(c, i, SOLAR_UNIT_SFU, SOLAR_PREC_F32, 1);
		} else if (e->fn == SOLAR_FN_MAX || e->fn == SOLAR_FN_MIN) {
			int varying = 0, free_args = 0;
			for (int k = 0, ci = i + 1; k < e->nargs; k++, ci += c->info[ci].size)
				c->info[ci].reads ? varying++ : free_args++;
			charge(c, i, SOLAR_UNIT_SIMT, c->prec, varying + (free_args > 0) - 1);
		}
		break;
	default:
		break;
	}
}

/* The op groups of a statement (groups[0]: ops per instance; the others: ops per key, see
 * above) in *groups (malloc'd, the caller frees it); returns their number.  The combine of a
 * reduction is not in them (rule "identity combine", counted on the dataflow). */
static int stmt_groups(const solar_program *p, const solar_stmt *s, solar_math math,
		       bool *contraction, int *reduction_dims, bool *f32_mma,
		       solar_op_group **groups)
{
	const solar_tensor *out = &p->tensors[s->tensor];
	int red = 0;
	for (int k = 0; k < s->depth; k++) {
		bool used = false;
		for (int j = 0; j < out->rank && !used; j++)
			used = solar_ir_expr_uses_iter(s->index[j], s->loops[k]);
		red += !used;
	}
	*reduction_dims = red;
	*contraction = false;
	*f32_mma = false;
	op_count c = {.p = p, .s = s, .prec = simt_prec(out->dtype), .ngroups = 1, .cap_groups = 4};
	c.groups = solar_xcalloc((size_t)c.cap_groups, sizeof *c.groups);
	c.group_node = solar_xcalloc((size_t)c.cap_groups, sizeof *c.group_node);
	int n = subtree_nodes(s->value);
	c.node = solar_xmalloc((size_t)n * sizeof *c.node);
	c.info = solar_xcalloc((size_t)n, sizeof *c.info);
	for (c.seen_cap = 16; c.seen_cap < 2 * n; c.seen_cap *= 2)
		;
	c.seen = solar_xcalloc((size_t)c.seen_cap, sizeof *c.seen);
	fill(&c, s->value);
	int vi = 0;
	const solar_expr *v = s->value;
	while (v->kind == SOLAR_E_CAST) {
		v = v->args[0];
		vi++;
	}
	/* Rule "contraction": C[..] += X * Y with a reduction dimension, X and Y reading
	 * tensors: one multiply-accumulate (2 ops) on the tensor unit at the narrowest operand
	 * precision where the unit supports it, else on SIMT. */
	if (s->op == SOLAR_ADD_TO && red > 0 && v->kind == SOLAR_E_BIN &&
	    v->binop == SOLAR_OP_MUL && reuses(p, s, v->args[0]) && reuses(p, s, v->args[1])) {
		int ta = expr_dtype(p, v->args[0]), tb = expr_dtype(p, v->args[1]);
		solar_dtype t = (solar_dtype)(dtype_width(ta) <= dtype_width(tb) ? ta : tb);
		bool on_tensor;
		int products;
		solar_prec tp = tensor_prec(t, math, &on_tensor, &products);
		*contraction = true;
		*f32_mma = !on_tensor && tp == SOLAR_PREC_F32;
		c.groups[0].mix.n[on_tensor ? SOLAR_UNIT_TENSOR : SOLAR_UNIT_SIMT][tp] += 2 * products;
		count_node(&c, vi + 1);
		count_node(&c, vi + 1 + c.info[vi + 1].size);
	} else {
		count_node(&c, 0);
	}
	free(c.node);
	free(c.info);
	free(c.seen);
	free(c.group_node);
	*groups = c.groups;
	return c.ngroups;
}

solar_op_mix solar_stmt_op_mix(const solar_program *p, const solar_stmt *s, solar_math math,
			       bool *contraction, int *reduction_dims)
{
	solar_op_group *g;
	bool f32_mma;
	stmt_groups(p, s, math, contraction, reduction_dims, &f32_mma, &g);
	solar_op_mix mix = g[0].mix;
	free(g);
	return mix;
}

/* ---- helpers on exact values ---- */

static void val_add(isl_val **acc, isl_val *v)
{
	if (!v)
		return;
	*acc = *acc ? isl_val_add(*acc, v) : v;
}

static void ops_add(solar_ops *o, const solar_ops *src)
{
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (src->v[u][q])
				val_add(&o->v[u][q], isl_val_copy(src->v[u][q]));
	if (src->f32_mma)
		val_add(&o->f32_mma, isl_val_copy(src->f32_mma));
}

static void ops_free(solar_ops *o)
{
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			o->v[u][q] = isl_val_free(o->v[u][q]);
	o->f32_mma = isl_val_free(o->f32_mma);
}

isl_val *solar_ops_sum(isl_ctx *ctx, const solar_ops *o)
{
	isl_val *s = isl_val_zero(ctx);
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (o->v[u][q])
				s = isl_val_add(s, isl_val_copy(o->v[u][q]));
	return s;
}

isl_val *solar_scope_bytes(const solar_work *w, const solar_scope_work *s, solar_data_field field)
{
	isl_val *sum = isl_val_zero(w->ctx);
	for (int i = 0; i < s->ntensors; i++) {
		const solar_tensor_data *td = &s->tensor[i];
		isl_val *v = solar_tensor_data_get(td, field);
		/* rule "random tensors": a rand tensor's draws are made on the chip */
		if (v && w->prog->tensors[td->tensor].role != SOLAR_ROLE_RAND)
			sum = isl_val_add(sum, isl_val_mul_ui(isl_val_copy(v),
				(unsigned long)solar_dtype_bytes(w->prog->tensors[td->tensor].dtype)));
	}
	return sum;
}

/* ---- data ---- */

/* Counts a set exactly, reporting failure.  Takes the set. */
static isl_val *count(solar_count_memo *memo, isl_set *set, solar_diag *d, int *failed)
{
	const char *why = NULL;
	isl_val *v = set ? solar_count_set_memo(memo, set, &why) : NULL;
	if (!v && !*failed) {
		solar_diag_error_nowhere(d, "exact counting failed: %s",
					 why ? why : "ISL error");
		*failed = 1;
	}
	isl_set_free(set);
	return v;
}

/* Kernel of an ISL tuple name: S<stmt>, R<ref>, or E<tensor> (after every kernel). */
static int tuple_kernel(const solar_model *m, const char *name)
{
	int k = atoi(name + 1);
	if (name[0] == 'S')
		return m->prog->stmts[k]->kernel;
	if (name[0] == 'R')
		return m->prog->stmts[m->refs[k].stmt]->kernel;
	return m->prog->nkernels;
}

/* The dependences sorted by the kernels of their ends, in one pass over the relation:
 * inside[k] has both ends in kernel k, leaving[k] its source in k and its sink after it (the
 * END reader included), entering[k] its sink in k and its source before it, to_end its sink
 * in the END reader.  Each kernel then takes its own (filtering the whole relation once per
 * kernel was work K x |dep|).  NULL entries are empty. */
typedef struct {
	const solar_model *m;
	isl_union_map **inside, **leaving, **entering;
	isl_union_map *to_end;
} dep_buckets;

static void bucket_add(isl_union_map **u, isl_map *map)
{
	*u = *u ? isl_union_map_add_map(*u, map) : isl_union_map_from_map(map);
}

static isl_stat bucket_dep(isl_map *map, void *user)
{
	dep_buckets *b = user;
	int src = tuple_kernel(b->m, isl_map_get_tuple_name(map, isl_dim_in));
	int dst = tuple_kernel(b->m, isl_map_get_tuple_name(map, isl_dim_out));
	if (dst == b->m->prog->nkernels)
		bucket_add(&b->to_end, isl_map_copy(map));
	else if (src != dst)
		bucket_add(&b->entering[dst], isl_map_copy(map));
	bucket_add(src == dst ? &b->inside[src] : &b->leaving[src], map);
	return isl_stat_ok;
}

static void buckets_free(const solar_program *p, dep_buckets *b)
{
	for (int k = 0; k < p->nkernels; k++) {
		isl_union_map_free(b->inside[k]);
		isl_union_map_free(b->leaving[k]);
		isl_union_map_free(b->entering[k]);
	}
	free(b->inside);
	free(b->leaving);
	free(b->entering);
	isl_union_map_free(b->to_end);
}

/* The first of statement s's refs (its reads, then its write, are consecutive). */
static int first_ref(const solar_model *m, int s)
{
	return s ? m->write_ref[s - 1] + 1 : 0;
}

/* Elements of one tensor touched through the refs refs[0..n) that are reads (or writes), by
 * the given instances (all of them when NULL). */
static isl_set *elements(const solar_model *m, int t, const int *refs, int n, bool write,
			 isl_union_set *instances)
{
	isl_set *u = isl_set_empty(isl_set_get_space(m->shape[t]));
	for (int i = 0; i < n; i++) {
		const solar_ref *ref = &m->refs[refs[i]];
		if (ref->write != write || ref->data)
			continue;
		isl_map *acc = isl_map_copy(ref->access);
		if (instances) {
			isl_set *dom = isl_union_set_extract_set(
				instances, isl_space_domain(isl_map_get_space(acc)));
			acc = isl_map_intersect_domain(acc, dom);
		}
		u = isl_set_union(u, isl_map_range(acc));
	}
	return isl_set_coalesce(isl_set_intersect(u, isl_set_copy(m->shape[t])));
}

/* Appends ISL's printed form of a set (or map) to a recipe (count.h). */
static void recipe_set(solar_buf *b, isl_set *set)
{
	char *t = isl_set_to_str(set);
	solar_buf_printf(b, "%s|", t ? t : "?");
	free(t);
}

/* The count of elements(m, t, refs, n, write, instances), through the memo: the recipe is the
 * tensor's extents (its shape) and, per ref taken, its access's text id (model.h: equal ids,
 * equal accesses up to names) and the instances taken of it. */
static isl_val *elements_count(const solar_model *m, solar_count_memo *memo, int t, const int *refs,
			       int n, bool write, isl_union_set *instances, solar_diag *d,
			       int *failed)
{
	solar_buf b = {0};
	const solar_tensor *ten = &m->prog->tensors[t];
	solar_buf_printf(&b, "elements|%d|", write);
	for (int i = 0; i < ten->rank; i++) /* the shape: its extents (model.c, build_shapes) */
		solar_buf_printf(&b, "%lld,", (long long)ten->extent[i]);
	for (int i = 0; i < n; i++) {
		const solar_ref *ref = &m->refs[refs[i]];
		if (ref->write != write || ref->data)
			continue;
		solar_buf_printf(&b, "%d|", ref->text_id);
		if (instances) {
			isl_set *dom = isl_union_set_extract_set(
			    instances, isl_space_domain(isl_map_get_space(ref->access)));
			recipe_set(&b, dom);
			isl_set_free(dom);
		}
	}
	isl_val *v = solar_count_memo_get(memo, b.s);
	if (!v) {
		v = count(memo, elements(m, t, refs, n, write, instances), d, failed);
		solar_count_memo_put(memo, b.s, v);
	}
	solar_buf_free(&b);
	return v;
}

static const solar_model *sort_model; /* for by_tensor: qsort has no user argument */

/* Orders ref indices by tensor, then by position in the program. */
static int by_tensor(const void *a, const void *b)
{
	int ra = *(const int *)a, rb = *(const int *)b;
	int ta = sort_model->refs[ra].tensor, tb = sort_model->refs[rb].tensor;
	return ta != tb ? (ta > tb) - (ta < tb) : (ra > rb) - (ra < rb);
}

/* Marks in fed[r - r0] the read refs r0.. that are sinks of some dependence in u. */
typedef struct {
	int r0, r1;
	bool *fed;
} fed_refs;

static isl_stat mark_fed(isl_map *map, void *user)
{
	fed_refs *f = user;
	const char *name = isl_map_get_tuple_name(map, isl_dim_out);
	if (name && name[0] == 'R') {
		int r = atoi(name + 1);
		if (r >= f->r0 && r <= f->r1)
			f->fed[r - f->r0] = true;
	}
	isl_map_free(map);
	return isl_stat_ok;
}

/* Fills the data of one scope: kernel k, or the whole program when k < 0.  Only the tensors
 * the scope's refs name are counted: the others have empty footprints.  Where the sets are
 * equal by construction, a count is copied instead of repeated: a tensor none of whose reads
 * in the scope is fed by a write in it (of a kernel; of the program: a tensor nothing writes,
 * whose reads all have no source) loads its whole read footprint; a tensor the scope does not
 * write stores nothing; one it does not read loads nothing. */
static void scope_data(const solar_model *m, solar_count_memo *memo, const dep_buckets *b,
		       isl_union_set *nosrc, int k, solar_scope_work *s, bool *assumed, solar_diag *d,
		       int *failed)
{
	const solar_program *p = m->prog;
	int first = k < 0 ? 0 : p->kernels[k].first_stmt;
	int n = k < 0 ? p->nstmts : p->kernels[k].nstmts;
	int r0 = n ? first_ref(m, first) : 0, r1 = n ? m->write_ref[first + n - 1] + 1 : 0;
	/* Loaded: read instances in the scope minus those fed by a write in the scope. */
	isl_union_set *loaded, *stored;
	if (k < 0) {
		/* Rule "compulsory traffic": program inputs are read once (reads with no
		 * producer), final values of outputs are written once. */
		loaded = isl_union_set_copy(nosrc);
		stored = b->to_end ? isl_union_map_domain(isl_union_map_copy(b->to_end))
				   : isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
	} else {
		/* Rule "unfused traffic": a kernel loads what it reads but did not produce,
		 * and stores what it produced that is read after it.  Each read instance either
		 * has no source (no_source) or one source (a dependence), so the reads in k that
		 * no write in k feeds are those without a source plus those fed from an earlier
		 * kernel: a union, where subtracting the fed reads from all reads made ISL
		 * prove the complement of the dataflow's pieces (20 M instructions of 210 M on
		 * conv2d_7x7_s2).  The refs of other kernels in no_source are never looked up. */
		loaded = isl_union_set_copy(nosrc);
		if (b->entering[k])
			loaded = isl_union_set_union(
			    loaded, isl_union_map_range(isl_union_map_copy(b->entering[k])));
		stored = b->leaving[k] ? isl_union_map_domain(isl_union_map_copy(b->leaving[k]))
				       : isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
	}
	int nr = r1 - r0;
	fed_refs fr = {r0, r1 - 1, solar_xcalloc((size_t)nr + 1, sizeof *fr.fed)};
	if (k >= 0 && b->inside[k])
		isl_union_map_foreach_map(b->inside[k], mark_fed, &fr);
	/* a chain's read whose links dep omits (solar_model_flow) is fed by them wherever it has
	 * a previous point; marked fed even where it has none, its load is still exact: counted
	 * over `loaded` instead of copied from its reads */
	for (int r = r0; k >= 0 && r < r1; r++)
		fr.fed[r - r0] |= solar_model_links_omitted(m, r);
	bool *written = NULL; /* of the program: per tensor, some statement writes it */
	if (k < 0) {
		written = solar_xcalloc((size_t)p->ntensors + 1, sizeof *written);
		for (int i = 0; i < p->nstmts; i++)
			written[p->stmts[i]->tensor] = true;
	}
	int *order = solar_xmalloc(((size_t)nr + 1) * sizeof *order);
	for (int i = 0; i < nr; i++)
		order[i] = r0 + i;
	sort_model = m;
	qsort(order, (size_t)nr, sizeof *order, by_tensor);
	int groups = 0;
	for (int i = 0; i < nr; i++)
		groups += !i || m->refs[order[i]].tensor != m->refs[order[i - 1]].tensor;
	s->tensor = solar_xcalloc((size_t)groups + 1, sizeof *s->tensor);
	s->ntensors = groups;
	for (int i = 0, g = 0; i < nr; g++) {
		int t = m->refs[order[i]].tensor, j = i;
		while (j < nr && m->refs[order[j]].tensor == t)
			j++;
		solar_tensor_data *td = &s->tensor[g];
		td->tensor = t;
		if (k < 0) /* the whole program: ISL's budget is per tensor, as it is per kernel */
			solar_isl_budget_kernel(m->ctx);
		bool reads = false, writes = false, fed = false;
		for (int q = i; q < j; q++) {
			const solar_ref *ref = &m->refs[order[q]];
			writes |= ref->write;
			reads |= !ref->write;
			fed |= !ref->write && fr.fed[order[q] - r0];
		}
		if (k < 0) /* the reads of a tensor nothing writes have no source */
			fed = reads && written[t];
		td->read =
		    reads ? elements_count(m, memo, t, order + i, j - i, false, NULL, d, failed)
			  : isl_val_zero(m->ctx);
		td->written =
		    writes ? elements_count(m, memo, t, order + i, j - i, true, NULL, d, failed)
			   : isl_val_zero(m->ctx);
		if (p->tensors[t].role == SOLAR_ROLE_RAND) /* rule "random tensors": not loaded */
			td->load = isl_val_zero(m->ctx);
		else if (reads && fed)
			td->load =
			    elements_count(m, memo, t, order + i, j - i, false, loaded, d, failed);
		else
			td->load = td->read ? isl_val_copy(td->read) : NULL;
		td->store =
		    writes ? elements_count(m, memo, t, order + i, j - i, true, stored, d, failed)
			   : isl_val_zero(m->ctx);
		solar_data_index_rules(m, memo, order + i, j - i, k, td, assumed, d, failed);
		i = j;
	}
	free(fr.fed);
	free(written);
	free(order);
	isl_union_set_free(loaded);
	isl_union_set_free(stored);
}

/* Appends the read refs of statement i inside e to *key (a map from the statement's domain). */
static isl_map *key_reads(const solar_model *m, int i, const solar_expr *e, isl_map *key)
{
	if (e->kind == SOLAR_E_ACCESS) {
		int r = solar_model_read_ref(m, i, e);
		if (r < 0)
			return isl_map_free(key);
		isl_map *a = isl_map_set_tuple_name(isl_map_copy(m->refs[r].access), isl_dim_in,
						    isl_set_get_tuple_name(m->domain[i]));
		return isl_map_flat_range_product(key, a);
	}
	for (int k = 0; k < e->nargs && key; k++)
		key = key_reads(m, i, e->args[k], key);
	return key;
}

/* The distinct keys of hoisted group g of statement i over its domain, built and counted:
 * tuples of the elements its reads touch and of the iterators it uses outside indices. */
static isl_val *key_count_built(const solar_model *m, solar_count_memo *memo, int i,
				const solar_op_group *g, solar_diag *d, int *failed)
{
	isl_set *dom = m->domain[i];
	isl_map *key = isl_map_identity(isl_space_map_from_set(isl_set_get_space(dom)));
	for (int k = m->prog->stmts[i]->depth - 1; k >= 0; k--)
		if (!(g->iters >> k & 1))
			key = isl_map_project_out(key, isl_dim_out, (unsigned)k, 1);
	key = key_reads(m, i, g->key, key);
	key = isl_map_intersect_domain(key, isl_set_copy(dom));
	return count(memo, isl_map_range(key), d, failed);
}

/* Appends the text ids of the read refs of statement i inside e, in key_reads' order. */
static void key_recipe(const solar_model *m, int i, const solar_expr *e, solar_buf *b)
{
	if (e->kind == SOLAR_E_ACCESS) {
		int r = solar_model_read_ref(m, i, e);
		solar_buf_printf(b, "%d|", r < 0 ? -1 : m->refs[r].text_id);
		return;
	}
	for (int k = 0; k < e->nargs; k++)
		key_recipe(m, i, e->args[k], b);
}

/* A matrix of key rows, each s->depth loop coefficients, grown as rows are added. */
typedef struct {
	int64_t *c;
	int n, cap, d;
} key_matrix;

/* A new row at the end of k, all zero (kept only when the caller then counts it in k->n). */
static int64_t *key_row(key_matrix *k)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 16;
		k->c = solar_xrealloc(k->c, (size_t)k->cap * (size_t)k->d * sizeof *k->c);
	}
	int64_t *row = k->c + (size_t)k->n * (size_t)k->d;
	memset(row, 0, (size_t)k->d * sizeof *row);
	return row;
}

/* Rows of the key's affine part: one per affine index of a read in e (the reads key_reads
 * appends, in its walk), its loop coefficients appended to k. */
static void key_rows(const solar_model *m, const solar_stmt *s, const solar_expr *e, key_matrix *k)
{
	if (e->kind == SOLAR_E_ACCESS) {
		for (int a = 0; a < e->nargs; a++)
			if (solar_model_index_coefs(m->prog, s, e->args[a], key_row(k)))
				k->n++;
		return;
	}
	for (int a = 0; a < e->nargs; a++)
		key_rows(m, s, e->args[a], k);
}

static int64_t gcd64(int64_t a, int64_t b)
{
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Whether an n x d integer matrix (rows, row-major; clobbered) has rank d, by fraction-free
 * elimination with each row divided by the gcd of its entries; false also when an entry
 * would overflow (the caller then counts instead). */
static bool full_column_rank(int64_t *rows, int n, int d)
{
	int rank = 0;
	for (int c = 0; c < d; c++) {
		int piv = -1;
		for (int r = rank; r < n && piv < 0; r++)
			if (rows[(size_t)r * d + c])
				piv = r;
		if (piv < 0)
			return false;
		int64_t *pr = rows + (size_t)piv * d, *top = rows + (size_t)rank * d;
		for (int k = 0; k < d; k++) {
			int64_t t = pr[k];
			pr[k] = top[k];
			top[k] = t;
		}
		for (int r = rank + 1; r < n; r++) {
			int64_t *row = rows + (size_t)r * d, a = row[c], g = 0;
			if (!a)
				continue;
			for (int k = 0; k < d; k++) {
				__int128 v = (__int128)row[k] * top[c] - (__int128)top[k] * a;
				if (v > INT64_MAX || v < -INT64_MAX)
					return false;
				row[k] = (int64_t)v;
				g = gcd64(g, row[k]);
			}
			for (int k = 0; g > 1 && k < d; k++)
				row[k] /= g;
		}
		rank++;
	}
	return true;
}

/* Whether the key of group g fixes every loop of statement s: the kept iterators and the
 * affine indices of the key's reads, as rows of loop coefficients, have full column rank, so
 * the key is an injective function of the instance (an affine map of full column rank is
 * injective on all of Z^d) and there are as many keys as instances.  A non-affine index
 * only leaves its row out, which can only make the answer no. */
static bool key_fixes_loops(const solar_model *m, const solar_stmt *s, const solar_op_group *g)
{
	if (s->depth == 0)
		return true;
	key_matrix k = {.d = s->depth};
	for (int j = 0; j < k.d && j < 64; j++)
		if (g->iters >> j & 1) {
			key_row(&k)[j] = 1;
			k.n++;
		}
	key_rows(m, s, g->key, &k);
	bool ok = k.n >= k.d && full_column_rank(k.c, k.n, k.d);
	free(k.c);
	return ok;
}

/* key_count_built through the memo: the recipe is the domain, the iterators kept and the
 * reads' accesses, so a statement repeated (every layer of a decoder) builds its keys once.
 * When the key fixes every loop of the statement (key_fixes_loops), there are `instances` keys,
 * with nothing to build or count. */
static isl_val *key_count(const solar_model *m, solar_count_memo *memo, int i,
			  const solar_op_group *g, isl_val *instances, solar_diag *d, int *failed)
{
	if (key_fixes_loops(m, m->prog->stmts[i], g))
		return isl_val_copy(instances);
	solar_buf b = {0};
	solar_buf_printf(&b, "key|%llx|", (unsigned long long)g->iters);
	recipe_set(&b, m->domain[i]);
	key_recipe(m, i, g->key, &b);
	isl_val *v = solar_count_memo_get(memo, b.s);
	if (!v) {
		v = key_count_built(m, memo, i, g, d, failed);
		solar_count_memo_put(memo, b.s, v);
	}
	solar_buf_free(&b);
	return v;
}

/* Whether v, casts aside, is the identity literal of reduction op: 0 for +=, 1 for *=, -inf
 * for max=, inf for min=. */
static bool identity_of(const solar_expr *v, solar_assign_op op)
{
	v = solar_model_uncast(v);
	bool num = v->kind == SOLAR_E_INT || v->kind == SOLAR_E_FLOAT;
	double x = v->kind == SOLAR_E_INT ? (double)v->ival : v->fval;
	switch (op) {
	case SOLAR_ADD_TO:
		return num && x == 0;
	case SOLAR_MUL_TO:
		return num && x == 1;
	case SOLAR_MAX_TO:
		return v->kind == SOLAR_E_NEG && solar_model_uncast(v->args[0])->kind == SOLAR_E_INF;
	case SOLAR_MIN_TO:
		return v->kind == SOLAR_E_INF;
	default:
		return false;
	}
}

/* A scatter's target read (AIR 1.1) has no dataflow: each element it reaches is fed by an
 * identity `=` at most once (its first term), so at most min(instances, the elements the
 * scatter may reach) combines are free; with no identity write of the tensor, none. */
static isl_val *data_free_combines(const solar_model *m, solar_count_memo *memo, int i,
				   isl_val *instances, solar_diag *d, int *failed)
{
	const solar_program *p = m->prog;
	const solar_stmt *s = p->stmts[i];
	bool identity = false;
	for (int j = 0; j < p->nstmts; j++)
		identity |= p->stmts[j]->op == SOLAR_ASSIGN && p->stmts[j]->tensor == s->tensor &&
			    identity_of(p->stmts[j]->value, s->op);
	if (!identity)
		return isl_val_zero(m->ctx);
	isl_set *reach = isl_map_range(solar_model_may_access(m, m->write_ref[i]));
	isl_val *n = count(memo, isl_set_intersect(reach, isl_set_copy(m->shape[s->tensor])), d,
			   failed);
	return n ? isl_val_min(n, isl_val_copy(instances)) : isl_val_zero(m->ctx);
}

/* Rule "identity combine": the combines reduction statement i needs.  Each instance combines
 * its term into the value its target read takes; that combine is free only where the value is
 * the operator's identity written by an `=` (`y = -inf` before `y max= ..`): the instances fed
 * by such a write are not charged.  A run of k terms into an identity needs k - 1 combines,
 * into any other value (another term, an input, a non-identity `=`) k. */
static isl_val *combine_count(const solar_model *m, solar_count_memo *memo, isl_union_map *dep,
			      int i, isl_val *instances, solar_diag *d, int *failed)
{
	const solar_program *p = m->prog;
	const solar_stmt *s = p->stmts[i];
	int target = solar_model_target_ref(m, i);
	if (target < 0)
		return isl_val_zero(m->ctx);
	if (!dep) /* no dataflow (solar_work_stmt_ops): no combine known to be free */
		return isl_val_copy(instances);
	isl_set *fed = isl_set_empty(isl_space_domain(isl_map_get_space(m->refs[target].access)));
	for (int j = 0; j < p->nstmts; j++)
		if (p->stmts[j]->op == SOLAR_ASSIGN && p->stmts[j]->tensor == s->tensor &&
		    identity_of(p->stmts[j]->value, s->op))
			fed = isl_set_union(fed, isl_map_range(solar_model_fed_by(m, dep, j, target)));
	isl_val *free_combines = count(memo, fed, d, failed);
	if (free_combines && m->refs[target].data) /* a scatter's target: data_free_combines */
		free_combines = isl_val_max(free_combines,
					    data_free_combines(m, memo, i, instances, d, failed));
	return free_combines ? isl_val_sub(isl_val_copy(instances), free_combines) : NULL;
}

static void ops_add_mul(solar_ops *o, const solar_op_mix *mix, isl_val *times)
{
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (mix->n[u][q])
				val_add(&o->v[u][q], isl_val_mul_ui(isl_val_copy(times),
								    (unsigned long)mix->n[u][q]));
}

/* The ops of statement i (rule "ops per instance"): its per-instance mix times its instances,
 * each hoisted group times its tuples, and the combines of a reduction. */
static void stmt_ops(const solar_model *m, solar_count_memo *memo, isl_union_map *dep, int i,
		     solar_math math, solar_stmt_work *sw, solar_diag *d, int *failed)
{
	const solar_program *p = m->prog;
	const solar_stmt *s = p->stmts[i];
	solar_op_group *g;
	bool f32_mma;
	int ng = stmt_groups(p, s, math, &sw->contraction, &sw->reduction_dims, &f32_mma, &g);
	sw->mix = g[0].mix;
	if (ng > 1) {
		sw->hoisted = solar_xcalloc((size_t)ng - 1, sizeof *sw->hoisted);
		sw->hoisted_count = solar_xcalloc((size_t)ng - 1, sizeof *sw->hoisted_count);
	}
	for (int k = 1; k < ng && !*failed; k++) {
		isl_val *n = key_count(m, memo, i, &g[k], sw->instances, d, failed);
		if (!n)
			break;
		if (isl_val_eq(n, sw->instances) == isl_bool_true) { /* one key per instance */
			for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
				for (int q = 0; q < SOLAR_PREC_COUNT; q++)
					sw->mix.n[u][q] += g[k].mix.n[u][q];
			isl_val_free(n);
			continue;
		}
		sw->hoisted[sw->nhoisted] = g[k];
		sw->hoisted_count[sw->nhoisted++] = n;
		ops_add_mul(&sw->ops, &g[k].mix, n);
	}
	ops_add_mul(&sw->ops, &sw->mix, sw->instances);
	if (f32_mma) /* rule "f32 emulation": the 2 ops of each strict f32 multiply-accumulate */
		sw->ops.f32_mma = isl_val_mul_ui(isl_val_copy(sw->instances), 2);
	free(g);
	if (s->op != SOLAR_ASSIGN && !sw->contraction && !*failed) {
		sw->combines = combine_count(m, memo, dep, i, sw->instances, d, failed);
		if (sw->combines && !isl_val_is_zero(sw->combines))
			val_add(&sw->ops.v[SOLAR_UNIT_SIMT][simt_prec(p->tensors[s->tensor].dtype)],
				isl_val_copy(sw->combines));
	}
}

solar_work *solar_work_count(const solar_program *p, solar_math math, solar_diag *d)
{
	solar_analysis *a = solar_analysis_new(p, d);
	return a ? solar_work_count_from(a, math, d) : NULL;
}

solar_work *solar_work_check_and_count(const solar_program *p, solar_math math, solar_diag *d)
{
	solar_analysis *a = solar_analysis_new(p, d);
	if (!a)
		return NULL;
	if (solar_analysis_run_checks(a, d)) {
		solar_analysis_free(a);
		return NULL;
	}
	return solar_work_count_from(a, math, d);
}

solar_work *solar_work_count_from(solar_analysis *a, solar_math math, solar_diag *d)
{
	const solar_model *m = a->model;
	const solar_program *p = m->prog;
	solar_work *w = solar_xcalloc(1, sizeof *w);
	w->ctx = a->ctx;
	w->analysis = a;
	w->prog = p;
	w->math_default = math;
	w->memo = solar_count_memo_new();
	w->stmt = solar_xcalloc((size_t)p->nstmts + 1, sizeof *w->stmt);
	w->rules = solar_xcalloc((size_t)p->nstmts + 1, sizeof *w->rules);
	w->kernel = solar_xcalloc((size_t)p->nkernels + 1, sizeof *w->kernel);
	int failed = 0;
	for (int i = 0; i < p->nstmts; i++) {
		const solar_stmt *s = p->stmts[i];
		solar_stmt_work *sw = &w->stmt[i];
		if (!i || s->kernel != p->stmts[i - 1]->kernel) /* ISL's budget is per kernel */
			solar_isl_budget_kernel(w->ctx);
		solar_math km = p->kernels[s->kernel].math;
		if (km == SOLAR_MATH_DEFAULT)
			km = math;
		sw->instances = count(w->memo, isl_set_copy(m->domain[i]), d, &failed);
		if (!sw->instances)
			continue;
		stmt_ops(m, w->memo, a->dep, i, km, sw, d, &failed);
		solar_segment_analyse(a, w->memo, i, sw, &w->rules[i]);
		ops_add(&w->kernel[s->kernel].ops, &sw->ops);
		ops_add(&w->total.ops, &sw->ops);
	}
	w->assumed = solar_xcalloc((size_t)p->nassumes + 1, sizeof *w->assumed);
	dep_buckets b = {m, solar_xcalloc((size_t)p->nkernels + 1, sizeof *b.inside),
			 solar_xcalloc((size_t)p->nkernels + 1, sizeof *b.leaving),
			 solar_xcalloc((size_t)p->nkernels + 1, sizeof *b.entering), NULL};
	isl_union_map_foreach_map(a->dep, bucket_dep, &b);
	for (int k = 0; k < p->nkernels && !failed; k++) {
		solar_isl_budget_kernel(w->ctx);
		scope_data(m, w->memo, &b, a->no_source, k, &w->kernel[k], w->assumed, d, &failed);
	}
	if (!failed)
		scope_data(m, w->memo, &b, a->no_source, -1, &w->total, w->assumed, d, &failed);
	buckets_free(p, &b);
	if (failed) {
		solar_work_free(w);
		return NULL;
	}
	return w;
}

static void stmt_work_free(solar_stmt_work *sw)
{
	isl_val_free(sw->instances);
	isl_val_free(sw->combines);
	for (int k = 0; k < sw->nhoisted; k++)
		isl_val_free(sw->hoisted_count[k]);
	free(sw->hoisted);
	free(sw->hoisted_count);
	ops_free(&sw->ops);
}

int solar_work_stmt_ops(isl_ctx *ctx, const solar_program *p, solar_math math, isl_val **ops,
			solar_diag *d)
{
	solar_model *m = solar_model_build(p, ctx, false, d);
	solar_count_memo *memo = solar_count_memo_new();
	int failed = !m;
	for (int i = 0; i < p->nstmts && !failed; i++) {
		const solar_stmt *s = p->stmts[i];
		if (!i || s->kernel != p->stmts[i - 1]->kernel)
			solar_isl_budget_kernel(ctx);
		solar_math km = p->kernels[s->kernel].math;
		solar_stmt_work sw = {.instances = count(memo, isl_set_copy(m->domain[i]), d,
							  &failed)};
		if (sw.instances)
			stmt_ops(m, memo, NULL, i, km == SOLAR_MATH_DEFAULT ? math : km, &sw, d,
				 &failed);
		ops[i] = failed ? NULL : solar_ops_sum(ctx, &sw.ops);
		stmt_work_free(&sw);
	}
	solar_count_memo_free(memo);
	solar_model_free(m);
	for (int i = 0; failed && i < p->nstmts; i++)
		ops[i] = isl_val_free(ops[i]);
	return failed ? -1 : 0;
}

static void scope_free(solar_scope_work *s)
{
	ops_free(&s->ops);
	if (!s->tensor)
		return;
	for (int i = 0; i < s->ntensors; i++) {
		isl_val_free(s->tensor[i].read);
		isl_val_free(s->tensor[i].written);
		isl_val_free(s->tensor[i].load);
		isl_val_free(s->tensor[i].store);
	}
	free(s->tensor);
}

void solar_work_free(solar_work *w)
{
	if (!w)
		return;
	free(w->assumed);
	const solar_program *p = w->prog;
	for (int i = 0; i < p->nstmts; i++)
		stmt_work_free(&w->stmt[i]);
	for (int k = 0; k < p->nkernels; k++)
		scope_free(&w->kernel[k]);
	scope_free(&w->total);
	solar_count_memo_free(w->memo);
	free(w->stmt);
	free(w->rules);
	free(w->kernel);
	solar_analysis_free(w->analysis);
	free(w);
}
