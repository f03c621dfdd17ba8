/* print.c - the IR back to canonical AIR text (what `solar fmt` prints).
 *
 * Canonical form: `air 1;`, then the params (one per line, with their declared defaults,
 * whatever -D said), the consts (one per line, as written), the tensors (one declaration per
 * group, as declared), then the kernels in program order; a blank line between sections and
 * between kernels; two spaces of indent; one statement per line; a space around every binary
 * operator; parentheses only where precedence needs them; float literals with the text the
 * user wrote.  Explicit kernels print as `kernel` blocks, implicit ones as the bare top-level
 * items they came from.  Comments are not part of the IR and are not printed.
 *
 * The one promise: the output parses back to an IR that solar_ir_equal accepts, and printing
 * that IR again gives the same text.
 */
#include <inttypes.h>
#include <string.h>

#include "ir.h"

#include "../diag/alloc.h"

/* Binding strength, low to high, as in the grammar (frontend/parser.y). */
enum { P_OR = 1, P_AND, P_NOT, P_CMP, P_ADD, P_MUL, P_NEG, P_PRIMARY };

static int prec(const solar_expr *e)
{
	switch (e->kind) {
	case SOLAR_E_NEG:
		return P_NEG;
	case SOLAR_E_NOT:
		return P_NOT;
	case SOLAR_E_BIN:
		switch (e->binop) {
		case SOLAR_OP_OR:
			return P_OR;
		case SOLAR_OP_AND:
			return P_AND;
		case SOLAR_OP_ADD:
		case SOLAR_OP_SUB:
			return P_ADD;
		case SOLAR_OP_MUL:
		case SOLAR_OP_DIV:
		case SOLAR_OP_FLOORDIV:
		case SOLAR_OP_MOD:
			return P_MUL;
		default:
			return P_CMP;
		}
	case SOLAR_E_INT:
		return e->ival < 0 ? P_NEG : P_PRIMARY;
	default:
		return P_PRIMARY;
	}
}

/* The options of an access's indices: index_param_text as their param_text, where a value
 * printed by name set it (*io holds them then). */
void solar_ir_print_index_opts(const solar_print_opts *o, solar_print_opts *io)
{
	*io = *o;
	if (o->index_param_text) {
		io->param_text = o->index_param_text;
		io->index_param_text = NULL;
	}
	io->iter_text = NULL; /* an index is the rank's own */
}

static const solar_print_opts *index_opts(const solar_print_opts *o, solar_print_opts *io)
{
	if (!o || (!o->index_param_text && !o->iter_text))
		return o;
	solar_ir_print_index_opts(o, io);
	return io;
}

/* Tensor t's name as printed: o's replacement where it has one. */
static const char *tensor_name(const solar_program *p, int t, const solar_print_opts *o)
{
	return o && o->tensor_text && o->tensor_text[t] ? o->tensor_text[t] : p->tensors[t].name;
}

static void print_expr(const solar_program *p, const solar_expr *e, const solar_print_opts *o,
		       FILE *out);

static void operand(const solar_program *p, const solar_expr *e, bool parens,
		    const solar_print_opts *o, FILE *out)
{
	if (parens)
		fputc('(', out);
	print_expr(p, e, o, out);
	if (parens)
		fputc(')', out);
}

static void args(const solar_program *p, const solar_expr *e, const solar_print_opts *o, FILE *out)
{
	for (int i = 0; i < e->nargs; i++) {
		if (i)
			fputs(", ", out);
		print_expr(p, e->args[i], o, out);
	}
}

static void print_float(const solar_expr *e, FILE *out)
{
	if (e->name) {
		fputs(e->name, out);
		return;
	}
	char buf[40];
	snprintf(buf, sizeof buf, "%.17g", e->fval);
	fputs(buf, out);
	if (!strpbrk(buf, ".eEn")) /* keep it a float literal */
		fputs(".0", out);
}

