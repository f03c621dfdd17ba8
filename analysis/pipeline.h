/* pipeline.h - a program cut into pipeline stages by layer (`solar shard --mesh pp=P`,
 * docs/shard.md "Pipelines (`pp`)").
 *
 * The repeated layers of a model are found in its parameters' names (`..._layers_3_...`) and
 * cut into P contiguous blocks, one per stage; every statement nest then runs on the stage
 * where what it reads is (the fewest tensors sent), and a tensor one stage makes and another
 * reads is sent there once (`send(pp) X_pp1 <- X;`).  The result is AIR 1.2 with the pipeline
 * axis first in the mesh and `stage(pp, s)` on every tensor one stage holds.
 */
#ifndef SOLAR_PIPELINE_H
#define SOLAR_PIPELINE_H

#include "frontend/frontend.h"
#include "ir/ir.h"

/* The program p (one GPU's, or one rank's of a mesh without a pipeline axis, which the axis
 * then precedes) cut into `stages` stages along a new outermost axis `axis`, with
 * `microbatches A = M;` when microbatches > 1, as AIR 1.2 text (malloc'd), or NULL after
 * errors: no repeated layers, fewer layers than stages, a tensor two stages write.  Errors
 * are located on d where p is the user's text (d != NULL), otherwise tool errors naming
 * p->file.  cmdline: written into the header comment of a program without a mesh. */
SOLAR_GIVE char *solar_pipeline(SOLAR_KEEP const solar_program *p, const char *axis, int64_t stages,
				int64_t microbatches, const char *cmdline, solar_diag *d,
				solar_diag *tool);

#endif
