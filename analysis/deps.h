/* deps.h - which loops of a loop nest carry no dependence (for code generation).
 *
 * The question validate/codegen_cuda.c asks of each top-level nest of a kernel: how many of
 * its outermost loops can run as independent GPU threads?  A prefix of loops is parallel when
 * no two statement instances that touch one tensor element, one of them writing it, differ
 * in the values of those loops: then every element is touched by one thread only, and each
 * thread runs its instances in program order.  The test is memory-based (no privatisation of
 * temporaries) and exact: ISL decides it on the statements' domains and accesses.
 */
#ifndef SOLAR_DEPS_H
#define SOLAR_DEPS_H

#include <stdint.h>

#include "analysis.h"

/* What solar_deps_parallel finds for one nest. */
typedef struct {
	int parallel; /* outermost loops that carry no dependence (0 .. depth) */
	bool empty;   /* no statement of the nest ever executes */
	/* For loop d < parallel: the least and the greatest value its iterator takes over all
	 * statement instances of the nest (the bounding box the thread grid covers). */
	int64_t lo[64], hi[64];
} solar_nest_deps;

/* For the statements [first, first+n) of an analysed program, all inside the same `depth`
 * outermost loops (depth <= 64): fills *out.  Returns 0, or -1 when ISL fails (operation
 * limit), in which case *out says that no loop is parallel. */
int solar_deps_parallel(SOLAR_KEEP const solar_analysis *a, int first, int n, int depth,
			solar_nest_deps *out);

#endif
