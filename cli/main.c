/* main.c - `solar` command line: argument parsing and subcommand dispatch.
 *
 * No analysis happens here.  Options are parsed once into solar_opts (every subcommand
 * spells -D, --json, --device, ... the same way), then the subcommand runs.  Each command has
 * the set of options it takes (the table `commands`) and of --format values; any other option
 * is an error before anything runs, so an option never silently does nothing.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

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
	"  provision FILE       what each resource must be to meet --target-time (inverse roofline)\n"
	"  sweep FILE           bound times over a grid of device figures (--vary, --svg)\n"
	"  report MANIFEST      headroom report of many models: Markdown, JSON, SVG; CI gate\n"
	"  validate FILE --ref MODEL.py   run the AIR program and its PyTorch original, compare\n"
	"  translate MODEL.py   PyTorch model -> AIR, validated (solar translate --help)\n"
	"  advise FILE --measured T   where the gap to SOL goes, next steps (solar advise --help)\n"
	"\n"
	"options:\n"
	"  -D NAME=VALUE        override a param (repeatable)\n"
	"  --device FILE        device descriptor (devices/*.json)\n"
	"  --math strict|tf32   math mode of kernels that do not set one (default strict)\n"
	"  --measured TIME      measured time of the whole program, e.g. 4.57ms; analyze exits 1\n"
	"                       when it is below the fused or cache-aware bound (impossible)\n"
	"  --format table|md|json|csv, --json   output format\n"
	"  --symbolic           count: keep params symbolic\n"
	"  -o FILE              write the output to FILE (whole or not at all; never an input)\n"
	"  --set PATH=VALUE     override a device figure (memory.dram.bandwidth_bytes_per_s=8TB/s)\n"
	"  --l2 warm|cold       the L2 state measurements start from: warm (default, sound for any\n"
	"                       protocol) or cold (flushed before each run: validate, do_bench)\n"
	"  --ceilings bound|measured   analyze: the descriptor's figures are peaks (a bound, the\n"
	"                       default) or measured ceilings (devices/h200-measured.json): an\n"
	"                       estimate of what good code reaches, not a bound\n"
	"  --target-time TIME   provision: the time to meet (2ms, or a rate such as 500Hz)\n"
	"  --bound B            provision: unfused, fused, cache-aware or all; report: the gated bound\n"
	"  --vary NAME=A..B     sweep: a figure's range (dram_bw=0.5x..8x, l2=16MB..256MB)\n"
	"  --steps N            sweep: points per varied figure (geometric)\n"
	"  --svg FILE           sweep, report: write an SVG chart\n"
	"  --md FILE, --json FILE   report: write the Markdown or JSON report\n"
	"  --baseline FILE      report: an earlier JSON report to compare with\n"
	"  --max-headroom X     report: fail (exit 1) when a headroom exceeds X\n"
	"  --max-regression R   report: fail when a headroom grew by more than R (0.1 = 10%)\n"
	"  --ref MODEL.py       validate: the PyTorch original (examples/*.py)\n"
	"  --backend cpu|cuda   validate: run the AIR program as C on the CPU or CUDA on the GPU\n"
	"  --tol REL            validate: relative tolerance (default: the harness's, per dtype)\n"
	"  --keep DIR           validate: work in DIR and keep its files (inputs, outputs, code)\n"
	"  --timeout SECONDS    validate: limit of each step (default 1200)\n"
	"  -h, --help           this text\n"
	"  --version            print the version\n"
	"\n"
	"Each command takes only the options that apply to it; any other is an error.\n"
	"FILE may be '-' for standard input.  Exit status: 0 ok, 1 errors in the input, 2 usage,\n"
	"environment or time-limit errors.\n";

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

/* The options, as bits of a command's set. */
enum {
	OPT_D = 1 << 0, OPT_JSON = 1 << 1, OPT_FORMAT = 1 << 2, OPT_SYMBOLIC = 1 << 3,
	OPT_VERIFY = 1 << 4, OPT_DOT = 1 << 5, OPT_DEVICE = 1 << 6, OPT_MATH = 1 << 7,
	OPT_MEASURED = 1 << 8, OPT_O = 1 << 9, OPT_SET = 1 << 10, OPT_VARY = 1 << 11,
	OPT_TARGET = 1 << 12, OPT_BOUND = 1 << 13, OPT_STEPS = 1 << 14, OPT_SVG = 1 << 15,
	OPT_MD = 1 << 16, OPT_BASELINE = 1 << 17, OPT_MAX_HEADROOM = 1 << 18,
	OPT_MAX_REGRESSION = 1 << 19, OPT_REF = 1 << 20, OPT_BACKEND = 1 << 21, OPT_TOL = 1 << 22,
	OPT_KEEP = 1 << 23, OPT_TIMEOUT = 1 << 24, OPT_L2 = 1 << 25, OPT_CEILINGS = 1 << 26,
};

