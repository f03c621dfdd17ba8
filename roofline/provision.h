/* provision.h - the inverse roofline: what a device must have for a program to meet a time.
 *
 * A knob is one device resource (DRAM bandwidth, a datapath peak, the L2 capacity, ...) made of
 * one or more descriptor figures that scale together by one factor.  Provisioning asks, for
 * each knob alone, the smallest factor at which a bound meets a target time, and, when no knob
 * alone can, which knobs must scale together and by how much.  Every answer comes from exact
 * recomputation (solar_device_set, then solar_bounds_compute) and bisection on the factor, never
 * from a formula that restates the bounds: the unfused bound is a sum of per-kernel maxima and
 * capacity acts through the warm-L2 allowance and the segment rules, so neither is linear in a
 * factor.  Docs: docs/provision.md.
 */
#ifndef SOLAR_PROVISION_H
#define SOLAR_PROVISION_H

#include <stdbool.h>
#include <stdio.h>

#include "roofline.h"
#include "step.h"
#include "devices/system.h"

typedef enum {
	SOLAR_BOUND_UNFUSED,
	SOLAR_BOUND_CACHE_AWARE,
	SOLAR_BOUND_FUSED,
	SOLAR_BOUND_COUNT
} solar_bound_kind;

/* "unfused", "cache_aware", "fused" (JSON keys). */
const char *solar_bound_key(solar_bound_kind k);
/* "unfused", "cache-aware", "fused"; parse accepts both spellings, -1 if unknown. */
const char *solar_bound_name(solar_bound_kind k);
int solar_bound_parse(const char *s);
SOLAR_KEEP const solar_roof *solar_bound_roof(SOLAR_KEEP const solar_bounds *b, solar_bound_kind k);

#define SOLAR_KNOB_MAX_FIGURES (2 * SOLAR_UNIT_COUNT * SOLAR_PREC_COUNT + 2)

typedef enum { SOLAR_KNOB_RATE, SOLAR_KNOB_CAPACITY } solar_knob_kind;

/* One resource: figures (solar_device_set paths, or solar_system_set paths for a system's
 * knob) that a factor scales together. */
typedef struct {
	char name[40];  /* "dram_bw", "l2_bw", "l2", "smem", "regs", "onchip", "clock",
			   "peak.tensor.bf16"; a system's: "nvlink_bw", "network_bw" */
	char label[48]; /* "DRAM bandwidth", "L2 capacity", "tensor.bf16 peak" */
	const char *unit; /* "B/s", "B", "FLOP/s", "OP/s", "Hz" */
	solar_knob_kind kind;
	int resource;    /* the solar_roof resource a rate knob feeds, or -1 */
	double headline; /* value shown for factor 1 (a sum for "onchip") */
	int nfig;
	char path[SOLAR_KNOB_MAX_FIGURES][40];
	double base[SOLAR_KNOB_MAX_FIGURES]; /* each figure at factor 1 */
	bool system;     /* the figures are the system's, not its GPU's */
} solar_knob;

/* What a bound is computed on: one GPU (sys NULL), or the system a program with a mesh runs
 * on, every rank one of its GPUs (dev, a copy of sys->gpu with the same figures): the bounds
 * of docs/bounds.md "Programs on many GPUs" (solar_step_apply), p the program. */
typedef struct {
	solar_device *dev;
	solar_system *sys;
	const solar_program *p;
} solar_machine;

/* Fills k for the knob called name on device d (names in docs/provision.md).  Returns 0, or
 * -1 after a message on diag (unknown name, a figure the descriptor lacks). */
int solar_knob_init(solar_knob *k, SOLAR_KEEP const solar_device *d, const char *name,
		    solar_diag *diag);
/* The same for a system's knob ("nvlink_bw": NVLink bandwidth per GPU and direction;
 * "network_bw": network bandwidth per GPU and direction), or a GPU's when sys is NULL or the
 * name is not a system's. */
int solar_knob_init_on(solar_knob *k, SOLAR_KEEP const solar_device *d,
		       SOLAR_KEEP const solar_system *sys, const char *name, solar_diag *diag);
/* Sets every figure of k to base x factor on d (which must be the device k was made from, or a
 * clone of it).  Returns 0, or -1 after a message on diag. */
int solar_knob_apply(SOLAR_KEEP const solar_knob *k, SOLAR_KEEP solar_device *d, double factor,
		     solar_diag *diag);
