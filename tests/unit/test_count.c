/* test_count.c - the exact integer-point counter (analysis/count.c).
 *
 * Checks, all with fixed seeds:
 *   - a property test: 2000 random bounded sets (1-4 dimensions, unions of 1-3 disjuncts,
 *     `mod`, `//` and existential constraints, coefficients up to +-3) counted by summation only
 *     and compared with isl_set_count_val, which enumerates; a mismatch prints the set;
 *   - closed forms at sizes far beyond enumeration (causal triangle at N = 1e6 and with batch
 *     dims, sliding window, k <= min(i, j), a 2^70 box, a big convolution);
 *   - input footprints of strided, dilated, padded convolutions against brute-force marking;
 *   - the memo: hits only for sets equal up to tuple names (and recipes), the right counts;
 *   - the API contract: unbounded sets, parameters, an operation limit give NULL and a reason;
 *   - the symbolic count: shapes (boxes, triangles, windows, strides, mods) evaluated on grids
 *     of parameter values, and random parametric sets, against enumeration.
 * Timing is not asserted here; see bench/count_bench.c.  TEST_COUNT_VERBOSE=1 prints every
 * random set before it is counted.
 */
#include "analysis/count.h"
#include "analysis/exact.h"

#include <gmp.h>
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/polynomial.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_set.h>
#include <isl/val.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool verbose;

#include "check.h"

/* Options that force the summation engine even on tiny sets. */
static solar_count_options summation_only(void)
{
	solar_count_options o = solar_count_defaults();
	o.enumerate_below = 0;
	o.fallback_below = 0;
	return o;
}

/* Counts `text` (summation only) and compares with the decimal `expect`. */
static void expect_count(isl_ctx *ctx, const char *text, const char *expect)
{
	isl_set *set = isl_set_read_from_str(ctx, text);
	solar_count_options o = summation_only();
	const char *why = NULL;
	isl_val *v = solar_count_set_opt(set, &o, &why);
	isl_val *want = isl_val_read_from_str(ctx, expect);
	CHECKF(v && isl_val_eq(v, want), "%s: expected %s, got %s (%s)", text, expect,
	      v ? isl_val_to_str(v) : "NULL", why ? why : "");
	/* the default path (which may enumerate small sets) must agree too */
	isl_val *d = solar_count_set(set, &why);
	CHECKF(d && isl_val_eq(d, want), "%s: default path disagrees", text);
	isl_val_free(d);
	isl_val_free(v);
	isl_val_free(want);
	isl_set_free(set);
}

static void expect_count_mpz(isl_ctx *ctx, const char *text, const mpz_t expect)
{
	char *s = mpz_get_str(NULL, 10, expect);
	expect_count(ctx, text, s);
	free(s);
}

/* Counts `text` both ways and compares; returns false on a mismatch. */
static bool agrees_with_isl(isl_ctx *ctx, const char *text)
{
	isl_set *set = isl_set_read_from_str(ctx, text);
	if (!set) {
		fprintf(stderr, "cannot parse %s\n", text);
		return false;
	}
	solar_count_options o = summation_only();
	const char *why = NULL;
	isl_val *v = solar_count_set_opt(set, &o, &why);
	isl_val *w = isl_set_count_val(set);
	bool ok = v && w && isl_val_eq(v, w);
	if (!ok) {
		char *ws = w ? isl_val_to_str(w) : NULL;
		char *vs = v ? isl_val_to_str(v) : NULL;
		fprintf(stderr, "mismatch: %s\n  isl %s, solar %s (%s)\n", text, ws ? ws : "NULL",
			vs ? vs : "NULL", why ? why : "");
		free(ws);
		free(vs);
	}
	isl_val_free(v);
	isl_val_free(w);
	isl_set_free(set);
	return ok;
}

/* --- random sets --------------------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Uniform in [lo, hi]. */
static int pick(int lo, int hi) { return lo + (int)(next() % (uint64_t)(hi - lo + 1)); }

typedef struct {
	char *s;
	size_t n, cap;
} buf;

static void put(buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if ((size_t)k < b->cap - b->n) {
			b->n += (size_t)k;
			return;
		}
		b->cap = b->cap * 2 + (size_t)k + 64;
		b->s = realloc(b->s, b->cap);
	}
}

static const char *const VARS[] = {"a", "b", "c", "d"};

/* A random affine expression over the first `dims` variables, coefficients in [-cmax, cmax]. */
static void put_expr(buf *b, int dims, int cmax, const char *extra)
{
	put(b, "%d", pick(-8, 8));
	for (int k = 0; k < dims; k++) {
		int a = pick(-cmax, cmax);
		if (a)
			put(b, " + %d%s", a, VARS[k]);
	}
	if (extra)
		put(b, " + %d%s", pick(1, cmax), extra);
}

