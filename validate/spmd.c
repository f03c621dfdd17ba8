/* spmd.c - a program on many ranks as one process (docs/validate.md, "Programs on many GPUs").
 *
 * AIR 1.2 says what one rank runs; `solar validate` runs every rank.  The single-process form
 * is an ordinary AIR 1.1 program: every tensor gains a leading rank dimension (x[B, D]
 * becomes x[R, B, D]), every compute kernel runs inside `for _rank in 0..R` with each access
 * indexed by the rank first, and every collective becomes the loops of its definition
 * (docs/air.md, "Many GPUs") over the ranks of each group of its axis.  A rank's coordinate on
 * an axis of size N and stride s is (_rank // s) % N, and its peer j on the axis is
 * _rank - ((_rank // s) % N) * s + j * s: affine, so the checks and backends of one rank's
 * programs run it unchanged.  A `partial(A)` output is summed over A at the end, so that each
 * rank's value is the whole tensor's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"
#include "diag/alloc.h"

typedef struct {
	const solar_program *p;
	FILE *f;
	int64_t R;
	int stage; /* the stage of the kernel being written (-1: every rank runs it) */
} unroll;

/* A rank's coordinate on axis a, and its peer `j` there (j: an iterator or a literal). */
static void coord(const unroll *u, int a, char *buf, size_t n)
{
	snprintf(buf, n, "((_rank // %" PRId64 ") %% %" PRId64 ")", solar_mesh_stride(u->p, a),
		 u->p->mesh[a].value);
}

static void peer(const unroll *u, int a, const char *j, char *buf, size_t n)
{
	int64_t s = solar_mesh_stride(u->p, a);
	char c[96];
	coord(u, a, c, sizeof c);
	snprintf(buf, n, "_rank - %s * %" PRId64 " + %s * %" PRId64, c, s, j, s);
}

/* `  for _rank in 0..R[, extra], _x0 in 0..E0, ... {` over t's dims, dim d over dlen (> 0) */
static void loops(const unroll *u, const solar_tensor *t, const char *extra, int d, int64_t dlen)
{
	fprintf(u->f, "  for _rank in 0..%" PRId64, u->R);
	if (extra)
		fprintf(u->f, ", %s", extra);
	for (int k = 0; k < t->rank; k++) {
		fprintf(u->f, ", _x%d in 0..", k);
		if (k == d && dlen > 0)
			fprintf(u->f, "%" PRId64, dlen);
		else
			solar_ir_print_expr(u->p, t->dims[k], u->f);
	}
	fputs(" {\n", u->f);
	if (u->stage >= 0) { /* a pipeline stage's kernel: its ranks only */
		char c[96];
		coord(u, u->p->pipe_axis, c, sizeof c);
		fprintf(u->f, "  if %s == %d {\n", c, u->stage);
	}
}

/* the end of loops()'s body */
static void end(const unroll *u)
{
	fputs(u->stage >= 0 ? "  }\n  }\n" : "  }\n", u->f);
}

/* NAME[rank, _x0, ..., _xk], dim d's index `di` instead of _xd when di is not NULL */
static void at(const unroll *u, const char *name, int rank, const char *r, int d, const char *di)
{
	fprintf(u->f, "%s[%s", name, r);
	for (int k = 0; k < rank; k++) {
		if (k == d && di)
			fprintf(u->f, ", %s", di);
		else
			fprintf(u->f, ", _x%d", k);
	}
	fputc(']', u->f);
}

/* dst = the reduction (red) over axis a's ranks of src, read at dim d's index di (NULL: the
 * same index), through the accumulator acc: `acc = src@peer 0; for _peer in 1..N { acc op=
 * src@peer }; dst = acc`. */
static void reduce(const unroll *u, const solar_tensor *dst, const solar_tensor *src,
		   const char *acc, int a, solar_xred red, int d, const char *di)
{
	char p0[256], pj[256];
	peer(u, a, "0", p0, sizeof p0);
	peer(u, a, "_peer", pj, sizeof pj);
	loops(u, dst, NULL, -1, 0);
	fputs("    ", u->f);
	at(u, acc, dst->rank, "_rank", -1, NULL);
	fputs(" = ", u->f);
	at(u, src->name, src->rank, p0, d, di);
	fprintf(u->f, ";\n    for _peer in 1..%" PRId64 " {\n      ", u->p->mesh[a].value);
	at(u, acc, dst->rank, "_rank", -1, NULL);
	fputs(red == SOLAR_XRED_MAX ? " max= " : " += ", u->f);
	at(u, src->name, src->rank, pj, d, di);
	fputs(";\n    }\n", u->f);
	end(u);
	loops(u, dst, NULL, -1, 0);
	fputs("    ", u->f);
	at(u, dst->name, dst->rank, "_rank", -1, NULL);
	fputs(" = ", u->f);
	at(u, acc, dst->rank, "_rank", -1, NULL);
	fputs(";\n", u->f);
	end(u);
}

/* OUT[r, .., _peer * L + _xd, ..] = IN[peer, .., src_d, ..] over IN's dims (dim d over L) and
 * the axis's ranks: an all-gather (src_d = _xd) or an all-to-all (src_d = coord * L + _xd). */
