/* report.h - `solar report` as a stage: a manifest of models in, a gated headroom report out.
 *
 * solar_report_load reads the manifest (docs/report.md), runs one job per model (api/solar.h),
 * reads the measured times (report/measured.h) and the baseline, and applies the gate; the
 * renderers write the Markdown summary, the JSON report (itself a valid baseline) and the SVG
 * roofline chart.  Input errors are printed to stderr as `FILE: JSON.PATH: message`
 * (solar_diag_path_error), or `FILE:LINE:COL: error: ...` for a file that is not JSON.
 */
#ifndef SOLAR_REPORT_REPORT_H
#define SOLAR_REPORT_REPORT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "api/solar.h" /* SOLAR_GIVE, SOLAR_TAKE, SOLAR_KEEP */

typedef struct {
	const char *bound;        /* the gated bound (unfused, cache-aware, fused); NULL: the
				     manifest's defaults.bound, else cache-aware */
	const char *baseline;     /* an earlier JSON report, or NULL */
	bool has_max_headroom, has_max_regression;
	double max_headroom;      /* the limit on every model's headroom */
	double max_regression;    /* the limit on a headroom's growth since the baseline (0.1: 10%) */
	/* Called with every file the report reads (NULL: not called): the CLI refuses an output
	 * that would overwrite one.  input_device: a descriptor, with its base chain. */
	void (*input)(const char *path);
	void (*input_device)(const char *path);
} solar_report_opts;

typedef struct solar_report solar_report;

/* Loads and gates the report of `manifest`.  *out is set (free it with solar_report_free)
 * unless memory runs out.  Returns 0, or 2 after input errors (then nothing is rendered). */
int solar_report_load(const char *manifest, SOLAR_KEEP const solar_report_opts *o,
		      SOLAR_GIVE solar_report **out);
/* Models that failed the gate (exit 1 when any). */
int solar_report_failures(SOLAR_KEEP const solar_report *r);
void solar_report_write_md(SOLAR_KEEP const solar_report *r, FILE *out);
SOLAR_GIVE cJSON *solar_report_json(SOLAR_KEEP const solar_report *r);
void solar_report_write_svg(SOLAR_KEEP const solar_report *r, FILE *out);
void solar_report_free(SOLAR_TAKE solar_report *r);

#endif
