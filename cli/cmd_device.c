/* cmd_device.c - `solar device list`, `solar device show NAME|FILE`, `solar device probe`.
 *
 * list: every descriptor the search path finds by name (devices/device.h, "Devices by name"),
 * with the figures a user picks a device by: DRAM bandwidth, the fastest dense tensor peak,
 * the L2 and the SM count; a table or JSON.  show: one descriptor with its base chain merged.
 * probe: the local GPU's descriptor (devices/probe.c); --ceilings measured adds what a DRAM
 * copy and GEMMs reached there, as measured ceilings in place of the peaks they measure.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report/format.h"
#include "devices/device.h"
#include "devices/system.h"
#include "output.h"

/* The fastest dense tensor peak at the SM clock and its precision ("" when none). */
static double tensor_peak(const solar_device *d, const char **prec)
{
	double best = 0;
	*prec = "";
	for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
		double v = solar_device_peak(d, SOLAR_UNIT_TENSOR, (solar_prec)p);
		if (v > best) {
			best = v;
			*prec = solar_prec_name((solar_prec)p);
		}
	}
	return best;
}

static double level_figure(const solar_device *d, const char *level, bool bandwidth)
{
	const solar_mem_level *l = solar_device_level(d, level);
	const solar_figure *f = !l ? NULL : bandwidth ? &l->bandwidth_bytes_per_s : &l->capacity_bytes;
	return f && f->present ? f->value : 0;
}

/* The systems among the descriptors found (devices/system.h): a second table, or entries
 * of kind "system" in arr.  Returns the number that did not load. */
static int list_systems(FILE *out, cJSON *arr, char **names, char **files, int n)
{
	int bad = 0;
	if (!arr)
		fprintf(out, "\n%-22s %-36s %-11s %-14s %-11s %-11s %-9s %s\n", "system", "name",
			"GPUs", "GPU", "NVLink", "network", "reduces", "file");
	for (int i = 0; i < n; i++) {
		if (!solar_system_is(files[i]))
			continue;
		solar_system *s = solar_system_load(files[i], solar_cli_diag());
		if (!s) {
			bad++;
			continue;
		}
		bool sw = s->in_switch_reduction.value != 0, net = s->network_bw.present;
		bool nr = net && s->in_network_reduction.value != 0;
		char *gpu = solar_device_name_of(s->gpu->file);
		if (arr) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "name", names[i]);
			cJSON_AddStringToObject(e, "kind", "system");
			cJSON_AddStringToObject(e, "system", s->name);
			cJSON_AddStringToObject(e, "file", files[i]);
			cJSON_AddStringToObject(e, "gpu", gpu);
			cJSON_AddNumberToObject(e, "gpus", solar_system_gpus(s));
			cJSON_AddNumberToObject(e, "gpus_per_node", s->gpus_per_node);
			cJSON_AddNumberToObject(e, "nodes", s->nodes);
			cJSON_AddNumberToObject(e, "nvlink_bandwidth_bytes_per_s", s->nvlink_bw.value);
			if (net)
				cJSON_AddNumberToObject(e, "network_bandwidth_bytes_per_s",
							s->network_bw.value);
			else
				cJSON_AddNullToObject(e, "network_bandwidth_bytes_per_s");
			cJSON_AddBoolToObject(e, "in_switch_reduction", sw);
			cJSON_AddBoolToObject(e, "in_network_reduction", nr);
			cJSON_AddItemToArray(arr, e);
		} else {
			char g[32], b1[32], b2[32] = "-";
			snprintf(g, sizeof g, "%d x %d", s->nodes, s->gpus_per_node);
			solar_fmt_quantity(b1, sizeof b1, s->nvlink_bw.value, "B/s");
			if (net)
				solar_fmt_quantity(b2, sizeof b2, s->network_bw.value, "B/s");
			fprintf(out, "%-22s %-36s %-11s %-14s %-11s %-11s %-10s %s\n", names[i],
				s->name, g, gpu, b1, b2,
				sw && nr ? "switch+net" : sw ? "switch" : nr ? "network" : "no", files[i]);
		}
		free(gpu);
		solar_system_free(s);
	}
	return bad;
}

