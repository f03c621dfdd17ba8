/* commands.c - the command line as data: every option (its kind, the field of solar_opts it
 * fills, its help) and every command (its arguments, prose, the options it takes, the
 * formats it writes, the function that runs it).  The parser (cli/args.c), the help, the man
 * page and the completions (cli/help.c) all read these two tables and nothing else, so adding
 * an option is one entry here and one name in each command's `takes`.
 *
 * An option with .cmd set is that command's own meaning of a name that others use otherwise
 * (report's --json FILE, triage's --wrong flag); it is looked up first.  The order of a
 * command's `takes` is the order of its help and of its "it takes ..." message.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "search/advise.h" /* solar_direction_parse */

/* ---- the values of one option's own syntax ----------------------------------------------- */

/* --measured: a time (4.57ms), else a readable file of per-kernel times. */
static int parse_measured(const char *val, solar_opts *o)
{
	o->measured_s = solar_cli_parse_time(val);
	if (o->measured_s >= 0)
		return 0;
	if (access(val, R_OK))
		return -1;
	o->measured_file = val;
	return 0;
}

/* --target-time: a time (2ms), or a rate (500Hz) whose period it is. */
static int parse_target(const char *val, solar_opts *o)
{
	o->target_s = solar_cli_parse_time(val);
	size_t vl = strlen(val);
	if (o->target_s < 0 && vl > 2 && !strcmp(val + vl - 2, "Hz")) {
		char *end;
		double hz = strtod(val, &end);
		if (end == val + vl - 2 && isfinite(hz) && hz > 0)
			o->target_s = 1 / hz;
	}
	return o->target_s > 0 ? 0 : -1;
}

/* A number, then nothing or the one suffix allowed ("10x", "10%"); -1 when not. */
static double number_with(const char *val, const char *suffix, bool *had)
{
	char *end;
	double x = strtod(val, &end);
	if (end == val || !isfinite(x) || x < 0 || (*end && strcmp(end, suffix)))
		return -1;
	*had = *end != '\0';
	return x;
}

static int parse_max_headroom(const char *val, solar_opts *o)
{
	bool x_suffix;
	double x = number_with(val, "x", &x_suffix);
	if (x <= 0)
		return -1;
	o->max_headroom = x;
	o->has_max_headroom = true;
	return 0;
}

static int parse_max_regression(const char *val, solar_opts *o)
{
	bool percent;
	double x = number_with(val, "%", &percent);
	if (x < 0)
		return -1;
	o->max_regression = percent ? x / 100 : x;
	o->has_max_regression = true;
	return 0;
}

static int parse_ceilings(const char *val, solar_opts *o)
{
	if (strcmp(val, "bound") && strcmp(val, "measured") && strcmp(val, "both"))
		return -1;
	o->ceilings_measured = !strcmp(val, "measured");
	o->ceilings_both = !strcmp(val, "both");
	return 0;
}

/* advise --previous and --direction: a direction's name (--previous: or none). */
static int direction_of(const char *val, bool none_ok, int *d)
{
	*d = solar_direction_parse(val);
	if (*d >= 0 || (none_ok && !strcmp(val, "none")))
		return 0;
	solar_cli_usage("advise",
			"expected a direction (implementation, fusion, \"data reuse\", datapath, "
			"\"redundant work\"), not '%s'",
			val);
	return -2;
}

static int parse_previous(const char *val, solar_opts *o)
{
	return direction_of(val, true, &o->previous);
}

static int parse_direction(const char *val, solar_opts *o)
{
	return direction_of(val, false, &o->direction);
}

/* triage --budget: a count N or a share P% of the pool. */
static int parse_budget(const char *val, solar_opts *o)
{
	char *end;
	double x = strtod(val, &end);
	if (end == val || !isfinite(x) || x < 0 || (*end && strcmp(end, "%")) ||
	    (!*end && x != floor(x)) || (*end && x > 100))
		return -1;
	if (*end)
		o->budget_pct = x;
	else
		o->budget_n = (long)x;
	return 0;
}

static const char *const math_words[] = {"strict", "tf32", NULL};
static const char *const l2_words[] = {"warm", "cold", NULL};
static const char *const backend_words[] = {"cpu", "cuda", NULL};
static const char *const loss_words[] = {"sum", "output", NULL};
static const char *const optimizer_words[] = {"none", "sgd", "adamw", NULL};
static const char *const ceilings_words[] = {"bound", "measured", "both", NULL};
static const char *const bound_words[] = {"unfused", "fused", "cache-aware", "all", NULL};
static const char *const report_bound_words[] = {"unfused", "fused", "cache-aware", NULL};
/* one word each (solar_direction_parse takes "data_reuse" for "data reuse"): a shell completes
 * words, and a space would split one in two */
static const char *const previous_words[] = {"none",	 "implementation", "fusion", "data_reuse",
					     "datapath", "redundant_work", NULL};
static const char *const direction_words[] = {"implementation", "fusion",	  "data_reuse",
					      "datapath",	"redundant_work", NULL};
static const char *const shell_words[] = {"bash", "zsh", NULL};
static const char *const device_words[] = {"list", "show", "probe", NULL};

/* ---- the options ----------------------------------------------------------------------- */