static const struct {
	const char *name;
	unsigned bit;
} options[] = {
	{"-D", OPT_D},
	{"--json", OPT_JSON},
	{"--format", OPT_FORMAT},
	{"--symbolic", OPT_SYMBOLIC},
	{"--verify", OPT_VERIFY},
	{"--dot", OPT_DOT},
	{"--device", OPT_DEVICE},
	{"--math", OPT_MATH},
	{"--measured", OPT_MEASURED},
	{"-o", OPT_O},
	{"--set", OPT_SET},
	{"--vary", OPT_VARY},
	{"--target-time", OPT_TARGET},
	{"--bound", OPT_BOUND},
	{"--steps", OPT_STEPS},
	{"--svg", OPT_SVG},
	{"--md", OPT_MD},
	{"--baseline", OPT_BASELINE},
	{"--max-headroom", OPT_MAX_HEADROOM},
	{"--max-regression", OPT_MAX_REGRESSION},
	{"--ref", OPT_REF},
	{"--backend", OPT_BACKEND},
	{"--tol", OPT_TOL},
	{"--keep", OPT_KEEP},
	{"--timeout", OPT_TIMEOUT},
	{"--l2", OPT_L2},
	{"--ceilings", OPT_CEILINGS},
};

#define FMT(f) (1u << (f))
#define ANALYSIS (OPT_D | OPT_DEVICE | OPT_MATH | OPT_SET | OPT_O | OPT_L2)

/* Each command, the options it takes and the --format values it writes. */
static const struct {
	const char *name;
	int (*run)(const solar_opts *);
	unsigned takes;
	unsigned formats;
} commands[] = {
	{"check", solar_cmd_check, OPT_D, 0},
	{"fmt", solar_cmd_fmt, OPT_D | OPT_VERIFY | OPT_O, 0},
	{"count", solar_cmd_count, OPT_D | OPT_MATH | OPT_SYMBOLIC | OPT_JSON | OPT_FORMAT | OPT_O,
	 FMT(SOLAR_FMT_TABLE) | FMT(SOLAR_FMT_JSON)},
	{"graph", solar_cmd_graph, OPT_D | OPT_DOT | OPT_O, 0},
	{"analyze", solar_cmd_analyze, ANALYSIS | OPT_MEASURED | OPT_CEILINGS | OPT_JSON | OPT_FORMAT,
	 FMT(SOLAR_FMT_TABLE) | FMT(SOLAR_FMT_MD) | FMT(SOLAR_FMT_JSON) | FMT(SOLAR_FMT_CSV)},
	{"device", solar_cmd_device, OPT_O, 0},
	{"provision", solar_cmd_provision, ANALYSIS | OPT_TARGET | OPT_BOUND | OPT_JSON | OPT_FORMAT,
	 FMT(SOLAR_FMT_TABLE) | FMT(SOLAR_FMT_JSON)},
	{"sweep", solar_cmd_sweep,
	 ANALYSIS | OPT_VARY | OPT_STEPS | OPT_TARGET | OPT_SVG | OPT_JSON | OPT_FORMAT,
	 FMT(SOLAR_FMT_CSV) | FMT(SOLAR_FMT_JSON)},
	{"report", solar_cmd_report,
	 OPT_JSON | OPT_MD | OPT_SVG | OPT_BASELINE | OPT_MAX_HEADROOM | OPT_MAX_REGRESSION |
		 OPT_BOUND,
	 0},
	{"validate", solar_cmd_validate,
	 ANALYSIS | OPT_REF | OPT_BACKEND | OPT_TOL | OPT_KEEP | OPT_TIMEOUT | OPT_JSON | OPT_FORMAT,
	 FMT(SOLAR_FMT_TABLE) | FMT(SOLAR_FMT_JSON)},
};

/* "-D, --json, -o": the options of command c. */
static void list_options(char *buf, size_t n, unsigned takes)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof options / sizeof *options && off < n; i++)
		if (takes & options[i].bit)
			off += (size_t)snprintf(buf + off, n - off, "%s%s", off ? ", " : "",
						options[i].name);
	if (!off)
		snprintf(buf, n, "no options");
}

/* The option argument a is (-DNAME=V is -D); 0 when it is none. */
static unsigned option_bit(const char *a)
{
	for (size_t i = 0; i < sizeof options / sizeof *options; i++)
		if (!strcmp(a, options[i].name) || (options[i].bit == OPT_D && !strncmp(a, "-D", 2)))
			return options[i].bit;
	return 0;
}

