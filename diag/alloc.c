/* alloc.c - malloc and friends that never return NULL (alloc.h).
 *
 * One place reports running out of memory, so every module fails the same way: a fatal error
 * of the diagnostics channel (diag.c, which writes it without allocating, as text or JSON)
 * and exit status 3, never a NULL dereference later.
 */
#include "alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

void solar_out_of_memory(void) { solar_diag_fatal(SOLAR_EXIT_NOMEM, "out of memory"); }

void *solar_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		solar_out_of_memory();
	return p;
}

void *solar_xcalloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		solar_out_of_memory();
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		solar_out_of_memory();
	return p;
}

void *solar_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		solar_out_of_memory();
	return q;
}

void *solar_xgrow(void *p, int *cap, int n, size_t elem)
{
	if (n < *cap)
		return p;
	size_t c = *cap < 8 ? 8 : (size_t)*cap;
	while (c <= (size_t)n)
		c *= 2;
	if (c > INT32_MAX || (elem && c > SIZE_MAX / elem))
		solar_out_of_memory();
	*cap = (int)c;
	return solar_xrealloc(p, c * elem);
}

char *solar_xstrdup(const char *s)
{
	return s ? solar_xstrndup(s, strlen(s)) : NULL;
}

char *solar_xstrndup(const char *s, size_t n)
{
	char *c = solar_xmalloc(n + 1);
	memcpy(c, s, n);
	c[n] = 0;
	return c;
}
