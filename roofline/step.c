/* step.c - the rules of docs/bounds.md, "Programs on many GPUs": a program's bounds on one
 * rank of a system, its collectives over the mesh's axes included.
 */
#include "step.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag/alloc.h"

int solar_step_axis_placement(const solar_program *p, int a, int G, int *g, char *err,
			      size_t nerr)
{
	int64_t n = p->mesh[a].value, st = solar_mesh_stride(p, a);
	if (solar_program_ranks(p) <= G) { /* the whole mesh in one node (64 ranks of an NVL72) */
		*g = (int)n;
		return 0;
	}
	if (st * n <= G) {
		if (G % (st * n)) {
			snprintf(err, nerr,
				 "the %" PRId64 " ranks of each '%s' group (stride %" PRId64
				 ") straddle nodes of %d GPUs",
				 n, p->mesh[a].name, st, G);
			return -1;
		}
		*g = (int)n;
	} else if (st >= G) {
		if (st % G) {
			snprintf(err, nerr,
				 "the ranks of each '%s' group (stride %" PRId64
				 ") fall at different places of nodes of %d GPUs",
				 p->mesh[a].name, st, G);
			return -1;
		}
		*g = 1;
	} else {
		if (G % st || n % (G / st)) {
			snprintf(err, nerr,
				 "the %" PRId64 " ranks of each '%s' group (stride %" PRId64
				 ") do not split evenly over nodes of %d GPUs",
				 n, p->mesh[a].name, st, G);
			return -1;
		}
		*g = (int)(G / st);
	}
	return 0;
}

static solar_coll_op coll_op(solar_xop op)
{
	switch (op) {
	case SOLAR_XOP_ALL_REDUCE:
		return SOLAR_COLL_ALL_REDUCE;
	case SOLAR_XOP_ALL_GATHER:
		return SOLAR_COLL_ALL_GATHER;
	case SOLAR_XOP_REDUCE_SCATTER:
		return SOLAR_COLL_REDUCE_SCATTER;
	case SOLAR_XOP_ALL_TO_ALL:
		return SOLAR_COLL_ALL_TO_ALL;
	case SOLAR_XOP_SEND:
		return SOLAR_COLL_SEND;
	default:
		return SOLAR_COLL_BROADCAST;
	}
}

/* S of docs/bounds.md "Collectives": the buffer every rank holds whole -- the in-place tensor,
 * the gathered OUT, the scattered IN, the exchanged IN. */
static double coll_bytes(const solar_program *p, const solar_collective *c)
{
	int t = c->op == SOLAR_XOP_ALL_GATHER ? c->out : c->in;
	return (double)solar_tensor_elements(&p->tensors[t]) *
	       solar_dtype_bytes(p->tensors[t].dtype);
}

/* The term of bound b for a resource ("rank links", "node network"), 0 when it has none. */
static double term(const solar_coll_bound *b, const char *resource)
{
	for (int i = 0; i < b->nterms; i++)
		if (!strcmp(b->terms[i].resource, resource))
			return b->terms[i].time_s;
	return 0;
}

/* Rule "fused on many GPUs": the part of a collective's rank-links (or node-network) term t,
 * over n ranks (or nodes), that its rank (node) must send and must receive.  An all-reduce
 * and an all-to-all move their bytes both ways; an all-gather receives t and sends at least
 * its own block, t / (n - 1) (the (n-1)/n of S it receives against the S/n it holds, which
 * no other rank has); a reduce-scatter sends t and receives at least its reduced block,
 * t / (n - 1) (every element of it needs one element from another rank).  A broadcast and a
 * send load one side of one rank only, which rank is not counted here: 0 each way (their
 * own term still floors the bound). */
