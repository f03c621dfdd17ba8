/* test_ops.c - rule "ops per instance" and rule "identity combine" (docs/bounds.md, "Counting"):
 * two spellings of one computation get one count, and counts match ones worked out by hand.
 *
 * Each case is a small AIR program; its ops per datapath are summed over the whole program and
 * compared with another spelling's, or with numbers written here.  Folding (constants, params),
 * merged constants in a chain, common subexpressions, hoisting of work on `in` tensors out of
 * the loops it does not use, and the combines of reductions (n terms into an identity need
 * n - 1; into any other value n) are covered.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/work.h"
#include "check.h"
#include "frontend/frontend.h"

typedef struct {
	double simt, sfu, tensor;
} totals;

static double unit_sum(const solar_ops *o, int u)
{
	double s = 0;
	for (int q = 0; q < SOLAR_PREC_COUNT; q++)
		if (o->v[u][q])
			s += solar_count_double(o->v[u][q]);
	return s;
}

/* The whole program's ops of `body` after a fixed set of declarations. */
static totals count(const char *body)
{
	static const char *decls = "air 1;\n"
				   "param N = 64, M = 32, D = 16;\n"
				   "in x[N, M], m[N], b[N], w[M, M], u[M, M]: f32;\n"
				   "inout z[N]: f32;\n"
				   "tmp t[N, M], r[N], e[N], acc[N, M]: f32;\n"
				   "out y[N, M], s[N], h[N, M // 2, 2]: f32;\n";
	size_t n = strlen(decls) + strlen(body) + 1;
	char *src = malloc(n);
	snprintf(src, n, "%s%s", decls, body);
	totals t = {-1, -1, -1};
	FILE *devnull = fopen("/dev/null", "w"); /* warnings: outputs this case does not write */
	solar_diag *d = solar_diag_new("case.air", src, (int32_t)strlen(src), devnull);
	solar_program *p = solar_frontend_load("case.air", src, (int32_t)strlen(src), NULL, 0, d);
	solar_work *w = p ? solar_work_count(p, SOLAR_MATH_STRICT, d) : NULL;
	CHECKF(w, "does not count:\n%s", body);
	if (w) {
		t.simt = unit_sum(&w->total.ops, SOLAR_UNIT_SIMT);
		t.sfu = unit_sum(&w->total.ops, SOLAR_UNIT_SFU);
		t.tensor = unit_sum(&w->total.ops, SOLAR_UNIT_TENSOR);
	}
	solar_work_free(w);
	solar_program_free(p);
	solar_diag_free(d);
	fclose(devnull);
	free(src);
	return t;
}

#define SAME(a, b)                                                                          \
	do {                                                                                \
		totals ta = count(a), tb = count(b);                                        \
		CHECKF(ta.simt == tb.simt && ta.sfu == tb.sfu && ta.tensor == tb.tensor,    \
		       "%s\n  %g simt %g sfu %g tensor\nvs\n%s\n  %g simt %g sfu %g tensor", a, \
		       ta.simt, ta.sfu, ta.tensor, b, tb.simt, tb.sfu, tb.tensor);          \
	} while (0)

#define IS(a, want_simt, want_sfu)                                                          \
	do {                                                                                \
		totals ta = count(a);                                                       \
		CHECKF(ta.simt == (want_simt) && ta.sfu == (want_sfu),                      \
		       "%s\n  %g simt %g sfu, expected %g simt %g sfu", a, ta.simt, ta.sfu,  \
		       (double)(want_simt), (double)(want_sfu));                             \
	} while (0)

