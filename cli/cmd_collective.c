/* cmd_collective.c - `solar collective OP SIZE --device SYSTEM [--ranks N] [--set P=V]`.
 *
 * The least time a collective of SIZE bytes per rank can take over N GPUs of a system (a
 * node or a cluster, docs/devices.md "Systems"), by the rules of docs/bounds.md
 * "Collectives" (roofline/collective.c): every term, which one limits, and the bandwidths a
 * user compares with nccl-tests (algorithm bandwidth = SIZE / time; bus bandwidth as
 * nccl-tests defines it).  The system's measured ceiling, where it has one, is printed as an
 * estimate beside the bound, never in its place.  With --target-time, what each limiting
 * figure must become for the bound to meet it (the others as they are).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/detail.h"
#include "cli.h"
#include "devices/system.h"
#include "output.h"
#include "report/format.h"
#include "roofline/collective.h"

/* nccl-tests' bus bandwidth factor of each collective (its doc/PERFORMANCE.md). */
static double bus_factor(solar_coll_op op, int n)
{
	switch (op) {
	case SOLAR_COLL_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case SOLAR_COLL_ALL_GATHER:
	case SOLAR_COLL_REDUCE_SCATTER:
	case SOLAR_COLL_ALL_TO_ALL:
		return (double)(n - 1) / n;
	default:
		return 1;
	}
}

/* --set PATH=VALUE on a system (solar_quantity_set_system). */
static int apply_set(solar_system *s, const char *arg, solar_diag *diag)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1]) {
		solar_diag_tool_error(diag, "--set %s: expected PATH=VALUE", arg);
		return -1;
	}
	char path[200];
	snprintf(path, sizeof path, "%.*s", (int)(eq - arg) < 199 ? (int)(eq - arg) : 199, arg);
	char where[240];
	snprintf(where, sizeof where, "--set %s", path);
	return solar_quantity_set_system(s, NULL, path, eq + 1, NULL, where, diag);
}

static int usage(const char *msg)
{
	solar_diag *d = solar_cli_diag();
	solar_diag_tool_error(d, "%s", msg);
	solar_diag_hint(d, "usage: solar collective OP SIZE --device SYSTEM [--ranks N] [--target-time T] (OP: "
			   "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send)");
	solar_diag_hint(d, "Try 'solar collective --help'.");
	return SOLAR_EXIT_USAGE;
}

static void print_table(FILE *out, const solar_system *s, const char *ref,
			const solar_coll_bound *b)
{
	char q1[32], q2[32], q3[32];
	fprintf(out, "%s of %s per rank over %d rank%s of %s (%s)\n", solar_coll_op_name(b->op),
		solar_fmt_quantity(q1, sizeof q1, b->bytes, "B"), b->ranks, b->ranks == 1 ? "" : "s",
		ref, s->name);
	fprintf(out, "  placement: %d node%s of %d rank%s; reduction in the NVSwitch: %s%s\n\n",
		b->nodes, b->nodes == 1 ? "" : "s", b->ranks_per_node,
		b->ranks_per_node == 1 ? "" : "s", b->in_switch ? "yes" : "no",
		b->nodes > 1 ? (b->in_network ? ", in the network: yes" : ", in the network: no")
			     : "");
	if (!b->nterms) {
		fprintf(out, "  one rank: nothing moves; bound 0\n");
		return;
	}
	fprintf(out, "  %-13s %-11s %-12s %-10s %s\n", "resource", "bytes", "bandwidth", "time",
		"rule (docs/bounds.md, \"Collectives\")");
	for (int i = 0; i < b->nterms; i++) {
		const solar_coll_term *t = &b->terms[i];
		fprintf(out, "  %-13s %-11s %-12s %-10s %s%s\n", t->resource,
			solar_fmt_quantity(q1, sizeof q1, t->bytes, "B"),
			solar_fmt_quantity(q2, sizeof q2, t->bandwidth, "B/s"),
			solar_fmt_time(q3, sizeof q3, t->time_s), t->rule,
			i == b->limit ? "  <- limit" : "");
	}
	if (b->latency_s > 0)
		fprintf(out, "  %-13s %-11s %-12s %s\n", "latency", "-", "-",
			solar_fmt_time(q3, sizeof q3, b->latency_s));
	else
		fprintf(out, "  latency: not counted (the descriptor gives no latency_s)\n");
	double alg = b->bytes / b->time_s;
	fprintf(out, "\nBound: %s  (algorithm bandwidth <= %s, bus bandwidth <= %s)\n",
		solar_fmt_time(q1, sizeof q1, b->time_s), solar_fmt_quantity(q2, sizeof q2, alg, "B/s"),
		solar_fmt_quantity(q3, sizeof q3, alg * bus_factor(b->op, b->ranks), "B/s"));
	const solar_figure *m = &s->measured_all_reduce_busbw;
	if (m->present && b->op == SOLAR_COLL_ALL_REDUCE && b->ranks == s->gpus_per_node &&
	    b->nodes == 1) {
		double t = b->bytes * bus_factor(b->op, b->ranks) / m->value;
		fprintf(out, "Measured ceiling (an estimate, not a bound): %s bus bandwidth -> %s\n",
			solar_fmt_quantity(q1, sizeof q1, m->value, "B/s"),
			solar_fmt_time(q2, sizeof q2, t));
	}
}

