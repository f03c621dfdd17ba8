/* codegen_cuda.c - an AIR program as CUDA C, and the plan of its launches.
 *
 * The plan: every top-level node of a kernel (a loop nest, or a statement or `if` outside
 * any loop) is one launch, in program order; the GPU finishes one launch before the next
 * starts, which keeps AIR's sequential semantics between nests.  Within a nest, the loops
 * perfectly nested at its head (`for i .. { for j .. { ... } }`, or `for i .., j ..`) are
 * candidates for threads; analysis/deps.h says how many of the outermost carry no dependence
 * (no element touched by two threads, one of them writing it).  Those become one flattened
 * thread index over their bounding box, the innermost loop varying fastest between
 * neighbouring threads (so that a warp touches neighbouring elements of a row-major tensor).
 * A thread checks the loop bounds that depend on outer iterators (a triangle, a clamped
 * window) and runs the rest of the nest sequentially, in program order.  A nest with no
 * parallel loop runs in one thread.
 *
 * The source: the shared runtime (rt.c), then per input tensor a kernel that converts the
 * .npy data to the tensor's storage (rounding as a store does), per out/tmp tensor a kernel
 * that poisons it, per widened output a kernel that widens it to float32, and one kernel per
 * launch.  Statement code is emit.c's, the same as the C backend's.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/deps.h"
#include "emit.h"
#include "../diag/alloc.h"

/* ---- the plan ---- */

static void stmt_range(const solar_node *n, int *first, int *last)
{
	switch (n->kind) {
	case SOLAR_N_STMT:
		if (*first < 0 || n->stmt->id < *first)
			*first = n->stmt->id;
		if (n->stmt->id > *last)
			*last = n->stmt->id;
		return;
	case SOLAR_N_FOR:
		for (int i = 0; i < n->loop.body.n; i++)
			stmt_range(n->loop.body.items[i], first, last);
		return;
	case SOLAR_N_IF:
		for (int i = 0; i < n->cond.then.n; i++)
			stmt_range(n->cond.then.items[i], first, last);
		for (int i = 0; i < n->cond.els.n; i++)
			stmt_range(n->cond.els.items[i], first, last);
		return;
	}
}

/* The loop at depth d of a node's perfect chain. */
static const solar_node *chain_loop(const solar_node *n, int d)
{
	while (d-- > 0)
		n = n->loop.body.items[0];
	return n;
}

static int chain_depth(const solar_node *n)
{
	int d = 0;
	while (n->kind == SOLAR_N_FOR && d < 64) {
		d++;
		if (n->loop.body.n != 1 || n->loop.body.items[0]->kind != SOLAR_N_FOR)
			break;
		n = n->loop.body.items[0];
	}
	return d;
}

int solar_plan_build(const solar_program *p, const solar_analysis *a, solar_plan *out,
		     solar_diag *diag)
{
	int cap = 0;
	for (int k = 0; k < p->nkernels; k++)
		cap += p->kernels[k].body.n;
	out->launch = solar_xcalloc((size_t)cap + 1, sizeof *out->launch);
	out->nlaunch = 0;
	for (int k = 0; k < p->nkernels; k++) {
		const solar_block *body = &p->kernels[k].body;
		for (int i = 0; i < body->n; i++) {
			const solar_node *n = body->items[i];
			int first = -1, last = -1;
			stmt_range(n, &first, &last);
			if (first < 0)
				continue; /* no statement: nothing to run */
			solar_launch *l = &out->launch[out->nlaunch++];
			l->kernel = k;
			l->node = n;
			l->first_stmt = first;
			l->nstmts = last - first + 1;
			l->depth = chain_depth(n);
			l->threads = 1;
			solar_nest_deps nd;
			if (solar_deps_parallel(a, first, l->nstmts, l->depth, &nd) < 0)
				solar_diag_tool_note(
				    diag,
				    "dependence analysis of kernel %s gave up (ISL "
				    "limit); its nest runs in one GPU thread",
				    p->kernels[k].name);
			l->empty = nd.empty;
			int par = nd.parallel;
			double threads = 1;
			for (int d = 0; d < par; d++) {
				const solar_node *loop = chain_loop(n, d);
				bool lo_fixed = !solar_emit_uses_iter(loop->loop.lo);
				bool hi_fixed = !solar_emit_uses_iter(loop->loop.hi);
				int64_t step = loop->loop.step_value > 1 ? loop->loop.step_value : 1;
				l->stride[d] = lo_fixed ? step : 1;
				l->guard[d] = !(lo_fixed && hi_fixed);
				l->lo[d] = nd.lo[d];
				l->count[d] = (nd.hi[d] - nd.lo[d]) / l->stride[d] + 1;
				threads *= (double)l->count[d];
				if (threads > 4e18) { /* keep the flattened index in int64 */
					par = d;
					break;
				}
				l->threads *= l->count[d];
			}
			if (par < nd.parallel) {
				l->threads = 1;
				for (int d = 0; d < par; d++)
					l->threads *= l->count[d];
			}
			l->parallel = par;
		}
	}
	return 0;
}

