/* test_device.c - device descriptors: the shipped files, inheritance, every validation error
 * (exact text, with its JSON path), overrides, the JSON writer and the probe without a GPU.
 * Runs from the repository root (it reads every devices/NAME.json).
 */
#define _XOPEN_SOURCE 700

#include "devices/device.h"
#include "devices/system.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "check.h"

/* Loads a descriptor from text; *errors receives what the loader printed. */
static solar_device *load_str(const char *json, const char *base_dir, char **errors)
{
	FILE *err = tmpfile();
	solar_device *d = solar_device_load_string(json, "x.json", base_dir, on(err));
	*errors = slurp(err);
	return d;
}

/* The descriptor must fail to load, printing exactly `want`. */
#define EXPECT_ERRORS(json, want) expect_errors(__LINE__, json, want)
static void expect_errors(int line, const char *json, const char *want)
{
	char *got = NULL;
	solar_device *d = load_str(json, "devices", &got);
	checks++;
	if (d || strcmp(got, want) != 0) {
		failures++;
		fprintf(stderr, "%s:%d: %s\n--- expected ---\n%s--- got ---\n%s----------------\n",
			__FILE__, line, d ? "loaded, expected errors" : "wrong diagnostics", want,
			got);
	}
	solar_device_free(d);
	free(got);
}

#define FIG(v) "{\"value\": " #v ", \"status\": \"datasheet\", \"source\": \"test\"}"
#define DRAM                                                                                       \
	"{\"level\": \"dram\", \"capacity_bytes\": " FIG(1e9) ", \"bandwidth_bytes_per_s\": " FIG( \
	    1e12) "}"
/* The smallest valid descriptor, with room for more top-level members after it. */
#define MIN_HEAD                                                                                   \
	"{\"schema\": 1, \"name\": \"t\", \"peak\": {\"simt\": {\"f32\": " FIG(                    \
	    1e13) "}}, \"memory\": [" DRAM "]"
#define MIN MIN_HEAD "}"

static const char *const shipped[] = {
    "devices/h100-sxm.json",	  "devices/h100-pcie.json",
    "devices/h200-sxm.json",	  "devices/b200.json",
    "devices/a100-sxm-80gb.json", "devices/l40s.json",
    "devices/rtx-4090.json",	  "devices/jetson-agx-orin-64gb.json",
    "devices/mi300x.json",	  "devices/h200-measured.json",
    "devices/gb200.json",
};
#define NSHIPPED ((int)(sizeof shipped / sizeof shipped[0]))

static bool same_figure(const solar_figure *a, const solar_figure *b)
{
	if (a->present != b->present)
		return false;
	return !a->present || (a->value == b->value && a->status == b->status &&
			       strcmp(a->source, b->source) == 0);
}

static bool same_device(const solar_device *a, const solar_device *b)
{
	bool ok = strcmp(a->name, b->name) == 0 && a->sm_count == b->sm_count &&
		  same_figure(&a->clock_hz, &b->clock_hz) && a->nlevels == b->nlevels &&
		  a->nnotes == b->nnotes;
	ok = ok && (a->vendor ? b->vendor && strcmp(a->vendor, b->vendor) == 0 : !b->vendor);
	for (int u = 0; ok && u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++)
			ok = ok && same_figure(&a->peak_clock_hz[u][p], &b->peak_clock_hz[u][p]);
	ok = ok && (a->arch ? b->arch && strcmp(a->arch, b->arch) == 0 : !b->arch);
	for (int u = 0; ok && u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++)
			ok = ok && same_figure(&a->peak[u][p], &b->peak[u][p]) &&
			     same_figure(&a->sparse_peak[u][p], &b->sparse_peak[u][p]);
	for (int i = 0; ok && i < a->nlevels; i++)
		ok = strcmp(a->levels[i].name, b->levels[i].name) == 0 &&
		     same_figure(&a->levels[i].capacity_bytes, &b->levels[i].capacity_bytes) &&
		     same_figure(&a->levels[i].bandwidth_bytes_per_s,
				 &b->levels[i].bandwidth_bytes_per_s);
	for (int i = 0; ok && i < a->nnotes; i++)
		ok = strcmp(a->notes[i], b->notes[i]) == 0;
	return ok;
}

static bool figure_ok(const solar_figure *f)
{
	return !f->present || (isfinite(f->value) && f->value > 0 && f->source && f->source[0] &&
			       (unsigned)f->status <= SOLAR_SRC_HYPOTHETICAL);
}

/* write_json, then load the text again: the same device. */
static void check_round_trip(const solar_device *d)
{
	FILE *f = tmpfile();
	CHECK(solar_device_write_json(d, f) == 0);
	char *text = slurp(f), *errors = NULL;
	solar_device *again = load_str(text, NULL, &errors);
	CHECK(again != NULL);
	CHECK(errors[0] == 0);
	if (again)
		CHECK(same_device(d, again));
	solar_device_free(again);
	free(errors);
	free(text);
}

