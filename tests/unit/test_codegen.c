/* test_codegen.c - generated programs against values computed here, in C.
 *
 * Each case is a small AIR program written inline.  The C backend (validate/codegen_c.c)
 * turns it into a program that the system compiler builds and that runs on inputs written
 * here as .npy files; its outputs are read back and compared with what this file computes
 * directly: exactly where the operations and their order are the same (the rounding of
 * stores to bf16, f16 and the f8 types, against an independent rounding written with
 * frexp-free arithmetic on doubles; Python's // and %; integer wrapping; poisoned elements),
 * to a tight tolerance where this file sums in another order (matmul, conv, softmax).
 *
 * The CUDA side needs no GPU here: the launch plan (which loops become threads, from
 * analysis/deps.c) is checked on nests with and without carried dependences, and when NVRTC
 * can be loaded the generated CUDA source of every case and every example is compiled.
 *
 * Without a C compiler the test exits 77 (skipped).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "check.h"
#include "frontend/frontend.h"
#include "validate/validate.h"

static char dir[256];
static bool have_nvrtc = true;

/* ---- plumbing ---- */

typedef struct {
	char *src;
	solar_diag *d;
	solar_program *p;
} loaded;

static loaded load(const char *text)
{
	loaded l;
	l.src = strdup(text);
	int32_t len = (int32_t)strlen(text);
	l.d = solar_diag_new("t.air", l.src, len, stderr);
	l.p = solar_frontend_load("t.air", l.src, len, NULL, 0, l.d);
	if (l.p && solar_analysis_check(l.p, l.d)) {
		solar_program_free(l.p);
		l.p = NULL;
	}
	return l;
}

static void unload(loaded *l)
{
	solar_program_free(l->p);
	solar_diag_free(l->d);
	free(l->src);
}

static char *path_of(const char *prefix, const char *name)
{
	static char buf[512];
	snprintf(buf, sizeof buf, "%s/%s%s.npy", dir, prefix, name);
	return buf;
}

static void put(const char *name, solar_npy_type t, int rank, const int64_t *shape,
		const void *data)
{
	CHECK(solar_npy_write(path_of("in_", name), t, rank, shape, data, on(stderr)) == 0);
}

static void put_f32(const char *name, int64_t n, const float *data)
{
	put(name, SOLAR_NPY_F4, 1, &n, data);
}

/* An output of the last run; NULL (after a failed check) when missing or of another type.
 * The data stays valid until the next get. */
static solar_npy last;

static void *get(const char *name, solar_npy_type want, int64_t count)
{
	solar_npy *a = &last;
	solar_npy_free(a);
	if (solar_npy_read(path_of("air_", name), a, on(stderr)) < 0) {
		CHECK(!"output missing");
		return NULL;
	}
	CHECK(a->type == want);
	CHECK(a->count == count);
	return a->type == want && a->count == count ? a->data : NULL;
}

/* Generates, compiles and runs the program on the inputs already in dir; 0 on success.  Also
 * compiles its CUDA source when NVRTC is here. */
/* NVRTC compiles the CUDA text cu (freed) for sm_90; without NVRTC, have_nvrtc turns false. */
static void compiles(char *cu)
{
	int c = solar_cuda_compile_check(cu, 9, 0, on(stderr));
	if (c == -2)
		have_nvrtc = false;
	else
		CHECK(c == 0);
	free(cu);
}

static int run(loaded *l)
{
	if (!l->p) {
		CHECK(!"program did not load");
		return -1;
	}
	solar_run r;
	int rc = solar_run_c(l->p, "t.air", dir, 60, &r, on(stderr));
	CHECK(rc == 0);
	CHECK(r.nkernels == l->p->nkernels);
	solar_run_free(&r);

	if (have_nvrtc) {
		solar_analysis *a = solar_analysis_new(l->p, l->d);
		solar_plan plan;
		CHECK(a && solar_plan_build(l->p, a, &plan, on(stderr)) == 0);
		solar_npy_type in[64];
		for (int i = 0; i < 64; i++)
			in[i] = SOLAR_NPY_F4;
		compiles(solar_codegen_cuda(l->p, "t.air", &plan, in, NULL));
		solar_plan_free(&plan);
		solar_analysis_free(a);
	}
	return rc;
}

