/* load.c - reading a file through the front end, the job of a command line, and the
 * channel every command reports through. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The process has one standard error, so the command line has one channel on it: made on
 * first use and kept until exit (the stages below take it as their solar_diag *). */
solar_diag *solar_cli_diag(void)
{
	static solar_diag *tool;
	if (!tool)
		tool = solar_diag_new_tool(stderr);
	return tool;
}

/* JSON lines on stderr where the command's output is JSON: a program that reads one reads
 * the other.  Set by each command that writes JSON as it starts, before its first message. */
void solar_cli_diag_format(solar_format format)
{
	solar_diag_set_json(solar_cli_diag(), format == SOLAR_FMT_JSON);
}

int solar_cli_load(const char *file, const solar_opts *o, solar_loaded *out)
{
	out->src = NULL;
	out->diag = NULL;
	out->prog = NULL;
	int32_t len = 0;
	out->src = solar_read_file(file, &len, solar_cli_diag());
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

solar_job solar_cli_job(const solar_opts *o)
{
	solar_job j = {0};
	j.file = o->nfiles > 0 ? o->files[0] : NULL;
	solar_job_define *defs = solar_xcalloc((size_t)o->ndefs + 1, sizeof *defs);
	for (int i = 0; defs && i < o->ndefs; i++) {
		defs[i].name = o->defs[i].name;
		defs[i].value = (long long)o->defs[i].value;
	}
	j.defines = defs;
	j.ndefines = defs ? o->ndefs : 0;
	j.device_file = o->device;
	j.sets = o->sets;
	j.nsets = o->nsets;
	j.tf32 = o->math == SOLAR_MATH_TF32;
	j.l2_cold = o->l2 && !strcmp(o->l2, "cold");
	j.measured_ceilings = o->ceilings_measured;
	return j;
}

void solar_cli_job_done(solar_job *j)
{
	free((void *)j->defines);
	j->defines = NULL;
}