static void put_disjunct(buf *b, int dims, int cmax)
{
	put(b, "(");
	for (int k = 0; k < dims; k++) {
		int lo = pick(-6, 3);
		put(b, "%s%d <= %s <= %d", k ? " and " : "", lo, VARS[k], lo + pick(0, 11));
	}
	int n = pick(0, 3);
	for (int i = 0; i < n; i++) {
		put(b, " and ");
		switch (pick(0, 6)) {
		case 0:
		case 1:
			put_expr(b, dims, cmax, NULL);
			put(b, " >= 0");
			break;
		case 2:
			put(b, "(");
			put_expr(b, dims, cmax, NULL);
			put(b, ") mod %d %s %d", pick(2, 4), pick(0, 1) ? "=" : "<=", pick(0, 1));
			break;
		case 3:
			put(b, "%d%s <= (", pick(1, cmax), VARS[pick(0, dims - 1)]);
			put_expr(b, dims, cmax, NULL);
			put(b, ")//%d + %d", pick(2, 4), pick(0, 4));
			break;
		case 4:
			put(b, "(exists e: %d*e <= ", pick(2, 4));
			put_expr(b, dims, cmax, NULL);
			put(b, " <= %d*e + %d and ", pick(1, 3), pick(0, 2));
			put_expr(b, dims, cmax, "e");
			put(b, " >= 0)");
			break;
		case 5:
			put(b, "(exists e: %s = %d*e + ", VARS[pick(0, dims - 1)], pick(2, 3));
			put_expr(b, dims, 1, NULL);
			put(b, ")");
			break;
		default:
			put_expr(b, dims, cmax, NULL);
			put(b, " = 0");
			break;
		}
	}
	put(b, ")");
}

static void random_sets(isl_ctx *ctx, int count)
{
	buf b = {malloc(256), 0, 256};
	int mismatches = 0;
	for (int t = 0; t < count; t++) {
		int dims = pick(1, 4), nd = pick(1, 3), cmax = t % 3 == 0 ? 1 : 3;
		b.n = 0;
		put(&b, "{ [");
		for (int k = 0; k < dims; k++)
			put(&b, "%s%s", k ? ", " : "", VARS[k]);
		put(&b, "] : ");
		for (int i = 0; i < nd; i++) {
			if (i)
				put(&b, " or ");
			put_disjunct(&b, dims, cmax);
		}
		put(&b, " }");
		if (verbose)
			fprintf(stderr, "%s\n", b.s);
		if (!agrees_with_isl(ctx, b.s))
			mismatches++;
	}
	printf("random sets: %d counted, %d mismatches\n", count, mismatches);
	CHECKF(mismatches == 0, "%d of %d random sets disagree with isl_set_count_val", mismatches,
	      count);
	free(b.s);
}

/* --- the memo ----------------------------------------------------------------------------- */

/* Counts text through the memo; checks the count against a direct one.  Returns the count. */
static isl_val *memo_count(isl_ctx *ctx, solar_count_memo *memo, const char *text)
{
	isl_set *set = isl_set_read_from_str(ctx, text);
	const char *why = NULL;
	isl_val *v = solar_count_set_memo(memo, set, &why);
	isl_val *d = solar_count_set(set, NULL);
	CHECKF(v && d && isl_val_eq(v, d), "%s: memo %s, direct %s", text,
	       v ? isl_val_to_str(v) : "NULL", d ? isl_val_to_str(d) : "NULL");
	isl_val_free(d);
	isl_set_free(set);
	return v;
}

/* The memo: a hit only where the sets are equal up to tuple names, and then the right count;
 * random sets counted twice agree with isl; recipes. */
