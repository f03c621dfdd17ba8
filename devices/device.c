/* device.c - device descriptors: JSON text -> validated solar_device, and back.
 *
 * Input: a descriptor file (schema in docs/devices.md), possibly naming a "base" descriptor
 * that it inherits from.  Output: one solar_device with every figure resolved, or NULL and a
 * list of errors, each naming the file and the JSON path of the offending value.
 *
 * The one idea: a descriptor is loaded in two passes over its cJSON tree with the same walker.
 * The first pass only checks (and reports every error it finds, up to 20 a file); the second
 * runs only on a clean file and applies the file's values on top of whatever its base chain
 * produced.  Inheritance is therefore field by field: a figure ({value, status, source}) is
 * replaced whole, so a value never keeps the provenance of the number it replaced; a JSON
 * null removes an inherited figure.  Checks that need the merged result (required fields)
 * run once, on the file that was asked for.
 */
#define _XOPEN_SOURCE 700 /* realpath */

#include "device.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../diag/alloc.h"
#include "../diag/diag.h"
#include "../diag/file.h"
#include "../diag/hint.h"
#include "descriptor.h"
#include "system.h"
#include "json.h"

#define MAX_BASE_DEPTH 16
#define MAX_FILE_BYTES (16L << 20)
#define PATH_BYTES 256

static const char *const unit_names[SOLAR_UNIT_COUNT] = {"tensor", "simt", "sfu"};
static const char *const prec_names[SOLAR_PREC_COUNT] = {"f64", "f32", "tf32", "bf16", "f16",
							 "f8",	"i64", "i32",  "i8"};
static const char *const status_names[] = {"datasheet", "derived", "measured", "hypothetical"};
#define NSTATUS 4
/* The memory levels, from DRAM inward; a descriptor lists them in this order. */
static const char *const level_names[] = {"dram", "l2", "smem", "regs"};
#define NLEVELS 4

static const char *const top_keys[] = {"schema",	"name",	       "vendor",   "arch",
				       "base",		"sm_count",    "clock_hz", "peak",
				       "peak_clock_hz", "sparse_peak", "memory",   "notes"};
static const char *const figure_keys[] = {"value", "status", "source"};
static const char *const level_keys[] = {"level", "capacity_bytes", "bandwidth_bytes_per_s"};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- names ---------------------------------------------------------------------------- */

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *solar_unit_name(solar_unit u)
{
	return (unsigned)u < SOLAR_UNIT_COUNT ? unit_names[u] : "?";
}

const char *solar_prec_name(solar_prec p)
{
	return (unsigned)p < SOLAR_PREC_COUNT ? prec_names[p] : "?";
}

const char *solar_status_name(solar_status s)
{
	return (unsigned)s < NSTATUS ? status_names[s] : "?";
}

int solar_unit_parse(const char *s) { return lookup(unit_names, SOLAR_UNIT_COUNT, s); }

int solar_prec_parse(const char *s) { return lookup(prec_names, SOLAR_PREC_COUNT, s); }

int solar_status_parse(const char *s) { return lookup(status_names, NSTATUS, s); }

static int level_rank(const char *s) { return lookup(level_names, NLEVELS, s); }

void solar_figure_clear(solar_figure *f)
{
	free(f->source);
	memset(f, 0, sizeof *f);
}

static void notes_clear(solar_device *d)
{
	for (int i = 0; i < d->nnotes; i++)
		free(d->notes[i]);
	free(d->notes);
	d->notes = NULL;
	d->nnotes = 0;
}

void solar_device_free(solar_device *d)
{
	if (!d)
		return;
	free(d->file);
	free(d->name);
	free(d->vendor);
	free(d->arch);
	solar_figure_clear(&d->clock_hz);
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			solar_figure_clear(&d->peak[u][p]);
			solar_figure_clear(&d->peak_clock_hz[u][p]);
			solar_figure_clear(&d->sparse_peak[u][p]);
		}
	for (int i = 0; i < d->nlevels; i++) {
		free(d->levels[i].name);
		solar_figure_clear(&d->levels[i].capacity_bytes);
		solar_figure_clear(&d->levels[i].bandwidth_bytes_per_s);
	}
	free(d->levels);
	notes_clear(d);
	free(d);
}

void solar_figure_copy(solar_figure *to, const solar_figure *from)
{
	*to = *from;
	to->source = solar_xstrdup(from->source);
}

solar_device *solar_device_clone(const solar_device *d)
{
	solar_device *c = solar_xcalloc(1, sizeof *c);
	*c = *d;
	c->file = solar_xstrdup(d->file);
	c->name = solar_xstrdup(d->name);
	c->vendor = solar_xstrdup(d->vendor);
	c->arch = solar_xstrdup(d->arch);
	solar_figure_copy(&c->clock_hz, &d->clock_hz);
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++) {
			solar_figure_copy(&c->peak[u][q], &d->peak[u][q]);
			solar_figure_copy(&c->peak_clock_hz[u][q], &d->peak_clock_hz[u][q]);
			solar_figure_copy(&c->sparse_peak[u][q], &d->sparse_peak[u][q]);
		}
	c->levels = solar_xcalloc((size_t)d->nlevels + 1, sizeof *c->levels);
	for (int i = 0; i < d->nlevels; i++) {
		c->levels[i].name = solar_xstrdup(d->levels[i].name);
		solar_figure_copy(&c->levels[i].capacity_bytes, &d->levels[i].capacity_bytes);
		solar_figure_copy(&c->levels[i].bandwidth_bytes_per_s,
				  &d->levels[i].bandwidth_bytes_per_s);
	}
	c->notes = solar_xcalloc((size_t)d->nnotes + 1, sizeof *c->notes);
	for (int i = 0; i < d->nnotes; i++)
		c->notes[i] = solar_xstrdup(d->notes[i]);
	return c;
}

const solar_mem_level *solar_device_level(const solar_device *d, const char *name)
{
	for (int i = 0; d && name && i < d->nlevels; i++)
		if (strcmp(d->levels[i].name, name) == 0)
			return &d->levels[i];
	return NULL;
}

/* Rule "clock domains": a peak is the unit's work per clock (figure / the clock the figure
 * assumes) times the SM clock the bounds assume. */
