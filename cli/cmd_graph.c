/* cmd_graph.c - `solar graph FILE [--dot]`. */
#include "analysis/analysis.h"
#include "analysis/graph.h"
#include "cli.h"
#include "output.h"

int solar_cmd_graph(const solar_opts *o)
{
	if (o->nfiles != 1) {
		solar_diag_tool_error(solar_cli_diag(), "graph needs exactly one FILE");
		solar_diag_hint(solar_cli_diag(), "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	solar_loaded l;
	int rc = solar_cli_load(o->files[0], o, &l);
	if (rc != SOLAR_EXIT_OK)
		return rc;
	solar_graph *g = NULL;
	if (solar_analysis_check(l.prog, l.diag) || !(g = solar_graph_build(l.prog, l.diag))) {
		rc = SOLAR_EXIT_ERRORS;
	} else {
		FILE *out = solar_out_open(o);
		if (out) {
			solar_graph_print(g, o->dot, out);
			solar_out_close(o, out);
		} else {
			rc = SOLAR_EXIT_USAGE;
		}
	}
	solar_diag_finish(l.diag);
	solar_graph_free(g);
	solar_cli_unload(&l);
	return rc;
}