static void memo(isl_ctx *ctx)
{
	solar_count_memo *m = solar_count_memo_new();
	long st[2];
	const char *tri = "{ T1[i, j] : 0 <= i < 2048 and 0 <= j <= i }";
	isl_val *a = memo_count(ctx, m, tri);
	isl_val *b = memo_count(ctx, m, "{ T27[i, j] : 0 <= i < 2048 and 0 <= j <= i }");
	solar_count_memo_stats(m, st);
	CHECKF(st[0] == 2 && st[1] == 1, "renamed triangle: %ld lookups, %ld hits", st[0], st[1]);
	CHECK(a && b && isl_val_eq(a, b));
	isl_val_free(a);
	isl_val_free(b);
	/* one bound differs: a miss, and its own count */
	a = memo_count(ctx, m, "{ T1[i, j] : 0 <= i < 2048 and 0 <= j < i }");
	solar_count_memo_stats(m, st);
	CHECKF(st[1] == 1, "strict triangle hit the memo (%ld hits)", st[1]);
	CHECK(a && isl_val_cmp_si(a, 2047 * 1024) == 0);
	isl_val_free(a);
	/* nested tuples lose their names, not their structure; parameters keep theirs */
	isl_val_free(memo_count(ctx, m, "{ [A[i] -> B[j]] : 0 <= i < 10 and 0 <= j <= i }"));
	isl_val_free(memo_count(ctx, m, "{ [C[i] -> D[j]] : 0 <= i < 10 and 0 <= j <= i }"));
	isl_val_free(memo_count(ctx, m, "{ C[i, j] : 0 <= i < 10 and 0 <= j <= i }"));
	isl_val_free(memo_count(ctx, m, "[N] -> { [i] : 0 <= i < N and N = 7 }"));
	isl_val_free(memo_count(ctx, m, "[N] -> { [i] : 0 <= i < N and N = 8 }"));
	solar_count_memo_stats(m, st);
	CHECKF(st[0] == 8 && st[1] == 2, "nested and parametric: %ld lookups, %ld hits", st[0],
	       st[1]);
	/* random sets, twice each (the second time from the memo) */
	buf t = {malloc(256), 0, 256};
	uint64_t seed = rng;
	for (int pass = 0; pass < 2; pass++) {
		rng = seed;
		for (int k = 0; k < 300; k++) {
			int dims = pick(1, 3);
			t.n = 0;
			put(&t, "{ S%d[", k);
			for (int q = 0; q < dims; q++)
				put(&t, "%s%s", q ? ", " : "", VARS[q]);
			put(&t, "] : ");
			put_disjunct(&t, dims, 3);
			put(&t, " or ");
			put_disjunct(&t, dims, 3);
			put(&t, " }");
			isl_val_free(memo_count(ctx, m, t.s));
		}
	}
	free(t.s);
	long before[2];
	memcpy(before, st, sizeof before);
	solar_count_memo_stats(m, st);
	CHECKF(st[0] - before[0] == 600 && st[1] - before[1] >= 300,
	       "random sets: %ld lookups, %ld hits", st[0] - before[0], st[1] - before[1]);
	/* recipes: unknown until put, names stripped, kept apart from sets */
	CHECK(!solar_count_memo_get(m, "key|3|{ S1[i] : 0 <= i < 4 }|7|"));
	isl_val *v = isl_val_int_from_si(ctx, 42);
	solar_count_memo_put(m, "key|3|{ S1[i] : 0 <= i < 4 }|7|", v);
	isl_val *g = solar_count_memo_get(m, "key|3|{ S9[i] : 0 <= i < 4 }|7|");
	CHECK(g && isl_val_eq(g, v));
	isl_val_free(g);
	CHECK(!solar_count_memo_get(m, "key|3|{ S9[i] : 0 <= i < 4 }|8|"));
	isl_val_free(v);
	solar_count_memo_free(m);
	solar_count_memo_free(NULL);
}

/* --- closed forms -------------------------------------------------------------------------- */

