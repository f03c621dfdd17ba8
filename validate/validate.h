/* validate.h - the AIR program run for real: code generation and the two backends.
 *
 * `solar validate` checks that an AIR program computes what its PyTorch original computes.
 * This module turns the IR into a program that runs (docs/validate.md):
 *   - C for the CPU: one standalone file, compiled with the system `cc` and run as a child
 *     process; it reads DIR/in_<name>.npy for every `in`/`inout` tensor and writes
 *     DIR/air_<name>.npy for every `out`/`inout` tensor;
 *   - CUDA C for the GPU: compiled at run time with NVRTC and launched through the driver
 *     API, both loaded with dlopen, so solar builds and runs where CUDA is absent.
 * Both follow AIR's semantics exactly: sequential program order (the GPU runs in parallel
 * only loops that carry no dependence, analysis/deps.h), every store rounded to the stored
 * tensor's dtype, out and tmp tensors poisoned before the run.
 *
 * The Python side (validate/harness.py) writes the inputs and the reference outputs and
 * compares; cli/cmd_validate.c drives the whole.
 */
#ifndef SOLAR_VALIDATE_H
#define SOLAR_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "analysis/analysis.h"
#include "ir/ir.h"

typedef enum { SOLAR_BACKEND_CPU, SOLAR_BACKEND_CUDA } solar_backend;

/* ---- the runtime text every generated program carries (rt.c) ---- */
extern const char solar_rt_common[]; /* conversions and arithmetic, C and CUDA */
extern const char solar_rt_host[];   /* .npy I/O, allocation, clock: the C program only */

/* ---- .npy files ---- */

/* Element types of .npy files that solar reads and writes (little-endian). */
typedef enum {
	SOLAR_NPY_F8,
	SOLAR_NPY_F4,
	SOLAR_NPY_F2,
	SOLAR_NPY_I8,
	SOLAR_NPY_I4,
	SOLAR_NPY_I2,
	SOLAR_NPY_I1,
	SOLAR_NPY_U8,
	SOLAR_NPY_U4,
	SOLAR_NPY_U2,
	SOLAR_NPY_U1,
	SOLAR_NPY_B1,
	SOLAR_NPY_COUNT
} solar_npy_type;

const char *solar_npy_descr(solar_npy_type t); /* "<f4", "|b1", ... */
int solar_npy_size(solar_npy_type t);          /* bytes per element */
bool solar_npy_is_float(solar_npy_type t);

/* Whether the generated program reads tensor t's values from DIR/in_<name>.npy: `in` and
 * `inout` tensors, and `rand` tensors, whose draws the harness fixes (docs/validate.md,
 * "Random numbers"). */
static inline bool solar_validate_from_file(const solar_tensor *t)
{
	return t->role == SOLAR_ROLE_IN || t->role == SOLAR_ROLE_INOUT ||
	       t->role == SOLAR_ROLE_RAND;
}

/* The element type solar writes an AIR output of dtype t in: the dtype itself where numpy
 * has it (f64 f32 f16 i64 i32 i8 u8 bool); f32 for bf16 and the f8 types (*widened set). */
solar_npy_type solar_npy_out_type(solar_dtype t, bool *widened);

typedef struct {
	solar_npy_type type;
	int rank;
	int64_t shape[32];
	int64_t count; /* elements */
	void *data;    /* count * solar_npy_size(type) bytes, C order; malloc'd */
} solar_npy;

/* Reads a .npy file.  Returns 0, or -1 after `solar: PATH: reason` on diag. */
int solar_npy_read(const char *path, SOLAR_GIVE solar_npy *out, solar_diag *diag);
/* Writes a .npy file (version 1.0, C order).  Returns 0, or -1 after a message. */
int solar_npy_write(const char *path, solar_npy_type type, int rank, const int64_t *shape,
		    const void *data, solar_diag *diag);
void solar_npy_free(solar_npy *a);

/* The index data of a validation (DIR/in_<name>.npy of every `in` tensor with a value range,
 * AIR 1.1) against the declared ranges and the program's assumptions (ranges.c).  Returns the
 * errors reported on prog_diag (located at the declaration or the assumption), or -1 after a
 * message on tool when a file cannot be read. */
