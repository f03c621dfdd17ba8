/* job.c - one analysis from a job to a result: the chain every command runs.
 *
 * the question's device (load, --set overrides: the one place a question is resolved;
 * fidelity level) -> program (read, front end with
 * the -D defines) -> exact counts (solar_work_check_and_count: the checks of `solar check`,
 * then the counts) -> the three bounds (solar_bounds_compute) -> the plain fields of
 * api/solar.h.  No bound is computed here that roofline/ does not compute: this file only
 * joins the stages and copies their numbers out, so that a command (or an embedding program)
 * gets them without the analysis types.
 *
 * Memory: a result owns one arena for its plain fields (names, exact digit strings, arrays),
 * and the program, diagnostics, counts, device copy and bounds it was computed from; all of it
 * goes in solar_result_free, so a process may run any number of jobs.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/memory.h"
#include "analysis/work.h"
#include "api/detail.h"
#include "frontend/frontend.h"
#include "ir/arena.h"
#include "roofline/provision.h" /* solar_device_clone */
#include "roofline/step.h"

struct solar_result_detail {
	solar_arena *arena;     /* the plain fields */
	char *src;              /* the program's text (owned) */
	solar_diag *diag;       /* owned when own_program */
	solar_program *prog;    /* owned when own_program */
	const solar_program *p; /* the program the job ran on */
	solar_diag *d;
	solar_diag *tool; /* the job's channel: job->err (or stderr) wrapped once, or
			     the caller's (solar_job_run_with) */
	bool own_tool;
	bool own_program;
	solar_work *work;
	solar_device *dev;      /* the job's copy */
	solar_system *sys;      /* --device named a system: dev is a copy of its GPU */
	solar_step step;        /* with sys: the rules of "Programs on many GPUs" */
	solar_bounds bounds;
	bool have_bounds;
	solar_warning warnings[2];
};

const char *solar_version(void)
{
	return SOLAR_VERSION;
}

/* The public API takes a stream (embedders need not know solar_diag); each call wraps it in
 * one channel for the stages below (docs/api.md, "Errors"). */
solar_device *solar_job_device_load(const char *path, FILE *err)
{
	solar_diag *diag = solar_diag_new_tool(err ? err : stderr);
	solar_device *d = solar_device_load(path, diag);
	solar_diag_free(diag);
	return d;
}

void solar_job_device_free(solar_device *d)
{
	solar_device_free(d);
}

int solar_device_measured_rates(const solar_device *dev)
{
	int n = 0;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			n += dev->peak[u][q].present && dev->peak[u][q].status == SOLAR_SRC_MEASURED;
	for (int i = 0; i < dev->nlevels; i++)
		n += dev->levels[i].bandwidth_bytes_per_s.present &&
		     dev->levels[i].bandwidth_bytes_per_s.status == SOLAR_SRC_MEASURED;
	return n;
}

char *solar_job_peaks_file(const char *device_file, FILE *err)
{
	solar_diag *diag = solar_diag_new_tool(err ? err : stderr);
	char *file = solar_device_base_file(device_file);
	for (int depth = 0; file && depth < 16; depth++) {
		solar_device *d = solar_device_load(file, diag);
		if (!d)
			break;
		int n = solar_device_measured_rates(d);
		solar_device_free(d);
		if (!n) {
			solar_diag_free(diag);
			return file;
		}
		char *next = solar_device_base_file(file);
		free(file);
		file = next;
	}
	solar_diag_tool_error(
	    diag,
	    "%s: no descriptor in its base chain gives peaks without measured "
	    "ceilings, for the bound beside the estimate (devices/h200-measured.json "
	    "names devices/h200-sxm.json as its base)",
	    device_file);
	solar_diag_free(diag);
	free(file);
	return NULL;
}

/* own: the job's channel wraps job->err; otherwise it is `diag` (borrowed, NULL silent). */
static solar_result *result_new(const solar_job *job, bool own, solar_diag *diag)
{
	solar_result *r = solar_xcalloc(1, sizeof *r);
	r->detail = solar_xcalloc(1, sizeof *r->detail);
	r->detail->arena = solar_arena_new();
	r->detail->own_tool = own;
	r->detail->tool = own ? solar_diag_new_tool(job->err ? job->err : stderr) : diag;
	return r;
}