static void blocks(const unroll *u, const solar_collective *c, bool exchange)
{
	const solar_program *p = u->p;
	const solar_tensor *out = &p->tensors[c->out], *in = &p->tensors[c->in];
	int64_t N = p->mesh[c->axis].value;
	int64_t L = exchange ? in->extent[c->dim] / N : in->extent[c->dim];
	char extra[64], dst[96], src[192], pj[256], cr[96];
	snprintf(extra, sizeof extra, "_peer in 0..%" PRId64, N);
	snprintf(dst, sizeof dst, "_peer * %" PRId64 " + _x%d", L, c->dim);
	coord(u, c->axis, cr, sizeof cr);
	if (exchange)
		snprintf(src, sizeof src, "%s * %" PRId64 " + _x%d", cr, L, c->dim);
	else
		snprintf(src, sizeof src, "_x%d", c->dim);
	peer(u, c->axis, "_peer", pj, sizeof pj);
	loops(u, in, extra, c->dim, L);
	fputs("    ", u->f);
	at(u, out->name, out->rank, "_rank", c->dim, dst);
	fputs(" = ", u->f);
	at(u, in->name, in->rank, pj, c->dim, src);
	fputs(";\n", u->f);
	end(u);
}

static void collective(const unroll *u, const solar_kernel *kn, int k)
{
	const solar_program *p = u->p;
	const solar_collective *c = kn->coll;
	const solar_tensor *out = &p->tensors[c->out], *in = &p->tensors[c->in];
	char acc[32], idx[192], cr[96];
	snprintf(acc, sizeof acc, "_acc%d", k);
	fprintf(u->f, "kernel %s {\n", kn->name);
	switch (c->op) {
	case SOLAR_XOP_ALL_REDUCE:
		reduce(u, out, in, acc, c->axis, c->red, -1, NULL);
		break;
	case SOLAR_XOP_REDUCE_SCATTER:
		coord(u, c->axis, cr, sizeof cr);
		snprintf(idx, sizeof idx, "%s * %" PRId64 " + _x%d", cr, out->extent[c->dim], c->dim);
		reduce(u, out, in, acc, c->axis, c->red, c->dim, idx);
		break;
	case SOLAR_XOP_ALL_GATHER:
		blocks(u, c, false);
		break;
	case SOLAR_XOP_ALL_TO_ALL:
		blocks(u, c, true);
		break;
	case SOLAR_XOP_BROADCAST: {
		char root[32], pr[256];
		snprintf(root, sizeof root, "%" PRId64, c->root);
		peer(u, c->axis, root, pr, sizeof pr);
		loops(u, out, NULL, -1, 0);
		fputs("    ", u->f);
		at(u, out->name, out->rank, "_rank", -1, NULL);
		fputs(" = ", u->f);
		at(u, out->name, out->rank, pr, -1, NULL);
		fputs(";\n", u->f);
		end(u);
		break;
	}
	case SOLAR_XOP_SEND: { /* OUT of the peer at the destination stage = IN */
		char to[32], pr[256];
		snprintf(to, sizeof to, "%d", solar_tensor_stage(out));
		peer(u, c->axis, to, pr, sizeof pr);
		loops(u, in, NULL, -1, 0);
		fputs("    ", u->f);
		at(u, out->name, out->rank, pr, -1, NULL);
		fputs(" = ", u->f);
		at(u, in->name, in->rank, "_rank", -1, NULL);
		fputs(";\n", u->f);
		end(u);
		break;
	}
	default:
		break;
	}
	fputs("}\n\n", u->f);
}

/* The accumulator of a reducing collective (or of a partial output's sum): f32 for a float
 * tensor narrower than f64 (as NCCL reduces them), the tensor's dtype otherwise. */
static void accumulator(const unroll *u, const char *name, const solar_tensor *t)
{
	solar_dtype dt = t->dtype == SOLAR_DT_F64 || !solar_dtype_is_float(t->dtype) ? t->dtype
										     : SOLAR_DT_F32;
	fprintf(u->f, "tmp %s[%" PRId64, name, u->R);
	for (int k = 0; k < t->rank; k++) {
		fputs(", ", u->f);
		solar_ir_print_expr(u->p, t->dims[k], u->f);
	}
	fprintf(u->f, "]: %s;\n", solar_dtype_name(dt));
}

static const solar_layout *partial_of(const solar_tensor *t)
{
	for (int l = 0; l < t->nlayout; l++)
		if (t->layout[l].kind == SOLAR_LAYOUT_PARTIAL)
			return &t->layout[l];
	return NULL;
}

