/* output.h - shared output helpers: headers, statements as text, exact JSON counts, units. */
#ifndef SOLAR_OUTPUT_H
#define SOLAR_OUTPUT_H

#include <cjson/cJSON.h>
#include <isl/val.h>
#include <stdio.h>

#include "cli.h"
#include "report/format.h" /* solar_fmt_si, solar_fmt_time, solar_fmt_quantity */

/* Outputs (cli/output.c): stdout, or a temporary file beside the -o file (or path) that
 * solar_out_finish renames into place; NULL after a message when it cannot be created or names
 * an input.  solar_out_close marks it complete; an output never closed is discarded. */
FILE *solar_out_open(const solar_opts *o);
FILE *solar_out_open_path(const char *path);
void solar_out_close(const solar_opts *o, FILE *f);

/* "file.air  B=8 H=16 S=2048" */
void solar_out_header(FILE *out, const char *file, const solar_program *p);
/* "C[i, j] += A[i, k] * B[k, j]" */
void solar_out_stmt(FILE *out, const solar_program *p, const solar_stmt *s);
char *solar_out_stmt_str(const solar_program *p, const solar_stmt *s);

/* An exact count or integer: a JSON integer of any size, printed digit for digit. */
cJSON *solar_json_count(__isl_keep isl_val *v);
cJSON *solar_json_int(long long v);
/* {"program": file, "params": {...}} */
cJSON *solar_json_program(const char *file, const solar_program *p);
/* Puts "schema": "solar.<command>/1" first in j, the version of the command's JSON output
 * (docs/json.md); returns j. */
cJSON *solar_json_schema(cJSON *j, const char *command);
/* Prints and deletes. */
void solar_json_print(FILE *out, cJSON *j);


#endif