static void warn(const solar_job *job, solar_result *r, solar_warning_kind kind, double value,
		 double limit, const char *message)
{
	struct solar_result_detail *x = r->detail;
	if (r->nwarnings >= (int)(sizeof x->warnings / sizeof *x->warnings))
		return;
	solar_warning *w = &x->warnings[r->nwarnings++];
	w->kind = kind;
	w->value = value;
	w->limit = limit;
	w->message = solar_arena_strdup(x->arena, message);
	r->warnings = x->warnings;
	if (job->on_warning)
		job->on_warning(job->on_warning_ctx, w);
}

/* One override through the one unit-checked setter; the command line's (no file, no where)
 * is named "--set PATH".  0, or -1 after a message. */
static int apply_set(solar_device *d, const solar_question_set *s, solar_diag *diag)
{
	if (!s->path) {
		solar_diag_tool_error(diag, "--set expects PATH=VALUE, not '%s'", s->value);
		return -1;
	}
	char where[160];
	snprintf(where, sizeof where, "--set %s", s->path);
	if (!s->value) {
		solar_diag_path_error_in(diag, s->file, s->where ? s->where : where,
					 "expected a number or a quantity string (\"8TB/s\", "
					 "\"64MiB\")");
		return -1;
	}
	return solar_quantity_set_value(d, s->path, s->value, s->file, s->where ? s->where : where,
					diag);
}

/* The same on a system: its own figures, or its GPU's on both the system and the job's copy
 * of the GPU (d). */
static int apply_system_set(solar_system *sys, solar_device *d, const solar_question_set *s,
			    solar_diag *diag)
{
	if (!s->path || !s->value)
		return apply_set(d, s, diag); /* its message */
	char where[160];
	snprintf(where, sizeof where, "--set %s", s->path);
	return solar_quantity_set_system(sys, d, s->path, s->value, s->file,
					 s->where ? s->where : where, diag);
}

/* The one place a question's device is resolved: loaded or copied, then every override in
 * order (all of them tried, so that each refused one is reported). */
static solar_device *question_device(const solar_question *q, bool *loaded,
				     solar_system **sys, solar_diag *diag)
{
	solar_device *d = NULL;
	char *file = q->device_file ? solar_device_resolve(q->device_file) : NULL;
	if (sys && !q->device_file && q->system) { /* loaded already, overrides applied */
		*sys = solar_system_clone(q->system);
		d = solar_device_clone(q->device ? q->device : q->system->gpu);
	} else if (sys && file && solar_system_is(file)) {
		/* a system (docs/bounds.md, "Programs on many GPUs"): every rank is its GPU */
		*sys = solar_system_load(q->device_file, diag);
		d = *sys ? solar_device_clone((*sys)->gpu) : NULL;
	} else {
		d = q->device_file ? solar_device_load(q->device_file, diag)
				   : solar_device_clone(q->device);
	}
	free(file);
	*loaded = d != NULL;
	bool ok = d != NULL;
	for (int i = 0; d && i < q->nsets; i++)
		ok &= (sys && *sys ? apply_system_set(*sys, d, &q->sets[i], diag)
				   : apply_set(d, &q->sets[i], diag)) == 0;
	if (!ok) {
		solar_device_free(d);
		return NULL;
	}
	return d;
}

solar_device *solar_question_device(const solar_question *q, solar_diag *diag)
{
	bool loaded;
	return question_device(q, &loaded, NULL, diag);
}

solar_device *solar_question_device_on(const solar_question *q, solar_system **sys,
				       solar_diag *diag)
{
	bool loaded;
	*sys = NULL;
	solar_device *d = question_device(q, &loaded, sys, diag);
	if (!d) {
		solar_system_free(*sys);
		*sys = NULL;
	}
	return d;
}

/* The device of the job (the question's, resolved), then the fidelity level.  0, or -1 after
 * a message. */
