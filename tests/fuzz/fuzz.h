/* fuzz.h - what every libFuzzer target in tests/fuzz/ shares.
 *
 * A target is one C file with LLVMFuzzerTestOneInput; each is built only with -DSOLAR_FUZZ=ON
 * (clang) and run by ctest for a short fixed time over its seed corpus in
 * tests/fuzz/corpus/<target>/ (tests/fuzz/README.md).  A broken promise calls FUZZ_REQUIRE,
 * which prints what failed and aborts: libFuzzer reports that as a crash and saves the input.
 */
#ifndef SOLAR_FUZZ_H
#define SOLAR_FUZZ_H

#include <fcntl.h>
#include <sanitizer/common_interface_defs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../diag/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The fuzzers' ISL operation budget per kernel (SOLAR_ISL_MAX_OPERATIONS, analysis/model.h):
 * their inputs are a few lines, and at the default budget a hostile one (a 39-deep nest of
 * two-iteration loops around `y += 1`: tests/fuzz/corpus/analysis/deep_scalar_chain.air) runs
 * for minutes before it is stopped, which libFuzzer reports as a timeout.  At this budget it
 * fails cleanly in about a second; the path it takes (the budget-exhausted error) is what the
 * fuzzer should exercise.  An explicit SOLAR_ISL_MAX_OPERATIONS wins. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("SOLAR_ISL_MAX_OPERATIONS", "100000", 0);
	return 0;
}

/* Inputs above this are skipped: every target reads text, and 1 MiB is plenty. */
#define FUZZ_MAX_INPUT (1 << 20)

static inline void fuzz_quiet(bool on);

#define FUZZ_REQUIRE(cond, ...)                                                             \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fuzz_quiet(false);                                                 \
			fprintf(stderr, "%s:%d: broken promise: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
			abort();                                                           \
		}                                                                          \
	} while (0)

/* Where diagnostics go: opened once, kept open for the whole run.  They are still formatted,
 * so the code that prints them runs too. */
static inline FILE *fuzz_sink(void)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	return null;
}

/* The channel the stages report through: on the sink (printed and thrown away, so the
 * printing code runs too), or on stderr for setup that must not fail. */
static inline solar_diag *fuzz_diag(void)
{
	static solar_diag *d;
	if (!d)
		d = solar_diag_new_tool(fuzz_sink());
	return d;
}

static inline solar_diag *fuzz_diag_stderr(void)
{
	static solar_diag *d;
	if (!d)
		d = solar_diag_new_tool(stderr);
	return d;
}

/* A NUL-terminated malloc'd copy of the input (caller frees). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* While on, what the code under test prints to stderr (fd 2) goes to /dev/null: for code that
 * prints its diagnostics there (the CLI), which would bury libFuzzer's own lines.  Sanitizer
 * reports go to a copy of the real stderr all along, and FUZZ_REQUIRE turns this off first. */
static inline void fuzz_quiet(bool on)
{
	static int real = -1, null = -1;
	if (real < 0) {
		if (!on)
			return;
		real = dup(2);
		null = open("/dev/null", O_WRONLY);
		if (real < 0 || null < 0)
			abort();
		__sanitizer_set_report_fd((void *)(intptr_t)real);
	}
	fflush(stderr);
	dup2(on ? null : real, 2);
}

#endif