/* The time limit: exact polyhedral analysis of a hostile program (thousands of kernels over
 * one tensor) can take super-linear time that ISL's operation budget does not catch, so every
 * command runs under a wall-clock limit, SOLAR_TIME_LIMIT seconds (default 120, 0 for none),
 * and ends with a clear error, exit 2.  The limit is for solar's own analysis: validate pauses
 * it while the reference and the AIR program run (they have their own --timeout). */
static void time_limit_hit(int sig)
{
	static const char msg[] =
		"solar: error: the analysis exceeded its time limit (SOLAR_TIME_LIMIT seconds, "
		"default 120) and was stopped; the program is too large or too irregular for exact "
		"analysis in that time\n";
	(void)sig;
	solar_out_remove_temps(); /* the old outputs stay as they were */
	if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
		/* nothing more can be done in a signal handler */
	}
	_exit(SOLAR_EXIT_USAGE); /* a limit of the environment, not an error in the input */
}

static void arm_time_limit(void)
{
	const char *env = getenv("SOLAR_TIME_LIMIT");
	long seconds = 120;
	if (env && *env) {
		char *end;
		seconds = strtol(env, &end, 10);
		if (*end || seconds < 0) {
			fprintf(stderr, "solar: SOLAR_TIME_LIMIT must be a number of seconds, not "
					"'%s'; using 120\n",
				env);
			seconds = 120;
		}
	}
	if (!seconds)
		return;
	signal(SIGALRM, time_limit_hit);
	struct itimerval t = {.it_value = {.tv_sec = seconds}};
	setitimer(ITIMER_REAL, &t, NULL);
}

static struct itimerval time_limit_left; /* while paused: what was left of the limit */

void solar_cli_time_limit_pause(void)
{
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, &time_limit_left);
}

