/* test_flow.c - the incremental (kernel by kernel) dataflow equals the dataflow computed over
 * the whole program at once, on every example and every golden program that loads: the same
 * dependences and the same reads without a source.  Runs from the repository root.
 */
#define _XOPEN_SOURCE 700

#include "analysis/model.h"
#include "programs.h"

static void compare(const char *file, const solar_program *p)
{
	isl_ctx *ctx = solar_isl_ctx_new();
	solar_model *m = solar_model_build(p, ctx, false, NULL);
	if (m) {
		isl_union_map *d1 = NULL, *d2 = NULL;
		isl_union_set *n1 = NULL, *n2 = NULL;
		int r1 = solar_model_flow(m, true, &d1, &n1);
		int r2 = solar_model_flow_global(m, &d2, &n2);
		CHECKF(r1 == 0 && r2 == 0, "%s: flow failed (%d, %d)", file, r1, r2);
		if (r1 == 0 && r2 == 0) {
			CHECKF(isl_union_map_is_equal(d1, d2) == isl_bool_true,
			       "%s: the dependences differ", file);
			CHECKF(isl_union_set_is_equal(n1, n2) == isl_bool_true,
			       "%s: the reads without a source differ", file);
		}
		/* without the chains' links, solar_model_fed_by supplies them: the same
		 * dependences again, and the same reads without a source */
		isl_union_map *d3 = NULL;
		isl_union_set *n3 = NULL;
		int r3 = solar_model_flow(m, false, &d3, &n3);
		CHECKF(r3 == 0, "%s: flow without links failed", file);
		for (int r = 0; r3 == 0 && r < m->nrefs; r++)
			if (solar_model_links_omitted(m, r))
				d3 = isl_union_map_union(d3, isl_union_map_from_map(solar_model_fed_by(
								 m, d3, m->refs[r].stmt, r)));
		if (r3 == 0 && r2 == 0) {
			CHECKF(isl_union_map_is_equal(d3, d2) == isl_bool_true,
			       "%s: the dependences without links, then fed_by, differ", file);
			CHECKF(isl_union_set_is_equal(n3, n2) == isl_bool_true,
			       "%s: the reads without a source differ without links", file);
		}
		isl_union_map_free(d3);
		isl_union_set_free(n3);
		isl_union_map_free(d1);
		isl_union_map_free(d2);
		isl_union_set_free(n1);
		isl_union_set_free(n2);
		solar_model_free(m);
	}
	isl_ctx_free(ctx);
}

int main(int argc, char **argv)
{
	int files = each_program(argc, argv, compare);
	printf("test_flow: %d programs, %d checks, %d failures\n", files, checks, failures);
	return failures != 0;
}
