/* emit.c - AIR statements, loops and expressions as C (shared by the C and CUDA backends).
 *
 * The one idea: each statement computes in one real type, chosen by the tensor it stores to
 * (docs/validate.md, "Semantics"): `double` for f64, integer and bool tensors, `float` for
 * f32 and the narrower float types.  Within a statement every subexpression is either an
 * integer (int64: literals, iterators, params, integer tensors, and integer arithmetic on
 * them, wrapping instead of overflowing) or real (anything touching a float value, true
 * division or a function such as exp); an integer meets a real by conversion, as in C.  The
 * store rounds the result to the tensor's dtype (round to nearest even for the float types,
 * truncation toward zero and two's-complement wrapping for the integer types).
 *
 * Indices and loop bounds are affine and known to stay in bounds (analysis/check.c), so
 * they are plain int64 arithmetic; `//` and `%` there divide by positive constants.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "emit.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void solar_emit_line(solar_emit *e, const char *fmt, ...)
{
	for (int i = 0; i < e->indent; i++)
		fputc('\t', e->out);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(e->out, fmt, ap);
	va_end(ap);
	fputc('\n', e->out);
}

static void indent(solar_emit *e)
{
	for (int i = 0; i < e->indent; i++)
		fputc('\t', e->out);
}

const char *solar_emit_storage(solar_dtype t)
{
	switch (t) {
	case SOLAR_DT_F64:
		return "double";
	case SOLAR_DT_F32:
		return "float";
	case SOLAR_DT_BF16:
	case SOLAR_DT_F16:
		return "uint16_t";
	case SOLAR_DT_F8E4M3:
	case SOLAR_DT_F8E5M2:
	case SOLAR_DT_U8:
	case SOLAR_DT_BOOL:
		return "uint8_t";
	case SOLAR_DT_I64:
		return "int64_t";
	case SOLAR_DT_I32:
		return "int32_t";
	case SOLAR_DT_I8:
		return "int8_t";
	default:
		return "float";
	}
}

const char *solar_emit_poison(solar_dtype t)
{
	switch (t) {
	case SOLAR_DT_F64:
		return "((double)RT_NAN_F)";
	case SOLAR_DT_F32:
		return "RT_NAN_F";
	case SOLAR_DT_BF16:
		return "((uint16_t)0x7fc0u)";
	case SOLAR_DT_F16:
		return "((uint16_t)0x7e00u)";
	case SOLAR_DT_F8E4M3:
	case SOLAR_DT_F8E5M2:
		return "((uint8_t)0x7fu)";
	case SOLAR_DT_I64:
		return "((int64_t)0x8000000000000000ULL)";
	case SOLAR_DT_I32:
		return "((int32_t)(-2147483647 - 1))";
	case SOLAR_DT_I8:
		return "((int8_t)-128)";
	case SOLAR_DT_U8:
		return "((uint8_t)0xffu)";
	case SOLAR_DT_BOOL:
		return "((uint8_t)0xa5u)";
	default:
		return "0";
	}
}

/* The narrow float formats: how to round a float into them and read them back. */
static const char *to_narrow(solar_dtype t)
{
	switch (t) {
	case SOLAR_DT_BF16:
		return "rt_f32_to_bf16";
	case SOLAR_DT_F16:
		return "rt_f32_to_f16";
	case SOLAR_DT_F8E4M3:
		return "rt_f32_to_e4m3";
	case SOLAR_DT_F8E5M2:
		return "rt_f32_to_e5m2";
	default:
		return NULL;
	}
}

static const char *from_narrow(solar_dtype t)
{
	switch (t) {
	case SOLAR_DT_BF16:
		return "rt_bf16_to_f32";
	case SOLAR_DT_F16:
		return "rt_f16_to_f32";
	case SOLAR_DT_F8E4M3:
		return "rt_e4m3_to_f32";
	case SOLAR_DT_F8E5M2:
		return "rt_e5m2_to_f32";
	default:
		return NULL;
	}
}

/* The C cast that wraps an int64 to an integer dtype. */
static const char *int_cast(solar_dtype t)
{
	switch (t) {
	case SOLAR_DT_I32:
		return "int32_t";
	case SOLAR_DT_I8:
		return "int8_t";
	case SOLAR_DT_U8:
		return "uint8_t";
	default:
		return "int64_t";
	}
}

