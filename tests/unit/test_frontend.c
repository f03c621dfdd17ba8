/* test_frontend.c - the front end on good programs, bad programs and hostile input.
 *
 * Good programs are loaded and their IR inspected field by field (ranks, iterator ids,
 * kernel split, statement order, -D overrides, const values); every good program also goes
 * through print -> reparse -> solar_ir_equal and print -> print (idempotence).  Bad programs
 * must fail with the expected message.  Hostile inputs (deep nesting, 100000 statements, huge
 * literals, random bytes) must end, with an error or not, in well under a second each.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/frontend.h"


#include "check.h"

/* The diagnostics of the last load. */
static char *diag_text;

/* Loads src with -D defs; the diagnostics go to diag_text. */
static solar_program *load_d(const char *src, size_t len, const solar_define *defs, int ndefs)
{
	free(diag_text);
	diag_text = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&diag_text, &n);
	solar_diag *d = solar_diag_new("t.air", src, (int32_t)len, mem);
	solar_program *p = solar_frontend_load("t.air", src, (int32_t)len, defs, ndefs, d);
	solar_diag_finish(d);
	solar_diag_free(d);
	fclose(mem);
	return p;
}

static solar_program *load(const char *src) { return load_d(src, strlen(src), NULL, 0); }

static bool has_error(const char *needle) { return diag_text && strstr(diag_text, needle); }

static char *print(const solar_program *p)
{
	char *text = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&text, &n);
	solar_ir_print(p, mem);
	fclose(mem);
	return text;
}

/* print -> parse -> equal, and print is a fixed point. */
static void round_trip(const solar_program *p, const solar_define *defs, int ndefs)
{
	char *a = print(p);
	solar_program *q = load_d(a, strlen(a), defs, ndefs);
	CHECK(q != NULL);
	if (!q) {
		fprintf(stderr, "canonical form does not parse:\n%s\n%s", a, diag_text);
		free(a);
		return;
	}
	CHECK(solar_ir_equal(p, q));
	char *b = print(q);
	CHECK(!strcmp(a, b));
	free(a);
	free(b);
	solar_program_free(q);
}

static const char attention[] = "# causal attention scores\n"
				"air 1;\n"
				"param B = 8, S = 2048, D = 64;\n"
				"const H = 16, STRIDE = 2, PAD = STRIDE - 1;\n"
				"in  Q[B, H, S, D], K[B, H, S, D]: bf16;\n"
				"tmp P[B*H, S, S]: f32;\n"
				"out loss: f32;\n"
				"kernel scores {\n"
				"  for b in 0..B, h in 0..H, i in 0..S, j in 0..i+1 {\n"
				"    P[b*H + h, i, j] = 0;\n"
				"    for d in 0..D step 1 {\n"
				"      P[b*H + h, i, j] += Q[b, h, i, d] * K[b, h, j, d];\n"
				"    }\n"
				"  }\n"
				"}\n"
				"loss = 0;\n"
				"for i in 0..S step STRIDE {\n"
				"  loss += P[0, i, 0];\n"
				"}\n";

