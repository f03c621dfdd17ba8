/* help.c - what the command line says about itself, written from the option and command
 * tables (cli/commands.c): `solar help [COMMAND]` and `solar COMMAND --help`, the man page
 * (`solar help --man`, solar.1) and the bash and zsh completions (`solar help --completion
 * bash|zsh`, installed by `make install`).  A command's help lists exactly the options its
 * parser takes, in the order of its table entry, so no help can promise an option the parser
 * refuses, nor omit one it accepts; the completions offer the same names and, for each value,
 * what its kind admits (the words of an enum, files, folders, the shipped devices).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "output.h"

#define COUNT_OF(a) (sizeof(a) / sizeof *(a))

/* Text written either plainly or as troff (the man page): man escapes what troff reads. */
static void put_text(FILE *out, const char *s, bool man)
{
	if (!man) {
		fputs(s, out);
		return;
	}
	bool bol = true;
	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", out);
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
		bol = *s == '\n';
	}
}

/* Words of s wrapped at 92 columns; a new line starts at column `indent`, the first line
 * continues at column `col` (after a label).  Lines of s that start with two spaces (the
 * manifest's table) are kept as written. */
static void put_wrapped(FILE *out, const char *s, int indent, int col)
{
	const int width = 92;
	for (const char *line = s; *line;) {
		size_t len = strcspn(line, "\n");
		if (!strncmp(line, "  ", 2)) {
			if (col)
				fputc('\n', out);
			fprintf(out, "%*s%.*s\n", indent, "", (int)len, line);
			col = 0;
		} else {
			for (const char *w = line; w < line + len;) {
				while (*w == ' ')
					w++;
				size_t n = strcspn(w, " \n");
				if (!n)
					break;
				if (col > indent && col + 1 + (int)n > width) {
					fputc('\n', out);
					col = 0;
				}
				if (!col)
					col = fprintf(out, "%*s", indent, "");
				else
					col += fprintf(out, " ");
				col += fprintf(out, "%.*s", (int)n, w);
				w += n;
			}
			fputc('\n', out);
			col = 0;
		}
		line += len + (line[len] == '\n');
	}
}

/* The usage line, the summary and the details. */
static void print_head(FILE *out, const solar_command *c, bool man)
{
	char line[512];
	bool said = strstr(c->args, "[options]") != NULL; /* translate's args say it already */
	snprintf(line, sizeof line, "solar %s %s%s", c->name, c->args,
		 c->takes && !said ? " [options]" : "");
	if (man) {
		fputs(".SS \"", out);
		put_text(out, line, true);
		fputs("\"\n", out);
		put_text(out, c->summary, true);
		fputs(".\n", out);
	} else {
		fprintf(out, "usage: %s\n\n", line);
		snprintf(line, sizeof line, "%c%s.", c->summary[0] & ~0x20, c->summary + 1);
		put_wrapped(out, line, 0, 0);
	}
	if (!c->details)
		return;
	if (man) {
		fputs(".PP\n", out);
		if (strchr(c->details, '\n'))
			fputs(".nf\n", out);
		put_text(out, c->details, true);
		fputs(strchr(c->details, '\n') ? "\n.fi\n" : "\n", out);
	} else {
		fputc('\n', out);
		put_wrapped(out, c->details, 0, 0);
	}
}

typedef struct {
	FILE *out;
	const solar_command *c;
	bool man;
} help_ctx;

/* One option's line: its name and value, then its text wrapped beside it. */
static void print_option(void *ctx, const solar_option *op)
{
	const help_ctx *h = ctx;
	char text[600], fl[96], line[160];
	snprintf(text, sizeof text, "%s", op->help ? op->help : "");
	if (op->kind == SOLAR_ARG_FORMAT) {
		/* "table (default), md, json or csv" */
		solar_word_list(fl, sizeof fl, solar_format_names, h->c->formats, ", ", " or ",
				" (default)");
		snprintf(text + strlen(text), sizeof text - strlen(text), " %s", fl);
	}
	snprintf(line, sizeof line, "%s%s%s", op->name, op->arg ? " " : "", op->arg ? op->arg : "");
	if (h->man) {
		fputs(".TP\n.B ", h->out);
		put_text(h->out, line, true);
		fputc('\n', h->out);
		put_text(h->out, text, true);
		fputc('\n', h->out);
	} else {
		int col = fprintf(h->out, "  %-22s", line);
		if (col > 24) {
			fputc('\n', h->out);
			col = 0;
		}
		put_wrapped(h->out, text, 25, col);
	}
}

