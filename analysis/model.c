/* model.c - lowering of the IR to ISL: domains, accesses, schedule, dataflow.
 *
 * The lowering writes ISL's own text syntax and lets ISL parse it: affine index and bound
 * expressions map one to one onto ISL's quasi-affine expressions (`floor(e/c)`, `e mod c`,
 * `min`, `max`), and conditions onto constraints joined by and/or/not.  Iterators are named
 * i<id>, params p<index>, so no user name can collide with an ISL keyword.  The text is the key
 * of a parse cache; in the common case (step-1 loops with affine or max/min bounds, `if`s that
 * are conjunctions, affine indices) the set itself is built from affine forms without parsing
 * (affine.c: equal sets, built in a small part of the parse's time), and the rest is parsed.
 *
 * Program order is an ISL schedule tree built from the loop tree: a sequence node for each
 * block (if/else branches are items of the enclosing block, since they add no loop), a band
 * for each loop over its iterator, and within a statement a sequence that puts its reads
 * before its write.  ISL's dataflow analysis is much faster on a tree than on a flat map.
 * Dataflow runs one kernel at a time (flow_kernel), which keeps its cost near linear in the
 * number of kernels.  Before a statement is lowered, the shape guard (shape_ok) bounds the
 * divisions that make ISL's work explode, and ISL's operation budget restarts per kernel.
 */
#include "model.h"

#include <isl/aff.h>
#include <isl/flow.h>
#include <isl/options.h>
#include <isl/schedule.h>
#include <isl/space.h>
#include <isl/val.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "../diag/alloc.h"
#include "affine.h"

void solar_buf_printf(solar_buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->n;
		va_start(ap, fmt);
		int k = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
		va_end(ap);
		if (k < 0)
			return;
		if ((size_t)k < room) {
			b->n += (size_t)k;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 256;
		while (cap - b->n <= (size_t)k)
			cap *= 2;
		char *s = solar_xrealloc(b->s, cap);
		b->s = s;
		b->cap = cap;
	}
}

void solar_buf_free(solar_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->n = b->cap = 0;
}

void solar_model_stmt_name(char *buf, size_t n, int stmt)
{
	snprintf(buf, n, "S%d", stmt);
}

void solar_model_ref_name(char *buf, size_t n, int ref)
{
	snprintf(buf, n, "R%d", ref);
}

void solar_model_tensor_name(char *buf, size_t n, int tensor)
{
	snprintf(buf, n, "T%d", tensor);
}

isl_ctx *solar_isl_ctx_new(void)
{
	isl_ctx *ctx = isl_ctx_alloc();
	isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	unsigned long max = SOLAR_ISL_MAX_OPERATIONS;
	const char *env = getenv("SOLAR_ISL_MAX_OPERATIONS"); /* tests lower it */
	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);
		if (!*end && v > 0 && env[0] != '-')
			max = v;
	}
	isl_ctx_set_max_operations(ctx, max);
	return ctx;
}

void solar_isl_budget_kernel(isl_ctx *ctx)
{
	isl_ctx_reset_operations(ctx);
}

/* Why ISL failed to read our own text: the operation budget ran out (ISL's parser then
 * reports its own error, hiding the quota: a second reading with a fresh budget tells; the
 * quota is set again for the caller's message), or an internal error, which stays ISL's last
 * error: the caller reports either through the diagnostic channel ("ISL error"). */
static void read_failed(isl_ctx *ctx, const char *text, bool map)
{
	isl_ctx_reset_operations(ctx);
	isl_ctx_reset_error(ctx);
	if (map)
		isl_map_free(isl_map_read_from_str(ctx, text));
	else
		isl_set_free(isl_set_read_from_str(ctx, text));
	if (isl_ctx_last_error(ctx) == isl_error_none)
		isl_ctx_set_error(ctx, isl_error_quota);
}

isl_map *solar_isl_map(isl_ctx *ctx, const char *text)
{
	isl_map *m = isl_map_read_from_str(ctx, text);
	if (!m)
		read_failed(ctx, text, true);
	return m;
}

isl_set *solar_isl_set(isl_ctx *ctx, const char *text)
{
	isl_set *s = isl_set_read_from_str(ctx, text);
	if (!s)
		read_failed(ctx, text, false);
	return s;
}

/* Whether an expression contains no iterator and (in symbolic mode) no param. */
static bool is_constant(const solar_model *m, const solar_expr *e)
{
	return solar_affine_is_constant(m, e);
}

/* The reads of index tensors in a data position, as variables v0, v1, .. of ISL text, with
 * the range of each (solar_model_may_access). */
typedef struct {
	solar_buf cons; /* " and LO <= v0 < HI" per read */
	int n;
} data_vars;

/* Writes an affine expression in ISL syntax; a read (a data position's, AIR 1.1) is a fresh
 * variable of dv, or 0 without dv. */
static void print_aff_vars(const solar_model *m, solar_buf *b, const solar_expr *e, data_vars *dv)
{
	const solar_program *p = m->prog;
	if (dv && m->rank_generic && e->kind == SOLAR_E_PARAM && p->params[e->sym].axis >= 0) {
		solar_buf_printf(b, "v%d", dv->n); /* every rank's coordinate at once */
		solar_buf_printf(&dv->cons, " and 0 <= v%d < %lld", dv->n,
				 (long long)p->mesh[p->params[e->sym].axis].value);
		dv->n++;
		return;
	}
	if (is_constant(m, e) && e->kind != SOLAR_E_INT &&
	    !(dv && m->rank_generic && solar_ir_expr_reads_rank(p, e))) {
		int64_t v = solar_ir_eval_const(p, e);
		solar_buf_printf(b, v < 0 ? "(%lld)" : "%lld", (long long)v);
		return;
	}
	switch (e->kind) {
	case SOLAR_E_INT:
		solar_buf_printf(b, e->ival < 0 ? "(%lld)" : "%lld", (long long)e->ival);
		return;
	case SOLAR_E_PARAM:
		solar_buf_printf(b, "p%d", e->sym);
		return;
	case SOLAR_E_ITER:
		solar_buf_printf(b, "i%d", m->iter_pos[e->sym]);
		return;
	case SOLAR_E_NEG:
		solar_buf_printf(b, "(-");
		print_aff_vars(m, b, e->args[0], dv);
		solar_buf_printf(b, ")");
		return;
	case SOLAR_E_BIN:
		switch (e->binop) {
		case SOLAR_OP_FLOORDIV:
			solar_buf_printf(b, "floor((");
			print_aff_vars(m, b, e->args[0], dv);
			solar_buf_printf(b, ")/%lld)", (long long)solar_ir_eval_const(p, e->args[1]));
			return;
		case SOLAR_OP_MOD:
			solar_buf_printf(b, "((");
			print_aff_vars(m, b, e->args[0], dv);
			solar_buf_printf(b, ") mod %lld)", (long long)solar_ir_eval_const(p, e->args[1]));
			return;
		default:
			solar_buf_printf(b, "(");
			print_aff_vars(m, b, e->args[0], dv);
			solar_buf_printf(b, " %s ", solar_binop_text(e->binop));
			print_aff_vars(m, b, e->args[1], dv);
			solar_buf_printf(b, ")");
			return;
		}
	case SOLAR_E_CALL: /* min or max, any number of arguments: nest */
		for (int i = 0; i < e->nargs - 1; i++)
			solar_buf_printf(b, "%s(", e->fn == SOLAR_FN_MIN ? "min" : "max");
		print_aff_vars(m, b, e->args[0], dv);
		for (int i = 1; i < e->nargs; i++) {
			solar_buf_printf(b, ", ");
			print_aff_vars(m, b, e->args[i], dv);
			solar_buf_printf(b, ")");
		}
		return;
	case SOLAR_E_ACCESS:
		if (dv) {
			const solar_tensor *t = &p->tensors[e->sym];
			solar_buf_printf(b, "v%d", dv->n);
			solar_buf_printf(&dv->cons, " and %lld <= v%d < %lld", (long long)t->range[0],
					 dv->n, (long long)t->range[1]);
			dv->n++;
			return;
		}
		solar_buf_printf(b, "0");
		return;
	default:
		solar_buf_printf(b, "0");
		return;
	}
}

static void print_aff(const solar_model *m, solar_buf *b, const solar_expr *e)
{
	print_aff_vars(m, b, e, NULL);
}



/* Writes a condition (comparisons joined by and/or/not) in ISL syntax. */
static void print_cond(const solar_model *m, solar_buf *b, const solar_expr *e)
{
	if (e->kind == SOLAR_E_NOT) {
		solar_buf_printf(b, "not (");
		print_cond(m, b, e->args[0]);
		solar_buf_printf(b, ")");
		return;
	}
	if (e->kind != SOLAR_E_BIN) {
		solar_buf_printf(b, "(");
		print_aff(m, b, e);
		solar_buf_printf(b, " != 0)");
		return;
	}
	const char *op = NULL;
	switch (e->binop) {
	case SOLAR_OP_AND:
		op = "and";
		break;
	case SOLAR_OP_OR:
		op = "or";
		break;
	default:
		break;
	}
	if (op) {
		solar_buf_printf(b, "(");
		print_cond(m, b, e->args[0]);
		solar_buf_printf(b, " %s ", op);
		print_cond(m, b, e->args[1]);
		solar_buf_printf(b, ")");
		return;
	}
	if (e->binop == SOLAR_OP_NE) { /* ISL has no != in constraints */
		solar_buf_printf(b, "(");
		print_aff(m, b, e->args[0]);
		solar_buf_printf(b, " < ");
		print_aff(m, b, e->args[1]);
		solar_buf_printf(b, " or ");
		print_aff(m, b, e->args[0]);
		solar_buf_printf(b, " > ");
		print_aff(m, b, e->args[1]);
		solar_buf_printf(b, ")");
		return;
	}
	const char *cmp = e->binop == SOLAR_OP_EQ ? "=" : solar_binop_text(e->binop);
	solar_buf_printf(b, "(");
	print_aff(m, b, e->args[0]);
	solar_buf_printf(b, " %s ", cmp);
	print_aff(m, b, e->args[1]);
	solar_buf_printf(b, ")");
}

/* Parsed ISL objects by their text, with placeholder tuple names (A for a statement or ref,
 * B for a tensor): the nests of a model repeat (every layer of a decoder), and ISL parses
 * slowly, so each distinct domain and access text is parsed, and restricted, once; a hit is a
 * copy renamed to its own tuples.  Iterators are named by their depth (i0, i1, ..) for this. */
typedef struct {
	char **keys;
	void **objs; /* isl_set * for domain texts, isl_map * for access texts (they contain '|') */
	int *ids;    /* 0, 1, ..: the order in which the texts were first seen */
	size_t cap, n;
} parse_cache;

/* The slot of text in the cache, added empty if new; *id is the text's number. */
static void **cache_slot(parse_cache *c, const char *text, int *id)
{
	if (2 * (c->n + 1) > c->cap) {
		parse_cache g = {0};
		g.cap = c->cap ? 2 * c->cap : 256;
		g.keys = solar_xcalloc(g.cap, sizeof *g.keys);
		g.objs = solar_xcalloc(g.cap, sizeof *g.objs);
		g.ids = solar_xcalloc(g.cap, sizeof *g.ids);
		for (size_t i = 0; i < c->cap; i++)
			if (c->keys[i]) {
				size_t j = solar_text_hash(c->keys[i]) & (g.cap - 1);
				while (g.keys[j])
					j = (j + 1) & (g.cap - 1);
				g.keys[j] = c->keys[i];
				g.objs[j] = c->objs[i];
				g.ids[j] = c->ids[i];
			}
		g.n = c->n;
		free(c->keys);
		free(c->objs);
		free(c->ids);
		*c = g;
	}
	size_t j = solar_text_hash(text) & (c->cap - 1);
	while (c->keys[j] && strcmp(c->keys[j], text))
		j = (j + 1) & (c->cap - 1);
	if (!c->keys[j]) {
		c->keys[j] = solar_xstrdup(text);
		c->ids[j] = (int)c->n++;
	}
	*id = c->ids[j];
	return &c->objs[j];
}

static void cache_free(parse_cache *c)
{
	for (size_t i = 0; i < c->cap; i++) {
		if (!c->keys[i])
			continue;
		if (strchr(c->keys[i], '|'))
			isl_map_free(c->objs[i]);
		else
			isl_set_free(c->objs[i]);
		free(c->keys[i]);
	}
	free(c->keys);
	free(c->objs);
	free(c->ids);
}

/* The walk's state: the enclosing iterators and the constraints on them, as text, and the
 * expressions those constraints come from (for the shape guard below). */
typedef struct {
	solar_model *m;
	solar_diag *d;
	int iters[SOLAR_MAX_NESTING + 1];
	int depth;
	solar_buf cons;      /* conjunction of constraints so far ("" = none) */
	int failed;
	int exists_count;
	bool rejected; /* some statement failed the shape guard */
	const solar_node *scope[SOLAR_MAX_NESTING + 1]; /* enclosing loops and ifs */
	bool in_else[SOLAR_MAX_NESTING + 1];            /* an if's else branch: its condition negated */
	int nscope;
	const char *domain_key; /* the current statement's domain text, tuple named A */
	isl_set *domain_a;      /* and its set (the cache's) */
	solar_buf key;          /* scratch for cache keys */
	parse_cache cache;
	/* The same constraints as rows (affine.c), built without the text when text_only is 0:
	 * the number of enclosing loops and ifs whose constraints are not rows.  direct is false
	 * when SOLAR_LOWERING=text asks for the text path everywhere (tests/unit/test_lower.c). */
	bool direct;
	int text_only;
	solar_affine_rows rows;
	solar_affine_rows index; /* scratch: one access's index forms */
} walk;

