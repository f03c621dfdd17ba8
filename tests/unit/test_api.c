/* test_api.c - the job/result API (api/solar.h): what a job gives back, and that it is the
 * chain the commands ran before (the plain fields equal the bounds computed directly).
 *   - a job on an in-memory source and on a file, with -D, --set, --l2 cold, TF32;
 *   - the overrides of a question, through the one unit-checked setter, each refused one
 *     reported at its place (--set PATH, or a manifest's JSON path);
 *   - its plain fields against solar_bounds_compute on the same counts;
 *   - errors: a syntax error (status 1, file:line:col on job.err), a missing device, a bad
 *     --set, measured ceilings on a descriptor without them (status 2);
 *   - warnings: measured ceilings (handed to on_warning when found), capacity;
 *   - many jobs in one process (the ASan build finds any leak).
 * Runs from the repository root.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/detail.h"
#include "check.h"

static const char *matmul = "air 1;\n"
			    "param M = 256, N = 128, K = 64;\n"
			    "in a[M, K], b[K, N]: bf16;\n"
			    "out c[M, N]: f32;\n"
			    "kernel mm {\n"
			    "  for i in 0..M, j in 0..N {\n"
			    "    c[i, j] = 0;\n"
			    "    for k in 0..K { c[i, j] += a[i, k] * b[k, j]; }\n"
			    "  }\n"
			    "}\n"
			    "kernel scale {\n"
			    "  for i in 0..M, j in 0..N { c[i, j] = c[i, j] * 2; }\n"
			    "}\n";

/* What the commands computed before the API: the bounds of the same counts on the device. */
static void check_against_direct(const solar_result *r)
{
	solar_bounds b;
	CHECK(solar_bounds_compute(solar_result_work(r), solar_result_device(r), r->l2_cold, &b,
				   on(stderr)) == 0);
	CHECK(r->unfused.time_s == b.unfused.time_s);
	CHECK(r->fused.time_s == b.fused.time_s);
	CHECK(r->cache_aware.time_s == b.cache_aware.time_s);
	CHECK(r->cache_aware.dram_bytes == b.cache_aware.dram_bytes);
	char name[48];
	CHECK(!strcmp(r->cache_aware.limited_by,
		      solar_resource_name(b.cache_aware.limiter, name, sizeof name)));
	CHECK(r->nkernels == b.nkernels);
	for (int k = 0; k < r->nkernels && k < b.nkernels; k++) {
		CHECK(r->kernels[k].bound.time_s == b.kernel[k].time_s);
		CHECK(r->kernels[k].bound.ops == b.kernel[k].ops);
	}
	solar_bounds_free(&b);
}

static void test_source_job(void)
{
	solar_job job = {
	    .file = "mm.air", .source = matmul, .question.device_file = "devices/h100-sxm.json"};
	solar_result *r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_OK);
	CHECK(r->has_bounds);
	CHECK(!strcmp(r->program, "mm.air"));
	CHECK(!strcmp(r->device_name, "NVIDIA H100 SXM5"));
	CHECK(r->nparams == 3 && !strcmp(r->params[0].name, "M") && r->params[0].value == 256);
	CHECK(r->nkernels == 2 && !strcmp(r->kernels[0].name, "mm"));
	/* the matmul: 2 M N K bf16 tensor ops; the scale: M N f32 SIMT multiplies */
	CHECK(r->kernels[0].nops == 1 && !strcmp(r->kernels[0].ops[0].datapath, "tensor") &&
	      !strcmp(r->kernels[0].ops[0].dtype, "bf16"));
	CHECK(!strcmp(r->kernels[0].ops[0].exact, "4194304"));
	CHECK(r->kernels[0].ops_total == 2.0 * 256 * 128 * 64);
	CHECK(r->kernels[1].ops_total == 256.0 * 128);
	CHECK(r->ops_total == r->kernels[0].ops_total + r->kernels[1].ops_total);
	/* compulsory: a and b read once (bf16), c written once (f32) */
	CHECK(r->load_bytes == 2.0 * (256 * 64 + 64 * 128));
	CHECK(!strcmp(r->load_exact, "49152"));
	CHECK(r->store_bytes == 4.0 * 256 * 128);
	CHECK(r->kernels[1].load_bytes == 4.0 * 256 * 128); /* scale alone reads c */
	CHECK(r->fused.time_s > 0 && r->fused.time_s <= r->unfused.time_s);
	CHECK(r->fused.time_s <= r->cache_aware.time_s);
	CHECK(r->nwarnings == 0 && !r->estimate && !r->l2_cold);
	check_against_direct(r);
	solar_result_free(r);
}