static int device_list(const solar_opts *o)
{
	char **names, **files;
	int n = solar_device_names(&names, &files), rc = SOLAR_EXIT_OK;
	FILE *out = solar_out_open(o);
	if (!out) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	bool json = o->format == SOLAR_FMT_JSON;
	cJSON *arr = json ? cJSON_CreateArray() : NULL;
	if (!n)
		solar_diag_tool_error(solar_cli_diag(),
				      "device list: no descriptors found (set "
				      "SOLAR_DEVICE_PATH to a folder of NAME.json "
				      "files)");
	else if (!json)
		fprintf(out, "%-22s %-36s %-11s %-22s %-9s %-4s %s\n", "name", "device", "DRAM",
			"tensor peak (dense)", "L2", "SMs", "file");
	int nsys = 0;
	for (int i = 0; i < n; i++) {
		if (solar_system_is(files[i])) {
			nsys++;
			continue;
		}
		solar_device *d = solar_device_load(files[i], solar_cli_diag());
		if (!d) {
			rc = SOLAR_EXIT_ERRORS;
			continue;
		}
		const char *prec;
		double tensor = tensor_peak(d, &prec), bw = level_figure(d, "dram", true);
		double l2 = level_figure(d, "l2", false);
		if (json) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "name", names[i]);
			cJSON_AddStringToObject(e, "kind", "device");
			cJSON_AddStringToObject(e, "device", d->name);
			cJSON_AddStringToObject(e, "file", files[i]);
			cJSON_AddNumberToObject(e, "dram_bandwidth_bytes_per_s", bw);
			if (tensor > 0) {
				cJSON_AddNumberToObject(e, "tensor_peak_ops_per_s", tensor);
				cJSON_AddStringToObject(e, "tensor_peak_precision", prec);
			} else {
				cJSON_AddNullToObject(e, "tensor_peak_ops_per_s");
				cJSON_AddNullToObject(e, "tensor_peak_precision");
			}
			if (l2 > 0)
				cJSON_AddNumberToObject(e, "l2_capacity_bytes", l2);
			else
				cJSON_AddNullToObject(e, "l2_capacity_bytes");
			cJSON_AddNumberToObject(e, "sm_count", d->sm_count);
			cJSON_AddItemToArray(arr, e);
		} else {
			char b1[32], b2[48] = "-", b3[32] = "-", sms[16] = "-";
			solar_fmt_quantity(b1, sizeof b1, bw, "B/s");
			if (tensor > 0) {
				char q[32];
				snprintf(b2, sizeof b2, "%s %s",
					 solar_fmt_quantity(q, sizeof q, tensor,
								strchr(prec, 'i') ? "OP/s"
										  : "FLOP/s"),
					 prec);
			}
			if (l2 > 0)
				solar_fmt_quantity(b3, sizeof b3, l2, "B");
			if (d->sm_count)
				snprintf(sms, sizeof sms, "%d", d->sm_count);
			fprintf(out, "%-22s %-36s %-11s %-22s %-9s %-4s %s\n", names[i], d->name, b1,
				b2, b3, sms, files[i]);
		}
		solar_device_free(d);
	}
	if (nsys && list_systems(out, arr, names, files, n))
		rc = SOLAR_EXIT_ERRORS;
	if (json)
		solar_json_print(out, arr);
	solar_out_close(o, out);
done:
	solar_device_search_path_free(names, n);
	solar_device_search_path_free(files, n);
	return rc;
}

static int usage(const char *msg)
{
	solar_diag *d = solar_cli_diag();
	solar_diag_tool_error(d, "%s", msg);
	solar_diag_hint(d, "usage: solar device list [--format table|json] | solar device show "
			   "NAME|FILE | solar device probe [--ceilings bound|measured]");
	solar_diag_hint(d, "Try 'solar device --help'.");
	return SOLAR_EXIT_USAGE;
}

int solar_cmd_device(const solar_opts *o)
{
	const char *sub = o->nfiles ? o->files[0] : "";
	bool list = !strcmp(sub, "list"), show = !strcmp(sub, "show"), probe = !strcmp(sub, "probe");
	if (!list && !show && !probe)
		return usage(o->nfiles ? "device: unknown subcommand" : "device needs a subcommand");
	if (o->nfiles != (show ? 2 : 1))
		return usage(show ? "device show needs one NAME or FILE"
				  : "device list and device probe take no FILE");
	if (!list && o->format != SOLAR_FMT_TABLE)
		return usage("--format and --json apply to device list (show and probe write JSON)");
	if (!probe && o->ceilings_measured)
		return usage("--ceilings applies to device probe");
	if (list)
		return device_list(o);
	if (probe) {
		FILE *out = solar_out_open(o);
		if (!out)
			return SOLAR_EXIT_USAGE;
		if (solar_device_probe_ceilings(out, solar_cli_diag(), o->ceilings_measured))
			return SOLAR_EXIT_USAGE;
		solar_out_close(o, out);
		return SOLAR_EXIT_OK;
	}
	char *sysfile = solar_device_resolve(o->files[1]);
	bool system = solar_system_is(sysfile);
	free(sysfile);
	if (system) {
		solar_system *s = solar_system_load(o->files[1], solar_cli_diag());
		if (!s)
			return SOLAR_EXIT_ERRORS;
		FILE *out = solar_out_open(o);
		int rc = !out || solar_system_write_json(s, out) ? SOLAR_EXIT_USAGE : SOLAR_EXIT_OK;
		solar_out_close(o, out);
		solar_system_free(s);
		return rc;
	}
	solar_device *d = solar_device_load(o->files[1], solar_cli_diag());
	if (!d) { /* errors in a descriptor: 1; no such device: 2 */
		char *file = solar_device_resolve(o->files[1]);
		bool exists = access(file, R_OK) == 0;
		free(file);
		return exists ? SOLAR_EXIT_ERRORS : SOLAR_EXIT_USAGE;
	}
	FILE *out = solar_out_open(o);
	int rc = !out || solar_device_write_json(d, out) ? SOLAR_EXIT_USAGE : SOLAR_EXIT_OK;
	solar_out_close(o, out);
	solar_device_free(d);
	return rc;
}