void solar_emit_from_value(FILE *out, solar_dtype t, bool src_float, const char *src)
{
	if (t == SOLAR_DT_BOOL) {
		fprintf(out, "((uint8_t)((%s) != 0))", src);
		return;
	}
	if (!solar_dtype_is_float(t)) {
		if (src_float)
			fprintf(out, "((%s)rt_f2i(%s))", int_cast(t), src);
		else
			fprintf(out, "((%s)(%s))", int_cast(t), src);
		return;
	}
	if (t == SOLAR_DT_F64)
		fprintf(out, "((double)(%s))", src);
	else if (t == SOLAR_DT_F32)
		fprintf(out, "((float)(%s))", src);
	else
		fprintf(out, "%s((float)(%s))", to_narrow(t), src);
}

void solar_emit_to_output(FILE *out, solar_dtype t, const char *src)
{
	if (from_narrow(t) && t != SOLAR_DT_F16)
		fprintf(out, "%s(%s)", from_narrow(t), src);
	else if (t == SOLAR_DT_BOOL)
		fprintf(out, "((uint8_t)((%s) != 0))", src);
	else
		fputs(src, out);
}

/* ---- affine expressions and conditions ---- */

static int64_t const_value(const solar_program *p, const solar_expr *x, bool *ok)
{
	switch (x->kind) {
	case SOLAR_E_INT:
		return x->ival;
	case SOLAR_E_PARAM:
		return p->params[x->sym].value;
	case SOLAR_E_CONST:
		return p->consts[x->sym].value;
	default:
		*ok = false;
		return 0;
	}
}

static void int_literal(FILE *out, int64_t v)
{
	if (v == INT64_MIN)
		fputs("(-9223372036854775807LL - 1)", out);
	else if (v < 0)
		fprintf(out, "(%" PRId64 "LL)", v);
	else
		fprintf(out, "%" PRId64 "LL", v);
}

bool solar_emit_uses_iter(const solar_expr *x)
{
	if (x->kind == SOLAR_E_ITER)
		return true;
	for (int i = 0; i < x->nargs; i++)
		if (solar_emit_uses_iter(x->args[i]))
			return true;
	return false;
}

static void access(solar_emit *e, const solar_expr *x, bool real);

void solar_emit_affine(solar_emit *e, const solar_expr *x)
{
	FILE *out = e->out;
	bool ok = true;
	switch (x->kind) {
	case SOLAR_E_INT:
	case SOLAR_E_PARAM:
	case SOLAR_E_CONST:
		int_literal(out, const_value(e->p, x, &ok));
		return;
	case SOLAR_E_ITER:
		fprintf(out, "i_%s", e->p->iters[x->sym].name);
		return;
	case SOLAR_E_NEG:
		fputs("(-", out);
		solar_emit_affine(e, x->args[0]);
		fputs(")", out);
		return;
	case SOLAR_E_BIN:
		if (x->binop == SOLAR_OP_FLOORDIV || x->binop == SOLAR_OP_MOD) {
			fputs(x->binop == SOLAR_OP_FLOORDIV ? "rt_xdiv(" : "rt_xmod(", out);
			solar_emit_affine(e, x->args[0]);
			fputs(", ", out);
			solar_emit_affine(e, x->args[1]);
			fputs(")", out);
			return;
		}
		fputs("(", out);
		solar_emit_affine(e, x->args[0]);
		fprintf(out, " %s ", x->binop == SOLAR_OP_ADD   ? "+"
				     : x->binop == SOLAR_OP_SUB ? "-"
								: "*");
		solar_emit_affine(e, x->args[1]);
		fputs(")", out);
		return;
	case SOLAR_E_CALL: /* min or max */
		for (int i = 1; i < x->nargs; i++)
			fputs(x->fn == SOLAR_FN_MIN ? "rt_imin(" : "rt_imax(", out);
		solar_emit_affine(e, x->args[0]);
		for (int i = 1; i < x->nargs; i++) {
			fputs(", ", out);
			solar_emit_affine(e, x->args[i]);
			fputs(")", out);
		}
		return;
	case SOLAR_E_ACCESS: /* a read of an index tensor (AIR 1.1): its range is checked on the
			      * inputs (ranges.c) and proved for computed ones (analysis/check.c) */
		access(e, x, false);
		return;
	default:
		fputs("0", out);
		return;
	}
}

