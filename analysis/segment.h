/* segment.h - the cache-aware rules (docs/bounds.md, "cache-aware"): per statement, which of
 * them apply and their numbers (analysis/segment.c decides from the program, its dataflow and
 * the statement's counts), and the lower bounds they give on the traffic across a fast memory
 * of a given size.  Plain numbers: no ISL type crosses this header.
 */
#ifndef SOLAR_SEGMENT_H
#define SOLAR_SEGMENT_H

#include <stdbool.h>

#include "../ir/ir.h"
#include "analysis.h"

/* One way to cap the work of a statement within a segment of S I/Os: |E| <=
 * taps^(1 - sigma_disjoint) * coef * (3S)^sigma_sum, from Hoelder-Brascamp-Lieb over the
 * statement's accesses after slicing its `taps` iterators. */
typedef struct {
	double taps;          /* distinct values of the sliced iterators (1: no slicing) */
	double sigma_disjoint; /* HBL weight of the access whose slices are disjoint */
	double sigma_sum;
	double coef;          /* prod_j (sigma_j / sigma_sum)^sigma_j */
	unsigned sliced;      /* bit k: loop k of the statement is sliced */
} solar_segment_rule;

#define SOLAR_MAX_SEGMENT_RULES 16

/* The rules of one statement. */
typedef struct solar_stmt_rules {
	double instances; /* |D|, the statement's instances */
	/* The HBL rules: valid in the fused program when every read is of a program input and
	 * the output is a program output, or a tmp copied to one element for element. */
	bool segment_eligible;
	int segment_elem_bytes; /* smallest element size among the statement's tensors */
	solar_segment_rule rules[SOLAR_MAX_SEGMENT_RULES];
	int nrules;
	/* Rule "complete pairs": for a contraction of two inputs into any tensor, including an
	 * intermediate that is never stored, the multiply-adds d of each output element; 0 when
	 * the rule does not apply.  Independent of segment_eligible. */
	double pairs_row;
	/* Rule "row statistic": for a statement that writes each element Y[r.., j] of an output
	 * once from X[r.., j] and a statistic of the whole row r.. of the input X, the rows and
	 * their length L; 0 when the rule does not apply.  Its bound adds rows x (L - S) loads of
	 * X to the compulsory traffic. */
	double stat_rows;
	double stat_len;
	int stat_elem_bytes; /* X's element size: the extra loads are of X */
} solar_stmt_rules;

typedef struct solar_stmt_work solar_stmt_work;
struct solar_count_memo;

/* Decides the rules of statement `stmt` of the analysed program: their preconditions on the
 * program and its dataflow, and their numbers.  sw is the statement's counts (its instances
 * and whether it is a contraction). */
void solar_segment_analyse(SOLAR_KEEP const solar_analysis *a,
			   SOLAR_KEEP struct solar_count_memo *memo, int stmt,
			   SOLAR_KEEP const solar_stmt_work *sw, solar_stmt_rules *out);

/* Lower bound on the elements a statement moves across a fast memory of `s_elems` elements,
 * over all its segment rules (HBL and complete pairs): max(0, S * (|D| / U(S) - 1)); 0 when
 * none applies. */
double solar_segment_bound(const solar_stmt_rules *r, double s_elems);

/* Rule "row statistic": the elements of X that must be loaded beyond the compulsory traffic
 * with a fast memory of `s_elems` elements of X: rows * max(0, L - S); 0 when it does not
 * apply. */
double solar_row_stat_extra(const solar_stmt_rules *r, double s_elems);

#endif