/* ---- the shape guard: what makes exact analysis blow up, counted before ISL sees it ----
 *
 * Each distinct division (`e // c`, `e % c`) is an existential variable of the statement's
 * sets, and each or-ed alternative of its conditions (`!=`, `or`, `not and`, an else branch)
 * a disjunct.  ISL's disjoint decomposition, dataflow and projections are exponential in the
 * divisions of overlapping disjuncts, and the exact counter's projections of a footprint in
 * the divisions of one index tuple, with no operation that ISL's budget counts often enough to
 * stop them: 5 or-ed `%` conditions with distinct moduli took 26 s, 8 ran past a minute; 6
 * floor-divisions in one index ran past 30 s (docs/air.md has the measurements).  So a
 * statement may have at most
 * SOLAR_MAX_DIVS_OR divisions in its conditions and bounds with the indices of one reference
 * when its conditions have alternatives, SOLAR_MAX_DIVS_INDEX in one index, and
 * SOLAR_MAX_DIVS in all (docs/air.md, limits).  Alternatives alone are cheap (16 `!=` in one
 * condition check in 0.07 s), so they are not limited. */

enum { DISJUNCTS_CAP = 1 << 20 };

static long sat_mul(long a, long b)
{
	return a > DISJUNCTS_CAP / (b ? b : 1) ? DISJUNCTS_CAP : a * b;
}

static long sat_add(long a, long b)
{
	return a + b > DISJUNCTS_CAP ? DISJUNCTS_CAP : a + b;
}

/* Disjuncts of a condition in disjunctive normal form (negated when `neg`). */
static long cond_disjuncts(const solar_expr *e, bool neg)
{
	if (e->kind == SOLAR_E_NOT)
		return cond_disjuncts(e->args[0], !neg);
	if (e->kind != SOLAR_E_BIN)
		return neg ? 1 : 2; /* e != 0 */
	switch (e->binop) {
	case SOLAR_OP_AND:
	case SOLAR_OP_OR: {
		long a = cond_disjuncts(e->args[0], neg), b = cond_disjuncts(e->args[1], neg);
		return (e->binop == SOLAR_OP_OR) != neg ? sat_add(a, b) : sat_mul(a, b);
	}
	case SOLAR_OP_EQ:
		return neg ? 2 : 1;
	case SOLAR_OP_NE:
		return neg ? 1 : 2;
	default:
		return 1;
	}
}

/* Alternatives of a loop bound: `i < max(a, b)` and `min(a, b) <= i` are disjunctions. */
static long bound_disjuncts(const solar_expr *e, solar_fn fn)
{
	return e->kind == SOLAR_E_CALL && e->fn == fn ? e->nargs : 1;
}

typedef struct {
	const solar_model *m;
	solar_buf keys; /* "dividend/divisor;" per distinct division */
	int n;
} div_set;

/* Adds the distinct divisions of an affine expression to s. */
static void collect_divs(div_set *s, const solar_expr *e)
{
	for (int i = 0; i < e->nargs; i++)
		collect_divs(s, e->args[i]);
	if (e->kind != SOLAR_E_BIN || (e->binop != SOLAR_OP_FLOORDIV && e->binop != SOLAR_OP_MOD) ||
	    is_constant(s->m, e))
		return;
	solar_buf k = {0};
	print_aff(s->m, &k, e->args[0]);
	solar_buf_printf(&k, "/%lld;", (long long)solar_ir_eval_const(s->m->prog, e->args[1]));
	size_t at = 0;
	bool seen = false;
	for (int i = 0; i < s->n && !seen; i++) {
		size_t len = strcspn(s->keys.s + at, ";") + 1;
		seen = len == k.n && !memcmp(s->keys.s + at, k.s, len);
		at += len;
	}
	if (!seen) {
		solar_buf_printf(&s->keys, "%s", k.s);
		s->n++;
	}
	solar_buf_free(&k);
}

/* Adds the divisions of the indices of the reads in a value (not the value's own `%`, `//`
 * on data, which are arithmetic, not existentials). */
static void collect_read_divs(div_set *s, const solar_expr *e)
{
	for (int i = 0; i < e->nargs; i++)
		if (e->kind == SOLAR_E_ACCESS)
			collect_divs(s, e->args[i]);
		else
			collect_read_divs(s, e->args[i]);
}

/* Checks each index of a reference against SOLAR_MAX_DIVS_INDEX; false after an error. */
static bool index_divs_ok(walk *w, int tensor, solar_expr **index, int rank)
{
	bool ok = true;
	for (int i = 0; i < rank; i++) {
		div_set s = {w->m, {0}, 0};
		collect_divs(&s, index[i]);
		solar_buf_free(&s.keys);
		if (s.n <= SOLAR_MAX_DIVS_INDEX)
			continue;
		if (w->d)
			solar_diag_error(w->d, index[i]->span,
					 "index %d of '%s' has %d distinct divisions (`//`, `%%`); exact "
					 "analysis allows at most %d in one index (docs/air.md, limits)",
					 i, w->m->prog->tensors[tensor].name, s.n, SOLAR_MAX_DIVS_INDEX);
		ok = false;
	}
	return ok;
}

static bool read_divs_ok(walk *w, const solar_expr *e)
{
	bool ok = true;
	for (int i = 0; i < e->nargs; i++)
		ok &= read_divs_ok(w, e->args[i]);
	if (e->kind == SOLAR_E_ACCESS)
		ok &= index_divs_ok(w, e->sym, e->args, e->nargs);
	return ok;
}

/* The distinct divisions of the enclosing conditions and bounds, plus those of one
 * reference's indices (a footprint's existentials). */
static int domain_divs(const walk *w, solar_expr **index, int rank)
{
	div_set s = {w->m, {0}, 0};
	for (int i = 0; i < w->nscope; i++) {
		const solar_node *n = w->scope[i];
		if (n->kind == SOLAR_N_IF) {
			collect_divs(&s, n->cond.cond);
		} else {
			collect_divs(&s, n->loop.lo);
			collect_divs(&s, n->loop.hi);
		}
	}
	for (int i = 0; i < rank; i++)
		collect_divs(&s, index[i]);
	solar_buf_free(&s.keys);
	return s.n;
}

/* The most divisions of domain_divs over the reads of a value. */
static int read_domain_divs(const walk *w, const solar_expr *e, int most)
{
	for (int i = 0; i < e->nargs; i++)
		most = read_domain_divs(w, e->args[i], most);
	if (e->kind == SOLAR_E_ACCESS) {
		int n = domain_divs(w, e->args, e->nargs);
		most = n > most ? n : most;
	}
	return most;
}

/* Whether statement s is within the guard's limits; else located errors (at the statement or
 * the index) say which limit it passes. */
static bool shape_ok(walk *w, const solar_stmt *s)
{
	const solar_model *m = w->m;
	div_set all = {m, {0}, 0};
	long disjuncts = 1;
	for (int i = 0; i < w->nscope; i++) {
		const solar_node *n = w->scope[i];
		if (n->kind == SOLAR_N_IF) {
			disjuncts = sat_mul(disjuncts, cond_disjuncts(n->cond.cond, w->in_else[i]));
			collect_divs(&all, n->cond.cond);
			continue;
		}
		disjuncts = sat_mul(disjuncts, bound_disjuncts(n->loop.lo, SOLAR_FN_MIN));
		disjuncts = sat_mul(disjuncts, bound_disjuncts(n->loop.hi, SOLAR_FN_MAX));
		collect_divs(&all, n->loop.lo);
		collect_divs(&all, n->loop.hi);
	}
	int rank = m->prog->tensors[s->tensor].rank;
	int cond_divs = read_domain_divs(w, s->value, domain_divs(w, s->index, rank));
	for (int i = 0; i < m->prog->tensors[s->tensor].rank; i++)
		collect_divs(&all, s->index[i]);
	collect_read_divs(&all, s->value);
	solar_buf_free(&all.keys);
	bool ok = index_divs_ok(w, s->tensor, s->index, m->prog->tensors[s->tensor].rank);
	ok &= read_divs_ok(w, s->value);
	const char *why = NULL;
	int n = 0, most = 0;
	if (disjuncts > 1 && cond_divs > SOLAR_MAX_DIVS_OR) {
		why = "its conditions have or-ed alternatives (`or`, `!=`, `else`, `not`) and use, "
		      "with the indices of one reference, %d distinct divisions (`//`, `%%`); exact "
		      "analysis allows at most %d where there are alternatives (docs/air.md, limits)";
		n = cond_divs;
		most = SOLAR_MAX_DIVS_OR;
	} else if (all.n > SOLAR_MAX_DIVS) {
		why = "its conditions, bounds and indices use %d distinct divisions (`//`, `%%`); "
		      "exact analysis allows at most %d (docs/air.md, limits)";
		n = all.n;
		most = SOLAR_MAX_DIVS;
	}
	if (why) {
		if (w->d) {
			char msg[320];
			snprintf(msg, sizeof msg, why, n, most);
			solar_diag_error(w->d, s->span, "this statement is too irregular for exact "
							"analysis: %s", msg);
		}
		ok = false;
	}
	return ok;
}

static void print_params(const solar_model *m, solar_buf *b)
{
	if (!m->symbolic || !m->prog->nparams)
		return;
	solar_buf_printf(b, "[");
	for (int i = 0; i < m->prog->nparams; i++)
		solar_buf_printf(b, "%sp%d", i ? ", " : "", i);
	solar_buf_printf(b, "] -> ");
}

static void print_tuple(walk *w, solar_buf *b, const char *name)
{
	solar_buf_printf(b, "%s[", name);
	for (int i = 0; i < w->depth; i++)
		solar_buf_printf(b, "%si%d", i ? ", " : "", i);
	solar_buf_printf(b, "]");
}

/* The index tuple of an access; a position that reads data is 0 (the proxy, model.h). */
static void print_index_tuple(walk *w, solar_buf *b, int tensor, solar_expr **index)
{
	const solar_tensor *t = &w->m->prog->tensors[tensor];
	solar_buf_printf(b, "B[");
	for (int i = 0; i < t->rank; i++) {
		if (i)
			solar_buf_printf(b, ", ");
		if (solar_ir_index_reads_data(index[i]))
			solar_buf_printf(b, "0");
		else
			print_aff(w->m, b, index[i]);
	}
	solar_buf_printf(b, "]");
}

/* The data positions of an index (solar_ref.data). */
static unsigned data_mask(const solar_program *p, int tensor, solar_expr *const *index)
{
	unsigned mask = 0;
	for (int i = 0; i < p->tensors[tensor].rank; i++)
		if (solar_ir_index_reads_data(index[i]))
			mask |= 1u << i;
	return mask;
}

/* A[i0 ..] -> B[index] built from the indices' affine forms (affine.c); NULL when the walk
 * lowers by text, or an index is not an affine form, or ISL fails: then the text is parsed. */
static isl_map *direct_access(walk *w, int tensor, solar_expr **index)
{
	if (!w->direct || data_mask(w->m->prog, tensor, index))
		return NULL;
	const solar_tensor *t = &w->m->prog->tensors[tensor];
	w->index.n = 0;
	for (int i = 0; i < t->rank; i++)
		if (!solar_affine_push_form(w->m, &w->index, index[i]))
			return NULL;
	isl_map *acc = solar_affine_map(w->m->ctx, &w->index, w->depth, "A", "B");
	w->m->direct += acc != NULL;
	return acc;
}

static void add_ref(walk *w, int stmt, int tensor, bool write, const solar_expr *expr,
		    solar_expr **index)
{
	solar_model *m = w->m;
	int r = m->nrefs++;
	solar_ref *ref = &m->refs[r];
	ref->stmt = stmt;
	ref->tensor = tensor;
	ref->write = write;
	ref->expr = expr;
	ref->data = data_mask(m->prog, tensor, index);
	char name[32], tname[48];
	if (write)
		solar_model_stmt_name(name, sizeof name, stmt);
	else
		solar_model_ref_name(name, sizeof name, r);
	solar_model_tensor_name(tname, sizeof tname, tensor);
	if (ref->data) /* the shadow tuple (model.h) */
		snprintf(tname + strlen(tname), sizeof tname - strlen(tname), "d%u", ref->data);
	/* A[..] -> B[..] restricted to the statement's domain, parsed once per distinct text */
	solar_buf *k = &w->key;
	k->n = 0;
	solar_buf_printf(k, "%s|", w->domain_key);
	size_t text = k->n;
	print_params(m, k);
	solar_buf_printf(k, "{ ");
	print_tuple(w, k, "A");
	solar_buf_printf(k, " -> ");
	print_index_tuple(w, k, tensor, index);
	solar_buf_printf(k, " }");
	isl_map *acc = NULL;
	void **slot = cache_slot(&w->cache, k->s, &ref->text_id);
	if (!*slot) {
		acc = direct_access(w, tensor, index);
		if (!acc)
			acc = solar_isl_map(m->ctx, k->s + text);
		if (acc)
			acc = isl_map_intersect_domain(acc, isl_set_copy(w->domain_a));
		*slot = acc;
	}
	acc = isl_map_copy(*slot);
	if (!acc) {
		w->failed = 1;
		return;
	}
	acc = isl_map_set_tuple_name(acc, isl_dim_in, name);
	ref->access = isl_map_set_tuple_name(acc, isl_dim_out, tname);
	if (!ref->access)
		w->failed = 1;
}

