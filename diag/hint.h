/* hint.h - the edit distance behind every "did you mean" hint.
 *
 * The front end suggests names of the program (iterators, tensors, functions, types); the
 * device loader suggests JSON keys and enum values.  Both rank candidates by one distance.
 */
#ifndef SOLAR_HINT_H
#define SOLAR_HINT_H

#include <stdbool.h>

/* Names longer than this are close to nothing (solar_diag_edit_distance returns a large value). */
#define SOLAR_HINT_MAX_NAME 64

/* Optimal string alignment distance between a and b: insertions, deletions, substitutions
 * and swaps of neighbours, each one edit.  With `fold_case`, letters that differ only in
 * ASCII case match.  A name over SOLAR_HINT_MAX_NAME bytes gives 99. */
int solar_diag_edit_distance(const char *a, const char *b, bool fold_case);

#endif
