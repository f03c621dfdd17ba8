/* cmd_check.c - `solar check FILE...` and `solar fmt FILE`.
 *
 * check: front-end checks, then the ISL checks (bounds, uninitialised tmp reads) on programs
 * that passed the front end.  Exit 0 when every file is clean, 1 when any has errors.
 * fmt: canonical AIR on stdout; --verify also reparses the output and compares the IR.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli.h"
#include "output.h"

int solar_cmd_check(const solar_opts *o)
{
	if (!o->nfiles) {
		solar_diag_tool_error(solar_cli_diag(), "check needs at least one FILE");
		solar_diag_hint(solar_cli_diag(), "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	int rc = SOLAR_EXIT_OK;
	for (int i = 0; i < o->nfiles; i++) {
		solar_loaded l;
		int r = solar_cli_load(o->files[i], o, &l);
		if (r == SOLAR_EXIT_OK) {
			if (solar_analysis_check(l.prog, l.diag))
				r = SOLAR_EXIT_ERRORS;
			solar_diag_finish(l.diag);
		}
		if (r > rc)
			rc = r;
		solar_cli_unload(&l);
	}
	return rc;
}

int solar_cmd_fmt(const solar_opts *o)
{
	if (o->nfiles != 1) {
		solar_diag_tool_error(solar_cli_diag(), "fmt needs exactly one FILE");
		solar_diag_hint(solar_cli_diag(), "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	solar_loaded l;
	int rc = solar_cli_load(o->files[0], o, &l);
	if (rc != SOLAR_EXIT_OK)
		return rc;
	FILE *out = solar_out_open(o);
	if (!out) {
		solar_cli_unload(&l);
		return SOLAR_EXIT_USAGE;
	}
	solar_ir_print(l.prog, out);
	if (o->verify) {
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		solar_ir_print(l.prog, mem);
		fclose(mem);
		solar_diag *d =
		    solar_diag_new_file(solar_cli_diag(), "<fmt output>", text, (int32_t)len);
		solar_program *again =
			solar_frontend_load("<fmt output>", text, (int32_t)len, o->defs, o->ndefs, d);
		if (!again) {
			solar_diag_tool_error(
			    solar_cli_diag(),
			    "fmt --verify: the canonical form of %s does not parse", o->files[0]);
			rc = SOLAR_EXIT_ERRORS;
		} else if (!solar_ir_equal(l.prog, again)) {
			solar_diag_tool_error(solar_cli_diag(),
					      "fmt --verify: the canonical form of %s parses to a "
					      "different IR",
					      o->files[0]);
			rc = SOLAR_EXIT_ERRORS;
		}
		solar_program_free(again);
		solar_diag_free(d);
		free(text);
	}
	if (rc == SOLAR_EXIT_OK) /* a form that does not round-trip is not written */
		solar_out_close(o, out);
	solar_cli_unload(&l);
	return rc;
}
