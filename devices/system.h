/* system.h - many GPUs as one descriptor: a node (an NVLink domain of GPUs) or a cluster of
 * such nodes joined by a network (schema in docs/devices.md, "Systems").
 *
 * A system descriptor is a JSON file with the key "system" (where a device descriptor has
 * "name"), found by name in the same search path as devices.  Every figure carries its
 * provenance, as a device's do, and a collective's bound (roofline/collective.h) reads the
 * bandwidths as the most a GPU can move per direction: never below what real traffic reaches.
 *
 * Ownership: a loaded system owns its strings and its GPU; solar_system_free releases them.
 */
#ifndef SOLAR_SYSTEM_H
#define SOLAR_SYSTEM_H

#include <stdbool.h>
#include <stdio.h>

#include "device.h"

typedef struct solar_system {
	char *file;		 /* the descriptor file */
	char *name;		 /* "NVIDIA HGX H200 8-GPU node" */
	char *gpu_ref;		 /* the GPU's descriptor as the file names it */
	solar_device *gpu;	 /* every GPU of the system is one of these */
	int gpus_per_node;	 /* the GPUs of one NVLink domain (an HGX board, an NVL72 rack) */
	int nodes;		 /* NVLink domains; 1 when not given */
	solar_figure nvlink_bw;	 /* one GPU's NVLink bandwidth per direction, B/s */
	/* The NVSwitch reduces in the switch (NVLink SHARP, NVLS): value 1 yes, 0 no. */
	solar_figure in_switch_reduction;
	solar_figure network_bw; /* one GPU's network bandwidth per direction; absent: none */
	solar_figure in_network_reduction; /* the network's switches reduce (SHARP): 1 or 0 */
	solar_figure latency_s;		   /* least time of one message; absent: not counted */
	/* The slot for measured collective ceilings (nccl-tests bus bandwidth of an all-reduce
	 * over all GPUs of a node): printed as an estimate, never used by a bound. */
	solar_figure measured_all_reduce_busbw;
	char **notes;
	int nnotes;
} solar_system;

/* Whether the descriptor file at path is a system's (its top level has "system" or a key
 * only systems have: "nodes", "nvlink", "gpu", ...); false for a device's and for a file that cannot be read or parsed (the loader reports those). */
bool solar_system_is(const char *path);

/* Loads a system by name or path (as solar_device_load resolves devices), following "base"
 * links to other systems (this file's keys replace the base's; "nvlink" and "network" merge
 * key by key, a figure is replaced whole), and its GPU descriptor.  NULL on any error, every
 * error reported on diag as `FILE: JSON.PATH: message` (or `FILE:LINE:COL: invalid JSON`). */
SOLAR_GIVE solar_system *solar_system_load(const char *ref, solar_diag *diag);
void solar_system_free(SOLAR_TAKE solar_system *s);

/* A copy that owns its own strings and GPU (for provisioning, which scales its figures). */
SOLAR_GIVE solar_system *solar_system_clone(SOLAR_KEEP const solar_system *s);

/* The GPUs of the system: gpus_per_node x nodes. */
int solar_system_gpus(SOLAR_KEEP const solar_system *s);

/* Overrides one figure for a provisioning study (status hypothetical, the old value in the
 * source): "nvlink.bandwidth_bytes_per_s", "network.bandwidth_bytes_per_s", "latency_s",
 * "nodes", "gpus_per_node", or "gpu.PATH" for a figure of the GPU (solar_device_set).
 * Returns 0, or -1 with `solar: system override 'PATH': message` on diag. */
int solar_system_set(SOLAR_KEEP solar_system *s, const char *path, double value,
		     solar_diag *diag);

/* Writes the resolved system (bases merged; the GPU by its reference) as JSON that
 * solar_system_load reads back to the same figures.  Returns 0, or -1 on a write error. */
int solar_system_write_json(SOLAR_KEEP const solar_system *s, FILE *out);

#endif