static const char *cmp_text(solar_binop op)
{
	switch (op) {
	case SOLAR_OP_LT:
		return "<";
	case SOLAR_OP_LE:
		return "<=";
	case SOLAR_OP_GT:
		return ">";
	case SOLAR_OP_GE:
		return ">=";
	case SOLAR_OP_EQ:
		return "==";
	case SOLAR_OP_NE:
		return "!=";
	default:
		return NULL;
	}
}

void solar_emit_cond(solar_emit *e, const solar_expr *x)
{
	FILE *out = e->out;
	if (x->kind == SOLAR_E_NOT) {
		fputs("!", out);
		solar_emit_cond(e, x->args[0]);
		return;
	}
	if (x->kind == SOLAR_E_BIN && (x->binop == SOLAR_OP_AND || x->binop == SOLAR_OP_OR)) {
		fputs("(", out);
		solar_emit_cond(e, x->args[0]);
		fputs(x->binop == SOLAR_OP_AND ? " && " : " || ", out);
		solar_emit_cond(e, x->args[1]);
		fputs(")", out);
		return;
	}
	if (x->kind == SOLAR_E_BIN && cmp_text(x->binop)) {
		fputs("(", out);
		solar_emit_affine(e, x->args[0]);
		fprintf(out, " %s ", cmp_text(x->binop));
		solar_emit_affine(e, x->args[1]);
		fputs(")", out);
		return;
	}
	fputs("(", out);
	solar_emit_affine(e, x);
	fputs(" != 0)", out);
}

/* ---- values ---- */

/* Whether a value expression is real (see the top of the file) rather than an integer. */
static bool is_real(const solar_program *p, const solar_expr *x)
{
	switch (x->kind) {
	case SOLAR_E_FLOAT:
	case SOLAR_E_INF:
		return true;
	case SOLAR_E_ACCESS:
		return solar_dtype_is_float(p->tensors[x->sym].dtype);
	case SOLAR_E_NEG:
		return is_real(p, x->args[0]);
	case SOLAR_E_BIN:
		switch (x->binop) {
		case SOLAR_OP_DIV:
			return true;
		case SOLAR_OP_ADD:
		case SOLAR_OP_SUB:
		case SOLAR_OP_MUL:
		case SOLAR_OP_FLOORDIV:
		case SOLAR_OP_MOD:
			return is_real(p, x->args[0]) || is_real(p, x->args[1]);
		default:
			return false; /* comparisons, and, or: 0 or 1 */
		}
	case SOLAR_E_CALL:
		switch (x->fn) {
		case SOLAR_FN_ABS:
			return is_real(p, x->args[0]);
		case SOLAR_FN_MAX:
		case SOLAR_FN_MIN:
			for (int i = 0; i < x->nargs; i++)
				if (is_real(p, x->args[i]))
					return true;
			return false;
		case SOLAR_FN_SELECT:
			return is_real(p, x->args[1]) || is_real(p, x->args[2]);
		default:
			return true;
		}
	case SOLAR_E_CAST:
		return solar_dtype_is_float(x->dtype);
	default:
		return false; /* literals, params, consts, iterators, not */
	}
}

static void value(solar_emit *e, const solar_expr *x, bool real);

/* Index offset of a tensor element: row-major over the extents. */
static void offset(solar_emit *e, int tensor, solar_expr *const *index)
{
	const solar_tensor *t = &e->p->tensors[tensor];
	if (t->rank == 0) {
		fputs("0", e->out);
		return;
	}
	for (int k = 1; k < t->rank; k++)
		fputs("(", e->out);
	solar_emit_affine(e, index[0]);
	for (int k = 1; k < t->rank; k++) {
		fprintf(e->out, " * %" PRId64 "LL + ", t->extent[k]);
		solar_emit_affine(e, index[k]);
		fputs(")", e->out);
	}
}

