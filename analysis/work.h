/* work.h - exact work and data counts of a program (what `solar count` prints).
 *
 * Work: per statement, the number of instances (|domain|) and the operations per instance,
 * classified by datapath (tensor unit, SIMT, special-function unit) and precision, following
 * docs/bounds.md "Counting".  Data: per kernel and for the whole program, per tensor, the
 * distinct elements read and written (footprints) and the elements that must move to or from
 * DRAM (loads: values read that the kernel did not produce; stores: values the kernel
 * produced that are read after it or are final outputs).  All counts are exact: a solar_count
 * (analysis/exact.h), which is an isl_val inside analysis/ and opaque outside it.  This header
 * includes no ISL header, so roofline/ and cli/ can use it without seeing ISL.
 */
#ifndef SOLAR_WORK_H
#define SOLAR_WORK_H

#include "../devices/device.h"
#include "../diag/diag.h"
#include "../ir/ir.h"
#include "exact.h"

struct isl_ctx;
struct isl_set;

typedef struct {
	int n[SOLAR_UNIT_COUNT][SOLAR_PREC_COUNT];
} solar_op_mix; /* operations per instance */

/* Work of a statement that reads only `in` tensors (docs/bounds.md, "Ops per instance",
 * hoisting): its value is one per key, the elements that `key`'s reads touch and the iterators
 * in `iters`, so its `mix` ops are charged once per distinct key. */
typedef struct {
	const solar_expr *key; /* a subtree of the statement's value with the group's reads */
	uint64_t iters;        /* bit k: loop k's iterator, used outside an index */
	solar_op_mix mix;
} solar_op_group;

typedef struct {
	solar_count *v[SOLAR_UNIT_COUNT][SOLAR_PREC_COUNT];
} solar_ops; /* exact totals; NULL entries are zero */

typedef struct {
	int tensor;           /* index in the program's tensors */
	solar_count *read;    /* distinct elements read (footprint) */
	solar_count *written; /* distinct elements written */
	solar_count *load;    /* elements that must be loaded from DRAM */
	solar_count *store;   /* elements that must be stored to DRAM */
} solar_tensor_data;

/* The four data counts of a tensor, by name instead of by position. */
typedef enum {
	SOLAR_DATA_READ,
	SOLAR_DATA_WRITTEN,
	SOLAR_DATA_LOAD,
	SOLAR_DATA_STORE,
	SOLAR_DATA_COUNT
} solar_data_field;

/* The count of one field of td (NULL: zero). */
SOLAR_KEEP solar_count *solar_tensor_data_get(SOLAR_KEEP const solar_tensor_data *td,
					      solar_data_field f);

/* One way to cap the work of a statement within a segment of S I/Os (docs/bounds.md,
 * "cache-aware"): |E| <= taps^(1 - sigma_disjoint) * coef * (3S)^sigma_sum, from
 * Hoelder-Brascamp-Lieb over the statement's accesses after slicing its `taps` iterators. */
typedef struct {
	double taps;          /* distinct values of the sliced iterators (1: no slicing) */
	double sigma_disjoint; /* HBL weight of the access whose slices are disjoint */
	double sigma_sum;
	double coef;          /* prod_j (sigma_j / sigma_sum)^sigma_j */
	unsigned sliced;      /* bit k: loop k of the statement is sliced */
} solar_segment_rule;

#define SOLAR_MAX_SEGMENT_RULES 16

