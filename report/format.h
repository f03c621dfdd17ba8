/* format.h - numbers as solar's outputs print them (report/format.c). */
#ifndef SOLAR_REPORT_FORMAT_H
#define SOLAR_REPORT_FORMAT_H

#include <stddef.h>

/* "34.4 G", "1.14 G", "512 " (3 significant digits, SI prefixes) into buf. */
const char *solar_fmt_si(char *buf, size_t n, double v);
/* "341 us", "1.32 ms", "2.10 s" */
const char *solar_fmt_time(char *buf, size_t n, double seconds);
/* "205 GB/s", "4.19 MB", "42.6 TFLOP/s"; "-" when v is not finite. */
const char *solar_fmt_quantity(char *buf, size_t n, double v, const char *unit);

#endif
