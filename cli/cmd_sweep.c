/* cmd_sweep.c - `solar sweep FILE --device D --vary NAME=FROM..TO [--vary ...] [--steps N]
 *                [--format csv|json] [--svg FILE] [--target-time T] [--set P=V]`.
 *
 * Bound times (all three) over a grid of device figures: one or two knobs (roofline/provision.h)
 * each stepped geometrically from FROM to TO, every point an exact recomputation of the bounds
 * on a copy of the device.  Output: CSV or JSON rows, and an SVG chart: a line chart of the
 * three bounds against one figure, or three heat maps (one per bound) over two figures.
 * Docs: docs/provision.md#sweep.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/work.h"
#include "api/detail.h"
#include "cli.h"
#include "output.h"
#include "roofline/provision.h"
#include "report/svg.h"

typedef struct {
	solar_knob knob;
	double from, to; /* factors */
	int steps;
	double *f;       /* factor of each step */
} axis;

typedef struct {
	double t[SOLAR_BOUND_COUNT];
	int lim[SOLAR_BOUND_COUNT];
} point;

/* "0.5x" -> factor 0.5; "16MB" -> 16e6 / headline.  -1 after a message. */
static double parse_end(const char *spec, const char *s, size_t len, const solar_knob *k)
{
	char buf[64];
	if (len == 0 || len >= sizeof buf)
		goto bad;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[len - 1] == 'x') {
		char *end;
		double f = strtod(buf, &end);
		if (end == buf + len - 1 && isfinite(f) && f > 0)
			return f;
		goto bad;
	}
	double v;
	const char *unit;
	if (solar_quantity_parse(buf, &v, &unit) < 0)
		goto bad;
	if (unit[0] && strcmp(unit, k->unit)) {
		solar_diag_tool_error(solar_cli_diag(),
				      "--vary %s: '%s' is in %s, but %s is measured in %s", spec,
				      buf, unit, k->name, k->unit);
		return -1;
	}
	if (!isfinite(k->headline) || k->headline <= 0) {
		solar_diag_tool_error(
		    solar_cli_diag(),
		    "--vary %s: the descriptor gives no %s to scale from; use factors "
		    "such as 0.5x..2x",
		    spec, k->unit);
		return -1;
	}
	return v / k->headline;
bad:
	solar_diag_tool_error(solar_cli_diag(),
			      "--vary %s: expected FROM..TO with factors (0.5x..8x) or values with "
			      "units (16MB..256MB, 2TB/s..8TB/s)",
			      spec);
	return -1;
}

static int parse_vary(const char *spec, const solar_device *dev, const solar_system *sys,
		      int steps, axis *a)
{
	const char *eq = strchr(spec, '=');
	char name[64];
	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof name) {
		solar_diag_tool_error(solar_cli_diag(), "--vary expects NAME=FROM..TO, not '%s'",
				      spec);
		return -1;
	}
	memcpy(name, spec, (size_t)(eq - spec));
	name[eq - spec] = '\0';
	if (solar_knob_init_on(&a->knob, dev, sys, name, solar_cli_diag()) < 0)
		return -1;
	const char *dots = strstr(eq + 1, "..");
	if (!dots) {
		solar_diag_tool_error(solar_cli_diag(), "--vary %s: expected a range FROM..TO",
				      spec);
		return -1;
	}
	a->from = parse_end(spec, eq + 1, (size_t)(dots - eq - 1), &a->knob);
	if (a->from < 0)
		return -1;
	a->to = parse_end(spec, dots + 2, strlen(dots + 2), &a->knob);
	if (a->to < 0)
		return -1;
	a->steps = steps;
	a->f = solar_xcalloc((size_t)steps, sizeof *a->f);
	for (int i = 0; i < steps; i++) /* geometric: equal ratios between steps */
		a->f[i] = a->from * pow(a->to / a->from, (double)i / (steps - 1));
	a->f[steps - 1] = a->to;
	return 0;
}

static double axis_value(const axis *a, int i)
{
	return isfinite(a->knob.headline) ? a->knob.headline * a->f[i] : a->f[i];
}

static const char *axis_unit(const axis *a)
{
	return isfinite(a->knob.headline) ? a->knob.unit : "x";
}

/* ---- charts ------------------------------------------------------------------------------ */

static const char *const bound_label[] = {"unfused (kernels as written)",
					  "cache-aware (fused, on-chip)", "fused (compulsory)"};

