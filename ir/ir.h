/* ir.h - the AIR program as solar's passes see it.
 *
 * A program is a list of declarations (params, consts, tensors) and a list of kernels; a
 * kernel is a tree of loop, conditional and statement nodes.  Every name is resolved: an
 * expression refers to a param, const, iterator or tensor by index into the program's tables.
 * Everything lives in the program's arena and is freed with solar_program_free.
 *
 * Multi-iterator headers (`for i in 0..N, j in 0..M {`) are nested FOR nodes; the inner one
 * has `joined` set so that the printer writes the header back as it was.  Expressions keep
 * the names the user wrote (a const is printed by name, its value is in the const table), so
 * `solar fmt` output parses back to the same IR.
 */
#ifndef SOLAR_IR_H
#define SOLAR_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../diag/diag.h" /* solar_span */
#include "arena.h"

typedef enum {
	SOLAR_DT_F64,
	SOLAR_DT_F32,
	SOLAR_DT_BF16,
	SOLAR_DT_F16,
	SOLAR_DT_F8E4M3,
	SOLAR_DT_F8E5M2,
	SOLAR_DT_I64,
	SOLAR_DT_I32,
	SOLAR_DT_I8,
	SOLAR_DT_U8,
	SOLAR_DT_BOOL,
	SOLAR_DT_COUNT
} solar_dtype;

/* RAND: the values of a random generator (docs/air.md, "Random tensors"): read only, drawn on
 * the chip, never loaded from memory; `dist` says which distribution its elements follow. */
typedef enum {
	SOLAR_ROLE_IN,
	SOLAR_ROLE_OUT,
	SOLAR_ROLE_INOUT,
	SOLAR_ROLE_TMP,
	SOLAR_ROLE_RAND
} solar_role;

/* The distribution of a `rand` tensor's elements (NONE for every other role). */
typedef enum {
	SOLAR_DIST_NONE,
	SOLAR_DIST_UNIFORM,
	SOLAR_DIST_NORMAL,
	SOLAR_DIST_COUNT
} solar_dist;

typedef enum {
	SOLAR_E_INT,    /* ival */
	SOLAR_E_FLOAT,  /* fval; `name` holds the literal's text for printing */
	SOLAR_E_INF,    /* +infinity (`-inf` is NEG of INF) */
	SOLAR_E_PARAM,  /* sym: index into params */
	SOLAR_E_CONST,  /* sym: index into consts */
	SOLAR_E_ITER,   /* sym: index into iters */
	SOLAR_E_ACCESS, /* tensor read: sym = tensor index, args = indices (nargs = rank) */
	SOLAR_E_NEG,    /* args[0] */
	SOLAR_E_NOT,    /* args[0]; conditions only */
	SOLAR_E_BIN,    /* binop, args[0], args[1] */
	SOLAR_E_CALL,   /* fn, args */
	SOLAR_E_CAST    /* dtype, args[0] */
} solar_expr_kind;

typedef enum {
	SOLAR_OP_ADD,
	SOLAR_OP_SUB,
	SOLAR_OP_MUL,
	SOLAR_OP_DIV,      /* `/`: true division, values only */
	SOLAR_OP_FLOORDIV, /* `//`: floor division by a positive constant in indices */
	SOLAR_OP_MOD,      /* `%`: remainder with the sign of the divisor */
	SOLAR_OP_LT,
	SOLAR_OP_LE,
	SOLAR_OP_GT,
	SOLAR_OP_GE,
	SOLAR_OP_EQ,
	SOLAR_OP_NE,
	SOLAR_OP_AND,
	SOLAR_OP_OR
} solar_binop;

