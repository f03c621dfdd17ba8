/* alloc.h - the checked allocation every module uses.
 *
 * Running out of memory has no sensible recovery in solar (a count or a bound half-computed is
 * worth nothing), so these never return NULL: they print `solar: out of memory` on stderr and
 * exit with status 3.  Memory from them is freed with free().  Arena allocation (ir/arena.h)
 * sits on top of these.
 */
#ifndef SOLAR_ALLOC_H
#define SOLAR_ALLOC_H

#include <stddef.h>

/* Ownership annotations, ISL style, on every prototype of solar: a GIVE result belongs to the
 * caller, a TAKE argument is consumed, a KEEP argument is only borrowed.  (Guarded: api/solar.h
 * defines the same for embedders.) */
#ifndef SOLAR_GIVE
#define SOLAR_GIVE
#endif
#ifndef SOLAR_TAKE
#define SOLAR_TAKE
#endif
#ifndef SOLAR_KEEP
#define SOLAR_KEEP
#endif

/* Exit status of a process that ran out of memory. */
#define SOLAR_EXIT_NOMEM 3

/* Reports `solar: out of memory` (solar_diag_fatal) and exits with SOLAR_EXIT_NOMEM. */
_Noreturn void solar_out_of_memory(void);

/* malloc(n) (n = 0 allowed: a unique pointer). */
void *solar_xmalloc(size_t n);
/* Zeroed n x size bytes; the product is checked for overflow. */
void *solar_xcalloc(size_t n, size_t size);
/* realloc(p, n) (n = 0 allowed). */
void *solar_xrealloc(void *p, size_t n);
/* p (an array of *cap elements of elem bytes, or NULL with *cap 0) with room for n + 1; the
 * capacity doubles, so appending n elements one at a time copies O(n) bytes, not the O(n^2) of
 * a realloc per element wherever realloc copies (ASan's always does). */
void *solar_xgrow(void *p, int *cap, int n, size_t elem);
/* A malloc'd copy of s, or NULL for NULL. */
char *solar_xstrdup(const char *s);
/* A malloc'd, NUL-terminated copy of the first n bytes of s. */
char *solar_xstrndup(const char *s, size_t n);

#endif