/* The same on a machine: a system's knob on m->sys, a GPU's on m->dev and on every GPU of
 * m->sys. */
int solar_knob_apply_on(SOLAR_KEEP const solar_knob *k, solar_machine *m, double factor,
			solar_diag *diag);
/* The knobs provisioning studies by default: DRAM bandwidth, L2 bandwidth when the device has
 * one, the peak of every datapath the program uses, L2 capacity and the whole on-chip capacity
 * (L2 + shared memory + registers) when the device gives them.  *out is malloc'd. */
int solar_knobs_default(SOLAR_KEEP const solar_work *w, SOLAR_KEEP const solar_device *d,
			SOLAR_GIVE solar_knob **out);
/* The same, and on a system the bandwidths its collectives use: NVLink, and the network when
 * the system has more than one node. */
int solar_knobs_default_on(SOLAR_KEEP const solar_work *w, SOLAR_KEEP const solar_device *d,
			   SOLAR_KEEP const solar_system *sys, SOLAR_GIVE solar_knob **out);

/* One bound of the program on d from an L2 in the state l2_cold says; -1 after a message on
 * diag. */
double solar_bound_time(SOLAR_KEEP const solar_work *w, SOLAR_KEEP const solar_device *d,
			bool l2_cold, solar_bound_kind k, int *limiter, solar_diag *diag);
/* The bounds of the counts on a machine (for a system: the step's, solar_step_apply), in *b
(free it with solar_bounds_free).  Returns 0, or -1 after a message on diag. */
int solar_machine_bounds(SOLAR_KEEP const solar_work *w, SOLAR_KEEP const solar_machine *m,
			 bool l2_cold, solar_bounds *b, solar_diag *diag);
/* One of them (for a system: the step's bound, solar_step_apply). */
double solar_bound_time_on(SOLAR_KEEP const solar_work *w, SOLAR_KEEP const solar_machine *m,
			   bool l2_cold, solar_bound_kind k, int *limiter, solar_diag *diag);

/* Factors beyond these count as "unbounded": a knob that cannot meet the target at x1e9 never
 * will; one that still meets it at x1e-9 does not limit the bound. */
#define SOLAR_PROVISION_FACTOR_MAX 1e9
#define SOLAR_PROVISION_FACTOR_MIN 1e-9

typedef struct {
	double factor;    /* smallest factor meeting the target (<= 1: it already does, with room);
			     0 when any factor >= SOLAR_PROVISION_FACTOR_MIN meets it;
			     infinity when no factor <= SOLAR_PROVISION_FACTOR_MAX does */
	double floor_s;   /* the bound with this knob at SOLAR_PROVISION_FACTOR_MAX */
	int floor_limiter; /* what limits the bound then */
	double own;       /* rate knobs: the smallest factor with every OTHER rate unlimited, the
			     resource's own need (<= 1: it already suffices); NAN for capacities */
} solar_provision_knob;

typedef struct {
	solar_bound_kind bound;
	double target_s;
	double time_s;     /* the bound on the device as given */
	int limiter;
	int binding;       /* index of the knob of the limiting resource, or -1 */
	int nknobs;
	const solar_knob *knobs;     /* not owned */
	solar_provision_knob *knob;  /* per knob: scaled alone */
	bool single;       /* some knob alone meets the target */
	/* When no knob alone does: the rate knobs that must scale together and their factors
	 * (each knob's own need with every other rate unlimited, then one common multiplier until
	 * the bound meets the target; capacities stay as given). */
	int njoint;
	int *joint;        /* knob indices */
	double *joint_factor;
	bool joint_ok;     /* the joint scaling meets the target */
} solar_provision;

/* Computes the provisioning of bound k for target_s over the given knobs, working on a clone of
 * dev (and of sys, running p, for a program with a mesh; sys NULL for one GPU), the L2 in the
 * state l2_cold says.  Returns 0, or -1 after a message on diag. */
int solar_provision_compute(SOLAR_KEEP const solar_work *w, SOLAR_KEEP const solar_device *dev,
			    SOLAR_KEEP const solar_system *sys, SOLAR_KEEP const solar_program *p,
			    bool l2_cold, SOLAR_KEEP const solar_knob *knobs, int nknobs,
			    solar_bound_kind k, double target_s, solar_provision *out,
			    solar_diag *diag);
void solar_provision_free(solar_provision *p);

#endif
