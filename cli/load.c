/* load.c - reading a file through the front end, the question of a command line, and the
 * channel every command reports through.
 *
 * The question (api/solar.h) is every analysis setting of a command line, built here once from
 * the parsed options: "cold", "tf32", "measured" were told apart where the options were read,
 * and --set's PATH=VALUE is split here; the device and its overrides are resolved by the job
 * (api/job.c), never here.
 */
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
	if (out->prog && o->no_assume)
		out->prog->nassumes = 0;
	if (!out->prog) { /* nothing for the caller to free: a failed load holds nothing */
		solar_diag_finish(out->diag);
		solar_cli_unload(out);
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

/* --set PATH=VALUE: split at the first '='; not of that form, path NULL and value the whole
 * text (the job reports it, in order with the other overrides). */
static solar_question_set split_set(const char *text)
{
	solar_question_set s = {.value = text};
	const char *eq = strchr(text, '=');
	if (eq && eq != text && eq - text < 128) {
		s.path = solar_xstrndup(text, (size_t)(eq - text));
		s.value = eq + 1;
	}
	return s;
}

solar_question solar_cli_question(const solar_opts *o)
{
	solar_question q = {0};
	solar_job_define *defs = solar_xcalloc((size_t)o->ndefs + 1, sizeof *defs);
	for (int i = 0; i < o->ndefs; i++) {
		defs[i].name = o->defs[i].name;
		defs[i].value = (long long)o->defs[i].value;
	}
	q.defines = defs;
	q.ndefines = o->ndefs;
	solar_question_set *sets = solar_xcalloc((size_t)o->nsets + 1, sizeof *sets);
	for (int i = 0; i < o->nsets; i++)
		sets[i] = split_set(o->sets[i]);
	q.sets = sets;
	q.nsets = o->nsets;
	q.device_file = o->device;
	q.tf32 = o->math == SOLAR_MATH_TF32;
	q.no_assume = o->no_assume;
	q.l2_cold = o->l2_cold;
	q.ceilings = o->ceilings_both	  ? SOLAR_CEILINGS_BOTH
		     : o->ceilings_measured ? SOLAR_CEILINGS_MEASURED
					    : SOLAR_CEILINGS_PEAK;
	q.time_limit_s = solar_cli_time_limit_s(); /* as main armed it */
	return q;
}

void solar_cli_question_free(solar_question *q)
{
	for (int i = 0; i < q->nsets; i++)
		free((char *)q->sets[i].path);
	free((void *)q->sets);
	free((void *)q->defines);
	q->sets = NULL;
	q->defines = NULL;
	q->nsets = q->ndefines = 0;
}

