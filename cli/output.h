/* output.h - shared output helpers: headers, statements as text, exact JSON counts, units. */
#ifndef SOLAR_OUTPUT_H
#define SOLAR_OUTPUT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "analysis/exact.h"
#include "cli.h"
#include "report/format.h" /* solar_fmt_si, _time, _quantity, solar_fmt_csv_field */

/* Outputs (cli/output.c): stdout, or a temporary file beside the -o file (or path) that
 * solar_out_finish renames into place; NULL after a message when it cannot be created or names
 * an input.  solar_out_close marks it complete; an output never closed is discarded. */
FILE *solar_out_open(const solar_opts *o);
/* The one check of every file solar writes (-o, --emit, --record, the outputs above): true
 * after `solar: error: refusing to write PATH: it is the input IN` when path names an input of
 * the run (the same inode; solar_out_input). */
bool solar_out_refuse_input(const char *path);
FILE *solar_out_open_path(const char *path);
void solar_out_close(const solar_opts *o, FILE *f);
/* Closes f now and renames it into place (what solar_out_finish does at the end), for a
 * command that must say it wrote a file only once it has: returns 0, or -1 after
 * `solar: error: writing FILE: ...` (the old file stays).  stdout: 0, nothing done. */
int solar_out_commit(FILE *f);

/* "file.air  B=8 H=16 S=2048", with rank(cp)=3 where the program is one class of the ranks' (ranks
 * false: every rank runs, as validate runs them) */
void solar_out_header(FILE *out, const char *file, const solar_program *p, bool ranks);
/* An exact count or integer: a JSON integer of any size, printed digit for digit. */
cJSON *solar_json_count(SOLAR_KEEP const solar_count *v);
/* The same from decimal digits. */
cJSON *solar_json_digits(const char *digits);
cJSON *solar_json_int(long long v);
/* {"program": file, "params": {...}} */
cJSON *solar_json_program(const char *file, const solar_program *p);
/* The program's assumptions about index data (docs/air.md, "Assumptions"), each with its place
 * and whether a count rests on it (used: solar_work.assumed), as notes after count's and
 * analyze's tables, and as "assumptions": [{"text", "at", "used"}] in their JSON (nothing when
 * the program has none). */
void solar_out_assumptions(FILE *out, const solar_program *p, const bool *used);
void solar_json_assumptions(cJSON *j, const solar_program *p, const bool *used);
/* Puts "schema": "solar.<command>/1" first in j, the version of the command's JSON output
 * (docs/json.md); returns j. */
cJSON *solar_json_schema(cJSON *j, const char *command);
/* Prints and deletes. */
void solar_json_print(FILE *out, cJSON *j);


#endif