static void print_expr(const solar_program *p, const solar_expr *e, const solar_print_opts *o,
		       FILE *out)
{
	int mine = prec(e);
	switch (e->kind) {
	case SOLAR_E_INT:
		if (e->ival < 0) /* never made by the parser (it makes NEG of a literal) */
			fprintf(out, "-%" PRIu64, (uint64_t)0 - (uint64_t)e->ival);
		else
			fprintf(out, "%" PRId64, e->ival);
		return;
	case SOLAR_E_FLOAT:
		print_float(e, out);
		return;
	case SOLAR_E_INF:
		fputs("inf", out);
		return;
	case SOLAR_E_PARAM:
		fputs(o && o->param_text && o->param_text[e->sym] ? o->param_text[e->sym]
								  : p->params[e->sym].name,
		      out);
		return;
	case SOLAR_E_CONST:
		fputs(p->consts[e->sym].name, out);
		return;
	case SOLAR_E_ITER:
		fputs(o && o->iter_text && o->iter_text[e->sym] ? o->iter_text[e->sym]
								: p->iters[e->sym].name,
		      out);
		return;
	case SOLAR_E_ACCESS:
		if (o && o->access_hook && o->access_hook(o->hook_ctx, e, o, out))
			return;
		fputs(tensor_name(p, e->sym, o), out);
		if (e->nargs || (o && o->access_prefix)) {
			fputc('[', out);
			if (o && o->access_prefix)
				fprintf(out, "%s%s", o->access_prefix, e->nargs ? ", " : "");
			solar_print_opts io;
			args(p, e, index_opts(o, &io), out);
			fputc(']', out);
		}
		return;
	case SOLAR_E_NEG:
		fputc('-', out);
		operand(p, e->args[0], prec(e->args[0]) < P_PRIMARY, o, out);
		return;
	case SOLAR_E_NOT:
		fputs("not ", out);
		operand(p, e->args[0], prec(e->args[0]) < P_NOT, o, out);
		return;
	case SOLAR_E_BIN:
		/* left-associative, comparisons non-associative */
		operand(p, e->args[0],
			prec(e->args[0]) < mine || (mine == P_CMP && prec(e->args[0]) == P_CMP), o,
			out);
		fprintf(out, " %s ", solar_binop_text(e->binop));
		operand(p, e->args[1], prec(e->args[1]) <= mine, o, out);
		return;
	case SOLAR_E_CALL:
		fprintf(out, "%s(", solar_fn_name(e->fn));
		args(p, e, o, out);
		fputc(')', out);
		return;
	case SOLAR_E_CAST:
		fprintf(out, "%s(", solar_dtype_name(e->dtype));
		args(p, e, o, out);
		fputc(')', out);
		return;
	}
}

void solar_ir_print_expr(const solar_program *p, const solar_expr *e, FILE *out)
{
	print_expr(p, e, NULL, out);
}

void solar_ir_print_expr_with(const solar_program *p, const solar_expr *e,
			      const solar_print_opts *o, FILE *out)
{
	print_expr(p, e, o, out);
}

static void print_collective(const solar_program *p, const solar_collective *c, FILE *out);

static void print_stmt(const solar_program *p, const solar_stmt *s, const solar_print_opts *o,
		       FILE *out)
{
	if (s->kernel >= 0 && s->kernel < p->nkernels && p->kernels[s->kernel].coll) {
		print_collective(p, p->kernels[s->kernel].coll, out); /* its stand-in copy */
		return;
	}
	if (o && o->stmt_hook && o->stmt_hook(o->hook_ctx, s, o, out))
		return;
	const solar_tensor *t = &p->tensors[s->tensor];
	fputs(tensor_name(p, s->tensor, o), out);
	if (t->rank || (o && o->access_prefix)) {
		fputc('[', out);
		if (o && o->access_prefix)
			fprintf(out, "%s%s", o->access_prefix, t->rank ? ", " : "");
		solar_print_opts io;
		const solar_print_opts *oi = index_opts(o, &io);
		for (int i = 0; i < t->rank; i++) {
			if (i)
				fputs(", ", out);
			print_expr(p, s->index[i], oi, out);
		}
		fputc(']', out);
	}
	fprintf(out, " %s ", solar_assign_text(s->op));
	solar_ir_print_value_with(p, s->value, o, out);
}

void solar_ir_print_value_with(const solar_program *p, const solar_expr *e,
			       const solar_print_opts *o, FILE *out)
{
	solar_print_opts vo;
	if (o && (o->values_by_name || o->iter_value_text)) {
		vo = *o;
		if (o->values_by_name) { /* by name, but the indices of its reads as extents */
			vo.index_param_text = o->param_text;
			vo.param_text = NULL;
			vo.values_by_name = false;
		}
		vo.iter_text = o->iter_value_text;
		o = &vo;
	}
	print_expr(p, e, o, out);
}

void solar_ir_print_stmt(const solar_program *p, const solar_stmt *s, FILE *out)
{
	print_stmt(p, s, NULL, out);
}

