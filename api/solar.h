/* solar.h - the one header a program that embeds solar includes: a job in, a result out.
 *
 * A job names a program (an AIR file, or AIR text in memory) and the question asked about it
 * (solar_question: the device, a descriptor file or one already loaded, with --set overrides;
 * the -D defines; default math mode, L2 state, peak or measured ceilings).  solar_job_run loads
 * the program through the front end, counts it exactly, and computes the three bounds of
 * docs/bounds.md (unfused, fused, cache-aware) on the device: every command of the solar CLI
 * that bounds a program goes through it, and so can any other program.
 *
 * Everything in a result is plain numbers and names, owned by the result and freed with it;
 * counts are given as doubles and, where exactness matters, as decimal digit strings.  Errors
 * (file:line:col diagnostics of the program, JSON paths of the descriptor) are printed to
 * job->err as they are found, in the format of the CLI; warnings are kept in the result (and
 * handed to job->on_warning when set).  Nothing here needs ISL, GMP or cJSON.
 *
 * Ownership, as on every prototype of solar: SOLAR_GIVE the caller owns the returned object
 * and frees it with the matching *_free; SOLAR_KEEP borrowed, must outlive the call (and, for
 * the job's fields, the call to solar_job_run only).  Docs: docs/api.md.
 */
#ifndef SOLAR_API_H
#define SOLAR_API_H

#include <stdbool.h>
#include <stdio.h>

#ifndef SOLAR_GIVE /* the ownership annotations, as ir/arena.h defines them */
#define SOLAR_GIVE
#define SOLAR_TAKE
#define SOLAR_KEEP
#endif

/* A loaded device descriptor (its fields: devices/device.h; embedders need not look inside). */
typedef struct solar_device solar_device;

/* Exit-status-like outcome of a job, the CLI's exit codes. */
typedef enum {
	SOLAR_JOB_OK = 0,
	SOLAR_JOB_INPUT_ERRORS = 1, /* the program has errors (diagnostics printed) */
	SOLAR_JOB_USAGE = 2         /* a file cannot be read, a bad device, override or option */
} solar_job_status;

/* `-D NAME=VALUE`: sets a param (or const) of the program. */
typedef struct {
	const char *name;
	long long value;
} solar_job_define;

typedef struct solar_result solar_result;

typedef enum {
	/* Rule "fidelity levels": some rate figures are measured ceilings, not peaks, and the
	 * job did not ask for measured ceilings: the result is an estimate. value: how many. */
	SOLAR_WARN_MEASURED_CEILINGS,
	/* Rule "memory, least": the program's inputs, inouts and outputs together exceed the
	 * device's DRAM capacity, so it cannot run on the device.  value: those bytes; limit: the
	 * capacity. */
	SOLAR_WARN_CAPACITY,
	/* Rule "memory, as written": they fit, but the kernels in their order hold more than the
	 * capacity at once (a training step's saved activations): it runs only recomputing or
	 * offloading.  value: the as-written peak; limit: the capacity. */
	SOLAR_WARN_MEMORY_AS_WRITTEN
} solar_warning_kind;

typedef struct {
	solar_warning_kind kind;
	const char *message; /* one line, no "solar: " prefix, no newline */
	double value, limit;
} solar_warning;

/* One override of a descriptor figure, applied by the one unit-checked setter
 * (solar_quantity_set_value, api/detail.h): the figure's path and the value as written
 * ("memory.l2.capacity_bytes", "100MB").  path NULL: value is a `--set` argument that is not
 * PATH=VALUE; value NULL: what was written is neither a number nor a quantity string.  file and
 * where locate it for messages: a manifest and its JSON path ("entries[0].set.sm_count"), or
 * both NULL for the command line ("--set sm_count"). */
typedef struct {
	const char *path;
	const char *value;
	const char *file;
	const char *where;
} solar_question_set;

/* Rule "fidelity levels": which ceilings the rates are. */
typedef enum {
	SOLAR_CEILINGS_PEAK,     /* the descriptor's figures as a bound (the default) */
	SOLAR_CEILINGS_MEASURED, /* its measured ceilings: an estimate, not a bound; refused when
				    it has none */
	SOLAR_CEILINGS_BOTH      /* the estimate, and beside it the bound on the peaks of its base
				    chain (solar_job_peaks_file): a job gives the estimate, the
				    caller runs the second job (analyze --ceilings both) */
} solar_ceiling_kind;

