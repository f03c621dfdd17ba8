/* collective.h - lower bounds on the time of a collective over the GPUs of a system
 * (docs/bounds.md, "Collectives").
 *
 * The bound is the largest of a few terms, each the bytes that every algorithm must move
 * through one resource over that resource's bandwidth: a rank's links (NVLink and its share
 * of the network together), a node's network, a rank's DRAM; plus the system's latency
 * figure where it gives one.  Ring, tree, direct and in-switch algorithms all move at least
 * these bytes, so no library beats the bound on that system.
 */
#ifndef SOLAR_COLLECTIVE_H
#define SOLAR_COLLECTIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "devices/system.h"

typedef enum {
	SOLAR_COLL_ALL_REDUCE,
	SOLAR_COLL_ALL_GATHER,
	SOLAR_COLL_REDUCE_SCATTER,
	SOLAR_COLL_ALL_TO_ALL,
	SOLAR_COLL_BROADCAST,
	SOLAR_COLL_SEND,
	SOLAR_COLL_COUNT
} solar_coll_op;

/* "all_reduce", ...; parse returns -1 for an unknown name. */
const char *solar_coll_op_name(solar_coll_op op);
int solar_coll_op_parse(const char *s);

/* One term: the bytes one resource must move, its bandwidth, the time. */
typedef struct {
	const char *resource; /* "rank links", "node network", "DRAM" */
	const char *rule;     /* the counting argument, one line (docs/bounds.md) */
	double bytes;	      /* bytes through the resource */
	double bandwidth;     /* B/s */
	double time_s;	      /* bytes / bandwidth */
} solar_coll_term;

typedef struct {
	solar_coll_op op;
	double bytes; /* S: the buffer per rank (docs/bounds.md) */
	int ranks;    /* n */
	int nodes;    /* the NVLink domains the ranks occupy, packed */
	int ranks_per_node;
	bool in_switch;	 /* an NVSwitch on the path reduces */
	bool in_network; /* the network reduces (only counted when nodes > 1) */
	solar_coll_term terms[3];
	int nterms;
	int limit;	  /* the index of the largest term (-1: none, one rank) */
	double latency_s; /* the system's latency figure, 0 when it gives none */
	double time_s;	  /* the bound: the largest term + latency */
} solar_coll_bound;

/* The bound of op over `ranks` GPUs of s (0: all of them), packed into as few nodes as hold
 * them (the best placement: any other moves more over the network).  Returns 0, or -1 with a
 * sentence in err: more ranks than GPUs, ranks that span nodes without filling them, a send
 * that is not between two ranks, a size that is not positive. */
int solar_collective_bound(SOLAR_KEEP const solar_system *s, solar_coll_op op, double bytes,
			   int ranks, solar_coll_bound *out, char *err, size_t nerr);

/* The same for a group of n ranks of which g share each node (g divides n, g <= the GPUs of a
 * node; d = n / g nodes): the placement of one axis of a mesh (roofline/step.h).  The terms
 * are those of one group alone; the groups that share a node are the caller's to add. */
int solar_collective_bound_placed(SOLAR_KEEP const solar_system *s, solar_coll_op op, double S,
				  int n, int g, solar_coll_bound *out, char *err, size_t nerr);

#endif
