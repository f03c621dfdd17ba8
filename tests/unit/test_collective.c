/* test_collective.c - system descriptors (devices/system.c) and the collective bounds
 * (roofline/collective.c, docs/bounds.md "Collectives"): every shipped system loads, each
 * rule's figure against a hand count, the published nccl-tests measurements above their
 * bounds, placements, located errors of bad descriptors and bad questions.
 * Runs from the repository root (it reads devices/).
 */
#define _XOPEN_SOURCE 700

#include "roofline/collective.h"

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "devices/system.h"

static solar_system *load(const char *ref, char **errors)
{
	FILE *err = tmpfile();
	solar_system *s = solar_system_load(ref, on(err));
	*errors = slurp(err);
	return s;
}

static bool near(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b); }

/* The bound of op, checked against want (seconds) and the limiting resource. */
#define BOUND(s, op, bytes, ranks, want, limit) bound_is(__LINE__, s, op, bytes, ranks, want, limit)
static void bound_is(int line, const solar_system *s, solar_coll_op op, double bytes, int ranks,
		     double want, const char *limit)
{
	solar_coll_bound b;
	char err[300] = "";
	int rc = solar_collective_bound(s, op, bytes, ranks, &b, err, sizeof err);
	bool ok = rc == 0 && near(b.time_s, want) &&
		  (!limit ? b.limit < 0 : b.limit >= 0 && !strcmp(b.terms[b.limit].resource, limit));
	checks++;
	if (!ok) {
		failures++;
		fprintf(stderr, "%s:%d: %s of %g B over %d ranks: rc %d (%s), %.6g s limited by %s; "
			"want %.6g s limited by %s\n", __FILE__, line, solar_coll_op_name(op), bytes,
			ranks, rc, err, b.time_s, b.limit >= 0 ? b.terms[b.limit].resource : "-",
			want, limit ? limit : "-");
	}
}

#define REFUSED(s, op, bytes, ranks, want) refused(__LINE__, s, op, bytes, ranks, want)
static void refused(int line, const solar_system *s, solar_coll_op op, double bytes, int ranks,
		    const char *want)
{
	solar_coll_bound b;
	char err[300] = "";
	int rc = solar_collective_bound(s, op, bytes, ranks, &b, err, sizeof err);
	checks++;
	if (rc == 0 || strcmp(err, want)) {
		failures++;
		fprintf(stderr, "%s:%d: rc %d, error '%s', want '%s'\n", __FILE__, line, rc, err,
			want);
	}
}

static void test_shipped(void)
{
	glob_t g;
	CHECK(glob("devices/*.json", 0, NULL, &g) == 0);
	int systems = 0;
	for (size_t k = 0; k < g.gl_pathc; k++) {
		if (!solar_system_is(g.gl_pathv[k]))
			continue;
		systems++;
		char *errors;
		solar_system *s = load(g.gl_pathv[k], &errors);
		CHECKF(s && !errors[0], "%s: %s", g.gl_pathv[k], errors);
		if (s) {
			CHECK(s->gpu && s->gpus_per_node >= 2 && s->nodes >= 1);
			CHECK(s->nvlink_bw.present && s->nvlink_bw.source && s->nvlink_bw.source[0]);
			CHECK(s->in_switch_reduction.present);
			/* it writes what it reads back */
			char path[] = "/tmp/solar-system-XXXXXX";
			int fd = mkstemp(path);
			FILE *f = fdopen(fd, "w");
			CHECK(solar_system_write_json(s, f) == 0);
			fclose(f);
			char *e2;
			solar_system *t = load(path, &e2);
			CHECKF(t && !e2[0], "%s written back: %s", g.gl_pathv[k], e2);
			if (t)
				CHECK(t->nodes == s->nodes && t->gpus_per_node == s->gpus_per_node &&
				      t->nvlink_bw.value == s->nvlink_bw.value &&
				      t->network_bw.present == s->network_bw.present &&
				      t->in_switch_reduction.value == s->in_switch_reduction.value);
			solar_system_free(t);
			free(e2);
			unlink(path);
		}
		solar_system_free(s);
		free(errors);
	}
	CHECK(systems >= 4);
	globfree(&g);
}