static void closed_forms(isl_ctx *ctx)
{
	mpz_t n, t;
	mpz_inits(n, t, NULL);

	/* matmul box */
	expect_count(ctx, "{ S[i, j, k] : 0 <= i < 1024 and 0 <= j < 512 and 0 <= k < 256 }",
		     "134217728");
	expect_count(ctx, "{ S[i, j, k] : 0 <= i < 8192 and 0 <= j < 8192 and 0 <= k < 8192 }",
		     "549755813888");

	/* boxes in fact, not in ISL's representation: tiles of a padded output (the bounding box
	 * test), a projection whose existential bounds nothing, repeated reads of one element
	 * (unit equalities); and near misses of each, which are not boxes */
	expect_count(ctx,
		     "{ [i, j] : (0 <= i <= 110 and 0 <= j <= 110) or (i = 111 and 0 <= j <= 111) or "
		     "(j = 111 and 0 <= i <= 110) }",
		     "12544");
	expect_count(ctx, "{ [i, j] : (0 <= i < 10 and 0 <= j < 5) or (0 <= i < 5 and 0 <= j < 10) }",
		     "75");
	expect_count(ctx, "{ [i, j] : (0 <= i <= 110 and 0 <= j <= 110) or (i = 112 and 0 <= j <= 110) }",
		     "12432");
	expect_count(ctx, "{ [i, j] : exists (k : 0 <= k <= 5 and k <= i <= 2k and 0 <= j <= 3) }",
		     "44");
	expect_count(ctx,
		     "{ [i, j] : exists (k : 0 <= k <= 5 and 2k <= i <= 2k + 1 and 0 <= j <= k) }",
		     "42");
	expect_count(ctx, "{ [i, j] : exists (k : 0 <= k <= 5 and i = 3k and 0 <= j <= 3) }", "24");
	expect_count(ctx, "{ [a, b, c, d] : c = a and d = b and 0 <= a < 2048 and 0 <= b < 4096 }",
		     "8388608");
	expect_count(ctx, "{ [a, b, c] : c = a + b - 3 and 0 <= a < 5 and 0 <= b < 7 }", "35");
	expect_count(ctx, "{ [a, b, c] : c = a and 0 <= a < 5 and 0 <= b <= a }", "15");
	expect_count(ctx, "{ [a, b] : 2b = a and 0 <= a < 10 }", "5");

	/* unions of pairwise disjoint boxes, summed box by box: a padded 3x3 chain's first
	 * points (one box per active lower bound, apart by fixed values), boxes apart in one
	 * variable only; and near misses, boxes that meet in one point or one corner, counted
	 * once there */
	expect_count(ctx,
		     "{ [n, c, h, w, r = 0, s = 0] : 0 <= n <= 31 and 0 <= c <= 255 and 0 < h <= 55 "
		     "and 0 < w <= 55; [n, c, h, w = 0, r = 0, s = 1] : 0 <= n <= 31 and 0 <= c <= 255 "
		     "and 0 < h <= 55; [n, c, h = 0, w, r = 1, s = 0] : 0 <= n <= 31 and 0 <= c <= 255 "
		     "and 0 < w <= 55; [n, c, h = 0, w = 0, r = 1, s = 1] : 0 <= n <= 31 and "
		     "0 <= c <= 255 }",
		     "25690112");
	expect_count(ctx, "{ [i, j] : (0 <= i < 10 and 0 <= j < 5) or (5 <= i < 20 and 5 <= j < 7) }",
		     "80");
	expect_count(ctx, "{ [i, j] : (0 <= i < 10 and 0 <= j < 5) or (5 <= i < 20 and 4 <= j < 7) }",
		     "90");
	expect_count(ctx, "{ [i, j, k] : (i = 0 and 0 <= j < 4 and 0 <= k < 4) or "
			  "(0 <= i < 3 and j = 3 and 3 <= k < 9) }", "33");

	/* products of groups of variables that no constraint links, counted group by group: two
	 * triangles (500500 * 245350), a padded stride-2 7x7 convolution's domain (brute force:
	 * 8712) */
	expect_count(ctx, "{ [i, j, k, l] : 0 <= j <= i < 1000 and 0 <= l <= k < 700 }",
		     "122797675000");
	expect_count(ctx,
		     "{ [n, k, oh, ow, c, r, s] : 0 <= n < 2 and 0 <= k < 3 and 0 <= oh < 4 and "
		     "0 <= ow < 4 and 0 <= c < 3 and r >= 0 and r >= 3 - 2oh and r < 7 and "
		     "r < 11 - 2oh and s >= 0 and s >= 3 - 2ow and s < 7 and s < 11 - 2ow }",
		     "8712");

	/* causal triangle N(N+1)/2, at N = 512 and N = 1e6, and with batch dims */
	expect_count(ctx, "{ [i, j] : 0 <= j <= i < 512 }", "131328");
	expect_count(ctx, "{ [i, j] : 0 <= j <= i < 1000000 }", "500000500000");
	mpz_set_ui(n, 32768);
	mpz_mul_ui(t, n, 32769);
	mpz_divexact_ui(t, t, 2);
	mpz_mul_ui(t, t, 8 * 32 * 128);
	expect_count_mpz(ctx,
			 "{ QK[b, h, i, j, d] : 0 <= b < 8 and 0 <= h < 32 and 0 <= j <= i < 32768 "
			 "and 0 <= d < 128 }",
			 t);

	/* sliding window of width W: sum_i min(i + 1, W) = W(W+1)/2 + (T - W) W */
	expect_count(ctx, "{ [i, j] : 0 <= i < 1000000 and i - 4096 < j <= i and j >= 0 }",
		     "4087613440");
	expect_count(ctx, "{ [i, j] : 0 <= i < 100 and i - 7 < j <= i + 3 and 0 <= j < 100 }",
		     "973");

	/* k <= min(i, j): sum_{m=0}^{N-1} (m + 1)(2(N - 1 - m) + 1) */
	for (int N = 7; N <= 3000; N += 2993) {
		mpz_set_ui(n, 0);
		for (long m = 0; m < N; m++)
			mpz_add_ui(n, n, (unsigned long)((m + 1) * (2 * (N - 1 - m) + 1)));
		char text[160];
		snprintf(text, sizeof text,
			 "{ [i, j, k] : 0 <= i < %d and 0 <= j < %d and 0 <= k <= i and k <= j }",
			 N, N);
		expect_count_mpz(ctx, text, n);
	}

	/* a 2^70-point box: beyond 64 bits */
	expect_count(ctx, "{ [i, j] : 0 <= i < 34359738368 and 0 <= j < 34359738368 }",
		     "1180591620717411303424");
	expect_count(ctx,
		     "{ [i, j, k] : 0 <= i < 34359738368 and 0 <= j <= i and 0 <= k < 1048576 }",
		     "618970019660704535959044096"); /* 2^35 (2^35 + 1) / 2 * 2^20 */

	/* a big convolution domain: N256 K512 C256 28x28 3x3 */
	expect_count(ctx,
		     "{ S[n, k, c, oh, ow, r, s] : 0 <= n < 256 and 0 <= k < 512 and 0 <= c < 256 "
		     "and 0 <= oh < 28 and 0 <= ow < 28 and 0 <= r < 3 and 0 <= s < 3 }",
		     "236760072192");

	/* mod and strides at a large size */
	expect_count(ctx, "{ [i, j] : 0 <= i < 1000000 and 0 <= j <= i and (i + j) mod 3 = 0 }",
		     "166666833334");
	expect_count(ctx, "{ [i, j] : 0 <= i < 1000000 and 0 <= 2j <= i }", "250000500000");

	mpz_clears(n, t, NULL);
}

/* --- convolution footprints ---------------------------------------------------------------- */

/* Input footprint of a 2-D convolution over an H x W image with an R x S kernel, stride st,
 * dilation dl and padding pd (N images, C channels): the image of the iteration domain under
 * the access In[n, c, st*oh + dl*r - pd, st*ow + dl*s - pd], intersected with the tensor shape.
 * Compared with a brute-force marking array. */