double solar_device_peak(const solar_device *d, solar_unit u, solar_prec p)
{
	if (!d || (unsigned)u >= SOLAR_UNIT_COUNT || (unsigned)p >= SOLAR_PREC_COUNT)
		return 0;
	const solar_figure *f = &d->peak[u][p], *c = &d->peak_clock_hz[u][p];
	if (!f->present)
		return 0;
	if (!c->present || !d->clock_hz.present)
		return f->value;
	return f->value * (d->clock_hz.value / c->value); /* exact when the clocks agree */
}

double solar_device_fastest_peak(const solar_device *d)
{
	double best = 0;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			best = fmax(best, solar_device_peak(d, u, q));
	return best;
}

const char *solar_device_unclocked(const solar_device *d, char *buf, size_t n)
{
	if (!d->clock_hz.present) {
		snprintf(buf, n, "clock_hz");
		return buf;
	}
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++)
			if (d->peak[u][p].present && !d->peak_clock_hz[u][p].present) {
				snprintf(buf, n, "peak_clock_hz.%s.%s", unit_names[u],
					 prec_names[p]);
				return buf;
			}
	return NULL;
}

/* The level named `name` (a known level), inserted empty at its place if missing. */
static solar_mem_level *level_get(solar_device *d, const char *name)
{
	int rank = level_rank(name), at = d->nlevels;
	for (int i = 0; i < d->nlevels; i++) {
		if (strcmp(d->levels[i].name, name) == 0)
			return &d->levels[i];
		if (at == d->nlevels && level_rank(d->levels[i].name) > rank)
			at = i;
	}
	solar_mem_level *v = solar_xcalloc(1, sizeof *v * (size_t)(d->nlevels + 1));
	if (d->nlevels)
		memcpy(v, d->levels, sizeof *v * (size_t)d->nlevels);
	memmove(&v[at + 1], &v[at], sizeof *v * (size_t)(d->nlevels - at));
	memset(&v[at], 0, sizeof *v);
	v[at].name = solar_xstrdup(name);
	free(d->levels);
	d->levels = v;
	d->nlevels++;
	return &v[at];
}

/* Drops levels that no longer carry any figure (every one was removed with null). */
static void levels_compact(solar_device *d)
{
	int n = 0;
	for (int i = 0; i < d->nlevels; i++) {
		solar_mem_level *l = &d->levels[i];
		if (!l->capacity_bytes.present && !l->bandwidth_bytes_per_s.present) {
			free(l->name);
			continue;
		}
		d->levels[n++] = *l;
	}
	d->nlevels = n;
}

/* ---- diagnostics: one diag/ context per file, errors at JSON paths ---------------------- */

typedef struct {
	solar_diag *d;
} ectx;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
fail(ectx *e, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_vpath_error(e->d, path, fmt, ap);
	va_end(ap);
}

/* The file's context hangs off the caller's channel: it prints there and counts there too. */
static ectx ectx_open(const char *file, const char *text, size_t len, solar_diag *diag)
{
	return (ectx){solar_diag_new_file(diag, file, text, (int32_t)len)};
}

/* Says how many errors were not shown, and frees the context. */
static void ectx_close(ectx *e)
{
	solar_diag_finish(e->d);
	solar_diag_free(e->d);
}

static int nerr(const ectx *e) { return solar_diag_errors(e->d); }

/* "a, b, c or d" from a name table, into buf. */
static const char *name_list(char *buf, size_t n, const char *const *names, int count)
{
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < count && at < n; i++)
		at += (size_t)snprintf(buf + at, n - at, "%s%s", names[i],
				       i + 2 < count	? ", "
				       : i + 2 == count ? " or "
							: "");
	return buf;
}

/* "unknown X 'name' (did you mean 'y'?)" or "(expected a, b or c)". */
static void fail_unknown(ectx *e, const char *path, const char *what, const char *name,
			 const char *const *names, int count)
{
	int best = -1, bestd = strlen(name) >= 5 ? 3 : 2; /* suggest within 2 edits (1 if short) */
	for (int i = 0; i < count; i++) {
		int dd = solar_diag_edit_distance(name, names[i], false);
		if (dd < bestd) {
			bestd = dd;
			best = i;
		}
	}
	if (best >= 0) {
		fail(e, path, "unknown %s '%s' (did you mean '%s'?)", what, name, names[best]);
		return;
	}
	char buf[256];
	fail(e, path, "unknown %s '%s' (expected %s)", what, name,
	     name_list(buf, sizeof buf, names, count));
}

static const char *join(char *buf, const char *path, const char *key)
{
	if (snprintf(buf, PATH_BYTES, "%s%s%s", path, *path ? "." : "", key) >= PATH_BYTES)
		buf[PATH_BYTES - 1] = '\0'; /* a path that long is only ever printed */
	return buf;
}

/* Reports keys of `obj` that are not in `allowed` (as "unknown <what>"); keys given twice
 * were refused when the text was parsed (solar_json_parse). */
static void check_keys(ectx *e, const cJSON *obj, const char *path, const char *what,
		       const char *const *allowed, int count)
{
	char p[PATH_BYTES];
	for (const cJSON *c = obj->child; c; c = c->next) {
		join(p, path, c->string);
		if (lookup(allowed, count, c->string) < 0)
			fail_unknown(e, p, what, c->string, allowed, count);
	}
}

/* ---- the walker: pass 1 checks (d == NULL), pass 2 applies (d != NULL) ---------------- */

static bool is_positive_number(const cJSON *v)
{
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble > 0;
}

