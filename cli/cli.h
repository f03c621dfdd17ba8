/* cli.h - shared pieces of the command-line front: options, loading, exit codes.
 *
 * Subcommands live in cli/cmd_*.c; each takes the parsed options and returns an exit code:
 * 0 success, 1 the input has errors (or a gate failed), 2 usage or environment errors.
 */
#ifndef SOLAR_CLI_H
#define SOLAR_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "api/detail.h" /* solar_question_device */
#include "api/solar.h"
#include "devices/device.h"
#include "frontend/frontend.h"

enum { SOLAR_EXIT_OK = 0, SOLAR_EXIT_ERRORS = 1, SOLAR_EXIT_USAGE = 2 };

typedef enum { SOLAR_FMT_TABLE, SOLAR_FMT_MD, SOLAR_FMT_JSON, SOLAR_FMT_CSV } solar_format;

/* Every option of every command, filled by the one parser (cli/args.c) from the tables of
 * cli/commands.c; a command reads the fields of the options it takes. */
typedef struct {
	const char *cmd;
	int argc;         /* the words after the command, as given (translate passes them on) */
	char **argv;
	const char **files;
	int nfiles;
	solar_define *defs;
	int ndefs;
	solar_format format;
	bool symbolic;
	bool no_assume; /* --no-assume: drop the program's assumptions (docs/air.md) */
	bool verify;      /* fmt --verify */
	bool dot;         /* graph --dot */
	const char *device;
	solar_math math;  /* CLI default for kernels without a math attribute */
	double measured_s; /* < 0 when absent */
	const char *measured_file;
	const char *out;  /* -o FILE */
	const char *l2;   /* --l2 warm|cold as given; NULL: not given (warm) */
	int l2_cold;      /* --l2 cold (the rank of the word: warm 0, cold 1) */
	bool ceilings_measured; /* analyze --ceilings measured: an estimate, not a bound */
	bool ceilings_both;     /* analyze --ceilings both: the bound and the estimate */
	/* provision, sweep, report (docs/provision.md, docs/report.md) */
	double target_s;          /* --target-time TIME (or RATE in Hz); 0 when absent */
	const char *bound;        /* --bound unfused|fused|cache-aware|all */
	const char **sets;        /* --set PATH=VALUE device overrides */
	int nsets;
	const char **vary;        /* --vary NAME=FROM..TO */
	int nvary;
	int steps;                /* --steps N; 0: the command's default */
	int ranks;                /* collective --ranks N; 0: every GPU of the system */
	const char *mesh;         /* shard --mesh dp=8,tp=8 */
	const char **splits;      /* shard --split AXIS=NAME[,NAME...] */
	int nsplits;
	bool zero;                /* shard --zero */
	bool sequence_parallel;   /* shard --sequence-parallel */
	int microbatches;         /* shard --microbatches M; 0: not given (1) */
	const char *pp_cut;       /* shard --pp-cut even|cost|N0,N1,...; NULL: not given (cost) */
	const char *svg_out;      /* --svg FILE */
	const char *md_out;       /* --md FILE */
	const char *json_out;     /* report: --json FILE */
	const char *baseline;     /* --baseline FILE */
	double max_headroom;      /* --max-headroom X, when has_max_headroom */
	double max_regression;    /* --max-regression R (relative), when has_max_regression */
	bool has_max_headroom, has_max_regression;
	/* validate (docs/validate.md) */
	const char *ref;          /* --ref MODEL.py: the PyTorch original */
	const char *backend;      /* --backend cpu|cuda; NULL: cpu */
	const char *tol;          /* --tol REL: relative tolerance passed to the harness */
	const char *keep;         /* --keep DIR: work there and keep the files */
	double timeout_s;         /* --timeout SECONDS per step; 0: the default */
	double tol_rel;           /* --tol as a number (advise); -1 when absent */
	const char *measured_arg; /* --measured as given */
	/* advise (docs/advise.md) */
	const char *memory, *record, *emit, *strategy, *wrong, *problem;
	int previous, direction;  /* solar_direction; -1: none */
	double after_s, stop_factor;
	/* triage (docs/triage.md); --record and --l2 as above */
	const char *history, *forecasts, *cache, *candidate;
	long budget_n;            /* --budget N, or -1 */
	double budget_pct;        /* --budget P%, or -1 */
	double coverage, ms;
	bool trust, wrong_flag;
	/* translate (docs/translate.md): checked here, passed on as given */
	bool no_validate, jax, batch, decode, train;
	const char *max_work, *llm, *log, *hf, *loss, *optimizer;
	int attempts, hf_batch, seq, context, layers;
	/* help */
	bool man;
	const char *completion;
} solar_opts;