/* An element read, as the statement's real type (float tensors) or int64. */
static void load(solar_emit *e, solar_dtype dt, const char *tname, const char *at_open,
		 bool real)
{
	FILE *out = e->out;
	bool dbl = !strcmp(e->real, "double");
	if (!solar_dtype_is_float(dt) || !real) {
		fprintf(out, "((int64_t)t_%s[%s])", tname, at_open);
		return;
	}
	if (dt == SOLAR_DT_F64)
		fprintf(out, dbl ? "t_%s[%s]" : "((float)t_%s[%s])", tname, at_open);
	else if (dt == SOLAR_DT_F32)
		fprintf(out, dbl ? "((double)t_%s[%s])" : "t_%s[%s]", tname, at_open);
	else
		fprintf(out, dbl ? "((double)%s(t_%s[%s]))" : "%s(t_%s[%s])", from_narrow(dt), tname,
			at_open);
}

static void access(solar_emit *e, const solar_expr *x, bool real)
{
	const solar_tensor *t = &e->p->tensors[x->sym];
	char *at = NULL;
	size_t n = 0;
	FILE *saved = e->out;
	e->out = open_memstream(&at, &n);
	offset(e, x->sym, x->args);
	fclose(e->out);
	e->out = saved;
	load(e, t->dtype, t->name, at, real);
	free(at);
}

static const char *fn_name(solar_fn f)
{
	switch (f) {
	case SOLAR_FN_EXP:
		return "exp";
	case SOLAR_FN_LOG:
		return "log";
	case SOLAR_FN_SQRT:
		return "sqrt";
	case SOLAR_FN_RSQRT:
		return "rt_rsqrt";
	case SOLAR_FN_TANH:
		return "tanh";
	case SOLAR_FN_ERF:
		return "erf";
	case SOLAR_FN_SIGMOID:
		return "rt_sigmoid";
	case SOLAR_FN_ABS:
		return "fabs";
	case SOLAR_FN_POW:
		return "pow";
	case SOLAR_FN_SIN:
		return "sin";
	case SOLAR_FN_COS:
		return "cos";
	default:
		return NULL;
	}
}

static void binary(solar_emit *e, const solar_expr *x, bool real)
{
	FILE *out = e->out;
	const solar_expr *a = x->args[0], *b = x->args[1];
	const char *cmp = cmp_text(x->binop);
	if (cmp) { /* compared in the common type */
		bool r = is_real(e->p, a) || is_real(e->p, b);
		fputs("((int64_t)(", out);
		value(e, a, r);
		fprintf(out, " %s ", cmp);
		value(e, b, r);
		fputs("))", out);
		return;
	}
	if (x->binop == SOLAR_OP_AND || x->binop == SOLAR_OP_OR) {
		fputs("((int64_t)((", out);
		value(e, a, is_real(e->p, a));
		fputs(x->binop == SOLAR_OP_AND ? ") != 0 && (" : ") != 0 || (", out);
		value(e, b, is_real(e->p, b));
		fputs(") != 0))", out);
		return;
	}
	const char *call = NULL, *op = NULL;
	if (real) {
		switch (x->binop) {
		case SOLAR_OP_ADD:
			op = "+";
			break;
		case SOLAR_OP_SUB:
			op = "-";
			break;
		case SOLAR_OP_MUL:
			op = "*";
			break;
		case SOLAR_OP_DIV:
			op = "/";
			break;
		case SOLAR_OP_FLOORDIV:
			call = "rt_pyfloordiv";
			break;
		default:
			call = "rt_pymod";
			break;
		}
	} else {
		switch (x->binop) {
		case SOLAR_OP_ADD:
			call = "rt_iadd";
			break;
		case SOLAR_OP_SUB:
			call = "rt_isub";
			break;
		case SOLAR_OP_MUL:
			call = "rt_imul";
			break;
		case SOLAR_OP_FLOORDIV:
			call = "rt_ifloordiv";
			break;
		default:
			call = "rt_imod";
			break;
		}
	}
	if (op) {
		fputs("(", out);
		value(e, a, true);
		fprintf(out, " %s ", op);
		value(e, b, true);
		fputs(")", out);
	} else {
		fprintf(out, "%s%s(", call, real ? e->fsuf : "");
		value(e, a, real);
		fputs(", ", out);
		value(e, b, real);
		fputs(")", out);
	}
}

