/* triage.c - the method of `solar triage`: bounds, learned efficiency, conformal intervals,
 * decisions and the measurement plan (docs/triage.md).
 *
 * Inputs: the pools (the one triaged and the ones the history's other measurements belong
 * to), each candidate's bounds (pool.c), the history and optional forecasts.  The one idea:
 * a candidate's time is its bound divided by an efficiency, and solar knows the bound exactly,
 * so what must be learned is only the efficiency, per class (kind of bound, limiting resource,
 * op class), in log space: r = log(measured / bound).  Split-conformal quantiles of |r -
 * median| give intervals at the stated coverage; adaptive conformal inference (ACI, Gibbs &
 * Candes 2021) replays the history in order and moves alpha where the intervals missed.  The
 * interval's low end is never below the candidate's own true lower bound, so "skip" and
 * "prune" compare with the incumbent on the same footing; prune uses the true bound alone.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "search/triage.h"

#define ACI_GAMMA 0.05          /* ACI step: alpha += gamma * (alpha0 - miss) */
#define ACI_ALPHA_MIN 0.01
#define ACI_ALPHA_MAX 0.5
#define MIN_CAL 4               /* calibration points a class needs (and fit points as many) */
#define PRIOR_EFFICIENCY 3.0    /* prior: predicted = bound * 3 */
#define PRIOR_HIGH 50.0         /* prior interval: [true bound, bound * 50] */
#define BELOW_SOL_SLACK 1e-6

/* Times in reasons are in milliseconds, like the history's "ms": "0.0123 ms". */
static const char *fmt_time(char *buf, size_t n, double s)
{
	snprintf(buf, n, "%.3g ms", s * 1e3);
	return buf;
}

const char *solar_decision_name(solar_decision d)
{
	static const char *const names[] = {"measure", "skip", "prune", "measured", "wrong"};
	return names[d];
}

/* "h200-sxm" for "devices/h200-sxm.json", "h200-sxm.json", "h200-sxm". */
static void device_key(char *out, size_t n, const char *s)
{
	const char *b = strrchr(s, '/');
	b = b ? b + 1 : s;
	snprintf(out, n, "%s", b);
	size_t l = strlen(out);
	if (l > 5 && !strcmp(out + l - 5, ".json"))
		out[l - 5] = '\0';
}

static bool same_device(const char *line_dev, const char *device_arg, const solar_device *dev)
{
	char a[256], b[256];
	device_key(a, sizeof a, line_dev);
	device_key(b, sizeof b, device_arg);
	return !strcmp(a, b) || (dev->name && !strcasecmp(line_dev, dev->name));
}

typedef struct {
	char *real; /* realpath of the candidate's file, or NULL */
} cand_path;

/* Does the history's path name candidate c of pool p?  The same file (realpath), or the same
 * "POOL/NAME" tail (a history written in another folder). */
static bool names_cand(const char *hist, const char *hist_real, const solar_pool *p,
		       const solar_triage_cand *c, const char *c_real)
{
	if (hist_real && c_real && !strcmp(hist_real, c_real))
		return true;
	if (!strcmp(hist, c->file))
		return true;
	char tail[2048];
	snprintf(tail, sizeof tail, "%s/%s", p->name, c->name);
	size_t n = strlen(hist), m = strlen(tail);
	return n >= m && !strcmp(hist + n - m, tail) && (n == m || hist[n - m - 1] == '/');
}

typedef struct {
	double r;          /* log(measured / bound) */
	int kind;          /* 0: own unfused bound, 1: the problem's bound */
	const char *limiter;
	const char *cls;
} point;

typedef struct {
	int kind;
	const char *limiter, *cls;
} class_key;

static const char *class_name(int kind)
{
	return kind ? "problem-cache-aware" : "unfused";
}