static void chart_title(char *buf, size_t n, const solar_opts *o, const solar_device *dev,
			const char *what)
{
	const char *base = strrchr(o->files[0], '/');
	snprintf(buf, n, "%s on %s: %s", base ? base + 1 : o->files[0], dev->name, what);
}

static void line_chart(FILE *out, const solar_opts *o, const solar_device *dev, const axis *a,
		       const point *pt)
{
	const int W = 820, H = 500, L = 96, R = 600, T = 56, B = 420;
	char title[256], what[96], lab[64];
	snprintf(what, sizeof what, "bound time vs %s", a->knob.label);
	chart_title(title, sizeof title, o, dev, what);
	double tlo = INFINITY, thi = 0;
	for (int i = 0; i < a->steps; i++)
		for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
			tlo = fmin(tlo, pt[i].t[k]);
			thi = fmax(thi, pt[i].t[k]);
		}
	if (o->target_s > 0) {
		tlo = fmin(tlo, o->target_s);
		thi = fmax(thi, o->target_s);
	}
	double x0 = axis_value(a, 0), x1 = axis_value(a, a->steps - 1);
	solar_svg_axis x, y;
	solar_svg_axis_fit(&x, fmin(x0, x1), fmax(x0, x1), false, L, R, axis_unit(a));
	solar_svg_axis_fit(&y, tlo, thi, false, B, T, "s");
	solar_svg_begin(out, W, H, title);
	solar_svg_text(out, L, 30, "start", 15, "font-weight=\"bold\"", title);
	snprintf(what, sizeof what, "%s%s", a->knob.label,
		 x.log ? " (log scale)" : "");
	solar_svg_axes(out, &x, &y, what, y.log ? "bound time (log scale)" : "bound time");
	/* the device as given */
	if (isfinite(a->knob.headline)) {
		double g = a->knob.headline;
		if (g >= fmin(x.lo, x.hi) && g <= fmax(x.lo, x.hi)) {
			double px = solar_svg_map(&x, g);
			fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888888\" "
				     "stroke-dasharray=\"2 3\"/>\n",
				px, T, px, B);
			solar_svg_text(out, px + 4, T + 12, "start", 10, "fill=\"#666666\"", "as given");
		}
	}
	if (o->target_s > 0) {
		double py = solar_svg_map(&y, o->target_s);
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c00000\" "
			     "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
			L, py, R, py);
		snprintf(what, sizeof what, "target %s", solar_fmt_time(lab, sizeof lab, o->target_s));
		solar_svg_text(out, R - 4, py - 5, "end", 11, "fill=\"#c00000\"", what);
	}
	static const char *const dash[] = {"", " stroke-dasharray=\"7 4\"", " stroke-dasharray=\"2 3\""};
	static const int color[] = {1, 0, 2};
	for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
			solar_svg_color(color[k]), dash[k]);
		for (int i = 0; i < a->steps; i++)
			fprintf(out, "%s%.1f,%.1f", i ? " " : "", solar_svg_map(&x, axis_value(a, i)),
				solar_svg_map(&y, pt[i].t[k]));
		fputs("\"/>\n", out);
		for (int i = 0; i < a->steps; i++)
			solar_svg_marker(out, solar_svg_map(&x, axis_value(a, i)),
					 solar_svg_map(&y, pt[i].t[k]), k, 3.5,
					 solar_svg_color(color[k]), k != 2);
	}
	/* legend, right of the plot */
	int ly = T + 10;
	solar_svg_text(out, R + 20, ly, "start", 12, "font-weight=\"bold\"", "bound");
	for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
		ly += 22;
		fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			     "stroke-width=\"2\"%s/>\n",
			R + 20, ly - 4, R + 48, ly - 4, solar_svg_color(color[k]), dash[k]);
		solar_svg_marker(out, R + 34, ly - 4, k, 3.5, solar_svg_color(color[k]), k != 2);
		solar_svg_text(out, R + 54, ly, "start", 11, NULL, bound_label[k]);
	}
	ly += 30;
	solar_svg_text(out, R + 20, ly, "start", 10, "fill=\"#555555\"",
		       "lower bounds: no run on such");
	solar_svg_text(out, R + 20, ly + 13, "start", 10, "fill=\"#555555\"",
		       "a device can be faster");
	solar_svg_end(out);
}

