/* quantity.c - numbers with units on the command line, and `--set` device overrides.
 *
 * Shared by analyze, provision, sweep, report and validate: "8TB/s", "16MiB", "2.5GHz" parse to
 * SI values with a canonical unit; `--set PATH=VALUE` overrides a descriptor figure (its status
 * becomes hypothetical, devices/device.c) after checking the value's unit against the path's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output.h"


int solar_cli_parse_quantity(const char *s, double *value, const char **unit)
{
	static const char *const units[] = {"B/s", "B", "FLOP/s", "OP/s", "FLOPS", "OPS", "Hz"};
	static const char *const canon[] = {"B/s", "B", "FLOP/s", "OP/s", "FLOP/s", "OP/s", "Hz"};
	static const struct {
		const char *p;
		double scale;
	} prefix[] = {{"Ki", 1024.0},
		      {"Mi", 1048576.0},
		      {"Gi", 1073741824.0},
		      {"Ti", 1099511627776.0},
		      {"k", 1e3},
		      {"K", 1e3},
		      {"M", 1e6},
		      {"G", 1e9},
		      {"T", 1e12},
		      {"P", 1e15},
		      {"", 1}};
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || v <= 0)
		return -1;
	while (*end == ' ')
		end++;
	if (!*end) {
		*value = v;
		*unit = "";
		return 0;
	}
	for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++) {
		size_t pl = strlen(prefix[i].p);
		if (strncmp(end, prefix[i].p, pl))
			continue;
		for (size_t u = 0; u < sizeof units / sizeof *units; u++)
			if (!strcmp(end + pl, units[u])) {
				*value = v * prefix[i].scale;
				*unit = canon[u];
				return 0;
			}
	}
	return -1;
}

/* The unit a figure path is measured in. */
static const char *path_unit(const char *path)
{
	size_t n = strlen(path);
	if (n >= 21 && !strcmp(path + n - 21, "bandwidth_bytes_per_s"))
		return "B/s";
	if (n >= 14 && !strcmp(path + n - 14, "capacity_bytes"))
		return "B";
	if (!strcmp(path, "clock_hz") || !strncmp(path, "peak_clock_hz.", 14))
		return "Hz";
	if (!strncmp(path, "peak.", 5) || !strncmp(path, "sparse_peak.", 12))
		return strstr(path, ".i") ? "OP/s" : "FLOP/s";
	return "";
}

solar_device *solar_cli_load_device(const solar_opts *o)
{
	solar_device *d = solar_device_load(o->device, stderr);
	if (d)
		d->l2_cold = o->l2 && !strcmp(o->l2, "cold");
	for (int i = 0; d && i < o->nsets; i++) {
		const char *eq = strchr(o->sets[i], '=');
		char path[128];
		double v;
		const char *unit;
		if (!eq || eq == o->sets[i] || (size_t)(eq - o->sets[i]) >= sizeof path) {
			fprintf(stderr, "solar: --set expects PATH=VALUE, not '%s'\n", o->sets[i]);
			goto fail;
		}
		memcpy(path, o->sets[i], (size_t)(eq - o->sets[i]));
		path[eq - o->sets[i]] = '\0';
		if (solar_cli_parse_quantity(eq + 1, &v, &unit) < 0) {
			fprintf(stderr, "solar: --set %s: '%s' is not a positive number (units: B, "
					"B/s, FLOP/s, OP/s, Hz with k M G T P or Ki Mi Gi Ti)\n",
				path, eq + 1);
			goto fail;
		}
		const char *want = path_unit(path);
		if (unit[0] && want[0] && strcmp(unit, want) && strcmp(path, "sm_count")) {
			fprintf(stderr, "solar: --set %s: expected a value in %s, not '%s'\n", path,
				want, eq + 1);
			goto fail;
		}
		if (solar_device_set(d, path, v, stderr) < 0)
			goto fail;
	}
	return d;
fail:
	solar_device_free(d);
	return NULL;
}

/* "205 GB/s", "4.19 MB", "42.6 TFLOP/s" */
const char *solar_cli_fmt_quantity(char *buf, size_t n, double v, const char *unit)
{
	char si[32];
	if (!isfinite(v)) {
		snprintf(buf, n, "-");
		return buf;
	}
	solar_fmt_si(si, sizeof si, v);
	size_t l = strlen(si);
	if (l && si[l - 1] == ' ')
		si[--l] = '\0';
	if (strchr(si, ' ')) /* "4.19 M" */
		snprintf(buf, n, "%s%s", si, unit);
	else
		snprintf(buf, n, "%s %s", si, unit);
	return buf;
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