typedef enum {
	SOLAR_FN_EXP,
	SOLAR_FN_LOG,
	SOLAR_FN_SQRT,
	SOLAR_FN_RSQRT,
	SOLAR_FN_TANH,
	SOLAR_FN_ERF,
	SOLAR_FN_SIGMOID,
	SOLAR_FN_ABS,
	SOLAR_FN_MAX,    /* 2+ args; also allowed in affine bounds and indices */
	SOLAR_FN_MIN,    /* 2+ args; also allowed in affine bounds and indices */
	SOLAR_FN_POW,
	SOLAR_FN_SIN,
	SOLAR_FN_COS,
	SOLAR_FN_SELECT, /* select(cond, a, b) */
	SOLAR_FN_COUNT
} solar_fn;

typedef struct solar_expr solar_expr;
struct solar_expr {
	solar_expr_kind kind;
	solar_span span;
	union {
		int64_t ival;
		double fval;
		int sym;
		solar_binop binop;
		solar_fn fn;
		solar_dtype dtype;
	};
	const char *name; /* FLOAT: literal text; otherwise the name as written, or NULL */
	solar_expr **args;
	int nargs;
};

typedef enum {
	SOLAR_ASSIGN,  /* = */
	SOLAR_ADD_TO,  /* += */
	SOLAR_MUL_TO,  /* *= */
	SOLAR_MAX_TO,  /* max= */
	SOLAR_MIN_TO   /* min= */
} solar_assign_op;

typedef struct {
	int id;          /* position in program order, 0-based, = index into program->stmts */
	int kernel;      /* index of the kernel that holds it */
	solar_span span;
	int tensor;      /* written tensor */
	solar_expr **index; /* rank entries (0 for a scalar tensor) */
	solar_assign_op op;
	solar_expr *value;
	int depth;       /* number of enclosing FOR nodes */
	int *loops;      /* iterator ids of the enclosing loops, outermost first (depth entries) */
} solar_stmt;

typedef enum { SOLAR_N_FOR, SOLAR_N_IF, SOLAR_N_STMT } solar_node_kind;

typedef struct solar_node solar_node;
typedef struct {
	solar_node **items;
	int n;
} solar_block;

struct solar_node {
	solar_node_kind kind;
	solar_span span;
	union {
		struct {
			int iter;          /* iterator id */
			solar_expr *lo;    /* inclusive */
			solar_expr *hi;    /* exclusive */
			solar_expr *step;  /* NULL for 1; a positive constant expression */
			int64_t step_value;
			bool joined;       /* written in the same header as its parent FOR */
			solar_block body;
		} loop;
		struct {
			solar_expr *cond;
			solar_block then, els; /* els.n == 0 when absent */
		} cond;
		solar_stmt *stmt;
	};
};

/* The math mode of a kernel's f32 contractions (docs/bounds.md, "Contraction"): strict f32,
 * one-pass TF32, or three TF32 passes (f32-grade accuracy: CUTLASS's OpMultiplyAddFastF32, which
 * PyTorch's memory-efficient attention runs f32 in on sm80+). */
typedef enum {
	SOLAR_MATH_DEFAULT,
	SOLAR_MATH_STRICT,
	SOLAR_MATH_TF32,
	SOLAR_MATH_TF32X3
} solar_math;

/* "strict", "tf32", "tf32x3" ("default" for SOLAR_MATH_DEFAULT). */
const char *solar_math_name(solar_math m);

/* AIR 1.2 (docs/air.md, "Many GPUs"): a collective over one axis of the mesh.  Its kernel holds
 * nothing else; sema gives the kernel a body of one copy statement whose store covers every
 * element the collective writes (OUT, or T in place) and whose read covers every element it
 * reads (IN, or T), so that counting, dataflow and memory see its traffic as they see any
 * kernel's.  Only its own rule (roofline/step.c) gives its time. */
typedef enum {
	SOLAR_XOP_ALL_REDUCE,
	SOLAR_XOP_ALL_GATHER,
	SOLAR_XOP_REDUCE_SCATTER,
	SOLAR_XOP_ALL_TO_ALL,
	SOLAR_XOP_BROADCAST,
	SOLAR_XOP_SEND, /* `send(A) OUT <- IN;`: IN of stage s to OUT of stage t of the same rank's peers */
	SOLAR_XOP_COUNT
} solar_xop;