static void print_examples(FILE *out, const char *example, bool man)
{
	fputs(man ? ".PP\nExamples:\n.PP\n.nf\n.RS\n" : "\nexamples:\n", out);
	for (const char *e = example; *e;) {
		size_t n = strcspn(e, "\n");
		char ex[400];
		snprintf(ex, sizeof ex, "%.*s", (int)n, e);
		if (man) {
			put_text(out, ex, true);
			fputc('\n', out);
		} else {
			fprintf(out, "  %s\n", ex);
		}
		e += n + (e[n] == '\n');
	}
	if (man)
		fputs(".RE\n.fi\n", out);
}

/* One command's usage, options, details and examples. */
static void print_command_help(FILE *out, const solar_command *c, bool man)
{
	print_head(out, c, man);
	if (c->takes) {
		fputs(man ? ".PP\nOptions:\n" : "\noptions:\n", out);
		solar_command_options(c, print_option, &(help_ctx){out, c, man});
		if (!man)
			fputs("  -h, --help             this text\n", out);
	}
	if (c->example)
		print_examples(out, c->example, man);
}

void solar_help_command(FILE *out, const solar_command *c) { print_command_help(out, c, false); }

/* The command list: `solar help`, `solar --help`. */
static void print_usage(FILE *out)
{
	fputs("usage: solar <command> [options] FILE...\n\ncommands:\n", out);
	for (size_t i = 0; i < solar_ncommands; i++) {
		const solar_command *c = &solar_commands[i];
		char line[160];
		snprintf(line, sizeof line, "%s %s", c->name, c->args);
		int col = fprintf(out, "  %-26s", line);
		if (col > 28) {
			fputc('\n', out);
			col = 0;
		}
		put_wrapped(out, c->summary, 29, col);
	}
	fputs("\n'solar help COMMAND' or 'solar COMMAND --help': that command's options and "
	      "examples.\n'solar --version': the version.\n\n",
	      out);
	put_wrapped(out, solar_help_tail, 0, 0);
}

/* The man page, solar.1: the command list and every command's help, in troff. */
static void print_man(FILE *out)
{
	fprintf(out, ".TH SOLAR 1 \"\" \"solar %s\" \"User Commands\"\n", SOLAR_VERSION);
	fputs(".\\\" Generated by `solar help --man` from the help text (cli/commands.c): do not "
	      "edit.\n"
	      ".SH NAME\nsolar \\- speed\\-of\\-light analyzer for deep\\-learning workloads\n"
	      ".SH SYNOPSIS\n.B solar\n.I command\n[options] FILE...\n.SH DESCRIPTION\n",
	      out);
	put_text(out,
		 "solar parses AIR, an affine loop IR (docs/air.md), counts work and data exactly, "
		 "and computes lower bounds on run time against a device descriptor: no code that "
		 "computes the program runs faster on that device.\n",
		 true);
	fputs(".SH COMMANDS\n", out);
	for (size_t i = 0; i < solar_ncommands; i++)
		print_command_help(out, &solar_commands[i], true);
	fputs(".SH ENVIRONMENT\n", out);
	static const char *const env[][2] = {
	    {"SOLAR_DEVICE_PATH", "colon-separated folders searched first for --device NAME "
				  "(NAME.json)"},
	    {"SOLAR_TIME_LIMIT", "wall-clock limit of the analysis and the translation in "
				 "seconds (default 120, 0 for none)"},
	    {"SOLAR_PYTHON", "the Python with PyTorch that validate and translate run"},
	    {"SOLAR_HARNESS", "validate/harness.py to use instead of the installed one"},
	};
	for (size_t i = 0; i < COUNT_OF(env); i++) {
		fputs(".TP\n.B ", out);
		put_text(out, env[i][0], true);
		fputc('\n', out);
		put_text(out, env[i][1], true);
		fputc('\n', out);
	}
	fputs(".SH FILES\n.TP\n.I PREFIX/share/solar/devices\nthe shipped device descriptors\n"
	      ".TP\n.I PREFIX/share/solar/validate/harness.py\nthe reference harness of validate\n"
	      ".SH EXIT STATUS\n",
	      out);
	put_text(out, solar_help_tail, true);
	fputs("\n.SH SEE ALSO\nThe documents in docs/ of the source tree: air.md, bounds.md, "
	      "devices.md, report.md, validate.md.\n",
	      out);
}

