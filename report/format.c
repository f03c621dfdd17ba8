/* format.c - numbers as every output of solar writes them: SI prefixes, times, quantities.
 *
 * Three significant digits everywhere ("34.4 G", "341 us", "4.19 MB", "205 GB/s"): what a
 * reader compares at a glance, and stable across builds; the exact numbers are in the JSON.
 * The renderers of report/ and every command of cli/ share them, and the one CSV field writer
 * (RFC 4180 quoting) of every CSV output.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/format.h"

const char *solar_fmt_si(char *buf, size_t n, double v)
{
	static const char *prefix[] = {"", " k", " M", " G", " T", " P", " E"};
	int k = 0;
	while (fabs(v) >= 999.5 && k < 6) {
		v /= 1000;
		k++;
	}
	if (k == 0 && v == floor(v))
		snprintf(buf, n, "%.0f ", v);
	else if (k == 0)
		snprintf(buf, n, "%.3g ", v);
	else
		snprintf(buf, n, "%.3g%s", v, prefix[k]);
	return buf;
}

const char *solar_fmt_time(char *buf, size_t n, double s)
{
	if (s <= 0)
		snprintf(buf, n, "0 s");
	else if (s < 1e-6)
		snprintf(buf, n, "%.3g ns", s * 1e9);
	else if (s < 1e-3)
		snprintf(buf, n, "%.3g us", s * 1e6);
	else if (s < 1)
		snprintf(buf, n, "%.3g ms", s * 1e3);
	else
		snprintf(buf, n, "%.3g s", s);
	return buf;
}

/* "205 GB/s", "4.19 MB", "42.6 TFLOP/s" */
const char *solar_fmt_quantity(char *buf, size_t n, double v, const char *unit)
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

void solar_fmt_csv_field(FILE *out, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
