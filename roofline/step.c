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
		int n = (int)p->mesh[c->axis].value;
		if (solar_collective_bound_placed(sys, coll_op(c->op), coll_bytes(p, c), n,
						  g[c->axis], &sc->bound, err, sizeof err)) {
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
		double share = (double)G / g[c->axis];
		directions(sc->bound.op, net, sc->bound.nodes, &snd, &rcv);
		net_send += snd * share;
		net_recv += rcv * share;
		net_one = fmax(net_one, net * share);
	}
	free(g);
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
	free(st->coll);
	free(st->comm_axis_s);
	free(st->finish_s);
	memset(st, 0, sizeof *st);
}
