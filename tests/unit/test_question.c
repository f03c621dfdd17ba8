/* test_question.c - the question (api/solar.h): one value however it was asked.
 *   - the question of a report manifest entry (report/report.c, entry_question_read) and the
 *     question of a command line with the same settings (cli/load.c, solar_cli_question) give
 *     the same bounds, to the last bit, and settings that matter (the answer differs from the
 *     default question's);
 *   - a loaded device is not changed by a job on it with a cold L2 and overrides: the job
 *     works on its own copy (devices are immutable after loading);
 *   - --set's text that is not PATH=VALUE reaches the job as such, and is refused there.
 * Includes the two builders' files (their functions are the command's and the report's own),
 * as the report fuzz target does.  Runs from the repository root.
 */
#include <string.h>

#include "../../cli/limit.c"
#include "../../cli/load.c"
#include "../../report/report.c"
#include "check.h"

/* The settings both builders are given. */
#define AIR "examples/matmul_f32.air"
#define DEVICE "devices/h100-sxm.json"
static const char *entry_json =
    "{\"air\": \"" AIR "\", \"device\": \"" DEVICE "\", "
    "\"params\": {\"M\": 512, \"N\": \"512\", \"K\": 512}, \"math\": \"tf32\", \"l2\": \"cold\", "
    "\"set\": {\"memory.dram.bandwidth_bytes_per_s\": \"1TB/s\", \"sm_count\": 66}}";

static solar_result *run(const solar_question *q)
{
	solar_job job = {.file = AIR, .question = *q};
	solar_result *r = solar_job_run(&job);
	CHECKF(r->status == SOLAR_JOB_OK && r->has_bounds, "status %d", r->status);
	return r;
}

static void same_bounds(const solar_result *a, const solar_result *b)
{
	CHECK(a->unfused.time_s == b->unfused.time_s);
	CHECK(a->fused.time_s == b->fused.time_s);
	CHECK(a->cache_aware.time_s == b->cache_aware.time_s);
	CHECK(a->cache_aware.dram_bytes == b->cache_aware.dram_bytes);
	CHECK(!strcmp(a->cache_aware.limited_by, b->cache_aware.limited_by));
	CHECK(a->tf32 == b->tf32 && a->l2_cold == b->l2_cold);
	CHECK(a->nkernels == b->nkernels);
	for (int k = 0; k < a->nkernels && k < b->nkernels; k++)
		CHECK(a->kernels[k].bound.time_s == b->kernels[k].bound.time_s);
}

static void test_manifest_and_argv(void)
{
	solar_report_opts ro = {0};
	ctx c = {.file = "m.json", .dir = "", .o = &ro, .diag = on(stderr)};
	cJSON *ej = cJSON_Parse(entry_json);
	CHECK(ej != NULL);
	entry_question eq = {0};
	CHECK(entry_question_read(&c, ej, NULL, "entries[0]", &eq) == 0 && !c.error);
	CHECK(eq.q.tf32 && eq.q.l2_cold && eq.q.ndefines == 3 && eq.q.nsets == 2);

	solar_define defs[] = {{"M", 512}, {"N", 512}, {"K", 512}};
	const char *files[] = {AIR};
	const char *sets[] = {"memory.dram.bandwidth_bytes_per_s=1TB/s", "sm_count=66"};
	solar_opts o = {.files = files,
			.nfiles = 1,
			.defs = defs,
			.ndefs = 3,
			.device = DEVICE,
			.math = SOLAR_MATH_TF32,
			.l2 = "cold",
			.l2_cold = 1, /* as the parser fills both */
			.sets = sets,
			.nsets = 2};
	solar_question q = solar_cli_question(&o);
	CHECK(q.tf32 && q.l2_cold && q.ndefines == 3 && q.nsets == 2);
	CHECK(q.ceilings == SOLAR_CEILINGS_PEAK && eq.q.ceilings == SOLAR_CEILINGS_PEAK);

	solar_result *from_manifest = run(&eq.q), *from_argv = run(&q);
	same_bounds(from_manifest, from_argv);
	CHECK(solar_result_device(from_manifest)->sm_count == 66);
	CHECK(solar_result_device(from_argv)->sm_count == 66);
	/* every setting counts: the default question's answer is another */
	solar_question plain = {.device_file = DEVICE, .defines = q.defines, .ndefines = 3};
	solar_result *r = run(&plain);
	CHECK(r->cache_aware.time_s != from_argv->cache_aware.time_s);
	solar_result_free(r);
	plain = q;
	plain.l2_cold = false; /* warm: the L2 may hold the inputs */
	r = run(&plain);
	CHECKF(r->cache_aware.time_s < from_argv->cache_aware.time_s, "warm %g, cold %g",
	       r->cache_aware.time_s, from_argv->cache_aware.time_s);
	solar_result_free(r);

	solar_result_free(from_manifest);
	solar_result_free(from_argv);
	solar_cli_question_free(&q);
	entry_question_free(&eq);
	cJSON_Delete(ej);
}

static char *device_text(const solar_device *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	solar_device_write_json(d, f);
	fclose(f);
	return text;
}

static void test_device_unchanged(void)
{
	solar_device *dev = solar_job_device_load(DEVICE, NULL);
	CHECK(dev != NULL);
	if (!dev)
		return;
	solar_device before = *dev;
	char *text = device_text(dev);
	solar_question_set sets[] = {{"memory.l2.capacity_bytes", "1MB", NULL, NULL}};
	solar_question q = {.device = dev, .sets = sets, .nsets = 1, .l2_cold = true};
	solar_result *r = run(&q);
	CHECK(r->l2_cold && solar_result_bounds(r)->l2_cold);
	CHECK(solar_device_level(solar_result_device(r), "l2")->capacity_bytes.value == 1e6);
	solar_result_free(r);
	CHECK(!memcmp(&before, dev, sizeof before));
	char *after = device_text(dev);
	CHECK(text && after && !strcmp(text, after));
	free(after);
	free(text);
	solar_job_device_free(dev);
}

static void test_set_text(void)
{
	const char *files[] = {AIR};
	const char *sets[] = {"=1TB/s"};
	solar_opts o = {.files = files, .nfiles = 1, .device = DEVICE, .sets = sets, .nsets = 1};
	solar_question q = solar_cli_question(&o);
	CHECK(q.nsets == 1 && !q.sets[0].path && !strcmp(q.sets[0].value, "=1TB/s"));
	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);
	solar_job job = {.file = AIR, .question = q, .err = err};
	solar_result *r = solar_job_run(&job);
	CHECK(r->status == SOLAR_JOB_USAGE && r->override_refused);
	solar_result_free(r);
	fclose(err);
	CHECKF(text && !strcmp(text, "solar: --set expects PATH=VALUE, not '=1TB/s'\n"), "%s",
	       text);
	free(text);
	solar_cli_question_free(&q);
}

int main(void)
{
	test_manifest_and_argv();
	test_device_unchanged();
	test_set_text();
	printf("test_question: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