static void directions(solar_coll_op op, double t, int n, double *send, double *recv)
{
	*send = *recv = 0;
	switch (op) {
	case SOLAR_COLL_ALL_REDUCE:
	case SOLAR_COLL_ALL_TO_ALL:
		*send = *recv = t;
		break;
	case SOLAR_COLL_ALL_GATHER:
		*recv = t;
		*send = n > 1 ? t / (n - 1) : 0;
		break;
	case SOLAR_COLL_REDUCE_SCATTER:
		*send = t;
		*recv = n > 1 ? t / (n - 1) : 0;
		break;
	default:
		break;
	}
}

/* The tensors kernel k reads and writes, gathered as two lists (flags over the program's
 * tensors mark what is listed already). */
typedef struct {
	bool *rd, *wr;
	int *rl, *wl, nr, nw;
} access;

static void visit(void *ctx, int t, bool write)
{
	access *a = ctx;
	if (write && !a->wr[t]) {
		a->wr[t] = true;
		a->wl[a->nw++] = t;
	} else if (!write && !a->rd[t]) {
		a->rd[t] = true;
		a->rl[a->nr++] = t;
	}
}

/* The latest finish among the kernels so far that read (or write) a tensor, and the first
 * kernel that reached it. */
typedef struct {
	double finish;
	int kernel;
} latest;

static void later(latest *l, double finish, int kernel)
{
	if (l->kernel < 0 || finish > l->finish)
		*l = (latest){finish, kernel};
}

/* ---- pipelines (docs/bounds.md "Pipelines") ---------------------------------------------- */

/* One rank's walk of rule "unfused on many GPUs" for every stage at once: per stage, the
 * latest kernel to read and to write each tensor, its compute queue and its collective queues.
 * A kernel of every stage is walked on each stage; a send on its two. */
typedef struct {
	const solar_program *p;
	const solar_bounds *b;
	int P, T, nq;
	latest *wrote, *read; /* [stage * T + tensor] */
	int *queue;	      /* [stage * nq + q]: the last kernel of queue q (-1: none) */
	double *qfinish;      /* its finish */
	double *finish;	      /* [kernel * P + stage]: the kernel's finish there */
	access ac;
} pwalk;

/* The queue of kernel k: 0 the compute kernels, then one per axis and kind of collective; -1
 * for a send, which waits on no queue (a stage's send forward and its send back run at once,
 * in the link's two directions, as Megatron's batched send and receive do). */
static int pqueue(const solar_program *p, int k)
{
	const solar_collective *c = p->kernels[k].coll;
	if (c && c->op == SOLAR_XOP_SEND)
		return -1;
	return c ? 1 + c->axis * SOLAR_XOP_COUNT + c->op : 0;
}

/* The latest finish on stage s among what k must follow there: its queue, the writers of what
 * it reads or writes (of `only` when >= 0), the readers of what it writes. */
static double pdeps(const pwalk *w, int k, int s, int only)
{
	double start = 0;
	int q = s * w->nq + pqueue(w->p, k);
	if (pqueue(w->p, k) >= 0 && w->queue[q] >= 0)
		start = w->qfinish[q];
	for (int i = 0; i < w->ac.nr + w->ac.nw; i++) {
		int t = i < w->ac.nr ? w->ac.rl[i] : w->ac.wl[i - w->ac.nr];
		if (only >= 0 && t != only)
			continue;
		const latest *wr = &w->wrote[s * w->T + t], *rd = &w->read[s * w->T + t];
		if (wr->kernel >= 0)
			start = fmax(start, wr->finish);
		if (i >= w->ac.nr && rd->kernel >= 0)
			start = fmax(start, rd->finish);
	}
	return start;
}

static void pmark(pwalk *w, int k, int s, double finish, int only)
{
	if (pqueue(w->p, k) >= 0) {
		int q = s * w->nq + pqueue(w->p, k);
		w->queue[q] = k;
		w->qfinish[q] = finish;
	}
	for (int i = 0; i < w->ac.nr + w->ac.nw; i++) {
		int t = i < w->ac.nr ? w->ac.rl[i] : w->ac.wl[i - w->ac.nr];
		if (only < 0 || t == only)
			later(i < w->ac.nr ? &w->read[s * w->T + t] : &w->wrote[s * w->T + t], finish,
			      k);
	}
	w->finish[(size_t)k * w->P + s] = finish;
}