const solar_option solar_options[] = {
    {.name = "-D",
     .kind = SOLAR_ARG_DEFINE,
     .arg = "NAME=VALUE",
     .help = "set a param (or a const) to an integer; repeatable"},
    {.name = "--json",
     .kind = SOLAR_ARG_CONST,
     .field = offsetof(solar_opts, format),
     .help = "the same as --format json",
     .min = SOLAR_FMT_JSON},
    {.name = "--json",
     .cmd = "report",
     .kind = SOLAR_ARG_OUT,
     .field = offsetof(solar_opts, json_out),
     .arg = "FILE",
     .help = "write the JSON report to FILE"},
    {.name = "--format",
     .kind = SOLAR_ARG_FORMAT,
     .field = offsetof(solar_opts, format),
     .arg = "F",
     .help = "output format:"},
    {.name = "--symbolic",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, symbolic),
     .help = "keep params symbolic: counts as formulas in the params, with the program's total ops "
	     "and bytes as formulas too"},
    {.name = "--no-assume",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, no_assume),
     .help = "drop the program's `assume` statements about index data, to see the counts and "
	     "bounds without them (an assumed count that is a param changes with -D)"},
    {.name = "--verify",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, verify),
     .help = "check that the canonical form parses back to the same program"},
    {.name = "--dot",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, dot),
     .help = "write Graphviz dot instead of text"},
    {.name = "--device",
     .kind = SOLAR_ARG_DEVICE,
     .field = offsetof(solar_opts, device),
     .arg = "NAME|FILE",
     .help =
	 "the device: a shipped name (`solar device list`: h100-sxm, h200-sxm, ...) or a "
	 "descriptor file (docs/devices.md); names are looked up in $SOLAR_DEVICE_PATH, then the "
	 "installed devices folder"},
    {.name = "--math",
     .kind = SOLAR_ARG_ENUM,
     .arg = "strict|tf32",
     .help = "math mode of kernels that do not set one (default strict: f32 contractions on the "
	     "SIMT pipes; tf32 lets them use the tensor cores)",
     .choices = math_words,
     .min = SOLAR_MATH_STRICT,
     .index = offsetof(solar_opts, math)},
    {.name = "--measured",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "TIME|FILE",
     .help = "measured time of the whole program (4.57ms, 120us) or a JSON file of per-kernel "
	     "times; exits 1 when it is below the fused or cache-aware bound (impossible)",
     .raw = offsetof(solar_opts, measured_arg),
     .expects = "a time such as 4.57ms or a JSON file of per-kernel times",
     .parse = parse_measured},
    {.name = "-o",
     .kind = SOLAR_ARG_OUT,
     .field = offsetof(solar_opts, out),
     .arg = "FILE",
     .help = "write the output to FILE: whole or not at all, never over an input"},
    {.name = "--set",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, sets),
     .arg = "PATH=VALUE",
     .help = "override a device figure (memory.dram.bandwidth_bytes_per_s=8TB/s, clock_hz=1.5GHz, "
	     "peak.tensor.bf16=1.2PFLOP/s); repeatable; the figure becomes hypothetical",
     .count = offsetof(solar_opts, nsets)},
    {.name = "--vary",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, vary),
     .arg = "NAME=A..B",
     .help = "a figure's range, as a factor or a value (dram_bw=0.5x..8x, l2=16MB..256MB, "
	     "clock=1GHz..2GHz, tensor=0.5x..2x; on a system nvlink_bw, network_bw); one or two",
     .count = offsetof(solar_opts, nvary)},
    {.name = "--target-time",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "TIME",
     .help = "the time to meet: 2ms, or a rate such as 500Hz",
     .expects = "a time such as 2ms or a rate such as 500Hz",
     .parse = parse_target},
    {.name = "--target-time",
     .cmd = "sweep",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "TIME",
     .help = "mark the points that meet TIME (2ms or 500Hz)",
     .expects = "a time such as 2ms or a rate such as 500Hz",
     .parse = parse_target},
    {.name = "--bound",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, bound),
     .arg = "B",
     .help = "which bound: unfused, fused, cache-aware (default) or all",
     .choices = bound_words},
    {.name = "--bound",
     .cmd = "report",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, bound),
     .arg = "B",
     .help = "the bound the headroom is gated on: unfused, fused or cache-aware (default; or "
	     "defaults.bound of the manifest)",
     .choices = report_bound_words},
    {.name = "--steps",
     .kind = SOLAR_ARG_INT,
     .field = offsetof(solar_opts, steps),
     .arg = "N",
     .help = "points per varied figure, geometric (default 9)",
     .min = 2,
     .max = 1000,
     .expects = "an integer from 2 to 1000"},
    {.name = "--ranks",
     .kind = SOLAR_ARG_INT,
     .field = offsetof(solar_opts, ranks),
     .arg = "N",
     .help = "the GPUs the collective runs over (default: every GPU of the system; send: 2), "
	     "packed into as few nodes as hold them",
     .min = 1,
     .max = 10000000,
     .expects = "an integer from 1 to 10000000"},
    {.name = "--mesh",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, mesh),
     .arg = "AXIS=N,...",
     .help = "the mesh of ranks, its last axis innermost (dp=8,tp=8)"},
    {.name = "--split",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, splits),
     .arg = "AXIS=NAME,...",
     .help = "the params or consts an axis splits (dp=BATCH, tp=HEADS,KV_HEADS,INTER); "
	     "repeatable; default: the strategy's usual sizes where the program has them",
     .count = offsetof(solar_opts, nsplits)},
    {.name = "--zero",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, zero),
     .help = "shard the optimizer's state and update over dp: gradients reduce-scattered, "
	     "parameters all-gathered where read whole (ZeRO stages 1 and 2)"},
    {.name = "--sequence-parallel",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, sequence_parallel),
     .help = "run the norms and residual adds between tp's linears on the rank's block of the "
	     "sequence: row-parallel outputs reduce-scattered, all-gathered before the "
	     "column-parallel linears (Megatron's sequence parallelism)"},
    {.name = "--microbatches",
     .kind = SOLAR_ARG_INT,
     .field = offsetof(solar_opts, microbatches),
     .arg = "M",
     .help = "the micro-batches a step runs through the pp axis's stages (default 1)",
     .min = 1,
     .max = 16777216,
     .expects = "an integer from 1 to 16777216"},
    {.name = "--pp-cut",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, pp_cut),
     .arg = "even|cost|N0,N1,...",
     .help = "how the pp axis cuts the layers into stages: cost (default) the cut whose largest "
	     "stage has the fewest operations, even Megatron's layer j of L on stage jP/L, or "
	     "the layers of each stage"},
    {.name = "--svg",
     .kind = SOLAR_ARG_OUT,
     .field = offsetof(solar_opts, svg_out),
     .arg = "FILE",
     .help = "write an SVG chart"},
    {.name = "--md",
     .kind = SOLAR_ARG_OUT,
     .field = offsetof(solar_opts, md_out),
     .arg = "FILE",
     .help = "write the Markdown report to FILE (default: standard output)"},
    {.name = "--baseline",
     .kind = SOLAR_ARG_FILE,
     .field = offsetof(solar_opts, baseline),
     .arg = "FILE",
     .help = "an earlier JSON report (--json) to compare with"},
    {.name = "--max-headroom",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "X",
     .help = "fail (exit 1) when a model's headroom, measured / bound, exceeds X (10 or 10x)",
     .expects = "a factor such as 10 or 10x",
     .parse = parse_max_headroom},
    {.name = "--max-regression",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "R",
     .help = "fail when a headroom grew by more than R against the baseline (0.1 or 10%)",
     .expects = "a fraction such as 0.1 or 10%",
     .parse = parse_max_regression},
    {.name = "--ref",
     .kind = SOLAR_ARG_FILE,
     .field = offsetof(solar_opts, ref),
     .arg = "MODEL.py",
     .help = "the PyTorch (or JAX) original: examples/*.py"},
    {.name = "--backend",
     .kind = SOLAR_ARG_ENUM,
     .field = offsetof(solar_opts, backend),
     .arg = "cpu|cuda",
     .help = "run the AIR program as C on the CPU (default) or as CUDA on the GPU",
     .choices = backend_words},
    {.name = "--tol",
     .kind = SOLAR_ARG_NUMBER,
     .field = offsetof(solar_opts, tol_rel),
     .arg = "REL",
     .help = "relative tolerance (default: the harness's, per dtype)",
     .min = 0,
     .max = HUGE_VAL,
     .min_open = 1,
     .raw = offsetof(solar_opts, tol),
     .expects = "a positive number such as 1e-3"},
    {.name = "--keep",
     .kind = SOLAR_ARG_DIR,
     .field = offsetof(solar_opts, keep),
     .arg = "DIR",
     .help = "work in DIR and keep its files: inputs, outputs, generated code, the launch plan"},
    {.name = "--timeout",
     .kind = SOLAR_ARG_NUMBER,
     .field = offsetof(solar_opts, timeout_s),
     .arg = "SECONDS",
     .help = "limit of each step: the reference, the compiler, the program (default 1200)",
     .min = 0,
     .max = HUGE_VAL,
     .min_open = 1,
     .expects = "a positive number of seconds"},
    {.name = "--l2",
     .kind = SOLAR_ARG_ENUM,
     .field = offsetof(solar_opts, l2),
     .index = offsetof(solar_opts, l2_cold),
     .arg = "warm|cold",
     .help = "the L2 state measurements start from: warm (default, sound for any protocol) or cold "
	     "(flushed before each run: validate, do_bench, KernelBench)",
     .choices = l2_words},
    {.name = "--l2",
     .cmd = "validate",
     .kind = SOLAR_ARG_ENUM,
     .field = offsetof(solar_opts, l2),
     .index = offsetof(solar_opts, l2_cold),
     .arg = "warm|cold",
     .help =
	 "the L2 state of the bounds: cold (default here: the harness flushes the L2 before each "
	 "timed run) or warm",
     .choices = l2_words},
    {.name = "--ceilings",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "bound|measured|both",
     .help = "the descriptor's figures are peaks (bound, the default) or measured ceilings "
	     "(h200-measured): an estimate of what good code reaches, not a bound; both: the "
	     "estimate beside the bound on the peaks of the descriptor's base",
     .choices = ceilings_words,
     .expects = "bound, measured or both",
     .parse = parse_ceilings},
    {.name = "--ceilings",
     .cmd = "device",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "bound|measured",
     .help =
	 "probe: bound (default) writes the driver's figures and derived peaks; measured also "
	 "runs a DRAM copy and GEMMs and writes what they reached as measured ceilings, in place "
	 "of the peaks they measure (an estimate's descriptor, not a bound's)",
     .choices = ceilings_words,
     .expects = "bound, measured or both",
     .parse = parse_ceilings},
    {.name = "--tol",
     .cmd = "advise",
     .kind = SOLAR_ARG_NUMBER,
     .field = offsetof(solar_opts, tol_rel),
     .arg = "REL",
     .help = "relative tolerance the numerics must keep (default: 1e-2 for bf16 or f16 outputs, "
	     "else 1e-4, as KernelBench); TF32 needs >= 1e-3, bf16 >= 1e-2",
     .min = 0,
     .max = HUGE_VAL,
     .min_open = 1,
     .raw = offsetof(solar_opts, tol),
     .expects = "a positive number such as 1e-3"},
    {.name = "--stop-factor",
     .kind = SOLAR_ARG_NUMBER,
     .field = offsetof(solar_opts, stop_factor),
     .arg = "X",
     .help = "stop verdict when measured <= X x SOL (default 1.5)",
     .min = 1,
     .max = HUGE_VAL,
     .expects = "a factor >= 1"},
    {.name = "--memory",
     .kind = SOLAR_ARG_FILE,
     .field = offsetof(solar_opts, memory),
     .arg = "M.json",
     .help = "re-rank the steps by the transition memory M.json (written by --record)"},
    {.name = "--previous",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "DIR",
     .help = "the direction of the last step (none for the first), for the memory",
     .choices = previous_words,
     .parse = parse_previous},
    {.name = "--emit",
     .kind = SOLAR_ARG_DIR,
     .field = offsetof(solar_opts, emit),
     .arg = "DIR",
     .help = "write each rewritten program (the what-ifs) to DIR"},
    {.name = "--record",
     .cmd = "advise",
     .kind = SOLAR_ARG_OUT,
     .field = offsetof(solar_opts, record),
     .arg = "M.json",
     .help = "add a step to the memory M.json and exit: with --direction, --strategy and --after"},
    {.name = "--direction",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "DIR",
     .help = "the direction of the step taken (with --record)",
     .choices = direction_words,
     .parse = parse_direction},
    {.name = "--strategy",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, strategy),
     .arg = "TEXT",
     .help = "the strategy of the step taken (with --record)"},
    {.name = "--after",
     .kind = SOLAR_ARG_TIME,
     .field = offsetof(solar_opts, after_s),
     .arg = "TIME",
     .help = "the time measured after the step (with --record)",
     .expects = "a time such as 1.2ms"},
    {.name = "--wrong",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, wrong),
     .arg = "WHY",
     .help = "the step gave wrong numbers, and why (with --record)"},
    {.name = "--problem",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, problem),
     .arg = "NAME",
     .help = "the problem's name in the memory (default: the program's file name) (with --record)"},
    {.name = "--history",
     .kind = SOLAR_ARG_FILE,
     .field = offsetof(solar_opts, history),
     .arg = "H.jsonl",
     .help = "measurements: {\"candidate\", \"device\", \"ms\", \"l2\", ...} a line"},
    {.name = "--budget",
     .kind = SOLAR_ARG_CUSTOM,
     .arg = "N|P%",
     .help = "candidates to plan (default: every one to measure)",
     .expects = "a count N or a share P%",
     .parse = parse_budget},
    {.name = "--forecasts",
     .kind = SOLAR_ARG_FILE,
     .field = offsetof(solar_opts, forecasts),
     .arg = "F.jsonl",
     .help = "external forecasts: {\"candidate\", \"bin_probabilities\": [8]} a line"},
    {.name = "--coverage",
     .kind = SOLAR_ARG_NUMBER,
     .field = offsetof(solar_opts, coverage),
     .arg = "C",
     .help = "interval coverage, 0.5 to 0.99 (default 0.8)",
     .min = 0.5,
     .max = 0.99,
     .expects = "a number from 0.5 to 0.99"},
    {.name = "--cache",
     .kind = SOLAR_ARG_DIR,
     .field = offsetof(solar_opts, cache),
     .arg = "DIR",
     .help = "translation cache (default $XDG_CACHE_HOME/solar/translate)"},
    {.name = "--trust-translation",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, trust),
     .help = "a translated .py is its own kernel split: its unfused bound may prune (unsafe for "
	     "code that fuses or changes datapath)"},
    {.name = "--record",
     .cmd = "triage",
     .kind = SOLAR_ARG_OUT,
     .field = offsetof(solar_opts, record),
     .arg = "H.jsonl",
     .help = "append one measurement to the history and exit: with --candidate, --device and --ms"},
    {.name = "--candidate",
     .kind = SOLAR_ARG_FILE,
     .field = offsetof(solar_opts, candidate),
     .arg = "FILE",
     .help = "the candidate measured (with --record)"},
    {.name = "--ms",
     .kind = SOLAR_ARG_NUMBER,
     .field = offsetof(solar_opts, ms),
     .arg = "T",
     .help = "its time in milliseconds (with --record)",
     .min = 0,
     .max = HUGE_VAL,
     .min_open = 1,
     .expects = "a positive number of milliseconds"},
    {.name = "--wrong",
     .cmd = "triage",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, wrong_flag),
     .help = "the candidate gave wrong numbers (kept, never ranked) (with --record)"},
    {.name = "-D",
     .cmd = "translate",
     .kind = SOLAR_ARG_DEFINE,
     .arg = "NAME=VALUE",
     .help = "set the module constant NAME before the model is built (as validate's harness "
	     "does); repeatable"},
    {.name = "-o",
     .cmd = "translate",
     .kind = SOLAR_ARG_OUT,
     .field = offsetof(solar_opts, out),
     .arg = "OUT.air",
     .help = "where the AIR goes (default: MODEL.air beside the model)"},
    {.name = "--no-validate",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, no_validate),
     .help = "skip the validation (solar validate against the model), and say so"},
    {.name = "--keep",
     .cmd = "translate",
     .kind = SOLAR_ARG_DIR,
     .field = offsetof(solar_opts, keep),
     .arg = "DIR",
     .help = "do the validation in DIR and keep its files (the small translation, the wrapper "
	     "model, solar validate --keep's files)"},
    {.name = "--jax",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, jax),
     .help = "the model is JAX (a function and its inputs), not PyTorch"},
    {.name = "--max-work",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, max_work),
     .arg = "N",
     .help = "statement executions a validation may take; larger models are validated shrunk "
	     "(default 8e9)"},
    {.name = "--llm",
     .kind = SOLAR_ARG_TEXT,
     .field = offsetof(solar_opts, llm),
     .arg = "CMD",
     .help = "translate what the exporter cannot with this LLM command (docs/translate.md)"},
    {.name = "--attempts",
     .kind = SOLAR_ARG_INT,
     .field = offsetof(solar_opts, attempts),
     .arg = "N",
     .help = "tries per model (default 3) (with --llm)",
     .min = 1,
     .max = 999,
     .expects = "a count from 1 to 999"},
    {.name = "--log",
     .kind = SOLAR_ARG_OUT,
     .field = offsetof(solar_opts, log),
     .arg = "FILE.jsonl",
     .help = "log each attempt to FILE.jsonl (with --llm)"},
    {.name = "--timeout",
     .cmd = "translate",
     .kind = SOLAR_ARG_NUMBER,
     .field = offsetof(solar_opts, timeout_s),
     .arg = "SECONDS",
     .help = "the limit of each step: the translation itself, and each step of the validation "
	     "(default 600)",
     .min = 0,
     .max = HUGE_VAL,
     .min_open = 1,
     .expects = "a positive number of seconds"},
    {.name = "--batch-list",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, batch),
     .help = "LIST OUTDIR: every model of LIST (the test driver's)",
     .hidden = 1},
    {.name = "--hf",
     .cmd = "translate",
     .kind = SOLAR_ARG_FILE,
     .field = offsetof(solar_opts, hf),
     .arg = "CONFIG.json",
     .help = "translate the language model of a Hugging Face config.json (no weights; "
	     "docs/translate.md, \"Hugging Face configs\") instead of a MODEL.py"},
    {.name = "--batch",
     .cmd = "translate",
     .kind = SOLAR_ARG_INT,
     .field = offsetof(solar_opts, hf_batch),
     .arg = "B",
     .help = "sequences at once (default 1) (with --hf)",
     .min = 1,
     .max = 1 << 20,
     .expects = "a count of sequences from 1 to 1048576"},
    {.name = "--seq",
     .cmd = "translate",
     .kind = SOLAR_ARG_INT,
     .field = offsetof(solar_opts, seq),
     .arg = "S",
     .help = "tokens of each sequence (default 2048; with --decode 1) (with --hf)",
     .min = 1,
     .max = 1 << 24,
     .expects = "a count of tokens from 1 to 16777216"},
    {.name = "--decode",
     .cmd = "translate",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, decode),
     .help = "one decode step against a KV cache of --context tokens, not the prefill (with "
	     "--hf)"},
    {.name = "--context",
     .cmd = "translate",
     .kind = SOLAR_ARG_INT,
     .field = offsetof(solar_opts, context),
     .arg = "T",
     .help = "tokens in the KV cache (default 2048) (with --hf --decode)",
     .min = 1,
     .max = 1 << 24,
     .expects = "a count of tokens from 1 to 16777216"},
    {.name = "--layers",
     .cmd = "translate",
     .kind = SOLAR_ARG_INT,
     .field = offsetof(solar_opts, layers),
     .arg = "N",
     .help = "the first N decoder layers only (default: the config's) (with --hf)",
     .min = 1,
     .max = 100000,
     .expects = "a count of layers from 1 to 100000"},
    {.name = "--train",
     .cmd = "translate",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, train),
     .help = "the model's training step: forward, loss, backward and --optimizer "
	     "(docs/translate.md, \"Training steps\")"},
    {.name = "--loss",
     .cmd = "translate",
     .kind = SOLAR_ARG_ENUM,
     .field = offsetof(solar_opts, loss),
     .arg = "sum|output",
     .help = "what is differentiated: the sum of the floating outputs (default) or the scalar "
	     "forward() returns (with --train)",
     .choices = loss_words},
    {.name = "--optimizer",
     .cmd = "translate",
     .kind = SOLAR_ARG_ENUM,
     .field = offsetof(solar_opts, optimizer),
     .arg = "none|sgd|adamw",
     .help = "the update after the backward: none (default: the gradients are the outputs), "
	     "torch.optim.SGD's or AdamW's foreach step (with --train)",
     .choices = optimizer_words},
    {.name = "--man",
     .kind = SOLAR_ARG_FLAG,
     .field = offsetof(solar_opts, man),
     .help = "write the man page (troff): solar.1"},
    {.name = "--completion",
     .kind = SOLAR_ARG_ENUM,
     .field = offsetof(solar_opts, completion),
     .arg = "bash|zsh",
     .help = "write the completion script of that shell (make install installs both)",
     .choices = shell_words},
};
const size_t solar_noptions = sizeof solar_options / sizeof *solar_options;

