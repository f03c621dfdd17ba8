/* measured.h - measured times of a program: the one reader of `solar analyze --measured FILE`
 * and of a report manifest's `measured` (docs/report.md, "Measured times").
 *
 * Forms: plain times, JSON {"total": T, "kernels": {NAME: T}} (T seconds, or "341us"); a
 * `solar validate --json` result (its reference time; a failed validation is flagged); an
 * Nsight Compute CSV (`ncu --csv --page raw --metrics gpu__time_duration.sum`) of `runs`
 * forward passes: the total is the sum of the rows / runs, per kernel where the rows match the
 * program's kernels by name (each named `runs` times) or by launch order (runs x kernels rows).
 */
#ifndef SOLAR_REPORT_MEASURED_H
#define SOLAR_REPORT_MEASURED_H

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "diag/diag.h"

typedef struct {
	double total_s;         /* < 0: none */
	double *kernel_s;       /* per kernel of the program, < 0: none (malloc'd) */
	int nkernels;
	bool validation_failed; /* a validate result that did not pass */
	const char *form;       /* what the file was read as: "times", "validate", "ncu" */
} solar_measured;

typedef enum {
	SOLAR_MEASURED_AUTO,     /* *.csv: ncu; JSON naming "total" or "kernels": plain times;
				    other JSON: a validate result */
	SOLAR_MEASURED_TIMES,
	SOLAR_MEASURED_VALIDATE,
	SOLAR_MEASURED_NCU
} solar_measured_kind;

/* No times yet, for a program of nkernels kernels.  0, or -1 when memory runs out. */
int solar_measured_init(solar_measured *m, int nkernels);
void solar_measured_free(solar_measured *m);

/* Reads FILE into m (set up by solar_measured_init; names: the program's kernels).  Every
 * error is one line `FILE: WHERE: message` (solar_diag_path_error's spelling) on diag.  0, or
 * -1 after errors. */
int solar_measured_read(const char *file, solar_measured_kind kind, int runs,
			const char *const *names, int nkernels, solar_measured *m,
			solar_diag *diag);
/* "ncu" or "json": the form solar_measured_read takes FILE for. */
const char *solar_measured_kind_of(const char *file, solar_measured_kind kind);

/* A JSON file, parsed; NULL after `FILE:LINE:COL: error: invalid JSON` with the line and a
 * caret on diag (or `solar: FILE: reason` on stderr when it cannot be read). */
cJSON *solar_report_parse_json(const char *file, solar_diag *diag);

#endif
