/* solar.h - the one header a program that embeds solar includes: a job in, a result out.
 *
 * A job names a program (an AIR file, or AIR text in memory), its -D defines, a device (a
 * descriptor file, or a descriptor already loaded) with --set overrides, and the question
 * (default math mode, L2 state, peak or measured ceilings).  solar_job_run loads the program
 * through the front end, counts it exactly, and computes the three bounds of docs/bounds.md
 * (unfused, fused, cache-aware) on the device: every command of the solar CLI that bounds a
 * program goes through it, and so can any other program.
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
	/* Rule "capacity": the program's live data exceeds the device's DRAM capacity.
	 * value: live bytes; limit: the capacity. */
	SOLAR_WARN_CAPACITY
} solar_warning_kind;

typedef struct {
	solar_warning_kind kind;
	const char *message; /* one line, no "solar: " prefix, no newline */
	double value, limit;
} solar_warning;

/* The job: zero-initialise, then set what applies. */
typedef struct {
	/* The program: a path ("-" is stdin), or, when source is set, the name diagnostics give
	 * it.  source: AIR text, NUL-terminated (copied; need not outlive the call). */
	const char *file;
	const char *source;
	SOLAR_KEEP const solar_job_define *defines;
	int ndefines;
	/* The device: a descriptor file (device_file), or a loaded one (device, borrowed: the
	 * job applies sets and the L2 state to its own copy).  Neither: counts only (no bounds). */
	const char *device_file;
	SOLAR_KEEP const solar_device *device;
	/* --set PATH=VALUE device overrides ("memory.l2.capacity_bytes=100MB"), applied in order. */
	SOLAR_KEEP const char *const *sets;
	int nsets;
	bool tf32;              /* default math mode of kernels without a math attribute:
				   false strict (FP32 on the SIMT units), true TF32 tensor cores */
	bool l2_cold;           /* rule "L2 state": false warm (sound for any protocol), true cold
				   (the L2 is flushed before each run) */
	bool measured_ceilings; /* rule "fidelity levels": the device's measured ceilings give an
				   estimate, not a bound; refused when it has none */
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
	bool estimate;           /* measured ceilings were asked for: an estimate, not a bound */
	int measured_ceilings;   /* rate figures of status measured in the descriptor */
	solar_result_bound unfused, fused, cache_aware;
	double l2_carry_bytes;   /* capacity that may survive between launches (rule "warm L2") */
	double live_bytes;       /* least data the device holds at one moment (rule "capacity") */
	double dram_capacity_bytes; /* 0 if the descriptor does not say */
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