static void test_attention(void)
{
	solar_program *p = load(attention);
	CHECK(p != NULL);
	if (!p) {
		fputs(diag_text, stderr);
		return;
	}
	CHECK(solar_ir_verify(p, on(stderr)) == 0);
	CHECK(p->air_version == 1);
	CHECK(p->nparams == 3 && !strcmp(p->params[1].name, "S") && p->params[1].value == 2048);
	CHECK(p->nconsts == 3 && p->consts[1].value == 2 && p->consts[2].value == 1);
	CHECK(p->ntensors == 4);
	CHECK(p->tensors[0].rank == 4 && p->tensors[0].dtype == SOLAR_DT_BF16 &&
	      p->tensors[0].role == SOLAR_ROLE_IN);
	CHECK(p->tensors[0].decl_group == 0 && p->tensors[1].decl_group == 0 &&
	      p->tensors[2].decl_group == 1);
	CHECK(p->tensors[2].rank == 3 && p->tensors[2].extent[0] == 8 * 16 &&
	      p->tensors[2].extent[2] == 2048);
	CHECK(p->tensors[3].rank == 0 && p->tensors[3].role == SOLAR_ROLE_OUT);

	/* kernels: scores (explicit), loss (implicit bare statement), loss_2 (implicit nest) */
	CHECK(p->nkernels == 3);
	CHECK(!strcmp(p->kernels[0].name, "scores") && !p->kernels[0].implicit);
	CHECK(!strcmp(p->kernels[1].name, "loss") && p->kernels[1].implicit);
	CHECK(!strcmp(p->kernels[2].name, "loss_2") && p->kernels[2].implicit);
	CHECK(p->kernels[0].first_stmt == 0 && p->kernels[0].nstmts == 2);
	CHECK(p->kernels[1].first_stmt == 2 && p->kernels[1].nstmts == 1);
	CHECK(p->kernels[2].first_stmt == 3 && p->kernels[2].nstmts == 1);

	/* iterators: b h i j d, then the second nest's i (a new id) */
	CHECK(p->niters == 6);
	CHECK(!strcmp(p->iters[3].name, "j") && !strcmp(p->iters[5].name, "i"));
	CHECK(p->nstmts == 4);
	const solar_stmt *s1 = p->stmts[1];
	CHECK(s1->id == 1 && s1->kernel == 0 && s1->op == SOLAR_ADD_TO && s1->depth == 5);
	CHECK(s1->loops[0] == 0 && s1->loops[3] == 3 && s1->loops[4] == 4);
	CHECK(s1->index[0]->kind == SOLAR_E_BIN && s1->index[0]->binop == SOLAR_OP_ADD);
	CHECK(s1->value->kind == SOLAR_E_BIN && s1->value->args[0]->kind == SOLAR_E_ACCESS &&
	      s1->value->args[0]->nargs == 4);
	CHECK(p->stmts[2]->depth == 0 && p->stmts[2]->tensor == 3 && p->stmts[2]->kernel == 1);
	CHECK(p->stmts[3]->depth == 1 && p->stmts[3]->loops[0] == 5);

	/* loop structure: the joined header is nested FOR nodes */
	const solar_node *f = p->kernels[0].body.items[0];
	CHECK(f->kind == SOLAR_N_FOR && f->loop.iter == 0 && !f->loop.joined);
	const solar_node *g = f->loop.body.items[0];
	CHECK(g->kind == SOLAR_N_FOR && g->loop.iter == 1 && g->loop.joined);
	const solar_node *j = g->loop.body.items[0]->loop.body.items[0];
	CHECK(j->loop.iter == 3 && j->loop.hi->kind == SOLAR_E_BIN);
	CHECK(j->loop.body.n == 2 && j->loop.body.items[1]->loop.step != NULL &&
	      j->loop.body.items[1]->loop.step_value == 1);
	const solar_node *last = p->kernels[2].body.items[0];
	CHECK(last->loop.step_value == 2 && last->loop.step->kind == SOLAR_E_CONST);
	round_trip(p, NULL, 0);
	solar_program_free(p);
}

static void test_defines(void)
{
	const char *src = "air 1;\n"
			  "param N = 4, S;\n"
			  "out y[N, S + 1]: f32;\n"
			  "for i in 0..N, j in 0..S { y[i, j] = 1; }\n";
	solar_program *p = load(src);
	CHECK(p == NULL && has_error("param 'S' has no default; give it with -D S=VALUE"));
	solar_define defs[] = {{"S", 10}, {"N", 7}};
	p = load_d(src, strlen(src), defs, 2);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(p->params[0].value == 7 && p->params[0].overridden && p->params[0].has_default &&
	      p->params[0].default_value == 4);
	CHECK(p->params[1].value == 10 && !p->params[1].has_default);
	CHECK(p->tensors[0].extent[0] == 7 && p->tensors[0].extent[1] == 11);
	round_trip(p, defs, 2);
	char *text = print(p);
	CHECK(strstr(text, "param N = 4;\nparam S;\n") != NULL); /* the declared default */
	free(text);
	solar_program_free(p);

	solar_define unknown[] = {{"Q", 1}};
	p = load_d(src, strlen(src), unknown, 1);
	CHECK(p == NULL && has_error("t.air: error: -D Q=1: there is no param 'Q'"));
	solar_define neg[] = {{"S", -1}};
	p = load_d(src, strlen(src), neg, 1);
	CHECK(p == NULL && has_error("extent of dimension 2 of 'y' is 0 (S=-1)"));
}