/* The question a command asks about a program: every analysis setting, read once from the
 * command line or a report manifest (where the strings "cold", "tf32", "measured" are parsed)
 * and resolved only by the job (api/job.c).  Zero-initialised, it asks for counts only, strict
 * math, a warm L2, peak ceilings. */
typedef struct {
	/* The device: a descriptor file (device_file), or a loaded one (device, borrowed and never
	 * changed: the job applies the overrides to its own copy).  Neither: counts only. */
	const char *device_file;
	SOLAR_KEEP const solar_device *device;
	/* With device: the loaded system whose GPU it is (borrowed; a program with a mesh runs
	 * its ranks there, docs/bounds.md "Programs on many GPUs"); NULL: one GPU. */
	SOLAR_KEEP const struct solar_system *system;
	/* --set PATH=VALUE or a manifest's "set": applied in order; every one is tried, each
	 * refused one reported, and the job stops when any is. */
	SOLAR_KEEP const solar_question_set *sets;
	int nsets;
	/* -D NAME=VALUE or a manifest's "params" */
	SOLAR_KEEP const solar_job_define *defines;
	int ndefines;
	bool no_assume;          /* drop the program's assumptions about index data */
	bool tf32;               /* default math mode of kernels without a math attribute:
				    false strict (FP32 on the SIMT units), true TF32 tensor cores */
	bool l2_cold;            /* rule "L2 state": false warm (sound for any protocol), true cold
				    (the L2 is flushed before each run) */
	solar_ceiling_kind ceilings;
	/* The wall-clock limit of the analysis in seconds (SOLAR_TIME_LIMIT; 0: none).  The job
	 * does not arm it: the process that runs the job does (the solar command arms it before
	 * reading its options, cli/main.c). */
	double time_limit_s;
} solar_question;

/* "warm" or "cold": the one spelling of the L2 state in every output. */
const char *solar_l2_name(bool l2_cold);
/* "warm" -> false, "cold" -> true: 0, or -1 when s is neither. */
int solar_l2_parse(const char *s, bool *l2_cold);

/* The job: a program and the question asked about it.  Zero-initialise, then set what
 * applies. */
typedef struct {
	/* The program: a path ("-" is stdin), or, when source is set, the name diagnostics give
	 * it.  source: AIR text, NUL-terminated (copied; need not outlive the call). */
	const char *file;
	const char *source;
	solar_question question;
	/* Where errors go; NULL: stderr. */
	FILE *err;
	/* Called for each warning when it is found (NULL: only kept in the result). */
	void (*on_warning)(void *ctx, const solar_warning *w);
	void *on_warning_ctx;
} solar_job;

/* Operations of one datapath and operand type ("tensor", "bf16"). */
typedef struct {
	const char *datapath; /* "tensor", "simt", "sfu" */
	const char *dtype;    /* "bf16", "f16", "tf32", "f32", "f64", "fp8", "i8", ... */
	double ops;
	const char *exact;    /* the exact count, decimal digits */
} solar_result_ops;

/* One bound: a time no execution can beat, and what sets it. */
typedef struct {
	double time_s;
	const char *limited_by; /* "dram", "l2", "tensor.bf16", "sfu.f32" */
	double dram_bytes;      /* the traffic this bound charges at DRAM and at the L2 */
	double l2_bytes;
	double ops;             /* all operations */
} solar_result_bound;

typedef struct {
	const char *name;
	const solar_result_ops *ops; /* nonzero entries only */
	int nops;
	double ops_total;
	double load_bytes, store_bytes; /* DRAM traffic were the kernel alone, before any L2
					   allowance (docs/bounds.md, "Counting") */
	solar_result_bound bound;       /* the kernel's own bound (unfused) */
} solar_result_kernel;

typedef struct {
	const char *name;
	long long value;
} solar_result_param;

/* One collective of a program on many GPUs (docs/bounds.md, "Programs on many GPUs"). */
typedef struct {
	const char *kernel;
	const char *op;	  /* "all_reduce", ... */
	const char *axis; /* the mesh axis */
	double bytes;	  /* S: the buffer each rank holds whole (docs/bounds.md, "Collectives") */
	int ranks;	  /* the axis's size */
	int ranks_per_node, nodes;
	double time_s;	       /* the collective's bound: the kernel's */
	const char *limited_by; /* "links", "network", "dram" */
} solar_result_collective;

