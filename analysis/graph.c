/* graph.c - the einsum dependency graph.
 *
 * One node per statement, written in einsum form: the output index map, the operand index
 * maps, the reduction dimensions (loops absent from the output), the combine operation (the
 * top operator of the value) and the reduce operation (the assignment).  An edge S -> T for
 * tensor X exists when some instance of T reads a value of X that an instance of S wrote
 * (ISL's exact value-based dataflow, not a name match); edges into "out" mark final values.
 */
#include "graph.h"

#include <isl/union_map.h>
#include <isl/union_set.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "../diag/alloc.h"

const char *solar_tensor_class_name(solar_tensor_class c)
{
	static const char *names[] = {"input", "output", "intermediate", "random", "unused"};
	return names[c];
}

typedef struct {
	const solar_model *m;
	solar_graph *g;
	int cap;
} edge_ctx;

static int endpoint(const solar_model *m, const char *name, int *tensor)
{
	int k = atoi(name + 1);
	if (name[0] == 'S') {
		*tensor = m->prog->stmts[k]->tensor;
		return k;
	}
	if (name[0] == 'R') {
		*tensor = m->refs[k].tensor;
		return m->refs[k].stmt;
	}
	*tensor = k;
	return -1;
}

static void edge_add(edge_ctx *c, int from, int to, int tensor)
{
	solar_graph *g = c->g;
	for (int i = 0; i < g->nedges; i++)
		if (g->edges[i].from == from && g->edges[i].to == to && g->edges[i].tensor == tensor)
			return;
	if (g->nedges == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		g->edges = solar_xrealloc(g->edges, (size_t)c->cap * sizeof *g->edges);
	}
	g->edges[g->nedges++] = (solar_edge){from, to, tensor};
}

static isl_stat add_edge(isl_map *map, void *user)
{
	edge_ctx *c = user;
	int t1, t2;
	int from = endpoint(c->m, isl_map_get_tuple_name(map, isl_dim_in), &t1);
	int to = endpoint(c->m, isl_map_get_tuple_name(map, isl_dim_out), &t2);
	bool empty = isl_map_is_empty(map) == isl_bool_true;
	isl_map_free(map);
	if (!empty)
		edge_add(c, from, to, t2);
	return isl_stat_ok;
}

static int cmp_edge(const void *a, const void *b)
{
	const solar_edge *x = a, *y = b;
	int xt = x->to < 0 ? 1 << 30 : x->to, yt = y->to < 0 ? 1 << 30 : y->to;
	if (x->from != y->from)
		return x->from - y->from;
	if (xt != yt)
		return xt - yt;
	return x->tensor - y->tensor;
}

solar_graph *solar_graph_build(const solar_program *p, solar_diag *d)
{
	isl_ctx *ctx = solar_isl_ctx_new();
	solar_model *m = solar_model_build(p, ctx, false, d);
	if (!m) {
		isl_ctx_free(ctx);
		return NULL;
	}
	isl_union_map *dep = NULL;
	isl_union_set *nosrc = NULL;
	solar_graph *g = solar_xcalloc(1, sizeof *g);
	g->prog = p;
	g->tclass = solar_xcalloc((size_t)p->ntensors + 1, sizeof *g->tclass);
	/* without the chains' links, as the counts take it: a reduction chain's edge to itself
	 * is there when some point of it has a previous one (solar_model_chain_linked), and the
	 * links of a deep chain are not built for nothing */
	if (solar_model_flow(m, false, &dep, &nosrc) < 0) {
		solar_diag_error_nowhere(d, "dataflow analysis failed");
		solar_graph_free(g);
		g = NULL;
	} else {
		edge_ctx c = {m, g, 0};
		isl_union_map_foreach_map(dep, add_edge, &c);
		for (int r = 0; r < m->nrefs; r++)
			if (solar_model_links_omitted(m, r) &&
			    solar_model_chain_linked(m, r) == isl_bool_true)
				edge_add(&c, m->refs[r].stmt, m->refs[r].stmt, m->refs[r].tensor);
		if (g->nedges > 1) /* qsort(NULL, 0) is undefined: no edges, no array */
			qsort(g->edges, (size_t)g->nedges, sizeof *g->edges, cmp_edge);
		bool *written = solar_xcalloc((size_t)p->ntensors + 1, 1), *read = solar_xcalloc((size_t)p->ntensors + 1, 1);
		for (int r = 0; r < m->nrefs; r++)
			(m->refs[r].write ? written : read)[m->refs[r].tensor] = true;
		for (int t = 0; t < p->ntensors; t++) {
			solar_role role = p->tensors[t].role;
			g->tclass[t] = role == SOLAR_ROLE_OUT || role == SOLAR_ROLE_INOUT
					       ? SOLAR_TC_OUTPUT
				       : role == SOLAR_ROLE_IN ? (read[t] ? SOLAR_TC_INPUT : SOLAR_TC_UNUSED)
				       : role == SOLAR_ROLE_RAND ? (read[t] ? SOLAR_TC_RANDOM : SOLAR_TC_UNUSED)
				       : written[t] ? SOLAR_TC_INTERMEDIATE
						    : SOLAR_TC_UNUSED;
		}
		free(written);
		free(read);
	}
	isl_union_map_free(dep);
	isl_union_set_free(nosrc);
	solar_model_free(m);
	isl_ctx_free(ctx);
	return g;
}