int solar_validate_index_data(SOLAR_KEEP const solar_program *p, const char *dir,
			      solar_diag *prog_diag, solar_diag *tool);

/* ---- code generation ---- */

/* How one top-level node of a kernel (a loop nest, or a statement or `if` outside any loop)
 * runs on the GPU: one launch; its `parallel` outermost loops, all perfectly nested, become
 * a flattened thread index, the rest runs sequentially in each thread. */
typedef struct {
	int kernel;
	const solar_node *node;
	int first_stmt, nstmts;
	int depth;    /* loops perfectly nested at the head of the node (0 for a non-loop) */
	int parallel; /* of those, the outermost that carry no dependence */
	bool empty;   /* no statement of the node ever runs: no launch */
	/* Thread coordinate k of loop d < parallel is the iterator value lo[d] + stride[d] * k,
	 * 0 <= k < count[d]; guard[d]: the loop's own bounds and step must still be checked. */
	int64_t lo[64], stride[64], count[64];
	bool guard[64];
	int64_t threads; /* product of count[] (1 when parallel == 0) */
} solar_launch;

typedef struct {
	solar_launch *launch;
	int nlaunch;
} solar_plan;

/* Splits every kernel into launches and asks analysis/deps.h which loops are parallel.
 * `a` is an analysis of p (solar_analysis_new).  Returns 0, or -1 after a message. */
int solar_plan_build(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_analysis *a,
		     solar_plan *out, solar_diag *diag);
void solar_plan_free(solar_plan *plan);
/* One line per launch: "kernel matmul: loops i, j -> 16777216 threads; k sequential". */
void solar_plan_print(const solar_program *p, const solar_plan *plan, FILE *out);

/* The C program (malloc'd text): `prog DIR` reads DIR/in_<name>.npy, writes
 * DIR/air_<name>.npy and prints "solar-kernel NAME SECONDS" per kernel on stdout. */
SOLAR_GIVE char *solar_codegen_c(SOLAR_KEEP const solar_program *p, const char *file);

/* A check point of the localising run (localise.c): after kernel `kernel`, the last one that
 * writes tensor `tensor`, the tensor is written to DIR/loc_<name>.npy and then replaced by
 * the original's values, DIR/<ref>_<name>.npy (ref "ref": the output; "tap": a tmp that the
 * original exposes), so that the kernels after it run on the original's values. */
typedef struct {
	int kernel, tensor;
	const char *ref;
} solar_check;

/* The C program of the localising run: as solar_codegen_c, with the check points, and no
 * air_<name>.npy files (nchecks 0: solar_codegen_c itself). */
SOLAR_GIVE char *solar_codegen_c_checked(SOLAR_KEEP const solar_program *p, const char *file,
					 SOLAR_KEEP const solar_check *checks, int nchecks);

/* The float64 run's C program: as solar_codegen_c with every f32 tensor held and computed
 * in f64 (casts to f32 and the narrower types still round), writing DIR/air64_<name>.npy. */
SOLAR_GIVE char *solar_codegen_c_f64(SOLAR_KEEP const solar_program *p, const char *file);

/* The accumulator run's C program: as solar_codegen_c with every f32 tensor that a reduction
 * (+=, *=, max=, min=) writes held in f64 and rounded to f32 after each kernel that reduces
 * into it (its sums exact, then rounded once), writing DIR/airacc_<name>.npy. */
SOLAR_GIVE char *solar_codegen_c_acc(SOLAR_KEEP const solar_program *p, const char *file);

/* The float64 rule's runs (docs/validate.md, "Comparison") on either backend: which f32
 * tensors a run holds in f64.  SOLAR_WIDE_ALL: every one (the float64 run, DIR/air64_*.npy);
 * SOLAR_WIDE_REDUCED: those a reduction (+=, *=, max=, min=) writes, each rounded to f32
 * after every kernel that reduces into it (the accumulator run, DIR/airacc_*.npy). */
typedef enum { SOLAR_WIDE_NONE, SOLAR_WIDE_ALL, SOLAR_WIDE_REDUCED } solar_wide;
/* Per tensor of p, whether run w holds it in f64 (malloc'd, p->ntensors + 1 flags). */
SOLAR_GIVE bool *solar_validate_wide_set(SOLAR_KEEP const solar_program *p, solar_wide w);
/* *w becomes a shallow copy of p whose tensors (the returned array, the caller's to free)
 * have the f32 ones that wide[] marks declared f64. */
