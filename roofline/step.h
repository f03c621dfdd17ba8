/* step.h - the bounds of a program that runs on many ranks (AIR 1.2: a mesh and collectives)
 * on a system (docs/bounds.md, "Programs on many GPUs").
 *
 * Every rank runs the program's text on its own shard (SPMD), so one rank's bounds are the
 * step's.  A compute kernel keeps its bound on the system's GPU (roofline.h); a collective's
 * kernel gets the collective's bound (collective.h) for its axis, placed as the mesh packs
 * ranks into nodes.  The unfused bound is the longest path of the kernels as written, the
 * compute kernels one after another and each axis's collectives one after another, a
 * collective overlapping whatever compute does not depend on it; fused and cache-aware are
 * the one-GPU bounds or the communication one rank's ports must carry, whichever is larger.
 */
#ifndef SOLAR_STEP_H
#define SOLAR_STEP_H

#include "collective.h"
#include "roofline.h"

typedef struct {
	int kernel;	     /* the collective's kernel */
	int axis;	     /* the mesh axis */
	solar_coll_bound bound; /* S, ranks, placement, terms, time */
	double net_share;	/* the groups of its axis that share a node (G / g) */
} solar_step_coll;

/* A pipeline stage's bounds (docs/bounds.md "Pipelines"): fused with its communication, and
 * unfused with the bubble. */
typedef struct {
	solar_roof fused;
	double unfused_s;
} solar_step_stage;

typedef struct {
	int64_t ranks;	       /* of the mesh */
	int ncoll;
	solar_step_coll *coll; /* in program order */
	double compute_s;      /* the compute kernels' bounds summed (one after another) */
	double *comm_axis_s;   /* per axis: its collectives' bounds summed */
	double *finish_s;      /* per kernel: its finish in the unfused schedule */
	int critical;	       /* the kernel the unfused bound's longest path ends at */
	int nstages;	       /* AIR 1.2 pipelines: the stages (0: none) */
	solar_step_stage *stage;
	int slowest;	       /* the stage whose unfused bound is the step's */
} solar_step;

/* Applies the rules of docs/bounds.md "Programs on many GPUs" to b, the program's bounds on
 * sys->gpu: the collectives' kernels get their collective bounds, unfused becomes the longest
 * path, fused and cache-aware take communication as a floor.  Returns 0; -1 after a located
 * message on diag (a mesh the system cannot hold: more ranks than GPUs, an axis whose ranks
 * do not pack into nodes). */
int solar_step_apply(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_system *sys,
		     solar_bounds *b, solar_step *st, solar_diag *diag);
void solar_step_free(solar_step *st);

/* The placement of mesh axis a on nodes of G GPUs: how many of the axis's ranks share a node
 * (g) for every group of it.  0, or -1 with a sentence in err. */
int solar_step_axis_placement(SOLAR_KEEP const solar_program *p, int a, int G, int *g, char *err,
			      size_t nerr);

#endif
