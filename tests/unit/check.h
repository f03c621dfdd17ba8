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

#endif
