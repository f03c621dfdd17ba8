/* svg.c - SVG 1.1 drawing primitives for the charts (see svg.h).
 *
 * Output only: the charts are written as they are drawn, nothing is kept.  Coordinates are
 * printed with one decimal, so the files are stable across builds and small.
 */
#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/format.h"

const char *solar_svg_label(char *buf, size_t n, double v, const char *unit)
{
	if (!strcmp(unit, "s"))
		return solar_fmt_time(buf, n, v);
	if (!strcmp(unit, "x")) {
		snprintf(buf, n, "%gx", v);
		return buf;
	}
	return solar_fmt_quantity(buf, n, v, unit);
}

void solar_svg_axis_fit(solar_svg_axis *a, double lo, double hi, bool force_log, double p0,
			double p1, const char *unit)
{
	a->unit = unit;
	if (!(hi > lo)) { /* one value: a range around it */
		double c = lo;
		lo = c > 0 ? c / 2 : c - 1;
		hi = c > 0 ? c * 2 : c + 1;
	}
	a->log = lo > 0 && (force_log || hi / lo > 10);
	if (a->log) {
		double m = pow(hi / lo, 0.04);
		a->lo = lo / m;
		a->hi = hi * m;
	} else {
		double m = (hi - lo) * 0.04;
		a->lo = lo - m;
		a->hi = hi + m;
		if (lo >= 0 && a->lo < 0)
			a->lo = 0;
	}
	a->p0 = p0;
	a->p1 = p1;
}

double solar_svg_map(const solar_svg_axis *a, double v)
{
	double t = a->log ? (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo))
			  : (v - a->lo) / (a->hi - a->lo);
	return a->p0 + t * (a->p1 - a->p0);
}

void solar_svg_begin(FILE *out, int w, int h, const char *title)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, "
		     "Helvetica, sans-serif\">\n<title>",
		w, h, w, h);
	solar_svg_escape(out, title);
	fprintf(out, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		w, h);
}

void solar_svg_end(FILE *out)
{
	fputs("</svg>\n", out);
}

void solar_svg_escape(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, out);
		}
}

void solar_svg_text(FILE *out, double x, double y, const char *anchor, int size, const char *extra,
		    const char *text)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s%s>", x, y,
		size, anchor, extra ? " " : "", extra ? extra : "");
	solar_svg_escape(out, text);
	fputs("</text>\n", out);
}

/* Tick positions: decades (with 2 and 5 when the axis spans under three decades) on a log
 * axis, 1-2-5 steps on a linear one.  Returns the count (at most max). */
static int ticks(const solar_svg_axis *a, double *t, int max, bool *minor)
{
	int n = 0;
	if (a->log) {
		double e0 = floor(log10(a->lo)), e1 = ceil(log10(a->hi));
		bool sub = e1 - e0 <= 3;
		for (double e = e0; e <= e1 && n < max; e++)
			for (int m = 1; m <= 9 && n < max; m++) {
				double v = m * pow(10, e);
				if (v < a->lo * (1 - 1e-9) || v > a->hi * (1 + 1e-9))
					continue;
				bool major = m == 1 || (sub && (m == 2 || m == 5));
				minor[n] = !major;
				t[n++] = v;
			}
		return n;
	}
	double span = a->hi - a->lo, raw = span / 5, mag = pow(10, floor(log10(raw)));
	double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
	for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < max; v += step) {
		minor[n] = false;
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

void solar_svg_axes(FILE *out, const solar_svg_axis *x, const solar_svg_axis *y, const char *xt,
		    const char *yt)
{
	double t[128];
	bool minor[128];
	char lab[48];
	double left = fmin(x->p0, x->p1), right = fmax(x->p0, x->p1);
	double top = fmin(y->p0, y->p1), bottom = fmax(y->p0, y->p1);
	fputs("<g stroke-width=\"1\">\n", out);
	int n = ticks(x, t, 128, minor);
	for (int i = 0; i < n; i++) {
		double px = solar_svg_map(x, t[i]);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			px, top, px, bottom, minor[i] ? "#f0f0f0" : "#dddddd");
		if (!minor[i])
			solar_svg_text(out, px, bottom + 16, "middle", 11, "fill=\"#333333\"",
				       solar_svg_label(lab, sizeof lab, t[i], x->unit));
	}
	n = ticks(y, t, 128, minor);
	for (int i = 0; i < n; i++) {
		double py = solar_svg_map(y, t[i]);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			left, py, right, py, minor[i] ? "#f0f0f0" : "#dddddd");
		if (!minor[i])
			solar_svg_text(out, left - 6, py + 4, "end", 11, "fill=\"#333333\"",
				       solar_svg_label(lab, sizeof lab, t[i], y->unit));
	}
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		     "stroke=\"#555555\"/>\n</g>\n",
		left, top, right - left, bottom - top);
	solar_svg_text(out, (left + right) / 2, bottom + 36, "middle", 12, NULL, xt);
	char rot[96];
	snprintf(rot, sizeof rot, "transform=\"rotate(-90 %.1f %.1f)\"", left - 56, (top + bottom) / 2);
	solar_svg_text(out, left - 56, (top + bottom) / 2, "middle", 12, rot, yt);
}

const char *solar_svg_color(int i)
{
	/* Okabe-Ito, colour-blind safe */
	static const char *const c[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
					"#e69f00", "#56b4e9", "#000000", "#f0e442"};
	return c[(i % 8 + 8) % 8];
}

const char *solar_svg_ramp(char *buf, size_t n, double t)
{
	static const double stop[5][3] = {
		{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
	t = fmin(fmax(t, 0), 1) * 4;
	int i = (int)fmin(floor(t), 3);
	double f = t - i;
	int rgb[3];
	for (int k = 0; k < 3; k++)
		rgb[k] = (int)lround(stop[i][k] + f * (stop[i + 1][k] - stop[i][k]));
	snprintf(buf, n, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
	return buf;
}

void solar_svg_marker(FILE *out, double x, double y, int shape, double r, const char *color,
		      bool filled)
{
	char paint[96];
	snprintf(paint, sizeof paint, "fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"",
		 filled ? color : "#ffffff", color);
	switch (shape % 4) {
	case 0:
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" %s/>\n", x, y, r, paint);
		break;
	case 1:
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s/>\n",
			x - r, y - r, 2 * r, 2 * r, paint);
		break;
	case 2:
		fprintf(out, "<path d=\"M %.1f %.1f L %.1f %.1f L %.1f %.1f L %.1f %.1f Z\" %s/>\n",
			x, y - r * 1.3, x + r * 1.3, y, x, y + r * 1.3, x - r * 1.3, y, paint);
		break;
	default:
		fprintf(out, "<path d=\"M %.1f %.1f L %.1f %.1f L %.1f %.1f Z\" %s/>\n", x,
			y - r * 1.3, x + r * 1.2, y + r, x - r * 1.2, y + r, paint);
		break;
	}
}
