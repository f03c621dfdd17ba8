/* format.h - numbers as solar's outputs print them (report/format.c). */
#ifndef SOLAR_REPORT_FORMAT_H
#define SOLAR_REPORT_FORMAT_H

#include <stddef.h>
#include <stdio.h>

/* "34.4 G", "1.14 G", "512 " (3 significant digits, SI prefixes) into buf. */
const char *solar_fmt_si(char *buf, size_t n, double v);
/* "341 us", "1.32 ms", "2.10 s" */
const char *solar_fmt_time(char *buf, size_t n, double seconds);
/* "205 GB/s", "4.19 MB", "42.6 TFLOP/s"; "-" when v is not finite. */
const char *solar_fmt_quantity(char *buf, size_t n, double v, const char *unit);

/* One CSV field (RFC 4180): as it is, or in double quotes with each quote doubled when it holds
 * a comma, a quote, a CR or an LF.  The one CSV field writer of solar: every CSV output (analyze,
 * sweep, triage) writes its text fields through it; numbers need none. */
void solar_fmt_csv_field(FILE *out, const char *s);

#endif
