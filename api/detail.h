/* detail.h - what a job's result holds beneath its plain fields, for solar's own commands.
 *
 * api/solar.h is the embedder's header; this one is for the commands that print details the
 * plain fields do not carry (the exact counts per tensor, the time of every resource, the
 * statement a segment rule picked) and for those that recompute bounds from one count: it
 * exposes the analysis types (analysis/work.h, roofline/roofline.h) that solar.h keeps out.
 * Everything returned here is owned by the result (SOLAR_KEEP) and lives until
 * solar_result_free.
 */
#ifndef SOLAR_API_DETAIL_H
#define SOLAR_API_DETAIL_H

#include "api/solar.h"
#include "devices/device.h"
#include "frontend/diag.h"
#include "ir/ir.h"
#include "roofline/roofline.h"

/* The program as loaded (NULL when it did not load). */
SOLAR_KEEP const solar_program *solar_result_program(SOLAR_KEEP const solar_result *r);
/* The diagnostics context of the program (NULL when it was not read). */
SOLAR_KEEP solar_diag *solar_result_diag(SOLAR_KEEP const solar_result *r);
/* The exact counts (NULL when counting failed or did not run). */
SOLAR_KEEP const solar_work *solar_result_work(SOLAR_KEEP const solar_result *r);
/* The device with the job's overrides applied (NULL: none, or it failed). */
SOLAR_KEEP const solar_device *solar_result_device(SOLAR_KEEP const solar_result *r);
/* The system --device named, with the job's overrides (NULL: one GPU). */
SOLAR_KEEP const struct solar_system *solar_result_system(SOLAR_KEEP const solar_result *r);
/* The bounds (NULL unless has_bounds). */
SOLAR_KEEP const solar_bounds *solar_result_bounds(SOLAR_KEEP const solar_result *r);

/* solar_job_run, reporting through diag (borrowed; NULL: silent) instead of job->err: for a
 * stage that runs jobs under its own caller's channel (search/bounds.c, search/advise.c). */
SOLAR_GIVE solar_result *solar_job_run_with(SOLAR_KEEP const solar_job *job,
					    SOLAR_KEEP solar_diag *diag);
/* The job on a program already loaded (and diagnosed through d, which also gets the count's
 * errors): both are borrowed and must outlive the result.  job->source and defines are not
 * used; job->file only names the program in the result. */
SOLAR_GIVE solar_result *solar_job_run_program(SOLAR_KEEP const solar_job *job,
					       SOLAR_KEEP const solar_program *p,
					       SOLAR_KEEP solar_diag *d);
/* The same, the device's and the bounds' messages on diag (borrowed; NULL: silent) instead of
 * job->err. */
SOLAR_GIVE solar_result *solar_job_run_program_with(SOLAR_KEEP const solar_job *job,
						    SOLAR_KEEP const solar_program *p,
						    SOLAR_KEEP solar_diag *d,
						    SOLAR_KEEP solar_diag *diag);

/* The device a question asks about, resolved as a job resolves it (api/job.c: q->device_file
 * loaded or q->device copied, every override applied), for a command that needs the device
 * before the program (sweep's --vary, validate, triage).  NULL after messages on diag. */
SOLAR_GIVE solar_device *solar_question_device(SOLAR_KEEP const solar_question *q,
					       solar_diag *diag);
/* The same where the device may name a system: *sys is then the system (its overrides
 * applied, the caller's to free with solar_system_free) and the result a copy of its GPU;
 * NULL for one GPU. */
SOLAR_GIVE solar_device *solar_question_device_on(SOLAR_KEEP const solar_question *q,
						  struct solar_system **sys, solar_diag *diag);

/* Rule "fidelity levels": rate figures (peaks, bandwidths) of status measured. */
int solar_device_measured_rates(SOLAR_KEEP const solar_device *dev);

/* A quantity is a positive number with an optional unit (B, B/s, FLOP/s, OP/s, Hz; prefixes
 * k M G T P and Ki Mi Gi Ti): "16MB", "2TB/s", "8e12"; *unit is the canonical unit, "" when
 * none.  Returns 0, or -1 when s is not one. */
int solar_quantity_parse(const char *s, double *value, const char **unit);
/* A time with a unit ("4.57ms", "120us", "0.002s", "3e-3"): seconds, or -1. */
double solar_quantity_parse_time(const char *s);
/* The one unit-checked setter of a descriptor figure: sets PATH to TEXT (a number, or a
 * quantity whose unit is the path's: "8TB/s" for a bandwidth, "16MiB" for a capacity) with
 * solar_device_set.  Every place that reads a setting goes through it (--set, a manifest's
 * "set").  Messages name the setting as `file: where: ...` (a JSON path of file) or, for a
 * NULL file, `solar: where: ...` ("--set PATH").  Returns 0, or -1 after a message. */
int solar_quantity_set_value(SOLAR_KEEP solar_device *d, const char *path, const char *text,
			     const char *file, const char *where, solar_diag *diag);
/* The same on a system: its own paths (nvlink.*, network.*, latency_s, nodes, gpus_per_node)
 * take a bandwidth in B/s, a time or a whole number (solar_system_set); `gpu.PATH`, or a
 * path only a device has (clock_hz, sm_count, peak.*, memory.*, ...), is a figure of its GPU,
 * set on s->gpu and, where gpu is not NULL, on that copy of it too (a
 * job's device).  Returns 0, or -1 after a message. */
int solar_quantity_set_system(SOLAR_KEEP struct solar_system *s, SOLAR_KEEP solar_device *gpu,
			      const char *path, const char *text, const char *file,
			      const char *where, solar_diag *diag);

#endif