/* A figure {value, status, source}; JSON null clears it.  Writes into `out` when not NULL. */
static void walk_figure(ectx *e, const cJSON *item, const char *path, solar_figure *out)
{
	char p[PATH_BYTES];
	if (cJSON_IsNull(item)) {
		if (out)
			solar_figure_clear(out);
		return;
	}
	if (!cJSON_IsObject(item)) {
		fail(e, path, "expected an object {\"value\", \"status\", \"source\"}%s",
		     cJSON_IsNumber(item)
			 ? ", not a bare number (every figure carries its provenance)"
			 : "");
		return;
	}
	check_keys(e, item, path, "key", figure_keys, COUNT(figure_keys));
	const cJSON *value = cJSON_GetObjectItemCaseSensitive(item, "value");
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(item, "status");
	const cJSON *source = cJSON_GetObjectItemCaseSensitive(item, "source");
	int st = -1;
	join(p, path, "value");
	if (!value)
		fail(e, p, "missing (required)");
	else if (!is_positive_number(value))
		fail(e, p, "expected a positive number");
	join(p, path, "status");
	if (!status) {
		fail(e, p, "missing (required)");
	} else if (!cJSON_IsString(status)) {
		fail(e, p, "expected a string");
	} else if ((st = solar_status_parse(status->valuestring)) < 0) {
		fail_unknown(e, p, "status", status->valuestring, status_names, NSTATUS);
	}
	join(p, path, "source");
	if (!source)
		fail(e, p, "missing (required)");
	else if (!cJSON_IsString(source) || !source->valuestring[0])
		fail(e, p, "expected a non-empty string");
	if (out && value && st >= 0 && source) {
		solar_figure_clear(out);
		out->present = true;
		out->value = value->valuedouble;
		out->status = (solar_status)st;
		out->source = solar_xstrdup(source->valuestring);
	}
}

static void walk_string(ectx *e, const cJSON *item, const char *path, char **out)
{
	if (!cJSON_IsString(item) || !item->valuestring[0]) {
		fail(e, path, "expected a non-empty string");
		return;
	}
	if (out) {
		free(*out);
		*out = solar_xstrdup(item->valuestring);
	}
}

/* "peak" or "sparse_peak": {unit: {prec: figure}}. */
static void walk_peaks(ectx *e, const cJSON *item, const char *path,
		       solar_figure (*out)[SOLAR_PREC_COUNT])
{
	char p[PATH_BYTES], q[PATH_BYTES];
	if (!cJSON_IsObject(item)) {
		fail(e, path, "expected an object {unit: {precision: figure}}");
		return;
	}
	check_keys(e, item, path, "unit", unit_names, SOLAR_UNIT_COUNT);
	for (const cJSON *u = item->child; u; u = u->next) {
		int unit = solar_unit_parse(u->string);
		if (unit < 0)
			continue; /* reported by check_keys */
		join(p, path, u->string);
		if (!cJSON_IsObject(u)) {
			fail(e, p, "expected an object {precision: figure}");
			continue;
		}
		check_keys(e, u, p, "precision", prec_names, SOLAR_PREC_COUNT);
		for (const cJSON *f = u->child; f; f = f->next) {
			int prec = solar_prec_parse(f->string);
			if (prec >= 0)
				walk_figure(e, f, join(q, p, f->string),
					    out ? &out[unit][prec] : NULL);
		}
	}
}

/* "memory": [{level, capacity_bytes, bandwidth_bytes_per_s}], levels from DRAM inward. */
static void walk_memory(ectx *e, const cJSON *item, solar_device *d)
{
	char p[PATH_BYTES], q[PATH_BYTES];
	if (!cJSON_IsArray(item)) {
		fail(e, "memory", "expected an array of levels");
		return;
	}
	int seen[NLEVELS], last_rank = -1, i = 0;
	for (int k = 0; k < NLEVELS; k++)
		seen[k] = -1;
	for (const cJSON *lv = item->child; lv; lv = lv->next, i++) {
		snprintf(p, sizeof p, "memory[%d]", i);
		if (!cJSON_IsObject(lv)) {
			fail(e, p,
			     "expected an object {\"level\", \"capacity_bytes\", "
			     "\"bandwidth_bytes_per_s\"}");
			continue;
		}
		check_keys(e, lv, p, "key", level_keys, COUNT(level_keys));
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(lv, "level");
		int rank = -1;
		join(q, p, "level");
		if (!name) {
			fail(e, q, "missing (required)");
		} else if (!cJSON_IsString(name)) {
			fail(e, q, "expected a string");
		} else if ((rank = level_rank(name->valuestring)) < 0) {
			fail_unknown(e, q, "level", name->valuestring, level_names, NLEVELS);
		} else if (seen[rank] >= 0) {
			fail(e, q, "duplicate level '%s' (also memory[%d])", name->valuestring,
			     seen[rank]);
			rank = -1;
		} else {
			seen[rank] = i;
			if (rank < last_rank)
				fail(e, q,
				     "level '%s' out of order (levels go from DRAM inward: dram, "
				     "l2, smem, regs)",
				     name->valuestring);
			last_rank = rank > last_rank ? rank : last_rank;
		}
		solar_mem_level *l = d && rank >= 0 ? level_get(d, name->valuestring) : NULL;
		const cJSON *cap = cJSON_GetObjectItemCaseSensitive(lv, "capacity_bytes");
		const cJSON *bw = cJSON_GetObjectItemCaseSensitive(lv, "bandwidth_bytes_per_s");
		if (cap)
			walk_figure(e, cap, join(q, p, "capacity_bytes"),
				    l ? &l->capacity_bytes : NULL);
		if (bw)
			walk_figure(e, bw, join(q, p, "bandwidth_bytes_per_s"),
				    l ? &l->bandwidth_bytes_per_s : NULL);
	}
}

/* Dense above 0.55 x sparse almost always means a starred (sparse) headline was typed into the
 * dense field.  Checked on the merged figures, where a file and its base chain meet: a dense
 * figure is held against the sparse one it inherits as it is once `device show` writes both
 * into one file.  A what-if figure (hypothetical, on either side) is the user's to set. */
static void check_sparse(ectx *e, const solar_device *d)
{
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			const solar_figure *dv = &d->peak[u][p], *sv = &d->sparse_peak[u][p];
			if (!dv->present || !sv->present || dv->status == SOLAR_SRC_HYPOTHETICAL ||
			    sv->status == SOLAR_SRC_HYPOTHETICAL)
				continue;
			if (dv->value > 0.55 * sv->value) {
				char path[PATH_BYTES];
				snprintf(path, sizeof path, "peak.%s.%s.value", unit_names[u],
					 prec_names[p]);
				fail(e, path,
				     "dense figure %g is more than 0.55 x sparse_peak.%s.%s (%g): "
				     "is a sparse headline in the dense field?",
				     dv->value, unit_names[u], prec_names[p], sv->value);
			}
		}
}