typedef enum { SOLAR_XRED_NONE, SOLAR_XRED_SUM, SOLAR_XRED_MAX } solar_xred;

typedef struct {
	solar_xop op;
	int axis;	 /* index into the program's mesh */
	solar_xred red;	 /* all_reduce, reduce_scatter: sum or max; NONE otherwise */
	int dim;	 /* all_gather, reduce_scatter, all_to_all: the dimension; -1 otherwise */
	int64_t root;	 /* broadcast: the root's coordinate on the axis; -1 otherwise */
	int out, in;	 /* tensors; in == out for the in-place all_reduce and broadcast */
	solar_span span; /* the whole statement */
} solar_collective;

/* "all_reduce", ...; -1 when `name` is no collective. */
const char *solar_xop_name(solar_xop op);
int solar_xop_parse(const char *name);

/* One named axis of the mesh (`mesh dp = 8, tp = 8;`): the ranks are the product of the
 * sizes, numbered with the last axis fastest. */
typedef struct {
	const char *name;
	solar_span span;
	solar_expr *size; /* as written: params, consts, literals */
	int64_t value;
} solar_mesh_axis;

typedef struct {
	const char *name;
	solar_span span;
	bool implicit;   /* made from a bare top-level nest, not a `kernel` block */
	const solar_collective *coll; /* AIR 1.2: the kernel is this collective; NULL otherwise */
	solar_math math; /* DEFAULT: the CLI's --math decides */
	/* AIR 1.2 pipelines: the stage (coordinate on the program's pipeline axis) whose ranks run
	 * the kernel, -1 when every rank runs it; a send's is its sender's stage */
	int stage;
	const char *group; /* [group = NAME] (arena), NULL when not given */
	solar_block body;
	int first_stmt, nstmts; /* its statements are stmts[first_stmt .. first_stmt+nstmts) */
} solar_kernel;

typedef struct {
	const char *name;
	solar_span span;
	bool has_default;
	int64_t value;   /* the default, or the -D override; valid after loading */
	bool overridden; /* set by -D */
	int64_t default_value; /* the default as declared (when has_default), whatever -D says */
	int axis; /* AIR 1.2 `rank(A)`: the mesh axis whose coordinate this is (docs/air.md, "Many
		     GPUs"), not declared by `param` and never printed as one; -1 for a declared
		     param.  Its value is the rank class being analysed (0 until one is set). */
} solar_param;

typedef struct {
	const char *name;
	solar_span span;
	solar_expr *expr;
	int64_t value;
} solar_const;

typedef struct {
	const char *name;
	solar_span span;
	solar_role role;
	solar_dtype dtype;
	solar_dist dist; /* rand tensors: the distribution; NONE otherwise */
	int rank;
	solar_expr **dims;   /* rank extents, expressions of params and consts */
	int64_t *extent;     /* rank extents evaluated with the current param values */
	solar_span decl_span; /* the whole declaration statement (for printing groups) */
	int decl_group;      /* tensors declared in one statement share a group number */
	/* AIR 1.1 (docs/air.md, "Indexing with data"): an integer tensor declared with a value
	 * range, `in ids[T]: i64 in LO..HI`, whose elements may appear inside indices; every
	 * element lies in [range[0], range[1]).  range_lo/range_hi are the expressions as
	 * written (params, consts, literals), NULL when the tensor has no range. */
	solar_expr *range_lo, *range_hi;
	int64_t range[2];
	/* AIR 1.2 (docs/air.md, "Many GPUs"): how the rank's tensor sits in the whole one, one
	 * clause per mesh axis it names (`split(tp, 1)`, `partial(dp)`); replicated over the
	 * others.  NULL / 0 without a clause. */
	struct solar_layout *layout;
	int nlayout;
} solar_tensor;

/* split(A, d): the whole tensor's dimension d is N_A times the rank's, and a rank holds block
 * coord_A(rank) of it; partial(A): the whole tensor is the sum of the ranks' over axis A. */
