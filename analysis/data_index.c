/* data_index.c - the data counts of a tensor that is read or written through indices that read
 * data (AIR 1.1; docs/bounds.md, "Indexing with data").
 *
 * Which elements a gather reads or a scatter writes is the index data's choice, so the counts
 * of such refs are not one number: the rules below take the fewest that every index data the
 * declared ranges allow must touch, and never let a data ref add to an affine ref's elements
 * (a union could count an element twice for data that makes them equal): the counts combine by
 * max.  A data ref's access is its proxy (model.h: the data positions at 0, in the tensor's
 * shadow tuple), so the proxy's distinct elements are the distinct tuples of the affine
 * positions, rule "fewest distinct elements".
 *
 * The dataflow never sees data refs (their shadows have no source), so the rules decide what a
 * data ref may have been fed by, and what a scatter may have overwritten, conservatively: a
 * count is lowered wherever data could make it lower.
 */
#include "data_index.h"

#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "count.h"

/* The distinct elements of the data refs refs[0..n) of one mask and kind (reads or writes):
 * the union of their proxies, in their shadow tuple, within the tensor's extents. */
static isl_val *proxy_count(const solar_model *m, solar_count_memo *memo, const int *refs, int n,
			    unsigned mask, bool write, int *failed)
{
	isl_set *u = NULL;
	for (int i = 0; i < n; i++) {
		const solar_ref *ref = &m->refs[refs[i]];
		if (ref->data != mask || ref->write != write)
			continue;
		isl_set *img = isl_map_range(isl_map_copy(ref->access));
		if (!u)
			u = isl_set_intersect(img, solar_model_shadow_shape(m, refs[i]));
		else
			u = isl_set_union(u, img);
	}
	if (!u)
		return isl_val_zero(m->ctx);
	const char *why = NULL;
	isl_val *v = solar_count_set_memo(memo, u, &why);
	isl_set_free(u);
	if (!v)
		*failed = 1;
	return v;
}

/* The assumption on tensor X, or -1. */
static int assumption_of(const solar_program *p, int x)
{
	for (int a = 0; a < p->nassumes; a++)
		if (p->assumes[a].tensor == x)
			return a;
	return -1;
}

/* Rule "assumed distinct values": the data refs of one mask and kind whose one data position is
 * exactly a read X[..] of a tensor with `assume distinct(X) >= N`, all of X read there, and
 * the affine tuples the same for every element of X (a product: E[ids[t], d] reads every d
 * for each t), touch at least N x |those tuples| elements.  Returns that count, or NULL
 * when the rule does not apply; *which gets the assumption. */
static isl_val *assumed_count(const solar_model *m, solar_count_memo *memo, const int *refs,
			      int n, unsigned mask, bool write, int *which)
{
	const solar_program *p = m->prog;
	if (!p->nassumes || (mask & (mask - 1)))
		return NULL;
	int pos = __builtin_ctz(mask), x = -1;
	isl_union_map *rel = NULL;
	isl_union_set *covered = NULL;
	bool ok = true;
	for (int i = 0; i < n && ok; i++) {
		const solar_ref *ref = &m->refs[refs[i]];
		if (ref->data != mask || ref->write != write)
			continue;
		solar_expr *const *index =
		    ref->expr ? ref->expr->args : p->stmts[ref->stmt]->index;
		const solar_expr *e = solar_model_uncast(index[pos]);
		int xr = e->kind == SOLAR_E_ACCESS ? solar_model_read_ref(m, ref->stmt, e) : -1;
		ok = xr >= 0 && (x < 0 || e->sym == x);
		if (!ok)
			break;
		x = e->sym;
		isl_map *xacc = isl_map_copy(m->refs[xr].access);
		isl_space *sp = isl_map_get_space(ref->access);
		xacc = isl_map_set_tuple_id(xacc, isl_dim_in, isl_space_get_tuple_id(sp, isl_dim_in));
		isl_space_free(sp);
		isl_union_map *r1 = isl_union_map_from_map(
		    isl_map_apply_range(isl_map_reverse(isl_map_copy(xacc)), isl_map_copy(ref->access)));
		isl_union_set *c1 = isl_union_set_from_set(isl_map_range(xacc));
		rel = rel ? isl_union_map_union(rel, r1) : r1;
		covered = covered ? isl_union_set_union(covered, c1) : c1;
	}
	int a = ok && x >= 0 ? assumption_of(p, x) : -1;
	isl_val *v = NULL;
	if (a >= 0) {
		isl_set *shape = isl_set_copy(m->shape[x]);
		isl_map *r = isl_map_from_union_map(isl_union_map_copy(rel));
		isl_set *tuples = isl_map_range(isl_map_copy(r));
		isl_map *product = isl_map_from_domain_and_range(isl_set_copy(shape),
								 isl_set_copy(tuples));
		isl_union_set *whole = isl_union_set_from_set(shape);
		isl_bool all = isl_union_set_is_equal(covered, whole);
		isl_union_set_free(whole);
		isl_bool prod = isl_map_is_equal(r, product);
		isl_map_free(product);
		isl_map_free(r);
		const char *why = NULL;
		isl_val *per = all == isl_bool_true && prod == isl_bool_true
				   ? solar_count_set_memo(memo, tuples, &why)
				   : NULL;
		isl_set_free(tuples);
		if (per) {
			v = isl_val_mul_ui(per, (unsigned long)p->assumes[a].value);
			*which = a;
		}
	}
	isl_union_map_free(rel);
	isl_union_set_free(covered);
	return v;
}

