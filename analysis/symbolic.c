/* symbolic.c - symbolic counts (`solar count --symbolic`).
 *
 * The model is built with the params as ISL parameters; each domain and footprint is handed
 * to the symbolic counter (analysis/count.c), which returns a piecewise quasi-polynomial.  As
 * a guard, every formula is evaluated at the current param values and compared with the exact
 * numeric count of the same set: a formula that disagrees is never printed.
 */
#include "symbolic.h"

#include <cjson/cJSON.h>
#include <isl/aff.h>
#include <isl/point.h>
#include <isl/polynomial.h>
#include <isl/space.h>
#include <stdlib.h>
#include <string.h>

#include "count.h"
#include "model.h"
#include "work.h"
#include "../diag/alloc.h"

/* Fixes every parameter of a set to its value (to count the same set numerically). */
static isl_set *fix_params(const solar_program *p, isl_set *s)
{
	for (int i = 0; i < p->nparams; i++) {
		char name[16];
		snprintf(name, sizeof name, "p%d", i);
		int pos = isl_set_find_dim_by_name(s, isl_dim_param, name);
		if (pos >= 0)
			s = isl_set_fix_si(s, isl_dim_param, (unsigned)pos, (int)p->params[i].value);
	}
	return isl_set_project_out(s, isl_dim_param, 0, isl_set_dim(s, isl_dim_param));
}

static isl_val *eval_at_params(const solar_program *p, isl_pw_qpolynomial *pw)
{
	isl_space *sp = isl_pw_qpolynomial_get_domain_space(pw);
	isl_point *pt = isl_point_zero(sp);
	for (int i = 0; i < p->nparams; i++) {
		char name[16];
		snprintf(name, sizeof name, "p%d", i);
		int pos = isl_pw_qpolynomial_find_dim_by_name(pw, isl_dim_param, name);
		if (pos >= 0)
			pt = isl_point_set_coordinate_val(
				pt, isl_dim_param, pos,
				isl_val_int_from_si(isl_pw_qpolynomial_get_ctx(pw),
						    (long)p->params[i].value));
	}
	return isl_pw_qpolynomial_eval(isl_pw_qpolynomial_copy(pw), pt);
}

/* The formula as text with the user's param names, or NULL when it cannot be trusted. */
static char *formula(const solar_program *p, isl_set *set, isl_val **numeric)
{
	const char *why = NULL;
	isl_set *fixed = fix_params(p, isl_set_copy(set));
	*numeric = solar_count_set(fixed, &why);
	isl_set_free(fixed);
	isl_pw_qpolynomial *pw = solar_count_set_symbolic(set, &why);
	if (!pw)
		return NULL;
	isl_val *at = eval_at_params(p, pw);
	bool ok = at && *numeric && isl_val_eq(at, *numeric) == isl_bool_true;
	isl_val_free(at);
	if (!ok) {
		isl_pw_qpolynomial_free(pw);
		return NULL;
	}
	for (int i = 0; i < p->nparams; i++) {
		char name[16];
		snprintf(name, sizeof name, "p%d", i);
		int pos = isl_pw_qpolynomial_find_dim_by_name(pw, isl_dim_param, name);
		if (pos >= 0)
			pw = isl_pw_qpolynomial_set_dim_name(pw, isl_dim_param, (unsigned)pos,
							     p->params[i].name);
	}
	char *s = isl_pw_qpolynomial_to_str(pw);
	isl_pw_qpolynomial_free(pw);
	char *r = s ? solar_xstrdup(s) : NULL;
	free(s);
	return r;
}

static void emit(FILE *out, cJSON *arr, const char *what, const char *f, isl_val *numeric)
{
	char *num = solar_count_str(numeric);
	if (arr) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "what", what);
		if (f)
			cJSON_AddStringToObject(e, "formula", f);
		else
			cJSON_AddNullToObject(e, "formula");
		cJSON_AddStringToObject(e, "at_current_params", num);
		cJSON_AddItemToArray(arr, e);
	} else if (f) {
		fprintf(out, "  %-28s %s\n  %-28s = %s at the current params\n", what, f, "", num);
	} else {
		fprintf(out, "  %-28s %s (no closed form found; numeric count)\n", what, num);
	}
	free(num);
}

int solar_symbolic_report(const solar_program *p, bool json, FILE *out, solar_diag *d)
{
	isl_ctx *ctx = solar_isl_ctx_new();
	solar_model *m = solar_model_build(p, ctx, true, d);
	if (!m) {
		isl_ctx_free(ctx);
		return 1;
	}
	cJSON *root = json ? cJSON_CreateObject() : NULL;
	cJSON *arr = json ? cJSON_AddArrayToObject(root, "counts") : NULL;
	if (!json)
		fputs("symbolic counts (params as symbols; each checked at the current values)\n",
		      out);
	char what[256];
	for (int i = 0; i < p->nstmts; i++) {
		isl_val *num = NULL;
		char *f = formula(p, m->domain[i], &num);
		snprintf(what, sizeof what, "instances S%d", i);
		emit(out, arr, what, f, num);
		free(f);
		isl_val_free(num);
	}
	for (int t = 0; t < p->ntensors; t++) {
		for (int wr = 0; wr < 2; wr++) {
			isl_set *u = NULL;
			for (int r = 0; r < m->nrefs; r++) {
				if (m->refs[r].tensor != t || m->refs[r].write != wr)
					continue;
				isl_set *img = isl_map_range(isl_map_copy(m->refs[r].access));
				u = u ? isl_set_union(u, img) : img;
			}
			if (!u)
				continue;
			isl_val *num = NULL;
			char *f = formula(p, u, &num);
			snprintf(what, sizeof what, "%s elements of %s", wr ? "written" : "read",
				 p->tensors[t].name);
			emit(out, arr, what, f, num);
			free(f);
			isl_val_free(num);
			isl_set_free(u);
		}
	}
	if (root) {
		char *s = cJSON_Print(root);
		fprintf(out, "%s\n", s);
		free(s);
		cJSON_Delete(root);
	}
	solar_model_free(m);
	isl_ctx_free(ctx);
	return 0;
}
