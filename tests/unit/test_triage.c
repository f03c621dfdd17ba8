/* test_triage.c - triage's adaptive conformal replay (search/triage.c, docs/triage.md
 * "Adaptive").
 *
 * solar_triage_aci replays the history once with order-statistic sets instead of refitting
 * split conformal on every prefix.  The oracle is the prefix refit itself, as triage ran it
 * before (conformal() on points 0..i-1, a sort of the fit values and of the scores each time):
 * on random histories with many ties (values drawn from a few levels), several kinds,
 * limiters and op classes, some without an op class, and alphas that hit both clamps, the
 * final alpha must be the same double and the step count the same integer.  Also: a long
 * history that drifts (every point a miss) takes alpha to the upper clamp in one pass.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/triage.h"

#include "check.h"

/* ---- the oracle: the prefix refit of search/triage.c before the one-pass replay ---------- */

static bool in_class(const solar_triage_point *pt, const solar_triage_point *k, int level)
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

static bool refit(const solar_triage_point *pts, int npts, const solar_triage_point *k,
		  double alpha, double *buf, double *center, double *q)
{
	for (int level = 0; level < 3; level++) {
		int nf = 0, nc = 0, total = 0;
		for (int i = 0; i < npts; i++)
			if (in_class(&pts[i], k, level))
				total++;
		if (total < 8)
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
		*center = c;
		*q = cal[idx - 1];
		return true;
	}
	return false;
}

static double oracle(const solar_triage_point *pts, int npts, double alpha0, int *steps)
{
	double *buf = calloc(2 * (size_t)npts + 2, sizeof *buf);
	double alpha = alpha0;
	*steps = 0;
	for (int i = 1; i < npts; i++) {
		double c, q;
		if (!refit(pts, i, &pts[i], alpha, buf, &c, &q))
			continue;
		int miss = fabs(pts[i].r - c) > q;
		alpha += 0.05 * (alpha0 - miss);
		alpha = fmin(fmax(alpha, 0.01), 0.5);
		(*steps)++;
	}
	free(buf);
	return alpha;
}

/* ---- random histories --------------------------------------------------------------------- */

static unsigned long long rng = 88172645463325252ull;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

static const char *const limiters[] = {"dram", "tensor.bf16", "sfu.f32"};
static const char *const classes[] = {"gemm", "norm", NULL};

/* n points: values from `levels` distinct ones (ties) or continuous (levels 0), spread s. */
static void draw(solar_triage_point *pts, int n, int nkinds, int nlim, int levels, double s)
{
	for (int i = 0; i < n; i++) {
		double u = (next() % 100000) / 100000.0;
		double r = levels ? (double)(next() % (unsigned)levels) / levels : u;
		pts[i] = (solar_triage_point){s * (r - 0.3) + (next() % 7 == 0 ? 2.5 : 0),
					      (int)(next() % (unsigned)nkinds),
					      limiters[next() % (unsigned)nlim], classes[next() % 3]};
	}
}

int main(void)
{
	enum { N = 700 };
	static solar_triage_point pts[N];
	static const double alphas[] = {0.2, 0.05, 0.5, 0.1, 0.01};
	int cases = 0;
	for (int trial = 0; trial < 60; trial++) {
		int n = 1 + (int)(next() % N);
		int levels = trial % 3 == 0 ? 0 : 1 + (int)(next() % 12);
		draw(pts, n, 1 + trial % 2, 1 + trial % 3, levels, 0.2 + (next() % 10) / 5.0);
		for (size_t a = 0; a < sizeof alphas / sizeof *alphas; a++) {
			int want_steps, got_steps;
			double want = oracle(pts, n, alphas[a], &want_steps);
			double got = solar_triage_aci(pts, n, alphas[a], &got_steps);
			CHECKF(got == want && got_steps == want_steps,
			       "trial %d (n %d, levels %d, alpha0 %g): alpha %.17g after %d steps, the "
			       "prefix refit %.17g after %d",
			       trial, n, levels, alphas[a], got, got_steps, want, want_steps);
			cases += want_steps > 0;
		}
	}
	CHECKF(cases > 200, "only %d cases moved alpha: the histories test nothing", cases);

	/* no point, one point, seven: nothing qualifies */
	int steps = -1;
	CHECK(solar_triage_aci(pts, 0, 0.2, &steps) == 0.2 && steps == 0);
	CHECK(solar_triage_aci(pts, 7, 0.2, &steps) == 0.2 && steps == 0);

	/* a drifting history: one class whose values grow faster and faster, so every point is a
	 * miss: alpha falls 0.05 x 0.8 a step (wider intervals) to the clamp at 0.01, and from
	 * m >= 99 calibration points every point is a step; one pass over 200k points */
	enum { BIG = 200000 };
	solar_triage_point *big = calloc(BIG, sizeof *big);
	for (int i = 0; i < BIG; i++)
		big[i] = (solar_triage_point){(double)i * i, 0, "dram", "gemm"};
	double alpha = solar_triage_aci(big, BIG, 0.2, &steps);
	CHECKF(alpha == 0.01 && steps > BIG - 1000, "drift: alpha %g after %d steps", alpha, steps);
	free(big);

	printf("%d checks, %d failures\n", checks, failures);
	return failures != 0;
}
