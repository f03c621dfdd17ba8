/* memory.h - advise's transition memory: a JSON store of optimization steps and the weights it
 * gives the directions of a new state (docs/advise.md "memory").
 *
 * A step: the problem's signature (op classes, sizes, limiting resource, gap shares), the
 * previous direction, the direction and strategy taken, before/after measured times and
 * bounds, success or failure and why.  Per-direction and per-transition statistics are
 * recomputed from the steps whenever the store is written.
 */
#ifndef SOLAR_MEMORY_H
#define SOLAR_MEMORY_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "advise.h"

enum { SOLAR_OPC_CONTRACTION = 1, SOLAR_OPC_REDUCTION = 2, SOLAR_OPC_SFU = 4 };

typedef struct {
	char *problem;
	unsigned op_classes;               /* SOLAR_OPC_* bits */
	char limiter[48];                  /* "dram", "tensor.bf16", ... */
	double shares[SOLAR_DIR_COUNT];    /* parts of the measured time before the step */
	cJSON *sizes;                      /* {"B": 8, ...} (owned) */
	int previous;                      /* direction of the step before, -1: none */
	int direction;
	char *strategy;
	double before_s, after_s;          /* measured */
	double before_bound_s, after_bound_s; /* unfused bounds; after < 0: unknown */
	double max_gain_s;                 /* what advise said the direction could win */
	bool correct;
	char *why;                         /* "faster", "slower", "wrong output: ..." */
} solar_memory_step;

typedef struct {
	solar_memory_step *steps;
	int n, cap;
} solar_memory;

/* Loads a store; a missing file is an empty store.  Returns 0, or -1 after `FILE: JSON.PATH:
 * message` (or `FILE:LINE:COL: error: invalid JSON` with the line and a caret) on diag. */
int solar_memory_load(const char *file, solar_memory *m, solar_diag *diag);
/* Takes the store's lock for a read-add-write (flock, exclusive, on the folder the file is in,
 * through a symbolic link: the file itself is replaced by a rename, its folder stays), waiting
 * for another record to finish.  Returns the lock's descriptor (close it after the rename), or
 * -1 after `FILE: cannot lock its folder DIR: ...` on diag. */
int solar_memory_lock(const char *file, solar_diag *diag);
/* The store as JSON, with the statistics (a new tree). */
SOLAR_GIVE cJSON *solar_memory_to_json(const solar_memory *m);
/* Appends a copy of s (strings duplicated, sizes copied). */
void solar_memory_add(solar_memory *m, const solar_memory_step *s);
void solar_memory_free(solar_memory *m);

/* The signature of an advice: op classes and the limiter's class. */
unsigned solar_memory_op_classes(const solar_advise_eval *e);

/* Re-weights a's directions by the memory (score = (max_gain + 0.01 measured) x paid x gain /
 * 0.25, docs/advise.md "ranking"); `previous` is the last step's direction (-1: none).
 * Fills p_paid, mean_gain, n_similar and a reason per direction, then ranks. */
void solar_memory_weigh(const solar_memory *m, solar_advice *a, unsigned op_classes,
			int previous, double measured_s);

#endif
