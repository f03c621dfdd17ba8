/* quantity.c - numbers with units, and `--set` device overrides, for every job.
 *
 * "8TB/s", "16MiB", "2.5GHz" parse to SI values with a canonical unit; `--set PATH=VALUE`
 * overrides a descriptor figure (its status becomes hypothetical, devices/device.c) after
 * checking the value's unit against the path's.  The command line, report manifests and the
 * job API share them.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/detail.h"
#include "devices/system.h"

int solar_quantity_parse(const char *s, double *value, const char **unit)
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
				return isfinite(*value) ? 0 : -1; /* 1e300TB/s */
			}
	}
	return -1;
}

/* The unit a figure path is measured in: "" for a count (sm_count), NULL for a path that names
 * no figure (solar_device_set says what is wrong with it). */
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
	if (!strcmp(path, "sm_count"))
		return "";
	return NULL;
}

/* "4.57ms", "120us", "0.002s", "3e-3" (seconds without a unit). */
double solar_quantity_parse_time(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v <= 0)
		return -1;
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (!strcmp(end, units[i].unit)) {
			double t = v * units[i].scale;
			return t > 0 && isfinite(t) ? t : -1; /* not a time that rounds to 0 */
		}
	return -1;
}

SOLAR_PRINTF(4, 5)
static void set_error(solar_diag *diag, const char *file, const char *where, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (file)
		solar_diag_path_error_in(diag, file, where, "%s", msg);
	else
		solar_diag_tool_error(diag, "%s: %s", where, msg);
}

/* The one unit-checked setter: every setting of a descriptor figure from text (the command
 * line's --set, a manifest's "set", the job API's sets) comes through here, so a value whose
 * unit is not its path's ("4TB/s" for a capacity) is refused the same way everywhere. */
int solar_quantity_set_value(solar_device *d, const char *path, const char *text, const char *file,
			     const char *where, solar_diag *diag)
{
	double v;
	const char *unit;
	if (solar_quantity_parse(text, &v, &unit) < 0) {
		set_error(diag, file, where,
			  "'%s' is not a positive number (units: B, B/s, FLOP/s, OP/s, Hz with k M G "
			  "T P or Ki Mi Gi Ti)",
			  text);
		return -1;
	}
	const char *want = path_unit(path);
	if (want && unit[0] && strcmp(unit, want)) {
		if (want[0])
			set_error(diag, file, where, "expected a value in %s, not '%s'", want, text);
		else
			set_error(diag, file, where, "expected a plain number (a count), not '%s'",
				  text);
		return -1;
	}
	return solar_device_set(d, path, v, diag);
}

int solar_quantity_set_system(solar_system *s, solar_device *gpu, const char *path,
			      const char *text, const char *file, const char *where,
			      solar_diag *diag)
{
	/* a GPU's figure: gpu.PATH, or a path only a device has (docs/devices.md) */
	static const char *const gpu_paths[] = {"clock_hz", "sm_count", "peak.", "peak_clock_hz.",
						 "sparse_peak.", "memory."};
	bool gpu_path = !strncmp(path, "gpu.", 4);
	for (size_t i = 0; i < sizeof gpu_paths / sizeof *gpu_paths && !gpu_path; i++)
		gpu_path = !strncmp(path, gpu_paths[i], strlen(gpu_paths[i]));
	if (gpu_path) {
		const char *p = !strncmp(path, "gpu.", 4) ? path + 4 : path;
		return solar_quantity_set_value(s->gpu, p, text, file, where, diag) < 0 ||
			       (gpu && solar_quantity_set_value(gpu, p, text, file, where, NULL) < 0)
			   ? -1
			   : 0;
	}
	double v;
	const char *unit = "";
	bool time = !strcmp(path, "latency_s");
	if (time)
		v = solar_quantity_parse_time(text);
	else if (solar_quantity_parse(text, &v, &unit))
		v = -1;
	bool bw = strstr(path, "bandwidth") != NULL;
	if (!(v > 0) || (bw && *unit && strcmp(unit, "B/s")) || (!bw && !time && *unit)) {
		const char *what = bw ? "a bandwidth such as 900GB/s"
			      : time ? "a time such as 2us"
				     : "a whole number";
		if (file)
			solar_diag_path_error_in(diag, file, where, "'%s' is not %s", text, what);
		else
			solar_diag_tool_error(diag, "%s: '%s' is not %s", where, text, what);
		return -1;
	}
	return solar_system_set(s, path, v, diag);
}