static void collect_reads(walk *w, int stmt, const solar_expr *e)
{
	if (e->kind == SOLAR_E_ACCESS)
		add_ref(w, stmt, e->sym, false, e, e->args);
	for (int i = 0; i < e->nargs; i++)
		collect_reads(w, stmt, e->args[i]);
}


/* ---- closed-form chains ----
 *
 * A reduction chain's previous point (chain_prev) and its first and last points (chain_source)
 * are, in general, a lexmax over the statement's domain and a subtraction, and ISL's lexmax is
 * costly on padded, min/max-bounded domains and exponential on deep nests (a 39-deep nest of
 * two-iteration loops around `y += 1` ran for minutes).  When the loops from depth `from` to
 * the statement form a parametric box -- each loop of step 1, and its bounds and every `if`
 * inside loop `from` use only iterators of the loops outside it -- the domain is
 * P(o) and lo_j(o) <= i_j < hi_j(o) for j >= from (o: the outer iterators), and for a chain of
 * depth c >= from the previous point of y is written down directly:
 *   prev(y) = (y_0 .. y_k-1, y_k - 1, hi_k+1 - 1, .., hi_d-1 - 1)
 *             where k is the last j >= c with y_j > lo_j (none: y is a first point),
 * a piecewise map with one piece per k; the first points are those with y_j = lo_j for every
 * j >= c, the last those with y_j = hi_j - 1.  The image is inside the domain: P(o) holds, the
 * box is not empty since y is in it, and hi_j - 1 >= lo_j.  A bound or `if` that uses a chain
 * iterator (a triangle, a guard on r + oh) or a strided loop keeps the lexmax. */
typedef struct solar_chain_box {
	int from;                 /* the box's outermost loop */
	const solar_expr **lo;    /* per loop from..depth-1: its bounds (the program's), lo */
	const solar_expr **hi;    /* inclusive, hi exclusive */
} chain_box;

/* A chain's points (and writes_once's test) by the text of its access (text_id): equal texts have equal domains up to
 * the names of their tuples, and the points depend on the domain and the chain depth only, so
 * the layers of a model compute them once.  Kept with the first statement's names; a hit is a
 * copy renamed. */
typedef struct solar_chain_memo {
	int depth;       /* the chain depth prev was computed for */
	isl_map *prev;   /* chain_prev's links, S[prev(y)] -> R[y] */
	int first_depth; /* and first */
	isl_set *first;  /* chain_first's points, R[y] without a previous point */
	int last_depth;  /* and last */
	isl_set *last;   /* chain_source's last points, S[y] */
	char injective; /* writes_once's ISL test of the access: 0 not yet, 1 yes, 2 no */
} chain_memo;

/* 1 + the deepest position of an iterator that e uses (0: none). */
static int iter_reach(const solar_model *m, const solar_expr *e)
{
	int most = e->kind == SOLAR_E_ITER ? m->iter_pos[e->sym] + 1 : 0;
	for (int i = 0; i < e->nargs; i++) {
		int r = iter_reach(m, e->args[i]);
		if (r > most)
			most = r;
	}
	return most;
}

/* The box of statement s (walk_stmt's scope), or NULL when not even its innermost loop is
 * one. */
static chain_box *record_box(walk *w, const solar_stmt *s)
{
	int loop = w->depth, need = 0, from = w->depth;
	for (int i = w->nscope - 1; i >= 0; i--) {
		const solar_node *n = w->scope[i];
		if (n->kind == SOLAR_N_IF) {
			int r = iter_reach(w->m, n->cond.cond);
			need = r > need ? r : need;
			continue;
		}
		loop--;
		int lo = iter_reach(w->m, n->loop.lo), hi = iter_reach(w->m, n->loop.hi);
		need = lo > need ? lo : need;
		need = hi > need ? hi : need;
		if (n->loop.step_value > 1 || need > loop)
			break;
		from = loop;
	}
	if (from >= s->depth)
		return NULL;
	chain_box *box = solar_xcalloc(1, sizeof *box);
	box->from = from;
	box->lo = solar_xcalloc((size_t)(s->depth - from), sizeof *box->lo);
	box->hi = solar_xcalloc((size_t)(s->depth - from), sizeof *box->hi);
	loop = w->depth;
	for (int i = w->nscope - 1; i >= 0 && loop > from; i--) {
		const solar_node *n = w->scope[i];
		if (n->kind != SOLAR_N_FOR)
			continue;
		loop--;
		box->lo[loop - from] = n->loop.lo;
		box->hi[loop - from] = n->loop.hi;
	}
	return box;
}

static void box_free(chain_box *box)
{
	if (!box)
		return;
	free(box->lo);
	free(box->hi);
	free(box);
}

static void walk_block(walk *w, const solar_block *blk);
/* `lo <= i < hi` as ISL text.  A lower bound max(a, b, ..) and an upper bound min(a, b, ..)
 * are conjunctions (a <= i and b <= i): printed so, ISL reads one basic set, where the
 * max/min text made it read the pieces of a piecewise bound and coalesce them (a padded
 * convolution's r and s: four pieces per statement, 24 M of conv2d_7x7_s2's 169 M). */
static void print_loop_bounds(const solar_model *m, solar_buf *c, const solar_expr *lo,
			      const solar_expr *hi, int i)
{
	if (lo->kind == SOLAR_E_CALL && lo->fn == SOLAR_FN_MAX && !is_constant(m, lo)) {
		for (int k = 0; k < lo->nargs; k++) {
			print_aff(m, c, lo->args[k]);
			solar_buf_printf(c, " <= i%d and ", i);
		}
	} else {
		print_aff(m, c, lo);
		solar_buf_printf(c, " <= ");
	}
	if (hi->kind == SOLAR_E_CALL && hi->fn == SOLAR_FN_MIN && !is_constant(m, hi)) {
		for (int k = 0; k < hi->nargs; k++) {
			solar_buf_printf(c, "i%d < ", i);
			print_aff(m, c, hi->args[k]);
			if (k + 1 < hi->nargs)
				solar_buf_printf(c, " and ");
		}
	} else {
		solar_buf_printf(c, "i%d < ", i);
		print_aff(m, c, hi);
	}
}


static void walk_stmt(walk *w, const solar_stmt *s)
{
	solar_model *m = w->m;
	if (!shape_ok(w, s))
		w->rejected = true; /* reported; the walk goes on to report every statement */
	if (w->rejected)
		return;
	char name[32];
	solar_model_stmt_name(name, sizeof name, s->id);
	solar_buf b = {0};
	print_params(m, &b);
	solar_buf_printf(&b, "{ ");
	print_tuple(w, &b, "A");
	if (w->cons.n)
		solar_buf_printf(&b, " : %s", w->cons.s);
	solar_buf_printf(&b, " }");
	int id;
	void **slot = cache_slot(&w->cache, b.s, &id);
	if (!*slot) {
		isl_set *dom = NULL;
		if (w->direct && !w->text_only) {
			dom = solar_affine_set(m->ctx, &w->rows, w->depth, "A");
			m->direct += dom != NULL;
		}
		*slot = isl_set_coalesce(dom ? dom : solar_isl_set(m->ctx, b.s));
	}
	m->domain[s->id] = *slot ? isl_set_set_tuple_name(isl_set_copy(*slot), name) : NULL;
	if (!m->domain[s->id]) {
		solar_buf_free(&b);
		w->failed = 1;
		return;
	}
	w->domain_key = b.s;
	w->domain_a = *slot;
	m->box[s->id] = record_box(w, s);
	collect_reads(w, s->id, s->value);
	for (int i = 0; i < m->prog->tensors[s->tensor].rank; i++) /* a scatter's index reads */
		collect_reads(w, s->id, s->index[i]);
	if (s->op != SOLAR_ASSIGN) /* a reduction reads its target */
		add_ref(w, s->id, s->tensor, false, NULL, s->index);
	m->write_ref[s->id] = m->nrefs;
	add_ref(w, s->id, s->tensor, true, NULL, s->index);
	w->domain_key = NULL;
	w->domain_a = NULL;
	solar_buf_free(&b);
}

static void walk_node(walk *w, const solar_node *n)
{
	size_t saved = w->cons.n;
	int saved_rows = w->rows.n, saved_text_only = w->text_only;
	switch (n->kind) {
	case SOLAR_N_STMT:
		walk_stmt(w, n->stmt);
		break;
	case SOLAR_N_FOR: {
		int it = n->loop.iter;
		w->scope[w->nscope] = n;
		w->in_else[w->nscope++] = false;
		w->m->iter_pos[it] = w->depth;
		w->iters[w->depth++] = it;
		solar_affine_enter_loop(w->m, w->depth - 1, n->loop.lo, n->loop.hi);
		solar_buf *c = &w->cons;
		solar_buf_printf(c, "%s", c->n ? " and " : "");
		print_loop_bounds(w->m, c, n->loop.lo, n->loop.hi, w->depth - 1);
		if (n->loop.step_value > 1 ||
		    !solar_affine_push_loop(w->m, &w->rows, n->loop.lo, n->loop.hi, w->depth - 1))
			w->text_only++;
		if (n->loop.step_value > 1) {
			solar_buf_printf(c, " and exists (e%d: i%d = ", w->depth - 1, w->depth - 1);
			print_aff(w->m, c, n->loop.lo);
			solar_buf_printf(c, " + %lld * e%d)", (long long)n->loop.step_value,
					 w->depth - 1);
		}
		walk_block(w, &n->loop.body);
		w->depth--;
		w->nscope--;
		break;
	}
	case SOLAR_N_IF: {
		solar_buf *c = &w->cons;
		w->scope[w->nscope] = n;
		w->in_else[w->nscope++] = false;
		solar_buf_printf(c, "%s", c->n ? " and " : "");
		print_cond(w->m, c, n->cond.cond);
		if (!solar_affine_push_cond(w->m, &w->rows, n->cond.cond))
			w->text_only++;
		walk_block(w, &n->cond.then);
		c->n = saved;
		w->rows.n = saved_rows;
		w->text_only = saved_text_only + 1; /* a negated condition is not a conjunction */
		if (n->cond.els.n) {
			w->in_else[w->nscope - 1] = true;
			solar_buf_printf(c, "%snot (", c->n ? " and " : "");
			print_cond(w->m, c, n->cond.cond);
			solar_buf_printf(c, ")");
			walk_block(w, &n->cond.els);
		}
		w->nscope--;
		break;
	}
	}
	w->cons.n = saved;
	if (w->cons.s)
		w->cons.s[saved] = '\0';
	w->rows.n = saved_rows;
	w->text_only = saved_text_only;
}

static void walk_block(walk *w, const solar_block *blk)
{
	for (int i = 0; i < blk->n && !w->failed; i++)
		walk_node(w, blk->items[i]);
}

static int count_reads(const solar_expr *e)
{
	int n = e->kind == SOLAR_E_ACCESS;
	for (int i = 0; i < e->nargs; i++)
		n += count_reads(e->args[i]);
	return n;
}

/* The shape of every tensor, T<t>[d0, ..] within its extents.  Shapes repeat (every layer of a
 * model has tensors of the same extents), so each distinct one is parsed once, as B[..], and
 * copied renamed (parse_cache). */
static void build_shapes(solar_model *m, bool direct)
{
	const solar_program *p = m->prog;
	parse_cache cache = {0};
	solar_buf b = {0};
	for (int t = 0; t < p->ntensors && m->shape; t++) {
		const solar_tensor *ten = &p->tensors[t];
		solar_isl_budget_kernel(m->ctx); /* a shape is tiny work; thousands must not add up */
		b.n = 0;
		solar_buf_printf(&b, "{ B[");
		for (int i = 0; i < ten->rank; i++)
			solar_buf_printf(&b, "%sd%d", i ? ", " : "", i);
		solar_buf_printf(&b, "]");
		for (int i = 0; i < ten->rank; i++)
			solar_buf_printf(&b, "%s0 <= d%d < %lld", i ? " and " : " : ", i,
					 (long long)ten->extent[i]);
		solar_buf_printf(&b, " }");
		int id;
		void **slot = cache_slot(&cache, b.s, &id);
		if (!*slot && direct) {
			*slot = solar_affine_box(m->ctx, ten->rank, ten->extent, "B");
			m->direct += *slot != NULL;
		}
		if (!*slot)
			*slot = solar_isl_set(m->ctx, b.s);
		char name[32];
		solar_model_tensor_name(name, sizeof name, t);
		m->shape[t] = *slot ? isl_set_set_tuple_name(isl_set_copy(*slot), name) : NULL;
	}
	solar_buf_free(&b);
	cache_free(&cache);
}

static int chain_depth_of(const solar_model *m, const solar_stmt *s);

