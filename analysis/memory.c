/* memory.c - the device memory a program needs (memory.h; docs/bounds.md, "Memory"). */
#include "memory.h"

#include <stdlib.h>

#include "../diag/alloc.h"

typedef struct {
	int first, last; /* kernels that touch the tensor: the first and the last (-1: none) */
	int first_write;  /* the first kernel that writes it (-1: none) */
} span;

static void touch(span *s, int k, bool write)
{
	if (s->first < 0 || k < s->first)
		s->first = k;
	if (k > s->last)
		s->last = k;
	if (write && (s->first_write < 0 || k < s->first_write))
		s->first_write = k;
}

typedef struct {
	span *sp;
	int k;
} walk;

static void visit(void *ctx, int t, bool write)
{
	walk *w = ctx;
	touch(&w->sp[t], w->k, write);
}

/* In double: a tensor of rank 100 and extent 2 has 2^100 elements (golden/count/rank100),
 * past int64_t (solar_tensor_elements would overflow). */
static double bytes(const solar_tensor *t)
{
	double n = solar_dtype_bytes(t->dtype);
	for (int k = 0; k < t->rank; k++)
		n *= (double)t->extent[k];
	return n;
}

/* Whether stage s's ranks hold tensor t (every rank without a pipeline, s < 0). */
static bool held(const solar_program *p, int t, int s)
{
	int st = solar_tensor_stage(&p->tensors[t]);
	return s < 0 || st < 0 || st == s;
}

/* The memory of stage s's ranks (s < 0: every rank's, without a pipeline): the tensors they
 * hold, over the kernels they run (a kernel of another stage touches none of them). */
static void memory_on(const solar_program *p, const span *sp, int stage, solar_memory *m)
{
	*m = (solar_memory){.peak_kernel = -1};
	for (int t = 0; t < p->ntensors; t++) {
		if (!held(p, t, stage))
			continue;
		const solar_tensor *x = &p->tensors[t];
		if (x->role == SOLAR_ROLE_IN)
			m->in_bytes += bytes(x);
		else if (x->role == SOLAR_ROLE_INOUT)
			m->inout_bytes += bytes(x);
		else if (x->role == SOLAR_ROLE_OUT)
			m->out_bytes += bytes(x);
	}
	m->least_bytes = m->in_bytes + m->inout_bytes + m->out_bytes;
	m->as_written_bytes = m->in_bytes + m->inout_bytes;
	for (int k = 0; k < p->nkernels; k++) {
		if (stage >= 0 && p->kernels[k].stage >= 0 && p->kernels[k].stage != stage &&
		    !(p->kernels[k].coll && p->kernels[k].coll->op == SOLAR_XOP_SEND &&
		      solar_tensor_stage(&p->tensors[p->kernels[k].coll->out]) == stage))
			continue;
		double live = m->in_bytes + m->inout_bytes, tmp = 0;
		int ntmp = 0;
		for (int t = 0; t < p->ntensors; t++) {
			if (!held(p, t, stage))
				continue;
			const solar_tensor *x = &p->tensors[t];
			const span *s = &sp[t];
			if (x->role == SOLAR_ROLE_OUT && s->first_write >= 0 && s->first_write <= k)
				live += bytes(x);
			else if (x->role == SOLAR_ROLE_TMP && s->first_write >= 0 &&
				 s->first_write < s->last && s->first_write <= k && k <= s->last) {
				live += bytes(x);
				tmp += bytes(x);
				ntmp++;
			}
		}
		if (m->peak_kernel < 0 || live > m->as_written_bytes) {
			m->as_written_bytes = live;
			m->peak_kernel = k;
			m->tmp_at_peak_bytes = tmp;
			m->tmp_at_peak = ntmp;
		}
	}
	/* an out tensor no kernel writes is still the program's result: held at the end */
	if (m->as_written_bytes < m->least_bytes)
		m->as_written_bytes = m->least_bytes;
}

void solar_memory_of(const solar_program *p, solar_memory *m)
{
	span *sp = solar_xcalloc((size_t)p->ntensors + 1, sizeof *sp);
	for (int t = 0; t < p->ntensors; t++)
		sp[t] = (span){-1, -1, -1};
	for (int k = 0; k < p->nkernels; k++)
		solar_ir_kernel_tensors(p, k, visit, &(walk){sp, k});
	memory_on(p, sp, -1, m);
	m->stage = -1;
	/* a pipeline: the largest stage's (docs/bounds.md "Pipelines") */
	int P = p->pipe_axis >= 0 ? (int)p->mesh[p->pipe_axis].value : 0;
	for (int s = 0; s < P; s++) {
		solar_memory one;
		memory_on(p, sp, s, &one);
		if (s == 0 || one.least_bytes > m->least_bytes ||
		    (one.least_bytes == m->least_bytes && one.as_written_bytes > m->as_written_bytes)) {
			*m = one;
			m->stage = s;
		}
	}
	free(sp);
}