/* The test: a 1 GB bf16 all-reduce over the 8 GPUs of an H200 node. */
static void test_published(void)
{
	char *errors;
	solar_system *s = load("hgx-h200-8", &errors);
	CHECK(s && !errors[0]);
	free(errors);
	if (!s)
		return;
	solar_coll_bound b;
	char err[200];
	CHECK(solar_collective_bound(s, SOLAR_COLL_ALL_REDUCE, 1e9, 8, &b, err, sizeof err) == 0);
	double floor_nvlink = 1e9 / 450e9; /* its bytes over one GPU's NVLink */
	CHECK(b.time_s >= floor_nvlink * (1 - 1e-12));
	/* nccl-tests bus bandwidth = algbw x 2(n-1)/n: NVLS 475 GB/s (nccl-tests issue 272),
	 * ring 370 GB/s (nccl issue 1455): times 3.68 ms and 4.73 ms */
	double nvls = 1e9 * 2 * 7 / 8 / 475e9, ring = 1e9 * 2 * 7 / 8 / 370e9;
	CHECK(b.time_s <= nvls && b.time_s <= ring);
	CHECK(near(b.time_s, 1e9 / 450e9)); /* 2.22 ms */
	solar_system_free(s);

	s = load("hgx-h100-8", &errors); /* NVLS on 8 H100: near 480 GB/s bus bandwidth */
	CHECK(s && !errors[0]);
	free(errors);
	if (s) {
		CHECK(solar_collective_bound(s, SOLAR_COLL_ALL_REDUCE, 1e9, 8, &b, err,
					     sizeof err) == 0);
		CHECK(b.time_s <= 1e9 * 2 * 7 / 8 / 480e9);
		/* what a bound that knew only the ring would say: above NVLS, so unsound */
		CHECK(1e9 * 2 * 7 / 8 / 450e9 > 1e9 * 2 * 7 / 8 / 480e9);
	}
	solar_system_free(s);
}

static void test_rules(void)
{
	char *errors;
	solar_system *s = load("hgx-h200-8", &errors);
	free(errors);
	if (!s)
		return;
	double S = 1e9, B = 450e9, D = 4.8e12, part = 7.0 / 8 * S;
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 8, S / B, "rank links");
	BOUND(s, SOLAR_COLL_ALL_GATHER, S, 8, part / B, "rank links");
	BOUND(s, SOLAR_COLL_REDUCE_SCATTER, S, 8, part / B, "rank links");
	BOUND(s, SOLAR_COLL_ALL_TO_ALL, S, 8, part / B, "rank links");
	BOUND(s, SOLAR_COLL_BROADCAST, S, 8, S / B, "rank links");
	BOUND(s, SOLAR_COLL_SEND, S, 2, S / B, "rank links");
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 1, 0, NULL); /* one rank: nothing moves */
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 4, S / B, "rank links");
	/* without reduction in the switch: the one-way gossip count, 2(n-1)/n S */
	s->in_switch_reduction.value = 0;
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 8, 2 * part / B, "rank links");
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 2, S / B, "rank links");
	BOUND(s, SOLAR_COLL_ALL_GATHER, S, 8, part / B, "rank links"); /* unchanged */
	/* DRAM limits when the links are fast: 2 S / D for an all-reduce */
	CHECK(solar_system_set(s, "nvlink.bandwidth_bytes_per_s", 100e12, NULL) == 0);
	CHECK(s->nvlink_bw.status == SOLAR_SRC_HYPOTHETICAL);
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 8, 2 * S / D, "DRAM");
	BOUND(s, SOLAR_COLL_REDUCE_SCATTER, S, 8, (S + S / 8) / D, "DRAM");
	/* a latency figure adds once */
	CHECK(solar_system_set(s, "latency_s", 5e-6, NULL) == 0);
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 8, 2 * S / D + 5e-6, "DRAM");
	solar_system_free(s);

	s = load("hgx-h200-ib", &errors);
	CHECK(s && !errors[0] && s->nodes == 16);
	free(errors);
	if (!s)
		return;
	double out = 62.5e9, Bc = B + out, node = 8 * out;
	/* 16 nodes, SHARP: each node's network moves S */
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 128, S / node, "node network");
	/* within one node a rank may use its NIC too */
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 8, S / Bc, "rank links");
	BOUND(s, SOLAR_COLL_ALL_GATHER, S, 64, (63.0 / 64 * S) / Bc, "rank links");
	BOUND(s, SOLAR_COLL_ALL_TO_ALL, S, 128, 8 * (15.0 / 16 * S) / node, "node network");
	s->in_network_reduction.value = 0; /* no SHARP: gossip between the nodes */
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 128, 2 * (15.0 / 16) * S / node, "node network");
	REFUSED(s, SOLAR_COLL_ALL_REDUCE, S, 12,
		"12 ranks span nodes of 8 GPUs without filling them: give a multiple of 8, or at "
		"most 8");
	REFUSED(s, SOLAR_COLL_ALL_REDUCE, S, 200,
		"200 ranks, but 16 HGX H200 nodes, InfiniBand NDR has 128 GPUs (16 nodes of 8)");
	REFUSED(s, SOLAR_COLL_SEND, S, 3, "send is between two ranks (--ranks 2), not 3");
	REFUSED(s, SOLAR_COLL_ALL_GATHER, 0, 8, "the size must be a positive number of bytes");
	{ /* a send between two nodes (pipeline stages): S also leaves the sender's node, through
	   * at most its 8 NICs (PXN); until 2026-12-07 no network term */
		solar_coll_bound b;
		char err[200] = "";
		checks++;
		if (solar_collective_bound_placed(s, SOLAR_COLL_SEND, S, 2, 1, &b, err, sizeof err) ||
		    b.nodes != 2 || !near(b.time_s, S / node) || b.limit < 0 ||
		    strcmp(b.terms[b.limit].resource, "node network")) {
			failures++;
			fprintf(stderr, "%s:%d: send between nodes: %s %.6g s\n", __FILE__, __LINE__,
				err, b.time_s);
		}
		checks++;
		int net = -1;
		for (int i = 0; i < b.nterms; i++)
			if (!strcmp(b.terms[i].resource, "node network"))
				net = i;
		if (net < 0 || !near(b.terms[net].time_s, S / node)) {
			failures++;
			fprintf(stderr, "%s:%d: send between nodes has no node-network term of S / "
					"(8 B_out)\n",
				__FILE__, __LINE__);
		}
	}
	CHECK(solar_system_set(s, "nodes", 2, NULL) == 0);
	/* all 16 GPUs of 2 nodes: NVLS in each node, no SHARP between them */
	BOUND(s, SOLAR_COLL_ALL_REDUCE, S, 0, fmax(S / Bc, 2 * (1.0 / 2) * S / node),
	      "node network");
	solar_system_free(s);
}

