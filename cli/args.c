/* args.c - the one parser: a command's argv read against the option table (cli/args.h).
 *
 * Every value is checked by its kind here, once, with the same message for the same mistake
 * in every command ("--l2 expects warm or cold, not 'hot'"), so a command gets only values it
 * can use; what a command still checks itself is how its options go together (advise's
 * --record needs --direction).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "diag/hint.h"

int solar_cli_usage(const char *cmd, const char *fmt, const char *arg)
{
	char msg[1200];
	snprintf(msg, sizeof msg, fmt, arg);
	solar_diag_tool_error(solar_cli_diag(), "%s", msg);
	solar_diag_hint(solar_cli_diag(), "Try 'solar %s%s--help'.", cmd ? cmd : "",
			cmd ? " " : "");
	return SOLAR_EXIT_USAGE;
}

int solar_cli_unknown_command(const char *name, const char *tail)
{
	const char *best = NULL;
	int bestd = 3;
	for (size_t i = 0; i < solar_ncommands; i++) {
		int d = solar_diag_edit_distance(name, solar_commands[i].name, false);
		if (d < bestd) {
			bestd = d;
			best = solar_commands[i].name;
		}
	}
	if (tail) { /* solar help NAME: one line, no "Try" */
		solar_diag_tool_error(solar_cli_diag(), "no command '%s'%s%s%s%s", name,
				      best ? " (did you mean '" : "", best ? best : "",
				      best ? "'?)" : "", tail);
		return SOLAR_EXIT_USAGE;
	}
	if (best) {
		char msg[200];
		snprintf(msg, sizeof msg, "unknown command '%.80s' (did you mean '%s'?)", name,
			 best);
		return solar_cli_usage(NULL, "%s", msg);
	}
	return solar_cli_usage(NULL, "unknown command '%s'", name);
}

int solar_cli_parse_define(const char *arg, solar_define *d)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return -1;
	const char *from = arg, *to = eq; /* rank(A)=r: a rank's coordinate, by its axis */
	if (eq - arg > 6 && !strncmp(arg, "rank(", 5) && eq[-1] == ')') {
		from = arg + 5;
		to = eq - 1;
	}
	for (const char *c = from; c < to; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (c > from && *c >= '0' && *c <= '9')))
			return -1;
	char *end;
	errno = 0;
	long long v = strtoll(eq + 1, &end, 10);
	if (end == eq + 1 || *end || errno == ERANGE)
		return -1;
	d->name = solar_xstrndup(arg, (size_t)(eq - arg));
	d->value = v;
	return 0;
}

int solar_command_takes(const solar_command *c, const char *name)
{
	size_t n = strlen(name);
	for (const char *t = c->takes; t && *t;) {
		size_t len = strcspn(t, " ");
		if (len == n && !strncmp(t, name, n))
			return 1;
		t += len + (t[len] == ' ');
	}
	return 0;
}

const solar_option *solar_option_find(const solar_command *c, const char *name)
{
	if (!strncmp(name, "-D", 2))
		name = "-D";
	if (!solar_command_takes(c, name))
		return NULL;
	const solar_option *general = NULL;
	for (size_t i = 0; i < solar_noptions; i++)
		if (!strcmp(solar_options[i].name, name)) {
			if (solar_options[i].cmd && !strcmp(solar_options[i].cmd, c->name))
				return &solar_options[i];
			if (!solar_options[i].cmd && !general)
				general = &solar_options[i];
		}
	return general;
}

const solar_command *solar_command_find(const char *name)
{
	for (size_t i = 0; i < solar_ncommands; i++)
		if (!strcmp(solar_commands[i].name, name))
			return &solar_commands[i];
	return NULL;
}

const char *const solar_format_names[] = {"table", "md", "json", "csv", NULL};

