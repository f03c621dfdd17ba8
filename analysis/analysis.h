/* analysis.h - the checks and counts that need the polyhedral model. */
#ifndef SOLAR_ANALYSIS_H
#define SOLAR_ANALYSIS_H

#include "../diag/diag.h"
#include "../ir/ir.h"

/* The polyhedral model of a program with its exact dataflow, built once and shared by the
 * checks and the counts. */
typedef struct solar_analysis solar_analysis;

/* Builds the model and the dataflow; NULL after reporting through d on failure. */
SOLAR_GIVE solar_analysis *solar_analysis_new(SOLAR_KEEP const solar_program *p, solar_diag *d);
void solar_analysis_free(SOLAR_TAKE solar_analysis *a);
/* The checks below on an existing analysis; returns the number of errors. */
int solar_analysis_run_checks(SOLAR_KEEP solar_analysis *a, solar_diag *d);

/* The ISL-based checks of `solar check`: out-of-bounds accesses (with an offending iteration
 * as example) and reads of tmp elements never written before.  Reports through d; returns
 * the number of errors found. */
int solar_analysis_check(SOLAR_KEEP const solar_program *p, solar_diag *d);
/* After an error found on one class of ranks (rank(A), AIR 1.2): a note naming its
 * coordinates, at the mesh axis. */
void solar_analysis_note_rank_class(SOLAR_KEEP const solar_program *p, solar_diag *d);

#endif