static void walk_top(ectx *e, const cJSON *root, solar_device *d)
{
	check_keys(e, root, "", "key", top_keys, COUNT(top_keys));
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "schema");
	if (!v)
		fail(e, "schema", "missing (required; this solar reads schema %d)",
		     SOLAR_DEVICE_SCHEMA);
	else if (!cJSON_IsNumber(v))
		fail(e, "schema", "expected the number %d", SOLAR_DEVICE_SCHEMA);
	else if (v->valuedouble != SOLAR_DEVICE_SCHEMA)
		fail(e, "schema", "unsupported version %g (this solar reads schema %d)",
		     v->valuedouble, SOLAR_DEVICE_SCHEMA);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "name")))
		walk_string(e, v, "name", d ? &d->name : NULL);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "vendor")))
		walk_string(e, v, "vendor", d ? &d->vendor : NULL);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "arch")))
		walk_string(e, v, "arch", d ? &d->arch : NULL);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "base")))
		walk_string(e, v, "base", NULL);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "sm_count"))) {
		if (!cJSON_IsNumber(v) || !(v->valuedouble >= 1 && v->valuedouble <= 1e6) ||
		    v->valuedouble != floor(v->valuedouble))
			fail(e, "sm_count", "expected a positive integer");
		else if (d)
			d->sm_count = (int)v->valuedouble;
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "clock_hz")))
		walk_figure(e, v, "clock_hz", d ? &d->clock_hz : NULL);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "peak"))) {
		walk_peaks(e, v, "peak", d ? d->peak : NULL);
		/* A peak this file sets (or removes) never keeps the clock of the figure it
		 * replaced: the file gives the new one's clock, or check_clocks reports it. */
		for (const cJSON *u = v->child; d && u; u = u->next)
			for (const cJSON *f = u->child; f; f = f->next)
				solar_figure_clear(&d->peak_clock_hz[solar_unit_parse(u->string)]
							      [solar_prec_parse(f->string)]);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "peak_clock_hz")))
		walk_peaks(e, v, "peak_clock_hz", d ? d->peak_clock_hz : NULL);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "sparse_peak")))
		walk_peaks(e, v, "sparse_peak", d ? d->sparse_peak : NULL);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "memory")))
		walk_memory(e, v, d);
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "notes"))) {
		int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1, i = 0;
		if (n < 0)
			fail(e, "notes", "expected an array of strings");
		for (const cJSON *s = n > 0 ? v->child : NULL; s; s = s->next, i++)
			if (!cJSON_IsString(s)) {
				char p[PATH_BYTES];
				snprintf(p, sizeof p, "notes[%d]", i);
				fail(e, p, "expected a string");
			}
		if (d && n >= 0) {
			notes_clear(d);
			d->notes = solar_xcalloc(1, sizeof *d->notes * (size_t)(n ? n : 1));
			for (const cJSON *s = v->child; s; s = s->next)
				d->notes[d->nnotes++] = solar_xstrdup(s->valuestring);
		}
	}
}

/* ---- files and the base chain --------------------------------------------------------- */

/* Reads a whole regular file (NUL-terminated): a FIFO or a device named as a descriptor or
 * a base would block or stream forever.  NULL with the reason in why on failure. */
static char *read_text(const char *path, size_t *len, char *why, size_t nwhy)
{
	FILE *f = solar_fopen_regular(path, why, nwhy);
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = solar_xcalloc(1, cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= (size_t)MAX_FILE_BYTES) {
				free(buf);
				fclose(f);
				snprintf(why, nwhy, "%s", strerror(EFBIG));
				return NULL;
			}
			buf = solar_xrealloc(buf, cap * 2);
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - 1 - n, f);
		n += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		snprintf(why, nwhy, "%s", strerror(EIO));
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* The directory part of a path ("." if none), as a new string. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return solar_xstrdup(".");
	if (slash == path)
		return solar_xstrdup("/");
	size_t n = (size_t)(slash - path);
	char *s = solar_xcalloc(1, n + 1);
	memcpy(s, path, n);
	return s;
}