solar_model *solar_model_build(const solar_program *p, isl_ctx *ctx, bool symbolic, solar_diag *d)
{
	solar_model *m = solar_xcalloc(1, sizeof *m);
	m->ctx = ctx;
	m->prog = p;
	m->symbolic = symbolic;
	m->rank_generic = !solar_program_rank_shapes_work(p);
	m->domain = solar_xcalloc((size_t)p->nstmts + 1, sizeof *m->domain);
	m->write_ref = solar_xcalloc((size_t)p->nstmts + 1, sizeof *m->write_ref);
	int nrefs = 0;
	for (int s = 0; s < p->nstmts; s++) {
		nrefs += 1 + (p->stmts[s]->op != SOLAR_ASSIGN) + count_reads(p->stmts[s]->value);
		for (int i = 0; i < p->tensors[p->stmts[s]->tensor].rank; i++)
			nrefs += count_reads(p->stmts[s]->index[i]);
	}
	m->refs = solar_xcalloc((size_t)nrefs + 1, sizeof *m->refs);
	m->links_omitted = solar_xcalloc((size_t)nrefs + 1, sizeof *m->links_omitted);
	m->shape = solar_xcalloc((size_t)p->ntensors + 1, sizeof *m->shape);
	/* the sets and maps are built from affine forms where they can be (affine.c); the
	 * environment variable SOLAR_LOWERING=text parses every one from its text (a test hook) */
	const char *how = getenv("SOLAR_LOWERING");
	bool direct = !how || strcmp(how, "text");
	build_shapes(m, direct);

	m->iter_pos = solar_xcalloc((size_t)p->niters + 1, sizeof *m->iter_pos);
	m->iter_range = solar_xcalloc(SOLAR_MAX_NESTING + 1, sizeof *m->iter_range);
	m->iter_ranged = solar_xcalloc(SOLAR_MAX_NESTING + 1, sizeof *m->iter_ranged);
	m->box = solar_xcalloc((size_t)p->nstmts + 1, sizeof *m->box);
	walk w = {.m = m, .d = d, .direct = direct};
	solar_affine_rows_init(&w.rows, m);
	solar_affine_rows_init(&w.index, m);
	for (int k = 0; k < p->nkernels && !w.failed; k++) {
		solar_isl_budget_kernel(ctx);
		walk_block(&w, &p->kernels[k].body);
	}
	solar_buf_free(&w.cons);
	solar_buf_free(&w.key);
	solar_affine_rows_free(&w.rows);
	solar_affine_rows_free(&w.index);
	m->ntexts = (int)w.cache.n;
	m->memo = solar_xcalloc((size_t)m->ntexts + 1, sizeof *m->memo);
	cache_free(&w.cache);
	if (w.rejected) {
		solar_model_free(m);
		return NULL;
	}
	if (w.failed || isl_ctx_last_error(ctx) != isl_error_none) {
		if (d)
			solar_diag_error_nowhere(d, "polyhedral lowering failed (%s)",
						 isl_ctx_last_error(ctx) == isl_error_quota
							 ? "ISL operation limit reached"
							 : "ISL error");
		solar_model_free(m);
		return NULL;
	}
	/* the chains, once per statement; an ISL failure there only loses the shortcut */
	m->chain = solar_xcalloc((size_t)p->nstmts + 1, sizeof *m->chain);
	for (int s = 0; s < p->nstmts; s++) {
		if (!s || p->stmts[s]->kernel != p->stmts[s - 1]->kernel)
			solar_isl_budget_kernel(ctx);
		m->chain[s] = chain_depth_of(m, p->stmts[s]);
		if (isl_ctx_last_error(ctx) != isl_error_none) {
			isl_ctx_reset_error(ctx);
			m->chain[s] = -1;
		}
	}
	return m;
}

void solar_model_free(solar_model *m)
{
	if (!m)
		return;
	for (int s = 0; s < m->prog->nstmts; s++) {
		isl_set_free(m->domain[s]);
		if (m->box)
			box_free(m->box[s]);
	}
	free(m->box);
	for (int t = 0; m->memo && t < m->ntexts; t++) {
		isl_map_free(m->memo[t].prev);
		isl_set_free(m->memo[t].first);
		isl_set_free(m->memo[t].last);
	}
	free(m->memo);
	for (int r = 0; r < m->nrefs; r++) {
		isl_map_free(m->refs[r].access);
	}
	for (int t = 0; t < m->prog->ntensors; t++)
		isl_set_free(m->shape[t]);
	free(m->domain);
	free(m->refs);
	free(m->links_omitted);
	free(m->write_ref);
	free(m->shape);
	free(m->iter_pos);
	free(m->iter_range);
	free(m->iter_ranged);
	free(m->chain);
	free(m);
}

isl_union_map *solar_model_accesses(const solar_model *m, bool write, int first, int n)
{
	isl_union_map *u = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
	for (int r = 0; r < m->nrefs; r++) {
		const solar_ref *ref = &m->refs[r];
		if (ref->write == write && ref->stmt >= first && ref->stmt < first + n)
			u = isl_union_map_add_map(u, isl_map_copy(ref->access));
	}
	return u;
}

/* The index expressions of ref r: its read's, or its statement's store's. */
static solar_expr *const *ref_index_of(const solar_model *m, const solar_ref *ref)
{
	return ref->expr ? ref->expr->args : m->prog->stmts[ref->stmt]->index;
}

isl_map *solar_model_may_access(const solar_model *m, int r)
{
	const solar_ref *ref = &m->refs[r];
	if (!ref->data)
		return isl_map_copy(ref->access);
	const solar_tensor *t = &m->prog->tensors[ref->tensor];
	const solar_stmt *s = m->prog->stmts[ref->stmt];
	solar_expr *const *index = ref_index_of(m, ref);
	solar_buf b = {0};
	data_vars dv = {{0}, 0};
	print_params(m, &b);
	solar_buf_printf(&b, "{ A[");
	for (int i = 0; i < s->depth; i++)
		solar_buf_printf(&b, "%si%d", i ? ", " : "", i);
	solar_buf_printf(&b, "] -> B[");
	for (int k = 0; k < t->rank; k++)
		solar_buf_printf(&b, "%so%d", k ? ", " : "", k);
	solar_buf_printf(&b, "] : exists (");
	solar_buf pos = {0};
	for (int k = 0; k < t->rank; k++) {
		solar_buf_printf(&pos, " and o%d = ", k);
		print_aff_vars(m, &pos, index[k], &dv);
	}
	for (int v = 0; v < dv.n; v++)
		solar_buf_printf(&b, "%sv%d", v ? ", " : "", v);
	solar_buf_printf(&b, " : 0 = 0%s%s) }", pos.s ? pos.s : "", dv.cons.s ? dv.cons.s : "");
	isl_map *may = solar_isl_map(m->ctx, b.s);
	solar_buf_free(&b);
	solar_buf_free(&pos);
	solar_buf_free(&dv.cons);
	if (!may)
		return NULL;
	isl_space *sp = isl_map_get_space(ref->access);
	may = isl_map_set_tuple_id(may, isl_dim_in, isl_space_get_tuple_id(sp, isl_dim_in));
	isl_space_free(sp);
	may = isl_map_intersect_domain(may, isl_map_domain(isl_map_copy(ref->access)));
	char tname[32];
	solar_model_tensor_name(tname, sizeof tname, ref->tensor);
	return isl_map_set_tuple_name(may, isl_dim_out, tname);
}

isl_bool solar_model_values_within(const solar_model *m, int stmt, const solar_expr *e,
				   int64_t lo, int64_t hi)
{
	const solar_stmt *s = m->prog->stmts[stmt];
	solar_buf b = {0};
	print_params(m, &b);
	solar_buf_printf(&b, "{ A[");
	for (int i = 0; i < s->depth; i++)
		solar_buf_printf(&b, "%si%d", i ? ", " : "", i);
	solar_buf_printf(&b, "] -> V[");
	print_aff(m, &b, e);
	solar_buf_printf(&b, "] }");
	isl_map *val = solar_isl_map(m->ctx, b.s);
	solar_buf_free(&b);
	if (!val)
		return isl_bool_error;
	isl_set *dom = isl_set_copy(m->domain[stmt]);
	dom = isl_set_set_tuple_name(dom, "A");
	isl_set *img = isl_set_apply(dom, val);
	char range[128];
	snprintf(range, sizeof range, "{ V[v] : %lld <= v < %lld }", (long long)lo, (long long)hi);
	isl_set *ok = isl_set_read_from_str(m->ctx, range);
	isl_bool in = isl_set_is_subset(img, ok);
	isl_set_free(img);
	isl_set_free(ok);
	return in;
}

isl_set *solar_model_shadow_shape(const solar_model *m, int r)
{
	isl_map *acc = m->refs[r].access;
	return isl_set_set_tuple_name(isl_set_copy(m->shape[m->refs[r].tensor]),
				      isl_map_get_tuple_name(acc, isl_dim_out));
}

isl_map *solar_model_end_access(const solar_model *m, int t)
{
	char name[32];
	snprintf(name, sizeof name, "E%d", t);
	isl_set *shape = isl_set_copy(m->shape[t]);
	isl_map *id = isl_map_identity(isl_space_map_from_set(isl_set_get_space(shape)));
	id = isl_map_intersect_domain(id, shape);
	return isl_map_set_tuple_name(id, isl_dim_in, name);
}

/* ---- schedule tree (ISL computes dataflow much faster from a tree than from a map) ---- */

/* The domains of refs first..last that `keep` selects (all when keep is NULL); NULL if none. */
static isl_union_set *ref_domains(const solar_model *m, const bool *keep, int first, int last)
{
	isl_union_set *u = NULL;
	for (int r = first; r <= last; r++) {
		if (keep && !keep[r])
			continue;
		isl_set *d = isl_map_domain(isl_map_copy(m->refs[r].access));
		u = u ? isl_union_set_add_set(u, d) : isl_union_set_from_set(d);
	}
	return u;
}

static isl_schedule *seq(isl_schedule *a, isl_schedule *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return isl_schedule_sequence(a, b);
}

/* A statement: its reads, then its write (those of its refs that `keep` selects). */
static isl_schedule *sched_stmt(const solar_model *m, const bool *keep, int s)
{
	int last = m->write_ref[s];
	int first = s ? m->write_ref[s - 1] + 1 : 0;
	isl_union_set *w = ref_domains(m, keep, last, last);
	isl_union_set *r = first < last ? ref_domains(m, keep, first, last - 1) : NULL;
	return seq(r ? isl_schedule_from_domain(r) : NULL, w ? isl_schedule_from_domain(w) : NULL);
}

typedef struct {
	isl_union_pw_aff *upa;
	int depth;
} part_ctx;

/* The loop's iterator, coordinate `depth` of every tuple below it. */
static isl_stat add_part(isl_set *set, void *user)
{
	part_ctx *c = user;
	isl_space *sp = isl_set_get_space(set);
	isl_set_free(set);
	isl_aff *a = isl_aff_var_on_domain(isl_local_space_from_space(sp), isl_dim_set,
					   (unsigned)c->depth);
	c->upa = isl_union_pw_aff_add_pw_aff(c->upa, isl_pw_aff_from_aff(a));
	return isl_stat_ok;
}

static isl_schedule *sched_block(const solar_model *m, const bool *keep, const solar_block *blk,
				 int depth);

static isl_schedule *sched_node(const solar_model *m, const bool *keep, const solar_node *n,
				int depth)
{
	switch (n->kind) {
	case SOLAR_N_STMT:
		return sched_stmt(m, keep, n->stmt->id);
	case SOLAR_N_IF: /* adds no loop: its branches are items of the enclosing block */
		return seq(sched_block(m, keep, &n->cond.then, depth),
			   sched_block(m, keep, &n->cond.els, depth));
	case SOLAR_N_FOR: {
		isl_schedule *child = sched_block(m, keep, &n->loop.body, depth + 1);
		if (!child)
			return NULL;
		part_ctx c = {isl_union_pw_aff_empty(isl_space_params_alloc(m->ctx, 0)), depth};
		isl_union_set *dom = isl_schedule_get_domain(child);
		isl_union_set_foreach_set(dom, add_part, &c);
		isl_union_set_free(dom);
		return isl_schedule_insert_partial_schedule(
			child, isl_multi_union_pw_aff_from_union_pw_aff(c.upa));
	}
	}
	return NULL;
}

/* The schedule tree of a block: a sequence of its items, a band per loop.  Only the refs that
 * `keep` selects (all when NULL) are in it: each extra instance in the schedule costs the
 * dataflow analysis time. */
static isl_schedule *sched_block(const solar_model *m, const bool *keep, const solar_block *blk,
				 int depth)
{
	isl_schedule *s = NULL;
	for (int i = 0; i < blk->n; i++)
		s = seq(s, sched_node(m, keep, blk->items[i], depth));
	return s;
}

