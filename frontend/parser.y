/* parser.y - AIR tokens to a syntax tree (ast.h).
 *
 * A pure (reentrant) bison parser with locations.  Locations are solar_span byte ranges; a
 * rule's span runs from its first symbol's start to its last symbol's end.  Nodes come from
 * the parse arena, so nothing is freed by hand and an abandoned parse leaks nothing.
 *
 * Syntax errors are reported by yyreport_syntax_error below (parse.error custom, with LAC so
 * that the expected tokens are exact) in words a user can act on: "unexpected ']', expected
 * an expression".  Recovery rules (`error ';'` for statements, `'{' stmts error '}'` for
 * blocks, `error '}'` at top level) let the parse go on, so every syntax error of a file is
 * reported, up to the diagnostic cap.
 *
 * Names are not resolved here and nothing is checked beyond the shape of the text: whether
 * `i*N` is affine, or `f23` a dtype, is sema.c's business.
 */
%define api.pure full
%define api.location.type {solar_span}
%define api.token.prefix {T_}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%param {yyscan_t scanner}
%parse-param {solar_pstate *ps}

%code requires {
#include "frontend/ast.h"
#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif
}

%code provides {
int yylex(YYSTYPE *yylval, YYLTYPE *yylloc, yyscan_t scanner);
}

%code {
#include <stdlib.h>
#include <string.h>

/* A rule's span covers its symbols; an empty rule sits where the previous symbol ended. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                                        \
	do {                                                                               \
		if (N) {                                                                   \
			(Cur).off = YYRHSLOC(Rhs, 1).off;                                  \
			(Cur).len = YYRHSLOC(Rhs, N).off + YYRHSLOC(Rhs, N).len -          \
				    YYRHSLOC(Rhs, 1).off;                                  \
		} else {                                                                   \
			(Cur).off = YYRHSLOC(Rhs, 0).off + YYRHSLOC(Rhs, 0).len;           \
			(Cur).len = 0;                                                     \
		}                                                                          \
	} while (0)

/* Nested `for` headers and prefix operators grow the parser stack; past this depth the
 * parse stops with an error (yyerror below) instead of growing without bound. */
#define YYMAXDEPTH 10000

static void yyerror(YYLTYPE *loc, yyscan_t scanner, solar_pstate *ps, const char *msg);

#define NODE(kind, at) solar_ast_node(ps, (kind), (at))
#define BIN(op, a, b, at) solar_ast_binary(ps, (op), (a), (b), (at))
/* assign_op's value for `-=`: the statement becomes `+=` of the negated term. */
#define ASSIGN_SUB ((solar_assign_op)-1)
#define ASSIGN_OP(op) ((op) == ASSIGN_SUB ? SOLAR_ADD_TO : (op))
#define ASSIGN_VALUE(op, v) ((op) == ASSIGN_SUB ? solar_ast_negate_term(ps, (v)) : (v))
}

%union {
	int64_t ival;
	const char *str;
	solar_binop op;
	solar_assign_op aop;
	solar_role role;
	ast_expr *expr;
	ast_node *node;
	ast_iter *iter;
	ast_decl *decl;
	ast_attr *attr;
	ast_carg *carg;
	ast_list *list;
	ast_block block;
}

%token END 0 "end of file"
%token <str> NAME "name"
%token <ival> INT "integer"
%token <str> FLOAT "number"
%token AIR "'air'" PARAM "'param'" CONST "'const'" IN "'in'" OUT "'out'" INOUT "'inout'"
%token TMP "'tmp'" RAND "'rand'" KERNEL "'kernel'" FOR "'for'" STEP "'step'" IF "'if'" ELSE "'else'"
%token AND "'and'" OR "'or'" NOT "'not'" INF "'inf'"
%token DOTDOT "'..'" FLOORDIV "'//'" ADDEQ "'+='" SUBEQ "'-='" MULEQ "'*='" MAXEQ "'max='"
%token MINEQ "'min='"
%token EQ "'=='" NE "'!='" LE "'<='" GE "'>='"

