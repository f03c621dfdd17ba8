/* programs.h - the programs of the tree that the model tests (test_flow.c, test_lower.c) run
 * over: every example, every golden program, the validate bugs and the unit tests' own
 * programs, each read and loaded (those that do not load are skipped: golden error tests).
 *
 *   each_program(argc, argv, fn)   calls fn on the programs named in argv[1..], or on all of
 *                                  them; returns how many files it tried
 *
 * Runs from the repository root.
 */
#ifndef SOLAR_TEST_PROGRAMS_H
#define SOLAR_TEST_PROGRAMS_H

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "frontend/frontend.h"

typedef void (*program_fn)(const char *file, const solar_program *p);

static void load_and_run(const char *file, program_fn fn)
{
	int32_t len;
	char *src = solar_read_file(file, &len, on(stderr));
	if (!src)
		return;
	FILE *devnull = fopen("/dev/null", "w");
	solar_diag *d = solar_diag_new(file, src, len, devnull);
	solar_program *p = solar_frontend_load(file, src, len, NULL, 0, d);
	if (p)
		fn(file, p);
	solar_program_free(p);
	solar_diag_free(d);
	fclose(devnull);
	free(src);
}

static int each_program(int argc, char **argv, program_fn fn)
{
	if (argc > 1) { /* the named programs only */
		for (int i = 1; i < argc; i++)
			load_and_run(argv[i], fn);
		return argc - 1;
	}
	static const char *patterns[] = {"examples/*.air",	  "examples/*/*.air",
					 "tests/golden/*/*.air",  "tests/validate/bugs/*.air",
					 "tests/unit/flow/*.air", "tests/unit/lower/*.air"};
	int files = 0;
	for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
		glob_t g;
		if (glob(patterns[i], 0, NULL, &g))
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++, files++)
			load_and_run(g.gl_pathv[k], fn);
		globfree(&g);
	}
	CHECKF(files > 100, "only %d programs found: run from the repository root", files);
	return files;
}

#endif
