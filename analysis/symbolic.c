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

/* pw as text with the user's param names; takes pw. */
static char *named_str(const solar_program *p, isl_pw_qpolynomial *pw)
{
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
	return named_str(p, pw);
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

/* ---- program totals: ops per datapath and bytes, as formulas ---------------------------
 *
 * A total is a sum of counts the report already has as formulas: a statement's instances
 * times its ops per instance, and per tensor its footprints times the element size.  The
 * counting rules that charge less than once per instance (docs/bounds.md: "identity combine",
 * hoisting) are matched per statement and datapath against the exact numeric count: the
 * formula is the first of n * D, n * D + D (a combine per instance) and n * D + D - W (the
 * instances fed by an identity, one per written element, combine nothing) that equals it at
 * the current params, where D is the statement's domain and W its written elements.  A
 * statement none of them matches (hoisted work per distinct key, a partial identity) leaves
 * that datapath's total without a formula, and every total is checked as a whole against the
 * numeric one before it is printed. */

/* a + b, either NULL (zero); takes both. */
static isl_pw_qpolynomial *add(isl_pw_qpolynomial *a, isl_pw_qpolynomial *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return isl_pw_qpolynomial_add(a, b);
}

static isl_pw_qpolynomial *scale(isl_pw_qpolynomial *a, long k)
{
	return a ? isl_pw_qpolynomial_scale_val(a, isl_val_int_from_si(
							   isl_pw_qpolynomial_get_ctx(a), k))
		 : NULL;
}

/* True when pw (NULL: 0) equals v (NULL: 0) at the current params. */
static bool equals_at_params(const solar_program *p, isl_pw_qpolynomial *pw, isl_val *v)
{
	bool vzero = !v || isl_val_is_zero(v);
	if (!pw)
		return vzero;
	isl_val *at = eval_at_params(p, pw);
	bool ok = at && (v ? isl_val_eq(at, v) == isl_bool_true : isl_val_is_zero(at));
	isl_val_free(at);
	return ok;
}

static isl_pw_qpolynomial *card(isl_set *set)
{
	const char *why = NULL;
	return solar_count_set_symbolic(set, &why);
}

/* One total: its formula if one matches the exact count, else the count with a note. */
static void emit_total(const solar_program *p, FILE *out, cJSON *arr, const char *what,
		       isl_pw_qpolynomial *f, bool closed, isl_val *numeric, isl_ctx *ctx)
{
	isl_val *zero = numeric ? NULL : isl_val_zero(ctx);
	char *text = NULL;
	if (closed && equals_at_params(p, f, numeric))
		text = f ? named_str(p, isl_pw_qpolynomial_copy(f)) : solar_xstrdup("0");
	emit(out, arr, what, text, numeric ? numeric : zero);
	free(text);
	isl_val_free(zero);
	isl_pw_qpolynomial_free(f);
}

static void report_totals(const solar_program *p, const solar_model *m, const solar_work *w,
			  FILE *out, cJSON *arr, isl_set *const *read_fp,
			  isl_set *const *write_fp)
{
	isl_pw_qpolynomial *ops[SOLAR_UNIT_COUNT][SOLAR_PREC_COUNT] = {{NULL}};
	bool closed[SOLAR_UNIT_COUNT][SOLAR_PREC_COUNT];
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			closed[u][q] = true;
	for (int i = 0; i < p->nstmts; i++) {
		const solar_stmt_work *sw = &w->stmt[i];
		isl_pw_qpolynomial *dom = NULL, *wr = NULL;
		for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
			for (int q = 0; q < SOLAR_PREC_COUNT; q++) {
				isl_val *n = sw->ops.v[u][q];
				int per = sw->mix.n[u][q];
				if ((!n || isl_val_is_zero(n)) && !per)
					continue;
				if (!closed[u][q])
					continue;
				if (!dom && !(dom = card(m->domain[i]))) {
					closed[u][q] = false;
					continue;
				}
				isl_pw_qpolynomial *c[3];
				c[0] = scale(isl_pw_qpolynomial_copy(dom), per);
				c[1] = add(isl_pw_qpolynomial_copy(c[0]), isl_pw_qpolynomial_copy(dom));
				if (!wr) {
					isl_set *img = isl_set_apply(
					    isl_set_copy(m->domain[i]),
					    isl_map_copy(m->refs[m->write_ref[i]].access));
					wr = card(img);
					isl_set_free(img);
				}
				c[2] = wr ? add(isl_pw_qpolynomial_copy(c[1]),
						scale(isl_pw_qpolynomial_copy(wr), -1))
					  : NULL;
				int pick = -1;
				for (int k = 0; k < 3 && pick < 0; k++)
					if (c[k] && equals_at_params(p, c[k], n))
						pick = k;
				if (pick < 0)
					closed[u][q] = false;
				else
					ops[u][q] = add(ops[u][q], isl_pw_qpolynomial_copy(c[pick]));
				for (int k = 0; k < 3; k++)
					isl_pw_qpolynomial_free(c[k]);
			}
		isl_pw_qpolynomial_free(dom);
		isl_pw_qpolynomial_free(wr);
	}
	char what[64];
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++) {
			isl_val *n = w->total.ops.v[u][q];
			if ((!n || isl_val_is_zero(n)) && !ops[u][q])
				continue;
			snprintf(what, sizeof what, "total ops %s.%s", solar_unit_name(u),
				 solar_prec_name(q));
			emit_total(p, out, arr, what, ops[u][q], closed[u][q], n, m->ctx);
		}
	/* bytes: footprints x element size, as the program run as one kernel */
	isl_pw_qpolynomial *b[4] = {NULL};
	bool bclosed[4] = {true, true, true, true};
	isl_val *bnum[4];
	for (int k = 0; k < 4; k++)
		bnum[k] = isl_val_zero(m->ctx);
	for (int t = 0; t < p->ntensors; t++) {
		solar_role role = p->tensors[t].role;
		/* rule "random tensors": the draws of a rand tensor move no bytes */
		long size = role == SOLAR_ROLE_RAND ? 0 : solar_dtype_bytes(p->tensors[t].dtype);
		isl_set *const fp[4] = {read_fp[t], write_fp[t],
					role == SOLAR_ROLE_IN || role == SOLAR_ROLE_INOUT ? read_fp[t]
											  : NULL,
					role == SOLAR_ROLE_OUT || role == SOLAR_ROLE_INOUT ? write_fp[t]
											   : NULL};
		for (int k = 0; k < 4; k++) {
			if (!fp[k] || !bclosed[k])
				continue;
			isl_pw_qpolynomial *c = card(fp[k]);
			if (!c)
				bclosed[k] = false;
			else
				b[k] = add(b[k], scale(c, size));
		}
	}
	for (int k = 0; k < w->total.ntensors; k++) {
		const solar_tensor_data *td = &w->total.tensor[k];
		long size = p->tensors[td->tensor].role == SOLAR_ROLE_RAND
				? 0
				: solar_dtype_bytes(p->tensors[td->tensor].dtype);
		isl_val *const v[4] = {td->read, td->written, td->load, td->store};
		for (int j = 0; j < 4; j++)
			if (v[j])
				bnum[j] = isl_val_add(bnum[j],
						      isl_val_mul_ui(isl_val_copy(v[j]),
								     (unsigned long)size));
	}
	static const char *const names[4] = {"total bytes read", "total bytes written",
					      "total DRAM bytes loaded", "total DRAM bytes stored"};
	for (int k = 0; k < 4; k++) {
		emit_total(p, out, arr, names[k], b[k], bclosed[k], bnum[k], m->ctx);
		isl_val_free(bnum[k]);
	}
}