static void test_consts(void)
{
	solar_program *p = load("air 1;\n"
				"const A = -7 // 2, B = -7 % 2, C = 7 % -2, D = (A + 1) * 3 - B,\n"
				"      E = 9223372036854775807, F = 7 // -2;\n");
	CHECK(p != NULL);
	if (!p) {
		fputs(diag_text, stderr);
		return;
	}
	CHECK(p->consts[0].value == -4);
	CHECK(p->consts[1].value == 1);
	CHECK(p->consts[2].value == -1);
	CHECK(p->consts[3].value == -10);
	CHECK(p->consts[4].value == INT64_MAX);
	CHECK(p->consts[5].value == -4);
	CHECK(p->nkernels == 0 && p->nstmts == 0);
	round_trip(p, NULL, 0);
	solar_program_free(p);
	CHECK(!load("air 1;\nconst A = 9223372036854775807 + 1;\n") &&
	      has_error("integer overflow in"));
	CHECK(!load("air 1;\nconst A = 1 // 0;\n") && has_error("division by zero in '1 // 0'"));
}

static void test_implicit_names(void)
{
	solar_program *p =
	    load("air 1;\nparam N = 4;\nout softmax[N], y: f32;\n"
		 "for i in 0..N { softmax[i] = 0; }\n"
		 "for i in 0..N { softmax[i] += 1; }\n"
		 "kernel softmax_2 { y = 0; }\n"
		 "for i in 0..N { softmax[i] *= 2; }\n"
		 "for i in 0..N { }\n"
		 "if 1 > N { y = 1; } else if N > 2 { y max= 2; } else { y min= 3; }\n");
	CHECK(p != NULL);
	if (!p) {
		fputs(diag_text, stderr);
		return;
	}
	CHECK(p->nkernels == 6);
	CHECK(!strcmp(p->kernels[0].name, "softmax"));
	CHECK(!strcmp(p->kernels[1].name, "softmax_3")); /* softmax_2 is an explicit kernel */
	CHECK(!strcmp(p->kernels[2].name, "softmax_2") && !p->kernels[2].implicit);
	CHECK(!strcmp(p->kernels[3].name, "softmax_4"));
	CHECK(!strcmp(p->kernels[4].name, "kernel") && p->kernels[4].nstmts == 0);
	CHECK(!strcmp(p->kernels[5].name, "y") && p->kernels[5].nstmts == 3);
	const solar_node *n = p->kernels[5].body.items[0];
	CHECK(n->kind == SOLAR_N_IF && n->cond.els.n == 1 &&
	      n->cond.els.items[0]->kind == SOLAR_N_IF && n->cond.els.items[0]->cond.els.n == 1);
	CHECK(p->stmts[5]->op == SOLAR_MAX_TO && p->stmts[6]->op == SOLAR_MIN_TO);
	round_trip(p, NULL, 0);
	solar_program_free(p);
}

