/* embed.c - solar from C: one job, its cache-aware bound (docs/api.md).
 *
 *   embed PROGRAM.air DEVICE.json [NAME=VALUE ...]
 *
 * Prints the cache-aware bound in seconds (all 17 digits, so that a test can compare it with
 * `solar analyze --format json`), what limits it, and each kernel's own bound.  Exit status:
 * the job's (0 ok, 1 errors in the program, 2 usage or a bad device).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/solar.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s PROGRAM.air DEVICE.json [NAME=VALUE ...]\n", argv[0]);
		return 2;
	}
	solar_job_define defs[16];
	int ndefs = 0;
	for (int i = 3; i < argc && ndefs < 16; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		defs[ndefs].name = argv[i];
		defs[ndefs++].value = atoll(eq + 1);
	}
	solar_job job = {
		.file = argv[1], /* the program, read from the file */
		.question = {
			.device_file = argv[2], /* the descriptor, by path */
			.defines = defs,
			.ndefines = ndefs,
			/* zero for the rest: strict math, warm L2, peak ceilings */
		},
		/* errors to stderr */
	};
	solar_result *r = solar_job_run(&job); /* owned by us: solar_result_free */
	if (!r)
		return 2;
	int status = r->status;
	if (status == SOLAR_JOB_OK) {
		printf("cache_aware_s %.17g\n", r->cache_aware.time_s);
		printf("limited_by %s\n", r->cache_aware.limited_by);
		for (int k = 0; k < r->nkernels; k++)
			printf("kernel %s %.6g s (%s)\n", r->kernels[k].name,
			       r->kernels[k].bound.time_s, r->kernels[k].bound.limited_by);
		for (int i = 0; i < r->nwarnings; i++)
			fprintf(stderr, "warning: %s\n", r->warnings[i].message);
	}
	solar_result_free(r);
	return status;
}