void solar_cli_time_limit_resume(void)
{
	if (time_limit_left.it_value.tv_sec || time_limit_left.it_value.tv_usec)
		setitimer(ITIMER_REAL, &time_limit_left, NULL);
	time_limit_left = (struct itimerval){{0, 0}, {0, 0}};
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return SOLAR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return solar_out_finish(SOLAR_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("solar %s\n", SOLAR_VERSION);
		return solar_out_finish(SOLAR_EXIT_OK);
	}
	if (!strcmp(argv[1], "translate")) /* its own options: it runs the Python translator */
		return solar_cmd_translate(argc - 2, argv + 2);
	if (!strcmp(argv[1], "advise")) { /* its own options (cli/cmd_advise.c) */
		arm_time_limit();
		return solar_out_finish(solar_cmd_advise(argc - 2, argv + 2));
	}
	int cmd = -1;
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = (int)i;
	if (cmd < 0)
		return bad_usage("unknown command '%s'", argv[1]);
	arm_time_limit();

	solar_opts o = {.cmd = argv[1], .measured_s = -1, .math = SOLAR_MATH_STRICT};
	o.files = calloc((size_t)argc, sizeof *o.files);
	o.defs = calloc((size_t)argc, sizeof *o.defs);
	o.sets = calloc((size_t)argc, sizeof *o.sets);
	o.vary = calloc((size_t)argc, sizeof *o.vary);
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
		unsigned bit = only_files || a[0] != '-' ? 0 : option_bit(a);
		if (bit && !(commands[cmd].takes & bit)) {
			char list[400], msg[512];
			list_options(list, sizeof list, commands[cmd].takes);
			snprintf(msg, sizeof msg, "%s does not take %s (it takes %s)", o.cmd,
				 bit == OPT_D ? "-D" : a, list);
			rc = bad_usage("%s", msg);
			goto done;
		}
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
		} else if (!strcmp(a, "--json") && !strcmp(o.cmd, "report")) {
			NEEDS_VALUE(); /* report writes several outputs: --json FILE */
			o.json_out = val;
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
			else
				o.format = (solar_format)-1;
			if ((int)o.format < 0 || !(commands[cmd].formats & FMT(o.format))) {
				char list[64] = "", msg[160];
				static const char *const names[] = {"table", "md", "json", "csv"};
				int nf = __builtin_popcount(commands[cmd].formats), k = 0;
				for (int f = 0; f < 4; f++)
					if (commands[cmd].formats & FMT(f)) {
						k++;
						snprintf(list + strlen(list), sizeof list - strlen(list),
							 "%s%s", k == 1 ? "" : k == nf ? " or " : ", ",
							 names[f]);
					}
				snprintf(msg, sizeof msg, "%s --format expects %s, not '%s'", o.cmd,
					 list, val);
				rc = bad_usage("%s", msg);
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
		} else if (!strcmp(a, "--set")) {
			NEEDS_VALUE();
			o.sets[o.nsets++] = val;
		} else if (!strcmp(a, "--l2")) {
			NEEDS_VALUE();
			if (strcmp(val, "warm") && strcmp(val, "cold")) {
				rc = bad_usage("--l2 expects warm or cold, not '%s'", val);
				goto done;
			}
			o.l2 = val;
		} else if (!strcmp(a, "--ceilings")) {
			NEEDS_VALUE();
			if (strcmp(val, "bound") && strcmp(val, "measured")) {
				rc = bad_usage("--ceilings expects bound or measured, not '%s'", val);
				goto done;
			}
			o.ceilings_measured = !strcmp(val, "measured");

		} else if (!strcmp(a, "--vary")) {
			NEEDS_VALUE();
			o.vary[o.nvary++] = val;
		} else if (!strcmp(a, "--target-time")) {
			NEEDS_VALUE();
			o.target_s = solar_cli_parse_time(val);
			size_t vl = strlen(val);
			if (o.target_s < 0 && vl > 2 && !strcmp(val + vl - 2, "Hz")) {
				char *hz_end;
				double hz = strtod(val, &hz_end);
				if (hz_end == val + vl - 2 && isfinite(hz) && hz > 0)
					o.target_s = 1 / hz;
			}
			if (o.target_s <= 0) {
				rc = bad_usage("--target-time expects a time such as 2ms or a rate such "
					       "as 500Hz, not '%s'",
					       val);
				goto done;
			}
		} else if (!strcmp(a, "--bound")) {
			NEEDS_VALUE();
			o.bound = val;
		} else if (!strcmp(a, "--steps")) {
			NEEDS_VALUE();
			char *end;
			long n = strtol(val, &end, 10);
			if (*end || end == val || n < 2 || n > 1000) {
				rc = bad_usage("--steps expects an integer from 2 to 1000, not '%s'", val);
				goto done;
			}
			o.steps = (int)n;
		} else if (!strcmp(a, "--svg") || !strcmp(a, "--md") || !strcmp(a, "--baseline")) {
			NEEDS_VALUE();
			*(a[2] == 's' ? &o.svg_out : a[2] == 'm' ? &o.md_out : &o.baseline) = val;
		} else if (!strcmp(a, "--max-headroom") || !strcmp(a, "--max-regression")) {
			NEEDS_VALUE();
			char *end;
			double x = strtod(val, &end);
			bool headroom = a[6] == 'h';
			if (end == val || !isfinite(x) || x < 0 || (headroom && x <= 0) ||
			    (*end && strcmp(end, headroom ? "x" : "%"))) {
				rc = bad_usage(headroom ? "--max-headroom expects a factor such as 10 "
							  "or 10x, not '%s'"
							: "--max-regression expects a fraction such as "
							  "0.1 or 10%%, not '%s'",
					       val);
				goto done;
			}
			if (headroom) {
				o.max_headroom = x;
				o.has_max_headroom = true;
			} else {
				o.max_regression = *end == '%' ? x / 100 : x;
				o.has_max_regression = true;
			}
		} else if (!strcmp(a, "--ref") || !strcmp(a, "--keep")) {
			NEEDS_VALUE();
			*(a[2] == 'r' ? &o.ref : &o.keep) = val;
		} else if (!strcmp(a, "--backend")) {
			NEEDS_VALUE();
			if (strcmp(val, "cpu") && strcmp(val, "cuda")) {
				rc = bad_usage("--backend expects cpu or cuda, not '%s'", val);
				goto done;
			}
			o.backend = val;
		} else if (!strcmp(a, "--tol") || !strcmp(a, "--timeout")) {
			NEEDS_VALUE();
			char *end;
			double x = strtod(val, &end);
			if (end == val || *end || !isfinite(x) || x <= 0) {
				rc = bad_usage(a[3] == 'o' ? "--tol expects a positive number such as "
							     "1e-3, not '%s'"
							   : "--timeout expects a positive number of "
							     "seconds, not '%s'",
					       val);
				goto done;
			}
			if (a[3] == 'o')
				o.tol = val;
			else
				o.timeout_s = x;
		} else {
			rc = bad_usage("unknown option '%s'", a);
			goto done;
		}
#undef NEEDS_VALUE
	}
	/* inputs no output may overwrite (report adds its manifest's files itself) */
	for (int i = !strcmp(o.cmd, "device"); i < o.nfiles; i++)
		solar_out_input(o.files[i]);
	solar_out_input_device(o.device);
	solar_out_input(o.measured_file);
	solar_out_input(o.baseline);
	solar_out_input(o.ref);
	rc = commands[cmd].run(&o);
done:
	rc = solar_out_finish(rc);
	for (int i = 0; i < o.ndefs; i++)
		free((void *)o.defs[i].name);
	free(o.defs);
	free(o.files);
	free(o.sets);
	free(o.vary);
	return rc;
}
