/* check.h - the tiny check macros every unit test uses.
 *
 *   CHECK(cond)              counts a check; on failure prints file:line and the condition
 *   CHECKF(cond, fmt, ...)   the same, followed by a printf-style explanation
 *
 * A test returns `failures != 0` from main.
 */
#ifndef SOLAR_TEST_CHECK_H
#define SOLAR_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "../../diag/diag.h"

static int checks __attribute__((unused)), failures;

#define CHECKF(cond, ...)                                                                  \
	do {                                                                               \
		checks++;                                                                  \
		if (!(cond)) {                                                             \
			failures++;                                                        \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
		}                                                                          \
	} while (0)

#define CHECK(cond) CHECKF(cond, "%s", "false")

/* The channel a test hands a stage that reports: a fresh tool context printing on f (its
 * own cap of 20 errors), freed at exit.  NULL for f: a silent channel. */
static solar_diag **on_made;
static size_t on_n;
static inline void on_free(void)
{
	for (size_t i = 0; i < on_n; i++)
		solar_diag_free(on_made[i]);
	free(on_made);
}
static inline solar_diag *on(FILE *f)
{
	if (!f)
		return NULL;
	if (!on_n)
		atexit(on_free);
	if (!(on_n & (on_n + 1))) /* 0, 1, 3, 7, ...: grow */
		on_made = solar_xrealloc(on_made, 2 * (on_n + 1) * sizeof *on_made);
	return on_made[on_n++] = solar_diag_new_tool(f);
}

/* Everything written to the tmpfile f, as a string (the caller frees); closes f. */
static inline __attribute__((unused)) char *slurp(FILE *f)
{
	fflush(f);
	long n = ftell(f);
	rewind(f);
	char *s = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	if (n > 0 && fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	fclose(f);
	return s;
}

#endif