%left OR
%left AND
%precedence NOT
%nonassoc '<' '>' LE GE EQ NE
%left '+' '-'
%left '*' '/' FLOORDIV '%'
%precedence UMINUS

%type <expr> expr primary
%type <list> exprs args params consts tensors iters attrs stmts layouts
%type <expr> layout
%type <node> item stmt if collective
%type <block> block
%type <iter> iter
%type <decl> param const tensor
%type <attr> attr
%type <carg> carg
%type <list> cargs
%type <list> kattrs
%type <role> role
%type <aop> assign_op

%%

/* program: item*  (the `air 1;` header is an item; sema.c checks it comes first) */
program
	: %empty
	| program item                  { if ($2) solar_ast_push(ps, &ps->items, $2); }
	;

/* item: declaration | kernel | statement */
item
	: AIR INT ';' {
		$$ = NODE(AST_AIR, @$);
		$$->version = $2;
		$$->version_span = @2;
	}
	| AIR FLOAT ';' {                /* `air 1.1;`, `air 1.2;`: sema.c reads the minor version */
		$$ = NODE(AST_AIR, @$);
		$$->version = strcmp($2, "1.1") && strcmp($2, "1.2") ? -1 : 1;
		$$->version_minor = strcmp($2, "1.2") ? 1 : 2;
		$$->version_span = @2;
	}
	| PARAM params ';' {
		$$ = NODE(AST_PARAM, @$);
		$$->decls = (ast_decl **)$2->items;
		$$->ndecls = $2->n;
	}
	| CONST consts ';' {
		$$ = NODE(AST_CONST, @$);
		$$->decls = (ast_decl **)$2->items;
		$$->ndecls = $2->n;
	}
	| role tensors ':' NAME ';' {
		$$ = NODE(AST_TENSORS, @$);
		$$->role = $1;
		$$->decls = (ast_decl **)$2->items;
		$$->ndecls = $2->n;
		$$->dtype = $4;
		$$->dtype_span = @4;
	}
	| role tensors ':' NAME IN expr DOTDOT expr ';' {   /* AIR 1.1: a value range */
		$$ = NODE(AST_TENSORS, @$);
		$$->role = $1;
		$$->decls = (ast_decl **)$2->items;
		$$->ndecls = $2->n;
		$$->dtype = $4;
		$$->dtype_span = @4;
		$$->range_lo = $6;
		$$->range_hi = $8;
		$$->range_span = (solar_span){@6.off, @8.off + @8.len - @6.off};
	}
	| role tensors ':' NAME layouts ';' {   /* AIR 1.2: `split(tp, 1)`, `partial(dp)` */
		$$ = NODE(AST_TENSORS, @$);
		$$->role = $1;
		$$->decls = (ast_decl **)$2->items;
		$$->ndecls = $2->n;
		$$->dtype = $4;
		$$->dtype_span = @4;
		$$->layouts = (ast_expr **)$5->items;
		$$->nlayouts = $5->n;
	}
	| role tensors ':' NAME layouts IN expr DOTDOT expr ';' {   /* both: ids of one rank */
		$$ = NODE(AST_TENSORS, @$);
		$$->role = $1;
		$$->decls = (ast_decl **)$2->items;
		$$->ndecls = $2->n;
		$$->dtype = $4;
		$$->dtype_span = @4;
		$$->layouts = (ast_expr **)$5->items;
		$$->nlayouts = $5->n;
		$$->range_lo = $7;
		$$->range_hi = $9;
		$$->range_span = (solar_span){@7.off, @9.off + @9.len - @7.off};
	}
	| role tensors ':' NAME NAME ';' {   /* rand: the distribution after the dtype */
		$$ = NODE(AST_TENSORS, @$);
		$$->role = $1;
		$$->decls = (ast_decl **)$2->items;
		$$->ndecls = $2->n;
		$$->dtype = $4;
		$$->dtype_span = @4;
		$$->dist = $5;
		$$->dist_span = @5;
	}
	| KERNEL NAME kattrs block {
		$$ = NODE(AST_KERNEL, @$);
		$$->name = $2;
		$$->name_span = @2;
		$$->attrs = $3 ? (ast_attr **)$3->items : NULL;
		$$->nattrs = $3 ? $3->n : 0;
		$$->body = $4;
	}
	| NAME consts ';' {              /* `mesh dp = 8, tp = 8;` (AIR 1.2): sema.c */
		$$ = NODE(AST_MESH, @$);
		$$->name = $1;
		$$->name_span = @1;
		$$->decls = (ast_decl **)$2->items;
		$$->ndecls = $2->n;
	}
	| NAME expr ';' {                /* `assume distinct(ids) >= N;` (AIR 1.1): sema.c */
		$$ = NODE(AST_ASSUME, @$);
		$$->name = $1;
		$$->name_span = @1;
		$$->value = $2;
	}
	| stmt                          { $$ = $1; }
	| error '}'                     { $$ = NULL; }
	;