static bool close_to(double got, double want, double rel)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return fabs(got - want) <= rel * fmax(1.0, fabs(want));
}

/* ---- an independent rounding: to `sig` significant bits, least normal exponent emin,
 * round half to even (the default rounding of nearbyint), then the format's overflow ---- */

static double round_sig(double x, int sig, int emin, double max, bool overflow_nan)
{
	if (x == 0 || isnan(x))
		return x;
	if (isinf(x))
		return overflow_nan ? NAN : x;
	int e = ilogb(x);
	if (e < emin)
		e = emin;
	double q = ldexp(1.0, e - (sig - 1));
	double r = nearbyint(x / q) * q;
	if (fabs(r) > max)
		return overflow_nan ? NAN : copysign(INFINITY, x);
	return r;
}

static double to_bf16(double x)
{
	return round_sig(x, 8, -126, ldexp(255, 120), false);
}
static double to_f16(double x)
{
	return round_sig(x, 11, -14, 65504, false);
}
static double to_e4m3(double x)
{
	return round_sig(x, 4, -6, 448, true);
}
static double to_e5m2(double x)
{
	return round_sig(x, 3, -14, 57344, false);
}

/* ---- the cases ---- */

static void test_matmul(void)
{
	loaded l = load("air 1;\n"
			"param M = 3, N = 4, K = 5;\n"
			"in a[M, K], b[K, N]: f32;\n"
			"out c[M, N]: f32;\n"
			"kernel matmul {\n"
			"  for i in 0..M, j in 0..N {\n"
			"    c[i, j] = 0;\n"
			"    for k in 0..K { c[i, j] += a[i, k] * b[k, j]; }\n"
			"  }\n"
			"}\n");
	float a[15], b[20];
	for (int i = 0; i < 15; i++)
		a[i] = (float)(0.25 * i - 1.5);
	for (int i = 0; i < 20; i++)
		b[i] = (float)(0.125 * ((i * 7) % 11) - 0.5);
	int64_t sa[2] = {3, 5}, sb[2] = {5, 4};
	put("a", SOLAR_NPY_F4, 2, sa, a);
	put("b", SOLAR_NPY_F4, 2, sb, b);
	if (run(&l) == 0) {
		float *c = get("c", SOLAR_NPY_F4, 12);
		for (int i = 0; c && i < 3; i++)
			for (int j = 0; j < 4; j++) {
				float want = 0; /* exactly representable: the same in any order */
				for (int k = 0; k < 5; k++)
					want += a[i * 5 + k] * b[k * 4 + j];
				CHECK(c[i * 4 + j] == want);
			}
	}
	unload(&l);
}