static void heat_maps(FILE *out, const solar_opts *o, const solar_device *dev, const axis *a,
		      const axis *b, const point *pt)
{
	const int P = 240, L = 96, G = 90, T = 76;
	const int W = L + 3 * P + 2 * G + 130, H = T + P + 80;
	char title[256], what[160], lab[64], col[16];
	snprintf(what, sizeof what, "bound time over %s and %s", a->knob.label, b->knob.label);
	chart_title(title, sizeof title, o, dev, what);
	double tlo = INFINITY, thi = 0;
	int n = a->steps * b->steps;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
			tlo = fmin(tlo, pt[i].t[k]);
			thi = fmax(thi, pt[i].t[k]);
		}
	bool logc = tlo > 0 && thi / tlo > 10;
#define SHADE(t) (thi > tlo ? (logc ? log((t) / tlo) / log(thi / tlo) : ((t) - tlo) / (thi - tlo)) : 0.5)
	solar_svg_begin(out, W, H, title);
	solar_svg_text(out, L, 28, "start", 15, "font-weight=\"bold\"", title);
	double cw = (double)P / a->steps, ch = (double)P / b->steps;
	int every_a = (a->steps + 5) / 6, every_b = (b->steps + 7) / 8;
	for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
		int x0 = L + k * (P + G);
		solar_svg_text(out, x0 + P / 2.0, T - 10, "middle", 12, "font-weight=\"bold\"",
			       bound_label[k]);
		for (int i = 0; i < a->steps; i++)
			for (int j = 0; j < b->steps; j++) {
				const point *q = &pt[i * b->steps + j];
				double cx = x0 + i * cw, cy = T + P - (j + 1) * ch;
				fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
					     "fill=\"%s\"/>\n",
					cx, cy, cw + 0.3, ch + 0.3,
					solar_svg_ramp(col, sizeof col, SHADE(q->t[k])));
				if (o->target_s > 0 && q->t[k] <= o->target_s)
					fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" "
						     "fill=\"#ffffff\" stroke=\"#000000\" "
						     "stroke-width=\"0.8\"/>\n",
						cx + cw / 2, cy + ch / 2, fmin(cw, ch) * 0.11 + 1);
			}
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
			     "stroke=\"#555555\"/>\n",
			x0, T, P, P);
		for (int i = 0; i < a->steps; i += every_a)
			solar_svg_text(out, x0 + (i + 0.5) * cw, T + P + 15, "middle", 10, NULL,
				       solar_svg_label(lab, sizeof lab, axis_value(a, i), axis_unit(a)));
		solar_svg_text(out, x0 + P / 2.0, T + P + 34, "middle", 11, NULL, a->knob.label);
		if (k == 0) {
			for (int j = 0; j < b->steps; j += every_b)
				solar_svg_text(out, x0 - 5, T + P - (j + 0.5) * ch + 4, "end", 10, NULL,
					       solar_svg_label(lab, sizeof lab, axis_value(b, j),
							       axis_unit(b)));
			char rot[96];
			snprintf(rot, sizeof rot, "transform=\"rotate(-90 %d %.1f)\"", x0 - 70,
				 T + P / 2.0);
			solar_svg_text(out, x0 - 70, T + P / 2.0, "middle", 11, rot, b->knob.label);
		}
	}
	/* colour bar */
	int bx = L + 3 * P + 2 * G + 24;
	for (int s = 0; s < 50; s++)
		fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"16\" height=\"%.1f\" fill=\"%s\"/>\n",
			bx, T + P - (s + 1) * P / 50.0, P / 50.0 + 0.3,
			solar_svg_ramp(col, sizeof col, s / 49.0));
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"%d\" fill=\"none\" "
		     "stroke=\"#555555\"/>\n",
		bx, T, P);
	for (int s = 0; s <= 4; s++) {
		double f = s / 4.0;
		double t = logc ? tlo * pow(thi / tlo, f) : tlo + f * (thi - tlo);
		solar_svg_text(out, bx + 20, T + P - f * P + 4, "start", 10, NULL,
			       solar_fmt_time(lab, sizeof lab, t));
	}
	solar_svg_text(out, bx, T - 10, "start", 11, NULL, logc ? "time (log)" : "time");
	if (o->target_s > 0) {
		snprintf(what, sizeof what, "white dot: the bound meets the target %s",
			 solar_fmt_time(lab, sizeof lab, o->target_s));
		solar_svg_text(out, L, H - 12, "start", 11, NULL, what);
	}
	solar_svg_end(out);
#undef SHADE
}

/* ---- output ----------------------------------------------------------------------------- */