static void conv_footprint(isl_ctx *ctx, int N, int C, int H, int W, int R, int S, int st, int dl,
			   int pd)
{
	int OH = (H + 2 * pd - dl * (R - 1) - 1) / st + 1;
	int OW = (W + 2 * pd - dl * (S - 1) - 1) / st + 1;
	char text[1024];
	snprintf(text, sizeof text,
		 "{ S[n, k, c, oh, ow, r, s] -> In[n, c, %d oh + %d r - %d, %d ow + %d s - %d] : "
		 "0 <= n < %d and 0 <= k < 4 and 0 <= c < %d and 0 <= oh < %d and 0 <= ow < %d "
		 "and 0 <= r < %d and 0 <= s < %d }",
		 st, dl, pd, st, dl, pd, N, C, OH, OW, R, S);
	isl_map *acc = isl_map_read_from_str(ctx, text);
	snprintf(text, sizeof text,
		 "{ In[n, c, h, w] : 0 <= n < %d and 0 <= c < %d and 0 <= h < %d and 0 <= w < %d }",
		 N, C, H, W);
	isl_set *shape = isl_set_read_from_str(ctx, text);
	isl_set *fp = isl_set_intersect(isl_map_range(acc), shape);

	bool *mark = calloc((size_t)H * (size_t)W, 1);
	for (int oh = 0; oh < OH; oh++)
		for (int ow = 0; ow < OW; ow++)
			for (int r = 0; r < R; r++)
				for (int s = 0; s < S; s++) {
					int h = st * oh + dl * r - pd, w = st * ow + dl * s - pd;
					if (h >= 0 && h < H && w >= 0 && w < W)
						mark[h * W + w] = true;
				}
	long cnt = 0;
	for (int i = 0; i < H * W; i++)
		cnt += mark[i];
	cnt *= (long)N * C;
	free(mark);

	solar_count_options o = summation_only();
	const char *why = NULL;
	isl_val *v = solar_count_set_opt(fp, &o, &why);
	CHECKF(v && isl_val_get_num_si(v) == cnt,
	      "conv footprint H%d W%d R%d S%d stride %d dilation %d pad %d: expected %ld, got %s "
	      "(%s)",
	      H, W, R, S, st, dl, pd, cnt, v ? isl_val_to_str(v) : "NULL", why ? why : "");
	isl_val_free(v);
	isl_set_free(fp);
}

static void conv_footprints(isl_ctx *ctx)
{
	conv_footprint(ctx, 2, 3, 16, 16, 3, 3, 2, 2, 1); /* stride 2, dilation 2, padding 1 */
	conv_footprint(ctx, 1, 2, 17, 13, 3, 3, 2, 1, 1); /* stride 2, pad 1 */
	conv_footprint(ctx, 1, 1, 32, 32, 2, 2, 4, 1, 0); /* kernel 2, stride 4: gaps */
	conv_footprint(ctx, 1, 1, 33, 31, 1, 1, 2, 1, 0); /* 1x1, stride 2 */
	conv_footprint(ctx, 2, 2, 20, 20, 3, 3, 1, 2, 2); /* dilation 2, pad 2 */
	conv_footprint(ctx, 1, 1, 40, 40, 3, 3, 3, 3, 1); /* stride 3, dilation 3 */
	conv_footprint(ctx, 1, 1, 28, 28, 5, 5, 3, 2, 0); /* stride 3, dilation 2 */
	conv_footprint(ctx, 1, 1, 29, 29, 3, 3, 2, 2, 1);
	conv_footprint(ctx, 3, 4, 224, 224, 7, 7, 2, 1, 3); /* ResNet stem */
	conv_footprint(ctx, 1, 1, 30, 30, 2, 3, 5, 1, 1);   /* gaps, uneven kernel */
}

/* --- API contract -------------------------------------------------------------------------- */