typedef struct {
	solar_count *instances;
	solar_op_mix mix; /* ops per instance (hoisted work and the combine of a reduction aside) */
	/* hoisted work (malloc'd): group k's ops are charged hoisted_count[k] times, its
	 * distinct keys in the domain */
	solar_op_group *hoisted;
	solar_count **hoisted_count;
	int nhoisted;
	/* Rule "identity combine": the combines a reduction needs (NULL for `=` and for a
	 * contraction, whose 2 ops per instance hold the accumulation), at the SIMT precision of
	 * the stored tensor */
	solar_count *combines;
	solar_ops ops;
	bool contraction;  /* a += of a product with a reduction dimension */
	int reduction_dims; /* loop iterators absent from the output index */
	/* Cache-aware HBL rule inputs: valid in the fused program when every read is of a
	 * program input and the output is a program output (docs/bounds.md, "cache-aware"). */
	bool segment_eligible;
	int segment_elem_bytes; /* smallest element size among the statement's tensors */
	solar_segment_rule rules[SOLAR_MAX_SEGMENT_RULES];
	int nrules;
	/* Rule "complete pairs" (docs/bounds.md, "cache-aware"): for a contraction of two inputs
	 * into any tensor, including an intermediate that is never stored, the multiply-adds d
	 * of each output element; 0 when the rule does not apply.  Independent of
	 * segment_eligible, which gates only the rules above. */
	double pairs_row;
	/* Rule "row statistic" (docs/bounds.md, "cache-aware"): for a statement that writes each
	 * element Y[r.., j] of an output once from X[r.., j] and a statistic of the whole row
	 * r.. of the input X, the rows and their length L; 0 when the rule does not apply.  Its
	 * bound adds rows x (L - S) loads of X to the compulsory traffic. */
	double stat_rows;
	double stat_len;
	int stat_elem_bytes; /* X's element size: the extra loads are of X */
} solar_stmt_work;

typedef struct {
	solar_ops ops;
	solar_tensor_data *tensor; /* the tensors the scope references, in declaration order (the
				      others have zero footprints; listing only these keeps the
				      counts linear in the program) */
	int ntensors;
} solar_scope_work;

typedef struct solar_analysis solar_analysis;

typedef struct {
	struct isl_ctx *ctx;
	solar_analysis *analysis; /* owned: the counts' isl_vals live in its context */
	const solar_program *prog;
	solar_math math_default;
	solar_stmt_work *stmt;
	solar_scope_work *kernel; /* per kernel: loads/stores as if each kernel ran alone */
	solar_scope_work total;   /* the whole program as one kernel: compulsory traffic */
} solar_work;

/* Counts everything.  `math` is the default for kernels without a math attribute.
 * Returns NULL after reporting through d on failure (ISL limit, count failure). */
SOLAR_GIVE solar_work *solar_work_count(SOLAR_KEEP const solar_program *p, solar_math math,
					solar_diag *d);
/* The same on an analysis already built (and checked); takes it, also on failure. */
SOLAR_GIVE solar_work *solar_work_count_from(SOLAR_TAKE solar_analysis *a, solar_math math,
					     solar_diag *d);
/* solar count's and solar analyze's path: the checks of `solar check`, then the counts, on
 * one analysis.  NULL when either reported an error through d. */
SOLAR_GIVE solar_work *solar_work_check_and_count(SOLAR_KEEP const solar_program *p,
						  solar_math math, solar_diag *d);
void solar_work_free(SOLAR_TAKE solar_work *w);

/* Per-instance operation mix of a statement under a math mode: the work charged once per
 * instance (without the hoisted work and the combine of a reduction). */
solar_op_mix solar_stmt_op_mix(const solar_program *p, const solar_stmt *s, solar_math math,
			       bool *contraction, int *reduction_dims);

/* Fills the segment rules of a statement (analysis/segment.c): the HBL rules when `eligible`,
 * rule "complete pairs" when `pairs` (its preconditions on the program, from work.c) and the
 * statement's shape allow it.  sw->instances must be counted already. */
void solar_segment_rules(const solar_program *p, const solar_stmt *s, SOLAR_KEEP struct isl_set *domain,
			 bool eligible, bool pairs, solar_stmt_work *sw);

/* Lower bound on the elements a statement moves across a fast memory of `s_elems`
 * elements, over all its segment rules (HBL and complete pairs):
 * max(0, S * (|D| / U(S) - 1)); 0 when none applies. */
double solar_segment_bound(const solar_stmt_work *sw, double s_elems);

/* Rule "row statistic": the elements of X that must be loaded beyond the compulsory traffic
 * with a fast memory of `s_elems` elements of X: rows * max(0, L - S); 0 when it does not
 * apply. */
double solar_row_stat_extra(const solar_stmt_work *sw, double s_elems);

/* Sum of all entries of an ops table (NULL-safe); a new count. */
SOLAR_GIVE solar_count *solar_ops_sum(struct isl_ctx *ctx, const solar_ops *o);
/* Sum over the scope's tensors of elements x bytes per element for one field. */
SOLAR_GIVE solar_count *solar_scope_bytes(const solar_work *w, const solar_scope_work *s,
					  solar_data_field field);

#endif
