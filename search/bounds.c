/* bounds.c - the analysis chain behind `solar triage`, in one function.
 *
 * Triage needs three numbers per AIR file: the unfused bound (kernels as written), the fused
 * bound and the cache-aware bound (docs/bounds.md), on one device in one L2 mode.  This file
 * is the only place the search code calls the front end, the counter and the roofline, so the
 * job/result API (api/solar.h) can take its place in one edit.
 */
#include <stdlib.h>

#include "analysis/work.h"
#include "frontend/frontend.h"
#include "roofline/roofline.h"
#include "search/triage.h"

int solar_search_bounds(const char *air, const solar_device *dev, double *unfused_s,
			double *fused_s, double *cache_aware_s, int *unfused_limiter, FILE *err)
{
	int32_t len = 0;
	char *src = solar_read_file(air, &len);
	if (!src)
		return -1;
	int rc = -1;
	solar_diag *d = solar_diag_new(air, src, len, err);
	solar_program *prog = solar_frontend_load(air, src, len, NULL, 0, d);
	solar_work *w = prog ? solar_work_check_and_count(prog, SOLAR_MATH_STRICT, d) : NULL;
	solar_bounds b = {0};
	if (w && solar_bounds_compute(w, dev, &b, err) == 0) {
		*unfused_s = b.unfused.time_s;
		*fused_s = b.fused.time_s;
		*cache_aware_s = b.cache_aware.time_s;
		*unfused_limiter = b.unfused.limiter;
		rc = 0;
	}
	solar_diag_finish(d);
	solar_bounds_free(&b);
	solar_work_free(w);
	solar_program_free(prog);
	solar_diag_free(d);
	free(src);
	return rc;
}
