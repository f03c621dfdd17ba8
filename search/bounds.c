/* bounds.c - the analysis behind `solar triage`, in one function.
 *
 * Triage needs three numbers per AIR file: the unfused bound (kernels as written), the fused
 * bound and the cache-aware bound (docs/bounds.md), on one device in one L2 mode, and the
 * resource that limits the unfused one.  This file is the only place the search code asks for
 * them, through the job/result API (api/solar.h), as every command of solar does: the
 * question (the device, loaded once, and the L2 state) is the triage command's.
 */
#include <string.h>

#include "api/detail.h"
#include "devices/device.h"
#include "search/triage.h"

int solar_search_bounds(const char *air, const solar_question *q, double *unfused_s,
			double *fused_s, double *cache_aware_s, char *limiter, size_t nlimiter,
			solar_diag *diag)
{
	solar_job job = {.file = air, .question = *q};
	solar_result *r = solar_job_run_with(&job, diag);
	int rc = -1;
	if (r && r->status == SOLAR_JOB_OK && r->has_bounds) {
		*unfused_s = r->unfused.time_s;
		*fused_s = r->fused.time_s;
		*cache_aware_s = r->cache_aware.time_s;
		snprintf(limiter, nlimiter, "%s", r->unfused.limited_by ? r->unfused.limited_by : "");
		rc = 0;
	}
	solar_result_free(r);
	return rc;
}