int solar_model_flow_global(const solar_model *m, isl_union_map **dep, isl_union_set **no_source)
{
	/* Reads of tensors that no statement writes have no source: they skip the analysis. */
	bool *written = solar_xcalloc((size_t)m->prog->ntensors + 1, sizeof *written);
	for (int r = 0; r < m->nrefs; r++)
		if (m->refs[r].write)
			written[m->refs[r].tensor] = true;
	isl_union_map *sink = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
	isl_union_set *unwritten = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
	for (int r = 0; r < m->nrefs; r++) {
		const solar_ref *ref = &m->refs[r];
		if (ref->write)
			continue;
		if (written[ref->tensor])
			sink = isl_union_map_add_map(sink, isl_map_copy(ref->access));
		else
			unwritten = isl_union_set_add_set(unwritten,
							  isl_map_domain(isl_map_copy(ref->access)));
	}
	free(written);
	isl_schedule *sched = NULL;
	for (int k = 0; k < m->prog->nkernels; k++)
		sched = seq(sched, sched_block(m, NULL, &m->prog->kernels[k].body, 0));
	isl_union_set *ends = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
	for (int t = 0; t < m->prog->ntensors; t++) {
		solar_role role = m->prog->tensors[t].role;
		if (role != SOLAR_ROLE_OUT && role != SOLAR_ROLE_INOUT)
			continue;
		isl_map *end = solar_model_end_access(m, t);
		ends = isl_union_set_add_set(ends, isl_map_domain(isl_map_copy(end)));
		sink = isl_union_map_add_map(sink, end);
	}
	if (isl_union_set_is_empty(ends) == isl_bool_false)
		sched = seq(sched, isl_schedule_from_domain(ends));
	else
		isl_union_set_free(ends);
	if (!sched) /* no statements at all */
		sched = isl_schedule_from_domain(isl_union_set_empty(isl_space_params_alloc(m->ctx, 0)));
	isl_union_access_info *ai = isl_union_access_info_from_sink(sink);
	ai = isl_union_access_info_set_must_source(
		ai, solar_model_accesses(m, true, 0, m->prog->nstmts));
	ai = isl_union_access_info_set_schedule(ai, sched);
	isl_union_flow *flow = isl_union_access_info_compute_flow(ai);
	if (!flow) {
		isl_union_set_free(unwritten);
		return -1;
	}
	if (dep)
		*dep = isl_union_flow_get_must_dependence(flow);
	if (no_source)
		*no_source = isl_union_set_union(
			isl_union_map_domain(isl_union_flow_get_must_no_source(flow)), unwritten);
	else
		isl_union_set_free(unwritten);
	isl_union_flow_free(flow);
	if ((dep && !*dep) || (no_source && !*no_source))
		return -1;
	return 0;
}

/* ---- incremental dataflow: one kernel at a time ---- */

typedef struct {
	isl_union_map *to_reads; /* W -> R (and W -> E) */
	isl_union_map *last;     /* T<t>[e] -> W: the last write of each element so far */
} flow_split;

/* Splits a kernel's dependences: into its reads, or into its L<t> "last write" sinks (turned
 * around and renamed T<t>[e] -> W). */
static isl_stat split_dep(isl_map *map, void *user)
{
	flow_split *f = user;
	const char *sink = isl_map_get_tuple_name(map, isl_dim_out);
	if (sink && sink[0] == 'L') {
		char name[48];
		snprintf(name, sizeof name, "T%s", sink + 1);
		map = isl_map_set_tuple_name(isl_map_reverse(map), isl_dim_in, name);
		f->last = isl_union_map_add_map(f->last, map);
	} else {
		f->to_reads = isl_union_map_add_map(f->to_reads, map);
	}
	return isl_stat_ok;
}

/* What flow_kernel needs to know about the program, computed once. */
typedef struct {
	bool *written;    /* per tensor: some statement writes it */
	int *last_reader; /* per tensor: the last kernel that reads it (nkernels: the END reader of
			     an out/inout tensor; -1: none) */
	int *in_kernel;   /* per tensor, scratch: how many write refs of kernel k store into it */
	bool *sinked;     /* per tensor, scratch: a sink of kernel k's analysis reads it */
	char *once;       /* per tensor, scratch: see stored_once */
	bool *in_flow;    /* per ref: a sink or source of its kernel's dataflow */
	bool *chained;    /* per ref: a chain's read, its links built by chain_prev */
	bool links;       /* the links go into the dependences (else solar_model_fed_by's) */
} flow_info;

/* Keeps the last writes of tensors that a kernel after kernel k still reads. */
typedef struct {
	const solar_model *m;
	const flow_info *fi;
	int k;
	isl_union_map *keep;
} live_filter;

static isl_stat keep_live(isl_map *map, void *user)
{
	live_filter *f = user;
	int t = atoi(isl_map_get_tuple_name(map, isl_dim_in) + 1);
	if (f->fi->last_reader[t] > f->k)
		f->keep = isl_union_map_add_map(f->keep, map);
	else
		isl_map_free(map);
	return isl_stat_ok;
}

static int chain_depth(const solar_model *m, const solar_stmt *s);

/* Whether the write ref stores each element at most once: its indices are distinct loop
 * iterators, one for every loop around the statement (a permutation of the instance), or ISL
 * finds its access injective.  A reduction chain (chain_depth_of) answers no without the test:
 * every point of an execution of its loop m stores the same element, and the test (5 M
 * instructions on a padded convolution) would only find the executions of a single point.
 * "No" is safe: the tensor's last writes then go through direct_tensor or ISL's analysis,
 * which are exact for any access. */
static bool writes_once(const solar_model *m, const solar_ref *ref)
{
	const solar_stmt *s = m->prog->stmts[ref->stmt];
	if (chain_depth(m, s) >= 0)
		return false;
	int rank = m->prog->tensors[ref->tensor].rank;
	bool perm = rank == s->depth;
	for (int i = 0; i < rank && perm; i++) {
		perm = s->index[i]->kind == SOLAR_E_ITER;
		for (int j = 0; j < i && perm; j++)
			perm = s->index[j]->sym != s->index[i]->sym;
	}
	if (perm)
		return true;
	char *known = &m->memo[ref->text_id].injective; /* the test depends on the text only */
	if (!*known)
		*known = isl_map_is_injective(ref->access) == isl_bool_true ? 1 : 2;
	return *known == 1;
}

/* Whether the kernel's write refs into the tensor of write ref `r` (r and those after it up to
 * r1) store each element at most once: each ref does, and their images are disjoint.  The
 * answer is kept per tensor in fi->once (1 yes, 2 no) until the kernel is done. */
static bool stored_once(const solar_model *m, flow_info *fi, int r, int r1)
{
	int t = m->refs[r].tensor;
	if (fi->once[t])
		return fi->once[t] == 1;
	bool ok = true;
	for (int a = r; a <= r1 && ok; a++) {
		if (!m->refs[a].write || m->refs[a].tensor != t)
			continue;
		ok = writes_once(m, &m->refs[a]);
		for (int b = r; b < a && ok; b++)
			if (m->refs[b].write && m->refs[b].tensor == t) {
				isl_set *x = isl_map_range(isl_map_copy(m->refs[a].access));
				isl_set *y = isl_map_range(isl_map_copy(m->refs[b].access));
				ok = isl_set_is_disjoint(x, y) == isl_bool_true;
				isl_set_free(x);
				isl_set_free(y);
			}
	}
	fi->once[t] = ok ? 1 : 2;
	return ok;
}

/* The loops an index list of statement s depends on: 1 + the deepest of s's loops whose
 * iterator it uses (0 for constant indices); -1 if it uses an iterator that is not one of s's
 * loops.  *plain: the indices are distinct plain iterators of exactly those loops (a
 * permutation of i0..i<m-1>, one per index). */
static int index_loops(const solar_model *m, const solar_stmt *s, solar_expr *const *idx,
		       int rank, bool *plain)
{
	int depth = 0;
	unsigned seen = 0;
	*plain = true;
	for (int i = 0; i < rank; i++) {
		const solar_expr *e = idx[i];
		if (e->kind != SOLAR_E_ITER)
			*plain = false;
		/* the iterators of e, by an explicit walk of its tree */
		const solar_expr *stack[64];
		int n = 0;
		stack[n++] = e;
		while (n > 0) {
			const solar_expr *x = stack[--n];
			if (x->kind == SOLAR_E_ITER) {
				int pos = m->iter_pos[x->sym];
				if (pos >= s->depth || s->loops[pos] != x->sym)
					return -1;
				if (pos + 1 > depth)
					depth = pos + 1;
				if (e->kind == SOLAR_E_ITER) {
					if (pos >= 32 || (seen >> pos & 1))
						*plain = false;
					else
						seen |= 1u << pos;
				}
			}
			for (int a = 0; a < x->nargs; a++) {
				if (n == 64)
					return -1; /* deeper than any index worth a shortcut */
				stack[n++] = x->args[a];
			}
		}
	}
	*plain = *plain && depth == rank;
	return depth;
}

/* Whether the accesses acc[0..n) (each S[i0..] -> T[e], within its statement's domain, all of
 * them the same index expressions of the same outer `depth` loops) map distinct iterations of
 * those loops to distinct elements: ISL's injectivity test on the union of their projections
 * onto the loops. */
static bool prefix_injective(isl_map *const *acc, int n, int depth)
{
	isl_map *u = NULL;
	for (int i = 0; i < n; i++) {
		isl_map *a = isl_map_copy(acc[i]);
		isl_size dim = isl_map_dim(a, isl_dim_in);
		if (dim < depth) {
			isl_map_free(a);
			isl_map_free(u);
			return false;
		}
		a = isl_map_project_out(a, isl_dim_in, (unsigned)depth, (unsigned)(dim - depth));
		a = isl_map_set_tuple_name(a, isl_dim_in, "P");
		u = u ? isl_map_union(u, a) : a;
	}
	bool ok = u && isl_map_is_injective(u) == isl_bool_true;
	isl_map_free(u);
	return ok;
}

/* The reduction-chain shortcut.  A statement s that reduces into its target (`y[i] += ..`
 * inside `for j`, or `acc[i, h*HD + d] += ..`) is a chain when
 *   - its indices use only iterators of its outermost m loops, m < its depth, and map distinct
 *     iterations of those loops to distinct elements (distinct plain iterators of all m
 *     loops, or else ISL's injectivity test over its domain): the element then fixes those
 *     m iterators, so the instances that store it are those of one execution of loop m (the
 *     loop at depth m around s), in lexicographic order;
 *   - no other statement inside loop m writes the tensor.
 * Returns m, or -1 when s is not a chain (or ISL fails).  solar_model_build computes it once
 * per statement (m->chain). */
static int chain_depth_of(const solar_model *m, const solar_stmt *s)
{
	const solar_program *p = m->prog;
	int rank = p->tensors[s->tensor].rank;
	if (s->op == SOLAR_ASSIGN)
		return -1;
	bool plain;
	int depth = index_loops(m, s, s->index, rank, &plain);
	if (depth < 0 || depth >= s->depth)
		return -1; /* no reduction loop: every instance stores its own element */
	if (!plain && !prefix_injective(&m->refs[m->write_ref[s->id]].access, 1, depth))
		return -1;
	const solar_kernel *kern = &p->kernels[s->kernel];
	for (int t = kern->first_stmt; t < kern->first_stmt + kern->nstmts; t++) {
		const solar_stmt *o = p->stmts[t];
		if (o != s && o->tensor == s->tensor && o->depth > depth &&
		    o->loops[depth] == s->loops[depth])
			return -1;
	}
	return depth;
}

int solar_model_chain_depth(const solar_model *m, int stmt)
{
	return m->chain ? m->chain[stmt] : -1;
}

static int chain_depth(const solar_model *m, const solar_stmt *s)
{
	return solar_model_chain_depth(m, s->id);
}

/* Whether statement o lies inside loop `depth` around statement s. */
static bool inside_loop(const solar_stmt *o, const solar_stmt *s, int depth)
{
	return o->depth > depth && o->loops[depth] == s->loops[depth];
}

/* Of the points of dom (a chain's instances, depth as chain_depth says), those with a later
 * point that has the same first `depth` coordinates: y -> y' with y' after y. */
static isl_map *chain_later(isl_set *dom, int depth)
{
	isl_map *later = isl_map_lex_lt(isl_set_get_space(dom));
	for (int i = 0; i < depth; i++)
		later = isl_map_equate(later, isl_dim_in, i, isl_dim_out, i);
	later = isl_map_intersect_domain(later, isl_set_copy(dom));
	return isl_map_intersect_range(later, dom);
}

/* An affine expression of the program as a piecewise affine function on the local space ls
 * (a statement's domain; iterator i<pos> is its dimension pos, param p<k> its param of that
 * name), the same function that print_aff's text denotes; NULL for anything else. */
static isl_pw_aff *expr_pw_aff(const solar_model *m, isl_local_space *ls, const solar_expr *e)
{
	isl_ctx *ctx = m->ctx;
	const solar_program *p = m->prog;
	if (e->kind == SOLAR_E_INT || (is_constant(m, e) && e->kind != SOLAR_E_ACCESS)) {
		long v = e->kind == SOLAR_E_INT ? (long)e->ival : (long)solar_ir_eval_const(p, e);
		return isl_pw_aff_from_aff(
			isl_aff_val_on_domain(isl_local_space_copy(ls), isl_val_int_from_si(ctx, v)));
	}
	if (e->kind == SOLAR_E_ITER)
		return isl_pw_aff_from_aff(isl_aff_var_on_domain(
			isl_local_space_copy(ls), isl_dim_set, (unsigned)m->iter_pos[e->sym]));
	if (e->kind == SOLAR_E_PARAM) {
		char name[32];
		snprintf(name, sizeof name, "p%d", e->sym);
		int pos = isl_local_space_find_dim_by_name(ls, isl_dim_param, name);
		return pos < 0 ? NULL
			       : isl_pw_aff_from_aff(isl_aff_var_on_domain(
					 isl_local_space_copy(ls), isl_dim_param, (unsigned)pos));
	}
	isl_pw_aff *a = e->nargs ? expr_pw_aff(m, ls, e->args[0]) : NULL;
	if (!a)
		return NULL;
	if (e->kind == SOLAR_E_NEG)
		return isl_pw_aff_neg(a);
	if (e->kind == SOLAR_E_BIN &&
	    (e->binop == SOLAR_OP_FLOORDIV || e->binop == SOLAR_OP_MOD)) {
		isl_val *c = isl_val_int_from_si(ctx, (long)solar_ir_eval_const(p, e->args[1]));
		return e->binop == SOLAR_OP_MOD ? isl_pw_aff_mod_val(a, c)
						: isl_pw_aff_floor(isl_pw_aff_scale_down_val(a, c));
	}
	bool call = e->kind == SOLAR_E_CALL;
	if ((!call && e->kind != SOLAR_E_BIN) ||
	    (!call && e->binop != SOLAR_OP_ADD && e->binop != SOLAR_OP_SUB &&
	     e->binop != SOLAR_OP_MUL)) {
		isl_pw_aff_free(a);
		return NULL;
	}
	for (int i = 1; i < e->nargs && a; i++) {
		isl_pw_aff *b = expr_pw_aff(m, ls, e->args[i]);
		if (!b) {
			isl_pw_aff_free(a);
			return NULL;
		}
		if (call)
			a = e->fn == SOLAR_FN_MIN ? isl_pw_aff_min(a, b) : isl_pw_aff_max(a, b);
		else if (e->binop == SOLAR_OP_ADD)
			a = isl_pw_aff_add(a, b);
		else if (e->binop == SOLAR_OP_SUB)
			a = isl_pw_aff_sub(a, b);
		else
			a = isl_pw_aff_mul(a, b);
	}
	return a;
}