/* ---- completions --------------------------------------------------------------------------
 * Written from the same tables: the command names, each command's options, and for an option's
 * value what its kind admits.  Device names are asked of the solar being completed at TAB time
 * (`solar device list`), so a $SOLAR_DEVICE_PATH folder's devices complete too. */

/* "strict tf32": an option's words (a command's --format values), as a shell lists them. */
static void choice_words(char *buf, size_t n, const solar_command *c, const solar_option *op)
{
	bool format = op->kind == SOLAR_ARG_FORMAT;
	solar_word_list(buf, n, format ? solar_format_names : op->choices, format ? c->formats : 0,
			" ", " ", "");
}

typedef enum { VAL_NONE, VAL_WORDS, VAL_FILE, VAL_DIR, VAL_DEVICE, VAL_ANY } value_kind;

static value_kind value_of(const solar_option *op)
{
	switch (op->kind) {
	case SOLAR_ARG_FLAG:
	case SOLAR_ARG_CONST:
		return VAL_NONE;
	case SOLAR_ARG_ENUM:
	case SOLAR_ARG_FORMAT:
		return VAL_WORDS;
	default:
		break;
	}
	if (op->choices) /* the words a text or an option of its own syntax takes (--bound) */
		return VAL_WORDS;
	switch (op->kind) {
	case SOLAR_ARG_FILE:
	case SOLAR_ARG_OUT:
		return VAL_FILE;
	case SOLAR_ARG_DIR:
		return VAL_DIR;
	case SOLAR_ARG_DEVICE:
		return VAL_DEVICE;
	case SOLAR_ARG_CUSTOM:
		return op->arg && strstr(op->arg, "FILE") ? VAL_FILE : VAL_ANY;
	default:
		return VAL_ANY;
	}
}

typedef struct {
	FILE *out;
	const solar_command *c;
	int pass; /* bash: 0 the value cases, 1 the option list; zsh: the _arguments specs */
} comp_ctx;

static void bash_option(void *ctx, const solar_option *op)
{
	comp_ctx *k = ctx;
	char words[200];
	if (k->pass == 1) {
		fprintf(k->out, " %s", op->name);
		return;
	}
	switch (value_of(op)) {
	case VAL_NONE:
		return;
	case VAL_WORDS:
		choice_words(words, sizeof words, k->c, op);
		fprintf(k->out, "\t\t%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;\n",
			op->name, words);
		return;
	case VAL_FILE:
		fprintf(k->out, "\t\t%s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n",
			op->name);
		return;
	case VAL_DIR:
		fprintf(k->out, "\t\t%s) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n",
			op->name);
		return;
	case VAL_DEVICE:
		fprintf(k->out,
			"\t\t%s) COMPREPLY=($(compgen -W \"$(_solar_devices)\" -- \"$cur\") "
			"$(compgen -f -- \"$cur\")); return ;;\n",
			op->name);
		return;
	default: /* a number, a time, NAME=VALUE: nothing to offer, and no option either */
		fprintf(k->out, "\t\t%s) COMPREPLY=(); return ;;\n", op->name);
	}
}

static void print_bash(FILE *out)
{
	fputs("# bash completion of solar: generated by `solar help --completion bash` from its "
	      "option tables\n# (cli/commands.c); do not edit.  Installed by `make install`.\n"
	      "_solar_devices() { \"${COMP_WORDS[0]}\" device list 2>/dev/null | "
	      "awk 'NF && $1 != \"name\" && $1 != \"system\" { print $1 }'; }\n"
	      "_solar() {\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W '",
	      out);
	for (size_t i = 0; i < solar_ncommands; i++)
		fprintf(out, "%s ", solar_commands[i].name);
	fputs("--help --version' -- \"$cur\"))\n\t\treturn\n\tfi\n\tlocal opts= words=\n"
	      "\tcase ${COMP_WORDS[1]} in\n",
	      out);
	for (size_t i = 0; i < solar_ncommands; i++) {
		const solar_command *c = &solar_commands[i];
		comp_ctx k = {out, c, 0};
		fprintf(out, "\t%s)\n\t\tcase $prev in\n", c->name);
		solar_command_options(c, bash_option, &k);
		fputs("\t\tesac\n\t\topts='", out);
		k.pass = 1;
		solar_command_options(c, bash_option, &k);
		fputs(" --help'", out);
		char words[200];
		solar_word_list(words, sizeof words, c->words, 0, " ", " ", "");
		if (c->words)
			fprintf(out, "\n\t\t[ \"$COMP_CWORD\" -eq 2 ] && words='%s'", words);
		fputs(" ;;\n", out);
	}
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telif [ -n \"$words\" ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
	      "\telse\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\n"
	      "complete -o filenames -o bashdefault -F _solar solar\n",
	      out);
}