static char tmpdir[64];

static void put_file(const char *name, const char *text)
{
	char path[160];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The system file NAME in tmpdir must fail to load, printing exactly want (with the folder
 * written as DIR). */
#define EXPECT_ERRORS(name, want) expect_errors(__LINE__, name, want)
static void expect_errors(int line, const char *name, const char *want)
{
	char path[160], *got;
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	solar_system *s = load(path, &got);
	/* DIR for the folder, so that the expected text is the same on every run */
	char *norm = calloc(1, strlen(got) * 2 + 1), *w = norm;
	for (const char *r = got; *r;) {
		if (!strncmp(r, tmpdir, strlen(tmpdir))) {
			w += sprintf(w, "DIR");
			r += strlen(tmpdir);
		} else {
			*w++ = *r++;
		}
	}
	checks++;
	if (s || strcmp(norm, want)) {
		failures++;
		fprintf(stderr, "%s:%d: %s\n--- expected ---\n%s--- got ---\n%s----------------\n",
			__FILE__, line, s ? "loaded, expected errors" : "wrong diagnostics", want,
			norm);
	}
	solar_system_free(s);
	free(got);
	free(norm);
}

#define FIG(v) "{\"value\": " #v ", \"status\": \"datasheet\", \"source\": \"test\"}"
#define SW(v) "{\"value\": " #v ", \"status\": \"datasheet\", \"source\": \"test\"}"
#define NVLINK "\"nvlink\": {\"bandwidth_bytes_per_s\": " FIG(4e11) ", \"in_switch_reduction\": " SW(true) "}"

static void test_errors(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/solar-systems-XXXXXX");
	CHECK(mkdtemp(tmpdir) != NULL);
	put_file("ok.json", "{\"schema\": 1, \"system\": \"t\", \"gpu\": \"h200-sxm\", "
			    "\"gpus_per_node\": 4, " NVLINK "}");
	char path[160], *errors;
	snprintf(path, sizeof path, "%s/ok.json", tmpdir);
	solar_system *s = load(path, &errors);
	CHECKF(s && !errors[0], "%s", errors);
	CHECK(s && s->nodes == 1 && solar_system_gpus(s) == 4 && !s->network_bw.present);
	free(errors);
	/* more nodes need a network: refused as an override, and in a file */
	FILE *err = tmpfile();
	CHECK(s && solar_system_set(s, "nodes", 2, on(err)) == -1);
	errors = slurp(err);
	CHECK(strstr(errors, "system override 'nodes': t has no network to join nodes") != NULL);
	free(errors);
	err = tmpfile();
	CHECK(s && solar_system_set(s, "nvlink.speed", 1, on(err)) == -1);
	errors = slurp(err);
	CHECK(strstr(errors, "system override 'nvlink.speed': unknown path") != NULL);
	free(errors);
	solar_system_free(s);

	put_file("nonet.json", "{\"schema\": 1, \"base\": \"ok.json\", \"nodes\": 2}");
	EXPECT_ERRORS("nonet.json",
		      "DIR/nonet.json: network.bandwidth_bytes_per_s: missing (required with more "
		      "than one node: the network joins them)\n");
	put_file("bad.json",
		 "{\"schema\": 1, \"system\": \"t\", \"gpu\": \"h200-sxm\", \"gpus_per_node\": 0, "
		 "\"nvlink\": {\"bandwidth_bytes_per_s\": 4e11, \"in_switch_reduction\": "
		 "{\"value\": \"yes\", \"status\": \"datasheet\", \"source\": \"t\"}}, \"links\": 3}");
	EXPECT_ERRORS("bad.json",
		      "DIR/bad.json: links: unknown key 'links' (expected schema, system, base, gpu, "
		      "gpus_per_node, nodes, nvlink, network, latency_s, measured or notes)\n"
		      "DIR/bad.json: gpus_per_node: expected a whole number from 1 to 1000000\n"
		      "DIR/bad.json: nvlink.bandwidth_bytes_per_s: expected an object {\"value\", "
		      "\"status\", \"source\"}, not a bare number (every figure carries its "
		      "provenance)\n"
		      "DIR/bad.json: nvlink.in_switch_reduction.value: expected true or false\n");
	put_file("nogpu.json", "{\"schema\": 1, \"system\": \"t\", \"gpu\": \"h900\", "
			       "\"gpus_per_node\": 8, " NVLINK "}");
	EXPECT_ERRORS("nogpu.json", "solar: no device 'h900'; try 'solar device list'\n"
				    "DIR/nogpu.json: gpu: the GPU's descriptor does not load (see "
				    "above)\n");
	put_file("devbase.json", "{\"schema\": 1, \"base\": \"h200-sxm\", \"system\": \"t\"}");
	snprintf(path, sizeof path, "%s/devbase.json", tmpdir);
	s = load(path, &errors);
	CHECK(!s && strstr(errors, "devbase.json: base: '") &&
	      strstr(errors, "h200-sxm.json' is not a system descriptor (no \"system\" key)\n"));
	free(errors);
	put_file("loop.json", "{\"schema\": 1, \"base\": \"loop.json\", \"system\": \"t\"}");
	s = load("/dev/null", &errors);
	CHECK(!s);
	free(errors);
	snprintf(path, sizeof path, "%s/loop.json", tmpdir);
	s = load(path, &errors);
	CHECK(!s && strstr(errors, "more than 16 descriptors in the base chain (a cycle?)"));
	free(errors);
	put_file("syntax.json", "{\"schema\": 1,, }");
	snprintf(path, sizeof path, "%s/syntax.json", tmpdir);
	s = load(path, &errors);
	CHECKF(!s && strstr(errors, "syntax.json:1:15: error: invalid JSON"), "%s", errors);
	free(errors);
	/* a device where a system is needed, and a system where a device is */
	s = load("h200-sxm", &errors);
	CHECK(!s && strstr(errors, "h200-sxm.json: a device descriptor, not a system's"));
	free(errors);
	err = tmpfile();
	solar_device *d = solar_device_load("hgx-h200-8", on(err));
	errors = slurp(err);
	CHECK(!d && strstr(errors, "hgx-h200-8.json: a system descriptor (many GPUs), where one "
				   "GPU's descriptor is needed"));
	free(errors);
	const char *names[] = {"ok.json", "nonet.json", "bad.json", "nogpu.json", "devbase.json",
			       "loop.json", "syntax.json"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

static void test_names(void)
{
	for (int op = 0; op < SOLAR_COLL_COUNT; op++)
		CHECK(solar_coll_op_parse(solar_coll_op_name((solar_coll_op)op)) == op);
	CHECK(solar_coll_op_parse("allreduce") < 0 && solar_coll_op_parse(NULL) < 0);
}

int main(void)
{
	test_shipped();
	test_published();
	test_rules();
	test_errors();
	test_names();
	printf("%d checks, %d failures\n", checks, failures);
	return failures != 0;
}