char *solar_ir_stmt_text(const solar_program *p, const solar_stmt *s, bool comment_safe)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		solar_out_of_memory();
	solar_ir_print_stmt(p, s, f);
	if (fclose(f) != 0 || !text)
		solar_out_of_memory();
	if (comment_safe)
		for (char *c = text; *c; c++)
			if (c[0] == '*' && c[1] == '/')
				c[1] = ' ';
	return text;
}

/* `all_gather(tp, dim = 2) y <- x`, as written (no `;`). */
static void print_collective(const solar_program *p, const solar_collective *c, FILE *out)
{
	fprintf(out, "%s(%s", solar_xop_name(c->op), p->mesh[c->axis].name);
	if (c->red != SOLAR_XRED_NONE)
		fputs(c->red == SOLAR_XRED_SUM ? ", sum" : ", max", out);
	if (c->dim >= 0)
		fprintf(out, ", dim = %d", c->dim);
	if (c->root >= 0)
		fprintf(out, ", root = %" PRId64, c->root);
	fprintf(out, ") %s", p->tensors[c->out].name);
	if (c->in != c->out)
		fprintf(out, " <- %s", p->tensors[c->in].name);
}

static void indent(int depth, FILE *out)
{
	for (int i = 0; i < depth; i++)
		fputs("  ", out);
}

static void print_block(const solar_program *p, const solar_block *b, int depth,
			const solar_print_opts *o, FILE *out);

static void print_if(const solar_program *p, const solar_node *n, int depth,
		     const solar_print_opts *o, FILE *out)
{
	fputs("if ", out);
	print_expr(p, n->cond.cond, o, out);
	fputs(" {\n", out);
	print_block(p, &n->cond.then, depth + 1, o, out);
	indent(depth, out);
	fputc('}', out);
	const solar_block *els = &n->cond.els;
	if (els->n == 1 && els->items[0]->kind == SOLAR_N_IF) {
		fputs(" else ", out);
		print_if(p, els->items[0], depth, o, out);
		return;
	}
	if (els->n) {
		fputs(" else {\n", out);
		print_block(p, els, depth + 1, o, out);
		indent(depth, out);
		fputc('}', out);
	}
}

static void print_node(const solar_program *p, const solar_node *n, int depth,
		       const solar_print_opts *o, FILE *out)
{
	indent(depth, out);
	switch (n->kind) {
	case SOLAR_N_FOR:
		fputs("for ", out);
		for (;;) {
			fprintf(out, "%s in ", p->iters[n->loop.iter].name);
			print_expr(p, n->loop.lo, o, out);
			fputs("..", out);
			if (o && o->iter_hi_text && o->iter_hi_text[n->loop.iter])
				fputs(o->iter_hi_text[n->loop.iter], out);
			else
				print_expr(p, n->loop.hi, o, out);
			if (n->loop.step) {
				fputs(" step ", out);
				print_expr(p, n->loop.step, o, out);
			}
			const solar_block *b = &n->loop.body;
			if (b->n != 1 || b->items[0]->kind != SOLAR_N_FOR ||
			    !b->items[0]->loop.joined)
				break;
			fputs(", ", out);
			n = b->items[0];
		}
		fputs(" {\n", out);
		print_block(p, &n->loop.body, depth + 1, o, out);
		indent(depth, out);
		fputs("}\n", out);
		return;
	case SOLAR_N_IF:
		print_if(p, n, depth, o, out);
		fputc('\n', out);
		return;
	case SOLAR_N_STMT:
		print_stmt(p, n->stmt, o, out);
		fputs(";\n", out);
		return;
	}
}

static void print_block(const solar_program *p, const solar_block *b, int depth,
			const solar_print_opts *o, FILE *out)
{
	for (int i = 0; i < b->n; i++)
		print_node(p, b->items[i], depth, o, out);
}

static void print_tensor(const solar_program *p, const solar_tensor *t, const solar_print_opts *o,
			 FILE *out)
{
	fputs(t->name, out);
	if (!t->rank)
		return;
	fputc('[', out);
	for (int d = 0; d < t->rank; d++) {
		if (d)
			fputs(", ", out);
		print_expr(p, t->dims[d], o, out);
	}
	fputc(']', out);
}

void solar_ir_print_tensor_with(const solar_program *p, const solar_tensor *t,
				const solar_print_opts *o, FILE *out)
{
	print_tensor(p, t, o, out);
}

void solar_ir_print_block_with(const solar_program *p, const solar_block *b, int depth,
			       const solar_print_opts *o, FILE *out)
{
	print_block(p, b, depth, o, out);
}

