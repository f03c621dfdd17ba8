/* quantity.c - quantities and factors as the command line prints them, and --device loading.
 *
 * Parsing quantities and applying `--set PATH=VALUE` belong to the job (api/quantity.c); this
 * file prints them ("205 GB/s", "20.3x") and loads --device with its overrides for the
 * commands that need the device before the program (sweep's --vary, validate).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/detail.h"
#include "cli.h"
#include "output.h"

solar_device *solar_cli_load_device(const solar_opts *o)
{
	solar_device *d = solar_device_load(o->device, solar_cli_diag());
	if (d)
		d->l2_cold = o->l2 && !strcmp(o->l2, "cold");
	for (int i = 0; d && i < o->nsets; i++)
		if (solar_quantity_set(d, o->sets[i], solar_cli_diag()) < 0) {
			solar_device_free(d);
			return NULL;
		}
	return d;
}

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