/* A 3x3 convolution with zero padding 1, written as clamped tap ranges (as the examples). */
static void test_conv(void)
{
	loaded l = load("air 1;\n"
			"param N = 1, C = 2, K = 2, H = 4, W = 5;\n"
			"const KH = 3, KW = 3, PAD = 1;\n"
			"in x[N, C, H, W]: f32;\n"
			"in weight[K, C, KH, KW]: f32;\n"
			"out y[N, K, H, W]: f32;\n"
			"kernel conv {\n"
			"  for n in 0..N, k in 0..K, oh in 0..H, ow in 0..W {\n"
			"    y[n, k, oh, ow] = 0;\n"
			"    for c in 0..C, r in max(0, PAD - oh)..min(KH, H + PAD - oh),\n"
			"        s in max(0, PAD - ow)..min(KW, W + PAD - ow) {\n"
			"      y[n, k, oh, ow] += x[n, c, oh + r - PAD, ow + s - PAD] * weight[k, c, r, s];\n"
			"    }\n"
			"  }\n"
			"}\n");
	float x[40], w[36];
	for (int i = 0; i < 40; i++)
		x[i] = (float)sin(0.7 * i);
	for (int i = 0; i < 36; i++)
		w[i] = (float)cos(1.3 * i);
	int64_t sx[4] = {1, 2, 4, 5}, sw[4] = {2, 2, 3, 3};
	put("x", SOLAR_NPY_F4, 4, sx, x);
	put("weight", SOLAR_NPY_F4, 4, sw, w);
	if (run(&l) == 0) {
		float *y = get("y", SOLAR_NPY_F4, 40);
		for (int k = 0; y && k < 2; k++)
			for (int oh = 0; oh < 4; oh++)
				for (int ow = 0; ow < 5; ow++) {
					double want = 0;
					for (int c = 0; c < 2; c++)
						for (int r = 0; r < 3; r++)
							for (int s = 0; s < 3; s++) {
								int ih = oh + r - 1, iw = ow + s - 1;
								if (ih >= 0 && ih < 4 && iw >= 0 && iw < 5)
									want += (double)x[(c * 4 + ih) * 5 + iw] *
										w[((k * 2 + c) * 3 + r) * 3 + s];
							}
					CHECK(close_to(y[(k * 4 + oh) * 5 + ow], want, 1e-6));
				}
	}
	unload(&l);
}

/* Softmax with a -inf start for max= and -inf among the inputs (exp(-inf) = 0). */
static void test_softmax(void)
{
	loaded l = load("air 1;\n"
			"param R = 3, V = 7;\n"
			"in x[R, V]: f32;\n"
			"out y[R, V]: f32;\n"
			"tmp m[R], s[R]: f32;\n"
			"kernel softmax {\n"
			"  for r in 0..R {\n"
			"    m[r] = -inf;\n"
			"    for v in 0..V { m[r] max= x[r, v]; }\n"
			"    s[r] = 0;\n"
			"    for v in 0..V { s[r] += exp(x[r, v] - m[r]); }\n"
			"    for v in 0..V { y[r, v] = exp(x[r, v] - m[r]) / s[r]; }\n"
			"  }\n"
			"}\n");
	float x[21];
	for (int i = 0; i < 21; i++)
		x[i] = (float)(3 * sin(1.1 * i) - 20 * (i / 7 == 2));
	x[3] = -INFINITY;
	x[9] = -INFINITY;
	int64_t sh[2] = {3, 7};
	put("x", SOLAR_NPY_F4, 2, sh, x);
	if (run(&l) == 0) {
		float *y = get("y", SOLAR_NPY_F4, 21);
		for (int r = 0; y && r < 3; r++) {
			double m = -INFINITY, s = 0;
			for (int v = 0; v < 7; v++)
				m = fmax(m, x[r * 7 + v]);
			for (int v = 0; v < 7; v++)
				s += exp(x[r * 7 + v] - m);
			for (int v = 0; v < 7; v++)
				CHECK(close_to(y[r * 7 + v], exp(x[r * 7 + v] - m) / s, 1e-6));
		}
		CHECK(y && y[3] == 0.0f && y[9] == 0.0f);
	}
	unload(&l);
}