static void call(solar_emit *e, const solar_expr *x, bool real)
{
	FILE *out = e->out;
	switch (x->fn) {
	case SOLAR_FN_MAX:
	case SOLAR_FN_MIN: {
		const char *f = x->fn == SOLAR_FN_MAX ? (real ? "rt_fmax" : "rt_imax")
						       : (real ? "rt_fmin" : "rt_imin");
		for (int i = 1; i < x->nargs; i++)
			fprintf(out, "%s%s(", f, real ? e->fsuf : "");
		value(e, x->args[0], real);
		for (int i = 1; i < x->nargs; i++) {
			fputs(", ", out);
			value(e, x->args[i], real);
			fputs(")", out);
		}
		return;
	}
	case SOLAR_FN_SELECT:
		fputs("((", out);
		value(e, x->args[0], is_real(e->p, x->args[0]));
		fputs(") != 0 ? ", out);
		value(e, x->args[1], real);
		fputs(" : ", out);
		value(e, x->args[2], real);
		fputs(")", out);
		return;
	case SOLAR_FN_ABS:
		if (!real) {
			fputs("rt_iabs(", out);
			value(e, x->args[0], false);
			fputs(")", out);
			return;
		}
		break;
	default:
		break;
	}
	fprintf(out, "%s%s(", fn_name(x->fn), e->fsuf);
	for (int i = 0; i < x->nargs; i++) {
		if (i)
			fputs(", ", out);
		value(e, x->args[i], true);
	}
	fputs(")", out);
}

/* T(x): the value rounded to dtype T (float types: through f32 as PyTorch does for f64 to a
 * narrow type), or truncated and wrapped (integer types). */
static void cast(solar_emit *e, const solar_expr *x)
{
	FILE *out = e->out;
	solar_dtype t = x->dtype;
	const solar_expr *a = x->args[0];
	bool dbl = !strcmp(e->real, "double");
	if (solar_dtype_is_float(t)) {
		if (t == SOLAR_DT_F64 || (t == SOLAR_DT_F32 && !dbl)) {
			value(e, a, true); /* no narrower than the real type itself */
			return;
		}
		if (t == SOLAR_DT_F32) {
			fputs("((double)(float)", out);
			value(e, a, true);
			fputs(")", out);
			return;
		}
		fprintf(out, "%s%s(%s((float)", dbl ? "(double)" : "", from_narrow(t), to_narrow(t));
		value(e, a, true);
		fputs("))", out);
		return;
	}
	bool r = is_real(e->p, a);
	if (t == SOLAR_DT_BOOL) {
		fputs("((int64_t)((", out);
		value(e, a, r);
		fputs(") != 0))", out);
		return;
	}
	fprintf(out, "((int64_t)(%s)%s(", int_cast(t), r ? "rt_f2i" : "");
	value(e, a, r);
	fputs("))", out);
}

/* Emits x as the statement's real type (real) or as int64, converting where x is the other. */
static void value(solar_emit *e, const solar_expr *x, bool real)
{
	FILE *out = e->out;
	bool own = is_real(e->p, x);
	if (own != real) {
		if (real) {
			fprintf(out, "((%s)", e->real);
			value(e, x, false);
			fputs(")", out);
		} else {
			fputs("rt_f2i(", out);
			value(e, x, true);
			fputs(")", out);
		}
		return;
	}
	bool ok = true;
	switch (x->kind) {
	case SOLAR_E_INT:
	case SOLAR_E_PARAM:
	case SOLAR_E_CONST:
		int_literal(out, const_value(e->p, x, &ok));
		return;
	case SOLAR_E_ITER:
		fprintf(out, "i_%s", e->p->iters[x->sym].name);
		return;
	case SOLAR_E_FLOAT:
		fprintf(out, "((%s)%a)", e->real, x->fval);
		return;
	case SOLAR_E_INF:
		fprintf(out, "((%s)RT_INF_F)", e->real);
		return;
	case SOLAR_E_ACCESS:
		access(e, x, real);
		return;
	case SOLAR_E_NEG:
		fputs(real ? "(-" : "rt_ineg(", out);
		value(e, x->args[0], real);
		fputs(")", out);
		return;
	case SOLAR_E_NOT:
		fputs("((int64_t)((", out);
		value(e, x->args[0], is_real(e->p, x->args[0]));
		fputs(") == 0))", out);
		return;
	case SOLAR_E_BIN:
		binary(e, x, real);
		return;
	case SOLAR_E_CALL:
		call(e, x, real);
		return;
	case SOLAR_E_CAST:
		cast(e, x);
		return;
	}
}

