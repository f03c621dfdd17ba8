/* system.c - system descriptors: JSON text -> validated solar_system (docs/devices.md,
 * "Systems").
 *
 * As device.c does, a file is walked twice with the same walker: the first pass only checks
 * (every error at its JSON path), the second applies the file's values on top of what its
 * base chain produced.  The GPU is a device descriptor, loaded by device.c once the chain is
 * merged; the checks that need the merged result (required keys, a GPU count that divides)
 * run on the file that was asked for.
 */
#define _XOPEN_SOURCE 700

#include "system.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../diag/alloc.h"
#include "../diag/diag.h"
#include "descriptor.h"
#include "json.h"

#define MAX_BASE_DEPTH 16
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const top_keys[] = {"schema", "system",  "base",	 "gpu",
				       "gpus_per_node", "nodes", "nvlink",	 "network",
				       "latency_s",	"measured", "notes"};
static const char *const nvlink_keys[] = {"bandwidth_bytes_per_s", "in_switch_reduction"};
static const char *const network_keys[] = {"bandwidth_bytes_per_s", "in_network_reduction"};
static const char *const measured_keys[] = {"all_reduce_bus_bytes_per_s"};
static const char *const switch_keys[] = {"value", "status", "source"};

static void fail(solar_diag *fd, const char *path, const char *msg)
{
	solar_diag_path_error(fd, path, "%s", msg);
}

/* {"value": true|false, "status", "source"}: a switch's ability, with its provenance. */
static void walk_switch(solar_diag *fd, const cJSON *item, const char *path, solar_figure *out)
{
	char p[256];
	if (!cJSON_IsObject(item)) {
		fail(fd, path, "expected an object {\"value\": true or false, \"status\", \"source\"}");
		return;
	}
	solar_descriptor_check_keys(fd, item, path, "key", switch_keys, COUNT(switch_keys));
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, "value");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(item, "status");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(item, "source");
	snprintf(p, sizeof p, "%s.value", path);
	if (!cJSON_IsBool(v))
		fail(fd, p, v ? "expected true or false" : "missing (required)");
	snprintf(p, sizeof p, "%s.status", path);
	int status = cJSON_IsString(st) ? solar_status_parse(st->valuestring) : -1;
	if (status < 0)
		fail(fd, p, st ? "expected datasheet, derived, measured or hypothetical"
			       : "missing (required)");
	snprintf(p, sizeof p, "%s.source", path);
	if (!cJSON_IsString(src) || !src->valuestring[0])
		fail(fd, p, src ? "expected a non-empty string" : "missing (required)");
	else if (out && cJSON_IsBool(v) && status >= 0) {
		solar_figure_clear(out);
		*out = (solar_figure){true, cJSON_IsTrue(v) ? 1 : 0, (solar_status)status,
				      solar_xstrdup(src->valuestring)};
	}
}

static void walk_count(solar_diag *fd, const cJSON *item, const char *path, int *out)
{
	if (!cJSON_IsNumber(item) || item->valuedouble < 1 || item->valuedouble > 1e6 ||
	    item->valuedouble != floor(item->valuedouble)) {
		fail(fd, path, "expected a whole number from 1 to 1000000");
		return;
	}
	if (out)
		*out = (int)item->valuedouble;
}

static void walk_string(solar_diag *fd, const cJSON *item, const char *path, char **out)
{
	if (!cJSON_IsString(item) || !item->valuestring[0]) {
		fail(fd, path, "expected a non-empty string");
		return;
	}
	if (out) {
		free(*out);
		*out = solar_xstrdup(item->valuestring);
	}
}