/* A loaded program with its diagnostics context and source buffer. */
typedef struct {
	char *src;
	solar_diag *diag;
	solar_program *prog;
} solar_loaded;

/* Reads and loads FILE through the front end; prints diagnostics to stderr.
 * Returns 0 on success, 1 on errors in the program, 2 when the file cannot be read; on an
 * error *out holds nothing (solar_cli_unload may still be called on it). */
int solar_cli_load(const char *file, const solar_opts *o, solar_loaded *out);
void solar_cli_unload(solar_loaded *l);
/* The question of a command line (api/solar.h), the one function that reads the analysis
 * settings of the options: --device, --set, -D, --math, --l2, --ceilings (and the time limit,
 * SOLAR_TIME_LIMIT).  The device is not loaded here: the job resolves it (api/job.c), or
 * solar_question_device for a command that needs it before the program.
 * solar_cli_question_free frees what it allocated (the defines, the overrides). */
solar_question solar_cli_question(const solar_opts *o);
void solar_cli_question_free(solar_question *q);

/* The wall-clock limit (SOLAR_TIME_LIMIT) covers solar's own analysis: armed by main before a
 * command runs (what: what ran past it, "the analysis"; why: the message's cause), paused
 * while child processes or the program under test run, resumed after (cli/limit.c).  Not
 * nested. */
void solar_cli_arm_time_limit(const char *what, const char *why);
/* The limit armed, in seconds (0: none), for the question's time_limit_s. */
double solar_cli_time_limit_s(void);
void solar_cli_time_limit_pause(void);
void solar_cli_time_limit_resume(void);
/* Inputs that no output may overwrite (cli/output.c): a file, or a descriptor with its "base"
 * chain.  Outputs naming one are refused. */
void solar_out_input(const char *path);
void solar_out_input_device(const char *path);
/* After the command: checks every write and close of every output and of stdout, renames the
 * temporary files into place (rc 0 or 1 and all complete) or removes them.  Returns rc, or 2
 * after a message when a write failed. */
int solar_out_finish(int rc);
/* Parses a time with a unit ("4.57ms", "120us", "0.002s", "3e-3"): seconds, or -1. */
double solar_cli_parse_time(const char *s);
/* -D's NAME=INTEGER (a C identifier, a decimal integer that fits in 64 bits): 0 and *d set
 * (name malloc'd), or -1.  The one parser of -D, every command's. */
int solar_cli_parse_define(const char *arg, solar_define *d);

/* A usage error of command cmd (an option that does not go with another): `solar: <fmt with
 * arg>` and `Try 'solar CMD --help'.` on stderr; returns SOLAR_EXIT_USAGE (cli/args.c). */
int solar_cli_usage(const char *cmd, const char *fmt, const char *arg);

/* The channel of the command line: `solar: ...` on stderr (cli/load.c); the stages take it
 * wherever they report, the files they read hang off it. */
solar_diag *solar_cli_diag(void);

int solar_cmd_check(const solar_opts *o);
int solar_cmd_fmt(const solar_opts *o);
int solar_cmd_count(const solar_opts *o);
int solar_cmd_graph(const solar_opts *o);
int solar_cmd_analyze(const solar_opts *o);
int solar_cmd_device(const solar_opts *o);
int solar_cmd_collective(const solar_opts *o);
int solar_cmd_shard(const solar_opts *o);
int solar_cmd_provision(const solar_opts *o);
int solar_cmd_sweep(const solar_opts *o);
int solar_cmd_report(const solar_opts *o);
int solar_cmd_validate(const solar_opts *o);
/* `solar advise FILE ...` (cli/cmd_advise.c, docs/advise.md). */
int solar_cmd_advise(const solar_opts *o);
/* `solar translate MODEL.py ...`: executes translate/run.py with a Python that has PyTorch,
 * its words passed on as given (the parser checked them). */
int solar_cmd_translate(const solar_opts *o);
/* `solar triage POOL ...`: ranks a pool of candidates, plans measurements (docs/triage.md). */
int solar_cmd_triage(const solar_opts *o);
/* `solar help [COMMAND]`, --man, --completion (cli/help.c). */
int solar_cmd_help(const solar_opts *o);

/* What-if helpers (cli/quantity.c); quantities parse with solar_quantity_parse (api/detail.h). */
/* A factor rounded up to 3 significant digits ("20.3x", "any" for 0). */
const char *solar_cli_fmt_factor(char *buf, size_t n, double f);

#endif