static void print_csv(FILE *out, const axis *ax, int nax, const point *pt, int n)
{
	char rb[48];
	char name[sizeof ax->knob.name + 8];
	for (int v = 0; v < nax; v++) {
		solar_fmt_csv_field(out, ax[v].knob.name);
		if (snprintf(name, sizeof name, "%s_factor", ax[v].knob.name) >= (int)sizeof name)
			name[sizeof name - 1] = '\0'; /* cannot happen: knob names are short */
		fputc(',', out);
		solar_fmt_csv_field(out, name);
		fputc(',', out);
	}
	fputs("unfused_s,unfused_limited_by,cache_aware_s,cache_aware_limited_by,fused_s,"
	      "fused_limited_by\n",
	      out);
	for (int p = 0; p < n; p++) {
		int idx[2] = {nax == 2 ? p / ax[1].steps : p, nax == 2 ? p % ax[1].steps : 0};
		for (int v = 0; v < nax; v++) {
			if (isfinite(ax[v].knob.headline))
				fprintf(out, "%.6g,", axis_value(&ax[v], idx[v]));
			else
				fputs(",", out);
			fprintf(out, "%.6g,", ax[v].f[idx[v]]);
		}
		for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
			fprintf(out, "%.6g,", pt[p].t[k]);
			solar_fmt_csv_field(out, solar_resource_name(pt[p].lim[k], rb, sizeof rb));
			fputs(k + 1 < SOLAR_BOUND_COUNT ? "," : "\n", out);
		}
	}
}

static cJSON *json_sweep(const solar_opts *o, const solar_program *prog, const solar_device *dev,
			 const axis *ax, int nax, const point *pt, int n)
{
	char rb[48];
	cJSON *j = solar_json_program(o->files[0], prog);
	cJSON *d = cJSON_AddObjectToObject(j, "device");
	cJSON_AddStringToObject(d, "name", dev->name);
	cJSON_AddStringToObject(d, "file", o->device);
	cJSON_AddStringToObject(j, "math", o->math == SOLAR_MATH_TF32 ? "tf32" : "strict");
	cJSON *vs = cJSON_AddArrayToObject(j, "vary");
	for (int v = 0; v < nax; v++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", ax[v].knob.name);
		cJSON_AddStringToObject(e, "label", ax[v].knob.label);
		cJSON_AddStringToObject(e, "unit", ax[v].knob.unit);
		if (isfinite(ax[v].knob.headline))
			cJSON_AddNumberToObject(e, "as_given", ax[v].knob.headline);
		cJSON_AddNumberToObject(e, "from_factor", ax[v].from);
		cJSON_AddNumberToObject(e, "to_factor", ax[v].to);
		cJSON_AddNumberToObject(e, "steps", ax[v].steps);
		cJSON_AddItemToArray(vs, e);
	}
	if (o->target_s > 0)
		cJSON_AddNumberToObject(j, "target_s", o->target_s);
	cJSON *ps = cJSON_AddArrayToObject(j, "points");
	for (int p = 0; p < n; p++) {
		int idx[2] = {nax == 2 ? p / ax[1].steps : p, nax == 2 ? p % ax[1].steps : 0};
		cJSON *e = cJSON_CreateObject();
		for (int v = 0; v < nax; v++) {
			char key[64];
			if (isfinite(ax[v].knob.headline))
				cJSON_AddNumberToObject(e, ax[v].knob.name, axis_value(&ax[v], idx[v]));
			snprintf(key, sizeof key, "%.39s_factor", ax[v].knob.name);
			cJSON_AddNumberToObject(e, key, ax[v].f[idx[v]]);
		}
		for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
			cJSON *b = cJSON_AddObjectToObject(e, solar_bound_key(k));
			cJSON_AddNumberToObject(b, "time_s", pt[p].t[k]);
			cJSON_AddStringToObject(b, "limited_by",
						solar_resource_name(pt[p].lim[k], rb, sizeof rb));
		}
		cJSON_AddItemToArray(ps, e);
	}
	return j;
}