static isl_pw_aff *minus_one(isl_pw_aff *pa)
{
	return isl_pw_aff_add_constant_val(pa, isl_val_negone(isl_pw_aff_get_ctx(pa)));
}

/* A chain's closed form over dom (statement s's domain, under any tuple name) for chain
 * depth c: per loop j from c on, its iterator, its lo and its hi - 1 as functions on dom's
 * space, and the sets where the iterators of the loops after j are at their lo (first[j]:
 * lo_j+1 .. lo_d-1, first[d-1]: dom).  Returns false (all freed) when a bound is not one
 * that expr_pw_aff writes. */
typedef struct {
	int c, d;
	isl_pw_aff **var, **lo, **last;
	isl_set **after; /* after[j - c]: dom with i_j+1 .. i_d-1 at their lo */
} box_forms;

static void box_forms_free(box_forms *f)
{
	for (int j = 0; j < f->d - f->c; j++) {
		isl_pw_aff_free(f->var[j]);
		isl_pw_aff_free(f->lo[j]);
		isl_pw_aff_free(f->last[j]);
		isl_set_free(f->after[j]);
	}
	free(f->var);
	free(f->lo);
	free(f->last);
	free(f->after);
}

static bool box_forms_make(const solar_model *m, const solar_stmt *s, isl_set *dom, int c,
			   bool want_after, box_forms *f)
{
	const chain_box *box = m->box[s->id];
	size_t n = (size_t)(s->depth - c);
	f->c = c;
	f->d = s->depth;
	f->var = solar_xcalloc(n, sizeof *f->var);
	f->lo = solar_xcalloc(n, sizeof *f->lo);
	f->last = solar_xcalloc(n, sizeof *f->last);
	f->after = solar_xcalloc(n, sizeof *f->after);
	isl_local_space *ls = isl_local_space_from_space(isl_set_get_space(dom));
	bool ok = ls != NULL;
	for (int j = c; j < s->depth && ok; j++) {
		f->var[j - c] = isl_pw_aff_from_aff(
			isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)j));
		f->lo[j - c] = expr_pw_aff(m, ls, box->lo[j - box->from]);
		isl_pw_aff *hi = expr_pw_aff(m, ls, box->hi[j - box->from]);
		f->last[j - c] = hi ? minus_one(hi) : NULL;
		ok = f->var[j - c] && f->lo[j - c] && f->last[j - c];
	}
	isl_local_space_free(ls);
	if (ok && want_after) {
		isl_set *a = isl_set_universe(isl_set_get_space(dom));
		for (int j = s->depth - 1; j >= c && a; j--) {
			f->after[j - c] = isl_set_copy(a);
			if (j > c)
				a = isl_set_intersect(a, isl_pw_aff_eq_set(isl_pw_aff_copy(f->var[j - c]),
									   isl_pw_aff_copy(f->lo[j - c])));
		}
		isl_set_free(a);
		ok = a != NULL;
	}
	if (!ok)
		box_forms_free(f);
	return ok;
}

/* The points of dom with i_j = lo_j for every j >= c (first), or i_j = hi_j - 1 (last). */
static isl_set *box_ends(const box_forms *f, isl_set *dom, bool last)
{
	isl_set *ends = isl_set_universe(isl_set_get_space(dom));
	for (int j = f->c; j < f->d; j++) /* dom once at the end: cheaper than every time */
		ends = isl_set_intersect(ends, isl_pw_aff_eq_set(isl_pw_aff_copy(f->var[j - f->c]),
								 isl_pw_aff_copy(last ? f->last[j - f->c]
										      : f->lo[j - f->c])));
	return isl_set_intersect(dom, ends);
}

/* The previous point of a chain of depth c in closed form, R[y] -> S[prev(y)] (closed-form
 * chains), over dom, the read's domain: one piece per loop k >= c, where y_k > lo_k and every
 * later y_j = lo_j. */
static isl_map *box_prev(const solar_model *m, const solar_stmt *s, isl_set *dom, int c,
			 const char *sname)
{
	box_forms f;
	if (!box_forms_make(m, s, dom, c, true, &f)) {
		isl_set_free(dom);
		return NULL;
	}
	isl_space *sp = isl_space_set_tuple_name(isl_set_get_space(dom), isl_dim_set, sname);
	sp = isl_space_map_from_domain_and_range(isl_set_get_space(dom), sp);
	isl_local_space *ls = isl_local_space_from_space(isl_set_get_space(dom));
	isl_map *prev = isl_map_empty(isl_space_copy(sp));
	for (int k = c; k < s->depth; k++) {
		isl_set *piece = isl_set_intersect(
			isl_set_copy(f.after[k - c]),
			isl_pw_aff_gt_set(isl_pw_aff_copy(f.var[k - c]), isl_pw_aff_copy(f.lo[k - c])));
		isl_pw_aff_list *img = isl_pw_aff_list_alloc(m->ctx, s->depth);
		for (int j = 0; j < s->depth; j++) {
			isl_pw_aff *e = j < k  ? isl_pw_aff_from_aff(isl_aff_var_on_domain(
							isl_local_space_copy(ls), isl_dim_set, (unsigned)j))
					: j == k ? minus_one(isl_pw_aff_copy(f.var[k - c]))
						 : isl_pw_aff_copy(f.last[j - c]);
			img = isl_pw_aff_list_add(img, e);
		}
		/* through a piecewise multi-affine function: isl_map_from_multi_pw_aff tests the
		 * emptiness of each partial product, quadratic in the depth with a costly test */
		isl_pw_multi_aff *pma = isl_pw_multi_aff_from_multi_pw_aff(
			isl_multi_pw_aff_from_pw_aff_list(isl_space_copy(sp), img));
		pma = isl_pw_multi_aff_intersect_domain(pma, piece);
		prev = isl_map_union(prev, isl_map_from_pw_multi_aff(pma));
	}
	prev = isl_map_intersect_domain(prev, dom);
	isl_local_space_free(ls);
	isl_space_free(sp);
	box_forms_free(&f);
	return prev;
}

/* The first (or last) points of each chain of depth c of dom (closed-form chains): from the
 * bounds' affine forms as disjoint basic sets when they have them (solar_affine_ends: no
 * piecewise functions to build and intersect), else through expr_pw_aff; NULL when the bounds
 * are not ones expr_pw_aff writes either. */
static isl_set *box_end(const solar_model *m, const solar_stmt *s, isl_set *dom, int c, bool last)
{
	const chain_box *box = m->box[s->id];
	isl_set *ends = solar_affine_ends(m, box->lo + (c - box->from), box->hi + (c - box->from), c,
					  s->depth, last, isl_set_get_tuple_name(dom));
	if (ends)
		return isl_set_intersect(dom, ends);
	box_forms f;
	if (!box_forms_make(m, s, dom, c, false, &f)) {
		isl_set_free(dom);
		return NULL;
	}
	dom = box_ends(&f, dom, last);
	box_forms_free(&f);
	return dom;
}


static isl_map *renamed_map(isl_map *map, const char *in, const char *out)
{
	return isl_map_set_tuple_name(isl_map_set_tuple_name(map, isl_dim_in, in), isl_dim_out, out);
}

/* The chain depth of statement s when ref is its implicit read of its own target and s is a
 * chain (chain_depth_of); else -1. */
static int chain_read_depth(const solar_model *m, const solar_ref *ref)
{
	if (ref->write || ref->expr)
		return -1;
	return chain_depth(m, m->prog->stmts[ref->stmt]);
}

/* The points of chain read r without a previous point (the first point of each execution of
 * loop m), R<r>[x]: the analysis still finds their source.  In closed form for a box
 * (every chain iterator at its lo), else the points no earlier point of their execution
 * precedes.  NULL when r is not a chain's read or ISL fails. */
static isl_set *chain_first(const solar_model *m, int r)
{
	const solar_ref *ref = &m->refs[r];
	int depth = chain_read_depth(m, ref);
	if (depth < 0)
		return NULL;
	const solar_stmt *s = m->prog->stmts[ref->stmt];
	const char *rname = isl_map_get_tuple_name(ref->access, isl_dim_in);
	chain_memo *memo = &m->memo[ref->text_id];
	if (memo->first && memo->first_depth == depth)
		return isl_set_set_tuple_name(isl_set_copy(memo->first), rname);
	isl_set *dom = isl_map_domain(isl_map_copy(ref->access));
	isl_set *first = NULL;
	if (m->box[s->id] && m->box[s->id]->from <= depth)
		first = box_end(m, s, isl_set_copy(dom), depth, false);
	if (!first)
		first = isl_set_subtract(isl_set_copy(dom),
					 isl_map_range(chain_later(isl_set_copy(dom), depth)));
	isl_set_free(dom);
	if (first && !memo->first) {
		memo->first_depth = depth;
		memo->first = isl_set_copy(first);
	}
	return first;
}

/* The links of chain read r: it reads what the chain wrote at the previous point of one
 * execution of loop m, since only statements inside that execution run between two of its
 * points, and none of them but s writes the tensor.  That previous point is an exact lexmax
 * over s's own domain (any guard, stride or triangle included), or in closed form for a box.
 * Returns that dependence, S[y] -> R<r>[x]; NULL when r is not a chain's read or ISL fails. */
static isl_map *chain_prev(const solar_model *m, int r)
{
	const solar_ref *ref = &m->refs[r];
	int depth = chain_read_depth(m, ref);
	if (depth < 0)
		return NULL;
	const solar_stmt *s = m->prog->stmts[ref->stmt];
	char name[32];
	solar_model_stmt_name(name, sizeof name, s->id);
	const char *rname = isl_map_get_tuple_name(ref->access, isl_dim_in);
	chain_memo *memo = &m->memo[ref->text_id];
	if (memo->prev && memo->depth == depth)
		return renamed_map(isl_map_copy(memo->prev), name, rname);
	isl_map *prev = NULL;
	if (m->box[s->id] && m->box[s->id]->from <= depth)
		prev = box_prev(m, s, isl_map_domain(isl_map_copy(ref->access)), depth, name);
	if (!prev) {
		isl_set *dom = isl_map_domain(isl_map_copy(ref->access));
		prev = isl_map_lexmax(isl_map_reverse(chain_later(dom, depth)));
		prev = isl_map_set_tuple_name(prev, isl_dim_out, name);
	}
	prev = isl_map_reverse(prev);
	if (prev && !memo->prev) {
		memo->depth = depth;
		memo->prev = isl_map_copy(prev);
	}
	return prev;
}

/* The source access of write ref w for the kernel's analysis.  When w's statement s is a
 * chain and every sink that reads its tensor is outside loop m around s (or is s's own read,
 * chained: its remaining points never read s), only the last point of each execution of loop
 * m can be the last write before a sink: the execution is over before such a sink runs, and
 * its later points store the same element after the earlier ones.  The source is then the
 * access restricted to those last points; else the whole access. */
static isl_map *chain_source(const solar_model *m, const flow_info *fi, int w, int r0, int r1,
			     bool *compressed)
{
	*compressed = false;
	const solar_ref *ref = &m->refs[w];
	const solar_stmt *s = m->prog->stmts[ref->stmt];
	int depth = chain_depth(m, s);
	for (int r = r0; r <= r1 && depth >= 0; r++) {
		const solar_ref *o = &m->refs[r];
		if (!o->write && o->tensor == ref->tensor && fi->in_flow[r] && !fi->chained[r] &&
		    inside_loop(m->prog->stmts[o->stmt], s, depth))
			depth = -1;
	}
	if (depth < 0)
		return isl_map_copy(ref->access);
	chain_memo *memo = &m->memo[ref->text_id];
	isl_set *dom = NULL;
	if (memo->last && memo->last_depth == depth)
		dom = isl_set_set_tuple_name(isl_set_copy(memo->last),
					     isl_map_get_tuple_name(ref->access, isl_dim_in));
	if (!dom && m->box[s->id] && m->box[s->id]->from <= depth)
		dom = box_end(m, s, isl_map_domain(isl_map_copy(ref->access)), depth, true);
	if (!dom) {
		dom = isl_map_domain(isl_map_copy(ref->access));
		isl_map *later = chain_later(isl_set_copy(dom), depth);
		dom = isl_set_subtract(dom, isl_map_domain(later));
	}
	if (!memo->last && dom) {
		memo->last_depth = depth;
		memo->last = isl_set_copy(dom);
	}
	*compressed = true;
	return isl_map_intersect_domain(isl_map_copy(ref->access), dom);
}