/* The invariants every shipped descriptor keeps (docs/devices.md, "Soundness rules"). */
static void check_invariants(const char *path, const solar_device *d)
{
	bool practical = strstr(path, "measured") != NULL;
	CHECK(d->name && d->name[0]);
	CHECK(strcmp(d->file, path) == 0);
	CHECK(figure_ok(&d->clock_hz));
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			const solar_figure *dense = &d->peak[u][p], *sparse = &d->sparse_peak[u][p];
			CHECK(figure_ok(dense));
			CHECK(figure_ok(sparse));
			/* Dense is half the 2:4 sparse figure: a starred headline in the dense
			 * field is the commonest error in published descriptor sets. */
			if (dense->present && sparse->present)
				CHECK(dense->value <= 0.55 * sparse->value);
			CHECK(!sparse->present || u == SOLAR_UNIT_TENSOR);
			if (dense->present)
				CHECK(dense->value > 1e10 && dense->value < 1e17);
			/* A datasheet descriptor's peaks are never a measured ceiling. */
			if (!practical && dense->present)
				CHECK(dense->status != SOLAR_SRC_MEASURED);
			/* The matrix unit is the fast path wherever both are given. */
			if (u == SOLAR_UNIT_TENSOR && dense->present &&
			    d->peak[SOLAR_UNIT_SIMT][p].present)
				CHECK(dense->value >= d->peak[SOLAR_UNIT_SIMT][p].value);
		}
	CHECK(d->peak[SOLAR_UNIT_SIMT][SOLAR_PREC_F32].present);
	/* Rule "clock domains": every peak has the clock its figure assumes, never above the
	 * maximum SM clock, so at the default clock no peak is below its figure. */
	char missing[40];
	CHECKF(!solar_device_unclocked(d, missing, sizeof missing), "%s lacks %s", path,
	       solar_device_unclocked(d, missing, sizeof missing));
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			const solar_figure *c = &d->peak_clock_hz[u][p];
			CHECK(figure_ok(c));
			CHECK(c->present == d->peak[u][p].present);
			if (c->present && d->clock_hz.present) {
				CHECK(c->value <= d->clock_hz.value && c->value > 0.5 * d->clock_hz.value);
				CHECK(solar_device_peak(d, u, p) >= d->peak[u][p].value);
			}
		}
	/* FP32 peak = SMs x (128 or 256 FLOP/clk) x clock, within rounding of the datasheet. */
	if (d->sm_count && d->clock_hz.present) {
		double per_clk = d->peak[SOLAR_UNIT_SIMT][SOLAR_PREC_F32].value /
				 (d->sm_count * d->clock_hz.value);
		if (practical)
			CHECK(per_clk < 256 * 1.03);
		else
			CHECK(fabs(per_clk / 128 - 1) < 0.03 || fabs(per_clk / 256 - 1) < 0.03);
	}
	const solar_mem_level *dram = solar_device_level(d, "dram");
	CHECK(dram && dram == &d->levels[0]);
	if (dram) {
		CHECK(dram->capacity_bytes.present && dram->bandwidth_bytes_per_s.present);
		CHECK(dram->bandwidth_bytes_per_s.value > 1e11 &&
		      dram->bandwidth_bytes_per_s.value < 2e13);
		if (!practical)
			CHECK(dram->bandwidth_bytes_per_s.status != SOLAR_SRC_MEASURED);
	}
	const char *order[] = {"dram", "l2", "smem", "regs"};
	int rank = -1;
	for (int i = 0; i < d->nlevels; i++) {
		const solar_mem_level *l = &d->levels[i];
		int r = -1;
		for (int k = 0; k < 4; k++)
			if (strcmp(l->name, order[k]) == 0)
				r = k;
		CHECK(r > rank); /* known, in order, no duplicates */
		rank = r;
		CHECK(figure_ok(&l->capacity_bytes));
		CHECK(figure_ok(&l->bandwidth_bytes_per_s));
		CHECK(l->capacity_bytes.present || l->bandwidth_bytes_per_s.present);
		if (i > 0 && l->capacity_bytes.present && dram)
			CHECK(l->capacity_bytes.value < dram->capacity_bytes.value);
	}
	/* Every device ships all four levels with a capacity (the cache-aware bound needs S). */
	for (int k = 0; k < 4; k++) {
		const solar_mem_level *l = solar_device_level(d, order[k]);
		CHECK(l && l->capacity_bytes.present);
	}
	check_round_trip(d);
}

static void test_shipped(void)
{
	glob_t g;
	CHECK(glob("devices/*.json", 0, NULL, &g) == 0);
	CHECK(g.gl_pathc >= (size_t)NSHIPPED);
	for (int i = 0; i < NSHIPPED; i++) {
		bool found = false;
		for (size_t k = 0; k < g.gl_pathc; k++)
			found = found || strcmp(g.gl_pathv[k], shipped[i]) == 0;
		CHECK(found);
	}
	for (size_t k = 0; k < g.gl_pathc; k++) {
		if (solar_system_is(g.gl_pathv[k])) /* many GPUs: tests/unit/test_collective.c */
			continue;
		FILE *err = tmpfile();
		solar_device *d = solar_device_load(g.gl_pathv[k], on(err));
		char *errors = slurp(err);
		if (!d || errors[0])
			fprintf(stderr, "%s did not load:\n%s", g.gl_pathv[k], errors);
		CHECK(d != NULL);
		CHECK(errors[0] == 0);
		if (d)
			check_invariants(g.gl_pathv[k], d);
		solar_device_free(d);
		free(errors);
	}
	globfree(&g);
}

/* Spot checks of figures that the traps in docs/devices.md are about. */
static void test_shipped_values(void)
{
	solar_device *d = solar_device_load("devices/h100-sxm.json", on(stderr));
	CHECK(d && d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].value == 989.4e12);
	CHECK(d && d->sparse_peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].value == 1978.9e12);
	CHECK(d && !d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_I64].present);
	solar_device_free(d);

	/* GeForce: FP16 with FP16 accumulate (the faster path) is the sound peak. */
	d = solar_device_load("devices/rtx-4090.json", on(stderr));
	CHECK(d && d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_F16].value == 330.3e12);
	CHECK(d && d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].value == 165.2e12);
	solar_device_free(d);

	/* Jetson: GPU only, dense: far below the 275 TOPS module headline. */
	d = solar_device_load("devices/jetson-agx-orin-64gb.json", on(stderr));
	CHECK(d && d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_I8].value < 90e12);
	CHECK(d && d->sparse_peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_I8].value == 170e12);
	solar_device_free(d);

	/* MI300X: the l2 level holds L2 + Infinity Cache. */
	d = solar_device_load("devices/mi300x.json", on(stderr));
	CHECK(d && solar_device_level(d, "l2")->capacity_bytes.value == 288.0 * 1024 * 1024);
	solar_device_free(d);
}

