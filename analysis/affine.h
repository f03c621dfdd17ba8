/* affine.h - affine forms of index, bound and condition expressions, and the ISL sets and
 * maps built from them directly, without ISL's text parser (affine.c).
 *
 * A form is a row of int64 coefficients: c[0] the constant, c[1 .. np] the params p0.. (np is
 * the program's param count in symbolic mode, else 0: a param is then its value), c[1 + np ..]
 * the iterators i0.. by their depth (solar_model.iter_pos).  A row stands for `form >= 0`, or
 * for `form = 0` when it is an equality.  Whatever does not fit (floor division or `mod` of a
 * non-constant, min/max that is not a conjunction, `not`, `or`, `!=`, a product of two
 * non-constants, an int64 overflow) makes the extractors return false: the caller then lowers
 * that object through the text path (model.c), which is exact for all of them.
 */
#ifndef SOLAR_AFFINE_H
#define SOLAR_AFFINE_H

#include <isl/map.h>
#include <isl/set.h>
#include <stdbool.h>
#include <stdint.h>

#include "model.h"

/* Constraint rows over one model's columns (width = 1 + np + SOLAR_MAX_NESTING + 1). */
typedef struct {
	int64_t *c; /* n rows of `width` coefficients */
	bool *eq;   /* per row: an equality */
	int n, cap, width, np;
} solar_affine_rows;

void solar_affine_rows_init(solar_affine_rows *r, const solar_model *m);
void solar_affine_rows_free(solar_affine_rows *r);

/* Whether e contains no iterator and (in symbolic mode) no param: then it is its value,
 * solar_ir_eval_const. */
bool solar_affine_is_constant(const solar_model *m, const solar_expr *e);

/* Records the values the iterator of the loop at `depth` can take: [min lo, max hi - 1] by
 * interval arithmetic over the ranges of the loops around it (unknown when a bound is not
 * affine, a param is symbolic or a value overflows).  Called by the lowering as it enters each
 * loop.  With it, `e // c` and `e % c` are affine where e's values over those ranges lie in one
 * interval [q c, q c + c - 1]: they are q and e - q c there (the reshaped views of a
 * translated model: x[(i + 128) // S, (i + 128) % S] for i in 0..128). */
void solar_affine_enter_loop(solar_model *m, int depth, const solar_expr *lo, const solar_expr *hi);

/* Appends e's affine form as a new row (an inequality, all zero before); false (and no row
 * added) when e is not affine in the sense above. */
bool solar_affine_push_form(const solar_model *m, solar_affine_rows *r, const solar_expr *e);

/* Appends the rows of a loop `lo <= i < hi` of step 1 over iterator i (at depth `depth`): one
 * per argument of a max(..) lo and of a min(..) hi (nested ones flattened); false (rows as
 * they were) when a bound is not a conjunction of affine forms. */
bool solar_affine_push_loop(const solar_model *m, solar_affine_rows *r, const solar_expr *lo,
			    const solar_expr *hi, int depth);

/* Appends the rows of a condition that is a conjunction (`and`) of comparisons < <= > >= ==
 * of affine forms; false (rows as they were) for anything else. */
bool solar_affine_push_cond(const solar_model *m, solar_affine_rows *r, const solar_expr *e);

/* { [p..] -> tuple[i0 .. i<depth-1>] : rows }, dims and params named as the text names them;
 * NULL on an ISL error. */
__isl_give isl_set *solar_affine_set(isl_ctx *ctx, const solar_affine_rows *r, int depth,
				     const char *tuple);

/* { [p..] -> in[i0 ..] -> out[f_0, .., f_rank-1] } where f_k is the form of row k of r;
 * NULL on an ISL error. */
__isl_give isl_map *solar_affine_map(isl_ctx *ctx, const solar_affine_rows *r, int depth,
				     const char *in, const char *out);

/* The box { tuple[d0, ..] : 0 <= d_k < extent_k }; NULL on an ISL error. */
__isl_give isl_set *solar_affine_box(isl_ctx *ctx, int rank, const int64_t *extent,
				     const char *tuple);

/* The chain ends of a box (model.c, "closed-form chains"): the points of tuple[i0 ..
 * i<depth-1>] where every iterator j of [c, depth) is at its first value lo[j - c] (last:
 * at its last value hi[j - c] - 1), where each bound is an affine form or a max (lo) / min
 * (hi) of them.  One basic set per choice of the active argument of each bound, ties going
 * to the first argument, so the pieces are disjoint; not restricted to the domain.  NULL
 * when a bound is not such a form or there would be more than 64 pieces. */
__isl_give isl_set *solar_affine_ends(const solar_model *m, const solar_expr *const *lo,
				      const solar_expr *const *hi, int c, int depth, bool last,
				      const char *tuple);

#endif
