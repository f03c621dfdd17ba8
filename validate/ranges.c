/* ranges.c - the index data a validation runs on, checked against what the AIR declares about
 * it (AIR 1.1, docs/air.md "Indexing with data") before the AIR program runs on either backend.
 *
 * An `in` tensor's value range is a promise about the input: every element the harness wrote
 * to DIR/in_<name>.npy must lie in it, or the program would read outside a tensor (the checks of
 * `solar check` prove every index in bounds for the values the ranges allow, and only for
 * those).  An assumption (`assume distinct(ids) >= N`) is a promise too: the bounds rest on
 * it, so data that breaks it is an error naming it.  Computed index tensors need no check:
 * analysis/check.c proves every value stored into them in range.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"
#include "../diag/alloc.h"

/* Element i of an integer .npy array as int64 (false for a float or bool array). */
static bool element(const solar_npy *a, int64_t i, int64_t *v)
{
	switch (a->type) {
	case SOLAR_NPY_I8: *v = ((const int64_t *)a->data)[i]; return true;
	case SOLAR_NPY_I4: *v = ((const int32_t *)a->data)[i]; return true;
	case SOLAR_NPY_I2: *v = ((const int16_t *)a->data)[i]; return true;
	case SOLAR_NPY_I1: *v = ((const int8_t *)a->data)[i]; return true;
	case SOLAR_NPY_U4: *v = ((const uint32_t *)a->data)[i]; return true;
	case SOLAR_NPY_U2: *v = ((const uint16_t *)a->data)[i]; return true;
	case SOLAR_NPY_U1: *v = ((const uint8_t *)a->data)[i]; return true;
	case SOLAR_NPY_U8: {
		uint64_t u = ((const uint64_t *)a->data)[i];
		*v = u > INT64_MAX ? INT64_MAX : (int64_t)u;
		return true;
	}
	default:
		return false;
	}
}

/* "[3]" or "[1, 7]": flat element i of tensor t as its index. */
static void index_text(const solar_tensor *t, int64_t i, char *buf, size_t n)
{
	int64_t idx[32];
	for (int k = t->rank - 1; k >= 0; k--) {
		idx[k] = i % t->extent[k];
		i /= t->extent[k];
	}
	size_t at = 0;
	buf[0] = 0;
	for (int k = 0; k < t->rank && at < n; k++)
		at += (size_t)snprintf(buf + at, n - at, "%s%" PRId64, k ? ", " : "[", idx[k]);
	if (at < n)
		snprintf(buf + at, n - at, "%s", t->rank ? "]" : "");
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The number of different values of the array's elements. */
static int64_t distinct(const solar_npy *a)
{
	int64_t *v = solar_xmalloc(((size_t)a->count + 1) * sizeof *v);
	for (int64_t i = 0; i < a->count; i++)
		element(a, i, &v[i]);
	qsort(v, (size_t)a->count, sizeof *v, cmp_i64);
	int64_t n = a->count > 0;
	for (int64_t i = 1; i < a->count; i++)
		n += v[i] != v[i - 1];
	free(v);
	return n;
}

/* Checks tensor t's data against its range and its assumption; returns the errors reported. */
static int check_tensor(const solar_program *p, int ti, const solar_npy *a, solar_diag *d)
{
	const solar_tensor *t = &p->tensors[ti];
	for (int64_t i = 0; i < a->count; i++) {
		int64_t v = 0;
		if (!element(a, i, &v)) {
			solar_diag_error(d, t->span, "the data of '%s' are not integers", t->name);
			return 1;
		}
		if (v < t->range[0] || v >= t->range[1]) {
			char at[256];
			index_text(t, i, at, sizeof at);
			solar_diag_error(d, t->span,
					 "%s%s = %" PRId64 " is outside its declared range %" PRId64
					 "..%" PRId64 "; the validation's data break the range the "
					 "bounds rely on",
					 t->name, at, v, t->range[0], t->range[1]);
			return 1;
		}
	}
	for (int k = 0; k < p->nassumes; k++) {
		const solar_assume *as = &p->assumes[k];
		if (as->tensor != ti)
			continue;
		int64_t n = distinct(a);
		if (n < as->value) {
			solar_diag_error(d, as->span,
					 "the data contradict the assumption: '%s' takes %" PRId64
					 " different values, fewer than %" PRId64,
					 t->name, n, as->value);
			return 1;
		}
	}
	return 0;
}

int solar_validate_index_data(const solar_program *p, const char *dir, solar_diag *prog_diag,
			      solar_diag *tool)
{
	int errors = 0;
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		if (!solar_tensor_ranged(t) || !solar_validate_from_file(t))
			continue;
		size_t n = strlen(dir) + strlen(t->name) + 16;
		char *path = solar_xmalloc(n);
		snprintf(path, n, "%s/in_%s.npy", dir, t->name);
		solar_npy a;
		if (solar_npy_read(path, &a, tool) < 0) {
			free(path);
			return -1;
		}
		free(path);
		errors += check_tensor(p, i, &a, prog_diag);
		solar_npy_free(&a);
	}
	return errors;
}
