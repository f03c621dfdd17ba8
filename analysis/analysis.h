/* analysis.h - the checks and counts that need the polyhedral model. */
#ifndef SOLAR_ANALYSIS_H
#define SOLAR_ANALYSIS_H

#include "../frontend/diag.h"
#include "../ir/ir.h"

/* The ISL-based checks of `solar check`: out-of-bounds accesses (with an offending iteration
 * as example) and reads of tmp elements never written before.  Reports through d; returns
 * the number of errors found. */
int solar_analysis_check(SOLAR_KEEP const solar_program *p, solar_diag *d);

#endif
