/* symbolic.h - `solar count --symbolic`: counts as polynomials in the params. */
#ifndef SOLAR_SYMBOLIC_H
#define SOLAR_SYMBOLIC_H

#include <stdbool.h>
#include <stdio.h>

#include "../frontend/diag.h"
#include "../ir/ir.h"

/* Prints, per statement, the instance count as a (piecewise) polynomial in the params, per
 * tensor the program's read and written footprints, and the program's totals: ops per
 * datapath (under the default math mode `math`) and bytes read, written, loaded and stored.
 * Every formula is evaluated at the current param values and checked against the numeric
 * count; where a formula cannot be found, the numeric count is printed with a note.
 * Returns an exit code (0, or 1 after reporting an error through d). */
int solar_symbolic_report(SOLAR_KEEP const solar_program *p, solar_math math, bool json,
			  FILE *out, solar_diag *d);

#endif
