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
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "diag/hint.h"
#include "validate/validate.h" /* solar_proc_limit_pause */

static const char *usage_cmd; /* the command being parsed, for "Try 'solar CMD --help'" */

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("solar: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'solar %s%s--help'.\n", usage_cmd ? usage_cmd : "",
		usage_cmd ? " " : "");
	return SOLAR_EXIT_USAGE;
}

int solar_cli_command_usage(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "solar %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'solar %s --help'.\n", cmd);
	return SOLAR_EXIT_USAGE;
}

int solar_cli_parse_define(const char *arg, solar_define *d)
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
	d->name = solar_xstrndup(arg, (size_t)(eq - arg));
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
	{"device", solar_cmd_device, OPT_JSON | OPT_FORMAT | OPT_O | OPT_CEILINGS,
	 FMT(SOLAR_FMT_TABLE) | FMT(SOLAR_FMT_JSON)},
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

/* ---- help: `solar help [COMMAND]`, `solar COMMAND --help`, `solar help --man` -----------
 *
 * Generated from the tables above: a command's help lists exactly the options its `takes` set
 * has, in the order of `options`, so an option cannot be missing from the help of a command
 * that takes it.  The prose lives in the two tables below, keyed by name (a command or option
 * without an entry still gets its usage line and option list); the man page (solar.1, built by
 * CMake with `solar help --man`) is the same text in troff. */

/* Per option: its value's name and what it does.  An entry with cmd set replaces the general
 * one for that command (report --json FILE, provision --bound, ...). */
static const struct {
	const char *name, *cmd, *arg, *help;
} option_help[] = {
	{"-D", NULL, "NAME=VALUE", "set a param (or a const) to an integer; repeatable"},
	{"--json", NULL, NULL, "the same as --format json"},
	{"--json", "report", "FILE", "write the JSON report to FILE"},
	{"--format", NULL, "F", "output format:"},
	{"--symbolic", NULL, NULL,
	 "keep params symbolic: counts as formulas in the params, with the program's total ops "
	 "and bytes as formulas too"},
	{"--verify", NULL, NULL, "check that the canonical form parses back to the same program"},
	{"--dot", NULL, NULL, "write Graphviz dot instead of text"},
	{"--device", NULL, "NAME|FILE",
	 "the device: a shipped name (`solar device list`: h100-sxm, h200-sxm, ...) or a "
	 "descriptor file (docs/devices.md); names are looked up in $SOLAR_DEVICE_PATH, then the "
	 "installed devices folder"},
	{"--math", NULL, "strict|tf32",
	 "math mode of kernels that do not set one (default strict: f32 contractions on the "
	 "SIMT pipes; tf32 lets them use the tensor cores)"},
	{"--measured", NULL, "TIME|FILE",
	 "measured time of the whole program (4.57ms, 120us) or a JSON file of per-kernel "
	 "times; exits 1 when it is below the fused or cache-aware bound (impossible)"},
	{"-o", NULL, "FILE",
	 "write the output to FILE: whole or not at all, never over an input"},
	{"--set", NULL, "PATH=VALUE",
	 "override a device figure (memory.dram.bandwidth_bytes_per_s=8TB/s, clock_hz=1.5GHz, "
	 "peak.tensor.bf16=1.2PFLOP/s); repeatable; the figure becomes hypothetical"},
	{"--vary", NULL, "NAME=A..B",
	 "a figure's range, as a factor or a value (dram_bw=0.5x..8x, l2=16MB..256MB, "
	 "clock=1GHz..2GHz, tensor=0.5x..2x); one or two"},
	{"--target-time", NULL, "TIME",
	 "the time to meet: 2ms, or a rate such as 500Hz"},
	{"--target-time", "sweep", "TIME", "mark the points that meet TIME (2ms or 500Hz)"},
	{"--bound", NULL, "B", "which bound: unfused, fused, cache-aware (default) or all"},
	{"--bound", "report", "B",
	 "the bound the headroom is gated on: unfused, fused or cache-aware (default; or "
	 "defaults.bound of the manifest)"},
	{"--steps", NULL, "N", "points per varied figure, geometric (default 9)"},
	{"--svg", NULL, "FILE", "write an SVG chart"},
	{"--md", NULL, "FILE", "write the Markdown report to FILE (default: standard output)"},
	{"--baseline", NULL, "FILE", "an earlier JSON report (--json) to compare with"},
	{"--max-headroom", NULL, "X",
	 "fail (exit 1) when a model's headroom, measured / bound, exceeds X (10 or 10x)"},
	{"--max-regression", NULL, "R",
	 "fail when a headroom grew by more than R against the baseline (0.1 or 10%)"},
	{"--ref", NULL, "MODEL.py", "the PyTorch (or JAX) original: examples/*.py"},
	{"--backend", NULL, "cpu|cuda",
	 "run the AIR program as C on the CPU (default) or as CUDA on the GPU"},
	{"--tol", NULL, "REL", "relative tolerance (default: the harness's, per dtype)"},
	{"--keep", NULL, "DIR",
	 "work in DIR and keep its files: inputs, outputs, generated code, the launch plan"},
	{"--timeout", NULL, "SECONDS",
	 "limit of each step: the reference, the compiler, the program (default 1200)"},
	{"--l2", NULL, "warm|cold",
	 "the L2 state measurements start from: warm (default, sound for any protocol) or cold "
	 "(flushed before each run: validate, do_bench, KernelBench)"},
	{"--l2", "validate", "warm|cold",
	 "the L2 state of the bounds: cold (default here: the harness flushes the L2 before each "
	 "timed run) or warm"},
	{"--ceilings", NULL, "bound|measured|both",
	 "the descriptor's figures are peaks (bound, the default) or measured ceilings "
	 "(h200-measured): an estimate of what good code reaches, not a bound; both: the "
	 "estimate beside the bound on the peaks of the descriptor's base"},
	{"--ceilings", "device", "bound|measured",
	 "probe: bound (default) writes the driver's figures and derived peaks; measured also "
	 "runs a DRAM copy and GEMMs and writes what they reached as measured ceilings, in place "
	 "of the peaks they measure (an estimate's descriptor, not a bound's)"},
};