/* The figure behind a term and the value it must have to move the term's bytes in `left`
 * seconds: rank links are NVLink plus the network share (the NVLink figure carries the
 * rest), a node's network is its GPUs' shares, DRAM the GPU's.  0 when it already does. */
static double needed(const solar_system *s, const solar_coll_bound *b, const solar_coll_term *t,
		     double left, const char **path, double *now)
{
	double bw = t->bytes / left, out = t->bandwidth - s->nvlink_bw.value;
	if (!strcmp(t->resource, "node network")) {
		*path = "network.bandwidth_bytes_per_s";
		*now = s->network_bw.value;
		bw /= s->gpus_per_node;
	} else if (!strcmp(t->resource, "DRAM")) {
		*path = "gpu.memory.dram.bandwidth_bytes_per_s";
		*now = t->bandwidth;
	} else {
		*path = "nvlink.bandwidth_bytes_per_s";
		*now = s->nvlink_bw.value;
		bw -= out; /* the network's share stays as it is */
	}
	(void)b;
	return t->time_s > left ? bw : 0;
}

static void print_target(FILE *out, const solar_system *s, const solar_coll_bound *b, double T)
{
	char q1[32], q2[32], q3[32];
	if (b->time_s <= T) {
		fprintf(out, "Target %s: met (the bound %s leaves %s)\n",
			solar_fmt_time(q1, sizeof q1, T), solar_fmt_time(q2, sizeof q2, b->time_s),
			solar_fmt_time(q3, sizeof q3, T - b->time_s));
		return;
	}
	double left = T - b->latency_s;
	if (left <= 0) {
		fprintf(out, "Target %s: no bandwidth meets it: the latency alone is %s\n",
			solar_fmt_time(q1, sizeof q1, T), solar_fmt_time(q2, sizeof q2, b->latency_s));
		return;
	}
	fprintf(out, "Target %s: met with these figures (each computed with the others as they "
		"are; together they suffice):\n", solar_fmt_time(q1, sizeof q1, T));
	for (int i = 0; i < b->nterms; i++) {
		const char *path;
		double now, want = needed(s, b, &b->terms[i], left, &path, &now);
		if (want > 0)
			fprintf(out, "  %-40s %s -> %s (%.3gx)\n", path,
				solar_fmt_quantity(q2, sizeof q2, now, "B/s"),
				solar_fmt_quantity(q3, sizeof q3, want, "B/s"), want / now);
	}
}

static cJSON *target_json(const solar_system *s, const solar_coll_bound *b, double T)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "time_s", T);
	cJSON_AddBoolToObject(j, "met", b->time_s <= T);
	cJSON_AddBoolToObject(j, "reachable", T > b->latency_s);
	cJSON *needs = cJSON_AddArrayToObject(j, "needs");
	for (int i = 0; b->time_s > T && T > b->latency_s && i < b->nterms; i++) {
		const char *path;
		double now, want = needed(s, b, &b->terms[i], T - b->latency_s, &path, &now);
		if (want <= 0)
			continue;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "resource", b->terms[i].resource);
		cJSON_AddStringToObject(e, "set", path);
		cJSON_AddNumberToObject(e, "now_bytes_per_s", now);
		cJSON_AddNumberToObject(e, "needed_bytes_per_s", want);
		cJSON_AddNumberToObject(e, "factor", want / now);
		cJSON_AddItemToArray(needs, e);
	}
	return j;
}

