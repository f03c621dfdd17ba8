/* svg.h - the few SVG 1.1 primitives the charts of `solar sweep` and `solar report` draw with.
 *
 * Standalone SVG 1.1 (an XML declaration, the SVG namespace, a <title>), text escaped for XML,
 * axes linear or logarithmic (logarithmic wherever the data span more than 10x), ticks at
 * 1-2-5 steps or decades, and a colour palette that stays readable in grey.
 */
#ifndef SOLAR_SVG_H
#define SOLAR_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One axis: data range [lo, hi] drawn from pixel p0 to pixel p1, its values in unit ("s" for
 * times, "x" for factors, "" for plain numbers, else SI prefix + unit: "B/s", "FLOP/s"). */
typedef struct {
	double lo, hi;
	bool log;
	double p0, p1;
	const char *unit;
} solar_svg_axis;

/* A value of an axis as its tick label: "2 ms", "0.5x", "205 GB/s". */
const char *solar_svg_label(char *buf, size_t n, double v, const char *unit);

/* Fits an axis to data in [lo, hi] (positive for a log axis): logarithmic when hi/lo > 10 or
 * when force_log, with a margin of a few per cent on each side. */
void solar_svg_axis_fit(solar_svg_axis *a, double lo, double hi, bool force_log, double p0,
			double p1, const char *unit);
double solar_svg_map(const solar_svg_axis *a, double v);

void solar_svg_begin(FILE *out, int width, int height, const char *title);
void solar_svg_end(FILE *out);
/* Text escaped for XML (&, <, >, ", '). */
void solar_svg_escape(FILE *out, const char *s);
/* <text> at (x, y); anchor "start", "middle" or "end"; extra attributes may be NULL. */
void solar_svg_text(FILE *out, double x, double y, const char *anchor, int size,
		    const char *extra, const char *text);
/* Frame, grid lines, ticks and tick labels, axis titles. */
void solar_svg_axes(FILE *out, const solar_svg_axis *x, const solar_svg_axis *y,
		    const char *xtitle, const char *ytitle);
/* Palette colour i (cycled) as "#rrggbb". */
const char *solar_svg_color(int i);
/* A sequential colour for t in [0, 1] (dark blue to yellow) into buf. */
const char *solar_svg_ramp(char *buf, size_t n, double t);
/* A marker: shape 0 circle, 1 square, 2 diamond, 3 triangle; filled or hollow. */
void solar_svg_marker(FILE *out, double x, double y, int shape, double r, const char *color,
		      bool filled);

#endif
