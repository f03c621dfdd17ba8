/* names.c - the spelling of dtypes, roles, functions and operators.
 *
 * One table per enum of ir.h, indexed by the enum value, so the text the parser accepts and
 * the text the printer writes cannot drift apart.  Lookups by name are linear: the tables are
 * short and the front end calls them once per name.
 */
#include <string.h>

#include "ir.h"

static const struct {
	const char *name;
	int bytes;
	bool is_float;
} dtypes[SOLAR_DT_COUNT] = {
    [SOLAR_DT_F64] = {"f64", 8, true},	     [SOLAR_DT_F32] = {"f32", 4, true},
    [SOLAR_DT_BF16] = {"bf16", 2, true},     [SOLAR_DT_F16] = {"f16", 2, true},
    [SOLAR_DT_F8E4M3] = {"f8e4m3", 1, true}, [SOLAR_DT_F8E5M2] = {"f8e5m2", 1, true},
    [SOLAR_DT_I64] = {"i64", 8, false},	     [SOLAR_DT_I32] = {"i32", 4, false},
    [SOLAR_DT_I8] = {"i8", 1, false},	     [SOLAR_DT_U8] = {"u8", 1, false},
    [SOLAR_DT_BOOL] = {"bool", 1, false},
};

static const char *const fns[SOLAR_FN_COUNT] = {
    [SOLAR_FN_EXP] = "exp",	    [SOLAR_FN_LOG] = "log",	  [SOLAR_FN_SQRT] = "sqrt",
    [SOLAR_FN_RSQRT] = "rsqrt",	    [SOLAR_FN_TANH] = "tanh",	  [SOLAR_FN_ERF] = "erf",
    [SOLAR_FN_SIGMOID] = "sigmoid", [SOLAR_FN_ABS] = "abs",	  [SOLAR_FN_MAX] = "max",
    [SOLAR_FN_MIN] = "min",	    [SOLAR_FN_POW] = "pow",	  [SOLAR_FN_SIN] = "sin",
    [SOLAR_FN_COS] = "cos",	    [SOLAR_FN_SELECT] = "select",
};

static const char *const binops[] = {
    [SOLAR_OP_ADD] = "+",	[SOLAR_OP_SUB] = "-", [SOLAR_OP_MUL] = "*", [SOLAR_OP_DIV] = "/",
    [SOLAR_OP_FLOORDIV] = "//", [SOLAR_OP_MOD] = "%", [SOLAR_OP_LT] = "<",  [SOLAR_OP_LE] = "<=",
    [SOLAR_OP_GT] = ">",	[SOLAR_OP_GE] = ">=", [SOLAR_OP_EQ] = "==", [SOLAR_OP_NE] = "!=",
    [SOLAR_OP_AND] = "and",	[SOLAR_OP_OR] = "or",
};

static const char *const assigns[] = {
    [SOLAR_ASSIGN] = "=",    [SOLAR_ADD_TO] = "+=",   [SOLAR_MUL_TO] = "*=",
    [SOLAR_MAX_TO] = "max=", [SOLAR_MIN_TO] = "min=",
};

static const char *const roles[] = {
    [SOLAR_ROLE_IN] = "in",   [SOLAR_ROLE_OUT] = "out",	  [SOLAR_ROLE_INOUT] = "inout",
    [SOLAR_ROLE_TMP] = "tmp", [SOLAR_ROLE_RAND] = "rand",
};

static const char *const dists[SOLAR_DIST_COUNT] = {
    [SOLAR_DIST_NONE] = "",
    [SOLAR_DIST_UNIFORM] = "uniform",
    [SOLAR_DIST_NORMAL] = "normal",
};

const char *solar_dtype_name(solar_dtype t)
{
	return (unsigned)t < SOLAR_DT_COUNT ? dtypes[t].name : "?";
}

int solar_dtype_bytes(solar_dtype t) { return (unsigned)t < SOLAR_DT_COUNT ? dtypes[t].bytes : 0; }

bool solar_dtype_is_float(solar_dtype t)
{
	return (unsigned)t < SOLAR_DT_COUNT && dtypes[t].is_float;
}