role
	: IN                            { $$ = SOLAR_ROLE_IN; }
	| OUT                           { $$ = SOLAR_ROLE_OUT; }
	| INOUT                         { $$ = SOLAR_ROLE_INOUT; }
	| TMP                           { $$ = SOLAR_ROLE_TMP; }
	| RAND                          { $$ = SOLAR_ROLE_RAND; }
	;

/* layouts: NAME ( args ) ...  (AIR 1.2 tensor layouts; sema.c checks the names) */
layouts
	: layout                        { $$ = solar_ast_list(ps, $1); }
	| layouts layout                { solar_ast_push(ps, $1, $2); $$ = $1; }
	;
layout
	: NAME '(' args ')'             { $$ = solar_ast_apply(ps, AST_CALL, $1, @1, $3, @$); }
	;

/* param: NAME [= expr] */
params
	: param                         { $$ = solar_ast_list(ps, $1); }
	| params ',' param              { solar_ast_push(ps, $1, $3); $$ = $1; }
	;
param
	: NAME {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->name = $1;
		$$->span = @1;
	}
	| NAME '=' expr {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->name = $1;
		$$->span = @1;
		$$->value = $3;
	}
	;

/* const: NAME = expr */
consts
	: const                         { $$ = solar_ast_list(ps, $1); }
	| consts ',' const              { solar_ast_push(ps, $1, $3); $$ = $1; }
	;
const
	: NAME '=' expr {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->name = $1;
		$$->span = @1;
		$$->value = $3;
	}
	;

/* tensor: NAME [ '[' expr, ... ']' ]   (no brackets: a rank-0 tensor) */
tensors
	: tensor                        { $$ = solar_ast_list(ps, $1); }
	| tensors ',' tensor            { solar_ast_push(ps, $1, $3); $$ = $1; }
	;
tensor
	: NAME {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->name = $1;
		$$->span = @1;
	}
	| NAME '[' exprs ']' {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->name = $1;
		$$->span = @1;
		$$->dims = (ast_expr **)$3->items;
		$$->rank = $3->n;
	}
	;

/* kernel attributes: [ NAME = NAME|INT, ... ], e.g. [math = tf32] */
kattrs
	: %empty                        { $$ = NULL; }
	| '[' attrs ']'                 { $$ = $2; }
	;
attrs
	: attr                          { $$ = solar_ast_list(ps, $1); }
	| attrs ',' attr                { solar_ast_push(ps, $1, $3); $$ = $1; }
	;
attr
	: NAME '=' NAME {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->key = $1;
		$$->key_span = @1;
		$$->value = $3;
		$$->value_span = @3;
	}
	| NAME '=' INT {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->key = $1;
		$$->key_span = @1;
		$$->value = solar_arena_strndup(ps->arena, ps->src + @3.off, (size_t)@3.len);
		$$->value_span = @3;
	}
	;