/* `ref` resolved against directory `dir` (kept as written: "devices/h200-sxm.json"). */
static char *resolve(const char *dir, const char *ref)
{
	if (ref[0] == '/' || !dir || strcmp(dir, ".") == 0)
		return solar_xstrdup(ref);
	size_t n = strlen(dir) + strlen(ref) + 2;
	char *s = solar_xcalloc(1, n);
	snprintf(s, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", ref);
	return s;
}

/* ---- devices by name: the search path ------------------------------------------------ */

/* Compile-time folders (CMakeLists.txt): where `make install` puts the descriptors, and the
 * build and source trees, whose devices/ a binary inside the build tree searches. */
#ifndef SOLAR_DEVICES_DIR
#define SOLAR_DEVICES_DIR ""
#endif
#ifndef SOLAR_BINARY_DIR
#define SOLAR_BINARY_DIR ""
#endif
#ifndef SOLAR_SOURCE_DIR
#define SOLAR_SOURCE_DIR ""
#endif

static bool is_dir(const char *path)
{
	struct stat st;
	return path && *path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void add_dir(char ***dirs, int *n, const char *dir, size_t len)
{
	char *d = solar_xmalloc(len + 1);
	memcpy(d, dir, len);
	d[len] = '\0';
	for (int i = 0; i < *n; i++)
		if (!strcmp((*dirs)[i], d)) {
			free(d);
			return;
		}
	char **nd = solar_xrealloc(*dirs, sizeof *nd * (size_t)(*n + 1));
	*dirs = nd;
	(*dirs)[(*n)++] = d;
}

int solar_device_search_path(char ***dirs)
{
	*dirs = NULL;
	int n = 0;
	const char *env = getenv("SOLAR_DEVICE_PATH");
	for (const char *p = env; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		if (len)
			add_dir(dirs, &n, p, len);
		p = colon ? colon + 1 : p + len;
	}
	/* The executable's own installed layout (PREFIX/bin/solar beside PREFIX/share/solar),
	 * so an installed tree still works when moved or staged under DESTDIR. */
	char exe[PATH_MAX], buf[PATH_MAX + 32];
	solar_self_exe(exe, sizeof exe);
	char *slash = strrchr(exe, '/');
	if (slash) {
		*slash = '\0';
		snprintf(buf, sizeof buf, "%s/../share/solar/devices", exe);
		char *canon = realpath(buf, NULL);
		if (canon && is_dir(canon))
			add_dir(dirs, &n, canon, strlen(canon));
		free(canon);
	}
	if (is_dir(SOLAR_DEVICES_DIR))
		add_dir(dirs, &n, SOLAR_DEVICES_DIR, strlen(SOLAR_DEVICES_DIR));
	/* A binary inside the build tree (solar, the tests) also searches the source tree. */
	size_t bl = strlen(SOLAR_BINARY_DIR);
	char *bin = bl ? realpath(SOLAR_BINARY_DIR, NULL) : NULL;
	if (bin && slash && !strncmp(exe, bin, strlen(bin)) &&
	    (exe[strlen(bin)] == '/' || !exe[strlen(bin)])) {
		snprintf(buf, sizeof buf, "%s/devices", SOLAR_SOURCE_DIR);
		if (is_dir(buf))
			add_dir(dirs, &n, buf, strlen(buf));
	}
	free(bin);
	return n;
}

void solar_device_search_path_free(char **dirs, int n)
{
	for (int i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

/* "h100-sxm" for "h100-sxm.json", NULL for a file name that is not a descriptor's. */
static char *name_of(const char *file)
{
	size_t n = strlen(file);
	if (n <= 5 || strcmp(file + n - 5, ".json") || file[0] == '.')
		return NULL;
	char *s = solar_xstrdup(file);
	s[n - 5] = '\0';
	return s;
}

int solar_device_names(char ***names, char ***files)
{
	char **dirs;
	int nd = solar_device_search_path(&dirs), n = 0;
	*names = NULL;
	if (files)
		*files = NULL;
	for (int i = 0; i < nd; i++) {
		DIR *dp = opendir(dirs[i]);
		struct dirent *de;
		while (dp && (de = readdir(dp))) {
			char *name = name_of(de->d_name);
			bool seen = !name;
			for (int k = 0; !seen && k < n; k++)
				seen = !strcmp((*names)[k], name);
			if (seen) { /* an earlier folder's file of that name wins */
				free(name);
				continue;
			}
			char **nn = solar_xrealloc(*names, sizeof *nn * (size_t)(n + 1));
			char **nf = files ? solar_xrealloc(*files, sizeof *nf * (size_t)(n + 1)) : NULL;
			*names = nn;
			nn[n] = name;
			if (files) {
				*files = nf;
				size_t len = strlen(dirs[i]) + strlen(de->d_name) + 2;
				nf[n] = solar_xmalloc(len);
				snprintf(nf[n], len, "%s/%s", dirs[i], de->d_name);
			}
			n++;
		}
		if (dp)
			closedir(dp);
	}
	solar_device_search_path_free(dirs, nd);
	/* sorted by name, so a listing does not follow the order of readdir */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && strcmp((*names)[k - 1], (*names)[k]) > 0; k--) {
			char *t = (*names)[k];
			(*names)[k] = (*names)[k - 1];
			(*names)[k - 1] = t;
			if (files) {
				t = (*files)[k];
				(*files)[k] = (*files)[k - 1];
				(*files)[k - 1] = t;
			}
		}
	return n;
}

/* The descriptor `ref` names in the search path (NAME or NAME.json, no '/'), or NULL. */
static char *find_named(const char *ref)
{
	if (!*ref || strchr(ref, '/'))
		return NULL;
	size_t n = strlen(ref);
	bool json = n > 5 && !strcmp(ref + n - 5, ".json");
	char **dirs;
	int nd = solar_device_search_path(&dirs);
	char *found = NULL;
	for (int i = 0; i < nd && !found; i++) {
		size_t len = strlen(dirs[i]) + n + 8;
		char *path = solar_xmalloc(len);
		snprintf(path, len, "%s/%s%s", dirs[i], ref, json ? "" : ".json");
		if (is_file(path))
			found = path;
		else
			free(path);
	}
	solar_device_search_path_free(dirs, nd);
	return found;
}

char *solar_device_resolve(const char *ref)
{
	if (!ref)
		return NULL;
	if (is_file(ref) || strchr(ref, '/'))
		return solar_xstrdup(ref);
	char *found = find_named(ref);
	return found ? found : solar_xstrdup(ref);
}

/* `solar: no device 'x'; try 'solar device list' (did you mean 'y'?)`. */
static void fail_no_device(const char *ref, solar_diag *diag)
{
	char **names;
	int n = solar_device_names(&names, NULL), best = -1;
	char *want = name_of(ref);
	const char *key = want ? want : ref;
	int bestd = strlen(key) >= 5 ? 4 : 2;
	for (int i = 0; i < n; i++) {
		/* "h200" is short for "h200-sxm" before it is a typo of "b200" */
		size_t kl = strlen(key);
		bool prefix = !strncmp(names[i], key, kl) && names[i][kl] == '-';
		int dd = prefix ? 0 : solar_diag_edit_distance(key, names[i], false);
		if (dd < bestd || (prefix && !bestd && strlen(names[i]) < strlen(names[best]))) {
			bestd = dd;
			best = i;
		}
	}
	solar_diag_tool_error(diag, "no device '%s'; try 'solar device list'%s%s%s", ref,
			      best >= 0 ? " (did you mean '" : "", best >= 0 ? names[best] : "",
			      best >= 0 ? "'?)" : "");
	free(want);
	solar_device_search_path_free(names, n);
}

/* The files being loaded, outermost first: display names and canonical paths (for cycles). */
typedef struct {
	const char *name[MAX_BASE_DEPTH + 1];
	char *canon[MAX_BASE_DEPTH + 1];
	int n;
} chain;

static solar_device *load_text(const char *file, const char *text, size_t len, const char *dir,
			       chain *ch, solar_diag *diag);

/* Loads the base named in `file`; errors are reported as `file: base: ...`. */
static solar_device *load_base(ectx *e, const char *ref, const char *dir, chain *ch)
{
	char *path = resolve(dir, ref);
	if (!is_file(path)) { /* a base named like --device: "h200-sxm" */
		char *named = find_named(ref);
		if (named) {
			free(path);
			path = named;
		}
	}
	char *canon = realpath(path, NULL);
	solar_device *d = NULL;
	size_t len = 0;
	char why[128];
	snprintf(why, sizeof why, "%s", strerror(errno)); /* realpath's */
	char *text = canon ? read_text(path, &len, why, sizeof why) : NULL;
	if (!text) {
		fail(e, "base", "cannot read '%s': %s", path, why);
		goto out;
	}
	for (int i = 0; i < ch->n; i++)
		if (ch->canon[i] && strcmp(ch->canon[i], canon) == 0) {
			char buf[1024];
			size_t at = 0;
			for (int k = i; k < ch->n && at < sizeof buf; k++)
				at += (size_t)snprintf(buf + at, sizeof buf - at, "%s -> ",
						       ch->name[k]);
			fail(e, "base", "cycle: %s%s", buf, path);
			goto out;
		}
	if (ch->n >= MAX_BASE_DEPTH) {
		fail(e, "base", "more than %d descriptors in the base chain", MAX_BASE_DEPTH);
		goto out;
	}
	char *bdir = dir_of(path);
	ch->name[ch->n] = path;
	ch->canon[ch->n] = canon;
	ch->n++;
	d = load_text(path, text, len, bdir, ch, e->d);
	ch->n--;
	free(bdir);
	if (!d)
		fail(e, "base", "'%s' has errors (see above)", path);
out:
	free(text);
	free(canon);
	free(path);
	return d;
}

/* Parses, checks and applies one file on top of its base.  The file is ch->name[ch->n-1]. */
static solar_device *load_text(const char *file, const char *text, size_t len, const char *dir,
			       chain *ch, solar_diag *diag)
{
	ectx e = ectx_open(file, text, len, diag);
	cJSON *root = solar_json_parse(text, len, e.d); /* syntax, duplicate keys, 1e400 */
	if (!root) {
		ectx_close(&e);
		return NULL;
	}
	solar_device *d = NULL;
	if (!cJSON_IsObject(root)) {
		fail(&e, NULL, "expected a JSON object at the top level");
		goto out;
	}
	walk_top(&e, root, NULL);
	if (nerr(&e))
		goto out;
	const cJSON *base = cJSON_GetObjectItemCaseSensitive(root, "base");
	d = base ? load_base(&e, base->valuestring, dir, ch) : solar_xcalloc(1, sizeof *d);
	if (d) {
		walk_top(&e, root, d);
		check_sparse(&e, d);
		if (nerr(&e)) {
			solar_device_free(d);
			d = NULL;
		}
	}
out:
	ectx_close(&e);
	cJSON_Delete(root);
	return d;
}

/* Rule "clock domains" needs, once a descriptor gives a clock at all, the SM clock and the
 * clock of every peak; a peak clock above the SM clock would scale the peak DOWN at the default
 * clock, so it is an error unless one of the two is a what-if. */
static void check_clocks(ectx *e, const solar_device *d)
{
	char path[PATH_BYTES];
	bool any = d->clock_hz.present;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++)
			any = any || d->peak_clock_hz[u][p].present;
	if (!any)
		return;
	if (!d->clock_hz.present)
		fail(e, "clock_hz",
		     "missing (required with peak_clock_hz: the SM clock the peaks "
		     "are scaled to)");
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			const solar_figure *f = &d->peak[u][p], *c = &d->peak_clock_hz[u][p];
			snprintf(path, sizeof path, "peak_clock_hz.%s.%s", unit_names[u],
				 prec_names[p]);
			if (f->present && !c->present)
				fail(e, path,
				     "missing (the descriptor gives clock_hz, so every peak "
				     "needs the clock its figure assumes; a file that sets a "
				     "peak gives its clock too)");
			else if (c->present && !f->present)
				fail(e, path,
				     "no peak.%s.%s to go with it (remove it with null where "
				     "the peak is removed)",
				     unit_names[u], prec_names[p]);
			else if (c->present && d->clock_hz.present &&
				 c->value > d->clock_hz.value &&
				 c->status != SOLAR_SRC_HYPOTHETICAL &&
				 d->clock_hz.status != SOLAR_SRC_HYPOTHETICAL)
				fail(e, path,
				     "%g Hz is above clock_hz (%g Hz), the maximum SM clock: "
				     "no unit on the SM clock runs faster",
				     c->value, d->clock_hz.value);
		}
}

/* The checks that need the merged descriptor, reported against the file asked for. */
static solar_device *finish(solar_device *d, const char *file, solar_diag *diag)
{
	if (!d)
		return NULL;
	ectx e = ectx_open(file, NULL, 0, diag);
	levels_compact(d);
	d->file = solar_xstrdup(file);
	if (!d->name)
		fail(&e, "name", "missing (required)");
	if (!d->peak[SOLAR_UNIT_SIMT][SOLAR_PREC_F32].present)
		fail(&e, "peak.simt.f32", "missing (required)");
	const solar_mem_level *dram = solar_device_level(d, "dram");
	if (!dram || !dram->capacity_bytes.present)
		fail(&e, "memory.dram.capacity_bytes", "missing (required)");
	if (!dram || !dram->bandwidth_bytes_per_s.present)
		fail(&e, "memory.dram.bandwidth_bytes_per_s", "missing (required)");
	check_clocks(&e, d);
	bool bad = nerr(&e) > 0;
	ectx_close(&e);
	if (bad) {
		solar_device_free(d);
		return NULL;
	}
	return d;
}

solar_device *solar_device_load(const char *path, solar_diag *diag)
{
	if (!path) {
		ectx e = ectx_open("<null>", NULL, 0, diag);
		fail(&e, NULL, "no descriptor file given");
		ectx_close(&e);
		return NULL;
	}
	char *file = solar_device_resolve(path);
	if (!is_file(file) && !strchr(path, '/')) {
		fail_no_device(path, diag);
		free(file);
		return NULL;
	}
	path = file;
	if (solar_system_is(path)) {
		ectx e = ectx_open(path, NULL, 0, diag);
		fail(&e, NULL, "a system descriptor (many GPUs), where one GPU's descriptor is "
			       "needed: give its \"gpu\", or pass the system to `solar collective` "
			       "(docs/devices.md, \"Systems\")");
		ectx_close(&e);
		free(file);
		return NULL;
	}
	size_t len = 0;
	char why[128] = "no file";
	char *text = path ? read_text(path, &len, why, sizeof why) : NULL;
	if (!text) {
		ectx e = ectx_open(path, NULL, 0, diag);
		fail(&e, NULL, "cannot read: %s", why);
		ectx_close(&e);
		free(file);
		return NULL;
	}
	chain ch = {{path}, {realpath(path, NULL)}, 1};
	char *dir = dir_of(path);
	solar_device *d = load_text(path, text, len, dir, &ch, diag);
	free(dir);
	free(ch.canon[0]);
	free(text);
	d = finish(d, path, diag);
	free(file);
	return d;
}

solar_device *solar_device_load_string(const char *json, const char *name_for_errors,
				       const char *base_dir, solar_diag *diag)
{
	const char *name = name_for_errors ? name_for_errors : "<string>";
	if (!json) {
		ectx e = ectx_open(name, NULL, 0, diag);
		fail(&e, NULL, "no descriptor text given");
		ectx_close(&e);
		return NULL;
	}
	chain ch = {{name}, {NULL}, 1};
	solar_device *d = load_text(name, json, strlen(json), base_dir ? base_dir : ".", &ch, diag);
	return finish(d, name, diag);
}

/* ---- overrides for provisioning studies ------------------------------------------------ */

/* `solar: device override 'PATH': message`. */
SOLAR_PRINTF(3, 4) static void set_fail(solar_diag *diag, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	solar_diag_tool_error(diag, "device override '%s': %s", path, msg);
}

int solar_device_set(solar_device *d, const char *path, double value, solar_diag *diag)
{
	char buf[PATH_BYTES], names[128];
	char *part[4] = {0};
	int n = 0;
	if (!d || !path || strlen(path) >= sizeof buf) {
		solar_diag_tool_error(diag, "device override: invalid path");
		return -1;
	}
	strcpy(buf, path);
	for (char *s = buf; n < 4;) {
		part[n++] = s;
		char *dot = strchr(s, '.');
		if (!dot)
			break;
		*dot = 0;
		s = dot + 1;
	}
#define SET_FAIL(...)                                                                              \
	do {                                                                                       \
		set_fail(diag, path, __VA_ARGS__);                                                 \
		return -1;                                                                         \
	} while (0)
	if (!isfinite(value) || value <= 0)
		SET_FAIL("expected a positive number");
	solar_figure *f = NULL, *clock_of = NULL;
	if (n == 1 && strcmp(part[0], "sm_count") == 0) {
		if (value != floor(value) || value > 1e6)
			SET_FAIL("expected a positive integer");
		d->sm_count = (int)value;
		return 0;
	} else if (n == 1 && strcmp(part[0], "clock_hz") == 0) {
		/* Rule "clock domains": the peaks follow the SM clock through their own clocks, so
		 * a device that lacks one cannot take another clock (it would change nothing). */
		const char *missing = solar_device_unclocked(d, names, sizeof names);
		if (missing)
			SET_FAIL(
			    "the descriptor gives no %s, so its peaks cannot follow another SM "
			    "clock (docs/devices.md#clocks)",
			    missing);
		f = &d->clock_hz;
	} else if (n == 3 && (strcmp(part[0], "peak") == 0 || strcmp(part[0], "sparse_peak") == 0 ||
			      strcmp(part[0], "peak_clock_hz") == 0)) {
		int u = solar_unit_parse(part[1]), p = solar_prec_parse(part[2]);
		if (u < 0)
			SET_FAIL("unknown unit '%s' (expected %s)", part[1],
				 name_list(names, sizeof names, unit_names, SOLAR_UNIT_COUNT));
		if (p < 0)
			SET_FAIL("unknown precision '%s' (expected %s)", part[2],
				 name_list(names, sizeof names, prec_names, SOLAR_PREC_COUNT));
		if (strcmp(part[0], "peak_clock_hz") == 0) {
			if (!d->peak[u][p].present)
				SET_FAIL("no peak.%s.%s to go with it", part[1], part[2]);
			f = &d->peak_clock_hz[u][p];
		} else if (part[0][0] == 'p') {
			f = &d->peak[u][p];
			/* A new peak is a rate at the SM clock of the moment. */
			if (d->clock_hz.present)
				clock_of = &d->peak_clock_hz[u][p];
		} else {
			f = &d->sparse_peak[u][p];
		}
	} else if (n == 3 && strcmp(part[0], "memory") == 0) {
		if (level_rank(part[1]) < 0)
			SET_FAIL("unknown level '%s' (expected %s)", part[1],
				 name_list(names, sizeof names, level_names, NLEVELS));
		if (strcmp(part[2], "capacity_bytes") && strcmp(part[2], "bandwidth_bytes_per_s"))
			SET_FAIL("unknown field '%s' (expected capacity_bytes or "
				 "bandwidth_bytes_per_s)",
				 part[2]);
		solar_mem_level *l = level_get(d, part[1]);
		f = part[2][0] == 'c' ? &l->capacity_bytes : &l->bandwidth_bytes_per_s;
	} else {
		SET_FAIL("expected clock_hz, sm_count, peak.<unit>.<precision>, "
			 "peak_clock_hz.<unit>.<precision>, sparse_peak.<unit>.<precision> or "
			 "memory.<level>.<field>");
	}
#undef SET_FAIL
	char src[512];
	if (f->present)
		snprintf(src, sizeof src, "override %s = %g (was %g, %s: %s)", path, value,
			 f->value, solar_status_name(f->status), f->source);
	else
		snprintf(src, sizeof src, "override %s = %g (not given before)", path, value);
	solar_figure_clear(f);
	f->present = true;
	f->value = value;
	f->status = SOLAR_SRC_HYPOTHETICAL;
	f->source = solar_xstrdup(src);
	if (clock_of) {
		snprintf(src, sizeof src, "override %s: the new figure is a rate at clock_hz = %g",
			 path, d->clock_hz.value);
		solar_figure_clear(clock_of);
		clock_of->present = true;
		clock_of->value = d->clock_hz.value;
		clock_of->status = SOLAR_SRC_HYPOTHETICAL;
		clock_of->source = solar_xstrdup(src);
	}
	return 0;
}

/* ---- writing -------------------------------------------------------------------------- */

static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", out);
		else if (*c == '\t')
			fputs("\\t", out);
		else if (*c < 0x20)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

/* Whole numbers below 1e12 (byte counts) in full; others in the shortest %g form that reads
 * back to the same double. */
static void put_number(FILE *out, double v)
{
	char buf[40];
	if (v == floor(v) && fabs(v) < 1e12) {
		fprintf(out, "%.0f", v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, out);
}

static void put_figure(FILE *out, const solar_figure *f)
{
	fputs("{\"value\": ", out);
	put_number(out, f->value);
	fprintf(out, ", \"status\": \"%s\", \"source\": ", solar_status_name(f->status));
	put_string(out, f->source);
	fputc('}', out);
}

static bool any_figure(const solar_figure (*t)[SOLAR_PREC_COUNT], int u)
{
	for (int p = 0; p < SOLAR_PREC_COUNT; p++)
		if (t[u][p].present)
			return true;
	return false;
}

static void put_peaks(FILE *out, const char *key, const solar_figure (*t)[SOLAR_PREC_COUNT])
{
	bool first_unit = true;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++) {
		if (!any_figure(t, u))
			continue;
		fprintf(out, first_unit ? ",\n  \"%s\": {\n" : ",\n", key);
		fprintf(out, "    \"%s\": {\n", unit_names[u]);
		bool first = true;
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			if (!t[u][p].present)
				continue;
			fprintf(out, "%s      \"%s\": ", first ? "" : ",\n", prec_names[p]);
			put_figure(out, &t[u][p]);
			first = false;
		}
		fputs("\n    }", out);
		first_unit = false;
	}
	if (!first_unit)
		fputs("\n  }", out);
}