char *solar_spmd_unroll(const solar_program *p, const char *file)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		solar_out_of_memory();
	unroll u = {p, f, solar_program_ranks(p), -1};
	fprintf(f, "# %s as one process: its %" PRId64 " ranks side by side (solar validate, "
		   "docs/validate.md \"Programs on many GPUs\").\nair 1.1;\n\n",
		file, u.R);
	/* rank(A) is the rank's coordinate on A, an affine form of _rank */
	char **rank_text = solar_xcalloc((size_t)p->nparams + 1, sizeof *rank_text);
	bool ranked = false;
	for (int i = 0; i < p->nparams; i++)
		if (p->params[i].axis >= 0) {
			rank_text[i] = solar_xcalloc(96, 1);
			coord(&u, p->params[i].axis, rank_text[i], 96);
			ranked = true;
		}
	/* with rank(A), whose offsets multiply sizes (rank(cp) * (S // 4)), the sizes are consts:
	 * the coordinate is an iterator here, and an iterator times a param is not affine */
	for (int i = 0; i < p->nparams; i++)
		if (p->params[i].axis < 0)
			fprintf(f, "%s %s = %" PRId64 ";\n", ranked ? "const" : "param",
				p->params[i].name, p->params[i].value);
	for (int i = 0; i < p->nconsts; i++)
		fprintf(f, "const %s = %" PRId64 ";\n", p->consts[i].name, p->consts[i].value);
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		fprintf(f, "%s %s[%" PRId64, solar_role_name(t->role), t->name, u.R);
		for (int k = 0; k < t->rank; k++) {
			fputs(", ", f);
			solar_ir_print_expr(p, t->dims[k], f);
		}
		fprintf(f, "]: %s", solar_dtype_name(t->dtype));
		if (t->range_hi)
			fprintf(f, " in %" PRId64 "..%" PRId64, t->range[0], t->range[1]);
		if (t->dist != SOLAR_DIST_NONE)
			fprintf(f, " %s", solar_dist_name(t->dist));
		fputs(";\n", f);
	}
	for (int k = 0; k < p->nkernels; k++) {
		const solar_collective *c = p->kernels[k].coll;
		if (c && (c->op == SOLAR_XOP_ALL_REDUCE || c->op == SOLAR_XOP_REDUCE_SCATTER)) {
			char name[32];
			snprintf(name, sizeof name, "_acc%d", k);
			accumulator(&u, name, &p->tensors[c->out]);
		}
	}
	for (int i = 0; i < p->ntensors; i++)
		if (partial_of(&p->tensors[i]) && p->tensors[i].role != SOLAR_ROLE_TMP) {
			char name[32];
			snprintf(name, sizeof name, "_sum%d", i);
			accumulator(&u, name, &p->tensors[i]);
		}
	fputc('\n', f);
	solar_print_opts o = {.access_prefix = "_rank",
			      .param_text = (const char *const *)rank_text};
	for (int k = 0; k < p->nkernels; k++) {
		const solar_kernel *kn = &p->kernels[k];
		u.stage = kn->stage;
		if (kn->coll) {
			collective(&u, kn, k);
			continue;
		}
		fprintf(f, "kernel %s ", kn->name);
		if (kn->math != SOLAR_MATH_DEFAULT)
			fprintf(f, "[math = %s] ", solar_math_name(kn->math));
		fprintf(f, "{\n  for _rank in 0..%" PRId64 " {\n", u.R);
		if (kn->stage >= 0) {
			char c[96];
			coord(&u, p->pipe_axis, c, sizeof c);
			fprintf(f, "  if %s == %d {\n", c, kn->stage);
		}
		solar_ir_print_block_with(p, &kn->body, 2, &o, f);
		fputs(kn->stage >= 0 ? "  }\n  }\n}\n\n" : "  }\n}\n\n", f);
	}
	u.stage = -1;
	/* stage(A, s) results: every rank takes the value its peer of stage s holds, so that each
	 * rank's is the whole model's (the other stages never computed it) */
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		int st = solar_tensor_stage(t);
		if (st < 0 || (t->role != SOLAR_ROLE_OUT && t->role != SOLAR_ROLE_INOUT))
			continue;
		char from[32], pr[256];
		snprintf(from, sizeof from, "%d", st);
		peer(&u, p->pipe_axis, from, pr, sizeof pr);
		fprintf(f, "kernel _stage_%s {\n", t->name);
		loops(&u, t, NULL, -1, 0);
		fputs("    ", f);
		at(&u, t->name, t->rank, "_rank", -1, NULL);
		fputs(" = ", f);
		at(&u, t->name, t->rank, pr, -1, NULL);
		fputs(";\n", f);
		end(&u);
		fputs("}\n\n", f);
	}
	/* partial(A) outputs: the sum over A, so that every rank holds the whole tensor */
	for (int i = 0; i < p->ntensors; i++) {
		const solar_tensor *t = &p->tensors[i];
		const solar_layout *l = partial_of(t);
		if (!l || t->role == SOLAR_ROLE_TMP)
			continue;
		char name[32];
		snprintf(name, sizeof name, "_sum%d", i);
		fprintf(f, "kernel _sum_%s {\n", t->name);
		reduce(&u, t, t, name, l->axis, SOLAR_XRED_SUM, -1, NULL);
		fputs("}\n\n", f);
	}
	for (int i = 0; i < p->nparams; i++)
		free(rank_text[i]);
	free(rank_text);
	if (fclose(f) != 0 || !text)
		solar_out_of_memory();
	return text;
}