/* stage(A, s): only the ranks whose coordinate on A is s hold the tensor (a pipeline stage's). */
typedef enum { SOLAR_LAYOUT_SPLIT, SOLAR_LAYOUT_PARTIAL, SOLAR_LAYOUT_STAGE } solar_layout_kind;
typedef struct solar_layout {
	solar_layout_kind kind;
	int axis;
	int dim; /* SPLIT: the dimension; STAGE: the stage; -1 for PARTIAL */
	solar_span span;
} solar_layout;

typedef struct {
	const char *name;
	solar_span span;
} solar_iter;

/* An assumption about index data (AIR 1.1, docs/air.md "Assumptions"): `assume distinct(X) >=
 * N;` -- the elements of ranged tensor X take at least N different values. */
typedef struct {
	int tensor;
	solar_expr *count; /* N as written: params, consts, literals */
	int64_t value;     /* N at the current params */
	solar_span span;   /* the whole statement */
} solar_assume;

typedef struct {
	solar_arena *arena;
	const char *file;   /* as given on the command line ("-" for stdin) */
	const char *src;    /* the whole source text, NUL-terminated */
	int32_t src_len;
	int air_version;
	int air_minor; /* 2 for `air 1.2;`, 1 for `air 1.1;`, 0 for `air 1;` */
	solar_mesh_axis *mesh; /* AIR 1.2: the mesh's axes, outermost first; none: one rank */
	int nmesh;
	/* AIR 1.2 pipelines: the axis of every `stage(A, s)` layout (-1: none), and the
	 * micro-batches of `microbatches A = M;` (1 without one) */
	int pipe_axis;
	int64_t microbatches;
	solar_span microbatches_span;
	solar_param *params;
	int nparams;
	solar_const *consts;
	int nconsts;
	solar_tensor *tensors;
	int ntensors;
	solar_iter *iters;
	int niters;
	solar_kernel *kernels;
	int nkernels;
	solar_stmt **stmts;
	int nstmts;
	solar_assume *assumes; /* at most one per tensor, in the order declared */
	int nassumes;
} solar_program;

void solar_program_free(SOLAR_TAKE solar_program *p);

const char *solar_dtype_name(solar_dtype t);
int solar_dtype_bytes(solar_dtype t);        /* bool and 8-bit types: 1 */
bool solar_dtype_is_float(solar_dtype t);
/* Returns -1 when `name` is no dtype. */
int solar_dtype_parse(const char *name);
const char *solar_role_name(solar_role r);
const char *solar_dist_name(solar_dist d); /* "uniform", "normal" ("" for NONE) */
int solar_dist_parse(const char *name);	   /* -1 when no distribution is called name */
const char *solar_fn_name(solar_fn f);
int solar_fn_parse(const char *name);        /* -1 when unknown */
/* How many arguments a function takes: at least solar_fn_min_args, at most
 * solar_fn_max_args (-1: no upper limit; max and min take 2 or more). */
int solar_fn_min_args(solar_fn f);
int solar_fn_max_args(solar_fn f);
const char *solar_binop_text(solar_binop op); /* "+", "//", "and", ... */
const char *solar_assign_text(solar_assign_op op); /* "=", "+=", "max=", ... */
/* A hash of a NUL-terminated text (FNV-1a), for the open-addressing tables. */
uint32_t solar_text_hash(const char *s);

/* Whether tensor t has a value range (AIR 1.1), so that its reads may appear in indices. */
bool solar_tensor_ranged(SOLAR_KEEP const solar_tensor *t);
/* Whether e (an index or an expression inside one) reads a tensor: an index that reads data
 * (a gather's or a scatter's position), AIR 1.1. */
bool solar_ir_index_reads_data(SOLAR_KEEP const solar_expr *e);
/* Whether some index of statement s, of its store or of a read in its value, reads data. */
bool solar_ir_stmt_reads_data(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_stmt *s);

