/* diag.h - the one error channel of solar, below every stage that reports.
 *
 *   model.air:7:21: error: index 'i*j' is not affine in the loop iterators
 *       C[i, j] += A[i*j, k] * B[k, j];
 *                    ^~~
 *   devices/x.json: memory[1].bandwidth_bytes_per_s: expected a positive number
 *   solar: h100.json: the descriptor gives no DRAM bandwidth
 *
 * A diagnostic context belongs to one file: a place in it is a byte span (AIR, JSON text) or
 * a JSON path (a descriptor, a manifest).  Messages about no file in particular (a device
 * override, a resource name) print as `solar: ...`.  A context for another file can hang off
 * an existing one (solar_diag_new_file): it prints to the same stream and its errors count in
 * its parent too, so a stage that reads a file of its own (the device loader) reports through
 * the channel its caller gave it.  Errors past the cap (20) of a file are counted but not
 * printed; one line says how many were dropped.  Every stage below the command line (devices,
 * roofline, validate, search, report, the API) takes a `solar_diag *` for its messages,
 * never a FILE; a NULL context is silent (nothing printed, nothing counted).
 *
 * The prefix says what a message is about and how grave it is: `FILE:LINE:COL: KIND: `,
 * `FILE: PATH: ` (a JSON error), `FILE: KIND: `, and for a message of the command itself
 * `solar: ` (an error), `solar: warning: `, `solar: note: `.  A stream can take the same
 * messages as JSON lines instead (solar_diag_set_json), one object a message:
 *   {"severity":"error","file":"m.air","line":7,"col":21,"message":"index 'i*j' is ..."}
 * with "file", "line" and "col", "path" present where the message has them.
 */
#ifndef SOLAR_DIAG_H
#define SOLAR_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include <stdint.h>

#include "alloc.h"

#define SOLAR_DIAG_MAX_ERRORS 20

/* A place in the source: byte offset and length.  Line and column are computed only when a
 * diagnostic is printed.  An offset of -1 is no place. */
typedef struct {
	int32_t off, len;
} solar_span;

typedef struct solar_diag solar_diag;

/* `file` (NULL: "<input>") and `src` (len bytes, NUL-terminated; NULL when there is no text
 * to point into) are borrowed and must outlive the context.  `out` NULL counts without
 * printing. */
SOLAR_GIVE solar_diag *solar_diag_new(const char *file, const char *src, int32_t len, FILE *out);
/* A context for `file` that prints where `parent` prints; each of its errors and warnings
 * also counts in `parent`.  Free it before the parent. */
SOLAR_GIVE solar_diag *solar_diag_new_file(SOLAR_KEEP solar_diag *parent, const char *file,
					   const char *src, int32_t len);
/* The channel of a command or an embedder: no file of its own (its errors are `solar: ...`);
 * the files a stage reads hang off it (solar_diag_new_file). */
SOLAR_GIVE solar_diag *solar_diag_new_tool(FILE *out);
void solar_diag_free(SOLAR_TAKE solar_diag *d);
/* Where d prints (NULL: nowhere). */
FILE *solar_diag_stream(SOLAR_KEEP const solar_diag *d);

#if defined(__GNUC__)
#define SOLAR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SOLAR_PRINTF(a, b)
#endif

void solar_diag_error(solar_diag *d, solar_span at, const char *fmt, ...) SOLAR_PRINTF(3, 4);
void solar_diag_warning(solar_diag *d, solar_span at, const char *fmt, ...) SOLAR_PRINTF(3, 4);
/* A note attached to the previous diagnostic (printed only if that one was). */
void solar_diag_note(solar_diag *d, solar_span at, const char *fmt, ...) SOLAR_PRINTF(3, 4);
/* An error with no place in the file (prints `file: error: ...`). */
void solar_diag_error_nowhere(solar_diag *d, const char *fmt, ...) SOLAR_PRINTF(2, 3);
void solar_diag_verror(solar_diag *d, const char *kind, solar_span at, const char *fmt, va_list ap);
/* An error at a JSON path of the file: `file: path: message` (`file: message` for a NULL or
 * empty path).  The one spelling of every JSON error of solar. */
void solar_diag_path_error(solar_diag *d, const char *path, const char *fmt, ...) SOLAR_PRINTF(3, 4);
void solar_diag_vpath_error(solar_diag *d, const char *path, const char *fmt, va_list ap);
/* The same at a JSON path of another file than d's (`file: path: message`), counted in d: for
 * a stage that reads many small files through its caller's channel. */
void solar_diag_path_error_in(solar_diag *d, const char *file, const char *path, const char *fmt,
			      ...) SOLAR_PRINTF(4, 5);
void solar_diag_vpath_error_in(solar_diag *d, const char *file, const char *path, const char *fmt,
			       va_list ap);
/* An error about no file in particular: `solar: message`. */
void solar_diag_tool_error(solar_diag *d, const char *fmt, ...) SOLAR_PRINTF(2, 3);
/* A remark about no file in particular (`solar: message`), counted as a warning. */
void solar_diag_tool_warning(solar_diag *d, const char *fmt, ...) SOLAR_PRINTF(2, 3);
/* A remark about a whole file (`FILE: warning: message`; JSON: its "file"), counted as a
 * warning. */
void solar_diag_file_warning(solar_diag *d, const char *file, const char *fmt, ...)
	SOLAR_PRINTF(3, 4);
/* A remark about no file in particular (`solar: note: message`), on its own: printed wherever
 * d prints, counted as nothing. */
void solar_diag_tool_note(solar_diag *d, const char *fmt, ...) SOLAR_PRINTF(2, 3);
/* kind "error", "warning" or "note". */
void solar_diag_vtool(solar_diag *d, const char *kind, const char *fmt, va_list ap);
/* A line of advice that follows the previous diagnostic as it is, with no prefix (`Try 'solar
 * --help'.`), printed only if that one was; a note in JSON. */
void solar_diag_hint(solar_diag *d, const char *fmt, ...) SOLAR_PRINTF(2, 3);

/* With `on`, every context printing where d prints (its stream: standard error) writes JSON
 * lines, the fatal error too; off, text again.  For a command whose output is JSON, so that
 * a program reading it reads its errors the same way.  One stream at a time. */
void solar_diag_set_json(SOLAR_KEEP solar_diag *d, bool on);
/* An error after which the process cannot go on (out of memory): `solar: message` on stderr,
 * in its format, then exit(status).  Allocates nothing. */
_Noreturn void solar_diag_fatal(int status, const char *message);

int solar_diag_errors(const solar_diag *d);
int solar_diag_warnings(const solar_diag *d);
/* True once the cap is reached: passes may stop early. */
int solar_diag_full(const solar_diag *d);
/* Prints the "N more errors not shown" line if any were dropped. */
void solar_diag_finish(solar_diag *d);

/* 1-based line and column (in bytes) of a byte offset. */
void solar_diag_locate(const solar_diag *d, int32_t off, int *line, int *col);

#endif
