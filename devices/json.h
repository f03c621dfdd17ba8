/* json.h - the one parse of every JSON text solar reads, and the check cJSON does not make.
 *
 * cJSON takes two things no input of solar may hold: an object that gives a key twice (it
 * keeps both, and every lookup finds the first, so the second is silently ignored) and a
 * number too large for a double (1e400 reads as infinity: a time of infinity, a bandwidth of
 * infinity).  solar_json_parse refuses both, and text after the value; solar_json_check is the
 * same check of a tree parsed otherwise (a line of a JSON Lines file).  Device descriptors,
 * report manifests and measured times, the advise memory, triage pools and histories all go
 * through it.  The lowest stage with cJSON owns it, so every stage above may use it.
 *
 *   manifest.json: entries[0].set.memory.l2.capacity_bytes: duplicate key
 *   t.json: kernels.scores: number out of range (beyond 1.8e308, the largest double)
 */
#ifndef SOLAR_JSON_H
#define SOLAR_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "diag/diag.h"

struct cJSON;

/* Parses text (len bytes) as one JSON value, only white space after it, and checks it
 * (solar_json_check).  d is the file's context (solar_diag_new_file, with the text): a syntax
 * error is `file:line:col: error: invalid JSON` with the line and a caret, the others are at
 * JSON paths.  NULL after errors (all of them reported). */
SOLAR_GIVE struct cJSON *solar_json_parse(const char *text, size_t len, solar_diag *d);

/* Reports every key given twice in an object (the later ones) and every number that overflows
 * a double, anywhere in root.  at < 0: each at its JSON path (`file: path: message`); else at
 * byte offset `at` of d's text (a JSON Lines line: `file:LINE:COL: error: path: message`).
 * Returns the number of errors. */
int solar_json_check(SOLAR_KEEP const struct cJSON *root, int32_t at, solar_diag *d);

#endif