/* The ranks of the program's mesh (the product of its axis sizes; 1 without a mesh), and the
 * stride of axis a in the rank numbering (the product of the sizes of the axes after it). */
int64_t solar_program_ranks(SOLAR_KEEP const solar_program *p);
int64_t solar_mesh_stride(SOLAR_KEEP const solar_program *p, int a);

/* rank(A) (docs/air.md "Many GPUs"): the ranks whose programs differ are the classes of the
 * coordinates on the axes some rank(A) reads, the product of those axes' sizes (1 when no
 * rank(A) is read).  set_rank_class gives every rank(A) param the coordinates of class c
 * (0 <= c < classes; the first such param's axis varies slowest); rank_class_text writes them
 * as `cp=3,tp=0` (the empty string for one class).  A coordinate set with -D rank(A)=r is
 * fixed: it makes no classes and set_rank_class leaves it. */
int64_t solar_program_rank_classes(SOLAR_KEEP const solar_program *p);
/* Whether some rank(A) is read where it shapes the work: a loop bound, a condition, or an index
 * position that reads no data.  When none is (rank(A) only in values and in data positions,
 * as a vocab-parallel pick's), every rank's counts are equal: there is one class. */
bool solar_program_rank_shapes_work(SOLAR_KEEP const solar_program *p);
/* Whether param i is worth naming where a command prints the params: a declared one, or a
 * rank(A) whose value picks one class of several (or that -D set). */
bool solar_param_shown(SOLAR_KEEP const solar_program *p, int i);
/* Whether e reads some rank(A). */
bool solar_ir_expr_reads_rank(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_expr *e);
void solar_program_set_rank_class(SOLAR_KEEP solar_program *p, int64_t c);
void solar_program_rank_class_text(SOLAR_KEEP const solar_program *p, char *buf, size_t n);
#define SOLAR_MAX_RANK_CLASSES 4096

/* The stage of `stage(A, s)` in t's layout (AIR 1.2 pipelines), -1 when every stage holds t. */
int solar_tensor_stage(SOLAR_KEEP const solar_tensor *t);

/* Number of elements of a tensor at the current param values. */
int64_t solar_tensor_elements(SOLAR_KEEP const solar_tensor *t);
/* Value of an integer expression of literals, consts and params (at their current values) with
 * + - * // %, unary minus, min and max; an iterator or anything else counts as 0.  For expressions the
 * front end has checked (step sizes, divisors, extents), so no overflow can occur. */
int64_t solar_ir_eval_const(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_expr *e);

/* Printing for program transformations (validate/spmd.c, analysis/shard.c): `access_prefix`
 * is written as the first index of every read and store (`x[_r, i]`, a scalar `loss[_r]`);
 * `param_text`, per param, replaces its name; `tensor_text`, per tensor, replaces its name in
 * reads and stores; `iter_hi_text`, per iterator, replaces the upper bound of the loop that
 * declares it (NULL entries and NULL arrays: as written).  With `values_by_name`, a
 * statement's value prints every param by its name outside the indices of its reads, and
 * param_text applies to extents, loop bounds, conditions and indices only (solar shard: a size
 * a rank holds 1/N of bounds its loops and indexes its blocks, but a value computed from it,
 * a mean's divisor, is the whole model's).  `index_param_text` is internal (print.c). */
typedef struct solar_print_opts solar_print_opts;
struct solar_print_opts {
	const char *access_prefix;
	const char *const *param_text;
	const char *const *tensor_text;
	const char *const *iter_hi_text;
	bool values_by_name;
	const char *const *index_param_text;
	/* iter_value_text, per iterator, replaces its name where a statement's value reads it
	 * outside the indices of its reads (solar shard: a loop over a rank's block of a split
	 * size, whose position in the whole is i + rank(A) * block); iter_text is internal. */
	const char *const *iter_value_text, *const *iter_text;
	/* Hooks (solar shard): access_hook prints a read, stmt_hook a whole statement (no `;`),
	 * and return true, or return false for the printer's own form; they print their parts
	 * with solar_ir_print_expr_with and solar_ir_print_value_with, o passed on. */
	bool (*access_hook)(void *ctx, const solar_expr *e, const solar_print_opts *o, FILE *out);
	bool (*stmt_hook)(void *ctx, const solar_stmt *s, const solar_print_opts *o, FILE *out);
	void *hook_ctx;
};
void solar_ir_print_expr_with(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_expr *e,
			      SOLAR_KEEP const solar_print_opts *o, FILE *out);