void solar_plan_free(solar_plan *plan)
{
	free(plan->launch);
	plan->launch = NULL;
	plan->nlaunch = 0;
}

void solar_plan_print(const solar_program *p, const solar_plan *plan, FILE *out)
{
	for (int i = 0; i < plan->nlaunch; i++) {
		const solar_launch *l = &plan->launch[i];
		fprintf(out, "launch %d (kernel %s, S%d..S%d): ", i, p->kernels[l->kernel].name,
			l->first_stmt, l->first_stmt + l->nstmts - 1);
		if (l->empty) {
			fputs("never runs\n", out);
			continue;
		}
		if (!l->parallel) {
			fputs("one thread", out);
		} else {
			fputs("loops ", out);
			for (int d = 0; d < l->parallel; d++)
				fprintf(out, "%s%s", d ? ", " : "",
					p->iters[chain_loop(l->node, d)->loop.iter].name);
			fprintf(out, " -> %" PRId64 " threads", l->threads);
		}
		if (l->parallel < l->depth) {
			fputs("; sequential in each thread: ", out);
			for (int d = l->parallel; d < l->depth; d++)
				fprintf(out, "%s%s", d > l->parallel ? ", " : "",
					p->iters[chain_loop(l->node, d)->loop.iter].name);
			fputs(" and what they hold", out);
		} else if (l->node->kind == SOLAR_N_FOR) {
			fputs("; the loop body runs in each thread", out);
		}
		fputs("\n", out);
	}
}

/* ---- the source ---- */

static const char *npy_ctype(solar_npy_type t)
{
	static const char *names[SOLAR_NPY_COUNT] = {
		"double",  "float",   "uint16_t", "int64_t", "int32_t", "int16_t",
		"int8_t",  "uint64_t", "uint32_t", "uint16_t", "uint8_t", "uint8_t",
	};
	return names[t];
}

/* Whether a launch writes tensor t. */
static bool writes(const solar_program *p, const solar_launch *l, int t)
{
	for (int s = l->first_stmt; s < l->first_stmt + l->nstmts; s++)
		if (p->stmts[s]->tensor == t)
			return true;
	return false;
}

static void grid_loop(FILE *out, const char *n)
{
	fprintf(out,
		"\tfor (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < %s;\n"
		"\t     i += (int64_t)gridDim.x * blockDim.x)\n",
		n);
}

static void launch_kernel(solar_emit *e, const solar_launch *l, int idx)
{
	const solar_program *p = e->p;
	FILE *out = e->out;
	fprintf(out, "\n/* launch %d: kernel %s, S%d..S%d */\n", idx, p->kernels[l->kernel].name,
		l->first_stmt, l->first_stmt + l->nstmts - 1);
	fprintf(out, "extern \"C\" __global__ void __launch_bounds__(256) solar_launch_%d(", idx);
	for (int t = 0; t < p->ntensors; t++)
		fprintf(out, "%s%s%s *__restrict__ t_%s", t ? ", " : "", writes(p, l, t) ? "" : "const ",
			solar_emit_storage(p->tensors[t].dtype), p->tensors[t].name);
	fputs(")\n{\n", out);
	if (!l->parallel) {
		fputs("\tif (blockIdx.x != 0 || threadIdx.x != 0)\n\t\treturn;\n", out);
		e->indent = 1;
		solar_emit_node(e, l->node);
		fputs("}\n", out);
		return;
	}
	fprintf(out,
		"\tfor (int64_t tid_ = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; tid_ < %" PRId64
		"LL;\n\t     tid_ += (int64_t)gridDim.x * blockDim.x) {\n",
		l->threads);
	fputs("\t\tint64_t q_ = tid_;\n", out);
	for (int d = l->parallel - 1; d >= 0; d--) {
		const char *it = p->iters[chain_loop(l->node, d)->loop.iter].name;
		if (d > 0)
			fprintf(out,
				"\t\tconst int64_t i_%s = %" PRId64 "LL + %" PRId64 "LL * (q_ %% %" PRId64
				"LL);\n\t\tq_ /= %" PRId64 "LL;\n",
				it, l->lo[d], l->stride[d], l->count[d], l->count[d]);
		else
			fprintf(out, "\t\tconst int64_t i_%s = %" PRId64 "LL + %" PRId64 "LL * q_;\n",
				it, l->lo[d], l->stride[d]);
	}
	e->indent = 2;
	for (int d = 0; d < l->parallel; d++) {
		const solar_node *loop = chain_loop(l->node, d);
		const char *it = p->iters[loop->loop.iter].name;
		if (!l->guard[d])
			continue;
		fprintf(out, "\t\tif (i_%s < ", it);
		solar_emit_affine(e, loop->loop.lo);
		fprintf(out, " || i_%s >= ", it);
		solar_emit_affine(e, loop->loop.hi);
		if (l->stride[d] == 1 && loop->loop.step_value > 1) {
			fprintf(out, " || rt_xmod(i_%s - ", it);
			solar_emit_affine(e, loop->loop.lo);
			fprintf(out, ", %" PRId64 "LL) != 0", loop->loop.step_value);
		}
		fputs(")\n\t\t\tcontinue;\n", out);
	}
	solar_emit_block(e, &chain_loop(l->node, l->parallel - 1)->loop.body);
	fputs("\t}\n}\n", out);
}

