/* memory.h - the device memory a program needs (docs/bounds.md, "Memory").
 *
 * Two figures, from the declarations and the kernels' reads and writes alone (no ISL):
 *
 *   least       the bytes of every `in`, `inout` and `out` tensor, all held at once when the
 *               program ends (rule "memory, least"): a lower bound on the memory of any
 *               execution, fused or not, recomputing or not;
 *   as written  the most bytes live at one kernel of the program in its order (rule "memory,
 *               as written"): `in` and `inout` tensors throughout, an `out` tensor from the
 *               first kernel that writes it, a `tmp` that one kernel writes and a later kernel
 *               reads from the first to the last; a lower bound on the memory of running
 *               these kernels in this order (eager PyTorch's allocator, at best).
 *
 * For a training step the as-written peak is the weights, gradients and optimizer state plus
 * the activations the forward saves for the backward.
 */
#ifndef SOLAR_MEMORY_H
#define SOLAR_MEMORY_H

#include "../ir/ir.h"

typedef struct {
	double in_bytes, inout_bytes, out_bytes; /* declared sizes, by role */
	double least_bytes;                      /* in + inout + out */
	double as_written_bytes;                 /* the peak in kernel order */
	int peak_kernel;                         /* a kernel where the peak is reached (-1: none) */
	double tmp_at_peak_bytes;                /* tmps live across kernels at that kernel */
	int tmp_at_peak;                         /* how many */
	int stage;                               /* a pipeline: the stage whose ranks these are
						    (the most memory); -1 without */
} solar_memory;

/* Fills *m for p (the tensors' extents at the current param values); for a pipeline (AIR 1.2
 * stages), for the stage whose ranks hold the most: a stage's tensors, the every-stage ones. */
void solar_memory_of(SOLAR_KEEP const solar_program *p, solar_memory *m);

#endif