static int job_device(const solar_job *job, solar_result *r, solar_diag *diag)
{
	struct solar_result_detail *x = r->detail;
	const solar_question *q = &job->question;
	bool measured = q->ceilings != SOLAR_CEILINGS_PEAK;
	bool loaded;
	x->dev = question_device(q, &loaded, &x->sys, diag);
	if (!x->dev) {
		r->device_failed = !loaded;
		r->override_refused = loaded;
		return -1;
	}
	const char *file = q->device_file ? q->device_file : x->dev->file;
	r->device_name = solar_arena_strdup(x->arena, x->dev->name ? x->dev->name : "");
	r->device_file = solar_arena_strdup(x->arena, file ? file : "");
	r->l2_cold = q->l2_cold;
	r->estimate = measured;
	r->measured_ceilings = solar_device_measured_rates(x->dev);
	if (measured && !r->measured_ceilings) {
		solar_diag_tool_error(diag,
				      "%s: --ceilings measured: the descriptor has no measured "
				      "ceilings (a peak or bandwidth of status measured; "
				      "devices/h200-measured.json has the H200's)",
				      r->device_file);
		return -1;
	}
	if (!measured && r->measured_ceilings) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s: warning: %d figures are measured ceilings, not peaks: "
					  "the result is an estimate, not a bound",
			 r->device_file, r->measured_ceilings);
		warn(job, r, SOLAR_WARN_MEASURED_CEILINGS, r->measured_ceilings, 0, msg);
	}
	return 0;
}

/* A copy of an exact count into the arena. */
static const char *exact(solar_arena *a, const solar_count *v)
{
	if (!v)
		return "0";
	char *s = solar_count_str(v);
	const char *c = solar_arena_strdup(a, s);
	free(s);
	return c;
}

static void fill_ops(solar_arena *a, const solar_ops *o, const solar_result_ops **out, int *n,
		     double *total)
{
	solar_result_ops *ops =
		solar_arena_alloc(a, sizeof *ops * SOLAR_UNIT_COUNT * SOLAR_PREC_COUNT);
	int m = 0;
	*total = 0;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (o->v[u][q] && !solar_count_is_zero(o->v[u][q])) {
				ops[m].datapath = solar_unit_name((solar_unit)u);
				ops[m].dtype = solar_prec_name((solar_prec)q);
				ops[m].ops = solar_count_double(o->v[u][q]);
				ops[m].exact = exact(a, o->v[u][q]);
				*total += ops[m++].ops;
			}
	*out = ops;
	*n = m;
}

static double scope_bytes(const solar_work *w, const solar_scope_work *s, solar_data_field field,
			  solar_arena *a, const char **digits)
{
	solar_count *v = solar_scope_bytes(w, s, field);
	double d = solar_count_double(v);
	if (digits)
		*digits = exact(a, v);
	solar_count_free(v);
	return d;
}

static solar_result_bound plain_bound(solar_arena *a, const solar_roof *roof)
{
	char name[48];
	solar_result_bound b = {roof->time_s,
				solar_arena_strdup(a, solar_resource_name(roof->limiter, name,
									   sizeof name)),
				roof->dram_bytes, roof->l2_bytes, roof->ops};
	return b;
}

