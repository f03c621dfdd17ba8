/* graph.h - the einsum dependency graph (`solar graph`). */
#ifndef SOLAR_GRAPH_H
#define SOLAR_GRAPH_H

#include <stdbool.h>
#include <stdio.h>

#include "../diag/diag.h"
#include "../ir/ir.h"

typedef struct {
	int from, to; /* statements; to == -1: the program's output */
	int tensor;
} solar_edge;

/* RANDOM: a `rand` tensor that some statement reads (its draws, made on the chip). */
typedef enum {
	SOLAR_TC_INPUT,
	SOLAR_TC_OUTPUT,
	SOLAR_TC_INTERMEDIATE,
	SOLAR_TC_RANDOM,
	SOLAR_TC_UNUSED
} solar_tensor_class;

typedef struct {
	const solar_program *prog;
	solar_edge *edges;
	int nedges;
	solar_tensor_class *tclass; /* per tensor */
} solar_graph;

/* Builds the graph from exact dataflow (which statement instance produced each value read).
 * Returns NULL after reporting through d on ISL failure. */
SOLAR_GIVE solar_graph *solar_graph_build(SOLAR_KEEP const solar_program *p, solar_diag *d);
void solar_graph_free(SOLAR_TAKE solar_graph *g);
void solar_graph_print(const solar_graph *g, bool dot, FILE *out);
const char *solar_tensor_class_name(solar_tensor_class c);

#endif