int solar_cmd_sweep(const solar_opts *o)
{
	if (o->nfiles != 1 || !o->device || o->nvary < 1 || o->nvary > 2) {
		solar_diag_tool_error(solar_cli_diag(),
				      "sweep needs one FILE, --device FILE and one or "
				      "two --vary NAME=FROM..TO");
		solar_diag_hint(solar_cli_diag(), "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	if (o->format == SOLAR_FMT_MD) {
		solar_diag_tool_error(solar_cli_diag(),
				      "sweep writes csv or json (--format csv|json)");
		return SOLAR_EXIT_USAGE;
	}
	solar_question q = solar_cli_question(o);
	solar_system *sys = NULL; /* a system: the program's ranks are its GPUs */
	solar_device *dev = solar_question_device_on(&q, &sys, solar_cli_diag());
	if (!dev) {
		solar_cli_question_free(&q);
		return SOLAR_EXIT_USAGE;
	}
	axis ax[2] = {0};
	int steps = o->steps ? o->steps : 9, rc = SOLAR_EXIT_OK;
	solar_result *res = NULL;
	solar_machine work = {NULL, NULL, NULL};
	point *pt = NULL;
	int n = 1;
	for (int v = 0; v < o->nvary; v++) {
		if (parse_vary(o->vary[v], dev, sys, steps, &ax[v]) < 0) {
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
		n *= steps;
	}
	if (o->nvary == 2)
		for (int i = 0; i < ax[0].knob.nfig; i++)
			for (int j = 0; j < ax[1].knob.nfig; j++)
				if (!strcmp(ax[0].knob.path[i], ax[1].knob.path[j])) {
					solar_diag_tool_error(
					    solar_cli_diag(), "--vary %s and %s both change %s",
					    ax[0].knob.name, ax[1].knob.name, ax[0].knob.path[i]);
					rc = SOLAR_EXIT_USAGE;
					goto done;
				}
	/* The SM clock scales every peak (rule "clock domains"), so it and a peak knob would
	 * both set that peak. */
	for (int v = 0; o->nvary == 2 && v < 2; v++)
		if (!strcmp(ax[v].knob.name, "clock") && ax[1 - v].knob.resource >= SOLAR_RES_OPS) {
			solar_diag_tool_error(solar_cli_diag(),
					      "--vary clock and %s both change the %s peak",
					      ax[1 - v].knob.name, ax[1 - v].knob.name + 5);
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
	/* one count, bounded at every point: the job runs on the device as loaded (its --set
	 * overrides applied), and each point recomputes the bounds on a scaled copy */
	solar_job job = {.file = o->files[0], .question = q};
	job.question.device_file = NULL;
	job.question.device = dev;
	job.question.system = sys;
	job.question.nsets = 0;
	res = solar_job_run(&job);
	if ((rc = res->status) != SOLAR_EXIT_OK)
		goto done;
	work = (solar_machine){solar_device_clone(dev), sys ? solar_system_clone(sys) : NULL,
			       solar_result_program(res)};
	pt = solar_xcalloc((size_t)n, sizeof *pt);
	for (int p = 0; p < n; p++) {
		int idx[2] = {o->nvary == 2 ? p / steps : p, o->nvary == 2 ? p % steps : 0};
		for (int v = 0; v < o->nvary; v++)
			if (solar_knob_apply_on(&ax[v].knob, &work, ax[v].f[idx[v]],
						solar_cli_diag()) < 0) {
				rc = SOLAR_EXIT_USAGE;
				goto done;
			}
		solar_bounds b;
		if (solar_machine_bounds(solar_result_work(res), &work, res->l2_cold, &b,
					 solar_cli_diag()) < 0) {
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
		for (int k = 0; k < SOLAR_BOUND_COUNT; k++) {
			pt[p].t[k] = solar_bound_roof(&b, k)->time_s;
			pt[p].lim[k] = solar_bound_roof(&b, k)->limiter;
		}
		solar_bounds_free(&b);
	}
	FILE *out = solar_out_open(o);
	if (!out) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	if (o->format == SOLAR_FMT_JSON)
		solar_json_print(out, solar_json_schema(json_sweep(o, solar_result_program(res), dev, ax,
								 o->nvary, pt, n),
						      "sweep"));
	else
		print_csv(out, ax, o->nvary, pt, n);
	solar_out_close(o, out);
	if (o->svg_out) {
		FILE *svg = solar_out_open_path(o->svg_out);
		if (!svg) {
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
		if (o->nvary == 1)
			line_chart(svg, o, dev, &ax[0], pt);
		else
			heat_maps(svg, o, dev, &ax[0], &ax[1], pt);
		solar_out_close(o, svg);
	}
done:
	free(ax[0].f);
	free(ax[1].f);
	free(pt);
	solar_device_free(work.dev);
	solar_system_free(work.sys);
	solar_result_free(res);
	solar_device_free(dev);
	solar_system_free(sys);
	solar_cli_question_free(&q);
	return rc;
}