static void test_inheritance(void)
{
	FILE *err = tmpfile();
	solar_device *m = solar_device_load("devices/h200-measured.json", on(err));
	solar_device *s = solar_device_load("devices/h200-sxm.json", on(err));
	char *errors = slurp(err);
	CHECK(m && s && errors[0] == 0);
	free(errors);
	if (!m || !s) {
		solar_device_free(m);
		solar_device_free(s);
		return;
	}
	const solar_figure *bf16 = &m->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16];
	CHECK(bf16->value == 797e12 && bf16->status == SOLAR_SRC_MEASURED);
	CHECK(strcmp(m->name, "NVIDIA H200 SXM (measured ceilings)") == 0);
	CHECK(strcmp(m->vendor, "NVIDIA") == 0 && m->sm_count == 132);
	CHECK(same_figure(&m->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_F64],
			  &s->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_F64]));
	CHECK(same_figure(&m->sparse_peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16],
			  &s->sparse_peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16]));
	const solar_mem_level *md = solar_device_level(m, "dram"),
			      *sd = solar_device_level(s, "dram");
	CHECK(md->bandwidth_bytes_per_s.value == 4.10e12);
	CHECK(md->bandwidth_bytes_per_s.status == SOLAR_SRC_MEASURED);
	CHECK(same_figure(&md->capacity_bytes, &sd->capacity_bytes)); /* merged field by field */
	CHECK(m->nnotes == 2 && strstr(m->notes[0], "NOT SOUND"));
	/* A measured ceiling never exceeds the datasheet peak it was measured against. */
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			const solar_figure *a = &m->peak[u][p], *b = &s->peak[u][p];
			CHECK(a->present == b->present);
			if (a->present && a->status == SOLAR_SRC_MEASURED)
				CHECK(a->value < b->value);
		}
	CHECK(md->bandwidth_bytes_per_s.value < sd->bandwidth_bytes_per_s.value);
	solar_device_free(m);
	solar_device_free(s);

	/* Overrides, removal with null, and a figure added to an inherited level. */
	char *e = NULL;
	solar_device *d =
	    load_str("{\"schema\": 1, \"base\": \"h100-sxm.json\", \"name\": \"H100 what-if\", "
		     "\"sm_count\": 100, \"peak\": {\"tensor\": {\"f8\": null, \"bf16\": " FIG(
			 1e15) "}}, \"peak_clock_hz\": {\"tensor\": {\"bf16\": " FIG(1.98e9) "}}, "
			       "\"memory\": [{\"level\": \"l2\", \"capacity_bytes\": null, "
			       "\"bandwidth_bytes_per_s\": null}, "
			       "{\"level\": \"smem\", \"bandwidth_bytes_per_s\": " FIG(3e13) "}]}",
		     "devices", &e);
	CHECK(d != NULL && e[0] == 0);
	if (d) {
		CHECK(d->sm_count == 100 && strcmp(d->arch, "sm_90") == 0);
		CHECK(!d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_F8].present);
		CHECK(d->sparse_peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_F8].present);
		CHECK(d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].value == 1e15);
		CHECK(strcmp(d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].source, "test") == 0);
		CHECK(d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_F16].value == 989.4e12);
		CHECK(solar_device_level(d, "l2") == NULL); /* both its figures were removed */
		const solar_mem_level *sm = solar_device_level(d, "smem");
		CHECK(sm && sm->capacity_bytes.value == 132 * 256 * 1024.0);
		CHECK(sm && sm->bandwidth_bytes_per_s.value == 3e13);
		CHECK(d->nlevels == 3 && strcmp(d->levels[1].name, "smem") == 0);
		CHECK(d->nnotes == 3); /* notes are inherited unless replaced */
		check_round_trip(d);
	}
	solar_device_free(d);
	free(e);
}

/* The dense <= 0.55 x sparse rule holds on the merged descriptor, as `device show` writes it:
 * a dense figure above 0.55 x the sparse figure it inherits used to load while its written
 * form did not; and a what-if (hypothetical) sparse figure is exempt like a dense one. */
static void test_sparse_inherited(void)
{
	EXPECT_ERRORS("{\"schema\": 1, \"base\": \"h200-sxm.json\", \"peak\": {\"tensor\": "
		      "{\"bf16\": " FIG(1.5e15) "}}}",
		      "x.json: peak.tensor.bf16.value: dense figure 1.5e+15 is more than 0.55 x "
		      "sparse_peak.tensor.bf16 (1.9789e+15): is a sparse headline in the dense "
		      "field?\n");
	char *e = NULL;
	solar_device *d = load_str("{\"schema\": 1, \"base\": \"h200-sxm.json\", \"peak\": "
				   "{\"tensor\": {\"bf16\": " FIG(1.0e15) "}}, \"peak_clock_hz\": "
				   "{\"tensor\": {\"bf16\": " FIG(1.83e9) "}}}",
				   "devices", &e);
	CHECK(d != NULL && e[0] == 0);
	if (d)
		check_round_trip(d);
	solar_device_free(d);
	free(e);
	d = solar_device_load("devices/h200-sxm.json", on(stderr));
	CHECK(d && solar_device_set(d, "sparse_peak.tensor.bf16", 1e15, on(stderr)) == 0);
	if (d)
		check_round_trip(d);
	solar_device_free(d);
}

/* Files in a fresh temporary directory, for base chains. */
static char tmpdir[64];

static void put_file(const char *name, const char *text)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *load_file_errors(const char *name, solar_device **out)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *err = tmpfile();
	*out = solar_device_load(path, on(err));
	return slurp(err);
}

