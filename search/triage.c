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

typedef solar_triage_point point; /* r = log(measured / bound) and its class */

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

/* ---- ACI in one pass ---------------------------------------------------------------------
 *
 * The rule (docs/triage.md "Adaptive"): point i is predicted by conformal() over points 0..i-1
 * at the current alpha, with the class key of point i.  Refitting every prefix is O(n^2 log n)
 * (10k points 2.3 s, 40k 38 s, 500k hours).  solar_triage_aci computes the same numbers from
 * structures that grow by one point, for this reason, step by step:
 *
 * - At each level, in_class is an equality (of the kind; the limiter; at level 0 a non-NULL op
 *   class), so the points of i's class among the first i are the earlier points of i's group,
 *   and the j-th point of a group (0-based, history order) is a fit point when j is even in
 *   every prefix that holds it.  So conformal()'s fit and calibration multisets at a level are
 *   those of the group's points before i, and total, m and idx (the group's count and alpha)
 *   are the same: the same level qualifies first.
 * - The centre: median() sorts the fit values and takes v[n/2] (n odd) or 0.5 * (v[n/2 - 1] +
 *   v[n/2]).  An order-statistic set (a Fenwick tree of counts over the group's values, sorted
 *   once: every value is known before the replay) gives the same order statistics, combined
 *   by the same expression: the same double.
 * - q: conformal() sorts the scores fabs(x - c) of the calibration values x and takes the
 *   idx-th smallest.  For x >= c, fl(x - c) does not decrease as x grows (rounding is
 *   monotone); for x < c, fabs(fl(x - c)) = fl(c - x) does not increase as x grows.  So the
 *   scores of the values at or above c, by increasing x, and of those below c, by decreasing
 *   x, are two sorted sequences, and the idx-th smallest of their union, found by a binary
 *   search over how many come from each (kth_score), is the idx-th smallest score: the same
 *   double, ties or not.
 * - The miss test and the update of alpha are the same expressions on the same doubles.
 * So alpha and the step count are the same bit for bit (tests/unit/test_triage.c replays the
 * prefix refit on random histories with ties and compares).  Cost: three sorts, then
 * O(log^2 n) per point (the selections of the binary search): n log^2 n in all.
 */

typedef struct {
	int off, n; /* the set's slots in the level's vals[] and tree[] */
} oset;

typedef struct {
	int *group;   /* per point: its group at this level, -1: none (no op class at level 0) */
	int *slot;    /* per point: its slot in its group's fit or calibration set */
	int *count;   /* per group: points inserted so far */
	oset *set;    /* per group g: set[2g] the fit points, set[2g + 1] the calibration ones */
	double *vals; /* each set's values, sorted, one slot per point */
	int *tree;    /* each set's Fenwick tree of counts (1-based: slot k at tree[off + k - 1]) */
} aci_level;

typedef struct {
	const point *pt;
	int i, level;
} key_item;

static int key_diff(const point *p, const point *q, int level)
{
	if (p->kind != q->kind)
		return p->kind < q->kind ? -1 : 1;
	int c = level < 2 ? strcmp(p->limiter, q->limiter) : 0;
	return c || level ? c : strcmp(p->cls, q->cls);
}