char *solar_codegen_cuda(const solar_program *p, const char *file, const solar_plan *plan,
			 const solar_npy_type *in_type, const bool *rounded)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	fprintf(out, "/* CUDA program generated by solar %s from %s", SOLAR_VERSION, file);
	for (int i = 0; i < p->nparams; i++)
		fprintf(out, "%s%s=%" PRId64, i ? " " : ", ", p->params[i].name, p->params[i].value);
	fputs(".\n * AIR semantics and the thread mapping: docs/validate.md. */\n", out);
	fputs("typedef long long int64_t;\ntypedef unsigned long long uint64_t;\n"
	      "typedef int int32_t;\ntypedef unsigned int uint32_t;\n"
	      "typedef short int16_t;\ntypedef unsigned short uint16_t;\n"
	      "typedef signed char int8_t;\ntypedef unsigned char uint8_t;\n"
	      "#define RT_FN __device__ __forceinline__\n",
	      out);
	fputs(solar_rt_common, out);

	fputs("\n/* ---- inputs, poison, outputs ---- */\n", out);
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		const char *st = solar_emit_storage(t->dtype);
		char n[48];
		snprintf(n, sizeof n, "%" PRId64 "LL", solar_tensor_elements(t));
		if (solar_validate_from_file(t)) {
			solar_npy_type nt = in_type[i];
			fprintf(out, "extern \"C\" __global__ void solar_in_%s(const %s *__restrict__ src, "
				     "%s *__restrict__ dst)\n{\n",
				t->name, npy_ctype(nt), st);
			grid_loop(out, n);
			fputs("\t\tdst[i] = ", out);
			if (nt == SOLAR_NPY_F2)
				solar_emit_from_value(out, t->dtype, true, "(double)rt_f16_to_f32(src[i])");
			else if (solar_npy_is_float(nt))
				solar_emit_from_value(out, t->dtype, true, "(double)src[i]");
			else if (nt == SOLAR_NPY_B1)
				solar_emit_from_value(out, t->dtype, false, "(int64_t)(src[i] != 0)");
			else
				solar_emit_from_value(out, t->dtype, false, "(int64_t)src[i]");
			fputs(";\n}\n", out);
		} else {
			fprintf(out, "extern \"C\" __global__ void solar_poison_%s(%s *__restrict__ dst)\n{\n",
				t->name, st);
			grid_loop(out, n);
			fprintf(out, "\t\tdst[i] = %s;\n}\n", solar_emit_poison(t->dtype));
		}
		if (rounded && rounded[i]) {
			fprintf(out, "extern \"C\" __global__ void solar_round_%s(%s *__restrict__ t)\n{\n",
				t->name, st);
			grid_loop(out, n);
			fputs("\t\tt[i] = (double)(float)t[i];\n}\n", out);
		}
		if (t->role == SOLAR_ROLE_OUT || t->role == SOLAR_ROLE_INOUT) {
			bool widened;
			solar_npy_out_type(t->dtype, &widened);
			if (widened || t->dtype == SOLAR_DT_BOOL) {
				fprintf(out, "extern \"C\" __global__ void solar_out_%s(const %s *__restrict__ "
					     "src, %s *__restrict__ dst)\n{\n",
					t->name, st, widened ? "float" : "uint8_t");
				grid_loop(out, n);
				fputs("\t\tdst[i] = ", out);
				solar_emit_to_output(out, t->dtype, "src[i]");
				fputs(";\n}\n", out);
			}
		}
	}

	solar_emit e = {.p = p, .out = out};
	for (int i = 0; i < plan->nlaunch; i++)
		if (!plan->launch[i].empty)
			launch_kernel(&e, &plan->launch[i], i);
	fclose(out);
	return text;
}