static void test_base_chains(void)
{
	strcpy(tmpdir, "/tmp/solar_test_device_XXXXXX");
	CHECK(mkdtemp(tmpdir) != NULL);
	char want[1024], *got;
	solar_device *d;

	/* a -> b -> c: three levels of inheritance; the nearest file wins. */
	put_file("c.json", MIN);
	put_file("b.json",
		 "{\"schema\": 1, \"base\": \"c.json\", \"name\": \"b\", \"sm_count\": 7}");
	put_file("a.json", "{\"schema\": 1, \"base\": \"b.json\", \"sm_count\": 9, "
			   "\"clock_hz\": " FIG(1e9) ", \"peak_clock_hz\": {\"simt\": {\"f32\": " FIG(
			       1e9) "}}}");
	got = load_file_errors("a.json", &d);
	CHECK(d && got[0] == 0);
	CHECK(d && strcmp(d->name, "b") == 0 && d->sm_count == 9 && d->clock_hz.value == 1e9);
	solar_device_free(d);
	free(got);

	/* A cycle names every file on it. */
	put_file("p.json", "{\"schema\": 1, \"base\": \"q.json\"}");
	put_file("q.json", "{\"schema\": 1, \"base\": \"p.json\"}");
	got = load_file_errors("p.json", &d);
	snprintf(want, sizeof want,
		 "%1$s/q.json: base: cycle: %1$s/p.json -> %1$s/q.json -> %1$s/p.json\n"
		 "%1$s/p.json: base: '%1$s/q.json' has errors (see above)\n",
		 tmpdir);
	CHECK(!d && strcmp(got, want) == 0);
	if (strcmp(got, want))
		fprintf(stderr, "got:\n%swant:\n%s", got, want);
	free(got);

	/* A file that is its own base. */
	put_file("self.json", "{\"schema\": 1, \"base\": \"self.json\"}");
	got = load_file_errors("self.json", &d);
	snprintf(want, sizeof want,
		 "%1$s/self.json: base: cycle: %1$s/self.json -> %1$s/self.json\n", tmpdir);
	CHECK(!d && strcmp(got, want) == 0);
	free(got);

	/* An error in a base is reported in the base's own name. */
	put_file("broken.json", "{\"schema\": 1, \"nmae\": \"x\"}");
	put_file("child.json", "{\"schema\": 1, \"base\": \"broken.json\"}");
	got = load_file_errors("child.json", &d);
	snprintf(want, sizeof want,
		 "%1$s/broken.json: nmae: unknown key 'nmae' (did you mean 'name'?)\n"
		 "%1$s/child.json: base: '%1$s/broken.json' has errors (see above)\n",
		 tmpdir);
	CHECK(!d && strcmp(got, want) == 0);
	free(got);

	/* Required fields may come from anywhere in the chain, and are checked on the result. */
	put_file("partial.json", "{\"schema\": 1, \"peak\": {\"simt\": {\"f32\": " FIG(1e13) "}}}");
	put_file("full.json", "{\"schema\": 1, \"base\": \"partial.json\", \"name\": \"n\", "
			      "\"memory\": [" DRAM "]}");
	got = load_file_errors("full.json", &d);
	CHECK(d && got[0] == 0);
	solar_device_free(d);
	free(got);
	got = load_file_errors("partial.json", &d);
	snprintf(want, sizeof want,
		 "%1$s/partial.json: name: missing (required)\n"
		 "%1$s/partial.json: memory.dram.capacity_bytes: missing (required)\n"
		 "%1$s/partial.json: memory.dram.bandwidth_bytes_per_s: missing (required)\n",
		 tmpdir);
	CHECK(!d && strcmp(got, want) == 0);
	free(got);

	got = load_file_errors("missing.json", &d);
	snprintf(want, sizeof want, "%s/missing.json: cannot read: No such file or directory\n",
		 tmpdir);
	CHECK(!d && strcmp(got, want) == 0);
	free(got);

	const char *names[] = {"a",    "b",	 "c",	  "p",	     "q",
			       "self", "broken", "child", "partial", "full"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/%s.json", tmpdir, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

static void test_errors(void)
{
	/* The minimal descriptor loads. */
	char *e = NULL;
	solar_device *d = load_str(MIN, NULL, &e);
	CHECK(d && e[0] == 0);
	solar_device_free(d);
	free(e);

	/* Unknown keys, with a suggestion when one is close. */
	EXPECT_ERRORS(MIN_HEAD ", \"peek\": {}}",
		      "x.json: peek: unknown key 'peek' (did you mean 'peak'?)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"colour\": 1}",
		      "x.json: colour: unknown key 'colour' (expected schema, name, vendor, arch, "
		      "base, sm_count, clock_hz, peak, peak_clock_hz, sparse_peak, memory or notes)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": {\"value\": 1e9, \"status\": \"derived\", "
			       "\"source\": \"s\", \"note\": \"n\"}}",
		      "x.json: clock_hz.note: unknown key 'note' (expected value, status or "
		      "source)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"name\": \"again\"}", "x.json: name: duplicate key 'name'\n");
	/* anywhere in the file, even where no key is known (solar_json_parse) */
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": {\"value\": 1e9, \"status\": \"derived\", "
			       "\"source\": \"s\", \"value\": 2e9}}",
		      "x.json: clock_hz.value: duplicate key 'value'\n");
	/* Units and precisions. */
	EXPECT_ERRORS(MIN_HEAD ", \"sparse_peak\": {\"tensr\": {}}}",
		      "x.json: sparse_peak.tensr: unknown unit 'tensr' (did you mean 'tensor'?)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"sparse_peak\": {\"vector\": {}}}",
		      "x.json: sparse_peak.vector: unknown unit 'vector' (expected tensor, simt "
		      "or sfu)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"sparse_peak\": {\"tensor\": {\"fp16\": " FIG(1e15) "}}}",
		      "x.json: sparse_peak.tensor.fp16: unknown precision 'fp16' (did you mean "
		      "'f16'?)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"sparse_peak\": {\"tensor\": {\"int4\": " FIG(1e15) "}}}",
		      "x.json: sparse_peak.tensor.int4: unknown precision 'int4' (expected f64, "
		      "f32, tf32, bf16, f16, f8, i64, i32 or i8)\n");
	/* Figures: shape, numbers, status, source. */
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": 1.98e9}",
		      "x.json: clock_hz: expected an object {\"value\", \"status\", \"source\"}, "
		      "not a bare number (every figure carries its provenance)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": " FIG(-1) "}",
		      "x.json: clock_hz.value: expected a positive number\n");
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": " FIG(0) "}",
		      "x.json: clock_hz.value: expected a positive number\n");
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": " FIG(1e999) "}",
		      "x.json: clock_hz.value: number out of range (beyond 1.8e308, the largest "
		      "double)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": " FIG("1e9") "}",
		      "x.json: clock_hz.value: expected a positive number\n");
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": {\"value\": 1e9, \"status\": \"guessed\", "
			       "\"source\": \"s\"}}",
		      "x.json: clock_hz.status: unknown status 'guessed' (expected datasheet, "
		      "derived, measured or hypothetical)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": {\"value\": 1e9, \"status\": \"datashet\", "
			       "\"source\": \"\"}}",
		      "x.json: clock_hz.status: unknown status 'datashet' (did you mean "
		      "'datasheet'?)\n"
		      "x.json: clock_hz.source: expected a non-empty string\n");
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": {}}",
		      "x.json: clock_hz.value: missing (required)\n"
		      "x.json: clock_hz.status: missing (required)\n"
		      "x.json: clock_hz.source: missing (required)\n");
	/* Memory levels. */
	EXPECT_ERRORS(
	    "{\"schema\": 1, \"name\": \"t\", \"peak\": {\"simt\": {\"f32\": " FIG(
		1e13) "}}, "
		      "\"memory\": [" DRAM ", {\"level\": \"l2\", \"bandwidth_bytes_per_s\": "
		      "{\"value\": -5, \"status\": \"derived\", \"source\": \"s\"}}]}",
	    "x.json: memory[1].bandwidth_bytes_per_s.value: expected a positive number\n");
	EXPECT_ERRORS(
	    "{\"schema\": 1, \"name\": \"t\", \"peak\": {\"simt\": {\"f32\": " FIG(
		1e13) "}}, "
		      "\"memory\": [{\"level\": \"smem\", \"capacity_bytes\": " FIG(
			  1e6) "}, " DRAM
			       ", {\"level\": \"smem\", \"capacity_bytes\": " FIG(
				   1e6) "}, "
					"{\"level\": \"L2\", \"capacity_bytes\": " FIG(
					    1e6) "}, "
						 "{\"capacity_bytes\": " FIG(1e6) "}, 7]}",
	    "x.json: memory[1].level: level 'dram' out of order (levels go from DRAM "
	    "inward: dram, l2, smem, regs)\n"
	    "x.json: memory[2].level: duplicate level 'smem' (also memory[0])\n"
	    "x.json: memory[3].level: unknown level 'L2' (did you mean 'l2'?)\n"
	    "x.json: memory[4].level: missing (required)\n"
	    "x.json: memory[5]: expected an object {\"level\", \"capacity_bytes\", "
	    "\"bandwidth_bytes_per_s\"}\n");
	EXPECT_ERRORS(MIN_HEAD ", \"memory\": {}}", "x.json: memory: duplicate key 'memory'\n");
	EXPECT_ERRORS("{\"schema\": 1, \"memory\": {}}",
		      "x.json: memory: expected an array of levels\n");
	/* Required fields, checked on the merged result. */
	EXPECT_ERRORS("{\"schema\": 1}",
		      "x.json: name: missing (required)\n"
		      "x.json: peak.simt.f32: missing (required)\n"
		      "x.json: memory.dram.capacity_bytes: missing (required)\n"
		      "x.json: memory.dram.bandwidth_bytes_per_s: missing (required)\n");
	EXPECT_ERRORS(
	    "{\"schema\": 1, \"name\": \"t\", \"peak\": {\"simt\": {\"f32\": " FIG(
		1e13) "}}, "
		      "\"memory\": [{\"level\": \"dram\", \"capacity_bytes\": " FIG(1e9) "}]}",
	    "x.json: memory.dram.bandwidth_bytes_per_s: missing (required)\n");
	/* Inheritance: a null removes a required figure of the base. */
	EXPECT_ERRORS(
	    "{\"schema\": 1, \"base\": \"h100-sxm.json\", \"peak\": {\"simt\": {\"f32\": null}}}",
	    "x.json: peak.simt.f32: missing (required)\n");
	EXPECT_ERRORS("{\"schema\": 1, \"base\": \"no-such-gpu.json\"}",
		      "x.json: base: cannot read 'devices/no-such-gpu.json': No such file or "
		      "directory\n");
	/* Scalars. */
	EXPECT_ERRORS("{\"name\": \"t\"}",
		      "x.json: schema: missing (required; this solar reads schema 1)\n");
	EXPECT_ERRORS("{\"schema\": 2}",
		      "x.json: schema: unsupported version 2 (this solar reads schema 1)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"sm_count\": 13.5, \"vendor\": \"\", \"notes\": [\"ok\", 3]}",
		      "x.json: vendor: expected a non-empty string\n"
		      "x.json: sm_count: expected a positive integer\n"
		      "x.json: notes[1]: expected a string\n");
	EXPECT_ERRORS("[1, 2]", "x.json: expected a JSON object at the top level\n");
	/* A starred (sparse) headline typed into the dense field. */
	EXPECT_ERRORS("{\"schema\": 1, \"peak\": {\"tensor\": {\"bf16\": " FIG(
			  1979e12) "}}, "
				   "\"sparse_peak\": {\"tensor\": {\"bf16\": " FIG(1979e12) "}}}",
		      "x.json: peak.tensor.bf16.value: dense figure 1.979e+15 is more than 0.55 x "
		      "sparse_peak.tensor.bf16 (1.979e+15): is a sparse headline in the dense "
		      "field?\n");
	/* JSON syntax: line, column, the line and a caret, in the one located format (diag/). */
	EXPECT_ERRORS("{\n  \"schema\": 1,\n  \"clock_hz\": {\"value\": 1.2.3}\n}\n",
		      "x.json:3:28: error: invalid JSON\n"
		      "  \"clock_hz\": {\"value\": 1.2.3}\n"
		      "                           ^\n");
	EXPECT_ERRORS("{\"schema\": 1,}\n", "x.json:1:15: error: invalid JSON\n"
					    "{\"schema\": 1,}\n"
					    "              ^\n");
	EXPECT_ERRORS("{\"schema\": 1} {}", "x.json:1:15: error: invalid JSON\n"
					    "{\"schema\": 1} {}\n"
					    "              ^\n");
	EXPECT_ERRORS("", "x.json:1:1: error: invalid JSON (the file is empty)\n"
			  "\n"
			  "^\n");
	/* At most 20 errors a file, then a count. */
	char many[2048] = "{\"schema\": 1";
	for (int i = 0; i < 25; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), ", \"zz%02d\": 0", i);
	strcat(many, "}");
	d = load_str(many, NULL, &e);
	CHECK(!d);
	int lines = 0;
	for (const char *c = e; *c; c++)
		lines += *c == '\n';
	CHECK(lines == 21);
	CHECK(strstr(e, "x.json: zz19: unknown key 'zz19'") != NULL);
	CHECK(strstr(e, "zz20") == NULL);
	CHECK(strstr(e, "x.json: note: too many errors; 5 more not shown\n") != NULL);
	free(e);
}

