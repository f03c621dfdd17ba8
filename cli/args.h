/* args.h - the command line declared as data: every option of every command in one table, one
 * parser that reads argv against it, and the help, man page and shell completions written
 * from the same table (cli/args.c, cli/help.c; the tables themselves: cli/commands.c).
 *
 * An option is a name, a kind (what its value must be: a time, a number in a range, one of
 * some words, a file, a folder, a device, -D's NAME=INTEGER, or none), the field of
 * solar_opts it fills and its help line.  A command is its name, its arguments, its prose,
 * the names of the options it takes, the --format values it writes and the function that runs
 * it.  No command reads argv: it gets the solar_opts the parser filled, and any option a
 * command does not take is refused before anything runs, so an option never silently does
 * nothing, and the help of a command lists exactly what its parser accepts.
 */
#ifndef SOLAR_CLI_ARGS_H
#define SOLAR_CLI_ARGS_H

#include <stddef.h>

#include "cli.h"

typedef enum {
	SOLAR_ARG_FLAG,	  /* no value: the bool at field becomes true */
	SOLAR_ARG_CONST,  /* no value: the int at field becomes `min` (--json: the format) */
	SOLAR_ARG_TEXT,	  /* const char *: any text (a strategy's name) */
	SOLAR_ARG_FILE,	  /* const char *: a file that is read */
	SOLAR_ARG_OUT,	  /* const char *: a file that is written */
	SOLAR_ARG_DIR,	  /* const char *: a folder */
	SOLAR_ARG_DEVICE, /* const char *: a shipped device's name or a descriptor file */
	SOLAR_ARG_TIME,	  /* double: a time with a unit (4.57ms, 120us, 3e-3), > 0 */
	SOLAR_ARG_NUMBER, /* double in [min, max]; min_open: min itself is refused */
	SOLAR_ARG_INT,	  /* int in [min, max] */
	SOLAR_ARG_ENUM,	  /* const char *: one of choices (the table's string); index: min + its
			     rank (--math: SOLAR_MATH_STRICT + 0 or 1) */
	SOLAR_ARG_FORMAT, /* solar_format: one of the command's --format values */
	SOLAR_ARG_DEFINE, /* -D NAME=INTEGER (or -DNAME=INTEGER): solar_opts.defs */
	SOLAR_ARG_CUSTOM, /* parse(): a value of one option's own syntax (a time or a rate) */
} solar_arg_kind;

/* "Not stored": no field offset is 0, the first field of solar_opts being the command. */
#define SOLAR_ARG_NONE 0

typedef struct {
	const char *name; /* "--device", "-D", "-o" */
	const char *cmd;  /* NULL: the option of every command that takes it; else that command's
			     own (report --json FILE), looked up first */
	solar_arg_kind kind;
	size_t field;	 /* offsetof(solar_opts, ...) the value fills */
	const char *arg; /* the value's name in the help ("NAME|FILE"); NULL for no value */
	const char *help;
	const char *const *choices; /* ENUM's words; any other kind: its completion's (--bound) */
	double min, max;	    /* NUMBER, INT, CONST */
	int min_open;		    /* NUMBER: the value must exceed min */
	const char *expects;	    /* the error's words: "--tol expects <expects>, not 'x'" */
	size_t count; /* repeatable: offset of the int count; field is const char ** */
	size_t raw;   /* where the value's text is kept as well (passed on as typed) */
	size_t index; /* ENUM: where the chosen value's rank goes (an int or enum) */
	size_t given; /* a bool set when the option is given */
	int hidden;   /* parsed, never listed (translate --batch-list, the test driver's) */
	/* CUSTOM: 0 when val is good (and stored), -1 for the `expects` message, -2 when it
	 * printed its own. */
	int (*parse)(const char *val, solar_opts *o);
} solar_option;

/* What the words after the command are, for the help's usage line and the completions. */
typedef enum {
	SOLAR_POS_FILES, /* AIR programs (or models, manifests, pools: any file) */
	SOLAR_POS_NONE,
} solar_pos_kind;

typedef struct {
	const char *name, *args, *summary, *details, *example;
	const char *takes; /* its options' names, space-separated, in help order */
	unsigned formats;  /* bit f: --format f is written (SOLAR_FMT_*) */
	int (*run)(const solar_opts *);
	const char *const *words;	    /* words its first argument may be (device: list ...) */
	const char *limit_what, *limit_why; /* its time limit's message; NULL what: the analysis */
} solar_command;

#define SOLAR_FMT_BIT(f) (1u << (f))

/* --format's words, in the order of solar_format; NULL-terminated. */
extern const char *const solar_format_names[];
/* words[i] for each bit i of mask (0: every word) joined into buf: sep between them, last before
 * the final one, first_note after the first ("table (default), md or json"; "strict tf32"). */
void solar_word_list(char *buf, size_t n, const char *const *words, unsigned mask, const char *sep,
		     const char *last, const char *first_note);

/* The tables (cli/commands.c); help, translate and triage included. */
extern const solar_option solar_options[];
extern const size_t solar_noptions;
extern const solar_command solar_commands[];
extern const size_t solar_ncommands;
extern const char solar_help_tail[];

/* The command named name, or NULL. */
const solar_command *solar_command_find(const char *name);
/* The option name of command c (its own entry first, then the general one); NULL when c does
 * not take it.  -DNAME=V is -D. */
const solar_option *solar_option_find(const solar_command *c, const char *name);
/* Calls fn for each option c takes (hidden ones left out), in the order of its `takes`. */
void solar_command_options(const solar_command *c, void (*fn)(void *, const solar_option *),
			   void *ctx);
/* Whether c takes the option called name (space-separated list membership). */
int solar_command_takes(const solar_command *c, const char *name);

/* Parses argv[0..argc) (the words after the command) into o, against c's options.  0: parsed;
 * 1: help was asked for and printed (exit 0); SOLAR_EXIT_USAGE: a message was printed. */
int solar_args_parse(const solar_command *c, int argc, char **argv, solar_opts *o);
/* Frees what the parser allocated in o. */
void solar_args_free(solar_opts *o);

/* "unknown command 'x' (did you mean 'y'?)": SOLAR_EXIT_USAGE. */
int solar_cli_unknown_command(const char *name, const char *tail);

/* cli/help.c: `solar help [COMMAND]`, the man page and the completions, from the tables. */
void solar_help_usage(FILE *out);
void solar_help_command(FILE *out, const solar_command *c);
int solar_help_run(int argc, char **argv);

#endif