/* block: { stmt* }   A syntax error inside skips to the closing brace. */
block
	: '{' stmts '}'                 { $$ = solar_ast_block($2); }
	| '{' stmts error '}'           { $$ = solar_ast_block($2); }
	;
stmts
	: %empty                        { $$ = solar_ast_list(ps, NULL); }
	| stmts stmt                    { if ($2) solar_ast_push(ps, $1, $2); $$ = $1; }
	| stmts collective              { solar_ast_push(ps, $1, $2); $$ = $1; }
	;

/* stmt: for iter, ... block | if | NAME [ '[' expr, ... ']' ] assign_op expr ; */
stmt
	: FOR iters block {
		$$ = NODE(AST_FOR, @$);
		$$->iters = (ast_iter **)$2->items;
		$$->niters = $2->n;
		$$->body = $3;
	}
	| if                            { $$ = $1; }
	| NAME assign_op expr ';' {
		$$ = NODE(AST_ASSIGN, @$);
		$$->name = $1;
		$$->name_span = @1;
		$$->target_span = @1;
		$$->op = ASSIGN_OP($2);
		$$->value = ASSIGN_VALUE($2, $3);
	}
	| NAME '[' exprs ']' assign_op expr ';' {
		$$ = NODE(AST_ASSIGN, @$);
		$$->name = $1;
		$$->name_span = @1;
		$$->target_span = (solar_span){@1.off, @4.off + @4.len - @1.off};
		$$->index = (ast_expr **)$3->items;
		$$->nindex = $3->n;
		$$->op = ASSIGN_OP($5);
		$$->value = ASSIGN_VALUE($5, $6);
	}
	| error ';'                     { $$ = NULL; }
	;

/* collective: NAME ( cargs ) TARGET [<- SOURCE] ;  (AIR 1.2; only inside a kernel block, so
 * that it cannot be mistaken for a top-level `NAME expr ;`) */
collective
	: NAME '(' cargs ')' NAME ';' {           /* AIR 1.2: `all_reduce(dp, sum) g;` */
		$$ = NODE(AST_COLLECTIVE, @$);
		$$->name = $1;
		$$->name_span = @1;
		$$->cargs = (ast_carg **)$3->items;
		$$->ncargs = $3->n;
		$$->args_span = (solar_span){@2.off, @4.off + @4.len - @2.off};
		$$->target = $5;
		$$->target_span_c = @5;
	}
	| NAME '(' cargs ')' NAME '<' '-' NAME ';' { /* `all_gather(tp, dim = 2) y <- x;` */
		$$ = NODE(AST_COLLECTIVE, @$);
		$$->name = $1;
		$$->name_span = @1;
		$$->cargs = (ast_carg **)$3->items;
		$$->ncargs = $3->n;
		$$->args_span = (solar_span){@2.off, @4.off + @4.len - @2.off};
		$$->target = $5;
		$$->target_span_c = @5;
		$$->source = $8;
		$$->source_span = @8;
	}
	;

/* the arguments of a collective: the axis, the reduction, `dim = d`, `root = k` */
cargs
	: carg                          { $$ = solar_ast_list(ps, $1); }
	| cargs ',' carg                { solar_ast_push(ps, $1, $3); $$ = $1; }
	;
carg
	: expr {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->value = $1;
	}
	| NAME '=' expr {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->key = $1;
		$$->key_span = @1;
		$$->value = $3;
	}
	;

assign_op
	: '='                           { $$ = SOLAR_ASSIGN; }
	| ADDEQ                         { $$ = SOLAR_ADD_TO; }
	| SUBEQ                         { $$ = ASSIGN_SUB; }
	| MULEQ                         { $$ = SOLAR_MUL_TO; }
	| MAXEQ                         { $$ = SOLAR_MAX_TO; }
	| MINEQ                         { $$ = SOLAR_MIN_TO; }
	;