static bool in_class(const point *pt, const class_key *k, int level)
{
	switch (level) {
	case 0:
		return pt->kind == k->kind && !strcmp(pt->limiter, k->limiter) && k->cls && pt->cls &&
		       !strcmp(pt->cls, k->cls);
	case 1:
		return pt->kind == k->kind && !strcmp(pt->limiter, k->limiter);
	default:
		return pt->kind == k->kind;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
	int level;        /* class level used, -1: the prior */
	int n;            /* points of that class */
	double center, q; /* in log space */
	double sigma;     /* robust spread of the calibration scores, for combining forecasts */
} fit;

/* Split-conformal fit over the first npts points for key k at miscoverage alpha: the first
 * class level (finest first; the coarsest is the pooled kind of bound, never all points, so a
 * kind never measured gets the prior) with MIN_CAL fit and calibration points whose quantile index
 * ceil((m+1)(1-alpha)) is at most m.  Points alternate fit, calibration in history order. */
static fit conformal(const point *pts, int npts, const class_key *k, double alpha, double *buf)
{
	for (int level = 0; level < 3; level++) {
		int nf = 0, nc = 0, total = 0;
		for (int i = 0; i < npts; i++)
			if (in_class(&pts[i], k, level))
				total++;
		if (total < 2 * MIN_CAL)
			continue;
		int m = total / 2;
		int idx = (int)ceil((m + 1) * (1 - alpha));
		if (idx > m)
			continue;
		double *fitv = buf, *cal = buf + npts;
		int j = 0;
		for (int i = 0; i < npts; i++)
			if (in_class(&pts[i], k, level)) {
				if (j++ % 2 == 0)
					fitv[nf++] = pts[i].r;
				else
					cal[nc++] = pts[i].r;
			}
		double c = median(fitv, nf);
		for (int i = 0; i < nc; i++)
			cal[i] = fabs(cal[i] - c);
		qsort(cal, (size_t)nc, sizeof *cal, cmp_double);
		double sigma = 1.4826 * median(cal, nc);
		return (fit){level, total, c, cal[idx - 1], sigma > 0 ? sigma : 0.05};
	}
	return (fit){-1, 0, log(PRIOR_EFFICIENCY), 0, log(PRIOR_HIGH)};
}

/* The bound a candidate's prediction scales and the largest true lower bound for it. */
static void assign_bounds(solar_pool *p, solar_triage_cand *c)
{
	double problem = fmax(p->ref.fused_s, p->ref.cache_aware_s);
	if (c->unfused_s > 0) {
		c->bound_s = c->unfused_s;
		c->bound_kind = "unfused";
	} else {
		c->bound_s = problem;
		c->bound_kind = "problem-cache-aware";
		if (c != &p->ref) /* the reference's own: no copy onto itself (overlap is UB) */
			snprintf(c->limiter, sizeof c->limiter, "%s", p->ref.limiter);
	}
	c->prune_bound_s = problem;
	if (c->own_structure && c->unfused_s > problem)
		c->prune_bound_s = c->unfused_s;
}

static const char *cand_class(const solar_pool *p, const solar_triage_cand *c)
{
	return c->op_class ? c->op_class : p->op_class;
}

/* The forecast's time: t_ref / exp(E[log speedup]) after the cut at SOL.  Bins whose low edge
 * is at or above the largest speedup physics allows get 0; a bin straddling it keeps its
 * mass, with its representative speedup capped there.  Sets *cut to the mass removed. */
static double forecast_time(const solar_forecast *f, double t_ref, double max_speedup,
			    double *cut, double *var)
{
	double mass = 0, e = 0, e2 = 0;
	*cut = 0;
	for (int i = 0; i < f->nbins; i++) {
		double lo = f->edge[i], hi = f->edge[i + 1];
		if (max_speedup > 0 && lo >= max_speedup) {
			*cut += f->p[i];
			continue;
		}
		double mid = lo <= 0 ? hi / sqrt(2) : isinf(hi) ? lo * sqrt(2) : sqrt(lo * hi);
		if (max_speedup > 0 && mid > max_speedup)
			mid = max_speedup;
		mass += f->p[i];
		e += f->p[i] * log(mid);
		e2 += f->p[i] * log(mid) * log(mid);
	}
	if (mass <= 0)
		return -1;
	e /= mass;
	*var = fmax(e2 / mass - e * e, 0);
	return t_ref / exp(e);
}

static const solar_forecast *find_forecast(const solar_forecasts *f, const char *const *freal,
					   const solar_pool *p, const solar_triage_cand *c,
					   const char *c_real)
{
	for (int i = 0; f && i < f->n; i++)
		if (names_cand(f->f[i].candidate, freal[i], p, c, c_real))
			return &f->f[i];
	return NULL;
}

typedef struct {
	solar_triage_cand *c;
} rank_item;

static int rank_cmp(const void *a, const void *b)
{
	const solar_triage_cand *x = ((const rank_item *)a)->c, *y = ((const rank_item *)b)->c;
	/* measure first, then skip, prune, measured, wrong; inside, by predicted time */
	if (x->decision != y->decision)
		return (int)x->decision - (int)y->decision;
	double u = x->decision == SOLAR_DECIDE_MEASURED ? x->measured_s : x->predicted_s;
	double v = y->decision == SOLAR_DECIDE_MEASURED ? y->measured_s : y->predicted_s;
	if (u != v)
		return u < v ? -1 : 1;
	if (x->lo_s != y->lo_s)
		return x->lo_s < y->lo_s ? -1 : 1;
	return strcmp(x->name, y->name);
}

static char *real_or_null(const char *path)
{
	return realpath(path, NULL);
}

void solar_triage_run(solar_pool *pools, int npools, int current, const solar_history *h,
		      const solar_forecasts *f, const char *device_arg, const solar_device *dev)
{
	solar_pool *p = &pools[current];
	double alpha0 = 1 - p->coverage;
	/* --trust-translation: the translation of eager code (one AIR kernel per eager kernel) is
	 * taken as the candidate's own structure, so its unfused bound may prune (docs/triage.md) */
	for (int i = 0; p->trust_translation && i < p->ncand; i++)
		if (p->cand[i].source == SOLAR_CAND_TRANSLATED)
			p->cand[i].own_structure = true;
	/* every candidate of every pool, the reference first: (pool, cand, realpath) */
	int ntotal = 0;
	for (int k = 0; k < npools; k++)
		ntotal += pools[k].ncand + 1;
	struct slot {
		solar_pool *pool;
		solar_triage_cand *c;
		char *real;
		bool is_ref;
	} *all = solar_xcalloc((size_t)ntotal + 1, sizeof *all);
	int ns = 0;
	for (int k = 0; k < npools; k++) {
		assign_bounds(&pools[k], &pools[k].ref); /* its own unfused bound: only an .air's */
		all[ns++] = (struct slot){&pools[k], &pools[k].ref, real_or_null(pools[k].ref.file), true};
		for (int i = 0; i < pools[k].ncand; i++) {
			assign_bounds(&pools[k], &pools[k].cand[i]);
			all[ns++] = (struct slot){&pools[k], &pools[k].cand[i],
						  real_or_null(pools[k].cand[i].file), false};
		}
	}
	char **freal = solar_xcalloc((size_t)(f ? f->n : 0) + 1, sizeof *freal);
	for (int i = 0; f && i < f->n; i++)
		freal[i] = real_or_null(f->f[i].candidate);

	/* match the history: measured times, wrong marks, the learning points in order */
	point *pts = solar_xcalloc((size_t)h->n + 1, sizeof *pts);
	int *pt_slot = solar_xcalloc((size_t)h->n + 1, sizeof *pt_slot);
	int npts = 0;
	for (int i = 0; i < h->n; i++) {
		const solar_hist_entry *e = &h->e[i];
		if (!same_device(e->device, device_arg, dev) || e->l2_cold != p->l2_cold) {
			p->ignored_lines++;
			continue;
		}
		char *er = real_or_null(e->candidate);
		int s = -1;
		for (int j = 0; j < ns && s < 0; j++)
			if (names_cand(e->candidate, er, all[j].pool, all[j].c, all[j].real))
				s = j;
		free(er);
		if (s < 0)
			continue;
		solar_triage_cand *c = all[s].c;
		if (!e->correct) {
			if (!c->wrong) {
				char why[160];
				snprintf(why, sizeof why, "history line %d: \"correct\": false", e->line);
				c->wrong = true;
				free(c->wrong_why);
				c->wrong_why = solar_xstrdup(why);
			}
			continue;
		}
		if (c->measured_s < 0 || e->seconds < c->measured_s)
			c->measured_s = e->seconds;
		if (!c->op_class && e->op_class && !all[s].pool->op_class)
			c->op_class = solar_xstrdup(e->op_class);
		if (c->bound_s > 0) {
			pts[npts] = (point){log(e->seconds / c->bound_s), c->unfused_s > 0 ? 0 : 1,
					    c->limiter, cand_class(all[s].pool, c)};
			pt_slot[npts++] = s;
		}
	}
	p->calib_points = npts;
	for (int k = 0; k < npools; k++)
		pools[k].ref_measured_s = pools[k].ref.measured_s;

	/* a measured time below a true lower bound: the benchmark or the bound is broken, and
	 * pruning on that bound would not be safe in this pool */
	for (int i = 0; i <= p->ncand; i++) {
		solar_triage_cand *c = i ? &p->cand[i - 1] : &p->ref;
		if (!c->wrong && c->measured_s > 0 &&
		    c->measured_s < c->prune_bound_s * (1 - BELOW_SOL_SLACK))
			p->below_sol++;
	}

	/* ACI over the history in order */
	double *buf = solar_xcalloc(2 * (size_t)npts + 2, sizeof *buf);
	double alpha = alpha0;
	for (int i = 1; i < npts; i++) {
		class_key k = {pts[i].kind, pts[i].limiter, pts[i].cls};
		fit ft = conformal(pts, i, &k, alpha, buf);
		if (ft.level < 0)
			continue;
		int miss = fabs(pts[i].r - ft.center) > ft.q;
		alpha += ACI_GAMMA * (alpha0 - miss);
		alpha = fmin(fmax(alpha, ACI_ALPHA_MIN), ACI_ALPHA_MAX);
		p->aci_steps++;
	}
	p->alpha_eff = alpha;

	/* forecasts: calibration on the measured candidates of every pool */
	double *fres = solar_xcalloc((size_t)npts + 1, sizeof *fres);
	int nf = 0;
	for (int i = 0; f && i < npts; i++) {
		struct slot *sl = &all[pt_slot[i]];
		if (sl->is_ref || sl->pool->ref_measured_s <= 0)
			continue;
		const solar_forecast *fc = find_forecast(f, (const char *const *)freal, sl->pool,
							 sl->c, sl->real);
		double cut, var;
		double ms = sl->pool->ref_measured_s / sl->c->prune_bound_s;
		double ft = fc ? forecast_time(fc, sl->pool->ref_measured_s, ms, &cut, &var) : -1;
		if (ft > 0)
			fres[nf++] = log(exp(pts[i].r) * sl->c->bound_s / ft);
	}
	double fbias = 0, fsigma = 0;
	if (nf >= MIN_CAL) {
		fbias = median(fres, nf);
		for (int i = 0; i < nf; i++)
			fres[i] = fabs(fres[i] - fbias);
		fsigma = fmax(1.4826 * median(fres, nf), 0.05);
	}
	p->forecast_calib = nf;
	p->forecast_bias = fbias;

	/* the incumbent: the best correct measured time of the problem, reference included */
	for (int i = 0; i <= p->ncand; i++) {
		solar_triage_cand *c = i ? &p->cand[i - 1] : &p->ref;
		if (!c->wrong && c->measured_s > 0 && (p->incumbent_s < 0 || c->measured_s < p->incumbent_s)) {
			p->incumbent_s = c->measured_s;
			p->incumbent = c->name;
		}
	}

	char t1[32], t2[32], t3[32];
	for (int i = 0; i < p->ncand; i++) {
		solar_triage_cand *c = &p->cand[i];
		char *creal = real_or_null(c->file);
		class_key k = {c->unfused_s > 0 ? 0 : 1, c->limiter, cand_class(p, c)};
		fit ft = conformal(pts, npts, &k, alpha, buf);
		c->class_n = ft.n;
		static const char *const levels[] = {"kind+limiter+op class", "kind+limiter",
						     "kind"};
		if (ft.level < 0)
			snprintf(c->class_used, sizeof c->class_used, "prior (fewer than %d points "
								      "in every class)",
				 2 * MIN_CAL);
		else
			snprintf(c->class_used, sizeof c->class_used, "%s: %s", levels[ft.level],
				 class_name(k.kind));
		double center = ft.center;
		if (ft.level < 0) {
			c->lo_s = c->prune_bound_s;
			c->hi_s = c->bound_s * PRIOR_HIGH;
		} else {
			c->lo_s = c->bound_s * exp(center - ft.q);
			c->hi_s = c->bound_s * exp(center + ft.q);
		}
		/* combine with the forecast, calibrated, in log space by inverse variance */
		double tref = p->ref_measured_s;
		c->max_speedup = tref > 0 ? tref / c->prune_bound_s : 0;
		const solar_forecast *fc = find_forecast(f, (const char *const *)freal, p, c, creal);
		free(creal);
		if (fc && tref > 0) {
			double cut, var;
			double tf = forecast_time(fc, tref, c->max_speedup, &cut, &var);
			c->forecast_cut = cut;
			if (tf > 0) {
				c->forecast_s = tf * exp(fbias);
				double vs = ft.level < 0 ? pow(log(PRIOR_HIGH) / 2, 2) : ft.sigma * ft.sigma;
				double vf = nf >= MIN_CAL ? fsigma * fsigma : var + log(2) * log(2);
				double lf = log(c->forecast_s / c->bound_s);
				center = (center / vs + lf / vf) / (1 / vs + 1 / vf);
			}
		}
		c->predicted_s = c->bound_s * exp(center);
		/* physics: nothing below the candidate's true lower bound; opaque candidates (no
		 * bound of their own) may be anywhere down to the problem's bound */
		if (c->source == SOLAR_CAND_OPAQUE || c->lo_s < c->prune_bound_s)
			c->lo_s = c->prune_bound_s;
		c->predicted_s = fmin(fmax(c->predicted_s, c->lo_s), c->hi_s);
		if (c->hi_s < c->lo_s)
			c->hi_s = c->lo_s;

		double inc = p->incumbent_s;
		if (c->wrong) {
			c->decision = SOLAR_DECIDE_WRONG;
			snprintf(c->reason, sizeof c->reason, "wrong (%s): never ranked", c->wrong_why);
		} else if (c->measured_s > 0) {
			c->decision = SOLAR_DECIDE_MEASURED;
			snprintf(c->reason, sizeof c->reason, "measured %s%s",
				 fmt_time(t1, sizeof t1, c->measured_s),
				 c->name == p->incumbent ? " (the incumbent)" : "");
		} else if (inc > 0 && !p->below_sol && c->prune_bound_s >= inc) {
			c->decision = SOLAR_DECIDE_PRUNE;
			snprintf(c->reason, sizeof c->reason,
				 "its %s bound %s is at or above the best measured %s (%s): it "
				 "cannot beat it",
				 c->own_structure && c->prune_bound_s == c->unfused_s
					 ? "own unfused" : "problem's cache-aware",
				 fmt_time(t1, sizeof t1, c->prune_bound_s),
				 fmt_time(t2, sizeof t2, inc), p->incumbent);
		} else if (inc > 0 && c->lo_s > inc) {
			c->decision = SOLAR_DECIDE_SKIP;
			snprintf(c->reason, sizeof c->reason,
				 "confidently slower: its %.0f%% interval starts at %s, above the best "
				 "measured %s (%s)",
				 100 * (1 - alpha), fmt_time(t1, sizeof t1, c->lo_s),
				 fmt_time(t2, sizeof t2, inc), p->incumbent);
		} else {
			c->decision = SOLAR_DECIDE_MEASURE;
			if (inc <= 0)
				snprintf(c->reason, sizeof c->reason,
					 "nothing measured yet: predicted %s",
					 fmt_time(t1, sizeof t1, c->predicted_s));
			else
				snprintf(c->reason, sizeof c->reason,
					 "%s: its interval [%s, %s] %s the best measured %s",
					 c->hi_s < inc ? "likely a new best" : "may be a new best",
					 fmt_time(t1, sizeof t1, c->lo_s),
					 fmt_time(t2, sizeof t2, c->hi_s),
					 c->hi_s < inc ? "is below" : "straddles",
					 fmt_time(t3, sizeof t3, inc));
		}
	}

	/* rank and plan */
	rank_item *items = solar_xcalloc((size_t)p->ncand + 1, sizeof *items);
	for (int i = 0; i < p->ncand; i++)
		items[i].c = &p->cand[i];
	qsort(items, (size_t)p->ncand, sizeof *items, rank_cmp);
	p->plan = solar_xcalloc((size_t)p->ncand + 1, sizeof *p->plan);
	p->nplan = 0;
	int r = 0;
	for (int i = 0; i < p->ncand; i++) {
		solar_triage_cand *c = items[i].c;
		if (c->decision != SOLAR_DECIDE_WRONG)
			c->rank = ++r;
		if (c->decision == SOLAR_DECIDE_MEASURE && p->nplan < p->budget)
			p->plan[p->nplan++] = (int)(c - p->cand);
	}
	free(items);
	free(fres);
	free(buf);
	free(pts);
	free(pt_slot);
	for (int i = 0; f && i < f->n; i++)
		free(freal[i]);
	free(freal);
	for (int i = 0; i < ns; i++)
		free(all[i].real);
	free(all);
}