/* -D, --set, --l2 cold and TF32 reach the analysis. */
static void test_options(void)
{
	solar_job_define d[] = {{"M", 1024}};
	solar_question_set sets[] = {{"memory.dram.bandwidth_bytes_per_s", "1TB/s", NULL, NULL}};
	solar_job job = {.file = "mm.air",
			 .source = matmul,
			 .question = {.defines = d,
				      .ndefines = 1,
				      .device_file = "devices/h100-sxm.json",
				      .sets = sets,
				      .nsets = 1,
				      .l2_cold = true}};
	solar_result *r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_OK && r->params[0].value == 1024 && r->l2_cold);
	CHECK(solar_result_device(r)->levels[0].bandwidth_bytes_per_s.value == 1e12);
	CHECK(solar_result_bounds(r)->l2_cold);
	check_against_direct(r);
	job.question.l2_cold = false;
	solar_result *warm = solar_job_run(&job);
	CHECK(warm->fused.dram_bytes <= r->fused.dram_bytes);
	solar_result_free(warm);
	solar_result_free(r);
}

static int warnings_seen[2];

static void on_warning(void *ctx, const solar_warning *w)
{
	CHECK(ctx == (void *)warnings_seen);
	CHECK(w->message && w->message[0]);
	warnings_seen[w->kind]++;
}

static void test_warnings(void)
{
	solar_job job = {.file = "mm.air",
			 .source = matmul,
			 .question.device_file = "devices/h200-measured.json",
			 .on_warning = on_warning,
			 .on_warning_ctx = warnings_seen};
	solar_result *r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_OK && !r->estimate && r->measured_ceilings > 0);
	CHECK(r->nwarnings == 1 && r->warnings[0].kind == SOLAR_WARN_MEASURED_CEILINGS);
	CHECK(warnings_seen[SOLAR_WARN_MEASURED_CEILINGS] == 1);
	solar_result_free(r);
	job.question.ceilings = SOLAR_CEILINGS_MEASURED;
	r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_OK && r->estimate && r->nwarnings == 0);
	solar_result_free(r);
	/* rule "memory, least": 2^36 f32 inputs (256 GiB) on an 80 GB part */
	solar_job big = {.file = "big.air",
			 .source = "air 1;\nparam N = 68719476736;\nin x[N]: f32;\nout y[N]: f32;\n"
				   "kernel k { for i in 0..N { y[i] = x[i]; } }\n",
			 .question.device_file = "devices/a100-sxm-80gb.json",
			 .on_warning = on_warning,
			 .on_warning_ctx = warnings_seen};
	r = solar_job_run(&big);
	CHECK(r->status == SOLAR_JOB_OK && r->nwarnings == 1);
	CHECK(r->nwarnings == 1 && r->warnings[0].kind == SOLAR_WARN_CAPACITY &&
	      r->warnings[0].value > r->warnings[0].limit);
	CHECK(warnings_seen[SOLAR_WARN_CAPACITY] == 1);
	solar_result_free(r);
}

/* Errors go to job.err in the CLI's format; the status says which kind. */
static void test_errors(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);
	solar_job job = {.file = "bad.air",
			 .source = "air 1;\nin a[4]: f32;\nout b[4] f32;\n",
			 .question.device_file = "devices/h100-sxm.json",
			 .err = err};
	solar_result *r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_INPUT_ERRORS && !r->has_bounds && !solar_result_work(r));
	fflush(err);
	CHECKF(strstr(text, "bad.air:3:"), "diagnostics: %s", text);
	solar_result_free(r);

	job.source = matmul;
	job.question.device_file = "devices/no-such.json";
	r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_USAGE && !r->has_bounds && r->device_failed);
	CHECK(!r->override_refused);
	solar_result_free(r);

	solar_question_set bad[] = {{"memory.dram.bandwidth_bytes_per_s", "3GHz", NULL, NULL}};
	job.question.device_file = "devices/h100-sxm.json";
	job.question.sets = bad;
	job.question.nsets = 1;
	r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_USAGE && r->override_refused && !r->device_failed);
	solar_result_free(r);

	job.question.nsets = 0;
	job.question.ceilings = SOLAR_CEILINGS_MEASURED;
	r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_USAGE);
	fflush(err);
	CHECKF(strstr(text, "--ceilings measured: the descriptor has no measured ceilings"),
	       "%s", text);
	solar_result_free(r);

	solar_job missing = {.file = "tests/no-such-file.air", .err = err};
	r = solar_job_run(&missing);
	CHECK(r->status == SOLAR_JOB_USAGE);
	solar_result_free(r);
	fclose(err);
	free(text);
}

/* Quantities and times: finite and positive, or refused (1e400 and 1e300TB/s overflow a
 * double; a time that rounds to 0 is none); the one unit-checked setter, as --set and a
 * manifest use it, names the setting in its messages. */