SOLAR_GIVE solar_tensor *solar_validate_widen(SOLAR_KEEP const solar_program *p,
					      SOLAR_KEEP const bool *wide, solar_program *w);
/* Whether statement s of kernel k is the kernel's first reduction into its tensor: the
 * accumulator run rounds that tensor once after k. */
bool solar_validate_rounds_after(SOLAR_KEEP const solar_program *p, int k, int s);

/* The CUDA source (malloc'd text): per input tensor t a kernel solar_in_<t> that converts
 * the .npy data (element type in_type[t]) to the tensor's storage, per poisoned tensor
 * solar_poison_<t>, per widened output solar_out_<t>, per launch solar_launch_<n>, and per
 * tensor that rounded[] (NULL: none) marks solar_round_<t>, which rounds it to f32 in place
 * (the accumulator run). */
SOLAR_GIVE char *solar_codegen_cuda(SOLAR_KEEP const solar_program *p, const char *file,
				    const solar_plan *plan, const solar_npy_type *in_type,
				    SOLAR_KEEP const bool *rounded);

/* ---- running ---- */

typedef struct {
	double compile_s; /* cc, or NVRTC and module load */
	double run_s;     /* all kernels, one run */
	double *kernel_s; /* per kernel */
	int nkernels;
	char device[256]; /* "cpu, cc -O2", "NVIDIA H200, sm_90" */
} solar_run;

/* Writes DIR/air_prog.c, compiles it (env SOLAR_CC, default cc) and runs it on DIR.
 * Returns 0, or 2 after a message on diag (no compiler, compile error, the program failed
 * or ran past timeout_s). */
int solar_run_c(SOLAR_KEEP const solar_program *p, const char *file, const char *dir,
		double timeout_s, solar_run *r, solar_diag *diag);

/* The same with check points (solar_check), as DIR/air_localise.c: for localise.c. */
int solar_run_c_checked(SOLAR_KEEP const solar_program *p, const char *file, const char *dir,
			SOLAR_KEEP const solar_check *checks, int nchecks, double timeout_s,
			solar_diag *diag);

/* The float64 run (solar_codegen_c_f64) as DIR/air_f64.c, on DIR: DIR/air64_<name>.npy. */
int solar_run_c_f64(SOLAR_KEEP const solar_program *p, const char *file, const char *dir,
		    double timeout_s, solar_diag *diag);

/* The accumulator run (solar_codegen_c_acc) as DIR/air_acc.c, on DIR: DIR/airacc_<name>.npy. */
int solar_run_c_acc(SOLAR_KEEP const solar_program *p, const char *file, const char *dir,
		    double timeout_s, solar_diag *diag);

/* The same on the GPU: writes DIR/air_prog.cu and DIR/plan.txt.  Returns 2 with "the CUDA
 * backend is unavailable: ..." when libcuda or NVRTC cannot be loaded or no GPU is present. */
int solar_run_cuda(SOLAR_KEEP const solar_program *p, const char *file,
		   SOLAR_KEEP const solar_analysis *a, const char *dir, double timeout_s,
		   solar_run *r, solar_diag *diag);
/* The float64 rule's run w (SOLAR_WIDE_ALL or SOLAR_WIDE_REDUCED) on the GPU, as the C
 * backend's: DIR/air64_prog.cu or DIR/airacc_prog.cu, writing DIR/air64_<name>.npy or
 * DIR/airacc_<name>.npy.  `a` is an analysis of p (the widened program has p's loops). */
int solar_run_cuda_wide(SOLAR_KEEP const solar_program *p, const char *file,
			SOLAR_KEEP const solar_analysis *a, const char *dir, double timeout_s,
			solar_wide w, solar_diag *diag);
void solar_run_free(solar_run *r);

/* The localising run on the CPU, after a mismatch: finds the check points (every out and
 * inout tensor, every tmp with DIR/tap_<name>.npy), writes DIR/localise.json (per kernel:
 * name, place "file:line:col", the tensors it reads and writes, its checks), and writes,
 * compiles and runs DIR/air_localise.c.  `harness.py localise` then compares.  Returns 0, or
 * 2 after a message on diag. */
