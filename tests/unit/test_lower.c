/* test_lower.c - the lowering's sets built from affine forms (analysis/affine.c) equal the ones
 * parsed from their text: on every example, every golden program that loads and the programs
 * of tests/unit/lower/ (guards, clamps, params), in numeric and in symbolic mode, each
 * statement domain, access relation and tensor shape of the default model is equal
 * (isl_set_is_equal, isl_map_is_equal) to that of the model built with SOLAR_LOWERING=text.
 * It also checks that the direct path is taken (most objects of the examples) and that the
 * text hook turns it off.  Runs from the repository root.
 */
#define _XOPEN_SOURCE 700

#include <isl/map.h>
#include <isl/set.h>
#include <stdlib.h>

#include "analysis/model.h"
#include "programs.h"

static long direct_total, objects_total;

static solar_model *build(const solar_program *p, isl_ctx *ctx, bool symbolic, bool text)
{
	if (text)
		setenv("SOLAR_LOWERING", "text", 1);
	else
		unsetenv("SOLAR_LOWERING");
	solar_model *m = solar_model_build(p, ctx, symbolic, NULL);
	unsetenv("SOLAR_LOWERING");
	return m;
}

static void compare_models(const char *file, bool symbolic, const solar_model *a,
			   const solar_model *b)
{
	const solar_program *p = a->prog;
	const char *mode = symbolic ? "symbolic" : "numeric";
	CHECKF(b->direct == 0, "%s (%s): SOLAR_LOWERING=text built %d objects directly", file, mode,
	       b->direct);
	direct_total += a->direct;
	objects_total += p->nstmts + a->nrefs + p->ntensors;
	for (int s = 0; s < p->nstmts; s++)
		CHECKF(isl_set_is_equal(a->domain[s], b->domain[s]) == isl_bool_true,
		       "%s (%s): the domains of S%d differ", file, mode, s);
	CHECKF(a->nrefs == b->nrefs, "%s (%s): %d refs against %d", file, mode, a->nrefs, b->nrefs);
	for (int r = 0; r < a->nrefs && r < b->nrefs; r++) {
		CHECKF(isl_map_is_equal(a->refs[r].access, b->refs[r].access) == isl_bool_true,
		       "%s (%s): the accesses of ref %d differ", file, mode, r);
		CHECKF(a->refs[r].text_id == b->refs[r].text_id,
		       "%s (%s): ref %d's text ids differ", file, mode, r);
	}
	for (int t = 0; t < p->ntensors; t++)
		CHECKF(isl_set_is_equal(a->shape[t], b->shape[t]) == isl_bool_true,
		       "%s (%s): the shapes of T%d differ", file, mode, t);
}

static void compare(const char *file, const solar_program *p)
{
	for (int symbolic = 0; symbolic < 2; symbolic++) {
		isl_ctx *ctx = solar_isl_ctx_new();
		solar_model *a = build(p, ctx, symbolic, false);
		solar_model *b = build(p, ctx, symbolic, true);
		CHECKF(!a == !b, "%s (%s): built %s directly, %s from text", file,
		       symbolic ? "symbolic" : "numeric", a ? "yes" : "no", b ? "yes" : "no");
		if (a && b)
			compare_models(file, symbolic, a, b);
		solar_model_free(a);
		solar_model_free(b);
		isl_ctx_free(ctx);
	}
}

int main(int argc, char **argv)
{
	int files = each_program(argc, argv, compare);
	/* the direct path is the common one: about half of all domains, accesses and shapes take
	 * it (the rest are cache hits, which build nothing, and the text fallbacks) */
	CHECKF(argc > 1 || direct_total > objects_total / 4,
	       "only %ld of %ld objects built directly", direct_total, objects_total);
	printf("test_lower: %d programs, %ld objects, %ld built directly, %d checks, %d failures\n",
	       files, objects_total, direct_total, checks, failures);
	return failures != 0;
}