int solar_device_write_json(const solar_device *d, FILE *out)
{
	fprintf(out, "{\n  \"schema\": %d", SOLAR_DEVICE_SCHEMA);
	if (d->name) {
		fputs(",\n  \"name\": ", out);
		put_string(out, d->name);
	}
	if (d->vendor) {
		fputs(",\n  \"vendor\": ", out);
		put_string(out, d->vendor);
	}
	if (d->arch) {
		fputs(",\n  \"arch\": ", out);
		put_string(out, d->arch);
	}
	if (d->sm_count > 0)
		fprintf(out, ",\n  \"sm_count\": %d", d->sm_count);
	if (d->clock_hz.present) {
		fputs(",\n  \"clock_hz\": ", out);
		put_figure(out, &d->clock_hz);
	}
	put_peaks(out, "peak", (const solar_figure(*)[SOLAR_PREC_COUNT])d->peak);
	put_peaks(out, "peak_clock_hz", (const solar_figure(*)[SOLAR_PREC_COUNT])d->peak_clock_hz);
	put_peaks(out, "sparse_peak", (const solar_figure(*)[SOLAR_PREC_COUNT])d->sparse_peak);
	int written = 0;
	for (int i = 0; i < d->nlevels; i++) {
		const solar_mem_level *l = &d->levels[i];
		if (!l->capacity_bytes.present && !l->bandwidth_bytes_per_s.present)
			continue;
		fputs(written++ ? ",\n    {\"level\": " : ",\n  \"memory\": [\n    {\"level\": ",
		      out);
		put_string(out, l->name);
		if (l->capacity_bytes.present) {
			fputs(",\n     \"capacity_bytes\": ", out);
			put_figure(out, &l->capacity_bytes);
		}
		if (l->bandwidth_bytes_per_s.present) {
			fputs(",\n     \"bandwidth_bytes_per_s\": ", out);
			put_figure(out, &l->bandwidth_bytes_per_s);
		}
		fputc('}', out);
	}
	if (written)
		fputs("\n  ]", out);
	if (d->nnotes) {
		fputs(",\n  \"notes\": [", out);
		for (int i = 0; i < d->nnotes; i++) {
			fputs(i ? ",\n    " : "\n    ", out);
			put_string(out, d->notes[i]);
		}
		fputs("\n  ]", out);
	}
	fputs("\n}\n", out);
	return ferror(out) ? -1 : 0;
}