static void test_quantities(void)
{
	double v = 0;
	const char *unit = NULL;
	CHECK(solar_quantity_parse("8TB/s", &v, &unit) == 0 && v == 8e12 && !strcmp(unit, "B/s"));
	CHECK(solar_quantity_parse("16MiB", &v, &unit) == 0 && v == 16777216 && !strcmp(unit, "B"));
	CHECK(solar_quantity_parse("1e400", &v, &unit) < 0);
	CHECK(solar_quantity_parse("1e300TB/s", &v, &unit) < 0);
	CHECK(solar_quantity_parse("1e308PFLOP/s", &v, &unit) < 0);
	CHECK(solar_quantity_parse("inf", &v, &unit) < 0 && solar_quantity_parse("nan", &v, &unit) < 0);
	CHECK(solar_quantity_parse_time("4.57ms") == 4.57e-3);
	CHECK(solar_quantity_parse_time("1e400") < 0 && solar_quantity_parse_time("1e400ms") < 0);
	CHECK(solar_quantity_parse_time("inf") < 0 && solar_quantity_parse_time("infs") < 0);
	CHECK(solar_quantity_parse_time("1e-310ns") < 0); /* rounds to 0 s */

	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);
	solar_diag *tool = solar_diag_new_tool(err);
	solar_device *d = solar_device_load("devices/h100-sxm.json", tool);
	CHECK(d != NULL);
	CHECK(solar_quantity_set_value(d, "memory.l2.capacity_bytes", "4TB/s", "m.json",
				       "entries[0].set.memory.l2.capacity_bytes", tool) < 0);
	/* a job's overrides go through it: every one is tried, each refused one is reported, at
	 * its place (a manifest's JSON path, or --set PATH) */
	solar_question_set sets[] = {{"memory.l2.capacity_bytes", "4TB/s", NULL, NULL},
				     {"sm_count", "132Hz", "m.json", "entries[0].set.sm_count"},
				     {NULL, "sm_count", NULL, NULL},
				     {"clock_hz", NULL, "m.json", "entries[0].set.clock_hz"},
				     {"memory.l2.capacity_bytes", "64MiB", NULL, NULL}};
	solar_job job = {.file = "mm.air",
			 .source = matmul,
			 .question = {.device = d, .sets = sets, .nsets = 5},
			 .err = err};
	solar_result *r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_USAGE && r->override_refused && !r->has_bounds);
	solar_result_free(r);
	job.question.sets = &sets[4];
	job.question.nsets = 1;
	r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_OK &&
	      solar_device_level(solar_result_device(r), "l2")->capacity_bytes.value == 67108864);
	solar_result_free(r);
	fflush(err);
	CHECKF(!strcmp(text,
		       "m.json: entries[0].set.memory.l2.capacity_bytes: expected a value in "
		       "B, not '4TB/s'\n"
		       "solar: --set memory.l2.capacity_bytes: expected a value in B, not "
		       "'4TB/s'\n"
		       "m.json: entries[0].set.sm_count: expected a plain number (a count), "
		       "not '132Hz'\n"
		       "solar: --set expects PATH=VALUE, not 'sm_count'\n"
		       "m.json: entries[0].set.clock_hz: expected a number or a quantity string "
		       "(\"8TB/s\", \"64MiB\")\n"),
	       "%s", text);
	solar_device_free(d);
	solar_diag_free(tool);
	fclose(err);
	free(text);
}

/* A file, counts only (no device), and a loaded device shared by many jobs. */
static void test_many_jobs(void)
{
	solar_job count = {.file = "examples/softmax.air"};
	solar_result *c = solar_job_run(&count);
	CHECK(c->status == SOLAR_JOB_OK && !c->has_bounds && c->nkernels > 0 && c->ops_total > 0);
	solar_device *dev = solar_job_device_load("devices/h200-sxm.json", NULL);
	CHECK(dev != NULL);
	double first = -1;
	for (int i = 0; i < 40; i++) {
		solar_job job = {.file = "examples/softmax.air",
				 .question = {.device = dev, .tf32 = i % 2}};
		solar_result *r = solar_job_run(&job);
		CHECK(r->status == SOLAR_JOB_OK && r->has_bounds);
		if (first < 0)
			first = r->cache_aware.time_s;
		CHECK(r->cache_aware.time_s == first);
		CHECK(r->ops_total == c->ops_total);
		solar_result_free(r);
	}
	solar_job_device_free(dev);
	solar_result_free(c);
}

/* Every message of a job goes to job.err, the program file that cannot be read too (it went
 * to stderr before). */
static void test_unreadable(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);
	solar_job job = {.file = "/nonexistent/p.air", .err = err};
	solar_result *r = solar_job_run(&job);
	CHECK(r && r->status == SOLAR_JOB_USAGE);
	solar_result_free(r);
	fclose(err);
	CHECKF(text && !strncmp(text, "solar: /nonexistent/p.air: ",
				strlen("solar: /nonexistent/p.air: ")),
	       "job.err got: %s", text);
	free(text);
}

int main(void)
{
	test_unreadable();
	CHECK(!strcmp(solar_version(), SOLAR_VERSION));
	test_source_job();
	test_options();
	test_warnings();
	test_errors();
	test_quantities();
	test_many_jobs();
	printf("test_api: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
