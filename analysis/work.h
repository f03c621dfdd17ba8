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
#include "segment.h"

struct isl_ctx;
struct isl_set;
struct solar_count_memo;

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
	/* the part of v[SIMT][F32] that is the 2 ops of strict f32 multiply-accumulates of
	 * contractions, which a library may run on the matrix unit by an f32-exact emulation where
	 * the device gives a tensor.f32 peak (docs/bounds.md, "f32 emulation"); NULL is zero */
	solar_count *f32_mma;
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

typedef struct solar_stmt_work {
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
	struct solar_count_memo *memo; /* owned: the counts made so far (count.h) */
	const solar_program *prog;
	solar_math math_default;
	solar_stmt_work *stmt;
	solar_stmt_rules *rules;  /* per statement: the cache-aware rules (segment.h) */
	solar_scope_work *kernel; /* per kernel: loads/stores as if each kernel ran alone */
	solar_scope_work total;   /* the whole program as one kernel: compulsory traffic */
	/* per assumption of the program (ir.h): it raised some count (docs/bounds.md, "Indexing
	 * with data", rule "assumed distinct values"), so the bounds rest on it */
	bool *assumed;
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
/* Each statement's operations as solar count charges them (rule "ops per instance" with its
 * hoisting), every unit and precision summed, into ops[i] (p->nstmts new counts of ctx), with
 * neither the data counts nor the dataflow: without it rule "identity combine" frees no
 * combine, so a reduction is charged at most its output's elements more than solar count
 * charges it.  For choosing a plan (the pipeline's cut by cost, analysis/pipeline.c), never
 * for a bound.  0, or -1 after reporting through d (an ISL limit, a failed count) with every
 * ops[i] NULL. */
int solar_work_stmt_ops(struct isl_ctx *ctx, SOLAR_KEEP const solar_program *p, solar_math math,
			SOLAR_GIVE solar_count **ops, solar_diag *d);

/* Per-instance operation mix of a statement under a math mode: the work charged once per
 * instance (without the hoisted work and the combine of a reduction). */
solar_op_mix solar_stmt_op_mix(const solar_program *p, const solar_stmt *s, solar_math math,
			       bool *contraction, int *reduction_dims);

/* Sum of all entries of an ops table (NULL-safe); a new count. */
SOLAR_GIVE solar_count *solar_ops_sum(struct isl_ctx *ctx, const solar_ops *o);
/* Sum over the scope's tensors of elements x bytes per element for one field. */
SOLAR_GIVE solar_count *solar_scope_bytes(const solar_work *w, const solar_scope_work *s,
					  solar_data_field field);

#endif