/* One pipeline stage of a program with stages (docs/bounds.md, "Pipelines"). */
typedef struct {
	double fused_s;		/* rule "fused pipeline": M micro-batches, no bubble */
	double unfused_s;	/* rule "unfused pipeline": with the bubble of the kernels as written */
	const char *limited_by; /* the fused bound's resource */
} solar_result_stage;

/* One class of ranks whose programs differ by rank(A) (docs/bounds.md, "Ranks that differ"). */
typedef struct {
	const char *ranks;	/* their coordinates, `cp=3` (`cp=3,tp=0`) */
	double fused_s, unfused_s; /* the bounds of their program */
} solar_result_rank_class;

struct solar_result {
	solar_job_status status; /* the fields below are set where the job got that far */
	const char *program;     /* the job's file */
	const solar_result_param *params; /* every param with the value it had */
	int nparams;
	/* counts */
	const solar_result_kernel *kernels;
	int nkernels;
	const solar_result_ops *ops; /* the whole program */
	int nops;
	double ops_total;
	double load_bytes, store_bytes;      /* compulsory: inputs read once, outputs written once */
	const char *load_exact, *store_exact; /* the same, exact */
	/* bounds (has_bounds: a device was given and the job got that far) */
	bool has_bounds;
	const char *device_name; /* "NVIDIA H100 SXM5" */
	const char *device_file;
	bool tf32, l2_cold;
	bool device_failed;      /* the device did not load (messages printed): nothing else ran */
	bool override_refused;   /* an override was refused (messages printed): nothing else ran */
	bool estimate;           /* measured ceilings were asked for: an estimate, not a bound */
	int measured_ceilings;   /* rate figures of status measured in the descriptor */
	solar_result_bound unfused, fused, cache_aware;
	double l2_carry_bytes;   /* capacity that may survive between launches (rule "warm L2") */
	double live_bytes;       /* least data the device holds at one moment (rule "memory,
				    least"): = memory.least_bytes */
	double dram_capacity_bytes; /* 0 if the descriptor does not say */
	/* many GPUs: the device was a system (system_name set) and the program's mesh has
	 * `ranks` ranks (1 without a mesh); its collectives in program order */
	const char *system_name;
	long long ranks;
	const solar_result_collective *collectives;
	int ncollectives;
	/* AIR 1.2 pipelines: the stages on pipe_axis (NULL, 0 without), the micro-batches */
	const solar_result_stage *stages;
	int nstages;
	const char *pipe_axis;
	long long microbatches;
	/* rank(A): every class of ranks bounded (nrank_classes > 1; 0 otherwise); the counts,
	 * kernels and bounds above are those of rank_class, the one with the largest fused bound,
	 * except `unfused`, the largest of every class's (unfused_class says whose) */
	const solar_result_rank_class *rank_classes;
	int nrank_classes;
	const char *rank_class, *unfused_class;
	/* docs/bounds.md, "Memory": set with the counts (no device needed) */
	struct {
		double in_bytes, inout_bytes, out_bytes; /* declared sizes, by role */
		double least_bytes;      /* in + inout + out: every execution holds them at once */
		double as_written_bytes; /* the most live at one kernel, in the kernels' order */
		const char *peak_kernel; /* where that peak is reached (NULL: no kernel) */
		double tmp_at_peak_bytes; /* the tmps live across kernels there */
		int tmp_at_peak;
		int stage; /* a pipeline: the stage whose ranks these are (the most); -1 without */
	} memory;
	const solar_warning *warnings;
	int nwarnings;
	struct solar_result_detail *detail; /* the underlying analysis (api/detail.h) */
};

/* Runs a job.  Never NULL (NULL only when memory runs out): check status. */
SOLAR_GIVE solar_result *solar_job_run(SOLAR_KEEP const solar_job *job);
void solar_result_free(SOLAR_TAKE solar_result *r);

/* Loads a descriptor file for jobs that share one device; NULL after messages on err (NULL:
 * stderr). */
SOLAR_GIVE solar_device *solar_job_device_load(const char *path, FILE *err);
void solar_job_device_free(SOLAR_TAKE solar_device *d);

/* Rule "fidelity levels": the descriptor whose peaks bound what an estimate on device_file
 * estimates: the first of its base chain (its "base", that file's base, ...) with no measured
 * ceiling ("devices/h200-sxm.json" for devices/h200-measured.json).  malloc'd; NULL after a
 * message on err (NULL: stderr) when there is none. */
SOLAR_GIVE char *solar_job_peaks_file(const char *device_file, FILE *err);

/* "0.1.0" */
const char *solar_version(void);

#endif