void solar_word_list(char *buf, size_t n, const char *const *words, unsigned mask, const char *sep,
		     const char *last, const char *first_note)
{
	int nw = 0, k = 0;
	for (int i = 0; words && words[i]; i++)
		nw += !mask || (mask & (1u << i));
	buf[0] = '\0';
	for (int i = 0; words && words[i]; i++)
		if (!mask || (mask & (1u << i))) {
			k++;
			size_t len = strlen(buf);
			snprintf(buf + len, n - len, "%s%s%s",
				 k == 1	   ? ""
				 : k == nw ? last
					   : sep,
				 words[i], k == 1 ? first_note : "");
		}
}

#define FIELD(o, off, type) ((type *)((char *)(o) + (off)))

/* "--steps expects an integer from 2 to 1000, not 'x'": SOLAR_EXIT_USAGE. */
static int refuse(const solar_command *c, const char *name, const char *expects, const char *val)
{
	char msg[600];
	snprintf(msg, sizeof msg, "%s expects %s, not '%s'", name, expects, val);
	return solar_cli_usage(c->name, "%s", msg);
}

/* Whether val is a value of op's kind; stores it. */
static bool value_ok(const solar_option *op, const char *val, solar_opts *o)
{
	char *end;
	errno = 0;
	switch (op->kind) {
	case SOLAR_ARG_TIME: {
		double s = solar_cli_parse_time(val);
		if (s < 0)
			return false;
		*FIELD(o, op->field, double) = s;
		return true;
	}
	case SOLAR_ARG_NUMBER: {
		double x = strtod(val, &end);
		if (end == val || *end || errno == ERANGE || !isfinite(x) || x < op->min ||
		    (op->min_open && x <= op->min) || x > op->max)
			return false;
		*FIELD(o, op->field, double) = x;
		return true;
	}
	case SOLAR_ARG_INT: {
		long x = strtol(val, &end, 10);
		if (end == val || *end || errno == ERANGE || x < op->min || x > op->max)
			return false;
		*FIELD(o, op->field, int) = (int)x;
		return true;
	}
	default: /* text, files, folders, devices: any word */
		if (op->count) {
			int *n = FIELD(o, op->count, int);
			(*FIELD(o, op->field, const char **))[(*n)++] = val;
		} else {
			*FIELD(o, op->field, const char *) = val;
		}
		return true;
	}
}

/* One option's value, checked by its kind and stored; 0 or SOLAR_EXIT_USAGE. */
static int store(const solar_command *c, const solar_option *op, const char *val, solar_opts *o)
{
	char words[200];
	if (op->kind == SOLAR_ARG_ENUM || op->kind == SOLAR_ARG_FORMAT) {
		const char *const *choices =
		    op->kind == SOLAR_ARG_FORMAT ? solar_format_names : op->choices;
		unsigned mask = op->kind == SOLAR_ARG_FORMAT ? c->formats : 0;
		int k = 0;
		while (choices[k] && (strcmp(choices[k], val) || (mask && !(mask & (1u << k)))))
			k++;
		if (!choices[k]) {
			char name[80];
			solar_word_list(words, sizeof words, choices, mask, ", ", " or ", "");
			snprintf(name, sizeof name, "%s%s%s", mask ? c->name : "", mask ? " " : "",
				 op->name); /* "count --format": the values are the command's */
			return refuse(c, name, words, val);
		}
		if (op->kind == SOLAR_ARG_FORMAT)
			*FIELD(o, op->field, solar_format) = (solar_format)k;
		else if (op->field)
			*FIELD(o, op->field, const char *) = choices[k];
		if (op->index)
			*FIELD(o, op->index, int) = (int)op->min + k;
	} else if (op->kind == SOLAR_ARG_DEFINE) {
		if (solar_cli_parse_define(val, &o->defs[o->ndefs]) < 0)
			return refuse(c, "-D", "NAME=INTEGER", val);
		o->ndefs++;
	} else if (op->kind == SOLAR_ARG_CUSTOM) {
		int r = op->parse(val, o);
		if (r == -2)
			return SOLAR_EXIT_USAGE;
		if (r < 0)
			return refuse(c, op->name, op->expects, val);
	} else if (!value_ok(op, val, o)) {
		return refuse(c, op->name, op->expects, val);
	}
	if (op->raw)
		*FIELD(o, op->raw, const char *) = val;
	if (op->given)
		*FIELD(o, op->given, bool) = true;
	return 0;
}