/* s for inside '...[s]' of zsh's _arguments (and _describe's NAME:s): its first clause, at most
 * 70 characters cut at a word, without the brackets, colons and quotes zsh would read. */
static void zsh_text(FILE *out, const char *s)
{
	size_t n = strcspn(s, ";");
	if (n > 70) {
		n = 70;
		while (n > 0 && s[n] != ' ')
			n--;
	}
	while (n > 0 && s[n - 1] == ' ')
		n--;
	for (size_t i = 0; i < n; i++)
		if (!strchr("[]:'\\`$", s[i]))
			fputc(s[i], out);
}

static void zsh_option(void *ctx, const solar_option *op)
{
	comp_ctx *k = ctx;
	char words[200];
	value_kind v = value_of(op);
	bool repeat = op->count || op->kind == SOLAR_ARG_DEFINE;
	fprintf(k->out, " \\\n\t\t\t'%s%s[", repeat ? "*" : "", op->name);
	zsh_text(k->out, op->help ? op->help : "");
	fputc(']', k->out);
	if (v == VAL_WORDS) {
		choice_words(words, sizeof words, k->c, op);
		fprintf(k->out, ":value:(%s)", words);
	} else if (v == VAL_FILE) {
		fputs(":file:_files", k->out);
	} else if (v == VAL_DIR) {
		fputs(":folder:_files -/", k->out);
	} else if (v == VAL_DEVICE) {
		fputs(":device:_solar_devices", k->out);
	} else if (v == VAL_ANY) {
		fputs(": :", k->out);
	}
	fputc('\'', k->out);
}

static void print_zsh(FILE *out)
{
	fputs("#compdef solar\n# zsh completion of solar: generated by `solar help --completion "
	      "zsh` from its option tables\n# (cli/commands.c); do not edit.  Installed by `make "
	      "install`.\n_solar_devices() {\n\tlocal -a d\n"
	      "\td=(${(f)\"$($words[1] device list 2>/dev/null | awk 'NF && $1 != \"name\" && $1 != \"system\" { print $1 }')\"})\n"
	      "\t_alternative 'devices:device:compadd -a d' 'files:file:_files'\n}\n"
	      "_solar() {\n\tlocal -a cmds\n\tcmds=(\n",
	      out);
	for (size_t i = 0; i < solar_ncommands; i++) {
		fprintf(out, "\t\t'%s:", solar_commands[i].name);
		zsh_text(out, solar_commands[i].summary);
		fputs("'\n", out);
	}
	fputs("\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe command cmds\n\t\treturn\n\tfi\n"
	      "\tlocal cmd=$words[2]\n\tcase $cmd in\n",
	      out);
	for (size_t i = 0; i < solar_ncommands; i++) {
		const solar_command *c = &solar_commands[i];
		fprintf(out, "\t%s)\n\t\t_arguments -s", c->name);
		solar_command_options(c, zsh_option, &(comp_ctx){out, c, 0});
		char words[200];
		solar_word_list(words, sizeof words, c->words, 0, " ", " ", "");
		if (c->words)
			fprintf(out, " \\\n\t\t\t'1:what:(%s)'", words);
		fputs(" \\\n\t\t\t'*:file:_files' ;;\n", out);
	}
	fputs("\tesac\n}\n_solar \"$@\"\n", out);
}

/* `solar help [COMMAND] [--man | --completion bash|zsh] [-o FILE]`. */
int solar_cmd_help(const solar_opts *o)
{
	if (o->nfiles > 1)
		return solar_cli_usage("help", "help takes one command name, not also '%s'",
				       o->files[1]);
	const solar_command *c = o->nfiles ? solar_command_find(o->files[0]) : NULL;
	if (o->nfiles && !c)
		return solar_cli_unknown_command(o->files[0], "; try 'solar help'");
	FILE *out = solar_out_open(o);
	if (!out)
		return SOLAR_EXIT_USAGE;
	if (o->man)
		print_man(out);
	else if (o->completion && !strcmp(o->completion, "bash"))
		print_bash(out);
	else if (o->completion)
		print_zsh(out);
	else if (c)
		print_command_help(out, c, false);
	else
		print_usage(out);
	solar_out_close(o, out);
	return SOLAR_EXIT_OK;
}

void solar_help_usage(FILE *out) { print_usage(out); }