static cJSON *bound_json(const solar_system *s, const char *ref, const solar_coll_bound *b)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "op", solar_coll_op_name(b->op));
	cJSON_AddNumberToObject(j, "bytes", b->bytes);
	cJSON_AddNumberToObject(j, "ranks", b->ranks);
	cJSON *sys = cJSON_AddObjectToObject(j, "system");
	cJSON_AddStringToObject(sys, "name", ref);
	cJSON_AddStringToObject(sys, "system", s->name);
	cJSON_AddStringToObject(sys, "file", s->file);
	cJSON *pl = cJSON_AddObjectToObject(j, "placement");
	cJSON_AddNumberToObject(pl, "nodes", b->nodes);
	cJSON_AddNumberToObject(pl, "ranks_per_node", b->ranks_per_node);
	cJSON_AddBoolToObject(j, "in_switch_reduction", b->in_switch);
	cJSON_AddBoolToObject(j, "in_network_reduction", b->in_network);
	cJSON *terms = cJSON_AddArrayToObject(j, "terms");
	for (int i = 0; i < b->nterms; i++) {
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "resource", b->terms[i].resource);
		cJSON_AddStringToObject(t, "rule", b->terms[i].rule);
		cJSON_AddNumberToObject(t, "bytes", b->terms[i].bytes);
		cJSON_AddNumberToObject(t, "bandwidth_bytes_per_s", b->terms[i].bandwidth);
		cJSON_AddNumberToObject(t, "time_s", b->terms[i].time_s);
		cJSON_AddItemToArray(terms, t);
	}
	if (b->limit >= 0)
		cJSON_AddStringToObject(j, "limit", b->terms[b->limit].resource);
	else
		cJSON_AddNullToObject(j, "limit");
	cJSON_AddNumberToObject(j, "latency_s", b->latency_s);
	cJSON_AddNumberToObject(j, "time_s", b->time_s);
	if (b->time_s > 0) {
		cJSON_AddNumberToObject(j, "algorithm_bandwidth_bytes_per_s", b->bytes / b->time_s);
		cJSON_AddNumberToObject(j, "bus_bandwidth_bytes_per_s",
					b->bytes / b->time_s * bus_factor(b->op, b->ranks));
	}
	return j;
}

int solar_cmd_collective(const solar_opts *o)
{
	if (o->nfiles != 2)
		return usage(o->nfiles < 2 ? "collective needs OP and SIZE" : "collective takes "
					     "OP and SIZE only");
	int op = solar_coll_op_parse(o->files[0]);
	if (op < 0) {
		char msg[300];
		snprintf(msg, sizeof msg, "collective: unknown OP '%.100s'", o->files[0]);
		return usage(msg);
	}
	double bytes;
	const char *unit = "";
	if (solar_quantity_parse(o->files[1], &bytes, &unit) || (*unit && strcmp(unit, "B"))) {
		char msg[300];
		snprintf(msg, sizeof msg, "collective: SIZE '%.100s' is not a size in bytes (1GB, "
			 "256MiB, 4096)", o->files[1]);
		return usage(msg);
	}
	if (!o->device)
		return usage("collective needs --device SYSTEM (solar device list: the systems)");
	solar_diag *diag = solar_cli_diag();
	solar_system *s = solar_system_load(o->device, diag);
	if (!s) { /* errors in a descriptor: 1; no such system: 2 */
		char *file = solar_device_resolve(o->device);
		bool exists = access(file, R_OK) == 0;
		free(file);
		return exists ? SOLAR_EXIT_ERRORS : SOLAR_EXIT_USAGE;
	}
	int rc = SOLAR_EXIT_OK;
	for (int i = 0; i < o->nsets; i++)
		if (apply_set(s, o->sets[i], diag)) {
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
	solar_coll_bound b;
	char err[300];
	if (solar_collective_bound(s, (solar_coll_op)op, bytes, o->ranks, &b, err, sizeof err)) {
		solar_diag_tool_error(diag, "collective: %s", err);
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	FILE *out = solar_out_open(o);
	if (!out) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	if (o->format == SOLAR_FMT_JSON) {
		cJSON *j = solar_json_schema(bound_json(s, o->device, &b), "collective");
		if (o->target_s > 0)
			cJSON_AddItemToObject(j, "target", target_json(s, &b, o->target_s));
		solar_json_print(out, j);
	} else {
		print_table(out, s, o->device, &b);
		if (o->target_s > 0)
			print_target(out, s, &b, o->target_s);
	}
	solar_out_close(o, out);
done:
	solar_system_free(s);
	return rc;
}