/* iter: NAME in expr .. expr [step expr] */
iters
	: iter                          { $$ = solar_ast_list(ps, $1); }
	| iters ',' iter                { solar_ast_push(ps, $1, $3); $$ = $1; }
	;
iter
	: NAME IN expr DOTDOT expr {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->name = $1;
		$$->span = @1;
		$$->clause = @$;
		$$->lo = $3;
		$$->hi = $5;
	}
	| NAME IN expr DOTDOT expr STEP expr {
		$$ = solar_arena_alloc(ps->arena, sizeof *$$);
		$$->name = $1;
		$$->span = @1;
		$$->clause = @$;
		$$->lo = $3;
		$$->hi = $5;
		$$->step = $7;
	}
	;

/* if: if expr block [else block | else if] */
if
	: IF expr block {
		$$ = NODE(AST_IF, @$);
		$$->cond = $2;
		$$->then = $3;
	}
	| IF expr block ELSE block {
		$$ = NODE(AST_IF, @$);
		$$->cond = $2;
		$$->then = $3;
		$$->els = $5;
	}
	| IF expr block ELSE if {
		$$ = NODE(AST_IF, @$);
		$$->cond = $2;
		$$->then = $3;
		$$->els = solar_ast_block(solar_ast_list(ps, $5));
	}
	;

/* expr: precedence from low to high: or, and, not, comparisons (non-associative), + -,
 * * / // %, unary -, primary. */
expr
	: expr OR expr                  { $$ = BIN(SOLAR_OP_OR, $1, $3, @$); }
	| expr AND expr                 { $$ = BIN(SOLAR_OP_AND, $1, $3, @$); }
	| NOT expr                      { $$ = solar_ast_unary(ps, AST_NOT, $2, @$); }
	| expr '<' expr                 { $$ = BIN(SOLAR_OP_LT, $1, $3, @$); }
	| expr LE expr                  { $$ = BIN(SOLAR_OP_LE, $1, $3, @$); }
	| expr '>' expr                 { $$ = BIN(SOLAR_OP_GT, $1, $3, @$); }
	| expr GE expr                  { $$ = BIN(SOLAR_OP_GE, $1, $3, @$); }
	| expr EQ expr                  { $$ = BIN(SOLAR_OP_EQ, $1, $3, @$); }
	| expr NE expr                  { $$ = BIN(SOLAR_OP_NE, $1, $3, @$); }
	| expr '+' expr                 { $$ = BIN(SOLAR_OP_ADD, $1, $3, @$); }
	| expr '-' expr                 { $$ = BIN(SOLAR_OP_SUB, $1, $3, @$); }
	| expr '*' expr                 { $$ = BIN(SOLAR_OP_MUL, $1, $3, @$); }
	| expr '/' expr                 { $$ = BIN(SOLAR_OP_DIV, $1, $3, @$); }
	| expr FLOORDIV expr            { $$ = BIN(SOLAR_OP_FLOORDIV, $1, $3, @$); }
	| expr '%' expr                 { $$ = BIN(SOLAR_OP_MOD, $1, $3, @$); }
	| '-' expr %prec UMINUS         { $$ = solar_ast_unary(ps, AST_NEG, $2, @$); }
	| primary                       { $$ = $1; }
	;

/* primary: INT | FLOAT | inf | NAME | NAME [ expr, ... ] | NAME ( expr, ... ) | ( expr ) */
primary
	: INT {
		$$ = solar_ast_leaf(ps, AST_INT, @$);
		$$->ival = $1;
		$$->text = solar_arena_strndup(ps->arena, ps->src + @1.off, (size_t)@1.len);
	}
	| FLOAT {
		$$ = solar_ast_leaf(ps, AST_FLOAT, @$);
		$$->fval = strtod($1, NULL);
		$$->text = $1;
	}
	| INF                           { $$ = solar_ast_leaf(ps, AST_INF, @$); }
	| NAME {
		$$ = solar_ast_leaf(ps, AST_NAME, @$);
		$$->name = $1;
		$$->name_span = @1;
	}
	| NAME '[' exprs ']'            { $$ = solar_ast_apply(ps, AST_INDEX, $1, @1, $3, @$); }
	| NAME '(' args ')'             { $$ = solar_ast_apply(ps, AST_CALL, $1, @1, $3, @$); }
	| '(' expr ')'                  { $$ = $2; $$->span = @$; }
	;