void solar_graph_free(solar_graph *g)
{
	if (!g)
		return;
	free(g->edges);
	free(g->tclass);
	free(g);
}

static void print_map(const solar_program *p, solar_expr **index, int rank, FILE *out)
{
	fputs("[", out);
	for (int i = 0; i < rank; i++) {
		if (i)
			fputs(",", out);
		solar_ir_print_expr(p, index[i], out);
	}
	fputs("]", out);
}

static void print_operands(const solar_program *p, const solar_expr *e, int *n, FILE *out)
{
	if (e->kind == SOLAR_E_ACCESS) {
		fprintf(out, "%s%s", (*n)++ ? ", " : "", p->tensors[e->sym].name);
		print_map(p, e->args, e->nargs, out);
	}
	for (int i = 0; i < e->nargs; i++)
		print_operands(p, e->args[i], n, out);
}

static const char *combine_op(const solar_expr *e)
{
	while (e->kind == SOLAR_E_CAST)
		e = e->args[0];
	if (e->kind == SOLAR_E_BIN)
		return solar_binop_text(e->binop);
	if (e->kind == SOLAR_E_CALL)
		return solar_fn_name(e->fn);
	if (e->kind == SOLAR_E_ACCESS)
		return "copy";
	return "const";
}

static void node_label(const solar_program *p, const solar_stmt *s, FILE *out, bool dot)
{
	const solar_tensor *t = &p->tensors[s->tensor];
	fprintf(out, "%s", t->name);
	print_map(p, s->index, t->rank, out);
	fprintf(out, " %s %s(", solar_assign_text(s->op), combine_op(s->value));
	int n = 0;
	print_operands(p, s->value, &n, out);
	fputs(")", out);
	int red = 0;
	for (int k = 0; k < s->depth; k++) {
		bool used = false;
		for (int i = 0; i < t->rank; i++)
			used |= solar_ir_expr_uses_iter(s->index[i], s->loops[k]);
		if (!used)
			fprintf(out, "%s%s", red++ ? "," : (dot ? "\\nreduce over " : "  reduce over "),
				p->iters[s->loops[k]].name);
	}
}

void solar_graph_print(const solar_graph *g, bool dot, FILE *out)
{
	const solar_program *p = g->prog;
	if (dot) {
		fputs("digraph einsum {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n",
		      out);
		for (int t = 0; t < p->ntensors; t++)
			if (g->tclass[t] == SOLAR_TC_INPUT || g->tclass[t] == SOLAR_TC_RANDOM)
				fprintf(out, "  \"in_%s\" [label=\"%s%s\", shape=ellipse];\n",
					p->tensors[t].name, p->tensors[t].name,
					g->tclass[t] == SOLAR_TC_RANDOM ? " (rand)" : "");
		for (int i = 0; i < p->nstmts; i++) {
			fprintf(out, "  S%d [label=\"S%d [%s]\\n", i, i,
				p->kernels[p->stmts[i]->kernel].name);
			node_label(p, p->stmts[i], out, true);
			fputs("\"];\n", out);
		}
		fputs("  out [shape=ellipse];\n", out);
		for (int i = 0; i < g->nedges; i++) {
			const solar_edge *e = &g->edges[i];
			if (e->to < 0)
				fprintf(out, "  S%d -> out [label=\"%s\"];\n", e->from,
					p->tensors[e->tensor].name);
			else
				fprintf(out, "  S%d -> S%d [label=\"%s\"];\n", e->from, e->to,
					p->tensors[e->tensor].name);
		}
		/* inputs: reads of tensors classed as inputs */
		for (int i = 0; i < p->nstmts; i++)
			for (int t = 0; t < p->ntensors; t++)
				if ((g->tclass[t] == SOLAR_TC_INPUT || g->tclass[t] == SOLAR_TC_RANDOM) &&
				    solar_ir_expr_reads(p->stmts[i]->value, t))
					fprintf(out, "  \"in_%s\" -> S%d;\n", p->tensors[t].name, i);
		fputs("}\n", out);
		return;
	}
	fputs("nodes (einsum form: output = combine(operands), reduce over loops absent from the output)\n",
	      out);
	for (int i = 0; i < p->nstmts; i++) {
		fprintf(out, "  S%d [%s] ", i, p->kernels[p->stmts[i]->kernel].name);
		node_label(p, p->stmts[i], out, false);
		fputs("\n", out);
	}
	fputs("edges (exact dataflow: producer -> consumer, tensor)\n", out);
	for (int i = 0; i < g->nedges; i++) {
		const solar_edge *e = &g->edges[i];
		if (e->to < 0)
			fprintf(out, "  S%d -> out  %s\n", e->from, p->tensors[e->tensor].name);
		else
			fprintf(out, "  S%d -> S%d  %s%s\n", e->from, e->to, p->tensors[e->tensor].name,
				e->from == e->to ? " (reduction chain)" : "");
	}
	fputs("tensors\n", out);
	for (int t = 0; t < p->ntensors; t++)
		fprintf(out, "  %-12s %s\n", p->tensors[t].name, solar_tensor_class_name(g->tclass[t]));
}