/* Every store rounds to the tensor's dtype: ties, overflow, subnormals, NaN for e4m3fn. */
static void test_rounding(void)
{
	loaded l = load("air 1;\n"
			"param N = 16, K = 40;\n"
			"in x[N]: f32;\n"
			"in a[K], b[K]: bf16;\n"
			"out yb[N]: bf16;\n"
			"out yh[N]: f16;\n"
			"out y4[N]: f8e4m3;\n"
			"out y5[N]: f8e5m2;\n"
			"out t3[N]: bf16;\n"
			"out c: bf16;\n"
			"kernel stores {\n"
			"  for i in 0..N {\n"
			"    yb[i] = x[i];\n"
			"    yh[i] = x[i];\n"
			"    y4[i] = x[i];\n"
			"    y5[i] = x[i];\n"
			"    t3[i] = x[i] * 3;\n"
			"  }\n"
			"  c = 0;\n"
			"  for k in 0..K { c += a[k] * b[k]; }\n"
			"}\n");
	const float x[16] = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, -(1.0f + 0x1p-8f), 3.4e38f,
			     1e-40f, 1e-6f, 464.0f, 470.0f, 480.0f, 0x1p-10f, 0x1p-10f * 3,
			     65520.0f, 61440.0f, 0.1f, -2.75f, 1e-3f};
	float a[40], b[40];
	for (int k = 0; k < 40; k++) {
		a[k] = (float)to_bf16(1.0 + 0.37 * sin(k));
		b[k] = (float)to_bf16(2.0 + 1.1 * cos(3 * k));
	}
	put_f32("x", 16, x);
	put_f32("a", 40, a);
	put_f32("b", 40, b);
	if (run(&l) == 0) {
		float *yb = get("yb", SOLAR_NPY_F4, 16);
		for (int i = 0; yb && i < 16; i++)
			CHECK(close_to(yb[i], to_bf16(x[i]), 0));
		float *t3 = get("t3", SOLAR_NPY_F4, 16);
		for (int i = 0; t3 && i < 16; i++) /* computed in float, then rounded */
			CHECK(close_to(t3[i], to_bf16((double)(x[i] * 3.0f)), 0));
		uint16_t *yh = get("yh", SOLAR_NPY_F2, 16);
		for (int i = 0; yh && i < 16; i++) { /* the f16 bits, decoded here */
			int e = (yh[i] >> 10) & 31, m = yh[i] & 1023;
			double v = e == 31 ? (m ? NAN : INFINITY)
				   : e == 0 ? ldexp(m, -24)
					    : ldexp(1024 + m, e - 25);
			CHECK(close_to((yh[i] & 0x8000) ? -v : v, to_f16(x[i]), 0));
		}
		float *y4 = get("y4", SOLAR_NPY_F4, 16);
		for (int i = 0; y4 && i < 16; i++)
			CHECK(close_to(y4[i], to_e4m3(x[i]), 0));
		CHECK(y4 && y4[6] == 448.0f && isnan(y4[7]) && isnan(y4[8]) && isnan(y4[3]));
		float *y5 = get("y5", SOLAR_NPY_F4, 16);
		for (int i = 0; y5 && i < 16; i++)
			CHECK(close_to(y5[i], to_e5m2(x[i]), 0));
		float *c = get("c", SOLAR_NPY_F4, 1);
		float acc = 0;
		for (int k = 0; k < 40; k++)
			acc = (float)to_bf16((double)(acc + a[k] * b[k]));
		CHECK(c && c[0] == acc);
	}
	unload(&l);
}

static int64_t py_floordiv(int64_t a, int64_t b)
{
	return b ? (int64_t)floor((double)a / (double)b) : 0;
}

static int64_t py_mod(int64_t a, int64_t b)
{
	return b ? a - b * py_floordiv(a, b) : 0;
}