/* Per command: its arguments, one line of what it does, more text, and examples. */
static const struct {
	const char *name, *args, *summary, *details, *example;
} command_help[] = {
	{"check", "FILE...", "parse and check AIR programs (exit 0 clean, 1 errors)",
	 "Parses every FILE (docs/air.md) and checks names, types, affine indices, bounds of "
	 "every access and reads of unwritten tmp elements, exactly at the given sizes. Each "
	 "error is printed as FILE:LINE:COL with the source line and a caret; all errors of a "
	 "file are reported.",
	 "solar check examples/*.air"},
	{"fmt", "FILE", "print the program in canonical form",
	 "The canonical form (docs/air.md, section 9) parses back to the same program; --verify "
	 "checks that instead of printing.",
	 "solar fmt examples/softmax.air\nsolar fmt --verify examples/softmax.air"},
	{"count", "FILE", "exact work and data counts per statement, kernel and program",
	 "Ops by unit and precision, and the bytes each kernel reads and writes (its compulsory "
	 "DRAM traffic), exact integers at any size (docs/bounds.md, \"Counting\").",
	 "solar count examples/mlp_block.air -D B=8\nsolar count --symbolic examples/softmax.air"},
	{"graph", "FILE", "the einsum dependency graph of the kernels", NULL,
	 "solar graph --dot examples/attention_causal.air -o attention.dot"},
	{"analyze", "FILE --device NAME|FILE",
	 "speed-of-light bounds of a program on a device",
	 "Three lower bounds on the run time (docs/bounds.md): unfused (every kernel alone, its "
	 "compulsory DRAM traffic), fused (the program as one kernel) and cache-aware; per "
	 "kernel, the bound and the resource that limits it. No code that computes the program "
	 "runs faster than the bound on that device.",
	 "solar analyze examples/attention_causal.air --device h100-sxm\n"
	 "solar analyze examples/mlp_block.air --device h200-sxm --measured 1.2ms --l2 cold"},
	{"device", "list | show NAME|FILE | probe",
	 "the shipped devices, a descriptor resolved, or the local GPU's descriptor",
	 "list: the devices found by name (name, file, DRAM bandwidth, fastest dense tensor "
	 "peak, L2, SMs); --format table|json. show: the descriptor with its base chain merged, "
	 "as JSON. probe: a descriptor for CUDA device 0 from its driver (status measured for "
	 "what the driver reports, derived for what follows by formula); with --ceilings "
	 "measured it also measures a streaming DRAM copy and cuBLAS GEMMs (docs/devices.md, "
	 "\"The probe\"). Names are searched in $SOLAR_DEVICE_PATH (colon-separated folders of "
	 "NAME.json), then PREFIX/share/solar/devices, then the source tree's devices/ for a "
	 "binary in the build tree.",
	 "solar device list\nsolar device show h200-measured\n"
	 "solar device probe -o mygpu.json\n"
	 "solar device probe --ceilings measured -o mygpu-measured.json"},
	{"provision", "FILE --device NAME|FILE --target-time TIME",
	 "what each resource must be to meet a target time (inverse roofline)",
	 "For every resource (DRAM bandwidth, L2 capacity, each peak) the figure it needs, the "
	 "others as they are, for the bound to reach the target (docs/provision.md). Exits 1 "
	 "when no figure can meet it.",
	 "solar provision examples/attention_causal.air --device h100-sxm --target-time 2ms"},
	{"sweep", "FILE --device NAME|FILE --vary NAME=A..B",
	 "bound times over a grid of device figures",
	 "One or two --vary axes; CSV (default) or JSON, and an SVG chart with --svg "
	 "(docs/provision.md, \"sweep\").",
	 "solar sweep examples/mlp_block.air --device h100-sxm --vary dram_bw=0.5x..4x --svg "
	 "bw.svg"},
	{"report", "MANIFEST",
	 "headroom report of many models: Markdown, JSON, SVG; a CI gate",
	 "The manifest (JSON, docs/report.md; paths relative to its folder) has the keys:\n"
	 "  solar_manifest      optional, 1\n"
	 "  defaults            device, math, bound, l2: for entries that do not say\n"
	 "  entries[].air       the AIR program (required)\n"
	 "  entries[].device    its device: a name or a descriptor file (here or in defaults)\n"
	 "  entries[].name      unique, matched against the baseline (default: file stem and params)\n"
	 "  entries[].params    {\"NAME\": INTEGER}, as -D\n"
	 "  entries[].math      strict (default) or tf32, as --math\n"
	 "  entries[].l2        warm (default) or cold, as --l2\n"
	 "  entries[].set       {\"PATH\": VALUE} device overrides, as --set\n"
	 "  entries[].max_headroom   this model's limit, overriding --max-headroom\n"
	 "  entries[].measured  a time (\"1.9ms\", 0.0019), a solar validate --json result\n"
	 "                      ({\"validate\": PATH}), an Nsight Compute CSV ({\"ncu\": PATH,\n"
	 "                      \"runs\": N}) or per-kernel times; absent: bounds only\n"
	 "Unknown keys are errors. The Markdown goes to standard output unless --md names a "
	 "file; exit 1 when a gate fails.",
	 "solar report ci/solar-manifest.json --max-headroom 50 --json report.json\n"
	 "solar report ci/solar-manifest.json --baseline baseline.json --max-regression 10%"},
	{"validate", "FILE --ref MODEL.py",
	 "run the AIR program and its PyTorch original on the same inputs, compare",
	 "Loads and checks the AIR, runs the original through validate/harness.py (Python with "
	 "torch: $SOLAR_PYTHON), generates the AIR program as C (--backend cpu) or CUDA "
	 "(--backend cuda), runs it on the same inputs and compares every output (PASS or FAIL "
	 "with the reason). With --device it sets the original's measured time against the "
	 "bounds (cold L2 unless --l2 warm). -D sets the sizes of both. Exit 1 on a mismatch, 2 "
	 "when the environment fails (no torch, no compiler, no GPU). docs/validate.md.",
	 "solar validate examples/softmax.air --ref examples/softmax.py -D B=2 -D S=4 -D V=40\n"
	 "solar validate examples/matmul_f32.air --ref examples/matmul_f32.py --backend cuda "
	 "--device h200-sxm"},
	{"translate", "MODEL.py [options]",
	 "a PyTorch (or JAX) model -> AIR, validated",
	 "Runs the Python translator (translate/run.py with $SOLAR_PYTHON or build/venv) and "
	 "takes its own options: `solar translate --help` lists them (docs/translate.md).",
	 "solar translate examples/mlp_block.py -o mlp_block.air"},
	{"triage", "POOL --device D [--history H.jsonl] [options]",
	 "rank a pool of candidate kernels by their bounds, plan which to measure",
	 "Takes its own options: `solar triage --help` lists them. Prune (a bound at or above "
	 "the best measured time), skip (a conformal interval above it) or measure; "
	 "`solar triage --record` appends a measurement (docs/triage.md).",
	 "solar triage bench/pools/gemm --device devices/h200-sxm.json --l2 cold "
	 "--history bench/results/pools-h200-2026-12-01.jsonl --budget 25%"},
	{"advise", "FILE --measured TIME --device D [options]",
	 "where the gap to the speed of light goes, and the next steps",
	 "Splits measured - SOL into implementation, fusion, data reuse, datapath and redundant "
	 "work, lists the strategies under each with their what-if bounds (AIR rewrites; --emit "
	 "DIR writes them) and ranks them, re-weighted by a memory of past steps (--memory, "
	 "--record). Takes its own options: `solar advise --help` lists them (docs/advise.md).",
	 "solar advise examples/attention_causal.air --device devices/h200-sxm.json --measured 1.2ms"},
	{"help", "[COMMAND]", "this list, or one command's usage, options and examples",
	 "`solar help COMMAND` is the same as `solar COMMAND --help`; `solar help --man` writes "
	 "the man page (solar.1) that `make install` installs.",
	 "solar help analyze"},
};