int solar_localise_run(SOLAR_KEEP const solar_program *p, const char *file, const char *dir,
		       double timeout_s, solar_diag *diag);
/* A program with a mesh as one process (validate/spmd.c, docs/validate.md "Programs on many
 * GPUs"): AIR 1.1 text in which every tensor has a leading rank dimension, every kernel runs
 * every rank, every collective is the loops of its definition and every `partial` output is
 * summed over its axis.  malloc'd. */
SOLAR_GIVE char *solar_spmd_unroll(SOLAR_KEEP const solar_program *p, const char *file);

/* 0 when the CUDA backend can run here; else -1 with the reason in why. */
int solar_cuda_available(char *why, size_t nwhy);
/* Compiles CUDA source with NVRTC for sm_<major><minor> and runs nothing: 0 compiled, -1 it
 * did not (the log went to diag), -2 NVRTC cannot be loaded.  Needs no GPU (for the tests). */
int solar_cuda_compile_check(const char *src, int major, int minor, solar_diag *diag);

/* ---- child processes (proc.c): the one launcher ---- */

typedef struct {
	int status;     /* exit status; 128 + signal when killed by one; -1 when not started */
	bool timed_out;
	char *out;      /* captured stdout (NUL-terminated; NULL when not captured) */
	char *errout;   /* captured stderr (NULL when passed through) */
	double seconds; /* wall time */
} solar_proc;

/* How a child runs.  stdout is captured when capture_out, else it goes to out_fd (1 to pass it
 * through, 2 to keep our own stdout clean, a log file's descriptor; 0 passes it through too);
 * stderr likewise (0 or 2 pass it through).  The
 * child is stopped (its whole process group) after timeout_s (<= 0: no limit).  own_limit:
 * solar's time limit is paused while it runs (it has one of its own).  limit_control: the
 * child gets a control pipe, SOLAR_LIMIT_FD, on which "p" pauses solar's limit and its own
 * timeout, "r" resumes both and "n" starts both afresh (translate/solar_translate/limits.py).  env: NAME=VALUE
 * strings set for the child (NULL-terminated; NULL for none). */
typedef struct {
	bool capture_out, capture_err;
	int out_fd, err_fd;
	double timeout_s;
	bool own_limit, limit_control;
	const char *const *env;
} solar_proc_how;

/* Runs argv[0] (searched in PATH) with argv as how says, in a process group of its own, and
 * stops what is left of the group when it exits.  0, or -1 with errno when it cannot start. */
int solar_proc_run(char *const argv[], const solar_proc_how *how, solar_proc *r);
void solar_proc_free(solar_proc *r);
/* The child solar_proc_run is waiting for (the leader of its group), 0 when none. */
extern volatile pid_t solar_proc_child;
/* The run's temporary files and folders (a folder goes with what it holds): removed when a
 * signal or the time limit ends the run, after the child is stopped.  path is kept, not
 * copied: it must stay valid until solar_proc_temp_done (renamed into place, or removed). */
void solar_proc_temp(const char *path, bool dir);
void solar_proc_temp_done(const char *path);
/* Stops the child's process group (SIGTERM, then SIGKILL after a grace period) and removes
 * the temporaries; async-signal-safe (the signal and time-limit handlers). */
void solar_proc_cleanup(void);
/* Installs the handlers of SIGINT, SIGTERM and SIGHUP (once): solar_proc_cleanup, then the
 * run ends by the signal.  A signal ignored on entry (nohup) stays ignored. */
void solar_proc_catch_signals(void);
/* Removes a folder and what it holds (16 levels deep at most); async-signal-safe. */
void solar_proc_remove_tree(const char *path);
/* The wall-clock limit of solar's own analysis (SOLAR_TIME_LIMIT, a real-time interval timer
 * the command line arms) stops while a child with a limit of its own runs (the harness, the
 * translator): pause, then resume with what was left.  Pauses nest; no effect when no limit
 * is armed. */
void solar_proc_limit_arm(long seconds);
void solar_proc_limit_pause(void);
void solar_proc_limit_resume(void);

#endif