/* By class key, then history order: a group's points are contiguous and in order. */
static int key_cmp(const void *a, const void *b)
{
	const key_item *x = a, *y = b;
	int c = key_diff(x->pt, y->pt, x->level);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

typedef struct {
	double r;
	int set, i;
} val_item;

static int val_cmp(const void *a, const void *b)
{
	const val_item *x = a, *y = b;
	if (x->set != y->set)
		return x->set < y->set ? -1 : 1;
	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The groups of one level and their (empty) sets; owns what it allocates (level_free). */
static void level_build(aci_level *lv, const point *pts, int npts, int level)
{
	key_item *it = solar_xcalloc((size_t)npts + 1, sizeof *it);
	int n = 0;
	for (int i = 0; i < npts; i++)
		if (level > 0 || pts[i].cls)
			it[n++] = (key_item){&pts[i], i, level};
	qsort(it, (size_t)n, sizeof *it, key_cmp);
	lv->group = solar_xcalloc((size_t)npts + 1, sizeof *lv->group);
	lv->slot = solar_xcalloc((size_t)npts + 1, sizeof *lv->slot);
	for (int i = 0; i < npts; i++)
		lv->group[i] = -1;
	val_item *vi = solar_xcalloc((size_t)n + 1, sizeof *vi);
	int ngroups = 0;
	for (int k = 0, j = 0; k < n; k++, j++) {
		if (k == 0 || key_diff(it[k - 1].pt, it[k].pt, level)) {
			ngroups++;
			j = 0;
		}
		lv->group[it[k].i] = ngroups - 1;
		vi[k] = (val_item){it[k].pt->r, 2 * (ngroups - 1) + j % 2, it[k].i};
	}
	qsort(vi, (size_t)n, sizeof *vi, val_cmp);
	lv->count = solar_xcalloc((size_t)ngroups + 1, sizeof *lv->count);
	lv->set = solar_xcalloc(2 * (size_t)ngroups + 1, sizeof *lv->set);
	lv->vals = solar_xcalloc((size_t)n + 1, sizeof *lv->vals);
	lv->tree = solar_xcalloc((size_t)n + 1, sizeof *lv->tree);
	for (int k = 0; k < n; k++) {
		oset *s = &lv->set[vi[k].set];
		if (!s->n)
			s->off = k;
		lv->slot[vi[k].i] = s->n++;
		lv->vals[k] = vi[k].r;
	}
	free(vi);
	free(it);
}

static void level_free(aci_level *lv)
{
	free(lv->group);
	free(lv->slot);
	free(lv->count);
	free(lv->set);
	free(lv->vals);
	free(lv->tree);
}

static void set_add(const aci_level *lv, const oset *s, int slot)
{
	for (int k = slot + 1; k <= s->n; k += k & -k)
		lv->tree[s->off + k - 1]++;
}

/* Inserted values in slots below r. */
static int set_prefix(const aci_level *lv, const oset *s, int r)
{
	int n = 0;
	for (int k = r; k > 0; k -= k & -k)
		n += lv->tree[s->off + k - 1];
	return n;
}

/* The t-th smallest inserted value (0-based). */
static double set_select(const aci_level *lv, const oset *s, int t)
{
	int pos = 0, rem = t + 1, step = 1;
	while (2 * step <= s->n)
		step *= 2;
	for (; step; step /= 2)
		if (pos + step <= s->n && lv->tree[s->off + pos + step - 1] < rem) {
			pos += step;
			rem -= lv->tree[s->off + pos - 1];
		}
	return lv->vals[s->off + pos];
}

/* Inserted values below c. */
static int set_below(const aci_level *lv, const oset *s, double c)
{
	int lo = 0, hi = s->n; /* the first slot whose value is >= c */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (lv->vals[s->off + mid] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return set_prefix(lv, s, lo);
}

/* The k-th smallest (1-based) of fabs(x - c) over the size inserted values x of s: the
 * scores below c (L, by decreasing x) and at or above it (R, by increasing x) are sorted, and
 * the k smallest are the first a of L and the first k - a of R for the least a with
 * L[a] >= R[k - a - 1]. */
static double kth_score(const aci_level *lv, const oset *s, int size, double c, int k)
{
	int below = set_below(lv, s, c), above = size - below;
	int lo = k - above > 0 ? k - above : 0, hi = k < below ? k : below;
	while (lo < hi) {
		int a = lo + (hi - lo) / 2, b = k - a;
		if (fabs(set_select(lv, s, below - 1 - a) - c) <
		    fabs(set_select(lv, s, below + b - 1) - c))
			lo = a + 1;
		else
			hi = a;
	}
	int a = lo, b = k - lo;
	double la = a > 0 ? fabs(set_select(lv, s, below - a) - c) : -1;
	double rb = b > 0 ? fabs(set_select(lv, s, below + b - 1) - c) : -1;
	return la > rb ? la : rb;
}

/* conformal() over the points inserted so far, for a point of group g at each level. */
static bool aci_fit(const aci_level *lv, const int *g, double alpha, double *center, double *q)
{
	for (int level = 0; level < 3; level++) {
		if (g[level] < 0)
			continue;
		int total = lv[level].count[g[level]];
		if (total < 2 * MIN_CAL)
			continue;
		int m = total / 2, nf = total - m;
		int idx = (int)ceil((m + 1) * (1 - alpha));
		if (idx > m)
			continue;
		const oset *fs = &lv[level].set[2 * g[level]], *cs = fs + 1;
		double c = nf % 2 ? set_select(&lv[level], fs, nf / 2)
				  : 0.5 * (set_select(&lv[level], fs, nf / 2 - 1) +
					   set_select(&lv[level], fs, nf / 2));
		*center = c;
		*q = kth_score(&lv[level], cs, m, c, idx);
		return true;
	}
	return false;
}

double solar_triage_aci(const point *pts, int npts, double alpha0, int *steps)
{
	double alpha = alpha0;
	*steps = 0;
	aci_level lv[3];
	for (int level = 0; level < 3; level++)
		level_build(&lv[level], pts, npts, level);
	for (int i = 0; i < npts; i++) {
		int g[3] = {lv[0].group[i], lv[1].group[i], lv[2].group[i]};
		double c, q;
		if (i > 0 && aci_fit(lv, g, alpha, &c, &q)) {
			int miss = fabs(pts[i].r - c) > q;
			alpha += ACI_GAMMA * (alpha0 - miss);
			alpha = fmin(fmax(alpha, ACI_ALPHA_MIN), ACI_ALPHA_MAX);
			(*steps)++;
		}
		for (int level = 0; level < 3; level++) {
			if (g[level] < 0)
				continue;
			aci_level *l = &lv[level];
			int *n = &l->count[g[level]];
			set_add(l, &l->set[2 * g[level] + *n % 2], l->slot[i]);
			(*n)++;
		}
	}
	for (int level = 0; level < 3; level++)
		level_free(&lv[level]);
	return alpha;
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

/* The slot each distinct history path names: realpath and the comparisons with every
 * candidate run once per path, not once per line (a history repeats its candidates). */
#define MEMO_UNKNOWN (-2)
typedef struct {
	const char **key;
	int *slot;
	size_t mask;
} slot_memo;

static slot_memo memo_new(int n)
{
	size_t cap = 16;
	while (cap < 2 * (size_t)n)
		cap *= 2;
	return (slot_memo){solar_xcalloc(cap, sizeof(const char *)), solar_xcalloc(cap, sizeof(int)),
			   cap - 1};
}

static size_t memo_find(const slot_memo *m, const char *key)
{
	size_t h = 1469598103934665603ull;
	for (const char *s = key; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	for (h &= m->mask; m->key[h] && strcmp(m->key[h], key); h = (h + 1) & m->mask)
		;
	return h;
}

static int memo_slot(const slot_memo *m, const char *key)
{
	size_t h = memo_find(m, key);
	return m->key[h] ? m->slot[h] : MEMO_UNKNOWN;
}

static void memo_set(slot_memo *m, const char *key, int slot)
{
	size_t h = memo_find(m, key);
	m->key[h] = key;
	m->slot[h] = slot;
}

static void memo_free(slot_memo *m)
{
	free(m->key);
	free(m->slot);
}

/* A candidate of some pool, with the realpath its file has (NULL: none): the history and the
 * forecasts name candidates by path. */
typedef struct {
	solar_pool *pool;
	solar_triage_cand *c;
	char *real;
	bool is_ref;
} cand_slot;

/* What the steps of solar_triage_run share: every candidate of every pool (the reference
 * first), the history's learning points in order, and the forecasts' calibration. */
typedef struct {
	cand_slot *all;
	int ns;
	const solar_forecasts *f;
	char **freal; /* per forecast: the realpath of its candidate, or NULL */
	point *pts;   /* the learning points, in history order */
	int *pt_slot; /* per point: the slot of its candidate */
	int npts;
	int nf;	       /* forecasts calibrated against a measurement */
	double fbias;  /* median log(measured / forecast) over them */
	double fsigma; /* and its robust spread */
	double alpha;  /* the miscoverage after ACI */
	double *buf;   /* scratch for conformal() */
} triage_state;

/* The slots of every pool's candidates, their bounds assigned first: the history may name a
 * candidate of any pool, and its point is learned against that candidate's bound. */
static void gather_slots(triage_state *st, solar_pool *pools, int npools)
{
	int ntotal = 0;
	for (int k = 0; k < npools; k++)
		ntotal += pools[k].ncand + 1;
	st->all = solar_xcalloc((size_t)ntotal + 1, sizeof *st->all);
	st->ns = 0;
	for (int k = 0; k < npools; k++) {
		assign_bounds(&pools[k], &pools[k].ref); /* its own unfused bound: only an .air's */
		st->all[st->ns++] =
		    (cand_slot){&pools[k], &pools[k].ref, real_or_null(pools[k].ref.file), true};
		for (int i = 0; i < pools[k].ncand; i++) {
			assign_bounds(&pools[k], &pools[k].cand[i]);
			st->all[st->ns++] = (cand_slot){&pools[k], &pools[k].cand[i],
							real_or_null(pools[k].cand[i].file), false};
		}
	}
	const solar_forecasts *f = st->f;
	st->freal = solar_xcalloc((size_t)(f ? f->n : 0) + 1, sizeof *st->freal);
	for (int i = 0; f && i < f->n; i++)
		st->freal[i] = real_or_null(f->f[i].candidate);
}

/* The slot a history path names, or -1: looked up once per distinct path (memo). */
static int history_slot(const triage_state *st, slot_memo *memo, const char *candidate)
{
	int s = memo_slot(memo, candidate);
	if (s != MEMO_UNKNOWN)
		return s;
	char *er = real_or_null(candidate);
	s = -1;
	for (int j = 0; j < st->ns && s < 0; j++)
		if (names_cand(candidate, er, st->all[j].pool, st->all[j].c, st->all[j].real))
			s = j;
	free(er);
	memo_set(memo, candidate, s);
	return s;
}

/* The history matched to the slots: measured times, wrong marks, and the learning points in
 * order; lines of another device or L2 state are counted in pool p's ignored_lines. */
static void match_history(triage_state *st, solar_pool *p, const solar_history *h,
			  const char *device_arg, const solar_device *dev)
{
	st->pts = solar_xcalloc((size_t)h->n + 1, sizeof *st->pts);
	st->pt_slot = solar_xcalloc((size_t)h->n + 1, sizeof *st->pt_slot);
	st->npts = 0;
	slot_memo memo = memo_new(h->n);
	for (int i = 0; i < h->n; i++) {
		const solar_hist_entry *e = &h->e[i];
		if (!same_device(e->device, device_arg, dev) || e->l2_cold != p->l2_cold) {
			p->ignored_lines++;
			continue;
		}
		int s = history_slot(st, &memo, e->candidate);
		if (s < 0)
			continue;
		solar_triage_cand *c = st->all[s].c;
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
		if (!c->op_class && e->op_class && !st->all[s].pool->op_class)
			c->op_class = solar_xstrdup(e->op_class);
		if (c->bound_s > 0) {
			st->pts[st->npts] =
			    (point){log(e->seconds / c->bound_s), c->unfused_s > 0 ? 0 : 1,
				    c->limiter, cand_class(st->all[s].pool, c)};
			st->pt_slot[st->npts++] = s;
		}
	}
	memo_free(&memo);
}

/* A measured time below a true lower bound: the benchmark or the bound is broken, and
 * pruning on that bound would not be safe in this pool. */
static void count_below_sol(solar_pool *p)
{
	for (int i = 0; i <= p->ncand; i++) {
		solar_triage_cand *c = i ? &p->cand[i - 1] : &p->ref;
		if (!c->wrong && c->measured_s > 0 &&
		    c->measured_s < c->prune_bound_s * (1 - BELOW_SOL_SLACK))
			p->below_sol++;
	}
}

/* The forecasts' bias and spread, calibrated on the measured candidates of every pool: a
 * forecast is trusted only as far as it agreed with the measurements. */
static void calibrate_forecasts(triage_state *st)
{
	double *fres = solar_xcalloc((size_t)st->npts + 1, sizeof *fres);
	int nf = 0;
	for (int i = 0; st->f && i < st->npts; i++) {
		cand_slot *sl = &st->all[st->pt_slot[i]];
		if (sl->is_ref || sl->pool->ref_measured_s <= 0)
			continue;
		const solar_forecast *fc =
		    find_forecast(st->f, (const char *const *)st->freal, sl->pool, sl->c, sl->real);
		double cut, var;
		double ms = sl->pool->ref_measured_s / sl->c->prune_bound_s;
		double ft = fc ? forecast_time(fc, sl->pool->ref_measured_s, ms, &cut, &var) : -1;
		if (ft > 0)
			fres[nf++] = log(exp(st->pts[i].r) * sl->c->bound_s / ft);
	}
	st->nf = nf;
	st->fbias = st->fsigma = 0;
	if (nf >= MIN_CAL) {
		st->fbias = median(fres, nf);
		for (int i = 0; i < nf; i++)
			fres[i] = fabs(fres[i] - st->fbias);
		st->fsigma = fmax(1.4826 * median(fres, nf), 0.05);
	}
	free(fres);
}

/* The incumbent: the best correct measured time of the problem, reference included. */
static void choose_incumbent(solar_pool *p)
{
	for (int i = 0; i <= p->ncand; i++) {
		solar_triage_cand *c = i ? &p->cand[i - 1] : &p->ref;
		if (!c->wrong && c->measured_s > 0 && (p->incumbent_s < 0 || c->measured_s < p->incumbent_s)) {
			p->incumbent_s = c->measured_s;
			p->incumbent = c->name;
		}
	}
}

/* Candidate c's interval and predicted time: the conformal fit of its class (or the prior),
 * combined with its forecast, and held above its true lower bound. */
static void predict(const triage_state *st, solar_pool *p, solar_triage_cand *c)
{
	char *creal = real_or_null(c->file);
	class_key k = {c->unfused_s > 0 ? 0 : 1, c->limiter, cand_class(p, c)};
	fit ft = conformal(st->pts, st->npts, &k, st->alpha, st->buf);
	c->class_n = ft.n;
	static const char *const levels[] = {"kind+limiter+op class", "kind+limiter", "kind"};
	if (ft.level < 0)
		snprintf(c->class_used, sizeof c->class_used,
			 "prior (fewer than %d points in every class)", 2 * MIN_CAL);
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
	const solar_forecast *fc =
	    find_forecast(st->f, (const char *const *)st->freal, p, c, creal);
	free(creal);
	if (fc && tref > 0) {
		double cut, var;
		double tf = forecast_time(fc, tref, c->max_speedup, &cut, &var);
		c->forecast_cut = cut;
		if (tf > 0) {
			c->forecast_s = tf * exp(st->fbias);
			double vs =
			    ft.level < 0 ? pow(log(PRIOR_HIGH) / 2, 2) : ft.sigma * ft.sigma;
			double vf =
			    st->nf >= MIN_CAL ? st->fsigma * st->fsigma : var + log(2) * log(2);
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
}

/* Candidate c's decision against the incumbent, and the reason it prints. */
static void decide(const solar_pool *p, solar_triage_cand *c, double alpha)
{
	char t1[32], t2[32], t3[32];
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
			     ? "own unfused"
			     : "problem's cache-aware",
			 fmt_time(t1, sizeof t1, c->prune_bound_s), fmt_time(t2, sizeof t2, inc),
			 p->incumbent);
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
			snprintf(c->reason, sizeof c->reason, "nothing measured yet: predicted %s",
				 fmt_time(t1, sizeof t1, c->predicted_s));
		else
			snprintf(c->reason, sizeof c->reason,
				 "%s: its interval [%s, %s] %s the best measured %s",
				 c->hi_s < inc ? "likely a new best" : "may be a new best",
				 fmt_time(t1, sizeof t1, c->lo_s), fmt_time(t2, sizeof t2, c->hi_s),
				 c->hi_s < inc ? "is below" : "straddles",
				 fmt_time(t3, sizeof t3, inc));
	}
}

/* The ranks (rank_cmp's order, wrong candidates unranked) and the plan: the first `budget`
 * candidates to measure. */
static void rank_and_plan(solar_pool *p)
{
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
}

void solar_triage_run(solar_pool *pools, int npools, int current, const solar_history *h,
		      const solar_forecasts *f, const char *device_arg, const solar_device *dev)
{
	solar_pool *p = &pools[current];
	/* --trust-translation: the translation of eager code (one AIR kernel per eager kernel) is
	 * taken as the candidate's own structure, so its unfused bound may prune (docs/triage.md)
	 */
	for (int i = 0; p->trust_translation && i < p->ncand; i++)
		if (p->cand[i].source == SOLAR_CAND_TRANSLATED)
			p->cand[i].own_structure = true;
	triage_state st = {.f = f};
	gather_slots(&st, pools, npools);
	match_history(&st, p, h, device_arg, dev);
	p->calib_points = st.npts;
	for (int k = 0; k < npools; k++)
		pools[k].ref_measured_s = pools[k].ref.measured_s;
	count_below_sol(p);

	/* ACI over the history in order */
	st.buf = solar_xcalloc(2 * (size_t)st.npts + 2, sizeof *st.buf);
	st.alpha = solar_triage_aci(st.pts, st.npts, 1 - p->coverage, &p->aci_steps);
	p->alpha_eff = st.alpha;

	calibrate_forecasts(&st);
	p->forecast_calib = st.nf;
	p->forecast_bias = st.fbias;
	choose_incumbent(p);
	for (int i = 0; i < p->ncand; i++) {
		predict(&st, p, &p->cand[i]);
		decide(p, &p->cand[i], st.alpha);
	}
	rank_and_plan(p);

	free(st.buf);
	free(st.pts);
	free(st.pt_slot);
	for (int i = 0; f && i < f->n; i++)
		free(st.freal[i]);
	free(st.freal);
	for (int i = 0; i < st.ns; i++)
		free(st.all[i].real);
	free(st.all);
}