static void test_set(void)
{
	solar_device *d = solar_device_load("devices/h100-sxm.json", on(stderr));
	CHECK(d != NULL);
	if (!d)
		return;
	FILE *err = tmpfile();
	CHECK(solar_device_set(d, "peak.tensor.bf16", 1.2e15, on(err)) == 0);
	const solar_figure *f = &d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16];
	CHECK(f->value == 1.2e15 && f->status == SOLAR_SRC_HYPOTHETICAL);
	CHECK(strncmp(f->source,
		      "override peak.tensor.bf16 = 1.2e+15 (was 9.894e+14, datasheet: ", 63) == 0);
	CHECK(solar_device_set(d, "memory.dram.bandwidth_bytes_per_s", 8e12, on(err)) == 0);
	CHECK(solar_device_level(d, "dram")->bandwidth_bytes_per_s.value == 8e12);
	CHECK(solar_device_set(d, "memory.l2.bandwidth_bytes_per_s", 12e12, on(err)) == 0);
	CHECK(solar_device_level(d, "l2")->capacity_bytes.value == 50.0 * 1024 * 1024);
	CHECK(solar_device_set(d, "sparse_peak.tensor.f8", 5e15, on(err)) == 0);
	CHECK(solar_device_set(d, "clock_hz", 2e9, on(err)) == 0);
	CHECK(solar_device_set(d, "sm_count", 144, on(err)) == 0 && d->sm_count == 144);
	CHECK(solar_device_set(d, "peak.sfu.f16", 1e13, on(err)) == 0);
	CHECK(strcmp(d->peak[SOLAR_UNIT_SFU][SOLAR_PREC_F16].source,
		     "override peak.sfu.f16 = 1e+13 (not given before)") == 0);
	char *errors = slurp(err);
	CHECK(errors[0] == 0);
	free(errors);

	err = tmpfile();
	CHECK(solar_device_set(d, "peak.tensr.bf16", 1, on(err)) < 0);
	CHECK(solar_device_set(d, "peak.tensor.fp16", 1, on(err)) < 0);
	CHECK(solar_device_set(d, "memory.hbm.capacity_bytes", 1, on(err)) < 0);
	CHECK(solar_device_set(d, "memory.l2.size", 1, on(err)) < 0);
	CHECK(solar_device_set(d, "peak.tensor.bf16", -1, on(err)) < 0);
	CHECK(solar_device_set(d, "sm_count", 1.5, on(err)) < 0);
	CHECK(solar_device_set(d, "peak.tensor.bf16.value", 1, on(err)) < 0);
	errors = slurp(err);
	CHECK(strcmp(errors,
		     "solar: device override 'peak.tensr.bf16': unknown unit 'tensr' (expected "
		     "tensor, simt or sfu)\n"
		     "solar: device override 'peak.tensor.fp16': unknown precision 'fp16' "
		     "(expected f64, f32, tf32, bf16, f16, f8, i64, i32 or i8)\n"
		     "solar: device override 'memory.hbm.capacity_bytes': unknown level 'hbm' "
		     "(expected dram, l2, smem or regs)\n"
		     "solar: device override 'memory.l2.size': unknown field 'size' (expected "
		     "capacity_bytes or bandwidth_bytes_per_s)\n"
		     "solar: device override 'peak.tensor.bf16': expected a positive number\n"
		     "solar: device override 'sm_count': expected a positive integer\n"
		     "solar: device override 'peak.tensor.bf16.value': expected clock_hz, "
		     "sm_count, peak.<unit>.<precision>, peak_clock_hz.<unit>.<precision>, "
		     "sparse_peak.<unit>.<precision> or memory.<level>.<field>\n") == 0);
	free(errors);
	check_round_trip(d);
	solar_device_free(d);

	/* A level the device lacks is created in its place in the hierarchy. */
	char *e = NULL;
	d = load_str("{\"schema\": 1, \"name\": \"t\", \"peak\": {\"simt\": {\"f32\": " FIG(
			 1e13) "}}, \"memory\": [" DRAM
			       ", {\"level\": \"regs\", \"capacity_bytes\": " FIG(1e6) "}]}",
		     NULL, &e);
	CHECK(d != NULL && e[0] == 0);
	free(e);
	if (!d)
		return;
	CHECK(solar_device_set(d, "memory.regs.capacity_bytes", 4e6, on(stderr)) == 0);
	CHECK(solar_device_set(d, "memory.smem.capacity_bytes", 2e6, on(stderr)) == 0);
	CHECK(solar_device_set(d, "memory.l2.capacity_bytes", 3e6, on(stderr)) == 0);
	CHECK(d->nlevels == 4);
	const char *order[] = {"dram", "l2", "smem", "regs"};
	for (int i = 0; i < 4 && i < d->nlevels; i++)
		CHECK(strcmp(d->levels[i].name, order[i]) == 0);
	check_round_trip(d);
	solar_device_free(d);
}