/* `//` and `%` follow Python on negative values, in values and in indices. */
static void test_divmod(void)
{
	loaded l = load("air 1;\n"
			"param N = 12;\n"
			"in x[N]: f32;\n"
			"in k[N]: i64;\n"
			"out qi[N], ri[N]: i64;\n"
			"out qf[N], rf[N], g[N], h[N]: f32;\n"
			"kernel divmod {\n"
			"  for i in 0..N {\n"
			"    qi[i] = (i - 6) // 4 + k[i] // (i - 5);\n"
			"    ri[i] = k[i] % (i - 5) + (i - 6) % 4 * 100;\n"
			"    qf[i] = x[i] // 2.5;\n"
			"    rf[i] = x[i] % -1.5;\n"
			"    g[i] = x[(i - 3) // 2 + 2];\n"
			"    h[i] = x[(i - 3) % 4];\n"
			"  }\n"
			"}\n");
	float x[12];
	int64_t k[12];
	for (int i = 0; i < 12; i++) {
		x[i] = (float)(1.75 * i - 9.5);
		k[i] = 7 * i - 40;
	}
	int64_t n = 12;
	put_f32("x", 12, x);
	put("k", SOLAR_NPY_I8, 1, &n, k);
	if (run(&l) == 0) {
		int64_t *qi = get("qi", SOLAR_NPY_I8, 12);
		for (int i = 0; qi && i < 12; i++)
			CHECK(qi[i] == py_floordiv(i - 6, 4) + py_floordiv(k[i], i - 5));
		int64_t *ri = get("ri", SOLAR_NPY_I8, 12);
		for (int i = 0; ri && i < 12; i++)
			CHECK(ri[i] == py_mod(k[i], i - 5) + py_mod(i - 6, 4) * 100);
		float *qf = get("qf", SOLAR_NPY_F4, 12);
		for (int i = 0; qf && i < 12; i++)
			CHECK(qf[i] == (float)floor(x[i] / 2.5));
		float *rf = get("rf", SOLAR_NPY_F4, 12);
		for (int i = 0; rf && i < 12; i++) {
			double r = x[i] - -1.5 * floor(x[i] / -1.5);
			CHECK(close_to(rf[i], r, 1e-6) && rf[i] <= 0);
		}
		float *g = get("g", SOLAR_NPY_F4, 12);
		for (int i = 0; g && i < 12; i++)
			CHECK(g[i] == x[py_floordiv(i - 3, 2) + 2]);
		float *h = get("h", SOLAR_NPY_F4, 12);
		for (int i = 0; h && i < 12; i++)
			CHECK(h[i] == x[py_mod(i - 3, 4)]);
	}
	unload(&l);
}

/* if / else if / else, a stepped loop, and the poison of elements never written. */
static void test_control(void)
{
	loaded l = load("air 1;\n"
			"param N = 10;\n"
			"in x[N]: f32;\n"
			"out y[N], p[N]: f32;\n"
			"out z[N]: i32;\n"
			"kernel k {\n"
			"  for i in 0..N {\n"
			"    if i < 3 {\n"
			"      y[i] = 1;\n"
			"    } else if i == 5 {\n"
			"      y[i] = 2;\n"
			"    } else {\n"
			"      y[i] = x[i] * 2;\n"
			"    }\n"
			"  }\n"
			"  for i in 1..N step 3 {\n"
			"    z[i] = i * 7;\n"
			"    p[i] = x[i];\n"
			"  }\n"
			"}\n");
	float x[10];
	for (int i = 0; i < 10; i++)
		x[i] = (float)(i * 1.5 - 4);
	put_f32("x", 10, x);
	if (run(&l) == 0) {
		float *y = get("y", SOLAR_NPY_F4, 10);
		for (int i = 0; y && i < 10; i++)
			CHECK(y[i] == (i < 3 ? 1.0f : i == 5 ? 2.0f : x[i] * 2));
		int32_t *z = get("z", SOLAR_NPY_I4, 10);
		for (int i = 0; z && i < 10; i++)
			CHECK(z[i] == (i % 3 == 1 ? i * 7 : INT32_MIN));
		float *p = get("p", SOLAR_NPY_F4, 10);
		for (int i = 0; p && i < 10; i++)
			CHECK(i % 3 == 1 ? p[i] == x[i] : isnan(p[i]));
	}
	unload(&l);
}