int solar_symbolic_report(const solar_program *p, solar_math math, bool json, FILE *out,
			  solar_diag *d)
{
	isl_ctx *ctx = solar_isl_ctx_new();
	solar_model *m = solar_model_build(p, ctx, true, d);
	if (!m) {
		isl_ctx_free(ctx);
		return 1;
	}
	cJSON *root = json ? cJSON_CreateObject() : NULL;
	if (root) /* the output's version (docs/json.md) */
		cJSON_AddStringToObject(root, "schema", "solar.count/1");
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
	isl_set **fps = solar_xcalloc(2 * (size_t)(p->ntensors ? p->ntensors : 1), sizeof *fps);
	for (int t = 0; t < p->ntensors; t++) {
		for (int wr = 0; wr < 2; wr++) {
			isl_set *u = NULL;
			for (int r = 0; r < m->nrefs; r++) {
				if (m->refs[r].tensor != t || m->refs[r].write != wr || m->refs[r].data)
					continue; /* a data ref's proxy is not the tensor's (model.h) */
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
			fps[wr * p->ntensors + t] = u;
		}
	}
	/* the totals need the numeric counts of the same program, in the model's context */
	solar_work *w = solar_work_count(p, math, d);
	if (w) {
		report_totals(p, m, w, out, arr, fps, fps + p->ntensors);
		solar_work_free(w);
	}
	for (int k = 0; k < 2 * p->ntensors; k++)
		isl_set_free(fps[k]);
	free(fps);
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