static void contract(isl_ctx *ctx)
{
	const char *why = NULL;
	isl_set *s = isl_set_read_from_str(ctx, "{ [i] : i >= 0 }");
	isl_val *v = solar_count_set(s, &why);
	CHECKF(!v && why && strstr(why, "unbounded"), "unbounded set: %s", why ? why : "no reason");
	isl_val_free(v);
	isl_set_free(s);

	why = NULL;
	s = isl_set_read_from_str(ctx, "[N] -> { [i] : 0 <= i < N <= 10 }");
	v = solar_count_set(s, &why);
	CHECKF(!v && why && strstr(why, "parameters"), "parameters: %s", why ? why : "no reason");
	isl_val_free(v);
	isl_set_free(s);

	/* parameters that the set does not involve are harmless */
	s = isl_set_read_from_str(ctx, "[N] -> { [i] : 0 <= i < 10 }");
	v = solar_count_set(s, NULL);
	CHECKF(v && isl_val_get_num_si(v) == 10, "uninvolved parameter");
	isl_val_free(v);
	isl_set_free(s);

	v = solar_count_set(NULL, &why);
	CHECKF(!v, "NULL set");

	s = isl_set_read_from_str(ctx, "{ [i, j] : 0 <= i < 10 and i < j < 5 and j > 7 }");
	v = solar_count_set(s, NULL);
	CHECKF(v && isl_val_is_zero(v), "empty set");
	isl_val_free(v);
	isl_set_free(s);

	s = isl_set_read_from_str(ctx, "{ [] }");
	v = solar_count_set(s, NULL);
	CHECKF(v && isl_val_is_one(v), "zero-dimensional universe");
	isl_val_free(v);
	isl_set_free(s);

	/* union of accesses, and the union-set entry point */
	expect_count(ctx,
		     "{ [x] : exists i : 0 <= i < 1000 and (x = 2i or x = 2i + 1 or x = 2i + 3) }",
		     "2001");
	isl_union_set *u = isl_union_set_read_from_str(
	    ctx, "{ A[i, j] : 0 <= j <= i < 100000; B[k] : 0 <= k < 7; C[] }");
	v = solar_count_union_set(u, &why);
	CHECKF(v && isl_val_get_num_si(v) == 5000050000L + 7 + 1, "union set");
	isl_val_free(v);
	isl_union_set_free(u);

	/* an operation limit turns into a clean failure, not a hang or a wrong number */
	s = isl_set_read_from_str(ctx, "{ [i, j, k] : 0 <= i < 1000 and 0 <= j <= i and "
				       "0 <= 3k <= i + 2j and (i + j + k) mod 7 < 3 }");
	isl_ctx_reset_operations(ctx);
	isl_ctx_set_max_operations(ctx, 20);
	why = NULL;
	v = solar_count_set(s, &why);
	CHECKF(!v && why && strstr(why, "operation limit"), "operation limit: %s",
	      why ? why : "no reason");
	isl_val_free(v);
	isl_ctx_set_max_operations(ctx, 0);
	isl_ctx_reset_operations(ctx);
	isl_ctx_reset_error(ctx);
	isl_set_free(s);
}

/* --- symbolic counts ----------------------------------------------------------------------- */

/* Evaluates the symbolic count of `set` at the parameter values `vals` and compares with the
 * numeric count of the set with its parameters fixed.  Returns false on a mismatch. */
static bool symbolic_agrees_at(isl_ctx *ctx, isl_set *set, isl_pw_qpolynomial *pwqp,
			       const long *vals)
{
	isl_size np = isl_set_dim(set, isl_dim_param);
	isl_space *ps = isl_space_params(isl_set_get_space(set));
	isl_point *pt = isl_point_zero(ps);
	isl_set *fixed = isl_set_copy(set);
	for (int k = 0; k < np; k++) {
		pt = isl_point_set_coordinate_val(pt, isl_dim_param, k,
						  isl_val_int_from_si(ctx, vals[k]));
		fixed = isl_set_fix_si(fixed, isl_dim_param, (unsigned)k, (int)vals[k]);
	}
	fixed = isl_set_project_out(fixed, isl_dim_param, 0, (unsigned)np);
	isl_val *got = isl_pw_qpolynomial_eval(isl_pw_qpolynomial_copy(pwqp), pt);
	isl_val *want = isl_set_count_val(fixed);
	bool ok = got && want && isl_val_eq(got, want);
	if (!ok) {
		char *ss = isl_set_to_str(set), *ps2 = isl_pw_qpolynomial_to_str(pwqp);
		char *gs = got ? isl_val_to_str(got) : NULL,
		     *ws = want ? isl_val_to_str(want) : NULL;
		fprintf(stderr, "symbolic mismatch: %s\n  count %s\n  at", ss, ps2);
		for (int k = 0; k < np; k++)
			fprintf(stderr, " %ld", vals[k]);
		fprintf(stderr, ": symbolic %s, enumeration %s\n", gs ? gs : "NULL",
			ws ? ws : "NULL");
		free(ss);
		free(ps2);
		free(gs);
		free(ws);
	}
	isl_val_free(got);
	isl_val_free(want);
	isl_set_free(fixed);
	return ok;
}

/* A shape the symbolic counter must handle: checked on a grid of small parameter values. */
static void symbolic_shape(isl_ctx *ctx, const char *text, int lo, int hi)
{
	isl_set *set = isl_set_read_from_str(ctx, text);
	const char *why = NULL;
	isl_pw_qpolynomial *c = solar_count_set_symbolic(set, &why);
	CHECKF(c, "symbolic count of %s failed: %s", text, why ? why : "");
	isl_size np = isl_set_dim(set, isl_dim_param);
	long vals[4] = {0};
	int mismatches = 0;
	for (long g = 0; c && np <= 4; g++) {
		long r = g;
		for (int k = 0; k < np; k++) {
			vals[k] = lo + r % (hi - lo + 1);
			r /= hi - lo + 1;
		}
		if (r)
			break;
		mismatches += !symbolic_agrees_at(ctx, set, c, vals);
	}
	CHECKF(mismatches == 0, "%s: %d symbolic mismatches", text, mismatches);
	isl_pw_qpolynomial_free(c);
	isl_set_free(set);
}