exprs
	: expr                          { $$ = solar_ast_list(ps, $1); }
	| exprs ',' expr                { solar_ast_push(ps, $1, $3); $$ = $1; }
	;
args
	: %empty                        { $$ = solar_ast_list(ps, NULL); }
	| exprs                         { $$ = $1; }
	;

%%

/* Called by bison only for stack exhaustion (syntax errors go through
 * yyreport_syntax_error). */
static void yyerror(YYLTYPE *loc, yyscan_t scanner, solar_pstate *ps, const char *msg)
{
	(void)scanner;
	if (ps->fatal)
		return;
	if (!strcmp(msg, "memory exhausted"))
		solar_diag_error(ps->diag, *loc,
				 "too deeply nested: the parser's stack is full (%d entries)",
				 YYMAXDEPTH);
	else
		solar_diag_error(ps->diag, *loc, "%s", msg);
	ps->fatal = true;
}

#define SYM(c) ((yysymbol_kind_t)YYTRANSLATE(c))

static bool is_binop(yysymbol_kind_t k)
{
	return k == YYSYMBOL_OR || k == YYSYMBOL_AND || k == YYSYMBOL_EQ || k == YYSYMBOL_NE ||
	       k == YYSYMBOL_LE || k == YYSYMBOL_GE || k == YYSYMBOL_FLOORDIV || k == SYM('<') ||
	       k == SYM('>') || k == SYM('+') || k == SYM('-') || k == SYM('*') ||
	       k == SYM('/') || k == SYM('%');
}

static bool is_comparison(yysymbol_kind_t k)
{
	return k == YYSYMBOL_EQ || k == YYSYMBOL_NE || k == YYSYMBOL_LE || k == YYSYMBOL_GE ||
	       k == SYM('<') || k == SYM('>');
}

/* The lookahead as the user wrote it: its text, or "end of file". */
static void describe_token(char *buf, size_t size, solar_pstate *ps, yysymbol_kind_t k,
			   const YYLTYPE *loc)
{
	if (k == YYSYMBOL_YYEOF) {
		snprintf(buf, size, "end of file");
		return;
	}
	int n = loc->len > 24 ? 24 : loc->len;
	snprintf(buf, size, "'%.*s%s'", n, ps->src + loc->off, loc->len > 24 ? "..." : "");
}

/* "unexpected X, expected Y": the expected tokens are grouped into what a user thinks in
 * (a statement, an expression, an operator), and the caret goes right after the previous
 * token when the fix is a missing ';' at the end of a line, or when the file ended early. */
