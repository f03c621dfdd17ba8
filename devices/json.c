/* json.c - JSON text -> a cJSON tree that holds no duplicate key and no overflowed number.
 *
 * cJSON parses; this file refuses what cJSON lets through (json.h says why each matters).  The
 * walk carries the JSON path of the value it is at ("entries[0].set.clock_hz"), the spelling
 * of every JSON error of solar.  Duplicate keys are found by sorting the keys of an object
 * (hostile input may have thousands), then reported in the order of the text.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "devices/json.h"

#define PATH_BYTES 512

typedef struct {
	solar_diag *d;
	int32_t at;
	int errors;
} checker;

SOLAR_PRINTF(3, 4) static void report(checker *c, const char *path, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->errors++;
	if (c->at >= 0)
		solar_diag_error(c->d, (solar_span){c->at, 0}, "%s%s%s", path, *path ? ": " : "",
				 msg);
	else
		solar_diag_path_error(c->d, path, "%s", msg);
}

/* path + ".key" or "[i]" into buf (cut short past PATH_BYTES: such a path is only printed). */
static void join(char *buf, const char *path, const cJSON *child, int index)
{
	int n = child->string
			? snprintf(buf, PATH_BYTES, "%s%s%s", path, *path ? "." : "", child->string)
			: snprintf(buf, PATH_BYTES, "%s[%d]", path, index);
	if (n >= PATH_BYTES)
		buf[PATH_BYTES - 1] = '\0';
}

typedef struct {
	const char *key;
	int index;
} keyed;

static int by_key(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* The children of obj that repeat an earlier key: dup[i] for the i-th child. */
static void find_duplicates(const cJSON *obj, int n, bool *dup)
{
	keyed *k = solar_xcalloc((size_t)n, sizeof *k);
	int i = 0;
	for (const cJSON *c = obj->child; c; c = c->next, i++)
		k[i] = (keyed){c->string ? c->string : "", i};
	qsort(k, (size_t)n, sizeof *k, by_key);
	for (i = 1; i < n; i++)
		if (!strcmp(k[i].key, k[i - 1].key))
			dup[k[i].index] = true;
	free(k);
}

static void walk(checker *c, const cJSON *v, const char *path)
{
	if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
		report(c, path, "number out of range (beyond 1.8e308, the largest double)");
	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return;
	int n = 0;
	for (const cJSON *x = v->child; x; x = x->next)
		n++;
	bool *dup = solar_xcalloc((size_t)n + 1, sizeof *dup);
	if (cJSON_IsObject(v) && n > 1)
		find_duplicates(v, n, dup);
	char p[PATH_BYTES];
	int i = 0;
	for (const cJSON *x = v->child; x; x = x->next, i++) {
		join(p, path, x, i);
		if (dup[i])
			report(c, p, "duplicate key '%s'", x->string);
		walk(c, x, p);
	}
	free(dup);
}

int solar_json_check(const cJSON *root, int32_t at, solar_diag *d)
{
	checker c = {d, at, 0};
	if (root)
		walk(&c, root, "");
	return c.errors;
}

cJSON *solar_json_parse(const char *text, size_t len, solar_diag *d)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	size_t at = end ? (size_t)(end - text) : 0;
	if (root) { /* only white space may follow the value */
		while (at < len && text[at] && strchr(" \t\r\n", text[at]))
			at++;
		if (at < len) {
			cJSON_Delete(root);
			root = NULL;
		}
	}
	if (!root) {
		solar_diag_error(d, (solar_span){(int32_t)at, 0}, "invalid JSON%s",
				 len == 0 ? " (the file is empty)" : "");
		return NULL;
	}
	if (solar_json_check(root, -1, d)) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}