/* Counts and bounds of a loaded program: the part every job shares. */
static void job_analyse(const solar_job *job, solar_result *r, solar_diag *diag)
{
	struct solar_result_detail *x = r->detail;
	solar_arena *a = x->arena;
	const solar_program *p = x->p;
	solar_result_param *ps = solar_arena_alloc(a, sizeof *ps * (size_t)(p->nparams + 1));
	for (int i = 0; i < p->nparams; i++) {
		ps[i].name = solar_arena_strdup(a, p->params[i].name);
		ps[i].value = (long long)p->params[i].value;
	}
	r->params = ps;
	r->nparams = p->nparams;
	r->tf32 = job->question.tf32;
	x->work = solar_work_check_and_count(
	    p, job->question.tf32 ? SOLAR_MATH_TF32 : SOLAR_MATH_STRICT, x->d);
	if (!x->work) {
		r->status = SOLAR_JOB_INPUT_ERRORS;
		return;
	}
	const solar_work *w = x->work;
	fill_ops(a, &w->total.ops, &r->ops, &r->nops, &r->ops_total);
	r->load_bytes = scope_bytes(w, &w->total, SOLAR_DATA_LOAD, a, &r->load_exact);
	r->store_bytes = scope_bytes(w, &w->total, SOLAR_DATA_STORE, a, &r->store_exact);
	solar_result_kernel *ks = solar_arena_alloc(a, sizeof *ks * (size_t)(p->nkernels + 1));
	for (int k = 0; k < p->nkernels; k++) {
		ks[k].name = solar_arena_strdup(a, p->kernels[k].name);
		fill_ops(a, &w->kernel[k].ops, &ks[k].ops, &ks[k].nops, &ks[k].ops_total);
		ks[k].load_bytes = scope_bytes(w, &w->kernel[k], SOLAR_DATA_LOAD, a, NULL);
		ks[k].store_bytes = scope_bytes(w, &w->kernel[k], SOLAR_DATA_STORE, a, NULL);
	}
	r->kernels = ks;
	r->nkernels = p->nkernels;
	solar_memory mem;
	solar_memory_of(p, &mem);
	r->memory.in_bytes = mem.in_bytes;
	r->memory.inout_bytes = mem.inout_bytes;
	r->memory.out_bytes = mem.out_bytes;
	r->memory.least_bytes = mem.least_bytes;
	r->memory.as_written_bytes = mem.as_written_bytes;
	r->memory.peak_kernel = mem.peak_kernel >= 0 ? ks[mem.peak_kernel].name : NULL;
	r->memory.tmp_at_peak_bytes = mem.tmp_at_peak_bytes;
	r->memory.tmp_at_peak = mem.tmp_at_peak;
	r->memory.stage = mem.stage;
	if (!x->dev)
		return;
	int brc = solar_bounds_compute(w, x->dev, job->question.l2_cold, &x->bounds, diag);
	if (brc < 0) { /* -2: the program's counts overflow a time, an error of the input */
		r->status = brc == -2 ? SOLAR_JOB_INPUT_ERRORS : SOLAR_JOB_USAGE;
		return;
	}
	if (p->nmesh && solar_program_ranks(p) > 1 && !x->sys) {
		solar_diag_error(x->d, p->mesh[0].span,
				 "the program runs on %lld ranks; %s is one GPU: give a system of at "
				 "least that many GPUs (`solar device list` shows them)",
				 (long long)solar_program_ranks(p), r->device_file);
		r->status = SOLAR_JOB_INPUT_ERRORS;
		return;
	}
	if (x->sys && solar_step_apply(p, x->sys, &x->bounds, &x->step, x->d) < 0) {
		r->status = SOLAR_JOB_INPUT_ERRORS;
		return;
	}
	x->have_bounds = r->has_bounds = true;
	const solar_bounds *b = &x->bounds;
	for (int k = 0; k < p->nkernels; k++)
		ks[k].bound = plain_bound(a, &b->kernel[k]);
	r->ranks = solar_program_ranks(p);
	if (x->sys) {
		r->system_name = solar_arena_strdup(a, x->sys->name);
		solar_result_collective *cs =
		    solar_arena_alloc(a, sizeof *cs * (size_t)(x->step.ncoll + 1));
		for (int i = 0; i < x->step.ncoll; i++) {
			const solar_step_coll *sc = &x->step.coll[i];
			char name[48];
			cs[i] = (solar_result_collective){
			    .kernel = ks[sc->kernel].name,
			    .op = solar_coll_op_name(sc->bound.op),
			    .axis = p->mesh[sc->axis].name,
			    .bytes = sc->bound.bytes,
			    .ranks = sc->bound.ranks,
			    .ranks_per_node = sc->bound.ranks_per_node,
			    .nodes = sc->bound.nodes,
			    .time_s = b->kernel[sc->kernel].time_s,
			    .limited_by = solar_arena_strdup(
				a, solar_resource_name(b->kernel[sc->kernel].limiter, name,
						       sizeof name))};
		}
		r->collectives = cs;
		r->ncollectives = x->step.ncoll;
		solar_result_stage *ss =
		    solar_arena_alloc(a, sizeof *ss * (size_t)(x->step.nstages + 1));
		for (int s = 0; s < x->step.nstages; s++) {
			char name[48];
			const solar_step_stage *q = &x->step.stage[s];
			ss[s] = (solar_result_stage){
			    .fused_s = q->fused.time_s, .unfused_s = q->unfused_s,
			    .limited_by = solar_arena_strdup(
				a, solar_resource_name(q->fused.limiter, name, sizeof name))};
		}
		r->stages = ss;
		r->nstages = x->step.nstages;
		if (p->pipe_axis >= 0) {
			r->pipe_axis = solar_arena_strdup(a, p->mesh[p->pipe_axis].name);
			r->microbatches = p->microbatches;
		}
	}
	for (int c = 0; c < r->nrank_classes; c++) /* the step: the longest rank's */
		if (r->rank_classes[c].unfused_s > x->bounds.unfused.time_s)
			x->bounds.unfused.time_s = r->rank_classes[c].unfused_s;
	r->unfused = plain_bound(a, &b->unfused);
	r->fused = plain_bound(a, &b->fused);
	r->cache_aware = plain_bound(a, &b->cache_aware);
	r->l2_carry_bytes = b->l2_carry_bytes;
	/* a pipeline's whole-program traffic is no one rank's: its largest stage's memory */
	r->live_bytes = mem.least_bytes > b->live_bytes || p->pipe_axis >= 0 ? mem.least_bytes
									      : b->live_bytes;
	r->dram_capacity_bytes = b->dram_capacity_bytes;
	/* Rule "memory, least": the inputs, inouts and outputs are all in device memory when the
	 * program ends, so a program whose tensors exceed the DRAM capacity cannot run. */
	double cap = b->dram_capacity_bytes;
	if (cap > 0 && r->live_bytes > cap) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s: warning: the program's memory (%.3g bytes at least: "
					  "its inputs, inouts and outputs) exceeds the DRAM capacity of "
					  "%s (%.3g bytes)",
			 r->program, r->live_bytes, r->device_name, cap);
		warn(job, r, SOLAR_WARN_CAPACITY, r->live_bytes, cap, msg);
	} else if (cap > 0 && mem.as_written_bytes > cap) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s: warning: as written the program holds %.3g bytes at "
					  "once (kernel %s), more than the DRAM capacity of %s (%.3g "
					  "bytes): it runs only recomputing or offloading",
			 r->program, mem.as_written_bytes, r->memory.peak_kernel, r->device_name,
			 cap);
		warn(job, r, SOLAR_WARN_MEMORY_AS_WRITTEN, mem.as_written_bytes, cap, msg);
	}
}