static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, solar_pstate *ps)
{
	(void)scanner;
	if (ps->fatal)
		return 0;
	yysymbol_kind_t look = yypcontext_token(ctx);
	solar_span at = *yypcontext_location(ctx);
	/* a character the scanner skipped explains a syntax error later on its line */
	if (ps->junk_end >= 0 && ps->junk_end <= at.off &&
	    !memchr(ps->src + ps->junk_end, '\n', (size_t)(at.off - ps->junk_end))) {
		ps->junk_end = -1;
		return 0;
	}
	yysymbol_kind_t exp[YYNTOKENS];
	int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
	if (n < 0)
		n = 0;
	bool has[YYNTOKENS] = {0};
	for (int i = 0; i < n; i++)
		has[exp[i]] = true;

	char what[64];
	describe_token(what, sizeof what, ps, look, &at);

	if (is_comparison(look) && !has[look] && has[SYM('+')]) {
		solar_diag_error(ps->diag, at,
				 "unexpected %s: comparisons do not chain; join them with `and`",
				 what);
		return 0;
	}

	const char *phrase[YYNTOKENS + 4];
	int np = 0;
	if (has[YYSYMBOL_PARAM] && has[YYSYMBOL_FOR]) {
		phrase[np++] = "a declaration or a statement";
		has[YYSYMBOL_AIR] = has[YYSYMBOL_PARAM] = has[YYSYMBOL_CONST] = false;
		has[YYSYMBOL_IN] = has[YYSYMBOL_OUT] = has[YYSYMBOL_INOUT] = false;
		has[YYSYMBOL_TMP] = has[YYSYMBOL_RAND] = has[YYSYMBOL_KERNEL] = false;
		has[YYSYMBOL_YYEOF] = false;
		has[YYSYMBOL_FOR] = has[YYSYMBOL_IF] = has[YYSYMBOL_NAME] = false;
	} else if (has[YYSYMBOL_FOR] && has[YYSYMBOL_IF] && has[YYSYMBOL_NAME]) {
		phrase[np++] = "a statement";
		has[YYSYMBOL_FOR] = has[YYSYMBOL_IF] = has[YYSYMBOL_NAME] = false;
	}
	if (has[YYSYMBOL_INT] && has[YYSYMBOL_FLOAT] && has[SYM('(')]) {
		phrase[np++] = "an expression";
		has[YYSYMBOL_INT] = has[YYSYMBOL_FLOAT] = has[SYM('(')] = false;
		has[YYSYMBOL_NAME] = has[YYSYMBOL_INF] = has[YYSYMBOL_NOT] = false;
		has[SYM('-')] = false; /* unary '-' */
	}
	bool ops = false, others = np > 0;
	for (int k = 0; k < YYNTOKENS; k++)
		if (has[k]) {
			if (is_binop((yysymbol_kind_t)k))
				ops = true;
			else
				others = true;
		}
	if (ops && others) { /* after an operand: '[' and '(' only continue it */
		has[SYM('[')] = has[SYM('(')] = false;
	}
	for (int k = 0; k < YYNTOKENS; k++) {
		if (!has[k] || (others && is_binop((yysymbol_kind_t)k)))
			continue;
		if (!others) {
			phrase[np++] = "an operator";
			break;
		}
		if (k == YYSYMBOL_NAME)
			phrase[np++] = "a name";
		else if (k == YYSYMBOL_INT)
			phrase[np++] = "an integer";
		else if (k == YYSYMBOL_YYEOF)
			phrase[np++] = "end of file";
		else if (k != YYSYMBOL_YYerror && k != YYSYMBOL_YYUNDEF)
			phrase[np++] = yysymbol_name((yysymbol_kind_t)k);
	}

	/* Point right after the previous token for a missing ';' at the end of a line and
	 * for an early end of file. */
	if (ps->prev_end >= 0 && ps->prev_end <= at.off &&
	    (look == YYSYMBOL_YYEOF || (has[SYM(';')] && at.off > 0))) {
		bool newline = false;
		for (int32_t i = ps->prev_end; i < at.off && i < ps->len; i++)
			if (ps->src[i] == '\n')
				newline = true;
		if (newline || look == YYSYMBOL_YYEOF) {
			at.off = ps->prev_end;
			at.len = 0;
		}
	}

	char list[512];
	size_t used = 0;
	list[0] = '\0';
	int shown = np > 6 ? 6 : np;
	for (int i = 0; i < shown; i++) {
		const char *sep = i == 0 ? "" : i == shown - 1 ? " or " : ", ";
		int w = snprintf(list + used, sizeof list - used, "%s%s", sep, phrase[i]);
		if (w < 0 || (size_t)w >= sizeof list - used)
			break;
		used += (size_t)w;
	}
	if (np)
		solar_diag_error(ps->diag, at, "unexpected %s, expected %s", what, list);
	else
		solar_diag_error(ps->diag, at, "unexpected %s", what);
	return 0;
}
