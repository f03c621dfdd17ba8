/* advise.h - `solar advise`: where the gap between a measured time and the speed of light goes,
 * and what each next step can at most win (docs/advise.md).
 *
 * The gap measured - SOL is split into five named parts (directions) that are non-negative
 * and add up exactly: implementation, fusion, data reuse, datapath, redundant work.  Under each
 * direction, strategies: AIR rewrites of the program (fuse kernels, keep a tmp on chip, switch
 * math mode or dtype, skip masked work) whose what-if bound is what solar computes on the
 * rewritten text, plus steps that are no rewrite (tile for reuse, a library path), which carry
 * the bound of the rewrite or rule they correspond to and say so.
 */
#ifndef SOLAR_ADVISE_H
#define SOLAR_ADVISE_H

#include <stdbool.h>
#include <stdio.h>

#include "devices/device.h"
#include "frontend/frontend.h"

/* The bounds of one program text (the program as written or a rewrite). */
typedef struct {
	double unfused_s, fused_s, cache_aware_s;
	int limiter_unfused, limiter_cache_aware; /* resource indices (roofline.h) */
	double unfused_dram_bytes, fused_dram_bytes, cache_aware_dram_bytes;
	double capacity_bytes; /* on-chip capacity S of the cache-aware rule (0: unknown) */
	int nkernels;
	double *kernel_s; /* each kernel's own bound (malloc'd) */
	bool uses_tensor, uses_sfu, has_reduction; /* op classes, for the signature */
} solar_advise_eval;

typedef enum {
	SOLAR_DIR_IMPLEMENTATION,
	SOLAR_DIR_FUSION,
	SOLAR_DIR_DATA_REUSE,
	SOLAR_DIR_DATAPATH,
	SOLAR_DIR_REDUNDANT,
	SOLAR_DIR_COUNT
} solar_direction;

#define SOLAR_ADVISE_MAX_STRATEGIES 24
#define SOLAR_ADVISE_LEVELS 7

typedef struct {
	char name[160];
	char why[240];      /* how the what-if bound was found, in words */
	bool rewrite;       /* an AIR rewrite (text in `air`) or not */
	char *air;          /* the rewritten program (malloc'd), NULL when not a rewrite */
	char emit_name[64]; /* file name under --emit DIR */
	double what_if_bound_s; /* the unfused bound of the rewrite (the kernels as rewritten) */
	double what_if_sol_s;   /* its fused bound: the rewrite's speed of light */
	double what_if_cache_aware_s; /* its cache-aware bound */
	double gain_s;          /* what it can at most win, at the level of its direction */
} solar_strategy;

typedef struct {
	solar_direction dir;
	double part_s;     /* its part of measured - SOL (non-negative; the parts add up) */
	double share;      /* part_s / measured */
	double max_gain_s; /* the largest gain_s of its strategies (its part when it has none) */
	double score;      /* the ranking key: max_gain_s x the memory's weight */
	double p_paid, mean_gain; /* the memory's weight factors (docs/advise.md "ranking") */
	double n_similar;         /* weighted count of similar steps behind them */
	char reason[320];
	solar_strategy strat[SOLAR_ADVISE_MAX_STRATEGIES];
	int nstrat;
} solar_advice_dir;

typedef struct {
	double measured_s;
	double *kernel_measured_s; /* per kernel, < 0 unknown (borrowed) */
	double tol;                /* relative tolerance that the numerics must keep */
	double stop_factor;        /* stop when measured <= stop_factor x SOL */
	solar_math math;           /* the CLI default for kernels without an attribute */
	bool l2_cold;              /* rule "L2 state": the question's (--l2 cold) */
} solar_advise_input;

typedef struct {
	solar_advise_eval base;      /* the program as written */
	double levels_s[SOLAR_ADVISE_LEVELS]; /* the chain L0 (measured) .. L6 (SOL) */
	double sol_s;                /* the last level: the speed of light the gap is measured to */
	bool stop;
	solar_advice_dir dir[SOLAR_DIR_COUNT]; /* ranked (after solar_advise_rank) */
	char limiter[48];            /* the cache-aware bound's limiting resource */
} solar_advice;

const char *solar_direction_name(solar_direction d);
/* -1 when `name` is none of the five. */
int solar_direction_parse(const char *name);

void solar_advise_eval_free(solar_advise_eval *e);

/* A measured time below a true lower bound (the speed of light) is refused, the same way
 * wherever it comes from (--measured, --after, triage --ms): true after `FILE: WHAT measured
 * T s is Rx BOUND_NAME (B s): below the speed of light, so either the benchmark is broken
 * ... or the bound is wrong ...` on diag; false when measured_s >= bound_s (1e-6 slack). */
bool solar_advise_below_sol(const char *file, const char *what, double measured_s,
			    double bound_s, const char *bound_name, solar_diag *diag);

/* The decomposition and the strategies of program p (loaded from `file`, with its -D, and
 * diagnosed through pd, which gets the checks' errors) against in->measured_s.  Returns 0; 1
 * when the measured time is below a bound of the program as written (a message on diag); -1
 * when the program does not analyse (the messages on pd and diag). */
int solar_advise_compute(const char *file, SOLAR_KEEP const solar_program *p,
			 SOLAR_KEEP solar_diag *pd, SOLAR_KEEP const solar_device *dev,
			 const solar_advise_input *in, solar_advice *out, solar_diag *diag);
/* Sorts the directions by score, highest first (ties: the order of the chain). */
void solar_advise_rank(solar_advice *a);
void solar_advice_free(solar_advice *a);

#endif