static void test_values(void)
{
	solar_program *p = load(
	    "air 1;\nparam N = 4;\nconst K = 3;\nin x[N]: f32;\nout y[N]: bf16;\n"
	    "for i in 0..N {\n"
	    "  y[i] = select(x[i] > 0 and not (i == 2 or i != 3), -x[i], f32(i) / N) + "
	    "-inf * 1e-5 - (2.50 - -x[i]) * exp(x[i]) // 2 % 3 + max(x[i], 1, 2) + pow(x[i], 2);\n"
	    "  y[min(i, N - 1)] += (x[i] - x[i]) - (x[i] - (x[i] - 1)) + x[(i + K) % (K + 1)] + "
	    "x[i // 2 * 2] + x[-(-i)] + x[K * i - i * K + i];\n"
	    "  if not (i < 2) and (i >= 1 or i <= 0) { y[i] = 0; }\n"
	    "}\n");
	CHECK(p != NULL);
	if (!p) {
		fputs(diag_text, stderr);
		return;
	}
	round_trip(p, NULL, 0);
	char *text = print(p);
	CHECK(strstr(text, "2.50") != NULL); /* floats keep their text */
	CHECK(strstr(text, "(2.50 - -x[i])") != NULL);
	CHECK(strstr(text, "(x[i] - x[i]) - (x[i] - (x[i] - 1))") == NULL);
	CHECK(strstr(text, "x[i] - x[i] - (x[i] - (x[i] - 1))") != NULL);
	CHECK(strstr(text, "not i < 2 and (i >= 1 or i <= 0)") != NULL);
	free(text);
	solar_program_free(p);
}

/* Each bad program fails with the given message. */
static void test_errors(void)
{
	static const struct {
		const char *src, *msg;
	} cases[] = {
	    {"param N = 1;", "missing `air 1;` header"},
	    {"", "missing `air 1;` header"},
	    {"air 3;", "AIR version 3 is not supported"},
	    {"air 1; param N = 8; in x[N]: f32; out y[N]: f32;\n"
	     "for i in 0..N { y[i] = x[i*N]; }",
	     "index 'i*N' is not affine: N is a param; multiplying it by an iterator is not "
	     "affine (declare N with `const` if its value is fixed)"},
	    {"air 1; param N = 8; in x[N]: f32; out y[N]: f32;\n"
	     "for i in 0..N { y[i] = x[i/2]; }",
	     "use // for floor division"},
	    {"air 1; param N = 8; in x[N]: f32; out y[N]: f32;\n"
	     "for i in 0..N { x[i] = 1; }",
	     "cannot write 'x': it is declared `in`; declare it `inout`"},
	    {"air 1; param N = 8; in A[N, N]: f32; out y[N]: f32;\n"
	     "for i in 0..N { y[i] = A[i, i, i]; }",
	     "tensor 'A' has rank 2 but is indexed with 3 indices"},
	    {"air 1; param N = 8; in A[N]: f32; out y[N]: f32;\n"
	     "for i in 0..N { y[i] = A[A[i]]; }",
	     "'A' is f32: only an integer tensor with a value range can be read inside an index"},
	    {"air 1; out y: f32; y = 1 +;", "unexpected ';', expected an expression"},
	    {"air 1; out y: f32; y = (1;", "unexpected ';', expected ')'"},
	    {"air 1; out y: f32; y = 1", "unexpected end of file, expected ';'"},
	    {"air 1; out y: f32; y = 99999999999999999999;", "integer literal too large"},
	    {"air 1; out y: f23;", "unknown dtype 'f23'; did you mean 'f32'?"},
	    {"air 1; out y: f32; y = expp(1);", "unknown function 'expp'; did you mean 'exp'?"},
	    {"air 1; param Alpha = 1; out y: f32; y = alpha;",
	     "undeclared name 'alpha'; did you mean 'Alpha'?"},
	    {"air 1; out y: f32; for i in 0..4 { for i in 0..4 { y = 1; } }",
	     "iterator 'i' shadows the iterator 'i' of an enclosing loop"},
	    {"air 1; out y: f32; y = 1;\n\x01", "unexpected character '\\x01'"},
	    {"air 1; out y: f32; y = max(1);", "function 'max' takes at least 2 arguments, not 1"},
	    {"air 1; out y: f32; for i in 0..4 step 0 { y = 1; }", "the step must be positive"},
	    {"air 1; out y: f32; kernel k { y = 1; } kernel k { y = 2; }",
	     "duplicate kernel name 'k'"},
	    {"air 1; out y: f32; y = 1; out y: f32;", "duplicate declaration of 'y'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		solar_program *p = load(cases[i].src);
		bool ok = p == NULL && has_error(cases[i].msg);
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  case %zu: %s\n  got: %s\n", i, cases[i].src,
				diag_text ? diag_text : "");
		solar_program_free(p);
	}
	/* a warning is not an error */
	solar_program *p = load("air 1; out y, z: f32; y = 1;");
	CHECK(p != NULL && has_error("warning: 'z' is declared `out` but never written"));
	solar_program_free(p);
}