static const char help_tail[] =
	"Each command takes only the options that apply to it; any other is an error. FILE may "
	"be '-' for standard input. Exit status: 0 ok, 1 errors in the input (or a gate "
	"failed), 2 usage, environment or time-limit errors (SOLAR_TIME_LIMIT seconds, default "
	"120).";

#define COUNT_OF(a) (sizeof(a) / sizeof *(a))

static int command_help_index(const char *cmd)
{
	for (size_t i = 0; i < COUNT_OF(command_help); i++)
		if (!strcmp(command_help[i].name, cmd))
			return (int)i;
	return -1;
}

/* The help entry of option `name` for command cmd: the command's own, else the general. */
static int option_help_index(const char *name, const char *cmd)
{
	int general = -1;
	for (size_t i = 0; i < COUNT_OF(option_help); i++)
		if (!strcmp(option_help[i].name, name)) {
			if (option_help[i].cmd && !strcmp(option_help[i].cmd, cmd))
				return (int)i;
			if (!option_help[i].cmd && general < 0)
				general = (int)i;
		}
	return general;
}

static int command_index(const char *cmd)
{
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(commands[i].name, cmd))
			return (int)i;
	return -1;
}

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

/* "table (default), md, json or csv" for a command's --format values. */
static void format_list(char *buf, size_t n, unsigned formats)
{
	static const char *const names[] = {"table", "md", "json", "csv"};
	int nf = __builtin_popcount(formats), k = 0;
	buf[0] = '\0';
	for (int f = 0; f < 4; f++)
		if (formats & FMT(f)) {
			k++;
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s%s",
				 k == 1 ? "" : k == nf ? " or " : ", ", names[f],
				 k == 1 ? " (default)" : "");
		}
}