/* ---- the base a file names ------------------------------------------------------------ */

char *solar_device_base_file(const char *path)
{
	size_t len = 0;
	char why[128];
	char *text = path ? read_text(path, &len, why, sizeof why) : NULL;
	cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
	const cJSON *base = cJSON_GetObjectItemCaseSensitive(root, "base");
	char *out = NULL;
	if (cJSON_IsString(base) && base->valuestring[0]) {
		char *dir = dir_of(path);
		out = resolve(dir, base->valuestring);
		free(dir);
	}
	cJSON_Delete(root);
	free(text);
	return out;
}

/* ---- shared with system.c (descriptor.h) ---------------------------------------------- */

void solar_figure_walk(solar_diag *fd, const cJSON *item, const char *path, solar_figure *out)
{
	ectx e = {fd};
	walk_figure(&e, item, path, out);
}

void solar_descriptor_check_keys(solar_diag *fd, const cJSON *obj, const char *path,
				 const char *what, const char *const *allowed, int count)
{
	ectx e = {fd};
	check_keys(&e, obj, path, what, allowed, count);
}

char *solar_descriptor_read(const char *path, size_t *len, char *why, size_t nwhy)
{
	return read_text(path, len, why, nwhy);
}

void solar_descriptor_not_found(const char *ref, solar_diag *diag) { fail_no_device(ref, diag); }

char *solar_device_name_of(const char *file)
{
	const char *base = strrchr(file, '/');
	char *n = name_of(base ? base + 1 : file);
	return n ? n : solar_xstrdup(file);
}