/* Rule "clock domains": peaks follow the SM clock through the clock of each figure. */
static void test_clocks(void)
{
	solar_device *d = solar_device_load("devices/h100-sxm.json", on(stderr));
	CHECK(d != NULL);
	if (!d)
		return;
	/* NVIDIA's 989.4 TFLOP/s BF16 assumes 1830 MHz; at the 1980 MHz maximum the tensor
	 * cores do 132 x 4096 x 1.98 GHz = 1070.5 TFLOP/s, and FP32 stays at its figure. */
	const double hw = 132 * 4096 * 1.98e9;
	CHECK(d->peak_clock_hz[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].value < 1.831e9);
	CHECK(solar_device_peak(d, SOLAR_UNIT_TENSOR, SOLAR_PREC_BF16) >= hw);
	CHECK(solar_device_peak(d, SOLAR_UNIT_TENSOR, SOLAR_PREC_BF16) < hw * 1.0001);
	CHECK(solar_device_peak(d, SOLAR_UNIT_SIMT, SOLAR_PREC_F32) == 6.7e13);
	CHECK(solar_device_peak(d, SOLAR_UNIT_TENSOR, SOLAR_PREC_I64) == 0);
	/* A locked 1.5 GHz: every peak at 1.5 GHz per its own clock; DRAM is not on the SM
	 * clock.  The 8192^3 matmul's 2 x 8192^3 FLOP then take at least 1.3557 ms, <= 1.356. */
	FILE *err = tmpfile();
	CHECK(solar_device_set(d, "clock_hz", 1.5e9, on(err)) == 0);
	double bf16 = solar_device_peak(d, SOLAR_UNIT_TENSOR, SOLAR_PREC_BF16);
	CHECK(bf16 >= 132 * 4096 * 1.5e9 && bf16 < 132 * 4096 * 1.5e9 * 1.0001);
	CHECK(2.0 * 8192 * 8192 * 8192 / bf16 <= 1.356e-3);
	CHECK(fabs(solar_device_peak(d, SOLAR_UNIT_SIMT, SOLAR_PREC_F32) / (6.7e13 * 1.5 / 1.98) - 1) <
	      1e-12);
	CHECK(solar_device_level(d, "dram")->bandwidth_bytes_per_s.value == 3.35e12);
	CHECK(d->clock_hz.status == SOLAR_SRC_HYPOTHETICAL);
	/* A new peak is a rate at the clock of the moment; a later clock scales it. */
	CHECK(solar_device_set(d, "peak.tensor.bf16", 1e15, on(err)) == 0);
	CHECK(solar_device_peak(d, SOLAR_UNIT_TENSOR, SOLAR_PREC_BF16) == 1e15);
	CHECK(d->peak_clock_hz[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].value == 1.5e9);
	CHECK(solar_device_set(d, "clock_hz", 0.75e9, on(err)) == 0);
	CHECK(solar_device_peak(d, SOLAR_UNIT_TENSOR, SOLAR_PREC_BF16) == 0.5e15);
	CHECK(solar_device_set(d, "peak_clock_hz.tensor.bf16", 1.5e9, on(err)) == 0);
	char *errors = slurp(err);
	CHECK(errors[0] == 0);
	free(errors);
	check_round_trip(d); /* a locked clock below the figures' clocks reads back */
	err = tmpfile();
	CHECK(solar_device_set(d, "peak_clock_hz.tensor.i64", 1e9, on(err)) < 0);
	CHECK(solar_device_set(d, "peak_clock_hz.tensr.bf16", 1e9, on(err)) < 0);
	errors = slurp(err);
	CHECK(strcmp(errors, "solar: device override 'peak_clock_hz.tensor.i64': no "
			     "peak.tensor.i64 to go with it\n"
			     "solar: device override 'peak_clock_hz.tensr.bf16': unknown unit "
			     "'tensr' (expected tensor, simt or sfu)\n") == 0);
	free(errors);
	solar_device_free(d);

	/* A descriptor without clocks keeps its figures and refuses another clock: changing
	 * clock_hz would change no peak. */
	char *e = NULL;
	d = load_str(MIN, NULL, &e);
	CHECK(d && e[0] == 0);
	free(e);
	if (d) {
		CHECK(solar_device_peak(d, SOLAR_UNIT_SIMT, SOLAR_PREC_F32) == 1e13);
		err = tmpfile();
		CHECK(solar_device_set(d, "clock_hz", 1.5e9, on(err)) < 0);
		errors = slurp(err);
		CHECK(strcmp(errors, "solar: device override 'clock_hz': the descriptor gives no "
				     "clock_hz, so its peaks cannot follow another SM clock "
				     "(docs/devices.md#clocks)\n") == 0);
		free(errors);
	}
	solar_device_free(d);

	/* Loader errors, with their JSON paths. */
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": " FIG(1e9) "}",
		      "x.json: peak_clock_hz.simt.f32: missing (the descriptor gives clock_hz, so "
		      "every peak needs the clock its figure assumes; a file that sets a peak "
		      "gives its clock too)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"peak_clock_hz\": {\"simt\": {\"f32\": " FIG(1e9) "}}}",
		      "x.json: clock_hz: missing (required with peak_clock_hz: the SM clock the "
		      "peaks are scaled to)\n");
	EXPECT_ERRORS(MIN_HEAD ", \"clock_hz\": " FIG(1e9) ", \"peak_clock_hz\": {\"simt\": "
			       "{\"f32\": " FIG(2e9) "}, \"tensor\": {\"bf16\": " FIG(1e9) "}}}",
		      "x.json: peak_clock_hz.tensor.bf16: no peak.tensor.bf16 to go with it "
		      "(remove it with null where the peak is removed)\n"
		      "x.json: peak_clock_hz.simt.f32: 2e+09 Hz is above clock_hz (1e+09 Hz), the "
		      "maximum SM clock: no unit on the SM clock runs faster\n");
	EXPECT_ERRORS(MIN_HEAD ", \"peak_clock_hz\": {\"simt\": {\"fp32\": " FIG(1e9) "}, "
			       "\"vector\": {}, \"sfu\": {\"f32\": 1.98e9}}}",
		      "x.json: peak_clock_hz.vector: unknown unit 'vector' (expected tensor, simt "
		      "or sfu)\n"
		      "x.json: peak_clock_hz.simt.fp32: unknown precision 'fp32' (did you mean "
		      "'f32'?)\n"
		      "x.json: peak_clock_hz.sfu.f32: expected an object {\"value\", \"status\", "
		      "\"source\"}, not a bare number (every figure carries its provenance)\n");
	/* A file that replaces a peak gives its clock: the old figure's clock is not kept. */
	EXPECT_ERRORS("{\"schema\": 1, \"base\": \"h100-sxm.json\", \"peak\": {\"tensor\": "
		      "{\"bf16\": " FIG(1e15) "}}}",
		      "x.json: peak_clock_hz.tensor.bf16: missing (the descriptor gives clock_hz, "
		      "so every peak needs the clock its figure assumes; a file that sets a peak "
		      "gives its clock too)\n");
	/* Removing a peak removes its clock. */
	e = NULL;
	d = load_str("{\"schema\": 1, \"base\": \"h100-sxm.json\", \"peak\": {\"tensor\": "
		     "{\"f8\": null}}}",
		     "devices", &e);
	CHECK(d && e[0] == 0 && !d->peak_clock_hz[SOLAR_UNIT_TENSOR][SOLAR_PREC_F8].present);
	free(e);
	solar_device_free(d);
}