int solar_dtype_parse(const char *name)
{
	for (int i = 0; i < SOLAR_DT_COUNT; i++)
		if (!strcmp(name, dtypes[i].name))
			return i;
	return -1;
}

const char *solar_role_name(solar_role r)
{
	return (unsigned)r < sizeof roles / sizeof *roles ? roles[r] : "?";
}

const char *solar_dist_name(solar_dist d)
{
	return (unsigned)d < SOLAR_DIST_COUNT ? dists[d] : "?";
}

int solar_dist_parse(const char *name)
{
	for (int i = SOLAR_DIST_NONE + 1; i < SOLAR_DIST_COUNT; i++)
		if (!strcmp(name, dists[i]))
			return i;
	return -1;
}

const char *solar_fn_name(solar_fn f) { return (unsigned)f < SOLAR_FN_COUNT ? fns[f] : "?"; }

int solar_fn_parse(const char *name)
{
	for (int i = 0; i < SOLAR_FN_COUNT; i++)
		if (!strcmp(name, fns[i]))
			return i;
	return -1;
}

const char *solar_binop_text(solar_binop op)
{
	return (unsigned)op < sizeof binops / sizeof *binops ? binops[op] : "?";
}

const char *solar_assign_text(solar_assign_op op)
{
	return (unsigned)op < sizeof assigns / sizeof *assigns ? assigns[op] : "?";
}

int solar_fn_min_args(solar_fn f)
{
	switch (f) {
	case SOLAR_FN_MAX:
	case SOLAR_FN_MIN:
	case SOLAR_FN_POW:
		return 2;
	case SOLAR_FN_SELECT:
		return 3;
	default:
		return 1;
	}
}

int solar_fn_max_args(solar_fn f)
{
	return f == SOLAR_FN_MAX || f == SOLAR_FN_MIN ? -1 : solar_fn_min_args(f);
}

int64_t solar_tensor_elements(const solar_tensor *t)
{
	int64_t n = 1;
	for (int k = 0; k < t->rank; k++)
		n *= t->extent[k];
	return n;
}

int64_t solar_ir_eval_const(const solar_program *p, const solar_expr *e)
{
	switch (e->kind) {
	case SOLAR_E_INT:
		return e->ival;
	case SOLAR_E_CONST:
		return p->consts[e->sym].value;
	case SOLAR_E_PARAM:
		return p->params[e->sym].value;
	case SOLAR_E_NEG:
		return -solar_ir_eval_const(p, e->args[0]);
	case SOLAR_E_BIN: {
		int64_t a = solar_ir_eval_const(p, e->args[0]), b = solar_ir_eval_const(p, e->args[1]);
		switch (e->binop) {
		case SOLAR_OP_ADD:
			return a + b;
		case SOLAR_OP_SUB:
			return a - b;
		case SOLAR_OP_MUL:
			return a * b;
		case SOLAR_OP_FLOORDIV: /* floor division, as in Python */
			return b ? a / b - ((a % b != 0) && ((a < 0) != (b < 0))) : 0;
		case SOLAR_OP_MOD: /* the sign of the divisor */
			return b ? ((a % b) + b) % b : 0;
		default:
			return 0;
		}
	}
	case SOLAR_E_CALL: { /* min, max: a constant bound such as max(2, PAD) */
		if (e->fn != SOLAR_FN_MIN && e->fn != SOLAR_FN_MAX)
			return 0;
		int64_t v = solar_ir_eval_const(p, e->args[0]);
		for (int i = 1; i < e->nargs; i++) {
			int64_t a = solar_ir_eval_const(p, e->args[i]);
			if (e->fn == SOLAR_FN_MAX ? a > v : a < v)
				v = a;
		}
		return v;
	}
	default:
		return 0;
	}
}

uint32_t solar_text_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

const char *solar_math_name(solar_math m)
{
	static const char *const names[] = {"default", "strict", "tf32", "tf32x3"};
	return (unsigned)m < sizeof names / sizeof *names ? names[m] : "?";
}
