/* main.c - `solar` command line: argument parsing and subcommand dispatch.
 *
 * No analysis happens here.  Options are parsed once into solar_opts (every subcommand
 * accepts the same spelling of -D, --json, --device, ...; one that makes no sense for a
 * subcommand is rejected there), then the subcommand runs.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
	"usage: solar <command> [options] FILE...\n"
	"\n"
	"commands:\n"
	"  check FILE...        parse and check AIR programs (exit 0 clean, 1 errors)\n"
	"  fmt FILE             print the program in canonical form (--verify: check round trip)\n"
	"  count FILE           exact work and data counts per statement, kernel and program\n"
	"  graph FILE           the einsum dependency graph (--dot for Graphviz)\n"
	"  analyze FILE         speed-of-light bounds on a device (--device FILE)\n"
	"  device probe         write a descriptor for the local GPU\n"
	"  device show FILE     print a descriptor with its base resolved\n"
	"\n"
	"options:\n"
	"  -D NAME=VALUE        override a param (repeatable)\n"
	"  --device FILE        device descriptor (devices/*.json)\n"
	"  --math strict|tf32   math mode of kernels that do not set one (default strict)\n"
	"  --measured TIME      measured time of the whole program, e.g. 4.57ms\n"
	"  --format table|md|json|csv, --json   output format\n"
	"  --symbolic           count: keep params symbolic\n"
	"  -o FILE              write the output to FILE\n"
	"  -h, --help           this text\n"
	"  --version            print the version\n"
	"\n"
	"FILE may be '-' for standard input.  Exit status: 0 ok, 1 errors in the input, 2 usage.\n";

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("solar: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'solar --help'.\n", stderr);
	return SOLAR_EXIT_USAGE;
}

double solar_cli_parse_time(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v <= 0)
		return -1;
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (!strcmp(end, units[i].unit))
			return v * units[i].scale;
	return -1;
}

static int parse_define(const char *arg, solar_define *d)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return -1;
	for (const char *c = arg; c < eq; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (c > arg && *c >= '0' && *c <= '9')))
			return -1;
	char *end;
	errno = 0;
	long long v = strtoll(eq + 1, &end, 10);
	if (end == eq + 1 || *end || errno == ERANGE)
		return -1;
	d->name = strndup(arg, (size_t)(eq - arg));
	d->value = v;
	return 0;
}

static const struct {
	const char *name;
	int (*run)(const solar_opts *);
} commands[] = {
	{"check", solar_cmd_check}, {"fmt", solar_cmd_fmt},         {"count", solar_cmd_count},
	{"graph", solar_cmd_graph}, {"analyze", solar_cmd_analyze}, {"device", solar_cmd_device},
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return SOLAR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return SOLAR_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("solar %s\n", SOLAR_VERSION);
		return SOLAR_EXIT_OK;
	}
	int (*run)(const solar_opts *) = NULL;
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name))
			run = commands[i].run;
	if (!run)
		return bad_usage("unknown command '%s'", argv[1]);

	solar_opts o = {.cmd = argv[1], .measured_s = -1, .math = SOLAR_MATH_STRICT};
	o.files = calloc((size_t)argc, sizeof *o.files);
	o.defs = calloc((size_t)argc, sizeof *o.defs);
	int rc = SOLAR_EXIT_OK;
	bool only_files = false;
	for (int i = 2; i < argc && rc == SOLAR_EXIT_OK; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDS_VALUE()                                                                   \
	do {                                                                            \
		if (!val) {                                                             \
			rc = bad_usage("option '%s' needs a value", a);                 \
			goto done;                                                      \
		}                                                                       \
		i++;                                                                    \
	} while (0)
		if (only_files || a[0] != '-' || !strcmp(a, "-")) {
			o.files[o.nfiles++] = a;
		} else if (!strcmp(a, "--")) {
			only_files = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			goto done;
		} else if (!strncmp(a, "-D", 2)) {
			const char *d = a[2] ? a + 2 : val;
			if (!a[2])
				NEEDS_VALUE();
			if (parse_define(d, &o.defs[o.ndefs]) < 0) {
				rc = bad_usage("-D expects NAME=INTEGER, not '%s'", d);
				goto done;
			}
			o.ndefs++;
		} else if (!strcmp(a, "--json")) {
			o.format = SOLAR_FMT_JSON;
		} else if (!strcmp(a, "--format")) {
			NEEDS_VALUE();
			if (!strcmp(val, "table"))
				o.format = SOLAR_FMT_TABLE;
			else if (!strcmp(val, "md"))
				o.format = SOLAR_FMT_MD;
			else if (!strcmp(val, "json"))
				o.format = SOLAR_FMT_JSON;
			else if (!strcmp(val, "csv"))
				o.format = SOLAR_FMT_CSV;
			else {
				rc = bad_usage("--format expects table, md, json or csv, not '%s'", val);
				goto done;
			}
		} else if (!strcmp(a, "--symbolic")) {
			o.symbolic = true;
		} else if (!strcmp(a, "--verify")) {
			o.verify = true;
		} else if (!strcmp(a, "--dot")) {
			o.dot = true;
		} else if (!strcmp(a, "--device")) {
			NEEDS_VALUE();
			o.device = val;
		} else if (!strcmp(a, "--math")) {
			NEEDS_VALUE();
			if (!strcmp(val, "strict"))
				o.math = SOLAR_MATH_STRICT;
			else if (!strcmp(val, "tf32"))
				o.math = SOLAR_MATH_TF32;
			else {
				rc = bad_usage("--math expects strict or tf32, not '%s'", val);
				goto done;
			}
		} else if (!strcmp(a, "--measured")) {
			NEEDS_VALUE();
			o.measured_s = solar_cli_parse_time(val);
			if (o.measured_s < 0) {
				o.measured_file = val; /* maybe a per-kernel JSON file */
				FILE *f = fopen(val, "r");
				if (!f) {
					rc = bad_usage("--measured expects a time such as 4.57ms or a "
						       "JSON file of per-kernel times, not '%s'",
						       val);
					goto done;
				}
				fclose(f);
			}
		} else if (!strcmp(a, "-o")) {
			NEEDS_VALUE();
			o.out = val;
		} else {
			rc = bad_usage("unknown option '%s'", a);
			goto done;
		}
#undef NEEDS_VALUE
	}
	rc = run(&o);
done:
	for (int i = 0; i < o.ndefs; i++)
		free((void *)o.defs[i].name);
	free(o.defs);
	free(o.files);
	return rc;
}