static void test_names(void)
{
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		CHECK(solar_unit_parse(solar_unit_name((solar_unit)u)) == u);
	for (int p = 0; p < SOLAR_PREC_COUNT; p++)
		CHECK(solar_prec_parse(solar_prec_name((solar_prec)p)) == p);
	for (int s = 0; s <= SOLAR_SRC_HYPOTHETICAL; s++)
		CHECK(solar_status_parse(solar_status_name((solar_status)s)) == s);
	CHECK(strcmp(solar_unit_name(SOLAR_UNIT_SFU), "sfu") == 0);
	CHECK(strcmp(solar_prec_name(SOLAR_PREC_TF32), "tf32") == 0);
	CHECK(solar_unit_parse("TENSOR") < 0 && solar_prec_parse("fp32") < 0);
	CHECK(solar_prec_parse(NULL) < 0 && solar_status_parse("") < 0);
}

static void test_probe(void)
{
	FILE *out = tmpfile(), *err = tmpfile();
	CHECK(solar_device_probe_with("/nonexistent/libcuda.so.1", out, on(err)) != 0);
	char *o = slurp(out), *e = slurp(err);
	const char *want = "solar: device probe: no CUDA driver found (/nonexistent/libcuda.so.1: ";
	CHECK(o[0] == 0);
	CHECK(strncmp(e, want, strlen(want)) == 0);
	CHECK(strlen(e) > strlen(want) + 2 && strcmp(e + strlen(e) - 2, ")\n") == 0);
	free(o);
	free(e);

	/* The real driver: absent on build machines, present on GPU machines. */
	out = tmpfile();
	err = tmpfile();
	int rc = solar_device_probe(out, on(err));
	o = slurp(out);
	e = slurp(err);
	if (rc != 0) {
		CHECK(o[0] == 0);
		CHECK(strncmp(e, "solar: device probe: ", 21) == 0);
		if (strstr(e, "no CUDA driver found"))
			CHECK(strncmp(e,
				      "solar: device probe: no CUDA driver found (libcuda.so.1: ",
				      57) == 0);
		printf("probe without a GPU: %s", e);
	} else {
		char *le = NULL;
		solar_device *d = load_str(o, NULL, &le);
		printf("probe found a GPU:\n%s%s", o, e);
		/* Integrated GPUs need the DRAM bandwidth added by hand. */
		if (d) {
			CHECK(d->sm_count > 0 && d->clock_hz.present);
			CHECK(d->clock_hz.status == SOLAR_SRC_MEASURED);
			CHECK(d->peak[SOLAR_UNIT_SIMT][SOLAR_PREC_F32].status == SOLAR_SRC_DERIVED);
			CHECK(solar_device_level(d, "dram")->bandwidth_bytes_per_s.status ==
			      SOLAR_SRC_DERIVED);
			check_invariants("x.json", d);
		} else {
			CHECK(strstr(le, "bandwidth_bytes_per_s: missing") ||
			      strstr(le, "peak.simt.f32: missing"));
		}
		solar_device_free(d);
		free(le);
	}
	free(o);
	free(e);
}

