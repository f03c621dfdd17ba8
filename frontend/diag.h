/* diag.h - the one diagnostic format of solar.
 *
 *   model.air:7:21: error: index 'i*j' is not affine in the loop iterators
 *       C[i, j] += A[i*j, k] * B[k, j];
 *                    ^~~
 *
 * A diagnostic context belongs to one source file.  Errors past the cap (20) are counted but
 * not printed; one line says how many were dropped.
 */
#ifndef SOLAR_DIAG_H
#define SOLAR_DIAG_H

#include <stdarg.h>
#include <stdio.h>

#include "../ir/ir.h"

#define SOLAR_DIAG_MAX_ERRORS 20

typedef struct solar_diag solar_diag;

/* `src` (len bytes, NUL-terminated) is borrowed and must outlive the context. */
SOLAR_GIVE solar_diag *solar_diag_new(const char *file, const char *src, int32_t len, FILE *out);
void solar_diag_free(SOLAR_TAKE solar_diag *d);

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

int solar_diag_errors(const solar_diag *d);
int solar_diag_warnings(const solar_diag *d);
/* True once the cap is reached: passes may stop early. */
int solar_diag_full(const solar_diag *d);
/* Prints the "N more errors not shown" line if any were dropped. */
void solar_diag_finish(solar_diag *d);

/* 1-based line and column (in bytes) of a byte offset. */
void solar_diag_locate(const solar_diag *d, int32_t off, int *line, int *col);

#endif