/* Integer stores wrap, float-to-integer truncates toward zero, bool is 0/1, casts round. */
static void test_integers(void)
{
	loaded l = load("air 1;\n"
			"param N = 6;\n"
			"in a[N]: i32;\n"
			"in x[N]: f32;\n"
			"out w8[N]: i8;\n"
			"out u[N]: u8;\n"
			"out t[N]: i32;\n"
			"out b[N]: bool;\n"
			"out s[N]: f32;\n"
			"kernel k {\n"
			"  for i in 0..N {\n"
			"    w8[i] = a[i] * 100;\n"
			"    u[i] = a[i] - 3;\n"
			"    t[i] = x[i] * 2;\n"
			"    b[i] = x[i] > 0 and a[i] != 2;\n"
			"    s[i] = select(x[i] > 0, x[i], 0.5 * x[i]) + f32(i32(x[i])) + bf16(x[i]);\n"
			"  }\n"
			"}\n");
	int32_t a[6] = {1, 2, 3, -4, 100, -100};
	float x[6] = {1.75f, -1.75f, 2.5f, -0.25f, 3.0f + 0x1p-9f, -7.9f};
	int64_t n = 6;
	put("a", SOLAR_NPY_I4, 1, &n, a);
	put_f32("x", 6, x);
	if (run(&l) == 0) {
		int8_t *w8 = get("w8", SOLAR_NPY_I1, 6);
		for (int i = 0; w8 && i < 6; i++)
			CHECK(w8[i] == (int8_t)(uint8_t)(a[i] * 100 & 0xff));
		uint8_t *u = get("u", SOLAR_NPY_U1, 6);
		for (int i = 0; u && i < 6; i++)
			CHECK(u[i] == (uint8_t)((a[i] - 3) & 0xff));
		int32_t *t = get("t", SOLAR_NPY_I4, 6);
		for (int i = 0; t && i < 6; i++)
			CHECK(t[i] == (int32_t)trunc(x[i] * 2.0));
		uint8_t *b = get("b", SOLAR_NPY_B1, 6);
		for (int i = 0; b && i < 6; i++)
			CHECK(b[i] == (x[i] > 0 && a[i] != 2));
		float *s = get("s", SOLAR_NPY_F4, 6);
		for (int i = 0; s && i < 6; i++) {
			float want = (x[i] > 0 ? x[i] : 0.5f * x[i]) + (float)trunc(x[i]);
			want = want + (float)to_bf16(x[i]);
			CHECK(s[i] == want);
		}
	}
	unload(&l);
}

/* inout tensors are read and written; a scalar (rank 0) tensor; f64 computes in double. */
static void test_inout(void)
{
	loaded l = load("air 1;\n"
			"param N = 5;\n"
			"inout acc[N]: f64;\n"
			"in x[N]: f64;\n"
			"out total: f64;\n"
			"kernel k {\n"
			"  total = 0;\n"
			"  for i in 0..N {\n"
			"    acc[i] += x[i] * x[i] / 3;\n"
			"    total += acc[i];\n"
			"  }\n"
			"}\n");
	double acc[5] = {1, 2, 3, 4, 5}, x[5] = {0.1, 0.2, 0.3, 0.4, 0.5};
	int64_t n = 5;
	put("acc", SOLAR_NPY_F8, 1, &n, acc);
	put("x", SOLAR_NPY_F8, 1, &n, x);
	if (run(&l) == 0) {
		double *o = get("acc", SOLAR_NPY_F8, 5);
		double total = 0;
		for (int i = 0; i < 5; i++) {
			double v = acc[i] + x[i] * x[i] / 3;
			CHECK(o && o[i] == v);
			total += v;
		}
		double *t = get("total", SOLAR_NPY_F8, 1);
		CHECK(t && t[0] == total);
	}
	unload(&l);
}

/* ---- the launch plan: which loops become GPU threads ---- */

static void plan_of(const char *text, int launch, int depth, int parallel, int64_t threads)
{
	loaded l = load(text);
	CHECK(l.p != NULL);
	if (!l.p)
		return;
	solar_analysis *a = solar_analysis_new(l.p, l.d);
	solar_plan plan;
	CHECK(solar_plan_build(l.p, a, &plan, on(stderr)) == 0);
	CHECK(launch < plan.nlaunch);
	if (launch < plan.nlaunch) {
		const solar_launch *x = &plan.launch[launch];
		CHECKF(x->depth == depth && x->parallel == parallel && x->threads == threads,
		       "launch %d: depth %d, parallel %d, threads %lld", launch, x->depth,
		       x->parallel, (long long)x->threads);
	}
	solar_plan_free(&plan);
	solar_analysis_free(a);
	unload(&l);
}

