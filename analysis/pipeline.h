/* pipeline.h - a program cut into pipeline stages by layer (`solar shard --mesh pp=P`,
 * docs/shard.md "Pipelines (`pp`)").
 *
 * The repeated layers of a model are found in its parameters' names (`..._layers_3_...`) and
 * cut into P contiguous blocks, one per stage (by default the blocks whose largest stage has the
 * fewest operations); every statement nest then runs on the stage
 * where what it reads is (the fewest tensors sent), and a tensor one stage makes and another
 * reads is sent there once (`send(pp) X_pp1 <- X;`).  The result is AIR 1.2 with the pipeline
 * axis first in the mesh and `stage(pp, s)` on every tensor one stage holds.
 */
#ifndef SOLAR_PIPELINE_H
#define SOLAR_PIPELINE_H

#include "frontend/frontend.h"
#include "ir/ir.h"

/* How the layers are cut into stages (docs/shard.md "Pipelines (`pp`)", rule 1; `solar shard
 * --pp-cut`).  Contiguous blocks of at least one layer, in index order, each rule. */
typedef enum {
	SOLAR_PP_CUT_COST,  /* the cut whose largest stage has the fewest ops (the default) */
	SOLAR_PP_CUT_EVEN,  /* layer j of L on stage floor(j P / L) (Megatron-LM's) */
	SOLAR_PP_CUT_LAYERS /* the layers of each stage as given */
} solar_pp_cut_rule;

typedef struct {
	solar_pp_cut_rule rule;
	const int64_t *layers; /* SOLAR_PP_CUT_LAYERS: the layers of each stage, first to last */
	int nstages;	       /* their number */
	const char *text;      /* the option as written, for messages and the header; NULL */
} solar_pp_cut;

/* The program p (one GPU's, or one rank's of a mesh without a pipeline axis, which the axis
 * then precedes) cut into `stages` stages along a new outermost axis `axis`, the layers as
 * `cut` says (NULL: by cost), with `microbatches A = M;` when microbatches > 1, as AIR 1.2
 * text (malloc'd), or NULL after errors: no repeated layers, fewer layers than stages, a cut
 * that does not fit the stages or the layers, a tensor two stages write.  Errors are located
 * on d where p is the user's text (d != NULL), otherwise tool errors naming p->file; the
 * layers of each stage are a note on tool.  cmdline: written into the header comment of a
 * program without a mesh. */
SOLAR_GIVE char *solar_pipeline(SOLAR_KEEP const solar_program *p, const char *axis, int64_t stages,
				int64_t microbatches, SOLAR_KEEP const solar_pp_cut *cut,
				const char *cmdline, solar_diag *d, solar_diag *tool);

#endif
