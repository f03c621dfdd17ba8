/* shard.h - a one-GPU program made one rank's program of a mesh (`solar shard`,
 * docs/shard.md).
 *
 * The mechanism is one for every strategy: each mesh axis splits some sizes of the program,
 * named params or consts (data parallelism the batch, tensor parallelism the heads and the
 * MLP's inner size), so that each rank's tensors and loops are the 1/N of those sizes that
 * the rank holds.  A tensor whose extent involves a split size is split along that dimension
 * (`split(A, d)`), every other one replicated; a statement that reduces over a split size into
 * a tensor that is not split leaves a partial sum on each rank, and an all-reduce over the axis
 * (sum, or max for `max=`) right after the last kernel that writes it makes it whole again:
 * Megatron's all-reduce after a row-parallel linear, DDP's gradient all-reduce.
 */
#ifndef SOLAR_SHARD_H
#define SOLAR_SHARD_H

#include "frontend/frontend.h"
#include "ir/ir.h"
#include "pipeline.h"

typedef struct {
	const char *axis;   /* "tp" */
	int64_t size;	    /* its ranks */
	const char **names; /* the params and consts it splits */
	int nnames;
} solar_shard_axis;

/* What the options ask of the strategies besides the mesh. */
typedef struct {
	bool zero;              /* --zero: ZeRO stages 1 and 2 over dp (docs/shard.md "ZeRO") */
	bool sequence_parallel; /* --sequence-parallel: Megatron's over tp (docs/shard.md
				 * "Sequence parallelism") */
	int64_t microbatches;   /* the pp axis's micro-batches; 1 */
	solar_pp_cut pp_cut;    /* how the pp axis cuts the layers (zero: by cost) */
} solar_shard_opts;

/* The rank's program as AIR 1.2 text (malloc'd), or NULL after errors: a size that is neither
 * a param nor a const, one the axis does not divide, a tensor whose split dimension is not N
 * equal blocks, a kernel that reads the partial sum it computes (on d, located; tool: what is
 * not the program's).  zero: the optimizer's state and update sharded over the dp axis, its
 * gradients reduce-scattered and its blocks all-gathered where read whole (ZeRO stages 1 and
 * 2, docs/shard.md "ZeRO").  sequence_parallel: the nests between tp's row-parallel and
 * column-parallel linears run on the rank's block of the sequence (SEQ), the row-parallel
 * outputs reduce-scattered into blocks and all-gathered before the column-parallel linears
 * (docs/shard.md "Sequence parallelism").  An axis named "pp" splits no sizes: it cuts the
 * program into pipeline stages by layer (analysis/pipeline.h), after the other axes, as the
 * outermost axis of the mesh, with `microbatches pp = M;` when microbatches > 1.  cmdline:
 * written into the header comment. */
SOLAR_GIVE char *solar_shard(SOLAR_KEEP const solar_program *p, const solar_shard_axis *axes,
			     int naxes, const solar_shard_opts *opts, const char *cmdline,
			     solar_diag *d, solar_diag *tool);

#endif
