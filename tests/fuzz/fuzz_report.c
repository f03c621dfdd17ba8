/* fuzz_report.c - libFuzzer target for `solar report`'s readers: the manifest, the baseline,
 * the Nsight Compute CSV and the `solar validate --json` result.
 *
 * The first byte of the input says which file the rest is ('m' manifest, 'b' baseline, 'n' ncu
 * CSV, 'v' validate JSON; any other byte is taken modulo 4).  The file is written into a
 * scratch folder that also holds a small two-kernel program (two.air), links to examples/ and
 * devices/, and fixed manifests that read the fuzzed baseline, CSV or validate result; then
 * solar_cmd_report runs as `solar report MANIFEST --md --json --svg [--baseline]` would, so
 * the readers are fuzzed through the command's public entry (cli/cmd_report.c is unchanged).
 * Promises held: the exit status is 0, 1 or 2; unless it is 2 (input error), the Markdown,
 * JSON and SVG outputs are written, the JSON parses, and fed back as --baseline with
 * --max-regression 0 it is accepted (never exit 2) and changes no verdict.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "fuzz.h"

static char dir[64];

static char *path(const char *name)
{
	static char buf[8][128];
	static int next;
	char *p = buf[next++ % 8];
	snprintf(p, sizeof buf[0], "%s/%s", dir, name);
	return p;
}

static void put(const char *name, const char *text, size_t len)
{
	FILE *f = fopen(path(name), "w");
	FUZZ_REQUIRE(f && fwrite(text, 1, len, f) == len && !fclose(f), "cannot write %s",
		     path(name));
}

static void put_str(const char *name, const char *text)
{
	put(name, text, strlen(text));
}

static const char *const scratch_files[] = {
    "two.air",	"two.ncu.csv", "two.validate.json", "fixed.json", "ncu.json", "validate.json",
    "m.json",	"baseline.json", "fuzz.ncu.csv",    "fuzz.validate.json",    "out.md",
    "out.json", "out.svg"};

static void cleanup(void)
{
	for (size_t i = 0; i < sizeof scratch_files / sizeof *scratch_files; i++)
		unlink(path(scratch_files[i]));
	unlink(path("examples"));
	unlink(path("devices"));
	rmdir(dir);
}

static void setup(void)
{
	strcpy(dir, "/tmp/solar-fuzz-report-XXXXXX");
	FUZZ_REQUIRE(mkdtemp(dir), "mkdtemp");
	atexit(cleanup);
	FUZZ_REQUIRE(!symlink(SOLAR_SOURCE_DIR "/examples", path("examples")) &&
			 !symlink(SOLAR_SOURCE_DIR "/devices", path("devices")),
		     "symlink");
	put_str("two.air", "air 1;\nparam N = 8;\nin x[N, N]: f32;\ntmp t[N, N]: f32;\n"
			   "out y[N]: f32;\n"
			   "kernel scale { for i in 0..N { for j in 0..N { t[i, j] = 2 * x[i, j]; "
			   "} } }\n"
			   "kernel rowsum { for i in 0..N { y[i] = 0; for j in 0..N { y[i] += "
			   "t[i, j]; } } }\n");
	put_str("two.ncu.csv", "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
			       "\"\",\"\",\"usecond\"\n\"0\",\"scale_k\",\"1.5\"\n"
			       "\"1\",\"rowsum_k\",\"2,001.25\"\n");
	put_str("two.validate.json", "{\"status\": \"pass\", \"reference\": {\"time_s\": 2e-6}}\n");
	put_str("fixed.json",
		"{\"defaults\": {\"device\": \"devices/h100-sxm.json\"}, \"entries\": ["
		"{\"name\": \"two\", \"air\": \"two.air\", \"measured\": \"1ms\"},"
		"{\"name\": \"two N=4\", \"air\": \"two.air\", \"params\": {\"N\": 4}, "
		"\"measured\": 2e-6}]}\n");
	put_str("ncu.json", "{\"defaults\": {\"device\": \"devices/h100-sxm.json\"}, \"entries\": ["
			    "{\"air\": \"two.air\", "
			    "\"measured\": {\"ncu\": \"fuzz.ncu.csv\", \"runs\": 2}}]}\n");
	put_str("validate.json",
		"{\"defaults\": {\"device\": \"devices/h100-sxm.json\"}, \"entries\": ["
		"{\"air\": \"two.air\", \"measured\": {\"validate\": \"fuzz.validate.json\"}}]}\n");
}

static long file_size(const char *name)
{
	FILE *f = fopen(path(name), "r");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fclose(f);
	return n;
}

static int report(const char *manifest, const char *baseline, double max_regression)
{
	const char *files[] = {path(manifest)};
	solar_opts o = {.cmd = "report",
			.files = files,
			.nfiles = 1,
			.math = SOLAR_MATH_STRICT,
			.measured_s = -1,
			.md_out = path("out.md"),
			.json_out = path("out.json"),
			.svg_out = path("out.svg"),
			.baseline = baseline ? path(baseline) : NULL,
			.max_regression = max_regression,
			.has_max_regression = baseline != NULL};
	unlink(path("out.md"));
	unlink(path("out.json"));
	unlink(path("out.svg"));
	fuzz_quiet(true);
	int rc = solar_cmd_report(&o);
	fuzz_quiet(false);
	FUZZ_REQUIRE(rc >= 0 && rc <= 2, "exit status %d", rc);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	if (size < 1 || size > FUZZ_MAX_INPUT)
		return 0;
	char *text = fuzz_text(data + 1, size - 1);
	/* A path may name any file; one that never ends (a FIFO, a terminal) would hang a read,
	 * which is the user's own doing, not a reader bug. */
	if (strstr(text, "/dev/") || strstr(text, "/proc/")) {
		free(text);
		return 0;
	}
	static const char *const input[4] = {"m.json", "baseline.json", "fuzz.ncu.csv",
					      "fuzz.validate.json"};
	static const char *const manifest[4] = {"m.json", "fixed.json", "ncu.json",
						"validate.json"};
	int mode = data[0] == 'm' ? 0 : data[0] == 'b' ? 1 : data[0] == 'n' ? 2 : data[0] == 'v' ? 3
												: data[0] % 4;
	put(input[mode], text, size - 1);
	int rc = report(manifest[mode], mode == 1 ? input[mode] : NULL, 0.1);
	if (rc != 2) {
		FUZZ_REQUIRE(file_size("out.md") > 0 && file_size("out.svg") > 0,
			     "exit %d without the Markdown or SVG report", rc);
		FILE *f = fopen(path("out.json"), "r");
		FUZZ_REQUIRE(f, "exit %d without the JSON report", rc);
		char *json = calloc(1, (size_t)file_size("out.json") + 1);
		size_t n = fread(json, 1, (size_t)file_size("out.json"), f);
		fclose(f);
		cJSON *j = cJSON_ParseWithLength(json, n);
		FUZZ_REQUIRE(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "entries")),
			     "the JSON report has no entries array:\n%s", json);
		cJSON_Delete(j);
		free(json);
		/* out.json is rewritten by the run that reads it: read a copy */
		FILE *in = fopen(path("out.json"), "r");
		char *copy = NULL;
		size_t clen = 0;
		FILE *mem = open_memstream(&copy, &clen);
		for (int c; in && mem && (c = fgetc(in)) != EOF;)
			fputc(c, mem);
		fclose(in);
		fclose(mem);
		put("baseline.json", copy, clen);
		free(copy);
		int again = report(manifest[mode], "baseline.json", 0);
		FUZZ_REQUIRE(again != 2, "its own JSON report is not a valid baseline");
		FUZZ_REQUIRE(mode == 1 || again == rc,
			     "exit %d against its own report as baseline, %d without", again, rc);
	}
	free(text);
	return 0;
}