void solar_command_options(const solar_command *c, void (*fn)(void *, const solar_option *),
			   void *ctx)
{
	for (const char *t = c->takes; t && *t;) {
		size_t len = strcspn(t, " ");
		char name[40];
		snprintf(name, sizeof name, "%.*s", (int)len, t);
		const solar_option *op = solar_option_find(c, name);
		if (op && !op->hidden)
			fn(ctx, op);
		t += len + (t[len] == ' ');
	}
}

typedef struct {
	char *buf;
	size_t n, off;
} list_ctx;

static void list_one(void *ctx, const solar_option *op)
{
	list_ctx *l = ctx;
	if (l->off < l->n)
		l->off += (size_t)snprintf(l->buf + l->off, l->n - l->off, "%s%s",
					   l->off ? ", " : "", op->name);
}

/* "-D, --json, -o": the options c takes, for "it takes ...". */
static void takes_list(char *buf, size_t n, const solar_command *c)
{
	list_ctx l = {buf, n, 0};
	buf[0] = '\0';
	solar_command_options(c, list_one, &l);
	if (!l.off)
		snprintf(buf, n, "no options");
}

/* The option a names (-DNAME=V is -D), of any command: NULL when no command has it. */
static const solar_option *any_option(const char *a)
{
	for (size_t i = 0; i < solar_noptions; i++)
		if (!strcmp(a, solar_options[i].name) ||
		    (solar_options[i].kind == SOLAR_ARG_DEFINE && !strncmp(a, "-D", 2)))
			return &solar_options[i];
	return NULL;
}

/* Room for every repeatable option's values: argc bounds how many there can be. */
static void make_room(const solar_command *c, int argc, solar_opts *o)
{
	o->files = solar_xcalloc((size_t)argc + 1, sizeof *o->files);
	o->defs = solar_xcalloc((size_t)argc + 1, sizeof *o->defs);
	for (size_t i = 0; i < solar_noptions; i++) {
		const solar_option *op = &solar_options[i];
		if (op->count && solar_command_takes(c, op->name) &&
		    !*FIELD(o, op->field, const char **))
			*FIELD(o, op->field, const char **) =
			    solar_xcalloc((size_t)argc + 1, sizeof(const char *));
	}
}

typedef struct {
	const char *word, *best;
	int bestd;
} near_ctx;

static void near_one(void *ctx, const solar_option *op)
{
	near_ctx *k = ctx;
	int d = solar_diag_edit_distance(k->word, op->name, false);
	if (strlen(op->name) > 2 && d < k->bestd) {
		k->bestd = d;
		k->best = op->name;
	}
}

/* The option of c whose name is within two edits of a ("--devcie": --device), or NULL. */
static const char *nearest_option(const solar_command *c, const char *a)
{
	near_ctx k = {a, NULL, 3};
	solar_command_options(c, near_one, &k);
	return k.best;
}