/* ---- the commands ---------------------------------------------------------------------- */

#define FMTS(f) SOLAR_FMT_BIT(SOLAR_FMT_##f)

const solar_command solar_commands[] = {
    {.name = "check",
     .args = "FILE...",
     .summary = "parse and check AIR programs (exit 0 clean, 1 errors)",
     .details =
	 "Parses every FILE (docs/air.md) and checks names, types, affine indices, bounds of "
	 "every access and reads of unwritten tmp elements, exactly at the given sizes. Each "
	 "error is printed as FILE:LINE:COL with the source line and a caret; all errors of a "
	 "file are reported.",
     .example = "solar check examples/*.air",
     .takes = "-D",
     .run = solar_cmd_check},
    {.name = "fmt",
     .args = "FILE",
     .summary = "print the program in canonical form",
     .details =
	 "The canonical form (docs/air.md, section 9) parses back to the same program; --verify "
	 "checks that instead of printing.",
     .example = "solar fmt examples/softmax.air\nsolar fmt --verify examples/softmax.air",
     .takes = "-D --verify -o",
     .run = solar_cmd_fmt},
    {.name = "count",
     .args = "FILE",
     .summary = "exact work and data counts per statement, kernel and program",
     .details =
	 "Ops by unit and precision, and the bytes each kernel reads and writes (its compulsory "
	 "DRAM traffic), exact integers at any size (docs/bounds.md, \"Counting\").",
     .example =
	 "solar count examples/mlp_block.air -D B=8\nsolar count --symbolic examples/softmax.air",
     .takes = "-D --no-assume --json --format --symbolic --math -o",
     .formats = FMTS(TABLE) | FMTS(JSON),
     .run = solar_cmd_count},
    {.name = "graph",
     .args = "FILE",
     .summary = "the einsum dependency graph of the kernels",
     .example = "solar graph --dot examples/attention_causal.air -o attention.dot",
     .takes = "-D --dot -o",
     .run = solar_cmd_graph},
    {.name = "analyze",
     .args = "FILE --device NAME|FILE",
     .summary = "speed-of-light bounds of a program on a device",
     .details =
	 "Three lower bounds on the run time (docs/bounds.md): unfused (every kernel alone, its "
	 "compulsory DRAM traffic), fused (the program as one kernel) and cache-aware; per "
	 "kernel, the bound and the resource that limits it. No code that computes the program "
	 "runs faster than the bound on that device.",
     .example = "solar analyze examples/attention_causal.air --device h100-sxm\n"
		"solar analyze examples/mlp_block.air --device h200-sxm --measured 1.2ms --l2 cold",
     .takes = "-D --no-assume --json --format --device --math --measured -o --set --l2 --ceilings",
     .formats = FMTS(TABLE) | FMTS(MD) | FMTS(JSON) | FMTS(CSV),
     .run = solar_cmd_analyze},
    {.name = "device",
     .args = "list | show NAME|FILE | probe",
     .summary = "the shipped devices, a descriptor resolved, or the local GPU's descriptor",
     .details =
	 "list: the devices found by name (name, file, DRAM bandwidth, fastest dense tensor "
	 "peak, L2, SMs); --format table|json. show: the descriptor with its base chain merged, "
	 "as JSON. probe: a descriptor for CUDA device 0 from its driver (status measured for "
	 "what the driver reports, derived for what follows by formula); with --ceilings "
	 "measured it also measures a streaming DRAM copy and cuBLAS GEMMs (docs/devices.md, "
	 "\"The probe\"). Names are searched in $SOLAR_DEVICE_PATH (colon-separated folders of "
	 "NAME.json), then PREFIX/share/solar/devices, then the source tree's devices/ for a "
	 "binary in the build tree.",
     .example = "solar device list\nsolar device show h200-measured\n"
		"solar device probe -o mygpu.json\n"
		"solar device probe --ceilings measured -o mygpu-measured.json",
     .takes = "--json --format -o --ceilings",
     .formats = FMTS(TABLE) | FMTS(JSON),
     .run = solar_cmd_device,
     .words = device_words},
    {.name = "collective",
     .args = "OP SIZE --device SYSTEM [--ranks N]",
     .summary = "the least time a collective can take over the GPUs of a node or cluster",
     .details =
	 "OP: all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send; SIZE: "
	 "the buffer per rank in bytes (1GB, 256MiB): an all-reduce's input, an all-gather's "
	 "output, a reduce-scatter's input, an all-to-all's buffer, a message. SYSTEM: a system "
	 "descriptor (solar device list: hgx-h200-8, hgx-h200-ib, gb200-nvl72, ...; "
	 "docs/devices.md, \"Systems\"). Every term (the bytes a rank's links, a node's network "
	 "and a rank's DRAM must move, whatever the algorithm: ring, tree or reduction in the "
	 "switch), the one that limits, and the bound as algorithm and bus bandwidth to set "
	 "against nccl-tests (docs/bounds.md, \"Collectives\"). --set changes a figure of the "
	 "system (nvlink.bandwidth_bytes_per_s, network.bandwidth_bytes_per_s, latency_s, nodes, "
	 "gpus_per_node) or of its GPU (gpu.PATH); --target-time T says what each limiting figure must "
	 "become for the bound to meet T, the others as they are.",
     .example = "solar collective all_reduce 1GB --device hgx-h200-8\n"
		"solar collective all_gather 256MiB --device hgx-h200-ib --ranks 64 --json\n"
		"solar collective all_reduce 1GB --device gb200-nvl72 --set "
		"nvlink.bandwidth_bytes_per_s=1.8TB/s\n"
		"solar collective all_reduce 8GB --device hgx-h200-ib --ranks 128 --target-time 10ms",
     .takes = "--device --ranks --set --target-time --json --format -o",
     .formats = FMTS(TABLE) | FMTS(JSON),
     .run = solar_cmd_collective},
    {.name = "shard",
     .args = "FILE --mesh AXIS=N,... [--split AXIS=NAME,...] [--zero] [--sequence-parallel] "
	     "[--microbatches M] [--pp-cut even|cost|N0,N1,...] [-o OUT.air]",
     .summary = "a one-GPU program made one rank's program of a mesh, with its collectives",
     .details =
	 "Each axis splits some sizes of the program (params or consts): dp the batch, tp the "
	 "attention heads and the MLP's inner size (--split names them; without it dp takes the "
	 "first of BATCH, B, TOKENS, batch_size and tp the ones of HEADS, KV_HEADS, INTER, "
	 "N_HEADS, N_KV_HEADS, HIDDEN_INNER the program has). Every tensor whose extent involves a "
	 "split size is split along that dimension; a reduction over a split size into a tensor "
	 "that is not split is a partial sum, made whole by an all-reduce over the axis right "
	 "after the last kernel that writes it (Megatron's row-parallel all-reduce, DDP's "
	 "gradient all-reduce). With --zero the optimizer's state and its update are split over dp "
	 "too, each gradient reduce-scattered instead and each parameter all-gathered before "
	 "its first whole reader (ZeRO-1/2). With --sequence-parallel the norms and residual adds "
	 "between tp's linears run on the rank's block of the sequence, each row-parallel output "
	 "reduce-scattered instead of all-reduced and all-gathered before the column-parallel "
	 "linears (Megatron's sequence parallelism). The axis pp cuts the repeated layers into pipeline "
	 "stages instead, as the outermost axis: each tensor on the stage that makes it, a send "
	 "where another stage reads it (--microbatches M: the micro-batches a step runs "
	 "through them; --pp-cut: the layers of each stage, by default the contiguous cut whose "
	 "largest stage, the first's embedding and the last's head and loss included, has the "
	 "fewest operations). The result is AIR 1.2: solar analyze --device "
	 "SYSTEM bounds it, "
	 "solar validate runs every rank against the whole model (docs/shard.md).",
     .example = "solar shard llama.air --mesh tp=8 -o llama_tp8.air\n"
		"solar shard mlp_train.air --mesh dp=8 --split dp=TOKENS -o mlp_dp8.air\n"
		"solar analyze mlp_dp8.air --device hgx-h200-8\n"
		"solar shard llama.air --mesh dp=8,tp=8 --zero -o llama_zero.air\n"
		"solar shard llama.air --mesh tp=8 --sequence-parallel -o llama_sp.air\n"
		"solar shard llama.air --mesh pp=4,tp=8 --microbatches 16 -o llama_pp4.air",
     .takes = "--mesh --split --zero --sequence-parallel --microbatches --pp-cut -D -o",
     .formats = FMTS(TABLE),
     .run = solar_cmd_shard},
    {.name = "provision",
     .args = "FILE --device NAME|FILE --target-time TIME",
     .summary = "what each resource must be to meet a target time (inverse roofline)",
     .details =
	 "For every resource (DRAM bandwidth, L2 capacity, each peak) the figure it needs, the "
	 "others as they are, for the bound to reach the target (docs/provision.md). A program "
	 "with a mesh (solar shard) on a system also gets NVLink and network bandwidth. Exits 1 "
	 "when no figure can meet it.",
     .example = "solar provision examples/attention_causal.air --device h100-sxm --target-time 2ms\n"
		"solar provision examples/many-gpus/mlp_dp.air --device hgx-h200-8 --target-time 500us",
     .takes = "-D --no-assume --json --format --device --math -o --set --target-time --bound --l2",
     .formats = FMTS(TABLE) | FMTS(JSON),
     .run = solar_cmd_provision},
    {.name = "sweep",
     .args = "FILE --device NAME|FILE --vary NAME=A..B",
     .summary = "bound times over a grid of device figures",
     .details = "One or two --vary axes; CSV (default) or JSON, and an SVG chart with --svg "
		"(docs/provision.md, \"sweep\").",
     .example =
	 "solar sweep examples/mlp_block.air --device h100-sxm --vary dram_bw=0.5x..4x --svg "
	 "bw.svg",
     .takes = "-D --json --format --device --math -o --set --vary --target-time --steps --svg --l2",
     .formats = FMTS(CSV) | FMTS(JSON),
     .run = solar_cmd_sweep},
    {.name = "report",
     .args = "MANIFEST",
     .summary = "headroom report of many models: Markdown, JSON, SVG; a CI gate",
     .details =
	 "The manifest (JSON, docs/report.md; paths relative to its folder) has the keys:\n"
	 "  solar_manifest      optional, 1\n"
	 "  defaults            device, math, bound, l2: for entries that do not say\n"
	 "  entries[].air       the AIR program (required)\n"
	 "  entries[].device    its device: a name or a descriptor file (here or in defaults)\n"
	 "  entries[].name      unique, matched against the baseline (default: file stem and "
	 "params)\n"
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
     .example = "solar report ci/solar-manifest.json --max-headroom 50 --json report.json\n"
		"solar report ci/solar-manifest.json --baseline baseline.json --max-regression 10%",
     .takes = "--json --bound --svg --md --baseline --max-headroom --max-regression",
     .run = solar_cmd_report},
    {.name = "validate",
     .args = "FILE --ref MODEL.py",
     .summary = "run the AIR program and its PyTorch original on the same inputs, compare",
     .details =
	 "Loads and checks the AIR, runs the original through validate/harness.py (Python with "
	 "torch: $SOLAR_PYTHON), generates the AIR program as C (--backend cpu) or CUDA "
	 "(--backend cuda), runs it on the same inputs and compares every output (PASS or FAIL "
	 "with the reason). With --device it sets the original's measured time against the "
	 "bounds (cold L2 unless --l2 warm). -D sets the sizes of both. Exit 1 on a mismatch, 2 "
	 "when the environment fails (no torch, no compiler, no GPU). docs/validate.md.",
     .example =
	 "solar validate examples/softmax.air --ref examples/softmax.py -D B=2 -D S=4 -D V=40\n"
	 "solar validate examples/matmul_f32.air --ref examples/matmul_f32.py --backend cuda "
	 "--device h200-sxm",
     .takes =
	 "-D --json --format --device --math -o --set --ref --backend --tol --keep --timeout --l2",
     .formats = FMTS(TABLE) | FMTS(JSON),
     .run = solar_cmd_validate},
    {.name = "translate",
     .args = "MODEL.py | --hf CONFIG.json [options]",
     .summary = "a PyTorch (or JAX) model -> AIR, validated",
     .details =
	 "Runs the Python translator (translate/run.py with $SOLAR_PYTHON or build/venv): "
	 "torch.export (or jax.make_jaxpr) traces the model, each operator becomes AIR, and the "
	 "result is validated against the model with `solar validate` unless --no-validate "
	 "(docs/translate.md). With --hf a Hugging Face config.json becomes a model file "
	 "(CONFIG.py, beside the AIR) of its prefill or of one decode step, translated the same "
	 "way. Exit 1 when the model cannot be translated or the translation fails validation.",
     .example = "solar translate examples/mlp_block.py -o mlp_block.air\n"
		"solar translate examples/train/mlp_block.py --train --optimizer adamw\n"
		"solar translate --hf examples/hf/llama-3-8b.json --batch 8 --decode --context 4096",
     .takes =
	 "-o --no-validate -D --keep --timeout --max-work --jax --llm --attempts --log --hf "
	 "--batch --seq --decode --context --layers --train --loss --optimizer --batch-list --backend",
     .run = solar_cmd_translate,
     .limit_what = "the translation",
     .limit_why = ""},
    {.name = "triage",
     .args = "POOL --device D [--history H.jsonl]",
     .summary = "rank a pool of candidate kernels by their bounds, plan which to measure",
     .details = "Prune (a bound at or above the best measured time), skip (a conformal interval "
		"above it) or measure; "
		"`solar triage --record` appends a measurement (docs/triage.md).",
     .example = "solar triage bench/pools/gemm --device devices/h200-sxm.json --l2 cold "
		"--history bench/results/pools-h200-2026-12-01.jsonl --budget 25%",
     .takes = "--device --history --budget --forecasts --format --json --l2 --coverage --cache "
	      "--trust-translation --record --candidate --ms --wrong",
     .formats = FMTS(TABLE) | FMTS(MD) | FMTS(JSON) | FMTS(CSV),
     .run = solar_cmd_triage},
    {.name = "advise",
     .args = "FILE --measured TIME|FILE --device D",
     .summary = "where the gap to the speed of light goes, and the next steps",
     .details =
	 "Splits measured - SOL into implementation, fusion, data reuse, datapath and redundant "
	 "work, lists the strategies under each with their what-if bounds (AIR rewrites; --emit "
	 "DIR writes them) and ranks them, re-weighted by a memory of past steps (--memory, "
	 "--record; docs/advise.md).",
     .example = "solar advise examples/attention_causal.air --device devices/h200-sxm.json "
		"--measured 1.2ms",
     .takes = "--measured --device --set -D --math --l2 --tol --stop-factor --memory --previous "
	      "--emit --format --json -o --record --direction --strategy --after --wrong --problem",
     .formats = FMTS(TABLE) | FMTS(MD) | FMTS(JSON),
     .run = solar_cmd_advise},
    {.name = "help",
     .args = "[COMMAND]",
     .summary = "this list, or one command's usage, options and examples",
     .details =
	 "`solar help COMMAND` is the same as `solar COMMAND --help`; `solar help --man` writes "
	 "the man page (solar.1) and `solar help --completion bash|zsh` the shell completions "
	 "that `make install` installs. Options may be written --name VALUE or --name=VALUE.",
     .example = "solar help analyze\nsolar help --completion bash -o "
		"~/.local/share/bash-completion/completions/solar",
     .takes = "--man --completion -o",
     .run = solar_cmd_help},
};
const size_t solar_ncommands = sizeof solar_commands / sizeof *solar_commands;

const char solar_help_tail[] =
    "Each command takes only the options that apply to it; any other is an error. FILE may "
    "be '-' for standard input. Exit status: 0 ok, 1 errors in the input (or a gate "
    "failed), 2 usage, environment or time-limit errors (SOLAR_TIME_LIMIT seconds, default "
    "120).";
