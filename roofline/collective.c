/* collective.c - the collective bounds of docs/bounds.md, "Collectives".
 *
 * Notation as there: S bytes, n ranks in d nodes of g ranks (packed), G GPUs per node,
 * B = B_up + B_out what one GPU can send (or receive) per second, B_out its network share,
 * D its DRAM bandwidth.  Each term is bytes / bandwidth of one resource; the bound is the
 * largest, plus the system's latency figure.
 */
#include "collective.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const op_names[SOLAR_COLL_COUNT] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send"};

const char *solar_coll_op_name(solar_coll_op op)
{
	return (unsigned)op < SOLAR_COLL_COUNT ? op_names[op] : "?";
}

int solar_coll_op_parse(const char *s)
{
	for (int i = 0; s && i < SOLAR_COLL_COUNT; i++)
		if (!strcmp(s, op_names[i]))
			return i;
	return -1;
}

static void add(solar_coll_bound *b, const char *resource, const char *rule, double bytes,
		double bandwidth)
{
	if (bandwidth <= 0 || b->nterms >= (int)(sizeof b->terms / sizeof b->terms[0]))
		return;
	b->terms[b->nterms++] = (solar_coll_term){resource, rule, bytes, bandwidth,
						  bytes / bandwidth};
}

static double dram_bw(const solar_system *s)
{
	const solar_mem_level *l = solar_device_level(s->gpu, "dram");
	return l && l->bandwidth_bytes_per_s.present ? l->bandwidth_bytes_per_s.value : 0;
}

int solar_collective_bound(const solar_system *s, solar_coll_op op, double S, int ranks,
			   solar_coll_bound *b, char *err, size_t nerr)
{
	int G = s->gpus_per_node, all = solar_system_gpus(s);
	int n = ranks ? ranks : (op == SOLAR_COLL_SEND ? 2 : all);
	memset(b, 0, sizeof *b);
	b->limit = -1;
	if (n < 1 || n > all) {
		snprintf(err, nerr, "%d ranks, but %s has %d GPUs (%d node%s of %d)", n, s->name,
			 all, s->nodes, s->nodes == 1 ? "" : "s", G);
		return -1;
	}
	if (n > G && n % G) {
		snprintf(err, nerr, "%d ranks span nodes of %d GPUs without filling them: give a "
			 "multiple of %d, or at most %d", n, G, G, G);
		return -1;
	}
	if (op == SOLAR_COLL_SEND && n != 2) {
		snprintf(err, nerr, "send is between two ranks (--ranks 2), not %d", n);
		return -1;
	}
	return solar_collective_bound_placed(s, op, S, n, n > G ? G : n, b, err, nerr);
}

int solar_collective_bound_placed(const solar_system *s, solar_coll_op op, double S, int n,
				  int g, solar_coll_bound *b, char *err, size_t nerr)
{
	int G = s->gpus_per_node;
	memset(b, 0, sizeof *b);
	b->limit = -1;
	if (!(S > 0) || !isfinite(S)) {
		snprintf(err, nerr, "the size must be a positive number of bytes");
		return -1;
	}
	if ((unsigned)op >= SOLAR_COLL_COUNT) {
		snprintf(err, nerr, "unknown collective");
		return -1;
	}
	if (n < 1 || g < 1 || g > G || n % g || (n > g && n / g > s->nodes)) {
		snprintf(err, nerr, "%d ranks, %d to a node, do not fit %s (%d node%s of %d)", n,
			 g, s->name, s->nodes, s->nodes == 1 ? "" : "s", G);
		return -1;
	}
	int d = n / g;
	double up = s->nvlink_bw.value;
	double out = d > 1 || s->nodes > 1 ? (s->network_bw.present ? s->network_bw.value : 0) : 0;
	double B = up + out, node_net = (double)G * out, D = dram_bw(s);
	*b = (solar_coll_bound){.op = op, .bytes = S, .ranks = n, .nodes = d, .ranks_per_node = g,
				.limit = -1};
	b->in_switch = s->in_switch_reduction.present && s->in_switch_reduction.value != 0;
	b->in_network = d > 1 && s->in_network_reduction.present &&
			s->in_network_reduction.value != 0;
	if (n == 1) /* nothing leaves the rank */
		return 0;
	double part = (double)(n - 1) / n * S, dpart = (double)(d - 1) / d * S;
	switch (op) {
	case SOLAR_COLL_ALL_REDUCE:
		if (b->in_switch || b->in_network)
			add(b, "rank links", "each rank sends and receives S (a switch reduces)",
			    S, B);
		else
			add(b, "rank links", "one-way gossip: 2(n-1) messages per element",
			    2 * part, B);
		if (d > 1) {
			if (b->in_network)
				add(b, "node network", "each node sends and receives S (the "
				    "network reduces)", S, node_net);
			else
				add(b, "node network", "one-way gossip between nodes: 2(d-1) "
				    "messages per element", 2 * dpart, node_net);
		}
		add(b, "DRAM", "each rank reads S and writes S", 2 * S, D);
		break;
	case SOLAR_COLL_ALL_GATHER:
		add(b, "rank links", "each rank receives the (n-1)/n of S it does not hold", part, B);
		if (d > 1)
			add(b, "node network", "each node receives the (d-1)/d of S held elsewhere",
			    dpart, node_net);
		add(b, "DRAM", "each rank reads its S/n and writes the rest", S, D);
		break;
	case SOLAR_COLL_REDUCE_SCATTER:
		add(b, "rank links", "each rank sends the (n-1)/n of S it does not keep", part, B);
		if (d > 1)
			add(b, "node network", "each node sends the (d-1)/d of S kept elsewhere",
			    dpart, node_net);
		add(b, "DRAM", "each rank reads S and writes S/n", S + S / n, D);
		break;
	case SOLAR_COLL_ALL_TO_ALL:
		add(b, "rank links", "each rank sends (n-1)/n of S to the others", part, B);
		if (d > 1)
			add(b, "node network", "each node sends (d-1)/d of its ranks' S out",
			    (double)g * dpart, node_net);
		add(b, "DRAM", "each rank reads and writes the (n-1)/n it exchanges", 2 * part, D);
		break;
	case SOLAR_COLL_BROADCAST:
		add(b, "rank links", "the root sends S, every other rank receives S", S, B);
		if (d > 1)
			add(b, "node network", "every other node receives S", S, node_net);
		add(b, "DRAM", "each rank writes S", S, D);
		break;
	case SOLAR_COLL_SEND:
		/* between two nodes (d = 2, a pipeline's stages, roofline/step.c) S also leaves the
		 * sender's node, through at most all its NICs */
		add(b, "rank links", "S leaves the sender and reaches the receiver", S, B);
		if (d > 1)
			add(b, "node network", "S leaves the sender's node", S, node_net);
		add(b, "DRAM", "the sender reads S, the receiver writes S", S, D);
		break;
	default:
		break;
	}
	for (int i = 0; i < b->nterms; i++)
		if (b->limit < 0 || b->terms[i].time_s > b->terms[b->limit].time_s)
			b->limit = i;
	b->latency_s = s->latency_s.present ? s->latency_s.value : 0;
	b->time_s = (b->limit >= 0 ? b->terms[b->limit].time_s : 0) + b->latency_s;
	return 0;
}