static void notes_clear(solar_system *s)
{
	for (int i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	s->notes = NULL;
	s->nnotes = 0;
}

/* One pass over the top level: checks when s is NULL, applies when not. */
static void walk_top(solar_diag *fd, const cJSON *root, solar_system *s)
{
	solar_descriptor_check_keys(fd, root, "", "key", top_keys, COUNT(top_keys));
	for (const cJSON *c = root->child; c; c = c->next) {
		const char *k = c->string;
		if (!strcmp(k, "schema")) {
			if (!cJSON_IsNumber(c) || c->valuedouble != SOLAR_DEVICE_SCHEMA)
				fail(fd, "schema", "expected 1 (the schema this solar reads)");
		} else if (!strcmp(k, "system")) {
			walk_string(fd, c, "system", s ? &s->name : NULL);
		} else if (!strcmp(k, "base")) {
			walk_string(fd, c, "base", NULL);
		} else if (!strcmp(k, "gpu")) {
			walk_string(fd, c, "gpu", s ? &s->gpu_ref : NULL);
		} else if (!strcmp(k, "gpus_per_node")) {
			walk_count(fd, c, k, s ? &s->gpus_per_node : NULL);
		} else if (!strcmp(k, "nodes")) {
			walk_count(fd, c, k, s ? &s->nodes : NULL);
		} else if (!strcmp(k, "latency_s")) {
			solar_figure_walk(fd, c, k, s ? &s->latency_s : NULL);
		} else if (!strcmp(k, "nvlink") || !strcmp(k, "network") || !strcmp(k, "measured")) {
			if (!cJSON_IsObject(c)) {
				fail(fd, k, "expected an object");
				continue;
			}
			bool nv = !strcmp(k, "nvlink"), net = !strcmp(k, "network");
			solar_descriptor_check_keys(fd, c, k, "key",
						    nv ? nvlink_keys : net ? network_keys : measured_keys,
						    nv ? COUNT(nvlink_keys) : net ? COUNT(network_keys)
										: COUNT(measured_keys));
			for (const cJSON *f = c->child; f; f = f->next) {
				char p[256];
				snprintf(p, sizeof p, "%s.%s", k, f->string);
				if (!strcmp(f->string, "bandwidth_bytes_per_s"))
					solar_figure_walk(fd, f, p,
							  !s ? NULL : nv ? &s->nvlink_bw : &s->network_bw);
				else if (!strcmp(f->string, "in_switch_reduction"))
					walk_switch(fd, f, p, s ? &s->in_switch_reduction : NULL);
				else if (!strcmp(f->string, "in_network_reduction"))
					walk_switch(fd, f, p, s ? &s->in_network_reduction : NULL);
				else if (!strcmp(f->string, "all_reduce_bus_bytes_per_s"))
					solar_figure_walk(fd, f, p,
							  s ? &s->measured_all_reduce_busbw : NULL);
			}
		} else if (!strcmp(k, "notes")) {
			if (!cJSON_IsArray(c)) {
				fail(fd, "notes", "expected an array of strings");
				continue;
			}
			int i = 0;
			for (const cJSON *n = c->child; n; n = n->next, i++)
				if (!cJSON_IsString(n)) {
					char p[64];
					snprintf(p, sizeof p, "notes[%d]", i);
					fail(fd, p, "expected a string");
				}
			if (s) {
				notes_clear(s);
				s->notes = solar_xcalloc((size_t)i + 1, sizeof *s->notes);
				for (const cJSON *n = c->child; n; n = n->next)
					s->notes[s->nnotes++] = solar_xstrdup(n->valuestring);
			}
		}
	}
}

static bool is_file(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The parse of a descriptor file, or NULL with the error reported in its context *fd, which
 * borrows *text (free both with close_file). */
static cJSON *parse_file(const char *path, solar_diag *diag, solar_diag **fd, char **text)
{
	size_t len = 0;
	char why[128] = "no file";
	*text = solar_descriptor_read(path, &len, why, sizeof why);
	*fd = solar_diag_new_file(diag, path, *text, (int32_t)len);
	if (!*text) {
		solar_diag_path_error(*fd, NULL, "cannot read: %s", why);
		return NULL;
	}
	cJSON *root = solar_json_parse(*text, len, *fd);
	if (root && !cJSON_IsObject(root)) {
		solar_diag_path_error(*fd, NULL, "expected a JSON object at the top level");
		cJSON_Delete(root);
		root = NULL;
	}
	return root;
}

static void close_file(solar_diag *fd, char *text)
{
	solar_diag_finish(fd);
	solar_diag_free(fd);
	free(text);
}

/* 2: a system's descriptor, 1: a device's (a JSON object without a system's key), 0: a file
 * that cannot be read or parsed as an object. */
static int kind_of(const char *path)
{
	size_t len = 0;
	char why[16];
	char *text = solar_descriptor_read(path, &len, why, sizeof why);
	cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
	/* "system" names one; a file that only overrides a base has a key no device has */
	static const char *const own[] = {"system", "gpu", "gpus_per_node", "nodes", "nvlink",
					  "network", "latency_s", "measured"};
	bool is = false;
	for (int i = 0; cJSON_IsObject(root) && i < COUNT(own); i++)
		is = is || cJSON_GetObjectItemCaseSensitive(root, own[i]);
	int kind = is ? 2 : cJSON_IsObject(root) ? 1 : 0;
	cJSON_Delete(root);
	free(text);
	return kind;
}

bool solar_system_is(const char *path) { return kind_of(path) == 2; }

static char *dir_join(const char *file, const char *ref)
{
	if (ref[0] == '/' || !strchr(file, '/'))
		return solar_xstrdup(ref);
	size_t dl = (size_t)(strrchr(file, '/') - file);
	char *s = solar_xmalloc(dl + strlen(ref) + 2);
	memcpy(s, file, dl);
	s[dl] = '/';
	strcpy(s + dl + 1, ref);
	return s;
}

/* Loads file and its base chain into a new system (no GPU yet), or NULL after errors. */
static solar_system *load_chain(const char *file, solar_diag *diag, int depth)
{
	solar_diag *fd;
	char *text;
	cJSON *root = parse_file(file, diag, &fd, &text);
	solar_system *s = NULL;
	if (!root)
		goto out;
	walk_top(fd, root, NULL);
	if (solar_diag_errors(fd))
		goto out;
	const cJSON *base = cJSON_GetObjectItemCaseSensitive(root, "base");
	if (base) {
		char *rel = dir_join(file, base->valuestring);
		char *path = is_file(rel) ? rel : solar_device_resolve(base->valuestring);
		if (path != rel)
			free(rel);
		if (depth >= MAX_BASE_DEPTH)
			solar_diag_path_error(fd, "base", "more than %d descriptors in the base chain "
					      "(a cycle?)", MAX_BASE_DEPTH);
		else if (!is_file(path))
			solar_diag_path_error(fd, "base", "no system '%s'", base->valuestring);
		else if (!solar_system_is(path))
			solar_diag_path_error(fd, "base", "'%s' is not a system descriptor (no "
					      "\"system\" key)", path);
		else if (!(s = load_chain(path, diag, depth + 1)))
			solar_diag_path_error(fd, "base", "'%s' has errors (see above)", path);
		free(path);
		if (!s)
			goto out;
	} else {
		s = solar_xcalloc(1, sizeof *s);
	}
	walk_top(fd, root, s);
out:
	close_file(fd, text);
	cJSON_Delete(root);
	return s;
}

void solar_system_free(solar_system *s)
{
	if (!s)
		return;
	free(s->file);
	free(s->name);
	free(s->gpu_ref);
	solar_device_free(s->gpu);
	solar_figure *f[] = {&s->nvlink_bw, &s->in_switch_reduction, &s->network_bw,
			     &s->in_network_reduction, &s->latency_s, &s->measured_all_reduce_busbw};
	for (int i = 0; i < COUNT(f); i++)
		solar_figure_clear(f[i]);
	notes_clear(s);
	free(s);
}

solar_system *solar_system_clone(const solar_system *s)
{
	solar_system *c = solar_xcalloc(1, sizeof *c);
	*c = *s;
	c->file = solar_xstrdup(s->file);
	c->name = solar_xstrdup(s->name);
	c->gpu_ref = solar_xstrdup(s->gpu_ref);
	c->gpu = solar_device_clone(s->gpu);
	solar_figure *to[] = {&c->nvlink_bw, &c->in_switch_reduction, &c->network_bw,
			      &c->in_network_reduction, &c->latency_s, &c->measured_all_reduce_busbw};
	const solar_figure *from[] = {&s->nvlink_bw, &s->in_switch_reduction, &s->network_bw,
				      &s->in_network_reduction, &s->latency_s,
				      &s->measured_all_reduce_busbw};
	for (int i = 0; i < COUNT(to); i++)
		solar_figure_copy(to[i], from[i]);
	c->notes = solar_xcalloc((size_t)s->nnotes + 1, sizeof *c->notes);
	for (int i = 0; i < s->nnotes; i++)
		c->notes[i] = solar_xstrdup(s->notes[i]);
	return c;
}

int solar_system_gpus(const solar_system *s) { return s->gpus_per_node * s->nodes; }

/* The checks of the merged system, against the file asked for; then its GPU. */
static bool finish(solar_system *s, const char *file, solar_diag *diag)
{
	solar_diag *fd = solar_diag_new_file(diag, file, NULL, 0);
	if (!s->nodes)
		s->nodes = 1;
	if (!s->name)
		fail(fd, "system", "missing (required)");
	if (!s->gpu_ref)
		fail(fd, "gpu", "missing (required: the device descriptor of each GPU)");
	if (!s->gpus_per_node)
		fail(fd, "gpus_per_node", "missing (required)");
	if (!s->nvlink_bw.present)
		fail(fd, "nvlink.bandwidth_bytes_per_s", "missing (required)");
	if (!s->in_switch_reduction.present)
		fail(fd, "nvlink.in_switch_reduction",
		     "missing (required: a bound that does not know is either above NVLS or "
		     "below the ring)");
	if (s->nodes > 1 && !s->network_bw.present)
		fail(fd, "network.bandwidth_bytes_per_s",
		     "missing (required with more than one node: the network joins them)");
	if (s->network_bw.present && !s->in_network_reduction.present)
		fail(fd, "network.in_network_reduction", "missing (required with a network)");
	if ((double)s->gpus_per_node * s->nodes > 1e7)
		fail(fd, "nodes", "more than 10 million GPUs");
	bool ok = !solar_diag_errors(fd);
	if (ok) {
		char *ref = dir_join(file, s->gpu_ref);
		if (!is_file(ref)) {
			free(ref);
			ref = solar_xstrdup(s->gpu_ref);
		}
		s->gpu = solar_device_load(ref, fd);
		free(ref);
		if (!s->gpu) {
			fail(fd, "gpu", "the GPU's descriptor does not load (see above)");
			ok = false;
		}
	}
	close_file(fd, NULL);
	return ok;
}

solar_system *solar_system_load(const char *ref, solar_diag *diag)
{
	char *file = solar_device_resolve(ref ? ref : "");
	solar_system *s = NULL;
	if (!is_file(file) && !strchr(ref ? ref : "", '/')) {
		solar_descriptor_not_found(ref ? ref : "", diag);
	} else if (is_file(file) && kind_of(file) == 1) {
		solar_diag *fd = solar_diag_new_file(diag, file, NULL, 0);
		fail(fd, NULL, "a device descriptor, not a system's (a system names its GPUs, "
			       "their count and their links: docs/devices.md, \"Systems\")");
		close_file(fd, NULL);
	} else if ((s = load_chain(file, diag, 0)) && finish(s, file, diag)) {
		s->file = file;
		return s;
	}
	solar_system_free(s);
	free(file);
	return NULL;
}

int solar_system_set(solar_system *s, const char *path, double value, solar_diag *diag)
{
	if (!strncmp(path, "gpu.", 4))
		return solar_device_set(s->gpu, path + 4, value, diag);
	int *count = !strcmp(path, "nodes")	    ? &s->nodes
		     : !strcmp(path, "gpus_per_node") ? &s->gpus_per_node
						      : NULL;
	if (count) {
		if (value < 1 || value > 1e6 || value != floor(value)) {
			solar_diag_tool_error(diag, "system override '%s': expected a whole "
					      "number from 1 to 1000000", path);
			return -1;
		}
		if (!strcmp(path, "nodes") && value > 1 && !s->network_bw.present) {
			solar_diag_tool_error(diag, "system override 'nodes': %s has no network "
					      "to join nodes (set network.bandwidth_bytes_per_s)",
					      s->name);
			return -1;
		}
		*count = (int)value;
		return 0;
	}
	solar_figure *f = !strcmp(path, "nvlink.bandwidth_bytes_per_s")	 ? &s->nvlink_bw
			  : !strcmp(path, "network.bandwidth_bytes_per_s") ? &s->network_bw
			  : !strcmp(path, "latency_s")			   ? &s->latency_s
									   : NULL;
	if (!f) {
		solar_diag_tool_error(diag, "system override '%s': unknown path (expected "
				      "nvlink.bandwidth_bytes_per_s, network.bandwidth_bytes_per_s, "
				      "latency_s, nodes, gpus_per_node or gpu.PATH)", path);
		return -1;
	}
	if (!(value > 0) || !isfinite(value)) {
		solar_diag_tool_error(diag, "system override '%s': expected a positive value", path);
		return -1;
	}
	char src[200];
	if (f->present)
		snprintf(src, sizeof src, "set on the command line (was %g)", f->value);
	else
		snprintf(src, sizeof src, "set on the command line");
	bool net = f == &s->network_bw && !f->present;
	solar_figure_clear(f);
	*f = (solar_figure){true, value, SOLAR_SRC_HYPOTHETICAL, solar_xstrdup(src)};
	if (net && !s->in_network_reduction.present) /* a new network: no reduction in it */
		s->in_network_reduction = (solar_figure){true, 0, SOLAR_SRC_HYPOTHETICAL,
							 solar_xstrdup("set on the command line "
								       "(a new network: none)")};
	return 0;
}

static cJSON *figure_json(const solar_figure *f, bool boolean)
{
	cJSON *o = cJSON_CreateObject();
	if (boolean)
		cJSON_AddBoolToObject(o, "value", f->value != 0);
	else
		cJSON_AddNumberToObject(o, "value", f->value);
	cJSON_AddStringToObject(o, "status", solar_status_name(f->status));
	cJSON_AddStringToObject(o, "source", f->source ? f->source : "");
	return o;
}

int solar_system_write_json(const solar_system *s, FILE *out)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "schema", SOLAR_DEVICE_SCHEMA);
	cJSON_AddStringToObject(j, "system", s->name);
	cJSON_AddStringToObject(j, "gpu", s->gpu && s->gpu->file ? s->gpu->file : s->gpu_ref);
	cJSON_AddNumberToObject(j, "gpus_per_node", s->gpus_per_node);
	cJSON_AddNumberToObject(j, "nodes", s->nodes);
	cJSON *nv = cJSON_AddObjectToObject(j, "nvlink");
	cJSON_AddItemToObject(nv, "bandwidth_bytes_per_s", figure_json(&s->nvlink_bw, false));
	cJSON_AddItemToObject(nv, "in_switch_reduction", figure_json(&s->in_switch_reduction, true));
	if (s->network_bw.present) {
		cJSON *net = cJSON_AddObjectToObject(j, "network");
		cJSON_AddItemToObject(net, "bandwidth_bytes_per_s", figure_json(&s->network_bw, false));
		cJSON_AddItemToObject(net, "in_network_reduction",
				      figure_json(&s->in_network_reduction, true));
	}
	if (s->latency_s.present)
		cJSON_AddItemToObject(j, "latency_s", figure_json(&s->latency_s, false));
	if (s->measured_all_reduce_busbw.present) {
		cJSON *m = cJSON_AddObjectToObject(j, "measured");
		cJSON_AddItemToObject(m, "all_reduce_bus_bytes_per_s",
				      figure_json(&s->measured_all_reduce_busbw, false));
	}
	if (s->nnotes) {
		cJSON *n = cJSON_AddArrayToObject(j, "notes");
		for (int i = 0; i < s->nnotes; i++)
			cJSON_AddItemToArray(n, cJSON_CreateString(s->notes[i]));
	}
	char *text = cJSON_Print(j);
	cJSON_Delete(j);
	int rc = text && fprintf(out, "%s\n", text) >= 0 ? 0 : -1;
	free(text);
	return rc;
}
