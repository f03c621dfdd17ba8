/* ast.h - the syntax tree between the parser and name resolution (front end only).
 *
 * The parser (parser.y) builds this tree with every name still a string; sema.c resolves the
 * names, checks the program and lowers it to the IR of ir/ir.h.  Everything here lives in one
 * arena that is freed as soon as the IR is built, so a parse that stops half-way leaks nothing.
 * Nothing outside frontend/ includes this header.
 */
#ifndef SOLAR_AST_H
#define SOLAR_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "../ir/ir.h"
#include "../diag/diag.h"
#include "frontend.h"

/* The most brackets ( [ or braces { open at once.  With SOLAR_MAX_EXPR_DEPTH (frontend.h),
 * this keeps hostile input from exhausting the parser's or a pass's stack. */
#define SOLAR_MAX_BRACKETS 256
#define SOLAR_MAX_NAME_BYTES 1024
/* Largest syntax tree (arena bytes); past it the parse stops with an error.  The IR built
 * from a tree is about as large, so this bounds the front end's memory on any input. */
#define SOLAR_MAX_AST_BYTES ((size_t)256 << 20)

typedef enum {
	AST_INT,   /* ival; text */
	AST_FLOAT, /* fval; text */
	AST_INF,
	AST_NAME,  /* name */
	AST_INDEX, /* name[args] */
	AST_CALL,  /* name(args) */
	AST_NEG,   /* args[0] */
	AST_NOT,   /* args[0] */
	AST_BIN	   /* op, args[0], args[1] */
} ast_expr_kind;

typedef struct ast_expr ast_expr;
struct ast_expr {
	ast_expr_kind kind;
	solar_span span;      /* the whole expression, parentheses included */
	solar_span name_span; /* NAME, INDEX, CALL: the name */
	const char *name;
	const char *text; /* INT, FLOAT: the literal as written */
	int64_t ival;
	double fval;
	solar_binop op;
	ast_expr **args;
	int nargs;
	int depth; /* 1 for a leaf */
};

/* A growable array in the parse arena (old buffers are left to the arena). */
typedef struct {
	void **items;
	int n, cap;
} ast_list;

typedef enum {
	AST_AIR,     /* version */
	AST_PARAM,   /* decls */
	AST_CONST,   /* decls */
	AST_TENSORS, /* decls, role, dtype */
	AST_KERNEL,  /* name, attrs, body */
	AST_FOR,     /* iters, body */
	AST_IF,	     /* cond, then, els */
	AST_ASSIGN,  /* name, index (indexed), op, value */
	AST_ASSUME,  /* name (the keyword as written), value: `assume distinct(ids) >= N;` */
	AST_MESH,    /* decls (name = size), name (the keyword as written): AIR 1.2 */
	AST_COLLECTIVE /* name (the op), cargs, target, source: AIR 1.2 */
} ast_node_kind;

typedef struct ast_node ast_node;

typedef struct {
	ast_node **items;
	int n;
} ast_block;

/* One `NAME in LO..HI [step C]` clause of a for header. */
typedef struct {
	const char *name;
	solar_span span;   /* the name */
	solar_span clause; /* the whole clause */
	ast_expr *lo, *hi, *step;
} ast_iter;

/* One declared name: a param (value = default or NULL), a const (value) or a tensor (dims). */
typedef struct {
	const char *name;
	solar_span span;
	ast_expr *value;
	ast_expr **dims;
	int rank;
} ast_decl;

/* One argument of a collective: `expr` (key NULL) or `key = expr`. */
typedef struct {
	const char *key;
	solar_span key_span;
	ast_expr *value;
} ast_carg;

/* `key = value` inside a kernel's [ ]. */
typedef struct {
	const char *key, *value;
	solar_span key_span, value_span;
} ast_attr;

struct ast_node {
	ast_node_kind kind;
	solar_span span;
	/* AIR */
	int64_t version;
	int64_t version_minor; /* `air 1.1;`: 1 */
	solar_span version_span;
	/* PARAM, CONST, TENSORS */
	ast_decl **decls;
	int ndecls;
	solar_role role;
	const char *dtype;
	solar_span dtype_span;
	const char *dist; /* TENSORS: the distribution of `rand` tensors, or NULL */
	solar_span dist_span;
	ast_expr *range_lo, *range_hi; /* TENSORS: `: i64 in LO..HI`, or NULL (AIR 1.1) */
	ast_expr **layouts; /* TENSORS: `split(tp, 1) partial(dp)` after the dtype (AIR 1.2) */
	int nlayouts;
	solar_span range_span;
	/* KERNEL, ASSIGN: name */
	const char *name;
	solar_span name_span;
	ast_attr **attrs;
	int nattrs;
	/* KERNEL, FOR */
	ast_block body;
	ast_iter **iters;
	int niters;
	/* IF */
	ast_expr *cond;
	ast_block then, els;
	/* ASSIGN */
	solar_span target_span; /* NAME or NAME[...] */
	ast_expr **index;
	int nindex;
	solar_assign_op op;
	ast_expr *value;
	/* COLLECTIVE: `NAME(cargs) TARGET [<- SOURCE];` */
	ast_carg **cargs;
	int ncargs;
	solar_span args_span; /* the parentheses and what is inside */
	const char *target, *source; /* source NULL for an in-place collective */
	solar_span target_span_c, source_span;
};

/* State shared by the scanner and the parser of one source text. */
typedef struct solar_pstate {
	solar_arena *arena; /* the syntax tree */
	solar_diag *diag;
	const char *src;
	int32_t len;
	int32_t pos;	  /* offset of the next byte the scanner looks at */
	int32_t tok_end;  /* end of the last token handed to the parser */
	int32_t prev_end; /* end of the token before that one */
	int brackets;	  /* ( and [ open now */
	int braces;	  /* { open now */
	bool fatal;	  /* a limit was hit: the scanner reports end of input, errors stop */
	int32_t junk_end; /* end of the last skipped bad character, or -1 */
	ast_list items;	  /* top-level items, in order */
} solar_pstate;

/* Parses src[0..len) (NUL-terminated) into ps->items; errors go to ps->diag.
 * Returns the number of errors reported (lexical and syntax). */
int solar_parse(solar_pstate *ps);

/* Constructors used by the grammar actions (ast.c).  All memory comes from ps->arena. */
void solar_ast_push(solar_pstate *ps, ast_list *l, void *item);
ast_list *solar_ast_list(solar_pstate *ps, void *first);
ast_expr *solar_ast_leaf(solar_pstate *ps, ast_expr_kind kind, solar_span at);
ast_expr *solar_ast_unary(solar_pstate *ps, ast_expr_kind kind, ast_expr *a, solar_span at);
/* -v for `t -= v`: on the left factor when v is a product (ast.c). */
ast_expr *solar_ast_negate_term(solar_pstate *ps, ast_expr *v);
ast_expr *solar_ast_binary(solar_pstate *ps, solar_binop op, ast_expr *a, ast_expr *b,
			   solar_span at);
ast_expr *solar_ast_apply(solar_pstate *ps, ast_expr_kind kind, const char *name,
			  solar_span name_span, ast_list *args, solar_span at);
ast_node *solar_ast_node(solar_pstate *ps, ast_node_kind kind, solar_span at);
ast_block solar_ast_block(ast_list *l);
void solar_ast_error_limit(solar_pstate *ps, solar_span at, const char *what);

/* Lowers the syntax tree to checked IR (sema.c).  Returns NULL after reporting errors. */
solar_program *solar_sema_run(solar_pstate *ps, solar_program *p, const solar_define *defs,
			      int ndefs);

#endif