/* The largest proxy count over the masks of the data refs of one kind. */
static isl_val *fewest(const solar_model *m, solar_count_memo *memo, const int *refs, int n,
		       bool write, bool *used, int *failed)
{
	isl_val *best = isl_val_zero(m->ctx);
	for (int i = 0; i < n; i++) {
		const solar_ref *ref = &m->refs[refs[i]];
		bool first = true; /* the first ref of its mask and kind counts them all */
		for (int j = 0; j < i && first; j++)
			first = m->refs[refs[j]].data != ref->data || m->refs[refs[j]].write != write;
		if (!ref->data || ref->write != write || !first)
			continue;
		isl_val *v = proxy_count(m, memo, refs, n, ref->data, write, failed);
		if (!v)
			return isl_val_free(best);
		int a = -1;
		isl_val *assumed = assumed_count(m, memo, refs, n, ref->data, write, &a);
		if (assumed && isl_val_gt(assumed, v) == isl_bool_true) {
			v = isl_val_max(v, assumed);
			used[a] = true;
		} else {
			isl_val_free(assumed);
		}
		best = isl_val_max(best, v);
	}
	return best;
}

/* *field = max(*field, v); v taken. */
static void raise_to(isl_val **field, isl_val *v)
{
	*field = *field ? isl_val_max(*field, v) : v;
}

static void set_zero(const solar_model *m, isl_val **field)
{
	isl_val_free(*field);
	*field = isl_val_zero(m->ctx);
}

/* Whether a statement after `last` writes tensor t (with a plain `=` into data-chosen
 * elements only, when plain_data). */
static bool written_after(const solar_model *m, int t, int last, bool plain_data)
{
	const solar_program *p = m->prog;
	for (int i = last + 1; i < p->nstmts; i++) {
		const solar_stmt *s = p->stmts[i];
		if (s->tensor != t)
			continue;
		if (!plain_data || (s->op == SOLAR_ASSIGN && m->refs[m->write_ref[i]].data))
			return true;
	}
	return false;
}

void solar_data_index_rules(const solar_model *m, solar_count_memo *memo, const int *refs, int n,
			    int k, solar_tensor_data *td, bool *used, solar_diag *d, int *failed)
{
	bool data_reads = false, data_writes = false, writes = false;
	if (!m->prog->air_minor) /* AIR 1 has no data index */
		return;
	for (int i = 0; i < n; i++) {
		const solar_ref *ref = &m->refs[refs[i]];
		data_reads |= ref->data && !ref->write;
		data_writes |= ref->data && ref->write;
		writes |= ref->write;
	}
	const solar_program *p = m->prog;
	int t = td->tensor;
	int last = k < 0 ? p->nstmts - 1 : p->kernels[k].first_stmt + p->kernels[k].nstmts - 1;
	/* stores: a later plain scatter may overwrite what the scope stored */
	if (writes && written_after(m, t, last, true))
		set_zero(m, &td->store);
	if (!data_reads && !data_writes)
		return;
	int was_failed = *failed;
	isl_val *r = fewest(m, memo, refs, n, false, used, failed);
	isl_val *w = fewest(m, memo, refs, n, true, used, failed);
	if (!r || !w) {
		isl_val_free(r);
		isl_val_free(w);
		if (!was_failed)
			solar_diag_error_nowhere(d, "exact counting failed: ISL error");
		*failed = 1;
		return;
	}
	/* footprints: at least the fewest elements of any one data ref kind */
	raise_to(&td->read, isl_val_copy(r));
	raise_to(&td->written, isl_val_copy(w));
	/* loads: a data read is fed from memory unless the scope writes the tensor; a scatter
	 * in the scope may have produced any element a read there takes */
	if (data_writes)
		set_zero(m, &td->load);
	else if (!writes && p->tensors[t].role != SOLAR_ROLE_RAND)
		raise_to(&td->load, isl_val_copy(r));
	/* a scatter's own elements are stored when they are the tensor's final values */
	solar_role role = p->tensors[t].role;
	if (data_writes && (role == SOLAR_ROLE_OUT || role == SOLAR_ROLE_INOUT) &&
	    !written_after(m, t, last, false))
		raise_to(&td->store, isl_val_copy(w));
	isl_val_free(r);
	isl_val_free(w);
}