/* The symbolic count evaluated at one large parameter point equals `expect`. */
static void symbolic_value(isl_ctx *ctx, const char *text, const long *vals, const char *expect)
{
	isl_set *set = isl_set_read_from_str(ctx, text);
	isl_pw_qpolynomial *c = solar_count_set_symbolic(set, NULL);
	isl_size np = isl_set_dim(set, isl_dim_param);
	isl_point *pt = isl_point_zero(isl_space_params(isl_set_get_space(set)));
	for (int k = 0; k < np; k++)
		pt = isl_point_set_coordinate_val(pt, isl_dim_param, k,
						  isl_val_int_from_si(ctx, vals[k]));
	isl_val *got = isl_pw_qpolynomial_eval(c, pt);
	isl_val *want = isl_val_read_from_str(ctx, expect);
	CHECKF(got && isl_val_eq(got, want), "%s at large parameters: expected %s", text, expect);
	isl_val_free(got);
	isl_val_free(want);
	isl_set_free(set);
}

static void symbolic_counts(isl_ctx *ctx)
{
	symbolic_shape(ctx, "[N, M, K] -> { [i, j, k] : 0 <= i < N and 0 <= j < M and 0 <= k < K }",
		       -1, 6);
	symbolic_shape(ctx, "[N] -> { [i, j] : 0 <= j <= i < N }", -2, 40);
	symbolic_shape(ctx, "[B, T] -> { [b, i, j] : 0 <= b < B and 0 <= j <= i < T }", -1, 12);
	symbolic_shape(ctx, "[T, W] -> { [i, j] : 0 <= i < T and i - W < j <= i and j >= 0 }", -1,
		       14);
	symbolic_shape(ctx,
		       "[N] -> { [i, j, k] : 0 <= i < N and 0 <= j < N and 0 <= k <= i and "
		       "k <= j }",
		       -1, 25);
	symbolic_shape(ctx, "[N, M] -> { [i, j] : 0 <= i < N and 0 <= j < M and i + j <= N }", -1,
		       12);
	symbolic_shape(ctx, "[N] -> { [i] : 0 <= i < N and i mod 3 = 0 }", -2, 40);
	symbolic_shape(ctx, "[N] -> { [i] : 0 <= i <= N // 3 }", -2, 40);
	symbolic_shape(ctx, "[N] -> { [i, j] : 0 <= i < N and 0 <= 2j <= i }", -2, 30);
	/* padded, strided, dilated convolution rows: footprint in h of oh < H, r < 3 */
	symbolic_shape(ctx,
		       "[H] -> { [h] : exists oh, r : h = 2oh + 2r - 1 and 0 <= oh < H and "
		       "0 <= r < 3 and 0 <= h < 2H }",
		       -1, 30);
	symbolic_shape(ctx, "[H, R] -> { [oh, r] : 0 <= oh and oh + r < H and 0 <= r < R }", -1,
		       12);

	symbolic_shape(ctx,
		       "[H, OH] -> { [h] : exists oh, r : h = 4oh + r and 0 <= oh < OH and "
		       "0 <= r < 2 and 0 <= h < H }",
		       -1, 20); /* kernel 2, stride 4: a footprint with gaps */
	symbolic_shape(ctx, "[N] -> { [i, j] : 0 <= i < N and 0 <= j < N and (i + j) mod 2 = 0 }",
		       -2, 30);
	symbolic_shape(ctx, "[T, W] -> { [i, j] : 0 <= i < T and 0 <= j <= i and i - j < W }", -1,
		       16);
	symbolic_shape(ctx,
		       "[N, K, H, W] -> { [n, k, oh, ow, r, s] : 0 <= n < N and 0 <= k < K "
		       "and 0 <= oh and oh + r < H and 0 <= ow and ow + s < W and 0 <= r < 3 "
		       "and 0 <= s < 3 }",
		       0, 5);

	long big[3] = {1000000, 0, 0};
	symbolic_value(ctx, "[N] -> { [i, j] : 0 <= j <= i < N }", big, "500000500000");
	long box[3] = {34359738368L, 34359738368L, 0};
	symbolic_value(ctx, "[N, M] -> { [i, j] : 0 <= i < N and 0 <= j < M }", box,
		       "1180591620717411303424");

	/* out of reach: a clean NULL and a reason */
	const char *why = NULL;
	isl_set *s = isl_set_read_from_str(ctx, "[N] -> { [i] : i >= N }");
	isl_pw_qpolynomial *c = solar_count_set_symbolic(s, &why);
	CHECKF(!c && why && strstr(why, "unbounded"), "symbolic unbounded: %s", why ? why : "");
	isl_pw_qpolynomial_free(c);
	isl_set_free(s);
	why = NULL;
	s = isl_set_read_from_str(ctx, "[N] -> { [i] : 0 <= 5000i <= N }");
	c = solar_count_set_symbolic(s, &why);
	CHECKF(!c && why, "symbolic with a huge stride should give up cleanly");
	isl_pw_qpolynomial_free(c);
	isl_set_free(s);
}

/* Random parametric sets in the class the symbolic counter is meant for: box-bounded variables
 * (so bounded for all parameter values) with unit-coefficient constraints that mix variables and
 * the parameters N, M (triangles, windows, min/max bounds), sometimes a `mod`. */