/* The caret line keeps tabs and gives a UTF-8 character one column. */
static void test_diag_format(void)
{
	const char *src = "air 1;\nout y: f32;\n\t# é\n\ty = \xc3\xa9 + q;\n";
	solar_program *p = load(src);
	CHECK(p == NULL);
	CHECK(has_error("t.air:4:6: error: unexpected character 'é' (U+00E9)\n"
			"\ty = é + q;\n"
			"\t    ^\n"));
	int line, col;
	solar_diag *d = solar_diag_new("x", src, (int32_t)strlen(src), NULL);
	solar_diag_locate(d, 0, &line, &col);
	CHECK(line == 1 && col == 1);
	solar_diag_locate(d, 8, &line, &col);
	CHECK(line == 2 && col == 2);
	for (int i = 0; i < 25; i++)
		solar_diag_error(d, (solar_span){0, 1}, "e%d", i);
	CHECK(solar_diag_errors(d) == 25 && solar_diag_full(d));
	solar_diag_finish(d);
	solar_diag_free(d);

	/* 25 errors: 20 shown, then one line for the rest */
	char src2[1024] = "air 1; out y: f32;\n";
	for (int i = 0; i < 25; i++)
		snprintf(src2 + strlen(src2), sizeof src2 - strlen(src2), "y = u%d;\n", i);
	CHECK(load(src2) == NULL && has_error("t.air: note: too many errors; 5 more not shown"));
}

/* Two different programs are not equal; a broken IR fails verification. */
static void test_equal_verify(void)
{
	solar_program *a = load("air 1; out y: f32; y = 1;");
	solar_program *b = load("air 1; out y: f32; y = 2;");
	solar_program *c = load("air 1; out y: f32; y = 1.0;");
	CHECK(a && b && c);
	if (a && b && c) {
		CHECK(solar_ir_equal(a, a));
		CHECK(!solar_ir_equal(a, b));
		CHECK(!solar_ir_equal(a, c));
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		solar_diag *d = solar_diag_new("v.air", NULL, 0, mem);
		a->stmts[0]->id = 5;
		CHECK(solar_ir_verify(a, d) != 0);
		CHECK(solar_ir_verify(a, NULL) != 0); /* silent, the same verdict */
		a->stmts[0]->id = 0;
		a->stmts[0]->value->kind = SOLAR_E_ITER;
		CHECK(solar_ir_verify(a, d) != 0);
		int n = solar_diag_errors(d);
		solar_diag_free(d);
		fclose(mem);
		/* each broken invariant is one error of the file, through the diag module */
		CHECKF(n >= 2 && !strncmp(text,
					  "v.air: error: internal error: the IR of this file is "
					  "inconsistent (a bug in solar): ",
					  84),
		       "%d errors:\n%s", n, text);
		free(text);
	}
	solar_program_free(a);
	solar_program_free(b);
	solar_program_free(c);
	int32_t len; /* prints "solar: /nonexistent/file.air: No such file or directory" */
	CHECK(solar_read_file("/nonexistent/file.air", &len, NULL) == NULL);
}

/* Seconds a hostile input may take: well under a second, or ten times that in a sanitizer
 * build (ASan and UBSan at -O0 run the same work several times slower). */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
