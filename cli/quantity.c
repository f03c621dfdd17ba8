/* quantity.c - quantities and factors as the command line prints them.
 *
 * Parsing quantities and applying `--set PATH=VALUE` belong to the job (api/quantity.c,
 * api/job.c); this file prints them ("205 GB/s", "20.3x").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/detail.h"
#include "cli.h"
#include "output.h"

double solar_cli_parse_time(const char *s)
{
	return solar_quantity_parse_time(s);
}

/* A factor rounded UP to 3 significant digits, so the printed factor still suffices. */
const char *solar_cli_fmt_factor(char *buf, size_t n, double f)
{
	if (f <= 0) {
		snprintf(buf, n, "any");
		return buf;
	}
	if (!isfinite(f)) {
		snprintf(buf, n, "-");
		return buf;
	}
	double scale = pow(10, floor(log10(f)) - 2);
	double up = ceil(f / scale * (1 - 1e-7)) * scale;
	snprintf(buf, n, "%.3gx", up);
	return buf;
}