/* rank(A) (docs/bounds.md, "Ranks that differ"): the ranks' programs differ, so the step
 * takes at least the longest of theirs.  Every class is checked, counted and bounded; the
 * program is left set to the class with the largest fused bound (the one job_analyse then
 * reports), and the classes' bounds go in the result.  False after an error (its class named). */
static bool rank_classes(const solar_job *job, solar_result *r, solar_diag *diag)
{
	struct solar_result_detail *x = r->detail;
	solar_program *p = (solar_program *)x->p; /* only its rank(A) values change */
	int64_t n = solar_program_rank_classes(p);
	if (n <= 1)
		return true;
	solar_result_rank_class *rc = solar_arena_alloc(x->arena, sizeof *rc * (size_t)n);
	int64_t slowest = 0, widest = 0;
	for (int64_t c = 0; c < n; c++) {
		char text[256];
		solar_program_set_rank_class(p, c);
		solar_program_rank_class_text(p, text, sizeof text);
		rc[c].ranks = solar_arena_strdup(x->arena, text);
		solar_work *w = solar_work_check_and_count(
		    p, job->question.tf32 ? SOLAR_MATH_TF32 : SOLAR_MATH_STRICT, x->d);
		solar_bounds b = {0};
		solar_step st = {0};
		bool ok = w && x->dev &&
			  solar_bounds_compute(w, x->dev, job->question.l2_cold, &b, diag) == 0 &&
			  (!x->sys || solar_step_apply(p, x->sys, &b, &st, x->d) == 0);
		if (ok) {
			rc[c].fused_s = b.fused.time_s;
			rc[c].unfused_s = b.unfused.time_s;
		}
		solar_step_free(&st);
		solar_bounds_free(&b);
		solar_work_free(w);
		if (!w) {
			solar_analysis_note_rank_class(p, x->d);
			r->status = SOLAR_JOB_INPUT_ERRORS;
			return false;
		}
		if (!x->dev) /* no bounds: every class checked and counted, class 0 reported */
			continue;
		if (!ok) /* an error job_analyse reports again */
			break;
		if (rc[c].fused_s > rc[slowest].fused_s ||
		    (rc[c].fused_s == rc[slowest].fused_s && rc[c].unfused_s > rc[slowest].unfused_s))
			slowest = c; /* ties: the one with more to do as written */
		if (rc[c].unfused_s > rc[widest].unfused_s)
			widest = c;
	}
	r->rank_classes = rc;
	r->nrank_classes = x->dev ? (int)n : 0;
	r->rank_class = rc[slowest].ranks;
	r->unfused_class = rc[widest].ranks;
	solar_program_set_rank_class(p, x->dev ? slowest : 0);
	return true;
}

/* Runs the device part; true when the job may go on. */
static bool job_start(const solar_job *job, solar_result *r, solar_diag *diag)
{
	if (!job->question.device_file && !job->question.device)
		return true;
	if (job_device(job, r, diag) < 0) {
		r->status = SOLAR_JOB_USAGE;
		return false;
	}
	return true;
}