/* --ceilings measured on the CPU side: fake measurements written into a descriptor as
 * measured figures, the JSON written and read back, and the copy kernel's PTX assembled. */
static void test_ceilings(void)
{
	solar_device *d = solar_device_load("devices/h200-sxm.json", on(stderr));
	CHECK(d != NULL);
	if (!d)
		return;
	double bf16_peak = d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].value;
	solar_ceilings none;
	memset(&none, 0, sizeof none);
	solar_device_add_ceilings(d, &none, on(stderr)); /* nothing measured: nothing changes */
	CHECK(!strcmp(d->name, "NVIDIA H200 SXM") && d->nnotes >= 0);
	int notes = d->nnotes;
	CHECK(notes == d->nnotes);

	solar_ceilings c;
	memset(&c, 0, sizeof c);
	c.dram_bytes_per_s = 4.1e12;
	snprintf(c.dram_source, sizeof c.dram_source, "test copy");
	c.ops_per_s[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16] = 7.97e14;
	snprintf(c.ops_source[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16], 400, "test bf16 gemm");
	c.ops_per_s[SOLAR_UNIT_SIMT][SOLAR_PREC_F32] = 9e13; /* above the 67 TFLOP/s peak */
	snprintf(c.ops_source[SOLAR_UNIT_SIMT][SOLAR_PREC_F32], 400, "test f32 gemm");
	FILE *err = tmpfile();
	solar_device_add_ceilings(d, &c, on(err));
	char *e = slurp(err);
	CHECK(strstr(e,
		     "solar: warning: device probe: the measured simt.f32 ceiling (90 TFLOP/s) is "
		     "above the derived peak (67 TFLOP/s)") != NULL);
	CHECK(!strstr(e, "tensor.bf16"));
	free(e);
	FILE *out = tmpfile();
	CHECK(solar_device_write_json(d, out) == 0);
	char *json = slurp(out), *le = NULL;
	solar_device_free(d);
	d = load_str(json, NULL, &le);
	CHECK(d != NULL && le[0] == 0);
	if (d) {
		CHECK(!strcmp(d->name, "NVIDIA H200 SXM (measured ceilings)"));
		const solar_figure *bw = &solar_device_level(d, "dram")->bandwidth_bytes_per_s;
		CHECK(bw->value == 4.1e12 && bw->status == SOLAR_SRC_MEASURED &&
		      !strcmp(bw->source, "test copy"));
		const solar_figure *t = &d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16];
		CHECK(t->value == 7.97e14 && t->status == SOLAR_SRC_MEASURED && t->value < bf16_peak);
		CHECK(d->peak_clock_hz[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].status ==
		      SOLAR_SRC_DERIVED);
		CHECK(d->peak_clock_hz[SOLAR_UNIT_TENSOR][SOLAR_PREC_BF16].value == d->clock_hz.value);
		/* what was not measured keeps its provenance */
		CHECK(d->peak[SOLAR_UNIT_TENSOR][SOLAR_PREC_F8].status == SOLAR_SRC_DATASHEET);
		CHECK(d->nnotes == notes + 1 &&
		      !strncmp(d->notes[d->nnotes - 1], "PRACTICAL, NOT SOUND", 20));
		/* the bound at the default clock uses the ceiling as measured */
		CHECK(fabs(solar_device_peak(d, SOLAR_UNIT_TENSOR, SOLAR_PREC_BF16) - 7.97e14) < 1);
	}
	solar_device_free(d);
	free(json);
	free(le);

	/* the copy kernel assembles for every architecture the rate table knows */
	const char *ptxas = access("/usr/local/cuda/bin/ptxas", X_OK) == 0
				    ? "/usr/local/cuda/bin/ptxas"
				    : system("command -v ptxas >/dev/null 2>&1") == 0 ? "ptxas" : NULL;
	if (!ptxas) {
		printf("test_ceilings: no ptxas, the copy kernel is not assembled\n");
		return;
	}
	char path[] = "/tmp/solar-ptx-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return;
	fputs(solar_device_probe_copy_ptx(), f);
	fclose(f);
	static const char *const archs[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100"};
	for (size_t i = 0; i < sizeof archs / sizeof *archs; i++) {
		char cmd[512];
		snprintf(cmd, sizeof cmd, "%s -arch=%s %s -o /dev/null", ptxas, archs[i], path);
		int rc = system(cmd);
		if (rc != 0)
			printf("ptxas failed for %s\n", archs[i]);
		CHECK(rc == 0);
	}
	unlink(path);
}

/* The loader reports through the channel its caller gives: a file's errors print there and
 * count there (a command tells a bad descriptor from its channel alone), an override's too;
 * a NULL channel is silent. */
static void test_channel(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	solar_diag *tool = solar_diag_new_tool(out);
	CHECK(!solar_device_load_string("{\"schema\": 1, \"sm_count\": -1}", "x.json", NULL, tool));
	int n = solar_diag_errors(tool);
	CHECKF(n >= 1, "%d errors counted", n);
	solar_device *d = solar_device_load("devices/h100-sxm.json", tool);
	CHECK(d && solar_device_set(d, "sm_count", 1.5, tool) < 0);
	CHECK(solar_diag_errors(tool) == n + 1);
	CHECK(solar_device_set(d, "sm_count", 1.5, NULL) < 0);
	CHECK(!solar_device_load("/nonexistent/x.json", NULL));
	CHECK(solar_diag_errors(tool) == n + 1);
	solar_device_free(d);
	solar_diag_free(tool);
	fclose(out);
	CHECKF(strstr(text, "x.json: sm_count: ") &&
		   strstr(text, "solar: device override 'sm_count': expected a positive integer\n"),
	       "got:\n%s", text);
	free(text);
}

int main(void)
{
	test_channel();
	test_names();
	test_shipped();
	test_shipped_values();
	test_inheritance();
	test_sparse_inherited();
	test_base_chains();
	test_errors();
	test_set();
	test_clocks();
	test_probe();
	test_ceilings();
	printf("test_device: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
