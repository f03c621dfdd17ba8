/* exact.h - solar_count, the exact count that leaves analysis/.
 *
 * Every count solar prints (instances, operations, elements, bytes) is an integer of unbounded
 * size, computed with ISL in analysis/ (docs/bounds.md, "Counting").  The stages above
 * analysis (roofline/, cli/, and whatever embeds solar) see it only through this header:
 * its exact decimal digits, its value as a double (for dividing by a rate), a zero test and a
 * comparison.  No ISL header is included here, and none may be outside analysis/ (the build
 * checks it: scripts/check_layers.sh, docs/layout.md).
 *
 * A NULL count is zero, in every function below.
 */
#ifndef SOLAR_EXACT_H
#define SOLAR_EXACT_H

#include <stdbool.h>

#include "../diag/alloc.h"

/* Opaque outside analysis/: inside, a solar_count is an isl_val (the same object, no copy). */
typedef struct isl_val solar_count;

/* Decimal digits, malloc'd ("0" for NULL). */
SOLAR_GIVE char *solar_count_str(SOLAR_KEEP const solar_count *c);
/* Decimal digits of c x k, malloc'd (bytes from elements). */
SOLAR_GIVE char *solar_count_str_times(SOLAR_KEEP const solar_count *c, unsigned long k);
/* The nearest double (0 for NULL): for dividing by a rate, never for printing a count. */
double solar_count_double(SOLAR_KEEP const solar_count *c);
bool solar_count_is_zero(SOLAR_KEEP const solar_count *c);
/* <0, 0 or >0 as a < b, a == b or a > b, exactly. */
int solar_count_cmp(SOLAR_KEEP const solar_count *a, SOLAR_KEEP const solar_count *b);
void solar_count_free(SOLAR_TAKE solar_count *c);

#endif