static void test_plan(void)
{
	/* matmul: i and j parallel, k sequential in each thread */
	plan_of("air 1;\nparam M = 6, N = 5, K = 4;\nin a[M, K], b[K, N]: f32;\nout c[M, N]: f32;\n"
		"for i in 0..M, j in 0..N {\n  c[i, j] = 0;\n"
		"  for k in 0..K { c[i, j] += a[i, k] * b[k, j]; }\n}\n",
		0, 2, 2, 30);
	/* a prefix sum carries a dependence on i: one thread */
	plan_of("air 1;\nparam N = 8;\nin x[N]: f32;\ninout y[N]: f32;\n"
		"for i in 1..N { y[i] = y[i - 1] + x[i]; }\n",
		0, 1, 0, 1);
	/* a row sum written as one header: i parallel, j reduces */
	plan_of("air 1;\nparam N = 8, M = 3;\nin x[N, M]: f32;\nout y[N]: f32;\n"
		"for i in 0..N { y[i] = 0; }\nfor i in 0..N, j in 0..M { y[i] += x[i, j]; }\n",
		1, 2, 1, 8);
	/* the outer loop carries the dependence: nothing is parallel */
	plan_of("air 1;\nparam N = 8, M = 3;\nin x[N, M]: f32;\ninout y[M]: f32;\n"
		"for i in 0..N { for j in 0..M { y[j] = y[j] + x[i, j]; } }\n",
		0, 2, 0, 1);
	/* a triangle: both loops parallel over the bounding box, j checked per thread */
	plan_of("air 1;\nparam S = 6;\nin x[S, S]: f32;\nout y[S, S]: f32;\n"
		"for i in 0..S, j in 0..i + 1 { y[i, j] = x[i, j] * 2; }\n",
		0, 2, 2, 36);
	/* a stepped loop: threads only for the values it takes */
	plan_of("air 1;\nparam N = 10;\nin x[N]: f32;\nout y[N]: f32;\n"
		"for i in 1..N step 3 { y[i] = x[i]; }\n",
		0, 1, 1, 3);
	/* a statement outside any loop */
	plan_of("air 1;\nin x[4]: f32;\nout y: f32;\nkernel k { y = x[1]; }\n", 0, 0, 0, 1);
	/* AIR 1.1: a gather is parallel over both loops */
	plan_of("air 1.1;\nparam T = 4, V = 9, D = 3;\nin ids[T]: i64 in 0..V;\nin e[V, D]: f32;\n"
		"out y[T, D]: f32;\nfor t in 0..T, d in 0..D { y[t, d] = e[ids[t], d]; }\n",
		0, 2, 2, 12);
	/* a scatter may send two t to one element: t is sequential, d parallel */
	plan_of("air 1.1;\nparam T = 4, V = 9, D = 3;\nin ids[T]: i64 in 0..V;\nin x[T, D]: f32;\n"
		"inout g[V, D]: f32;\nfor t in 0..T, d in 0..D { g[ids[t], d] += x[t, d]; }\n",
		0, 2, 0, 1);
	/* a gather of the tensor the nest writes may read what another thread writes */
	plan_of("air 1.1;\nparam T = 4;\nin ids[T]: i64 in 0..T;\ninout y[T]: f32;\n"
		"for t in 0..T { y[t] = y[ids[t]] + 1; }\n",
		0, 1, 0, 1);
}

/* ---- every example's CUDA source compiles (where NVRTC is) ---- */