/* The walk over the kernels in program order (reverse: from the last): each kernel's finish on
 * each stage it runs on (reversed: the longest path from its start to the end of the step). */
static void pwalk_run(pwalk *w, bool reverse)
{
	const solar_program *p = w->p;
	int K = p->nkernels;
	for (size_t i = 0; i < (size_t)w->P * w->T; i++)
		w->wrote[i].kernel = w->read[i].kernel = -1;
	for (int i = 0; i < w->P * w->nq; i++)
		w->queue[i] = -1;
	for (int j = 0; j < K; j++) {
		int k = reverse ? K - 1 - j : j;
		const solar_kernel *kn = &p->kernels[k];
		double time = w->b->kernel[k].time_s;
		w->ac.nr = w->ac.nw = 0;
		solar_ir_kernel_tensors(p, k, visit, &w->ac);
		if (kn->coll && kn->coll->op == SOLAR_XOP_SEND) {
			int in = kn->coll->in, out = kn->coll->out;
			int from = solar_tensor_stage(&p->tensors[in]);
			int to = solar_tensor_stage(&p->tensors[out]);
			double start = fmax(pdeps(w, k, from, in), pdeps(w, k, to, out));
			pmark(w, k, from, start + time, in);
			pmark(w, k, to, start + time, out);
		} else {
			for (int s = kn->stage < 0 ? 0 : kn->stage;
			     s < (kn->stage < 0 ? w->P : kn->stage + 1); s++)
				pmark(w, k, s, pdeps(w, k, s, -1) + time, -1);
		}
		for (int i = 0; i < w->ac.nr; i++)
			w->ac.rd[w->ac.rl[i]] = false;
		for (int i = 0; i < w->ac.nw; i++)
			w->ac.wr[w->ac.wl[i]] = false;
	}
}

/* A kernel of stage s's micro-batch: when it may start (a), how long the step must still run
 * after it ends (z), its bound and its queue. */
typedef struct {
	double a, z, w;
	int q;
} pitem;

static int by_a(const void *x, const void *y)
{
	double d = ((const pitem *)y)->a - ((const pitem *)x)->a;
	return d > 0 ? 1 : d < 0 ? -1 : 0;
}

static int by_z(const void *x, const void *y)
{
	double d = ((const pitem *)y)->z - ((const pitem *)x)->z;
	return d > 0 ? 1 : d < 0 ? -1 : 0;
}

/* Rule "unfused pipeline" over n items sorted by a (by_z: by z) from the largest: for each
 * threshold, the items at or past it run M times each, their queue's kernels one at a time,
 * between the threshold and the end less the least tail (head) among them. */
static double sweep(pitem *it, int n, int nq, double M, bool by_tail)
{
	double *sum = solar_xcalloc((size_t)nq + 1, sizeof *sum);
	double best = 0, most = 0, least = INFINITY;
	for (int i = 0; i < n; i++) {
		sum[it[i].q] += it[i].w;
		most = fmax(most, sum[it[i].q]);
		least = fmin(least, by_tail ? it[i].a : it[i].z);
		double thr = by_tail ? it[i].z : it[i].a;
		if (i + 1 < n && (by_tail ? it[i + 1].z : it[i + 1].a) == thr)
			continue; /* ties: the whole set at this threshold */
		best = fmax(best, thr + M * most + least);
	}
	free(sum);
	return best;
}

