/* cmd_device.c - `solar device probe` and `solar device show FILE`. */
#include <string.h>

#include "cli.h"
#include "devices/device.h"
#include "output.h"

int solar_cmd_device(const solar_opts *o)
{
	if (o->nfiles >= 1 && !strcmp(o->files[0], "probe") && o->nfiles == 1) {
		FILE *out = solar_out_open(o);
		if (!out)
			return SOLAR_EXIT_USAGE;
		if (solar_device_probe(out, stderr))
			return SOLAR_EXIT_USAGE;
		solar_out_close(o, out);
		return SOLAR_EXIT_OK;
	}
	if (o->nfiles == 2 && !strcmp(o->files[0], "show")) {
		solar_device *d = solar_device_load(o->files[1], stderr);
		if (!d)
			return SOLAR_EXIT_ERRORS;
		FILE *out = solar_out_open(o);
		int rc = !out || solar_device_write_json(d, out) ? SOLAR_EXIT_USAGE : SOLAR_EXIT_OK;
		solar_out_close(o, out);
		solar_device_free(d);
		return rc;
	}
	fputs("solar: usage: solar device probe | solar device show FILE\n", stderr);
	return SOLAR_EXIT_USAGE;
}
