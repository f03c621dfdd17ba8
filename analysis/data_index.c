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

/* The largest proxy count over the masks of the data refs of one kind. */
static isl_val *fewest(const solar_model *m, solar_count_memo *memo, const int *refs, int n,
		       bool write, int *failed)
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
			    int k, solar_tensor_data *td, solar_diag *d, int *failed)
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
	isl_val *r = fewest(m, memo, refs, n, false, failed);
	isl_val *w = fewest(m, memo, refs, n, true, failed);
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