static void pipeline(const solar_program *p, solar_bounds *b, solar_step *st)
{
	int P = b->nstages, K = p->nkernels, T = p->ntensors;
	double M = (double)p->microbatches;
	st->nstages = P;
	st->stage = solar_xcalloc((size_t)P, sizeof *st->stage);
	/* rule "fused pipeline": each stage's ops and own traffic (roofline.c), and its share of
	 * the communication, a send sent by one stage and received by the other */
	int best = 0;
	for (int s = 0; s < P; s++) {
		solar_roof *r = &st->stage[s].fused;
		*r = b->stage[s];
		double snd = 0, rcv = 0, one = 0, nsnd = 0, nrcv = 0, none = 0;
		for (int i = 0; i < st->ncoll; i++) {
			const solar_step_coll *sc = &st->coll[i];
			const solar_collective *c = p->kernels[sc->kernel].coll;
			if (!solar_kernel_on_stage(p, sc->kernel, s))
				continue;
			double m = solar_kernel_runs_once(&p->kernels[sc->kernel]) ? 1 : M;
			double links = term(&sc->bound, "rank links");
			double net = term(&sc->bound, "node network") * sc->net_share;
			double x, y;
			if (c->op == SOLAR_XOP_SEND) {
				bool out = solar_tensor_stage(&p->tensors[c->in]) == s;
				x = out ? links : 0;
				y = out ? 0 : links;
				snd += m * x;
				rcv += m * y;
				nsnd += m * (out ? net : 0);
				nrcv += m * (out ? 0 : net);
			} else {
				directions(sc->bound.op, links, (int)sc->bound.ranks, &x, &y);
				snd += m * x;
				rcv += m * y;
				directions(sc->bound.op, net, sc->bound.nodes, &x, &y);
				nsnd += m * x;
				nrcv += m * y;
			}
			one = fmax(one, b->kernel[sc->kernel].res_s[SOLAR_RES_LINKS]);
			none = fmax(none, net);
		}
		r->res_s[SOLAR_RES_LINKS] = fmax(one, fmax(snd, rcv));
		r->res_s[SOLAR_RES_NETWORK] = fmax(none, fmax(nsnd, nrcv));
		solar_roof_finish(r);
		if (r->time_s > st->stage[best].fused.time_s)
			best = s;
	}
	b->fused = b->cache_aware = st->stage[best].fused;

	/* rule "unfused pipeline": the walks forward and backward, then each stage's sweeps */
	pwalk w = {.p = p, .b = b, .P = P, .T = T, .nq = 1 + p->nmesh * SOLAR_XOP_COUNT};
	w.wrote = solar_xcalloc((size_t)P * T + 1, sizeof *w.wrote);
	w.read = solar_xcalloc((size_t)P * T + 1, sizeof *w.read);
	w.queue = solar_xcalloc((size_t)P * w.nq + 1, sizeof *w.queue);
	w.qfinish = solar_xcalloc((size_t)P * w.nq + 1, sizeof *w.qfinish);
	w.ac = (access){solar_xcalloc((size_t)T + 1, 1), solar_xcalloc((size_t)T + 1, 1),
			solar_xcalloc((size_t)T + 1, sizeof(int)),
			solar_xcalloc((size_t)T + 1, sizeof(int)), 0, 0};
	double *fwd = solar_xcalloc((size_t)K * P + 1, sizeof *fwd);
	for (size_t i = 0; i < (size_t)K * P; i++)
		fwd[i] = -1;
	w.finish = fwd;
	pwalk_run(&w, false);
	double *bwd = solar_xcalloc((size_t)K * P + 1, sizeof *bwd);
	w.finish = bwd;
	pwalk_run(&w, true);
	st->finish_s = solar_xcalloc((size_t)K + 1, sizeof *st->finish_s);
	double span = 0;
	for (int k = 0; k < K; k++)
		for (int s = 0; s < P; s++)
			if (fwd[(size_t)k * P + s] >= 0) {
				st->finish_s[k] = fmax(st->finish_s[k], fwd[(size_t)k * P + s]);
				if (fwd[(size_t)k * P + s] >= span) {
					span = fwd[(size_t)k * P + s];
					st->critical = k;
				}
			}
	pitem *it = solar_xcalloc((size_t)K + 1, sizeof *it);
	int slow = 0;
	for (int s = 0; s < P; s++) {
		int n = 0;
		for (int k = 0; k < K; k++) {
			double f = fwd[(size_t)k * P + s];
			/* a send adds to no queue: it would only lower min z or min a */
			if (f < 0 || solar_kernel_runs_once(&p->kernels[k]) || pqueue(p, k) < 0)
				continue;
			double wk = b->kernel[k].time_s;
			it[n++] = (pitem){f - wk, bwd[(size_t)k * P + s] - wk, wk, pqueue(p, k)};
		}
		double t = span;
		qsort(it, (size_t)n, sizeof *it, by_a);
		t = fmax(t, sweep(it, n, w.nq, M, false));
		qsort(it, (size_t)n, sizeof *it, by_z);
		t = fmax(t, sweep(it, n, w.nq, M, true));
		st->stage[s].unfused_s = fmax(t, st->stage[s].fused.time_s);
		if (st->stage[s].unfused_s > st->stage[slow].unfused_s)
			slow = s;
	}
	b->unfused = st->stage[slow].fused;
	b->unfused.time_s = st->stage[slow].unfused_s;
	/* the kernels as written move their own traffic, M times per micro-batch kernel */
	b->unfused.dram_bytes = b->unfused.l2_bytes = 0;
	for (int k = 0; k < K; k++)
		if (solar_kernel_on_stage(p, k, slow)) {
			double m = solar_kernel_runs_once(&p->kernels[k]) ? 1 : M;
			b->unfused.dram_bytes += m * b->kernel[k].dram_bytes;
			b->unfused.l2_bytes += m * b->kernel[k].l2_bytes;
		}
	/* the kernels as written move at least the stage's compulsory bytes */
	b->unfused.dram_bytes = fmax(b->unfused.dram_bytes, st->stage[slow].fused.dram_bytes);
	st->slowest = slow;
	free(it);
	free(fwd);
	free(bwd);
	free(w.wrote);
	free(w.read);
	free(w.queue);
	free(w.qfinish);
	free(w.ac.rd);
	free(w.ac.wr);
	free(w.ac.rl);
	free(w.ac.wl);
}

