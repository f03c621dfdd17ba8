/* cmd_device.c - `solar device probe` and `solar device show FILE`. */
#include <string.h>

#include "cli.h"
#include "devices/device.h"

int solar_cmd_device(const solar_opts *o)
{
	if (o->nfiles >= 1 && !strcmp(o->files[0], "probe") && o->nfiles == 1)
		return solar_device_probe(stdout, stderr) ? SOLAR_EXIT_USAGE : SOLAR_EXIT_OK;
	if (o->nfiles == 2 && !strcmp(o->files[0], "show")) {
		solar_device *d = solar_device_load(o->files[1], stderr);
		if (!d)
			return SOLAR_EXIT_ERRORS;
		int rc = solar_device_write_json(d, stdout) ? SOLAR_EXIT_USAGE : SOLAR_EXIT_OK;
		solar_device_free(d);
		return rc;
	}
	fputs("solar: usage: solar device probe | solar device show FILE\n", stderr);
	return SOLAR_EXIT_USAGE;
}