/* One word that starts with '-': an option (and its value, words[1]); *used: words taken. */
static int one_option(const solar_command *c, char **words, int left, solar_opts *o, int *used)
{
	const char *a = words[0], *eq = !strncmp(a, "--", 2) ? strchr(a, '=') : NULL;
	char name[64];
	*used = 1;
	if (eq) { /* --name=value, as --name value */
		snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
		a = name;
	}
	const solar_option *op = solar_option_find(c, a);
	if (!op) {
		char list[600], msg[800];
		if (!any_option(a)) {
			const char *near = nearest_option(c, a);
			if (!near)
				return solar_cli_usage(c->name, "unknown option '%s'", a);
			snprintf(msg, sizeof msg, "unknown option '%.200s' (did you mean '%s'?)", a,
				 near);
			return solar_cli_usage(c->name, "%s", msg);
		}
		takes_list(list, sizeof list, c);
		snprintf(msg, sizeof msg, "%s does not take %s (it takes %s)", c->name,
			 !strncmp(a, "-D", 2) ? "-D" : a, list);
		return solar_cli_usage(c->name, "%s", msg);
	}
	if (eq && (op->kind == SOLAR_ARG_FLAG || op->kind == SOLAR_ARG_CONST))
		return solar_cli_usage(c->name, "option '%s' takes no value", a);
	if (eq)
		return store(c, op, eq + 1, o);
	if (op->kind == SOLAR_ARG_FLAG) {
		*FIELD(o, op->field, bool) = true;
		return 0;
	}
	if (op->kind == SOLAR_ARG_CONST) {
		*FIELD(o, op->field, int) = (int)op->min;
		return 0;
	}
	const char *val = op->kind == SOLAR_ARG_DEFINE && a[2] ? a + 2 : NULL;
	if (!val) {
		if (left < 2)
			return solar_cli_usage(c->name, "option '%s' needs a value", a);
		val = words[1];
		*used = 2;
		bool path = op->kind == SOLAR_ARG_FILE || op->kind == SOLAR_ARG_OUT ||
			    op->kind == SOLAR_ARG_DIR || op->kind == SOLAR_ARG_DEVICE;
		if (path && val[0] == '-' && val[1]) { /* `-o --json`: a forgotten value */
			char msg[400];
			snprintf(
			    msg, sizeof msg,
			    "option '%s' needs a value, not the option '%.100s' (a file of that "
			    "name: ./%.100s)",
			    a, val, val);
			return solar_cli_usage(c->name, "%s", msg);
		}
	}
	return store(c, op, val, o);
}

/* Whether the words ask for JSON output (--json, --format json, --format=json), which the
 * command writes: then every message, the parser's own included, is a JSON line on stderr. */
static bool wants_json(const solar_command *c, int argc, char **argv)
{
	const solar_option *json = solar_option_find(c, "--json");
	bool formats =
	    solar_command_takes(c, "--format") && (c->formats & SOLAR_FMT_BIT(SOLAR_FMT_JSON));
	for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
		if ((json && json->kind == SOLAR_ARG_CONST && !strcmp(argv[i], "--json")) ||
		    (formats && ((!strcmp(argv[i], "--format") && i + 1 < argc &&
				  !strcmp(argv[i + 1], "json")) ||
				 !strcmp(argv[i], "--format=json"))))
			return true;
	return false;
}

int solar_args_parse(const solar_command *c, int argc, char **argv, solar_opts *o)
{
	if (wants_json(c, argc, argv))
		solar_diag_set_json(solar_cli_diag(), true);
	o->cmd = c->name;
	o->argc = argc;
	o->argv = argv;
	make_room(c, argc, o);
	bool only_files = false;
	for (int i = 0; i < argc;) {
		const char *a = argv[i];
		if (only_files || a[0] != '-' || !strcmp(a, "-")) {
			o->files[o->nfiles++] = a;
			i++;
		} else if (!strcmp(a, "--")) {
			only_files = true;
			i++;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			solar_help_command(stdout, c);
			return 1;
		} else {
			int used, rc = one_option(c, argv + i, argc - i, o, &used);
			if (rc)
				return rc;
			i += used;
		}
	}
	return 0;
}

void solar_args_free(solar_opts *o)
{
	for (int i = 0; i < o->ndefs; i++)
		free((void *)o->defs[i].name);
	free(o->defs);
	free(o->files);
	for (size_t i = 0; i < solar_noptions; i++)
		if (solar_options[i].count) {
			const char ***f = FIELD(o, solar_options[i].field, const char **);
			free(*f);
			*f = NULL;
		}
}