/* *io: o as the indices of a read print with (a value's sizes by index_param_text, iterators
 * as written); for a hook that prints an access's parts. */
void solar_ir_print_index_opts(SOLAR_KEEP const solar_print_opts *o, solar_print_opts *io);
/* e as a statement's value (o's values_by_name and iter_value_text applied). */
void solar_ir_print_value_with(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_expr *e,
			       SOLAR_KEEP const solar_print_opts *o, FILE *out);
void solar_ir_print_block_with(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_block *b,
			       int depth, SOLAR_KEEP const solar_print_opts *o, FILE *out);
/* A tensor's name and extents, as its declaration writes them (`w[D, H // 8]`). */
void solar_ir_print_tensor_with(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_tensor *t,
				SOLAR_KEEP const solar_print_opts *o, FILE *out);

/* A kernel's attributes as its header writes them (`[math = fast, group = forward] `, with the
 * trailing space), nothing when it has none. */
void solar_ir_print_kernel_attrs(SOLAR_KEEP const solar_kernel *kn, FILE *out);
/* Writes the program in canonical AIR (what `solar fmt` prints). */
void solar_ir_print(SOLAR_KEEP const solar_program *p, FILE *out);
void solar_ir_print_expr(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_expr *e, FILE *out);
/* One statement as `T[i, j] += value` (no `;`, no newline): the form `fmt`, `count`,
 * `analyze` and the generated code's comments all show. */
void solar_ir_print_stmt(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_stmt *s, FILE *out);
/* The same as a malloc'd string; with `comment_safe`, every `*` `/` pair has its `/` replaced by a
 * space, so that the text can sit inside a C comment. */
SOLAR_GIVE char *solar_ir_stmt_text(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_stmt *s,
				    bool comment_safe);

/* Checks the IR's structural invariants (indices in range, ranks, program order, ...).
 * Returns 0 when they hold; otherwise reports each broken one on d (`FILE: error: internal
 * error: ...`; NULL: silent) and returns -1.  A failure is a bug in solar, not in the user's
 * program. */
int solar_ir_verify(SOLAR_KEEP const solar_program *p, solar_diag *d);

/* Structural equality of two expressions, ignoring spans. */
/* Whether e reads tensor t (an access to it anywhere in e), or uses iterator `iter`. */
bool solar_ir_expr_reads(SOLAR_KEEP const solar_expr *e, int t);
bool solar_ir_expr_uses_iter(SOLAR_KEEP const solar_expr *e, int iter);
/* Calls fn once per tensor access of kernel k, in program order: write false for each read (in
 * a value, an index or a condition, and the old value a compound assignment reads), true for
 * each store. */
typedef void (*solar_tensor_visit)(void *ctx, int tensor, bool write);
/* The same for one node of a kernel's body (a loop nest, an `if`, a statement). */
void solar_ir_node_tensors(SOLAR_KEEP const solar_program *p, SOLAR_KEEP const solar_node *n,
			   solar_tensor_visit fn, void *ctx);
void solar_ir_kernel_tensors(SOLAR_KEEP const solar_program *p, int k, solar_tensor_visit fn,
			     void *ctx);
bool solar_ir_expr_equal(SOLAR_KEEP const solar_expr *a, SOLAR_KEEP const solar_expr *b);

/* Structural equality of two programs, ignoring spans (for the fmt round-trip test). */
bool solar_ir_equal(SOLAR_KEEP const solar_program *a, SOLAR_KEEP const solar_program *b);

#endif