/* ---- statements and nodes ---- */

static void stmt(solar_emit *e, const solar_stmt *s)
{
	const solar_program *p = e->p;
	const solar_tensor *t = &p->tensors[s->tensor];
	bool float_target = solar_dtype_is_float(t->dtype);
	e->real = float_target && t->dtype != SOLAR_DT_F64 ? "float" : "double";
	e->fsuf = !strcmp(e->real, "float") ? "f" : "";
	bool real = float_target || is_real(p, s->value);
	char *text = solar_ir_stmt_text(p, s, true);
	solar_emit_line(e, "{ /* S%d: %s */", s->id, text);
	free(text);
	e->indent++;
	indent(e);
	fputs("const int64_t o_ = ", e->out);
	offset(e, s->tensor, s->index);
	fputs(";\n", e->out);
	indent(e);
	fprintf(e->out, "const %s v_ = ", real ? e->real : "int64_t");
	value(e, s->value, real);
	fputs(";\n", e->out);

	/* The combined value r_, in the same type as v_. */
	char *cur = NULL;
	size_t n = 0;
	FILE *saved = e->out;
	e->out = open_memstream(&cur, &n);
	load(e, t->dtype, t->name, "o_", real);
	fclose(e->out);
	e->out = saved;
	const char *sfx = real ? e->fsuf : "";
	indent(e);
	fprintf(e->out, "const %s r_ = ", real ? e->real : "int64_t");
	switch (s->op) {
	case SOLAR_ASSIGN:
		fputs("v_", e->out);
		break;
	case SOLAR_ADD_TO:
		fprintf(e->out, real ? "%s + v_" : "rt_iadd(%s, v_)", cur);
		break;
	case SOLAR_MUL_TO:
		fprintf(e->out, real ? "%s * v_" : "rt_imul(%s, v_)", cur);
		break;
	case SOLAR_MAX_TO:
		fprintf(e->out, "rt_%smax%s(%s, v_)", real ? "f" : "i", sfx, cur);
		break;
	case SOLAR_MIN_TO:
		fprintf(e->out, "rt_%smin%s(%s, v_)", real ? "f" : "i", sfx, cur);
		break;
	}
	fputs(";\n", e->out);
	free(cur);
	indent(e);
	fprintf(e->out, "t_%s[o_] = ", t->name);
	solar_emit_from_value(e->out, t->dtype, real, "r_");
	fputs(";\n", e->out);
	e->indent--;
	solar_emit_line(e, "}");
}

void solar_emit_node(solar_emit *e, const solar_node *n)
{
	FILE *out = e->out;
	switch (n->kind) {
	case SOLAR_N_STMT:
		stmt(e, n->stmt);
		return;
	case SOLAR_N_FOR: {
		const char *it = e->p->iters[n->loop.iter].name;
		indent(e);
		fprintf(out, "for (int64_t i_%s = ", it);
		solar_emit_affine(e, n->loop.lo);
		fprintf(out, "; i_%s < ", it);
		solar_emit_affine(e, n->loop.hi);
		if (n->loop.step_value > 1)
			fprintf(out, "; i_%s += %" PRId64 "LL) {\n", it, n->loop.step_value);
		else
			fprintf(out, "; i_%s++) {\n", it);
		e->indent++;
		solar_emit_block(e, &n->loop.body);
		e->indent--;
		solar_emit_line(e, "}");
		return;
	}
	case SOLAR_N_IF:
		indent(e);
		fputs("if (", out);
		solar_emit_cond(e, n->cond.cond);
		fputs(") {\n", out);
		e->indent++;
		solar_emit_block(e, &n->cond.then);
		e->indent--;
		if (n->cond.els.n) {
			solar_emit_line(e, "} else {");
			e->indent++;
			solar_emit_block(e, &n->cond.els);
			e->indent--;
		}
		solar_emit_line(e, "}");
		return;
	}
}

void solar_emit_block(solar_emit *e, const solar_block *b)
{
	for (int i = 0; i < b->n; i++)
		solar_emit_node(e, b->items[i]);
}
