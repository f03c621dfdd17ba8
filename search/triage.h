/* triage.h - `solar triage`: rank a pool of candidate kernels under a measurement budget.
 *
 * A pool is one problem (a reference) and its candidates.  Each candidate gets hard facts
 * (lower bounds from its AIR and from the problem's AIR), a predicted time with a conformal
 * interval learned from a history of measurements, and a decision: prune (cannot beat the
 * incumbent: a bound at or above the best measured time), skip (confidently slower), measure.
 * The method and its rules are docs/triage.md; this header is the library side, cli/cmd_triage.c
 * parses options and prints.
 */
#ifndef SOLAR_TRIAGE_H
#define SOLAR_TRIAGE_H

#include <stdbool.h>
#include <stdio.h>

#include "api/solar.h"
#include "devices/device.h"

/* Where a candidate's AIR comes from. */
typedef enum {
	SOLAR_CAND_AIR,        /* an .air file: its own structure (rule "own structure") */
	SOLAR_CAND_TRANSLATED, /* a .py translated by `solar translate` */
	SOLAR_CAND_OPAQUE      /* no AIR (Triton, torch.compile, CUDA): the problem's bounds only */
} solar_cand_source;

typedef enum {
	SOLAR_DECIDE_MEASURE,
	SOLAR_DECIDE_SKIP,
	SOLAR_DECIDE_PRUNE,
	SOLAR_DECIDE_MEASURED, /* already in the history */
	SOLAR_DECIDE_WRONG     /* marked wrong or failed validation: never ranked */
} solar_decision;

/* One line of the history (JSONL): candidate, device, ms, l2, and what else it had. */
typedef struct {
	char *candidate, *device, *op_class, *kind;
	double seconds;     /* "ms" / 1000 */
	bool l2_cold;
	bool correct;       /* "correct": false marks the candidate wrong */
	int line;
} solar_hist_entry;

typedef struct {
	solar_hist_entry *e;
	int n, cap;
} solar_history;

/* One forecast: probabilities over speedup bins of the candidate over the reference. */
#define SOLAR_FORECAST_MAX_BINS 16
typedef struct {
	char *candidate;
	int nbins;
	double p[SOLAR_FORECAST_MAX_BINS];
	double edge[SOLAR_FORECAST_MAX_BINS + 1]; /* speedup edges; edge[nbins] may be INFINITY */
	int line;
} solar_forecast;

typedef struct {
	solar_forecast *f;
	int n, cap;
} solar_forecasts;

/* The default bin edges of a forecast without "bin_edges" (docs/triage.md#forecasts). */
extern const double solar_forecast_default_edges[9];

/* Reads a history (JSONL).  Errors are `FILE:LINE: error: ...` on diag; returns 0, or -1 after
 * them (then *h holds nothing).  A missing or empty file is an empty history when may_be_absent. */
int solar_history_load(const char *file, bool may_be_absent, solar_history *h, solar_diag *diag);
void solar_history_free(solar_history *h);
int solar_forecasts_load(const char *file, solar_forecasts *f, solar_diag *diag);
void solar_forecasts_free(solar_forecasts *f);

/* Appends one line to the history: built whole, written with one write(2) to a file opened
 * O_APPEND, then fsync'd; a failed or short write is truncated back to the old size.  Returns
 * 0, or -1 after a message on diag. */
int solar_history_append(const char *file, const char *candidate, const char *device, double ms,
			 bool l2_cold, bool correct, solar_diag *diag);

/* One candidate of the pool and everything triage says about it. */
typedef struct {
	char *name;       /* file name: cand_x.py */
	char *file;       /* path of the source */
	char *air;        /* AIR analysed: the file, the cached translation, or NULL */
	solar_cand_source source;
	bool own_structure; /* its AIR is its own kernel split: its unfused bound holds for it */
	char *note;       /* why it has no AIR, or other remark; NULL when none */
	char *op_class;   /* from the manifest, else NULL */
	bool wrong;
	char *wrong_why;
	/* bounds on the device, seconds (< 0: none) */
	double unfused_s, fused_s, cache_aware_s;
	char limiter[48]; /* resource of the bound used for prediction: "dram", "tensor.bf16" */
	/* what triage computes */
	double bound_s;   /* the bound the prediction scales: own unfused, else problem's */
	const char *bound_kind; /* "unfused" or "problem-cache-aware" */
	double prune_bound_s; /* the largest true lower bound for THIS candidate */
	double max_speedup;   /* t_ref / prune_bound_s; 0 when t_ref is unknown */
	double measured_s;    /* best correct measurement in the history, < 0 none */
	double predicted_s, lo_s, hi_s;
	char class_used[96];
	int class_n;
	double forecast_s;    /* calibrated forecast, < 0 none */
	double forecast_cut;  /* forecast mass in bins faster than SOL, cut */
	solar_decision decision;
	char reason[320];
	int rank;             /* 1-based among ranked (measure first), 0 when not ranked */
} solar_triage_cand;