void solar_ir_print_kernel_attrs(const solar_kernel *kn, FILE *out)
{
	if (kn->math != SOLAR_MATH_DEFAULT && kn->group)
		fprintf(out, "[math = %s, group = %s] ", solar_math_name(kn->math), kn->group);
	else if (kn->math != SOLAR_MATH_DEFAULT)
		fprintf(out, "[math = %s] ", solar_math_name(kn->math));
	else if (kn->group)
		fprintf(out, "[group = %s] ", kn->group);
}

void solar_ir_print(const solar_program *p, FILE *out)
{
	const solar_print_opts *o = NULL;
	if (p->air_minor)
		fprintf(out, "air %d.%d;\n", p->air_version ? p->air_version : 1, p->air_minor);
	else
		fprintf(out, "air %d;\n", p->air_version ? p->air_version : 1);
	if (p->nparams && p->params[0].axis < 0)
		fputc('\n', out);
	for (int i = 0; i < p->nparams; i++) {
		const solar_param *par = &p->params[i];
		if (par->axis >= 0) /* rank(A): written where it is used */
			continue;
		fprintf(out, "param %s", par->name);
		if (par->has_default) {
			if (par->default_value == INT64_MIN)
				fprintf(out, " = %" PRId64 " - 1", INT64_MIN + 1);
			else
				fprintf(out, " = %" PRId64, par->default_value);
		}
		fputs(";\n", out);
	}
	if (p->nconsts)
		fputc('\n', out);
	for (int i = 0; i < p->nconsts; i++) {
		fprintf(out, "const %s = ", p->consts[i].name);
		print_expr(p, p->consts[i].expr, o, out);
		fputs(";\n", out);
	}
	if (p->nmesh) {
		fputs("\nmesh ", out);
		for (int a = 0; a < p->nmesh; a++) {
			fprintf(out, "%s%s = ", a ? ", " : "", p->mesh[a].name);
			print_expr(p, p->mesh[a].size, o, out);
		}
		fputs(";\n", out);
		if (p->microbatches > 1 && p->pipe_axis >= 0)
			fprintf(out, "microbatches %s = %" PRId64 ";\n", p->mesh[p->pipe_axis].name,
				p->microbatches);
	}
	if (p->ntensors)
		fputc('\n', out);
	for (int i = 0; i < p->ntensors;) {
		const solar_tensor *t = &p->tensors[i];
		fprintf(out, "%s ", solar_role_name(t->role));
		int j = i;
		do {
			if (j > i)
				fputs(", ", out);
			print_tensor(p, &p->tensors[j], NULL, out);
			j++;
		} while (j < p->ntensors && p->tensors[j].decl_group == t->decl_group);
		if (t->dist != SOLAR_DIST_NONE)
			fprintf(out, ": %s %s;\n", solar_dtype_name(t->dtype),
				solar_dist_name(t->dist));
		else {
			fprintf(out, ": %s", solar_dtype_name(t->dtype));
			for (int l = 0; l < t->nlayout; l++) {
				const solar_layout *ly = &t->layout[l];
				if (ly->kind == SOLAR_LAYOUT_SPLIT)
					fprintf(out, " split(%s, %d)", p->mesh[ly->axis].name, ly->dim);
				else if (ly->kind == SOLAR_LAYOUT_STAGE)
					fprintf(out, " stage(%s, %d)", p->mesh[ly->axis].name, ly->dim);
				else
					fprintf(out, " partial(%s)", p->mesh[ly->axis].name);
			}
			if (t->range_hi) {
				fputs(" in ", out);
				print_expr(p, t->range_lo, o, out);
				fputs("..", out);
				print_expr(p, t->range_hi, o, out);
			}
			fputs(";\n", out);
		}
		i = j;
	}
	if (p->nassumes)
		fputc('\n', out);
	for (int i = 0; i < p->nassumes; i++) {
		fprintf(out, "assume distinct(%s) >= ", p->tensors[p->assumes[i].tensor].name);
		print_expr(p, p->assumes[i].count, o, out);
		fputs(";\n", out);
	}
	for (int k = 0; k < p->nkernels; k++) {
		const solar_kernel *kn = &p->kernels[k];
		fputc('\n', out);
		if (kn->implicit) {
			print_block(p, &kn->body, 0, o, out);
			continue;
		}
		fprintf(out, "kernel %s ", kn->name);
		solar_ir_print_kernel_attrs(kn, out);
		fputs("{\n", out);
		if (kn->coll) {
			indent(1, out);
			print_collective(p, kn->coll, out);
			fputs(";\n", out);
		} else {
			print_block(p, &kn->body, 1, o, out);
		}
		fputs("}\n", out);
	}
}