/* One command's usage, options, details and examples. */
static void print_command_help(FILE *out, const char *cmd, bool man)
{
	int h = command_help_index(cmd), c = command_index(cmd);
	const char *args = h >= 0 ? command_help[h].args : "FILE";
	unsigned takes = c >= 0 ? commands[c].takes : 0, formats = c >= 0 ? commands[c].formats : 0;
	char line[512];
	snprintf(line, sizeof line, "solar %s %s%s", cmd, args, takes ? " [options]" : "");
	if (man) {
		fputs(".SS \"", out);
		put_text(out, line, true);
		fputs("\"\n", out);
		if (h >= 0) {
			put_text(out, command_help[h].summary, true);
			fputs(".\n", out);
		}
	} else {
		fprintf(out, "usage: %s\n\n", line);
		if (h >= 0) {
			snprintf(line, sizeof line, "%c%s.", command_help[h].summary[0] & ~0x20,
				 command_help[h].summary + 1);
			put_wrapped(out, line, 0, 0);
		}
	}
	if (h >= 0 && command_help[h].details) {
		if (man) {
			fputs(".PP\n", out);
			if (strchr(command_help[h].details, '\n'))
				fputs(".nf\n", out);
			put_text(out, command_help[h].details, true);
			fputs(strchr(command_help[h].details, '\n') ? "\n.fi\n" : "\n", out);
		} else {
			fputc('\n', out);
			put_wrapped(out, command_help[h].details, 0, 0);
		}
	}
	if (takes) {
		fputs(man ? ".PP\nOptions:\n" : "\noptions:\n", out);
		for (size_t i = 0; i < sizeof options / sizeof *options; i++) {
			if (!(takes & options[i].bit))
				continue;
			int k = option_help_index(options[i].name, cmd);
			const char *arg = k >= 0 ? option_help[k].arg : NULL;
			char text[600], fl[96];
			snprintf(text, sizeof text, "%s", k >= 0 ? option_help[k].help : "");
			if (options[i].bit == OPT_FORMAT) {
				format_list(fl, sizeof fl, formats);
				snprintf(text + strlen(text), sizeof text - strlen(text), " %s", fl);
			}
			snprintf(line, sizeof line, "%s%s%s", options[i].name, arg ? " " : "",
				 arg ? arg : "");
			if (man) {
				fputs(".TP\n.B ", out);
				put_text(out, line, true);
				fputc('\n', out);
				put_text(out, text, true);
				fputc('\n', out);
			} else {
				int col = fprintf(out, "  %-22s", line);
				if (col > 24) {
					fputc('\n', out);
					col = 0;
				}
				put_wrapped(out, text, 25, col);
			}
		}
		if (!man)
			fputs("  -h, --help             this text\n", out);
	}
	if (h >= 0 && command_help[h].example) {
		fputs(man ? ".PP\nExamples:\n.PP\n.nf\n.RS\n" : "\nexamples:\n", out);
		for (const char *e = command_help[h].example; *e;) {
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
}

/* The command list: `solar help`, `solar --help`. */
static void print_usage(FILE *out)
{
	fputs("usage: solar <command> [options] FILE...\n\ncommands:\n", out);
	for (size_t i = 0; i < COUNT_OF(command_help); i++) {
		char line[160];
		snprintf(line, sizeof line, "%s %s", command_help[i].name, command_help[i].args);
		int col = fprintf(out, "  %-26s", line);
		if (col > 28) {
			fputc('\n', out);
			col = 0;
		}
		put_wrapped(out, command_help[i].summary, 29, col);
	}
	fputs("\n'solar help COMMAND' or 'solar COMMAND --help': that command's options and "
	      "examples.\n'solar --version': the version.\n\n",
	      out);
	put_wrapped(out, help_tail, 0, 0);
}

/* The man page, solar.1: the command list and every command's help, in troff. */
static void print_man(FILE *out)
{
	fprintf(out, ".TH SOLAR 1 \"\" \"solar %s\" \"User Commands\"\n", SOLAR_VERSION);
	fputs(".\\\" Generated by `solar help --man` from the help text (cli/main.c): do not edit.\n"
	      ".SH NAME\nsolar \\- speed\\-of\\-light analyzer for deep\\-learning workloads\n"
	      ".SH SYNOPSIS\n.B solar\n.I command\n[options] FILE...\n.SH DESCRIPTION\n",
	      out);
	put_text(out,
		 "solar parses AIR, an affine loop IR (docs/air.md), counts work and data exactly, "
		 "and computes lower bounds on run time against a device descriptor: no code that "
		 "computes the program runs faster on that device.\n",
		 true);
	fputs(".SH COMMANDS\n", out);
	for (size_t i = 0; i < COUNT_OF(command_help); i++)
		print_command_help(out, command_help[i].name, true);
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
	put_text(out, help_tail, true);
	fputs("\n.SH SEE ALSO\nThe documents in docs/ of the source tree: air.md, bounds.md, "
	      "devices.md, report.md, validate.md.\n",
	      out);
}

/* `solar help [--man] [-o FILE] [COMMAND]`. */
static int run_help(int argc, char **argv)
{
	const char *cmd = NULL, *out_path = NULL;
	bool man = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--man"))
			man = true;
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out_path = argv[++i];
		else if (argv[i][0] == '-' || cmd)
			return bad_usage("help takes a command name, --man and -o FILE, not '%s'",
					 argv[i]);
		else
			cmd = argv[i];
	}
	if (cmd && command_help_index(cmd) < 0 && command_index(cmd) < 0) {
		const char *best = NULL;
		int bestd = 3;
		for (size_t i = 0; i < COUNT_OF(command_help); i++) {
			int d = solar_diag_edit_distance(cmd, command_help[i].name, false);
			if (d < bestd) {
				bestd = d;
				best = command_help[i].name;
			}
		}
		fprintf(stderr, "solar: no command '%s'", cmd);
		if (best)
			fprintf(stderr, " (did you mean '%s'?)", best);
		fputs("; try 'solar help'\n", stderr);
		return SOLAR_EXIT_USAGE;
	}
	FILE *out = out_path ? fopen(out_path, "w") : stdout;
	if (!out) {
		fprintf(stderr, "solar: cannot write '%s': %s\n", out_path, strerror(errno));
		return SOLAR_EXIT_USAGE;
	}
	if (man)
		print_man(out);
	else if (cmd)
		print_command_help(out, cmd, false);
	else
		print_usage(out);
	if (out_path && (ferror(out) | fclose(out))) {
		fprintf(stderr, "solar: cannot write '%s': %s\n", out_path, strerror(errno));
		remove(out_path);
		return SOLAR_EXIT_USAGE;
	}
	return solar_out_finish(SOLAR_EXIT_OK);
}

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
 * and ends with a clear error, exit 2, after the child then running is stopped and the
 * temporaries removed (validate/proc.c).  The limit is for solar's own work: validate pauses
 * it while the reference and the AIR program run (they have their own --timeout), translate
 * while its translator says it validates (the control pipe, validate/proc.c). */
static char limit_msg[400]; /* written before the timer is armed: the handler only writes it */

static void time_limit_hit(int sig)
{
	(void)sig;
	solar_proc_cleanup(); /* the child stopped, the old outputs as they were */
	if (write(STDERR_FILENO, limit_msg, strlen(limit_msg)) < 0) {
		/* nothing more can be done in a signal handler */
	}
	_exit(SOLAR_EXIT_USAGE); /* a limit of the environment, not an error in the input */
}

/* Arms the limit; what: what ran past it ("the analysis", "the translation"), why: what the
 * message adds about the cause. */
static void arm_time_limit_for(const char *what, const char *why)
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
	snprintf(limit_msg, sizeof limit_msg,
		 "solar: error: %s exceeded its time limit (SOLAR_TIME_LIMIT seconds, default 120) "
		 "and was stopped%s\n",
		 what, why);
	signal(SIGALRM, time_limit_hit);
	solar_proc_limit_arm(seconds);
}

