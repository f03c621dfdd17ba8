/* count.h - exact number of integer points of ISL sets.
 *
 * Every bound solar prints is work / rate, and the work is a count of integer points: loop
 * iterations, footprint elements.  These functions return that count exactly (no sampling, no
 * hulls, no overflow) in a time that does not grow with the sizes involved: a 2048^3 box, a
 * causal triangle with T = 1M and a 3x3 convolution over 256 images all count in well under a
 * millisecond.  See analysis/count.c for the method (bounds.md section 2).
 */
#ifndef SOLAR_COUNT_H
#define SOLAR_COUNT_H

#include <isl/polynomial.h>
#include <isl/set.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "../diag/alloc.h"

/* Exact number of integer points of `set`. The set must have no parameters (fix them first) and be
 * bounded. Returns NULL on failure, writing a one-line reason to *why (static string) when why !=
 * NULL: unbounded set, parameters present, ISL error or operation limit exceeded (the caller sets
 * isl_ctx_set_max_operations). Never returns a wrong number.
 * (Parameters that the set does not involve, or plainly fixes to one value, are accepted.) */
__isl_give isl_val *solar_count_set(__isl_keep isl_set *set, const char **why);
/* Same for a union set (sum over spaces). */
__isl_give isl_val *solar_count_union_set(__isl_keep isl_union_set *uset, const char **why);

/* A memo of counts for one analysis: a program counts the same footprints and domains again
 * and again (a decoder repeats its layer; every kernel of an elementwise chain reads one shape),
 * and one count through the general summation costs far more than printing the set.  The key is
 * ISL's printed form of the set with its tuple names removed: two sets with the same key have
 * the same constraints on the same dimensions, so the same number of points (names are labels
 * that no count depends on).  Counts are exact, so a hit returns exactly what a count would;
 * failures are not remembered.  The counts' isl_vals belong to one isl_ctx: free the memo
 * before the context. */
typedef struct solar_count_memo solar_count_memo;

SOLAR_GIVE solar_count_memo *solar_count_memo_new(void);
void solar_count_memo_free(SOLAR_TAKE solar_count_memo *memo);
/* solar_count_set through the memo (memo NULL: no memo). */
__isl_give isl_val *solar_count_set_memo(SOLAR_KEEP solar_count_memo *memo, __isl_keep isl_set *set,
					 const char **why);
/* A count remembered under a recipe: a text that determines a set up to the names of its
 * tuples (the printed sets and maps it is built from, ids of equal texts, and what is done with
 * them), so that a hit skips building the set as well as counting it.  A recipe begins with a
 * tag of letters, which no printed set does, so recipes and sets share one table; tuple names
 * are removed from it as from a set's key.  get returns NULL when the recipe is not known. */
__isl_give isl_val *solar_count_memo_get(SOLAR_KEEP solar_count_memo *memo, const char *recipe);
void solar_count_memo_put(SOLAR_KEEP solar_count_memo *memo, const char *recipe,
			  __isl_keep isl_val *count);
/* Lookups and hits so far (stats[0], stats[1]), for tests and benchmarks. */
void solar_count_memo_stats(SOLAR_KEEP const solar_count_memo *memo, long stats[2]);

/* Tuning knobs, for tests and benchmarks; solar_count_set uses solar_count_defaults(). */
typedef struct {
	/* Sets whose bounding box holds fewer points than this are handed to isl_set_count_val,
	 * which enumerates them: about 700 instructions a point, so it is faster than the
	 * summation (0.5-1.5 M instructions a set) only on sets of at most about a hundred points
	 * (the default, 100; measured in docs/benchmarks.md).  0 disables the hand-over, so that
	 * tests exercise the summation. */
	double enumerate_below;
	/* When summation gives up (too many pieces), sets whose bounding box holds fewer points
	 * than this are still counted by isl_set_count_val.  0 disables this fallback. */
	double fallback_below;
	/* Most sub-systems ("pieces") one count may visit before it gives up. */
	long max_pieces;
} solar_count_options;

solar_count_options solar_count_defaults(void);
/* solar_count_set with explicit options. */
__isl_give isl_val *solar_count_set_opt(__isl_keep isl_set *set, const solar_count_options *opt,
					const char **why);

/* Symbolic count: the number of integer points of `set_with_params` as a piecewise
 * quasi-polynomial in its parameters, exact at every parameter value (zero outside the pieces).
 * The set must be bounded for every value of the parameters.  Returns NULL with a one-line
 * reason in *why where the shape is out of reach of the method (a bound whose coefficient is not
 * +-1 on a variable that must be summed symbolically, for instance). */
__isl_give isl_pw_qpolynomial *solar_count_set_symbolic(__isl_keep isl_set *set_with_params,
							const char **why);

#endif