int main(void)
{
	const double E = 64 * 32; /* elements of x, y, t */

	/* folding: constants, consts and params cost nothing per element */
	SAME("for i in 0..N, j in 0..M { y[i, j] = x[i, j] * (1.0 / 3.0); }",
	     "for i in 0..N, j in 0..M { y[i, j] = x[i, j] * 0.333; }");
	IS("for i in 0..N, j in 0..M { y[i, j] = x[i, j] * (1.0 / 3.0) * rsqrt(D) * exp(2.0); }",
	   E, 0);
	IS("for i in 0..N, j in 0..M { y[i, j] = x[i, j] / D + f32(i) * 0.5; }", 2 * E, 0);
	/* merged constants: x * a * y * b is x * y * (a * b); x / a / b - c + d is x * k + l */
	SAME("for i in 0..N, j in 0..M { y[i, j] = x[i, j] * 2.0 * m[i] * 3.0; }",
	     "for i in 0..N, j in 0..M { y[i, j] = 6.0 * (x[i, j] * m[i]); }");
	SAME("for i in 0..N, j in 0..M { y[i, j] = (x[i, j] * 2.0) * (x[i, 31 - j] / 3.0); }",
	     "for i in 0..N, j in 0..M { y[i, j] = 6.0 * (x[i, j] * x[i, 31 - j]); }");
	SAME("for i in 0..N, j in 0..M { y[i, j] = (x[i, j] + 1.0) + (2.0 - x[i, 31 - j]) - 4.0; }",
	     "for i in 0..N, j in 0..M { y[i, j] = x[i, j] - x[i, 31 - j] - 1.0; }");
	/* hoisting before merging: m[i] / 3.0 is one value per i, x * 2.0 one per element, and
	 * their product merges its constants (x * (m * 2/3) with the factor per i) */
	IS("for i in 0..N, j in 0..M { y[i, j] = (x[i, j] * 2.0) * (m[i] / 3.0); }", E + 64, 0);
	SAME("for i in 0..N, j in 0..M { y[i, j] = -(x[i, j] / 2.0) / 4.0 - 1.0 + 2.0; }",
	     "for i in 0..N, j in 0..M { y[i, j] = x[i, j] * -0.125 + 1.0; }");
	IS("for i in 0..N, j in 0..M { y[i, j] = max(x[i, j], 0.0, 1.0); }", E, 0);
	/* common subexpressions: (x - m) * (x - m) is d = x - m; d * d */
	SAME("for i in 0..N, j in 0..M { y[i, j] = (x[i, j] - m[i]) * (x[i, j] - m[i]); }",
	     "for i in 0..N, j in 0..M { t[i, j] = x[i, j] - m[i]; }\n"
	     "for i in 0..N, j in 0..M { y[i, j] = t[i, j] * t[i, j]; }");
	SAME("for i in 0..N, j in 0..M { y[i, j] = x[i, j] * m[i] + m[i] * x[i, j]; }",
	     "for i in 0..N, j in 0..M { y[i, j] = 2.0 * (x[i, j] * m[i]); }");
	SAME("for i in 0..N, j in 0..M { y[i, j] = exp(x[i, j] * 0.5) / (1.0 + exp(x[i, j] * 0.50)); }",
	     "for i in 0..N, j in 0..M { t[i, j] = exp(x[i, j] * 0.5); }\n"
	     "for i in 0..N, j in 0..M { y[i, j] = t[i, j] / (1.0 + t[i, j]); }");
	/* different indices are different values */
	IS("for i in 0..N, j in 0..M { y[i, j] = (x[i, j] - m[i]) * (x[i, 0] - m[i]); }",
	   2 * E + 64, 0);
	/* hoisting: exp(b[i]) has one value per i, as if computed into a tmp first */
	SAME("for i in 0..N, j in 0..M { y[i, j] = x[i, j] * exp(b[i] * 2.0); }",
	     "for i in 0..N { e[i] = exp(b[i] * 2.0); }\n"
	     "for i in 0..N, j in 0..M { y[i, j] = x[i, j] * e[i]; }");
	IS("for i in 0..N, j in 0..M { acc[i, j] = 0; for k in 0..M { acc[i, j] += (w[i % 32, k] * 2.0) * u[k, j]; } }",
	   2 * E * 32 + 32 * 32, 0);
	/* and of a tmp the kernel writes in another loop nest first: t is fixed while y runs (a
	 * fused attention's exp(s - max) once per score, not once per score and output column) */
	IS("for i in 0..N, j in 0..M { t[i, j] = x[i, j]; }\n"
	   "for i in 0..N, j in 0..M { y[i, j] = x[i, j] * exp(t[i, 0]); }",
	   E, 64);
	/* but not where t may change between the instances: written under the same loops, the key
	 * includes them (rule "hoisting", fixed_loops) */
	IS("for i in 0..N, j in 0..M { t[i, 0] = x[i, j]; y[i, j] = x[i, j] * exp(t[i, 0]); }",
	   E, E);
	IS("for i in 0..N { for j in 0..M { t[i, j] = x[i, j]; }\n"
	   "  for j in 0..M { y[i, j] = x[i, j] * exp(t[i, 0]); } }",
	   E, 64);
	IS("for j in 0..M { for i in 0..N { t[i, 0] = x[i, j]; }\n"
	   "  for i in 0..N { y[i, j] = x[i, j] * exp(t[i, 0]); } }",
	   E, E);
	/* identity combine: a 2x2 max pool takes 3 max per window, a row sum N - 1 adds */
	IS("for i in 0..N, j in 0..M // 2 { h[i, j, 0] = -inf;\n"
	   "  for q in 0..2 { h[i, j, 0] max= x[i, 2*j + q]; } }\n"
	   "for i in 0..N, j in 0..M // 2 { h[i, j, 1] = -inf;\n"
	   "  for q in 0..2 { h[i, j, 1] max= x[i, 2*j + q] + 1.0; } }",
	   64 * 16 * (1 + 2 + 1), 0);
	IS("for i in 0..N { s[i] = 0; for j in 0..M { s[i] += x[i, j]; } }", 64 * 31, 0);
	SAME("for i in 0..N { s[i] = 0; for j in 0..M { s[i] += x[i, j]; } }",
	     "for i in 0..N { s[i] = x[i, 0]; for j in 1..M { s[i] += x[i, j]; } }");
	/* a non-identity start needs its combine: n terms into z take n adds */
	IS("for i in 0..N { z[i] += m[i]; for j in 0..M { z[i] += x[i, j]; } }", 64 * 33, 0);
	IS("for i in 0..N { s[i] = 1.0; for j in 0..M { s[i] += x[i, j]; } }", 64 * 32, 0);
	IS("for i in 0..N { s[i] = 0; for j in 0..M { s[i] max= x[i, j]; } }", 64 * 32, 0);
	/* two reductions into one sum: 2M terms, 2M - 1 adds per row */
	IS("for i in 0..N { r[i] = 0; for j in 0..M { r[i] += x[i, j]; }\n"
	   "  for j in 0..M { r[i] += m[i] * x[i, j]; } s[i] = r[i]; }",
	   64 * (2 * 32 - 1) + 64 * 32, 0);
	/* a reset accumulator: every run of M terms takes M - 1 adds */
	IS("for k in 0..4 { for i in 0..N { r[i] = 0; for j in 0..M { r[i] += x[i, j]; }\n"
	   "  s[i] = r[i]; } }",
	   4 * 64 * 31, 0);
	/* a contraction keeps 2 ops per multiply-accumulate (one FMA slot each) */
	{
		totals t = count("for i in 0..M, j in 0..M { acc[i, j] = 0;\n"
				 "  for k in 0..M { acc[i, j] += w[i, k] * u[k, j]; } }");
		CHECKF(t.simt == 2.0 * 32 * 32 * 32, "%g", t.simt);
	}
	printf("test_ops: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