/* own: the job's channel wraps job->err; otherwise it is `channel` (borrowed, NULL silent). */
static solar_result *program_run(const solar_job *job, const solar_program *p, solar_diag *d,
				 bool own, solar_diag *channel)
{
	solar_result *r = result_new(job, own, channel);
	solar_diag *diag = r->detail->tool;
	r->program = solar_arena_strdup(r->detail->arena, job->file ? job->file : "");
	r->detail->p = p;
	r->detail->d = d;
	if (job_start(job, r, diag) && rank_classes(job, r, diag))
		job_analyse(job, r, diag);
	return r;
}

solar_result *solar_job_run_program(const solar_job *job, const solar_program *p, solar_diag *d)
{
	return program_run(job, p, d, true, NULL);
}

solar_result *solar_job_run_program_with(const solar_job *job, const solar_program *p,
					 solar_diag *d, solar_diag *diag)
{
	return program_run(job, p, d, false, diag);
}

static solar_result *job_run(const solar_job *job, bool own, solar_diag *channel)
{
	solar_result *r = result_new(job, own, channel);
	struct solar_result_detail *x = r->detail;
	solar_diag *diag = x->tool;
	FILE *err = solar_diag_stream(diag);
	const char *file = job->file ? job->file : "<source>";
	r->program = solar_arena_strdup(x->arena, file);
	if (!job_start(job, r, diag))
		return r;
	int32_t len = 0;
	if (job->source) {
		size_t n = strlen(job->source);
		if (n > SOLAR_MAX_SOURCE_BYTES) {
			solar_diag_tool_error(diag, "%s: larger than %d bytes", file,
					      SOLAR_MAX_SOURCE_BYTES);
			r->status = SOLAR_JOB_USAGE;
			return r;
		}
		x->src = solar_xstrndup(job->source, n);
		len = (int32_t)n;
	} else {
		x->src = solar_read_file(file, &len, diag);
	}
	if (!x->src) {
		r->status = SOLAR_JOB_USAGE;
		return r;
	}
	const solar_question *q = &job->question;
	solar_define *defs = solar_xcalloc((size_t)q->ndefines + 1, sizeof *defs);
	for (int i = 0; i < q->ndefines; i++) {
		defs[i].name = q->defines[i].name;
		defs[i].value = (int64_t)q->defines[i].value;
	}
	x->own_program = true;
	x->diag = x->d = solar_diag_new(file, x->src, len, err);
	x->prog = solar_frontend_load(file, x->src, len, defs, q->ndefines, x->diag);
	free(defs);
	if (!x->prog) {
		solar_diag_finish(x->diag);
		r->status = SOLAR_JOB_INPUT_ERRORS;
		return r;
	}
	if (q->no_assume)
		x->prog->nassumes = 0;
	x->p = x->prog;
	if (rank_classes(job, r, diag))
		job_analyse(job, r, diag);
	solar_diag_finish(x->diag);
	return r;
}

solar_result *solar_job_run(const solar_job *job) { return job_run(job, true, NULL); }

solar_result *solar_job_run_with(const solar_job *job, solar_diag *diag)
{
	return job_run(job, false, diag);
}

void solar_result_free(solar_result *r)
{
	if (!r)
		return;
	struct solar_result_detail *x = r->detail;
	solar_bounds_free(&x->bounds);
	solar_step_free(&x->step);
	solar_system_free(x->sys);
	solar_work_free(x->work);
	solar_device_free(x->dev);
	if (x->own_program) {
		solar_program_free(x->prog);
		solar_diag_free(x->diag);
	}
	if (x->own_tool)
		solar_diag_free(x->tool);
	free(x->src);
	solar_arena_free(x->arena);
	free(x);
	free(r);
}

const solar_program *solar_result_program(const solar_result *r)
{
	return r->detail->p;
}

solar_diag *solar_result_diag(const solar_result *r)
{
	return r->detail->d;
}

const solar_work *solar_result_work(const solar_result *r)
{
	return r->detail->work;
}

const solar_device *solar_result_device(const solar_result *r)
{
	return r->detail->dev;
}

const solar_system *solar_result_system(const solar_result *r)
{
	return r->detail->sys;
}

const solar_bounds *solar_result_bounds(const solar_result *r)
{
	return r->detail->have_bounds ? &r->detail->bounds : NULL;
}

