/* main.c - `solar`: finds the command, has its words parsed against the tables, runs it.
 *
 * No analysis and no option handling happens here: the options and commands are data
 * (cli/commands.c), read by one parser (cli/args.c); the help, the man page and the
 * completions are written from the same data (cli/help.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "args.h"

/* What a command reads that no output may overwrite (report adds its manifest's files). */
static void note_inputs(const solar_opts *o)
{
	for (int i = !strcmp(o->cmd, "device"); i < o->nfiles; i++)
		solar_out_input(o->files[i]);
	char *device_file = solar_device_resolve(o->device); /* a name: its descriptor file */
	solar_out_input_device(device_file);
	free(device_file);
	if (!strcmp(o->cmd, "device") && o->nfiles == 2) {
		char *shown = solar_device_resolve(o->files[1]);
		solar_out_input_device(shown);
		free(shown);
	}
	solar_out_input(o->measured_file);
	solar_out_input(o->baseline);
	solar_out_input(o->ref);
	solar_out_input(o->memory);
	solar_out_input(o->history);
	solar_out_input(o->forecasts);
}

/* The values an option has when it is not given, where that is not zero. */
static const solar_opts defaults = {
    .measured_s = -1,
    .math = SOLAR_MATH_STRICT,
    .tol_rel = -1,
    .previous = -1,
    .direction = -1,
    .after_s = -1,
    .stop_factor = 1.5,
    .budget_n = -1,
    .budget_pct = -1,
    .coverage = 0.8,
    .ms = -1,
    .attempts = 3,
};

int main(int argc, char **argv)
{
	/* Every cJSON allocation goes through the checked allocator (diag/alloc.h): a tree cut
	 * short by a failed allocation (cJSON_Create* and cJSON_Print return NULL) would print as
	 * a wrong answer, not as `solar: out of memory`. */
	cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = solar_xmalloc, .free_fn = free});
	if (argc < 2) {
		solar_help_usage(stderr);
		return SOLAR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("solar %s\n", SOLAR_VERSION);
		return solar_out_finish(SOLAR_EXIT_OK);
	}
	const char *name = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ? "help" : argv[1];
	const solar_command *c = solar_command_find(name);
	if (!c)
		return solar_cli_unknown_command(argv[1], NULL);
	solar_cli_arm_time_limit(c->limit_what ? c->limit_what : "the analysis",
				 c->limit_what ? c->limit_why
					       : "; the program is too large or too irregular for "
						 "exact analysis in that time");
	solar_opts o = defaults;
	int rc = solar_args_parse(c, argc - 2, argv + 2, &o);
	if (rc == 1) {
		rc = SOLAR_EXIT_OK; /* --help: printed */
	} else if (rc == 0) {
		note_inputs(&o);
		rc = c->run(&o);
	}
	rc = solar_out_finish(rc);
	solar_args_free(&o);
	return rc;
}
