/* cmd_report.c - `solar report MANIFEST [--baseline OLD.json] [--max-headroom X]
 *                 [--max-regression R] [--bound B] [--md FILE] [--json FILE] [--svg FILE]`.
 *
 * The options of the headroom report for CI; the report itself (manifest, measured times,
 * gate, renderers) is the report/ stage (report/report.h, docs/report.md).  Outputs: the
 * Markdown summary on stdout unless --md, the JSON report with --json, the SVG chart with
 * --svg.  Exit status is the gate: 0 within the limits, 1 when a model is over them, 2 on
 * usage or input errors.
 */
#include "cli.h"
#include "output.h"
#include "report/report.h"

int solar_cmd_report(const solar_opts *o)
{
	if (o->nfiles != 1) {
		solar_diag_tool_error(solar_cli_diag(), "report needs exactly one MANIFEST (docs/report.md)");
		solar_diag_hint(solar_cli_diag(), "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	solar_report_opts ro = {.bound = o->bound,
				.baseline = o->baseline,
				.has_max_headroom = o->has_max_headroom,
				.has_max_regression = o->has_max_regression,
				.max_headroom = o->max_headroom,
				.max_regression = o->max_regression,
				.input = solar_out_input,
				.input_device = solar_out_input_device};
	solar_report *r = NULL;
	int rc = solar_report_load(o->files[0], &ro, &r);
	FILE *f = NULL;
	if (rc != SOLAR_EXIT_OK)
		goto done;
	if (!(f = solar_out_open_path(o->md_out))) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	solar_report_write_md(r, f);
	solar_out_close(o, f);
	if (o->json_out) {
		if (!(f = solar_out_open_path(o->json_out))) {
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
		solar_json_print(f, solar_json_schema(solar_report_json(r), "report"));
		solar_out_close(o, f);
	}
	if (o->svg_out) {
		if (!(f = solar_out_open_path(o->svg_out))) {
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
		solar_report_write_svg(r, f);
		solar_out_close(o, f);
	}
	rc = solar_report_failures(r) ? SOLAR_EXIT_ERRORS : SOLAR_EXIT_OK;
done:
	solar_report_free(r);
	return rc;
}
