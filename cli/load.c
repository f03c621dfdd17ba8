/* load.c - reading a file through the front end, for every subcommand. */
#include <stdlib.h>

#include "cli.h"

int solar_cli_load(const char *file, const solar_opts *o, solar_loaded *out)
{
	out->src = NULL;
	out->diag = NULL;
	out->prog = NULL;
	int32_t len = 0;
	out->src = solar_read_file(file, &len);
	if (!out->src)
		return SOLAR_EXIT_USAGE;
	out->diag = solar_diag_new(file, out->src, len, stderr);
	out->prog = solar_frontend_load(file, out->src, len, o->defs, o->ndefs, out->diag);
	if (!out->prog) {
		solar_diag_finish(out->diag);
		return SOLAR_EXIT_ERRORS;
	}
	return SOLAR_EXIT_OK;
}

void solar_cli_unload(solar_loaded *l)
{
	solar_program_free(l->prog);
	solar_diag_free(l->diag);
	free(l->src);
	l->prog = NULL;
	l->diag = NULL;
	l->src = NULL;
}
