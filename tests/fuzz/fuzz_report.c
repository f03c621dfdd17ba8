/* fuzz_report.c - libFuzzer target for `solar report`'s readers: the manifest, the baseline,
 * the Nsight Compute CSV and the `solar validate --json` result.
 *
 * The first byte of the input says what the rest is:
 *   'n' an ncu CSV, 'v' a validate result, 'b' a baseline: handed straight to the reader
 *       (report/measured.c's one reader: an ncu export of a two-kernel program over 2 runs,
 *       a JSON file of times; load_baseline against entries "two" and "two N=4"), thousands
 *       of inputs a second;
 *   'm' (any other byte) a manifest: solar_cmd_report runs on it as `solar report MANIFEST
 *       --md --json --svg` would, in a scratch folder that holds a two-kernel program
 *       (two.air), an ncu CSV and a validate result for it, and links to examples/ and
 *       devices/; tens of inputs a second, as each entry is analysed.
 * The baseline reader is a static function of report/report.c, so this file includes it (the
 * target links the CLI, and the report library's other objects): it is called as it is.
 * Promises held: a reader that reports no error returns a positive finite time (and per-kernel
 * times that add up to at most the total); `solar report` exits 0, 1 or 2, and unless 2 it
 * writes the Markdown, JSON and SVG reports, the JSON parses, and fed back as --baseline it is
 * accepted (never exit 2) and changes no verdict.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */

#include "cli/cli.h"
#include "cli/output.h"
#include "report/report.c"
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
    "two.air",	    "two.ncu.csv", "two.validate.json", "m.json",  "baseline.json",
    "fuzz.ncu.csv", "fuzz.validate.json", "out.md",	    "out.json", "out.svg"};

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

static int report(const char *baseline)
{
	const char *files[] = {path("m.json")};
	solar_opts o = {.cmd = "report",
			.files = files,
			.nfiles = 1,
			.math = SOLAR_MATH_STRICT,
			.measured_s = -1,
			.md_out = path("out.md"),
			.json_out = path("out.json"),
			.svg_out = path("out.svg"),
			.baseline = baseline ? path(baseline) : NULL};
	unlink(path("out.md"));
	unlink(path("out.json"));
	unlink(path("out.svg"));
	fuzz_quiet(true);
	/* as main() does: the outputs are temporary files until solar_out_finish renames them */
	int rc = solar_out_finish(solar_cmd_report(&o));
	fuzz_quiet(false);
	FUZZ_REQUIRE(rc >= 0 && rc <= 2, "exit status %d", rc);
	return rc;
}

static void manifest(const char *text, size_t len)
{
	put("m.json", text, len);
	int rc = report(NULL);
	if (rc == 2)
		return;
	FUZZ_REQUIRE(file_size("out.md") > 0 && file_size("out.svg") > 0,
		     "exit %d without the Markdown or SVG report", rc);
	long n = file_size("out.json");
	FILE *f = fopen(path("out.json"), "r");
	FUZZ_REQUIRE(f && n > 0, "exit %d without the JSON report", rc);
	char *json = calloc(1, (size_t)n + 1);
	FUZZ_REQUIRE(fread(json, 1, (size_t)n, f) == (size_t)n, "cannot read the JSON report");
	fclose(f);
	cJSON *j = cJSON_Parse(json);
	FUZZ_REQUIRE(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "entries")),
		     "the JSON report has no entries array:\n%s", json);
	cJSON_Delete(j);
	/* the run that reads it rewrites out.json: it reads a copy */
	put("baseline.json", json, (size_t)n);
	free(json);
	int again = report("baseline.json");
	FUZZ_REQUIRE(again != 2, "its own JSON report is not a valid baseline");
	FUZZ_REQUIRE(again == rc, "exit %d against its own report as baseline, %d without", again,
		     rc);
}

/* A reader's result: a time, or an error reported. */
static void check_time(int rc, double t, const char *what)
{
	FUZZ_REQUIRE(rc < 0 || (t > 0 && isfinite(t)), "%s: time %g without an error", what, t);
}

static void ncu(const char *text, size_t len)
{
	put("fuzz.ncu.csv", text, len);
	const char *names[] = {"scale", "rowsum"};
	solar_measured m;
	solar_measured_init(&m, 2);
	fuzz_quiet(true);
	int rc = solar_measured_read(path("fuzz.ncu.csv"), SOLAR_MEASURED_NCU, 2, names, 2, &m,
				     fuzz_diag_stderr());
	fuzz_quiet(false);
	check_time(rc, m.total_s, "ncu");
	double sum = 0;
	for (int k = 0; k < 2 && rc == 0; k++)
		sum += m.kernel_s[k] > 0 ? m.kernel_s[k] : 0;
	FUZZ_REQUIRE(rc < 0 || sum <= m.total_s * (1 + 1e-9), "kernel times add up to %g > total %g",
		     sum, m.total_s);
	solar_measured_free(&m);
}

/* A JSON file of times: a validate result or plain times {"total", "kernels"}. */
static void validate(const char *text, size_t len)
{
	put("fuzz.validate.json", text, len);
	const char *names[] = {"scale", "rowsum"};
	solar_measured m;
	solar_measured_init(&m, 2);
	fuzz_quiet(true);
	int rc = solar_measured_read(path("fuzz.validate.json"), SOLAR_MEASURED_AUTO, 1, names, 2,
				     &m, fuzz_diag_stderr());
	fuzz_quiet(false);
	/* plain times may give kernels without a total */
	if (!m.form || strcmp(m.form, "times") || m.total_s >= 0)
		check_time(rc, m.total_s, "json times");
	solar_measured_free(&m);
}

static void baseline(const char *text, size_t len)
{
	put("baseline.json", text, len);
	ctx c = {.file = "fuzz", .dir = dir};
	entry es[2] = {{.name = strdup("two")}, {.name = strdup("two N=4")}};
	cJSON *removed = NULL;
	fuzz_quiet(true);
	load_baseline(&c, path("baseline.json"), es, 2, &removed);
	fuzz_quiet(false);
	cJSON_Delete(removed);
	for (int i = 0; i < 2; i++)
		entry_free(&es[i]);
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
	switch (data[0]) {
	case 'n':
		ncu(text, size - 1);
		break;
	case 'v':
		validate(text, size - 1);
		break;
	case 'b':
		baseline(text, size - 1);
		break;
	default:
		manifest(text, size - 1);
	}
	free(text);
	return 0;
}