int solar_step_apply(const solar_program *p, const solar_system *sys, solar_bounds *b,
		     solar_step *st, solar_diag *diag)
{
	memset(st, 0, sizeof *st);
	st->critical = -1;
	int G = sys->gpus_per_node, gpus = solar_system_gpus(sys);
	st->ranks = solar_program_ranks(p);
	const solar_span at = p->nmesh ? p->mesh[0].span : (solar_span){0, 0};
	if (st->ranks > gpus || (st->ranks > G && st->ranks % G)) {
		solar_diag_error(diag, at,
				 "the mesh has %" PRId64 " ranks, but %s %s (%d node%s of %d GPUs)",
				 st->ranks, sys->name,
				 st->ranks > gpus ? "has fewer GPUs" : "cannot hold them in whole nodes",
				 sys->nodes, sys->nodes == 1 ? "" : "s", G);
		return -1;
	}
	int *g = solar_xcalloc((size_t)p->nmesh + 1, sizeof *g);
	for (int a = 0; a < p->nmesh; a++) {
		char err[256];
		if (solar_step_axis_placement(p, a, G, &g[a], err, sizeof err)) {
			solar_diag_error(diag, p->mesh[a].span, "%s", err);
			free(g);
			return -1;
		}
	}
	st->coll = solar_xcalloc((size_t)p->nkernels + 1, sizeof *st->coll);
	st->comm_axis_s = solar_xcalloc((size_t)p->nmesh + 1, sizeof *st->comm_axis_s);
	/* rule "fused on many GPUs": what one rank's ports must send and receive, and one
	 * node's network, in seconds at their bandwidths, each direction apart */
	double links_send = 0, links_recv = 0, links_one = 0;
	double net_send = 0, net_recv = 0, net_one = 0;
	for (int k = 0; k < p->nkernels; k++) {
		const solar_collective *c = p->kernels[k].coll;
		if (!c)
			continue;
		solar_step_coll *sc = &st->coll[st->ncoll++];
		sc->kernel = k;
		sc->axis = c->axis;
		char err[256];
		int n = (int)p->mesh[c->axis].value, gn = g[c->axis];
		if (c->op == SOLAR_XOP_SEND) { /* two ranks: in one node, or in two */
			int from = solar_tensor_stage(&p->tensors[c->in]);
			int to = solar_tensor_stage(&p->tensors[c->out]);
			n = 2;
			gn = from / gn == to / gn ? 2 : 1;
		}
		if (solar_collective_bound_placed(sys, coll_op(c->op), coll_bytes(p, c), n, gn,
						  &sc->bound, err, sizeof err)) {
			solar_diag_error(diag, c->span, "%s", err);
			free(g);
			solar_step_free(st);
			return -1;
		}
		/* rule "collective kernels": the kernel's bound is the collective's; its DRAM
		 * term stays the larger of the collective's and the kernel's own count */
		solar_roof *r = &b->kernel[k];
		double links = term(&sc->bound, "rank links"), net = term(&sc->bound, "node network");
		r->res_s[SOLAR_RES_LINKS] = links;
		r->res_s[SOLAR_RES_NETWORK] = net;
		r->res_s[SOLAR_RES_DRAM] = fmax(r->res_s[SOLAR_RES_DRAM], term(&sc->bound, "DRAM"));
		solar_roof_finish(r);
		r->time_s += sc->bound.latency_s;
		st->comm_axis_s[c->axis] += r->time_s;
		double snd, rcv;
		directions(sc->bound.op, links, n, &snd, &rcv);
		links_send += snd;
		links_recv += rcv;
		links_one = fmax(links_one, links);
		/* the G / g groups of the axis that share a node all run it (SPMD) */
		double share = (double)G / gn;
		sc->net_share = share;
		directions(sc->bound.op, net, sc->bound.nodes, &snd, &rcv);
		net_send += snd * share;
		net_recv += rcv * share;
		net_one = fmax(net_one, net * share);
	}
	free(g);
	if (p->pipe_axis >= 0) {
		pipeline(p, b, st);
		return 0;
	}
	if (!st->ncoll) /* one GPU's rules, unchanged */
		return 0;

	/* Rule "unfused on many GPUs": compute kernels in program order, each axis's collectives
	 * of one kind in program order, a kernel after every earlier one it shares a written
	 * tensor with. */
	int K = p->nkernels, T = p->ntensors;
	access ac = {solar_xcalloc((size_t)T + 1, 1), solar_xcalloc((size_t)T + 1, 1),
		     solar_xcalloc((size_t)T + 1, sizeof(int)), solar_xcalloc((size_t)T + 1, sizeof(int)),
		     0, 0};
	/* per tensor: the latest-finishing kernel so far that wrote it, and that read it; a
	 * kernel that reads or writes t comes after the writers, one that writes t after the
	 * readers too (the order two kernels sharing a written tensor must keep) */
	latest *wrote = solar_xcalloc((size_t)T + 1, sizeof *wrote);
	latest *read = solar_xcalloc((size_t)T + 1, sizeof *read);
	for (int t = 0; t < T; t++)
		wrote[t].kernel = read[t].kernel = -1;
	st->finish_s = solar_xcalloc((size_t)K + 1, sizeof *st->finish_s);
	int *prev = solar_xcalloc((size_t)K + 1, sizeof *prev);
	int last_compute = -1;
	/* per axis and kind of collective: the last one so far (one stream's queue) */
	int nchains = p->nmesh * SOLAR_XOP_COUNT;
	int *last_axis = solar_xcalloc((size_t)nchains + 1, sizeof *last_axis);
	for (int a = 0; a < nchains; a++)
		last_axis[a] = -1;
	double span = 0;
	for (int k = 0; k < K; k++) {
		const solar_collective *c = p->kernels[k].coll;
		int *queue = c ? &last_axis[c->axis * SOLAR_XOP_COUNT + c->op] : &last_compute;
		int chain = *queue;
		ac.nr = ac.nw = 0;
		solar_ir_kernel_tensors(p, k, visit, &ac);
		/* the earliest kernel of the latest finish among those k is ordered after; it
		 * replaces the chain's only when it finishes strictly later */
		latest dep = {0, -1};
		for (int i = 0; i < ac.nr + ac.nw; i++) {
			int t = i < ac.nr ? ac.rl[i] : ac.wl[i - ac.nr];
			const latest *ls[2] = {&wrote[t], i < ac.nr ? NULL : &read[t]};
			for (int q = 0; q < 2; q++)
				if (ls[q] && ls[q]->kernel >= 0 &&
				    (dep.kernel < 0 || ls[q]->finish > dep.finish ||
				     (ls[q]->finish == dep.finish && ls[q]->kernel < dep.kernel)))
					dep = *ls[q];
		}
		double start = chain >= 0 ? st->finish_s[chain] : 0;
		prev[k] = chain;
		if (dep.kernel >= 0 && dep.finish > start) {
			start = dep.finish;
			prev[k] = dep.kernel;
		}
		st->finish_s[k] = start + b->kernel[k].time_s;
		for (int i = 0; i < ac.nr; i++) {
			later(&read[ac.rl[i]], st->finish_s[k], k);
			ac.rd[ac.rl[i]] = false;
		}
		for (int i = 0; i < ac.nw; i++) {
			later(&wrote[ac.wl[i]], st->finish_s[k], k);
			ac.wr[ac.wl[i]] = false;
		}
		*queue = k;
		if (!c)
			st->compute_s += b->kernel[k].time_s;
		if (st->finish_s[k] >= span) {
			span = st->finish_s[k];
			st->critical = k;
		}
	}
	/* the longest path's time per limiting resource */
	memset(b->unfused.res_s, 0, sizeof b->unfused.res_s);
	for (int k = st->critical; k >= 0; k = prev[k])
		b->unfused.res_s[b->kernel[k].limiter] += b->kernel[k].time_s;
	b->unfused.time_s = span;
	b->unfused.limiter = SOLAR_RES_DRAM;
	for (int i = 0; i < SOLAR_RES_COUNT; i++)
		if (b->unfused.res_s[i] > b->unfused.res_s[b->unfused.limiter])
			b->unfused.limiter = i;
	free(ac.rd);
	free(ac.wr);
	free(ac.rl);
	free(ac.wl);
	free(wrote);
	free(read);
	free(prev);
	free(last_axis);

	/* Rule "fused on many GPUs": the one-GPU bound, or the bytes one rank's ports and one
	 * node's network must carry, whichever is larger. */
	double links = fmax(links_one, fmax(links_send, links_recv));
	double net_node = fmax(net_one, fmax(net_send, net_recv));
	solar_roof *whole[] = {&b->fused, &b->cache_aware};
	for (int i = 0; i < 2; i++) {
		solar_roof *r = whole[i];
		r->res_s[SOLAR_RES_LINKS] = links;
		r->res_s[SOLAR_RES_NETWORK] = net_node;
		for (int q = SOLAR_RES_LINKS; q <= SOLAR_RES_NETWORK; q++)
			if (r->res_s[q] > r->time_s) {
				r->time_s = r->res_s[q];
				r->limiter = q;
			}
	}
	/* rule "unfused floor" */
	if (b->fused.time_s > b->unfused.time_s) {
		b->unfused.time_s = b->fused.time_s;
		b->unfused.limiter = b->fused.limiter;
	}
	return 0;
}

void solar_step_free(solar_step *st)
{
	free(st->stage);
	free(st->coll);
	free(st->comm_axis_s);
	free(st->finish_s);
	memset(st, 0, sizeof *st);
}
