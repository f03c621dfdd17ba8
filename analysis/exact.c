/* exact.c - the solar_count functions (exact.h) over the isl_val they are.
 *
 * The one idea: a solar_count pointer is an isl_val pointer under another name, so handing a
 * count out of analysis/ costs nothing, and only this file (with the rest of analysis/) knows
 * it.  Printing goes through ISL's own decimal conversion (GMP), so a count of any size comes
 * out digit for digit.
 */
#include "exact.h"

#include <isl/ctx.h>
#include <isl/val.h>
#include <stdlib.h>

#include "model.h"

static isl_val *val(const solar_count *c) { return (isl_val *)c; }

char *solar_count_str(const solar_count *c)
{
	if (!c)
		return solar_xstrdup("0");
	solar_isl_budget_kernel(isl_val_get_ctx(val(c))); /* printing takes ISL operations too */
	char *s = isl_val_to_str(val(c));
	if (!s)
		solar_out_of_memory();
	char *r = solar_xstrdup(s);
	free(s);
	return r;
}

char *solar_count_str_times(const solar_count *c, unsigned long k)
{
	if (!c)
		return solar_xstrdup("0");
	isl_val *v = isl_val_mul_ui(isl_val_copy(val(c)), k);
	char *s = solar_count_str(v);
	isl_val_free(v);
	return s;
}

double solar_count_double(const solar_count *c)
{
	return c ? isl_val_get_d(val(c)) : 0.0;
}

bool solar_count_is_zero(const solar_count *c)
{
	return !c || isl_val_is_zero(val(c)) == isl_bool_true;
}

int solar_count_cmp(const solar_count *a, const solar_count *b)
{
	if (!a || !b) {
		bool za = solar_count_is_zero(a), zb = solar_count_is_zero(b);
		/* counts are non-negative, so a NULL (zero) is below any non-zero count */
		return za && zb ? 0 : za ? -1 : zb ? 1 : 0;
	}
	isl_val *d = isl_val_sub(isl_val_copy(val(a)), isl_val_copy(val(b)));
	int sign = isl_val_sgn(d);
	isl_val_free(d);
	return sign;
}

void solar_count_free(solar_count *c)
{
	isl_val_free(c);
}
