/* deps.c - parallel loops of a nest, from the polyhedral model (see deps.h).
 *
 * Every access relation of the nest's statements, D[i0, ..., ik] -> T[...], is projected onto
 * the nest's `depth` outermost iterators and renamed P[i0, ..., i(depth-1)].  Composing the
 * writes with the inverse of all accesses gives the conflict relation P[x] -> P[y]: some
 * instance under loop values x writes an element that some instance under loop values y
 * touches.  The outermost p loops are parallel exactly when every conflict keeps x0..x(p-1)
 * equal, i.e. the relation lies inside { P[x] -> P[y] : x0 = y0 and ... and x(p-1) = y(p-1) }.
 * The property shrinks as p grows, so the answer is the largest p that has it.
 */
#include "deps.h"

#include <isl/ilp.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>
#include <string.h>

#include "model.h"

/* The access of a reference seen from the nest's loops: P[i0..i(depth-1)] -> T[...].  A data
 * ref (AIR 1.1) may touch any element its index data allow, so it conflicts with every
 * access of those (solar_model_may_access): a scatter's loop over its sources is never
 * parallel, and a gather never races a write of the tensor it reads. */
static isl_map *prefix_access(const solar_model *model, int r, int depth)
{
	isl_map *m = solar_model_may_access(model, r);
	int dims = (int)isl_map_dim(m, isl_dim_in);
	m = isl_map_project_out(m, isl_dim_in, (unsigned)depth, (unsigned)(dims - depth));
	return isl_map_set_tuple_name(m, isl_dim_in, "P");
}

/* Whether every conflict keeps the first p coordinates equal. */
static isl_bool keeps_equal(isl_map *conflicts, int p)
{
	isl_space *sp = isl_map_get_space(conflicts);
	isl_map *eq = isl_map_universe(sp);
	for (int d = 0; d < p; d++)
		eq = isl_map_equate(eq, isl_dim_in, d, isl_dim_out, d);
	isl_map *crossing = isl_map_subtract(isl_map_copy(conflicts), eq);
	isl_bool empty = isl_map_is_empty(crossing);
	isl_map_free(crossing);
	return empty;
}

static int val_to_i64(isl_val *v, int64_t *out)
{
	int ok = v && isl_val_is_int(v) == isl_bool_true;
	if (ok) {
		long x = isl_val_get_num_si(v);
		isl_val *back = isl_val_int_from_si(isl_val_get_ctx(v), x);
		ok = isl_val_eq(back, v) == isl_bool_true;
		isl_val_free(back);
		*out = (int64_t)x;
	}
	isl_val_free(v);
	return ok ? 0 : -1;
}

int solar_deps_parallel(const solar_analysis *a, int first, int n, int depth, solar_nest_deps *out)
{
	memset(out, 0, sizeof *out);
	if (depth > 64)
		depth = 64;
	const solar_model *m = a->model;
	isl_ctx *ctx = m->ctx;
	if (depth <= 0 || n <= 0) {
		out->empty = n <= 0;
		return 0;
	}

	/* The loop values at which some statement of the nest runs. */
	isl_space *psp = isl_space_set_alloc(ctx, 0, (unsigned)depth);
	psp = isl_space_set_tuple_name(psp, isl_dim_set, "P");
	isl_set *points = isl_set_empty(isl_space_copy(psp));
	for (int s = first; s < first + n; s++) {
		isl_set *d = isl_set_copy(m->domain[s]);
		int dims = (int)isl_set_dim(d, isl_dim_set);
		d = isl_set_project_out(d, isl_dim_set, (unsigned)depth, (unsigned)(dims - depth));
		d = isl_set_set_tuple_name(d, "P");
		points = isl_set_union(points, d);
	}
	points = isl_set_coalesce(points);
	isl_bool none = isl_set_is_empty(points);
	if (none < 0)
		goto fail_points;
	if (none == isl_bool_true) {
		out->empty = true;
		isl_set_free(points);
		isl_space_free(psp);
		return 0;
	}

	/* Conflicts between loop values. */
	isl_union_map *writes = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
	isl_union_map *all = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
	for (int r = 0; r < m->nrefs; r++) {
		const solar_ref *ref = &m->refs[r];
		if (ref->stmt < first || ref->stmt >= first + n)
			continue;
		isl_map *pa = prefix_access(m, r, depth);
		if (ref->write)
			writes = isl_union_map_add_map(writes, isl_map_copy(pa));
		all = isl_union_map_add_map(all, pa);
	}
	isl_union_map *cu = isl_union_map_apply_range(writes, isl_union_map_reverse(all));
	isl_map *conflicts = isl_map_empty(isl_space_map_from_set(isl_space_copy(psp)));
	if (cu && isl_union_map_is_empty(cu) == isl_bool_false)
		conflicts = isl_map_union(conflicts, isl_map_from_union_map(isl_union_map_copy(cu)));
	isl_union_map_free(cu);
	if (!conflicts)
		goto fail_points;

	int p = 0;
	while (p < depth) {
		isl_bool ok = keeps_equal(conflicts, p + 1);
		if (ok < 0) {
			isl_map_free(conflicts);
			goto fail_points;
		}
		if (ok == isl_bool_false)
			break;
		p++;
	}
	isl_map_free(conflicts);

	for (int d = 0; d < p; d++) {
		if (val_to_i64(isl_set_dim_min_val(isl_set_copy(points), d), &out->lo[d]) < 0 ||
		    val_to_i64(isl_set_dim_max_val(isl_set_copy(points), d), &out->hi[d]) < 0) {
			p = d; /* an unbounded or huge loop stays sequential */
			break;
		}
	}
	out->parallel = p;
	isl_set_free(points);
	isl_space_free(psp);
	return 0;

fail_points:
	isl_set_free(points);
	isl_space_free(psp);
	out->parallel = 0;
	return -1;
}