static void test_examples_cuda(void)
{
	static const char *names[] = {"matmul_f32", "matmul_bf16", "bmm", "attention_causal",
				      "softmax", "layernorm", "conv2d_7x7_s2", "mlp_block",
				      "embedding", "moe_layer"};
	for (size_t i = 0; i < sizeof names / sizeof *names && have_nvrtc; i++) {
		char path[128];
		snprintf(path, sizeof path, "examples/%s.air", names[i]);
		int32_t len;
		char *src = solar_read_file(path, &len, on(stderr));
		CHECK(src != NULL);
		if (!src)
			continue;
		solar_diag *d = solar_diag_new(path, src, len, stderr);
		solar_program *p = solar_frontend_load(path, src, len, NULL, 0, d);
		solar_analysis *a = p ? solar_analysis_new(p, d) : NULL;
		CHECK(a != NULL);
		solar_plan plan = {0};
		if (a && solar_plan_build(p, a, &plan, on(stderr)) == 0) {
			for (int k = 0; k < plan.nlaunch; k++) /* every example nest is parallel */
				CHECK(plan.launch[k].parallel > 0);
			solar_npy_type in[64];
			for (int t = 0; t < 64; t++)
				in[t] = SOLAR_NPY_F4;
			/* the program, and the float64 rule's two runs of it (f64 tensors, and the
			 * accumulator run's rounding kernels) */
			for (int w = SOLAR_WIDE_NONE; w <= SOLAR_WIDE_REDUCED && have_nvrtc; w++) {
				bool *wide = solar_validate_wide_set(p, (solar_wide)w);
				solar_program wp;
				solar_tensor *ts = solar_validate_widen(p, wide, &wp);
				char *cu = solar_codegen_cuda(&wp, path, &plan, in,
							      w == SOLAR_WIDE_REDUCED ? wide : NULL);
				bool any = false;
				for (int t = 0; t < p->ntensors; t++)
					any |= wide[t] && p->tensors[t].dtype == SOLAR_DT_F32;
				if (w == SOLAR_WIDE_REDUCED) /* rounded iff an f32 reduction */
					CHECK((strstr(cu, "solar_round_") != NULL) == any);
				if (w == SOLAR_WIDE_ALL) /* no f32 tensor left */
					CHECK(!strstr(cu, "float *__restrict__ t_"));
				compiles(cu);
				free(ts);
				free(wide);
			}
		}
		solar_plan_free(&plan);
		solar_analysis_free(a);
		solar_program_free(p);
		solar_diag_free(d);
		free(src);
	}
}

static bool have_cc(void)
{
	const char *cc = getenv("SOLAR_CC");
	char *argv[] = {(char *)(cc && *cc ? cc : "cc"), "--version", NULL};
	solar_proc r;
	if (solar_proc_run(
		argv, &(solar_proc_how){.capture_out = true, .capture_err = true, .timeout_s = 30},
		&r) < 0)
		return false;
	bool ok = r.status == 0;
	solar_proc_free(&r);
	return ok;
}

static void remove_dir(void)
{
	char cmd[300];
	static const char *names[] = {"air_prog", "air_prog.c"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(cmd, sizeof cmd, "%s/%s", dir, names[i]);
		unlink(cmd);
	}
	/* the .npy files: in_* and air_* of every case */
	static const char *npy[] = {"a", "b", "c", "x", "k", "weight", "y", "qi", "ri", "qf", "rf",
				    "g", "h", "z", "p", "w8", "u", "t", "s", "acc", "total", "yb",
				    "yh", "y4", "y5", "t3"};
	for (size_t i = 0; i < sizeof npy / sizeof *npy; i++) {
		unlink(path_of("in_", npy[i]));
		unlink(path_of("air_", npy[i]));
	}
	rmdir(dir);
}

int main(void)
{
	test_plan();
	test_examples_cuda();
	if (!have_cc()) {
		fprintf(stderr, "test_codegen: no C compiler (cc or $SOLAR_CC): skipped\n");
		return 77;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/solar-test-codegen-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "test_codegen: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	test_matmul();
	test_conv();
	test_softmax();
	test_rounding();
	test_divmod();
	test_control();
	test_integers();
	test_inout();
	solar_npy_free(&last);
	remove_dir();
	fprintf(stderr, "test_codegen: %d checks, %d failures%s\n", checks, failures,
		have_nvrtc ? "" : " (NVRTC absent: CUDA sources not compiled)");
	return failures != 0;
}
