/* frontend.h - text to resolved, checked IR.
 *
 * solar_frontend_load scans and parses the source (reporting every syntax error, up to the
 * cap), resolves names, applies -D overrides, evaluates consts and tensor extents, and runs
 * the semantic checks that need no polyhedral analysis (names, ranks, shadowing, affinity,
 * roles).  The ISL-based checks (out-of-bounds accesses, reads of tmp elements never written)
 * live in analysis/check.c.
 */
#ifndef SOLAR_FRONTEND_H
#define SOLAR_FRONTEND_H

#include "../ir/ir.h"
#include "../diag/diag.h"

typedef struct {
	const char *name;
	int64_t value;
} solar_define;

/* Limits that keep hostile input bounded. */
#define SOLAR_MAX_SOURCE_BYTES (64 << 20)
#define SOLAR_MAX_NESTING 64
/* Expression trees from the front end are at most this deep, so passes may recurse over them. */
#define SOLAR_MAX_EXPR_DEPTH 1000

/* Returns the program, or NULL when any error was reported through `d`.
 * `src` must be NUL-terminated at src[len]; it is copied into the program's arena. */
SOLAR_GIVE solar_program *solar_frontend_load(const char *file, const char *src, int32_t len,
					      const solar_define *defs, int ndefs, solar_diag *d);

/* Reads a whole file ("-" for stdin) into a malloc'd NUL-terminated buffer.
 * Returns NULL after `solar: FILE: reason` on diag (NULL: silent) on failure. */
SOLAR_GIVE char *solar_read_file(const char *path, int32_t *len, solar_diag *diag);

#endif