static void random_symbolic(isl_ctx *ctx, int count)
{
	buf b = {malloc(256), 0, 256};
	int mismatches = 0, given_up = 0;
	for (int t = 0; t < count; t++) {
		int dims = pick(1, 3), nd = t % 3 ? 1 : 2;
		b.n = 0;
		put(&b, "[N, M] -> { [");
		for (int k = 0; k < dims; k++)
			put(&b, "%s%s", k ? ", " : "", VARS[k]);
		put(&b, "] : ");
		for (int i = 0; i < nd; i++) {
			put(&b, "%s(", i ? " or " : "");
			for (int k = 0; k < dims; k++)
				put(&b, "%s%d <= %s <= %d", k ? " and " : "", pick(-3, 0), VARS[k],
				    pick(2, 10));
			int n = pick(1, 2);
			for (int j = 0; j < n; j++) {
				put(&b, " and ");
				int kind = pick(0, 5);
				if (kind == 5) {
					put(&b, "(");
					put_expr(&b, dims, 1, NULL);
					put(&b, ") mod %d = 0", pick(2, 3));
					continue;
				}
				put_expr(&b, dims, 1, NULL);
				put(&b, " %s %dN + %dM", kind % 2 ? "<=" : ">=", pick(-1, 1),
				    pick(-1, 1));
			}
			put(&b, ")");
		}
		put(&b, " }");
		if (verbose)
			fprintf(stderr, "%s\n", b.s);
		isl_set *set = isl_set_read_from_str(ctx, b.s);
		const char *why = NULL;
		isl_pw_qpolynomial *c = solar_count_set_symbolic(set, &why);
		if (!c) {
			given_up++;
			if (verbose)
				fprintf(stderr, "  given up: %s\n", why);
		} else {
			for (int e = 0; e < 6; e++) {
				long vals[2] = {pick(-4, 14), pick(-4, 14)};
				if (!symbolic_agrees_at(ctx, set, c, vals)) {
					mismatches++;
					break;
				}
			}
		}
		isl_pw_qpolynomial_free(c);
		isl_set_free(set);
	}
	printf("random parametric sets: %d counted symbolically, %d given up, %d mismatches\n",
	       count - given_up, given_up, mismatches);
	CHECKF(mismatches == 0, "%d random parametric sets disagree", mismatches);
	CHECKF(given_up * 10 < count, "symbolic counter gave up on %d of %d sets", given_up, count);
	free(b.s);
}

/* solar_count (analysis/exact.h), what leaves analysis/: digits beyond 2^64, exact comparison
 * where the doubles are equal, NULL as zero. */
static void exact_counts(isl_ctx *ctx)
{
	isl_val *big = isl_val_read_from_str(ctx, "36893488147419103233"); /* 2^65 + 1 */
	isl_val *big2 = isl_val_read_from_str(ctx, "36893488147419103232");
	char *s = solar_count_str(big);
	CHECK(!strcmp(s, "36893488147419103233"));
	free(s);
	s = solar_count_str_times(big, 3);
	CHECK(!strcmp(s, "110680464442257309699"));
	free(s);
	s = solar_count_str(NULL);
	CHECK(!strcmp(s, "0"));
	free(s);
	CHECK(solar_count_double(big) == solar_count_double(big2));
	CHECK(solar_count_cmp(big, big2) > 0 && solar_count_cmp(big2, big) < 0);
	CHECK(solar_count_cmp(big, big) == 0);
	CHECK(solar_count_cmp(NULL, big) < 0 && solar_count_cmp(big, NULL) > 0);
	isl_val *zero = isl_val_zero(ctx);
	CHECK(solar_count_cmp(NULL, zero) == 0 && solar_count_is_zero(zero));
	CHECK(solar_count_is_zero(NULL) && !solar_count_is_zero(big));
	CHECK(solar_count_double(NULL) == 0);
	solar_count_free(zero);
	solar_count_free(big);
	solar_count_free(big2);
	solar_count_free(NULL);
}

int main(void)
{
	verbose = getenv("TEST_COUNT_VERBOSE") != NULL;
	isl_ctx *ctx = isl_ctx_alloc();
	isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	clock_t t0 = clock();
	exact_counts(ctx);
	contract(ctx);
	closed_forms(ctx);
	conv_footprints(ctx);
	memo(ctx);
	clock_t t1 = clock();
	random_sets(ctx, 2000);
	clock_t t2 = clock();
	symbolic_counts(ctx);
	clock_t t3 = clock();
	random_symbolic(ctx, 200);
	clock_t t4 = clock();
	printf("cpu seconds: closed forms %.1f, random %.1f, symbolic shapes %.1f, random symbolic "
	       "%.1f\n",
	       (double)(t1 - t0) / CLOCKS_PER_SEC, (double)(t2 - t1) / CLOCKS_PER_SEC,
	       (double)(t3 - t2) / CLOCKS_PER_SEC, (double)(t4 - t3) / CLOCKS_PER_SEC);
	isl_ctx_free(ctx);
	if (failures) {
		fprintf(stderr, "test_count: %d failure(s)\n", failures);
		return 1;
	}
	printf("test_count: ok\n");
	return 0;
}
