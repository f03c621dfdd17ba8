/* test_flow.c - the incremental (kernel by kernel) dataflow equals the dataflow computed over
 * the whole program at once, on every example and every golden program that loads: the same
 * dependences and the same reads without a source.  Runs from the repository root.
 */
#define _XOPEN_SOURCE 700

#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "check.h"
#include "frontend/frontend.h"

static void compare(const char *file)
{
	int32_t len;
	char *src = solar_read_file(file, &len, on(stderr));
	if (!src)
		return;
	FILE *devnull = fopen("/dev/null", "w");
	solar_diag *d = solar_diag_new(file, src, len, devnull);
	solar_program *p = solar_frontend_load(file, src, len, NULL, 0, d);
	if (p) {
		isl_ctx *ctx = solar_isl_ctx_new();
		solar_model *m = solar_model_build(p, ctx, false, d);
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
	solar_program_free(p);
	solar_diag_free(d);
	fclose(devnull);
	free(src);
}

int main(int argc, char **argv)
{
	if (argc > 1) { /* the named programs only */
		for (int i = 1; i < argc; i++)
			compare(argv[i]);
		printf("test_flow: %d programs, %d checks, %d failures\n", argc - 1, checks, failures);
		return failures != 0;
	}
	static const char *patterns[] = {"examples/*.air", "examples/*/*.air", "tests/golden/*/*.air",
					 "tests/validate/bugs/*.air", "tests/unit/flow/*.air"};
	int files = 0;
	for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
		glob_t g;
		if (glob(patterns[i], 0, NULL, &g))
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++, files++)
			compare(g.gl_pathv[k]);
		globfree(&g);
	}
	CHECKF(files > 100, "only %d programs found: run from the repository root", files);
	printf("test_flow: %d programs, %d checks, %d failures\n", files, checks, failures);
	return failures != 0;
}
