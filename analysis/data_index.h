/* data_index.h - the counting rules of indices that read data (AIR 1.1), data_index.c. */
#ifndef SOLAR_DATA_INDEX_H
#define SOLAR_DATA_INDEX_H

#include "count.h"
#include "model.h"
#include "work.h"

/* Adjusts td, the counts of one tensor in scope k (a kernel; the whole program when k < 0)
 * made from its affine refs, for its data refs among refs[0..n) (all the scope's refs of the
 * tensor), by the rules of docs/bounds.md "Indexing with data".  Nothing changes when the
 * tensor has no data ref.  used[a] is set when assumption a of the program raised a count
 * (rule "assumed distinct values").  On an ISL failure, reports once (unless *failed) and sets
 * *failed. */
void solar_data_index_rules(SOLAR_KEEP const solar_model *m, SOLAR_KEEP solar_count_memo *memo,
			    const int *refs, int n, int k, solar_tensor_data *td, bool *used,
			    solar_diag *d, int *failed);

#endif