/* The indices of ref r: its expression's, or its statement's for the store and for the
 * implicit read of a reduction's target. */
static solar_expr *const *ref_index(const solar_model *m, const solar_ref *ref)
{
	return ref->expr ? ref->expr->args : m->prog->stmts[ref->stmt]->index;
}

/* Whether, for every element that refs a (of statement sa) and b (of sb) both access, the
 * iteration of the loops the two statements share (their common outer loops 0..L-1) is the
 * same: each of those loops is, at one index position, the plain iterator of both refs
 * (`t[i, j, ..]` under shared loops i, j), or else ISL finds the element -> iteration relation
 * of the two together single-valued. */
static bool same_iteration(const solar_model *m, const solar_stmt *sa, const solar_stmt *sb,
			   solar_expr *const *ia, solar_expr *const *ib, int rank, isl_map *a,
			   isl_map *b)
{
	(void)m;
	int L = 0;
	while (L < sa->depth && L < sb->depth && sa->loops[L] == sb->loops[L])
		L++;
	bool plain = true;
	for (int k = 0; k < L && plain; k++) {
		bool found = false;
		for (int j = 0; j < rank && !found; j++)
			found = ia[j]->kind == SOLAR_E_ITER && ib[j]->kind == SOLAR_E_ITER &&
				ia[j]->sym == sa->loops[k] && ib[j]->sym == sa->loops[k];
		plain = found;
	}
	if (plain)
		return true;
	isl_map *u = NULL;
	isl_map *both[2] = {a, b};
	for (int i = 0; i < 2; i++) {
		isl_map *x = isl_map_copy(both[i]);
		isl_size dim = isl_map_dim(x, isl_dim_in);
		x = isl_map_project_out(x, isl_dim_in, (unsigned)L, (unsigned)(dim < L ? 0 : dim - L));
		x = isl_map_set_tuple_name(isl_map_reverse(x), isl_dim_out, "P");
		u = u ? isl_map_union(u, x) : x;
	}
	bool ok = u && isl_map_is_single_valued(u) == isl_bool_true;
	isl_map_free(u);
	return ok;
}

/* The dataflow of tensor t inside the kernel without ISL's analysis.  acc[r - r0] is the sink
 * access of read ref r (restricted to a chain's first points) or the source access of write
 * ref r (compressed[r - r0]: restricted to a chain's last points), NULL when r is neither.
 * It applies when
 *   - every source stores each element at most once: its indices are distinct plain
 *     iterators of all its loops, or it is a chain compressed to its last points (whose
 *     element fixes the execution of its loop m, chain_depth_of), or ISL finds its access
 *     injective;
 *   - every source and every other ref of t agree, for each element both access, on the
 *     iteration of the loops their two statements share (same_iteration).  Their accesses
 *     to the element then happen in that one iteration, in two different items of the body
 *     of the last shared loop (a statement, or a loop below it: one item, run once per
 *     iteration), and those run in textual (statement id) order; a source and a read of
 *     its own statement have the same indices, so the read is of the instance's own
 *     element, before the store.
 * A sink then reads the source of the highest id below its own that stores its element (a
 * read of a statement precedes its store; a compressed chain is never a source of its own
 * first points), and the last write of an element is that of the highest id.  Adds the
 * dependences to *to_reads (W -> R), the reads with no source in the kernel to *exposed
 * (R -> T) and, when need_last, the last writes to *last_w (T -> W).  Returns false, adding
 * nothing, when a condition fails. */
static bool direct_tensor(const solar_model *m, const flow_info *fi, int t, int r0, int r1,
			  isl_map *const *acc, const bool *compressed, bool need_last,
			  isl_union_map **to_reads, isl_union_map **exposed, isl_union_map **last_w)
{
	const solar_program *p = m->prog;
	int rank = p->tensors[t].rank;
	for (int w = r0; w <= r1; w++) {
		const solar_ref *wr = &m->refs[w];
		if (!wr->write || wr->tensor != t || !acc[w - r0])
			continue;
		const solar_stmt *sw = p->stmts[wr->stmt];
		solar_expr *const *iw = ref_index(m, wr);
		bool plain;
		int loops = index_loops(m, sw, iw, rank, &plain);
		if (loops < 0)
			return false;
		if (!compressed[w - r0] && !(plain && loops == sw->depth) &&
		    isl_map_is_injective(acc[w - r0]) != isl_bool_true)
			return false; /* some element stored twice */
		for (int x = r0; x <= r1; x++) {
			const solar_ref *xr = &m->refs[x];
			if (x == w || xr->tensor != t || !acc[x - r0])
				continue;
			const solar_stmt *sx = p->stmts[xr->stmt];
			solar_expr *const *ix = ref_index(m, xr);
			if (sx == sw) { /* the statement's read of what its own instance stores */
				for (int i = 0; i < rank; i++)
					if (!solar_ir_expr_equal(iw[i], ix[i]))
						return false;
				continue;
			}
			if (!same_iteration(m, sw, sx, iw, ix, rank, acc[w - r0], acc[x - r0]))
				return false;
		}
	}
	for (int r = r0; r <= r1; r++) {
		const solar_ref *rd = &m->refs[r];
		if (rd->write || rd->tensor != t || !acc[r - r0])
			continue;
		isl_map *rem = isl_map_copy(acc[r - r0]);
		for (int w = r1; w >= r0; w--) {
			const solar_ref *wr = &m->refs[w];
			if (!wr->write || wr->tensor != t || !acc[w - r0] || wr->stmt >= rd->stmt)
				continue;
			isl_map *from = isl_map_apply_range(isl_map_copy(rem),
							    isl_map_reverse(isl_map_copy(acc[w - r0])));
			/* the reads left: those of elements w does not store (a read reads one
			 * element, so this is rem minus the domain of `from`, without the
			 * subtraction of a domain that ISL proves piece by piece) */
			rem = isl_map_subtract_range(rem, isl_map_range(isl_map_copy(acc[w - r0])));
			*to_reads = isl_union_map_add_map(*to_reads, isl_map_reverse(from));
		}
		*exposed = isl_union_map_add_map(*exposed, rem);
	}
	if (need_last) {
		isl_set *later = NULL; /* the elements that sources of higher ids store */
		for (int w = r1; w >= r0; w--) {
			const solar_ref *wr = &m->refs[w];
			if (!wr->write || wr->tensor != t || !acc[w - r0])
				continue;
			isl_map *lw = isl_map_reverse(isl_map_copy(acc[w - r0]));
			if (later)
				lw = isl_map_subtract_domain(lw, isl_set_copy(later));
			isl_set *range = isl_map_range(isl_map_copy(acc[w - r0]));
			later = later ? isl_set_union(later, range) : range;
			*last_w = isl_union_map_add_map(*last_w, lw);
		}
		isl_set_free(later);
	}
	return true;
}

/* The dataflow of kernel k alone (its reads and "last write" sinks against its writes), then
 * its upward-exposed reads resolved through the last writes of the kernels before it.  This is
 * exact: a read's source is the last write before it, which is in its own kernel if that
 * kernel wrote the element before the read, else the last write of the element before the
 * kernel.  Cost grows with the kernels one by one instead of all writes against all reads.
 * Two more exact savings: a read of a tensor the kernel does not write has no source in it, so
 * it skips the kernel's analysis; and the last writes are kept only of tensors that a later
 * kernel (or the END reader) reads, since no other read can ask for them.  A reduction chain's
 * read of its own target is fed by its previous point (chain_prev), and only the last point of
 * each chain can feed the analysis' other sinks (chain_source).  A tensor whose accesses to
 * each element happen in one iteration of the loops they share, in textual order, needs no
 * analysis at all (direct_tensor). */
/* The maps one kernel's dataflow collects, from its accesses to the resolution of its
 * exposed reads; flow_kernel consumes each of them once. */
typedef struct {
	isl_union_map *sink;	       /* the analysis' sinks: reads fed inside the kernel */
	isl_union_map *outside;	       /* reads of tensors the kernel does not write */
	isl_union_map *src;	       /* the analysis' sources */
	isl_union_map *lw;	       /* L<t>[e] -> T<t>[e]: the last-write sinks */
	isl_union_map *direct_last;    /* last writes known without ISL */
	isl_union_map *chained;	       /* reduction chains (chain_prev) */
	isl_union_map *direct_dep;     /* direct_tensor's dependences */
	isl_union_map *direct_exposed; /* direct_tensor's reads with no source in the kernel */
	bool failed; /* an ISL operation failed (a sink or source would be missing) */
} kernel_maps;

/* Where each read of refs r0..r1 goes: a chain's first points or the whole read to the
 * analysis' sinks (acc), a read of a tensor the kernel does not write to km->outside, a
 * read of a tensor nothing writes to *nosrc. */
static void flow_reads(const solar_model *m, flow_info *fi, kernel_maps *km, int r0, int r1,
		       isl_map **acc, isl_union_set **nosrc)
{
	for (int r = r0; r <= r1; r++) {
		const solar_ref *ref = &m->refs[r];
		fi->in_flow[r] = !ref->write && fi->in_kernel[ref->tensor];
		if (ref->write)
			continue;
		/* a chain's read: its links now (or on demand, solar_model_fed_by), its
		 * first points to the analysis */
		isl_set *first_pts = fi->in_kernel[ref->tensor] ? chain_first(m, r) : NULL;
		isl_map *prev = first_pts && fi->links ? chain_prev(m, r) : NULL;
		if (fi->links && !prev)
			first_pts = isl_set_free(first_pts);
		fi->chained[r] = first_pts != NULL;
		m->links_omitted[r] = first_pts && !fi->links;
		if (first_pts) {
			if (prev)
				km->chained = isl_union_map_add_map(km->chained, prev);
			isl_bool none = isl_set_is_empty(first_pts);
			km->failed |= none == isl_bool_error;
			fi->in_flow[r] = none == isl_bool_false;
			if (fi->in_flow[r]) {
				acc[r - r0] =
				    isl_map_intersect_domain(isl_map_copy(ref->access), first_pts);
				km->failed |= !acc[r - r0];
				fi->sinked[ref->tensor] = true;
			} else {
				isl_set_free(first_pts);
			}
		} else if (fi->in_kernel[ref->tensor]) {
			acc[r - r0] = isl_map_copy(ref->access);
			fi->sinked[ref->tensor] = true;
		} else if (fi->written[ref->tensor]) {
			km->outside = isl_union_map_add_map(km->outside, isl_map_copy(ref->access));
		} else {
			*nosrc = isl_union_set_add_set(*nosrc,
						       isl_map_domain(isl_map_copy(ref->access)));
		}
	}
}

/* The writes of kernel k's refs r0..r1: the last writes a later kernel reads, known
 * directly or left to the analysis, and the sources (acc) of the tensors a sink reads. */
static void flow_writes(const solar_model *m, flow_info *fi, kernel_maps *km, int k, int r0, int r1,
			isl_map **acc, bool *compressed)
{
	/* a tensor whose every element the kernel stores at most once needs no analysis of
	 * its last writes: that write is the last (T<t>[e] -> S<stmt>[..], its access
	 * reversed); else its last writes are sinks (fi->once[t] == 2) */
	for (int r = r0; r <= r1; r++) {
		const solar_ref *ref = &m->refs[r];
		if (!ref->write || fi->last_reader[ref->tensor] <= k)
			continue;
		if (stored_once(m, fi, r, r1))
			km->direct_last = isl_union_map_add_map(
			    km->direct_last, isl_map_reverse(isl_map_copy(ref->access)));
		else
			fi->sinked[ref->tensor] = true;
	}
	/* the sources: the writes of tensors that some sink reads */
	for (int r = r0; r <= r1; r++) {
		const solar_ref *ref = &m->refs[r];
		if (ref->write && fi->sinked[ref->tensor]) {
			acc[r - r0] = chain_source(m, fi, r, r0, r1, &compressed[r - r0]);
			km->failed |= !acc[r - r0];
			fi->in_flow[r] = true;
		}
	}
}

/* L<t>[e] -> T<t>[e] over the elements write ref stores: the sink that asks the analysis
 * for the last write of each. */
static isl_map *last_write_sink(const solar_ref *ref, int t)
{
	char name[48];
	snprintf(name, sizeof name, "L%d", t);
	if (ref->data) /* L<t>d<mask>: split_dep turns it back into the shadow, never T<t> */
		snprintf(name, sizeof name, "L%dd%u", t, ref->data);
	isl_map *mp = isl_map_identity(
	    isl_space_map_from_set(isl_space_range(isl_map_get_space(ref->access))));
	mp = isl_map_intersect_range(mp, isl_map_range(isl_map_copy(ref->access)));
	return isl_map_set_tuple_name(mp, isl_dim_in, name);
}

/* Tensor by tensor: without the analysis where direct_tensor can, else its sinks, its
 * sources and L<t>[e] -> T<t>[e] for every element the kernel writes of a tensor read later
 * go to the analysis. */