static const double time_limit_s = 10.0;
#else
static const double time_limit_s = 1.0;
#endif

/* Runs one hostile input; it must finish within time_limit_s. */
static void hostile(const char *what, const char *src, size_t len, bool want_ok)
{
	clock_t t0 = clock();
	solar_program *p = load_d(src, len, NULL, 0);
	double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
	CHECK((p != NULL) == want_ok);
	CHECK(s < time_limit_s);
	if ((p != NULL) != want_ok || s >= time_limit_s)
		fprintf(stderr, "  hostile %s: %s after %.2fs\n%.300s\n", what,
			p ? "loaded" : "failed", s, diag_text ? diag_text : "");
	if (!want_ok)
		CHECK(diag_text && strstr(diag_text, "error:"));
	solar_program_free(p);
}

static char *repeat(const char *head, const char *unit, size_t n, const char *tail, size_t *len)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
	char *s = malloc(hl + ul * n + tl + 1);
	memcpy(s, head, hl);
	for (size_t i = 0; i < n; i++)
		memcpy(s + hl + i * ul, unit, ul);
	memcpy(s + hl + n * ul, tail, tl + 1);
	*len = hl + ul * n + tl;
	return s;
}

static void test_hostile(void)
{
	size_t len;
	char *s;
	s = repeat("air 1; out y: f32;\n", "y = 1;\n", 100000, "", &len);
	hostile("100000 statements", s, len, true);
	free(s);
	s = repeat("air 1; out y: f32;\n", "y = u;\n", 100000, "", &len);
	hostile("100000 errors", s, len, false);
	free(s);
	s = repeat("air 1; out y: f32; y = ", "(", 10000, "1", &len);
	hostile("10000 parentheses", s, len, false);
	free(s);
	s = repeat("air 1; out y: f32; y = ", "-", 100000, "1;", &len);
	hostile("100000 minus signs", s, len, false);
	free(s);
	s = repeat("air 1; out y: f32; y = 1", " + 1", 100000, ";", &len);
	hostile("a sum of 100000 terms", s, len, false);
	free(s);
	s = repeat("air 1; out y: f32;\n", "for i in 0..2 {", 10000, "", &len);
	hostile("10000 nested loops", s, len, false);
	free(s);
	s = repeat("air 1; out y: f32; y = ", "9", 100000, ";", &len);
	hostile("a huge integer", s, len, false);
	free(s);
	s = repeat("air 1; out y: f32; y = 1", "e9999", 1, ";", &len);
	hostile("a huge float", s, len, false);
	free(s);

	srand(7);
	len = 1 << 20;
	s = malloc(len + 1);
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < len; i++)
			s[i] = (char)(rand() & 0xff);
		s[len] = '\0';
		hostile("a MiB of random bytes", s, len, false);
	}
	/* random tokens: every syntax error path, with recovery */
	static const char *const toks[] = {
	    "air", "1", ";",  "for",  "i",    "in", "0",      "..",  "N",     "{",   "}",
	    "[",   "]", "(",  ")",    "=",    "+",  "*",      "y",   "param", "out", ":",
	    "f32", ",", "if", "else", "max=", "//", "kernel", "not", "<",     "2.5", "step"};
	size_t used = 0;
	while (used < len - 16) {
		const char *t = toks[rand() % (sizeof toks / sizeof *toks)];
		used += (size_t)snprintf(s + used, len - used, "%s ", t);
	}
	hostile("random tokens", s, used, false);
	free(s);
}

int main(void)
{
	test_attention();
	test_defines();
	test_consts();
	test_implicit_names();
	test_values();
	test_errors();
	test_diag_format();
	test_equal_verify();
	test_hostile();
	free(diag_text);
	if (failures)
		fprintf(stderr, "test_frontend: %d of %d checks failed\n", failures, checks);
	else
		printf("test_frontend: %d checks passed\n", checks);
	return failures != 0;
}