static void arm_time_limit(void)
{
	arm_time_limit_for("the analysis", "; the program is too large or too irregular for exact "
					   "analysis in that time");
}

/* The pause itself is the process launcher's (validate/proc.c), so that search/ can pause the
 * limit around the translator it runs, as the commands do around theirs. */
void solar_cli_time_limit_pause(void)
{
	solar_proc_limit_pause();
}

void solar_cli_time_limit_resume(void)
{
	solar_proc_limit_resume();
}

int main(int argc, char **argv)
{
	/* Every cJSON allocation goes through the checked allocator (diag/alloc.h): a tree cut
	 * short by a failed allocation (cJSON_Create* and cJSON_Print return NULL) would print as
	 * a wrong answer, not as `solar: out of memory`. */
	cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = solar_xmalloc, .free_fn = free});
	if (argc < 2) {
		print_usage(stderr);
		return SOLAR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return run_help(0, NULL);
	if (!strcmp(argv[1], "help"))
		return run_help(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--version")) {
		printf("solar %s\n", SOLAR_VERSION);
		return solar_out_finish(SOLAR_EXIT_OK);
	}
	if (!strcmp(argv[1], "translate")) { /* its own options: it runs the Python translator */
		arm_time_limit_for("the translation", ""); /* paused while it validates */
		return solar_cmd_translate(argc - 2, argv + 2);
	}
	if (!strcmp(argv[1], "triage")) { /* its own options: it runs the translator for .py files */
		arm_time_limit(); /* paused while the translator runs (search/pool.c) */
		return solar_out_finish(solar_cmd_triage(argc - 2, argv + 2));
	}
	if (!strcmp(argv[1], "advise")) { /* its own options (cli/cmd_advise.c) */
		arm_time_limit();
		return solar_out_finish(solar_cmd_advise(argc - 2, argv + 2));
	}
	int cmd = -1;
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = (int)i;
	if (cmd < 0) {
		const char *best = NULL;
		int bestd = 3;
		for (size_t i = 0; i < COUNT_OF(command_help); i++) {
			int d = solar_diag_edit_distance(argv[1], command_help[i].name, false);
			if (d < bestd) {
				bestd = d;
				best = command_help[i].name;
			}
		}
		if (best) {
			char msg[200];
			snprintf(msg, sizeof msg, "unknown command '%.80s' (did you mean '%s'?)",
				 argv[1], best);
			return bad_usage("%s", msg);
		}
		return bad_usage("unknown command '%s'", argv[1]);
	}
	usage_cmd = argv[1];
	arm_time_limit();

	solar_opts o = {.cmd = argv[1], .measured_s = -1, .math = SOLAR_MATH_STRICT};
	o.files = solar_xcalloc((size_t)argc, sizeof *o.files);
	o.defs = solar_xcalloc((size_t)argc, sizeof *o.defs);
	o.sets = solar_xcalloc((size_t)argc, sizeof *o.sets);
	o.vary = solar_xcalloc((size_t)argc, sizeof *o.vary);
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
			print_command_help(stdout, o.cmd, false);
			goto done;
		} else if (!strncmp(a, "-D", 2)) {
			const char *d = a[2] ? a + 2 : val;
			if (!a[2])
				NEEDS_VALUE();
			if (solar_cli_parse_define(d, &o.defs[o.ndefs]) < 0) {
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
			if (strcmp(val, "bound") && strcmp(val, "measured") && strcmp(val, "both")) {
				rc = bad_usage("--ceilings expects bound, measured or both, not '%s'", val);
				goto done;
			}
			o.ceilings_measured = !strcmp(val, "measured");
			o.ceilings_both = !strcmp(val, "both");
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
	char *device_file = solar_device_resolve(o.device); /* a name: its descriptor file */
	solar_out_input_device(device_file);
	if (!strcmp(o.cmd, "device") && o.nfiles == 2) {
		char *shown = solar_device_resolve(o.files[1]);
		solar_out_input_device(shown);
		free(shown);
	}
	solar_out_input(o.measured_file);
	solar_out_input(o.baseline);
	solar_out_input(o.ref);
	rc = commands[cmd].run(&o);
	free(device_file);
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