static void flow_tensors(const solar_model *m, flow_info *fi, kernel_maps *km, int r0, int r1,
			 isl_map **acc, const bool *compressed)
{
	for (int r = r0; r <= r1; r++) {
		int t = m->refs[r].tensor;
		if (!fi->sinked[t])
			continue;
		fi->sinked[t] = false; /* done */
		bool need_last = fi->once[t] == 2;
		bool direct_ok =
		    direct_tensor(m, fi, t, r0, r1, acc, compressed, need_last, &km->direct_dep,
				  &km->direct_exposed, &km->direct_last);
		for (int q = r; q <= r1; q++) {
			const solar_ref *ref = &m->refs[q];
			if (ref->tensor != t || !acc[q - r0])
				continue;
			if (direct_ok)
				fi->in_flow[q] = false;
			else if (!ref->write)
				km->sink =
				    isl_union_map_add_map(km->sink, isl_map_copy(acc[q - r0]));
			else
				km->src = isl_union_map_add_map(km->src, isl_map_copy(acc[q - r0]));
			if (direct_ok || !ref->write || !need_last)
				continue;
			km->lw = isl_union_map_add_map(km->lw, last_write_sink(ref, t));
		}
	}
}

/* The accesses of kernel kern (number k) sorted into km; the per-tensor scratch of fi is
 * left clear for the next kernel. */
static void kernel_accesses(const solar_model *m, const solar_kernel *kern, int k, flow_info *fi,
			    kernel_maps *km, isl_union_set **nosrc)
{
	int first = kern->first_stmt, last_stmt = kern->first_stmt + kern->nstmts;
	int r0 = first ? m->write_ref[first - 1] + 1 : 0, r1 = m->write_ref[last_stmt - 1];
	isl_map **acc = solar_xcalloc((size_t)(r1 - r0 + 1), sizeof *acc); /* sinks, sources */
	bool *compressed = solar_xcalloc((size_t)(r1 - r0 + 1), sizeof *compressed);
	for (int r = r0; r <= r1; r++)
		if (m->refs[r].write)
			fi->in_kernel[m->refs[r].tensor]++;
	flow_reads(m, fi, km, r0, r1, acc, nosrc);
	flow_writes(m, fi, km, k, r0, r1, acc, compressed);
	flow_tensors(m, fi, km, r0, r1, acc, compressed);
	for (int r = r0; r <= r1; r++) {
		isl_map_free(acc[r - r0]);
		fi->in_kernel[m->refs[r].tensor] = 0;
		fi->sinked[m->refs[r].tensor] = false;
		fi->once[m->refs[r].tensor] = 0;
	}
	free(acc);
	free(compressed);
}

/* The analysis of km's sinks against its sources in kern's schedule, where it has both:
 * the dependences and last writes into *f, and in *exposed the reads no source of the
 * kernel feeds (R -> T; without the analysis, every sink).  Consumes km->src and km->lw.
 * Returns -1 where ISL could not compute the flow. */
static int analyse_kernel(const solar_model *m, const flow_info *fi, const solar_kernel *kern,
			  kernel_maps *km, flow_split *f, isl_union_map **exposed)
{
	if (!(kern && isl_union_map_is_empty(km->src) == isl_bool_false &&
	      (isl_union_map_is_empty(km->sink) == isl_bool_false ||
	       isl_union_map_is_empty(km->lw) == isl_bool_false))) {
		km->src = isl_union_map_free(km->src);
		km->lw = isl_union_map_free(km->lw);
		*exposed = isl_union_map_copy(km->sink);
		return 0;
	}
	isl_schedule *sched = sched_block(m, fi->in_flow, &kern->body, 0);
	if (isl_union_map_is_empty(km->lw) == isl_bool_false)
		sched =
		    seq(sched,
			isl_schedule_from_domain(isl_union_map_domain(isl_union_map_copy(km->lw))));
	isl_union_access_info *ai = isl_union_access_info_from_sink(
	    isl_union_map_union(isl_union_map_copy(km->sink), km->lw));
	ai = isl_union_access_info_set_must_source(ai, km->src);
	km->src = km->lw = NULL;
	ai = isl_union_access_info_set_schedule(ai, sched);
	isl_union_flow *flow = isl_union_access_info_compute_flow(ai);
	if (!flow)
		return -1;
	isl_union_map *d = isl_union_flow_get_must_dependence(flow);
	*exposed = isl_union_flow_get_must_no_source(flow);
	isl_union_flow_free(flow);
	isl_union_map_foreach_map(d, split_dep, f);
	isl_union_map_free(d);
	/* the L sinks always have a source; keep only real reads */
	*exposed = isl_union_map_intersect(*exposed, isl_union_map_copy(km->sink));
	return 0;
}

static int flow_kernel(const solar_model *m, int k, flow_info *fi, isl_union_map **last,
		       isl_union_map **dep, isl_union_set **nosrc)
{
	const solar_program *p = m->prog;
	solar_isl_budget_kernel(m->ctx);
	isl_space *sp = isl_space_params_alloc(m->ctx, 0);
	kernel_maps km = {0};
	km.sink = isl_union_map_empty(isl_space_copy(sp));
	km.outside = isl_union_map_empty(isl_space_copy(sp));
	km.src = isl_union_map_empty(isl_space_copy(sp));
	km.lw = isl_union_map_empty(isl_space_copy(sp));
	km.direct_last = isl_union_map_empty(isl_space_copy(sp));
	km.chained = isl_union_map_empty(isl_space_copy(sp));
	km.direct_dep = isl_union_map_empty(isl_space_copy(sp));
	km.direct_exposed = isl_union_map_empty(sp);
	const solar_kernel *kern = k < p->nkernels ? &p->kernels[k] : NULL;
	if (kern && kern->nstmts) {
		kernel_accesses(m, kern, k, fi, &km, nosrc);
	} else if (!kern) { /* the END reader of every out/inout element, after all kernels */
		for (int t = 0; t < p->ntensors; t++)
			if (p->tensors[t].role == SOLAR_ROLE_OUT || p->tensors[t].role == SOLAR_ROLE_INOUT)
				km.outside =
				    isl_union_map_add_map(km.outside, solar_model_end_access(m, t));
	}
	isl_union_map *exposed; /* reads not fed inside the kernel: R[i] -> T[e] */
	flow_split f = {isl_union_map_empty(isl_union_map_get_space(*last)),
			isl_union_map_empty(isl_union_map_get_space(*last))};
	if (analyse_kernel(m, fi, kern, &km, &f, &exposed) < 0) {
		isl_union_map_free(km.sink);
		isl_union_map_free(km.outside);
		isl_union_map_free(km.direct_last);
		isl_union_map_free(km.chained);
		isl_union_map_free(km.direct_dep);
		isl_union_map_free(km.direct_exposed);
		isl_union_map_free(f.to_reads);
		isl_union_map_free(f.last);
		return -1;
	}
	isl_union_map_free(km.sink);
	exposed = isl_union_map_union(isl_union_map_union(exposed, km.outside), km.direct_exposed);
	/* exposed reads take the last write before the kernel, if any */
	isl_union_map *before = isl_union_map_apply_range(isl_union_map_copy(exposed),
							  isl_union_map_copy(*last));
	*nosrc = isl_union_set_union(
		*nosrc, isl_union_set_subtract(isl_union_map_domain(exposed),
					       isl_union_map_domain(isl_union_map_copy(before))));
	*dep = isl_union_map_union(*dep, isl_union_map_union(f.to_reads, isl_union_map_reverse(before)));
	*dep = isl_union_map_union(*dep, isl_union_map_union(km.chained, km.direct_dep));
	f.last = isl_union_map_union(f.last, km.direct_last);
	/* the kernel's last writes replace the earlier ones on the elements it wrote; the last
	 * writes of tensors nothing after this kernel reads are dropped */
	isl_union_set *mine = isl_union_map_domain(isl_union_map_copy(f.last));
	*last = isl_union_map_union(isl_union_map_subtract_domain(*last, mine), f.last);
	live_filter lf = {m, fi, k, isl_union_map_empty(isl_union_map_get_space(*last))};
	if (*last && isl_union_map_foreach_map(*last, keep_live, &lf) == isl_stat_ok) {
		isl_union_map_free(*last);
		*last = lf.keep;
	} else {
		isl_union_map_free(lf.keep);
	}
	if (km.failed)
		*dep = isl_union_map_free(*dep);
	return *dep && *nosrc && *last ? 0 : -1;
}

int solar_model_flow(const solar_model *m, bool links, isl_union_map **dep,
		     isl_union_set **no_source)
{
	const solar_program *p = m->prog;
	flow_info fi = {solar_xcalloc((size_t)p->ntensors + 1, sizeof *fi.written),
			solar_xmalloc(((size_t)p->ntensors + 1) * sizeof *fi.last_reader),
			solar_xcalloc((size_t)p->ntensors + 1, sizeof *fi.in_kernel),
			solar_xcalloc((size_t)p->ntensors + 1, sizeof *fi.sinked),
			solar_xcalloc((size_t)p->ntensors + 1, sizeof *fi.once),
			solar_xcalloc((size_t)m->nrefs + 1, sizeof *fi.in_flow),
			solar_xcalloc((size_t)m->nrefs + 1, sizeof *fi.chained), links};
	for (int t = 0; t < p->ntensors; t++)
		fi.last_reader[t] = p->tensors[t].role == SOLAR_ROLE_OUT ||
					    p->tensors[t].role == SOLAR_ROLE_INOUT
				    ? p->nkernels
				    : -1;
	for (int r = 0; r < m->nrefs; r++) {
		const solar_ref *ref = &m->refs[r];
		int k = p->stmts[ref->stmt]->kernel;
		if (ref->write)
			fi.written[ref->tensor] = true;
		else if (k > fi.last_reader[ref->tensor])
			fi.last_reader[ref->tensor] = k;
	}
	isl_union_map *d = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
	isl_union_set *ns = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
	isl_union_map *last = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
	int rc = 0;
	for (int k = 0; k <= p->nkernels && rc == 0; k++)
		rc = flow_kernel(m, k, &fi, &last, &d, &ns);
	free(fi.written);
	free(fi.last_reader);
	free(fi.in_kernel);
	free(fi.in_flow);
	free(fi.chained);
	free(fi.sinked);
	free(fi.once);
	isl_union_map_free(last);
	if (rc < 0 || !d || !ns) {
		isl_union_map_free(d);
		isl_union_set_free(ns);
		return -1;
	}
	if (dep)
		*dep = d;
	else
		isl_union_map_free(d);
	if (no_source)
		*no_source = ns;
	else
		isl_union_set_free(ns);
	return 0;
}

/* ---- queries on the model and its dataflow, shared by the counts and the rules ---- */

const solar_expr *solar_model_uncast(const solar_expr *e)
{
	while (e->kind == SOLAR_E_CAST)
		e = e->args[0];
	return e;
}

isl_map *solar_model_fed_by(const solar_model *m, isl_union_map *dep, int src, int r)
{
	isl_space *space = isl_space_map_from_domain_and_range(
	    isl_set_get_space(m->domain[src]),
	    isl_space_domain(isl_map_get_space(m->refs[r].access)));
	isl_map *fed = isl_union_map_extract_map(dep, space);
	if (m->links_omitted[r] && m->refs[r].stmt == src) {
		isl_map *prev = chain_prev(m, r);
		fed = prev ? isl_map_union(fed, prev) : isl_map_free(fed);
	}
	return fed;
}

bool solar_model_links_omitted(const solar_model *m, int r)
{
	return m->links_omitted[r];
}

isl_bool solar_model_chain_linked(const solar_model *m, int r)
{
	isl_set *first = chain_first(m, r);
	if (!first)
		return isl_bool_error;
	isl_set *dom = isl_map_domain(isl_map_copy(m->refs[r].access));
	isl_bool all = isl_set_is_subset(dom, first);
	isl_set_free(dom);
	isl_set_free(first);
	return all < 0 ? isl_bool_error : all ? isl_bool_false : isl_bool_true;
}

/* Coefficients of the loops of s in an index (coef[k] for loop k, s->depth of them); false
 * when the index is not of the form sum c_k x_k + c (a division, a read, a product of two
 * loop-dependent terms) or a coefficient overflows. */
bool solar_model_index_coefs(const solar_program *p, const solar_stmt *s, const solar_expr *e,
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
		if (!solar_model_index_coefs(p, s, e->args[0], coef))
			return false;
		for (int k = 0; k < s->depth; k++)
			if (__builtin_sub_overflow((int64_t)0, coef[k], &coef[k]))
				return false;
		return true;
	case SOLAR_E_BIN: {
		int64_t b[SOLAR_MAX_NESTING];
		if (e->binop != SOLAR_OP_ADD && e->binop != SOLAR_OP_SUB &&
		    e->binop != SOLAR_OP_MUL)
			return false;
		if (!solar_model_index_coefs(p, s, e->args[0], coef) ||
		    !solar_model_index_coefs(p, s, e->args[1], b))
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
				if (__builtin_mul_overflow(a_const ? b[k] : coef[k], f, &coef[k]))
					return false;
			return true;
		}
		for (int k = 0; k < s->depth; k++)
			if (e->binop == SOLAR_OP_ADD ? __builtin_add_overflow(coef[k], b[k], &coef[k])
						     : __builtin_sub_overflow(coef[k], b[k], &coef[k]))
				return false;
		return true;
	}
	default:
		return false;
	}
}

int solar_model_target_ref(const solar_model *m, int i)
{
	for (int r = 0; r < m->nrefs; r++)
		if (m->refs[r].stmt == i && !m->refs[r].write && !m->refs[r].expr &&
		    m->refs[r].tensor == m->prog->stmts[i]->tensor)
			return r;
	return -1;
}

int solar_model_read_ref(const solar_model *m, int st, const solar_expr *e)
{
	for (int r = 0; r < m->nrefs; r++)
		if (m->refs[r].stmt == st && !m->refs[r].write && m->refs[r].expr == e)
			return r;
	return -1;
}