/* The pool and the run's settings and results. */
typedef struct {
	char *dir;               /* folder of the pool (or of its manifest) */
	char *name;              /* its folder name */
	solar_triage_cand ref;   /* the reference */
	solar_triage_cand *cand;
	int ncand;
	char *op_class;          /* the pool's op class (manifest "op_class"), else NULL */
	/* settings */
	double coverage;         /* 0.8 */
	bool l2_cold;
	int budget;              /* candidates to plan, already resolved from N or P% */
	bool trust_translation;  /* --trust-translation: a translated .py is its own structure */
	/* results */
	double alpha_eff;        /* ACI's alpha after replaying the history */
	int aci_steps;           /* history points the ACI update ran over */
	double incumbent_s;      /* best correct measured time in the pool, < 0 none */
	const char *incumbent;   /* its name */
	double ref_measured_s;   /* < 0 none */
	int ignored_lines;       /* history lines of another device or L2 mode */
	int below_sol;           /* measured times below a candidate's prune bound */
	int *plan;               /* indexes into cand, in order */
	int nplan;
	int calib_points;        /* history points with a bound used to learn efficiencies */
	int forecast_calib;      /* points that calibrated the forecasts */
	double forecast_bias;    /* median log(measured / forecast) */
} solar_pool;

/* Loads POOL (a folder with ref.* and cand_*, or a JSON manifest).  .py files are translated
 * through `exe translate` into cache_dir, once per content.  Returns 0, or -1 after a message. */
int solar_pool_load(const char *path, const char *exe, const char *cache_dir, solar_pool *p,
		    solar_diag *diag);
void solar_pool_free(solar_pool *p);

/* The folders of the history's candidates other than cur's, loaded as pools with their bounds
 * (the efficiencies are learned against those); a folder that is not a readable pool is left
 * out, quietly.  Returns how many; *out is malloc'd. */
int solar_pool_load_others(SOLAR_KEEP const solar_history *h, SOLAR_KEEP const solar_pool *cur,
			   const char *exe, const char *cache,
			   SOLAR_KEEP const solar_question *question, SOLAR_GIVE solar_pool **out);

/* The largest true lower bound of one candidate that its folder gives, on the question's
 * device in its L2 state, for a record:
 * the problem's max(fused, cache-aware) from the folder's ref.air, raised to the candidate's
 * own unfused bound when it is an .air (or a .py with a cand_x.air beside it); bounds kept in
 * cache (NULL: none).  Sets *bound_name ("the problem's cache-aware bound", "its own unfused
 * bound"); returns the bound in seconds, or -1 when neither can be computed. */
double solar_triage_lower_bound(const char *candidate, SOLAR_KEEP const solar_question *question,
				const char *cache, const char **bound_name);

/* Bounds of every candidate with AIR and of the reference, the question's (its device, loaded,
 * and its L2 state: rule "L2 state"), kept in cache_dir (NULL: none) by a hash of the AIR, the
 * resolved device, the L2 state and solar's version.  Returns 0, or -1 when the reference's bounds
 * cannot be computed. */
int solar_pool_bounds(solar_pool *p, SOLAR_KEEP const solar_question *question,
		      const char *cache_dir, solar_diag *diag);

/* The method (docs/triage.md): matches the history to the pools (pools[current] is the one
 * triaged; the others hold the history's other candidates, whose bounds the efficiencies are
 * learned against), learns efficiencies and intervals, decides and plans pools[current]. */
void solar_triage_run(solar_pool *pools, int npools, int current, const solar_history *h,
		      const solar_forecasts *f, const char *device_arg, const solar_device *dev);

const char *solar_decision_name(solar_decision d);

/* One learning point of the history: r = log(measured / bound) and its class (docs/triage.md
 * "Learning the efficiency"). */
typedef struct {
	double r;
	int kind;            /* 0: the candidate's own unfused bound, 1: the problem's bound */
	const char *limiter; /* the bound's limiting resource, never NULL */
	const char *cls;     /* op class, NULL when none */
} solar_triage_point;

/* Adaptive conformal inference over the points in history order (docs/triage.md "Adaptive"):
 * each point whose class has a qualifying level among the points before it is predicted from
 * them at the current alpha, and alpha moves by its hit or miss.  Returns the final alpha;
 * *steps is the number of points that moved it.  O(n log^2 n) for n points (search/triage.c
 * says why it gives the same alpha as refitting every prefix). */
double solar_triage_aci(SOLAR_KEEP const solar_triage_point *pts, int npts, double alpha0,
			int *steps);

/* The bounds of one AIR file for the question (q->device loaded, in its L2 state), and the
 * resource limiting the unfused one: the one place triage asks for bounds (a job of
 * api/solar.h).  Returns 0, or -1 after
 * diagnostics on diag. */
int solar_search_bounds(const char *air, SOLAR_KEEP const solar_question *q, double *unfused_s,
			double *fused_s, double *cache_aware_s, char *limiter, size_t nlimiter,
			solar_diag *diag);

#endif
