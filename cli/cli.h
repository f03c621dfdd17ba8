/* cli.h - shared pieces of the command-line front: options, loading, exit codes.
 *
 * Subcommands live in cli/cmd_*.c; each takes the parsed options and returns an exit code:
 * 0 success, 1 the input has errors (or a gate failed), 2 usage or environment errors.
 */
#ifndef SOLAR_CLI_H
#define SOLAR_CLI_H

#include <stdbool.h>

#include "frontend/frontend.h"

enum { SOLAR_EXIT_OK = 0, SOLAR_EXIT_ERRORS = 1, SOLAR_EXIT_USAGE = 2 };

typedef enum { SOLAR_FMT_TABLE, SOLAR_FMT_MD, SOLAR_FMT_JSON, SOLAR_FMT_CSV } solar_format;

typedef struct {
	const char *cmd;
	const char **files;
	int nfiles;
	solar_define *defs;
	int ndefs;
	solar_format format;
	bool symbolic;
	bool verify;      /* fmt --verify */
	bool dot;         /* graph --dot */
	const char *device;
	solar_math math;  /* CLI default for kernels without a math attribute */
	double measured_s; /* < 0 when absent */
	const char *measured_file;
	const char *out;  /* -o FILE */
} solar_opts;

/* A loaded program with its diagnostics context and source buffer. */
typedef struct {
	char *src;
	solar_diag *diag;
	solar_program *prog;
} solar_loaded;

/* Reads and loads FILE through the front end; prints diagnostics to stderr.
 * Returns 0 on success, 1 on errors in the program, 2 when the file cannot be read. */
int solar_cli_load(const char *file, const solar_opts *o, solar_loaded *out);
void solar_cli_unload(solar_loaded *l);

/* Parses a time with a unit ("4.57ms", "120us", "0.002s", "3e-3"): seconds, or -1. */
double solar_cli_parse_time(const char *s);

int solar_cmd_check(const solar_opts *o);
int solar_cmd_fmt(const solar_opts *o);
int solar_cmd_count(const solar_opts *o);
int solar_cmd_graph(const solar_opts *o);
int solar_cmd_analyze(const solar_opts *o);
int solar_cmd_device(const solar_opts *o);

#endif
