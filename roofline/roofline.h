/* roofline.h - the three speed-of-light bounds of a program on a device.
 *
 * Every bound is a time no execution of the program can beat on the device: the maximum over
 * resources (each datapath: ops / peak; each memory level: bytes / bandwidth) of the time that
 * resource alone needs, perfect overlap assumed.  They differ in the traffic they charge
 * (docs/bounds.md): unfused (each kernel alone), fused (compulsory traffic of the whole program)
 * and cache-aware (fused, with the segment rules for a finite on-chip capacity).
 */
#ifndef SOLAR_ROOFLINE_H
#define SOLAR_ROOFLINE_H

#include <stdio.h>

#include "analysis/work.h"
#include "devices/device.h"

typedef enum {
	SOLAR_RES_DRAM,
	SOLAR_RES_L2,
	SOLAR_RES_LINKS,   /* a rank's NVLink and network ports (collectives, roofline/step.h) */
	SOLAR_RES_NETWORK, /* a node's network (collectives across nodes) */
	SOLAR_RES_OPS /* + unit * SOLAR_PREC_COUNT + prec */
} solar_resource_base;

#define SOLAR_RES_COUNT (SOLAR_RES_OPS + SOLAR_UNIT_COUNT * SOLAR_PREC_COUNT)

typedef struct {
	double time_s;
	int limiter;                     /* resource index */
	double res_s[SOLAR_RES_COUNT];   /* time each resource alone needs */
	double dram_bytes, l2_bytes;     /* traffic charged at each level */
	double ops;                      /* all operations */
	double emulated_ops;             /* rule "f32 emulation": strict f32 multiply-accumulate
					    ops charged to tensor.f32 instead of simt.f32 */
} solar_roof;

typedef struct {
	int nkernels;
	solar_roof *kernel;              /* unfused, per kernel */
	solar_roof unfused, fused, cache_aware;
	double l2_carry_bytes;           /* capacity that may survive between launches */
	bool l2_cold;                    /* rule "L2 state": as asked (--l2 cold) */
	double compulsory_bytes;         /* fused loads + stores before the warm-L2 allowance */
	double live_bytes;               /* least data the device holds at one moment: all inputs
					    at the start or all outputs at the end (the job reports
					    rule "memory, least", analysis/memory.h, never less) */
	double dram_capacity_bytes;      /* the descriptor's DRAM capacity; 0 if unknown */
	double placed_bytes;             /* DRAM bytes the unfused row adds to the kernel sum
					    (rule "one L2 for all kernels") */
	double capacity_dram_bytes;      /* S for DRAM traffic (l2 + smem + regs); 0 if unknown */
	double capacity_l2_bytes;        /* S for L2 traffic (smem + regs); 0 if unknown */
	int cache_rule_stmt;             /* statement whose segment rule set the DRAM traffic, or -1 */
	int nstages;                     /* AIR 1.2 pipelines: the pipeline axis's stages (0: none) */
	solar_roof *stage;               /* per stage: rule "fused pipeline" before communication:
					    its M micro-batches' and its optimizer's ops, its own
					    tensors' compulsory traffic */
	bool missing_peak;               /* some work had no peak and used the fastest one */
	bool f32_emulation;              /* some scope split its strict f32 multiply-accumulates
					    between simt.f32 and tensor.f32 (rule "f32 emulation") */
} solar_bounds;

/* Computes all bounds on dev from an L2 in the state l2_cold says (rule "L2 state": false
 * warm, true flushed before the run; the question's, not the device's).  Returns 0; -1 after
 * a message on diag (the device lacks DRAM figures); -2 after a message when a time overflows
 * a double (the program's counts are too large). */
int solar_bounds_compute(SOLAR_KEEP const solar_work *w, SOLAR_KEEP const solar_device *dev,
			 bool l2_cold, solar_bounds *out, solar_diag *diag);
void solar_bounds_free(solar_bounds *b);

/* AIR 1.2 pipelines (docs/bounds.md "Pipelines"): whether kernel k runs on stage s's ranks (a
 * kernel of that stage, of every stage, or a send into it), and whether a kernel runs once a
 * step (the group `optimizer`) rather than once per micro-batch. */
bool solar_kernel_on_stage(SOLAR_KEEP const solar_program *p, int k, int s);
bool solar_kernel_runs_once(SOLAR_KEEP const solar_kernel *kn);

/* Sets r's time to its slowest resource's and r's limiter to that resource (DRAM when every
 * resource is zero). */
void solar_roof_finish(solar_roof *r);

/* "dram", "l2", "links", "network", "tensor.bf16", "simt.f32", "sfu.f32" */
const char *solar_resource_name(int res, char *buf, size_t n);

#endif
