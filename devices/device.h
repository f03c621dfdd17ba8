/* device.h - what solar knows about a machine: peak rates and the memory hierarchy.
 *
 * A device descriptor is a JSON file (schema in docs/devices.md) turned into a solar_device.
 * solar computes LOWER bounds on run time as work / peak rate, so every peak here must be at
 * least what real code can achieve: dense tensor peaks (never a sparse headline taken for
 * dense is too high, which is safe; a peak below achievable throughput is not), capacities
 * no smaller than what the chip holds.  Every number carries its provenance: a status
 * (datasheet, derived, measured, hypothetical) and a source text.
 *
 * Ownership: a loaded device owns all its strings and arrays; solar_device_free releases them.
 */
#ifndef SOLAR_DEVICE_H
#define SOLAR_DEVICE_H

#include <stdbool.h>
#include <stdio.h>

#include "../diag/diag.h" /* solar_diag; SOLAR_GIVE, SOLAR_TAKE, SOLAR_KEEP */

/* The descriptor schema this code reads and writes ("schema": 1). */
#define SOLAR_DEVICE_SCHEMA 1

/* The execution units a peak belongs to: the matrix unit (NVIDIA tensor cores, AMD matrix
 * cores), the vector FMA pipes (one lane per thread), the special-function unit (MUFU:
 * rcp, rsqrt, lg2, ex2, sin, cos). */
typedef enum { SOLAR_UNIT_TENSOR, SOLAR_UNIT_SIMT, SOLAR_UNIT_SFU, SOLAR_UNIT_COUNT } solar_unit;

/* Operand precisions.  A peak for a precision is the best rate of any hardware path that
 * takes operands of that type (whatever the accumulator), counted in ops/s with an FMA as 2. */
typedef enum {
	SOLAR_PREC_F64,
	SOLAR_PREC_F32,
	SOLAR_PREC_TF32,
	SOLAR_PREC_BF16,
	SOLAR_PREC_F16,
	SOLAR_PREC_F8,
	SOLAR_PREC_I64,
	SOLAR_PREC_I32,
	SOLAR_PREC_I8,
	SOLAR_PREC_COUNT
} solar_prec;

/* Where a number comes from.  DATASHEET: the vendor's published figure (dense).  DERIVED:
 * computed from other figures (units x rate x clock, sparse / 2, ...), the source says how.
 * MEASURED: observed on a device, either an attribute the driver reports (exact) or a ceiling
 * one code reached (NOT a safe peak: better code may beat it).  HYPOTHETICAL: set by the user
 * for a what-if study. */
typedef enum {
	SOLAR_SRC_DATASHEET,
	SOLAR_SRC_DERIVED,
	SOLAR_SRC_MEASURED,
	SOLAR_SRC_HYPOTHETICAL
} solar_status;

/* One number with its provenance.  present == false: the descriptor does not give it; a
 * bound that needs it must be skipped or use a higher rate, never a lower one. */
typedef struct {
	bool present;
	double value;
	solar_status status;
	char *source;
} solar_figure;

/* One level of the memory hierarchy: "dram", "l2", "smem" or "regs".  Capacities are chip
 * totals in bytes; bandwidth is the level's peak in bytes/s (absent where no sound figure is
 * published). */
typedef struct {
	char *name;
	solar_figure capacity_bytes;
	solar_figure bandwidth_bytes_per_s;
} solar_mem_level;

typedef struct solar_device { /* tagged: api/solar.h names it opaquely */
	char *file;   /* the descriptor file (or the name given to solar_device_load_string) */
	char *name;   /* "NVIDIA H100 SXM5" */
	char *vendor; /* "NVIDIA"; NULL if not given */
	char *arch;   /* "sm_90", "gfx942"; NULL if not given */
	int sm_count; /* SMs (NVIDIA) or CUs (AMD); 0 if not given */
	/* The SM clock the bounds assume.  A descriptor gives the maximum (boost) clock, the
	 * highest any unit on the SM clock runs at; an override models a locked clock. */
	solar_figure clock_hz;
	solar_figure peak[SOLAR_UNIT_COUNT][SOLAR_PREC_COUNT];	      /* dense ops/s, FMA = 2 */
	/* The clock each peak figure assumes (NVIDIA quotes H100 BF16 at 1830 MHz, FP32 at 1980):
	 * the figure / this clock is the unit's work per clock (rule "clock domains"). */
	solar_figure peak_clock_hz[SOLAR_UNIT_COUNT][SOLAR_PREC_COUNT];
	solar_figure sparse_peak[SOLAR_UNIT_COUNT][SOLAR_PREC_COUNT]; /* informational only */
	solar_mem_level *levels; /* ordered from DRAM inward: dram, l2, smem, regs */
	int nlevels;
	char **notes; /* free-text remarks of the descriptor */
	int nnotes;
	/* Not here: the L2 state the measurement starts from (--l2) is the question's, not the
	 * chip's (solar_question, api/solar.h); roofline/ takes it as an argument. */
} solar_device;

/* Devices by name.  A device argument (--device, a descriptor's "base", a manifest entry) is
 * a path when it names a file or contains a '/'; otherwise it is a NAME looked up as NAME.json
 * (or NAME itself when it ends in .json) in the search path, first match wins:
 *   1. the folders of $SOLAR_DEVICE_PATH, colon-separated;
 *   2. PREFIX/share/solar/devices beside the running executable (PREFIX/bin/solar), and the
 *      compile-time installed folder (CMAKE_INSTALL_PREFIX/share/solar/devices);
 *   3. the source tree's devices/, for a binary inside the build tree.
 * solar_device_search_path gives those folders that exist, in order (*dirs is owned by the
 * caller: solar_device_search_path_free).  solar_device_names lists the descriptors found
 * there, one per name, sorted, with their files (files may be NULL); free both lists with
 * solar_device_search_path_free.  solar_device_resolve returns the file ref names, or a copy
 * of ref when it names none (NULL for NULL). */
int solar_device_search_path(SOLAR_GIVE char ***dirs);
int solar_device_names(SOLAR_GIVE char ***names, SOLAR_GIVE char ***files);
void solar_device_search_path_free(SOLAR_TAKE char **dirs, int n);
SOLAR_GIVE char *solar_device_resolve(const char *ref);
/* The name a descriptor file is found by: "h200-sxm" for ".../h200-sxm.json". */
SOLAR_GIVE char *solar_device_name_of(const char *file);

/* Loads and validates a descriptor, following "base" links (relative to the file, then by
 * name as above).  A name found nowhere prints `solar: no device 'x'; try 'solar device
 * list'` with a did-you-mean.
 * Returns NULL on any error; every error (up to 20 a file) is reported through diag, in a
 * context of each file read hung off it (solar_diag_new_file: its errors count in diag too),
 * as `FILE: JSON.PATH: message`, or `FILE:LINE:COL: invalid JSON` with the line and a caret.
 * diag NULL: silent. */
SOLAR_GIVE solar_device *solar_device_load(const char *path, solar_diag *diag);
/* The same for a descriptor held in memory.  name_for_errors names it in messages; a "base"
 * is resolved relative to base_dir (NULL: the current directory). */
SOLAR_GIVE solar_device *solar_device_load_string(const char *json, const char *name_for_errors,
						  const char *base_dir, solar_diag *diag);
void solar_device_free(SOLAR_TAKE solar_device *d);
/* A deep copy of a device (strings and levels included); free with solar_device_free. */
SOLAR_GIVE solar_device *solar_device_clone(SOLAR_KEEP const solar_device *d);

/* The level of that name, or NULL if the device does not have it. */
const solar_mem_level *solar_device_level(SOLAR_KEEP const solar_device *d, const char *name);

/* The dense peak of (u, p) in ops/s at the SM clock clock_hz: the figure x clock_hz /
 * peak_clock_hz[u][p] (rule "clock domains", docs/bounds.md), the figure itself on a device
 * without clocks, 0 when absent.  The bounds read peaks only through this. */
double solar_device_peak(SOLAR_KEEP const solar_device *d, solar_unit u, solar_prec p);
/* The largest of solar_device_peak over every datapath and precision (0 when none is given):
 * the rate of work whose datapath the descriptor does not list (rule "missing peak"). */
double solar_device_fastest_peak(SOLAR_KEEP const solar_device *d);

/* NULL when every peak of d can follow the SM clock (clock_hz and each peak's clock are
 * given); otherwise the path of the first figure missing for that ("clock_hz" or
 * "peak_clock_hz.<unit>.<precision>"), written into buf. */
const char *solar_device_unclocked(SOLAR_KEEP const solar_device *d, char *buf, size_t n);

/* Overrides one figure for a provisioning study; its status becomes HYPOTHETICAL and its
 * source records the old value.  Paths: "clock_hz", "sm_count", "peak.<unit>.<prec>",
 * "peak_clock_hz.<unit>.<prec>", "sparse_peak.<unit>.<prec>",
 * "memory.<level>.capacity_bytes", "memory.<level>.bandwidth_bytes_per_s" (a missing level
 * is created in its place).  "clock_hz" is the one way to change the SM clock (sweep's
 * "clock" goes through it too): every peak follows it through its own clock, and a device
 * whose peaks lack clocks refuses it.  A new "peak.<unit>.<prec>" is a rate at the clock_hz
 * of that moment: its clock becomes clock_hz.  Returns 0, or -1 with `solar: device override
 * 'PATH': message` on diag. */
int solar_device_set(SOLAR_KEEP solar_device *d, const char *path, double value, solar_diag *diag);

/* Writes the fully resolved descriptor (bases merged, "base" dropped) as JSON that
 * solar_device_load reads back to the same figures.  Returns 0, or -1 on a write error. */
int solar_device_write_json(SOLAR_KEEP const solar_device *d, FILE *out);

/* Names as they appear in descriptors: "tensor", "bf16", "datasheet"; parse returns -1 for an
 * unknown name. */
const char *solar_unit_name(solar_unit u);
const char *solar_prec_name(solar_prec p);
const char *solar_status_name(solar_status s);
int solar_unit_parse(const char *s);
int solar_prec_parse(const char *s);
int solar_status_parse(const char *s);

/* Probes CUDA device 0 through the driver API (libcuda.so.1, opened with dlopen: no link-time
 * CUDA dependency) and writes a descriptor JSON to out: counts and capacities the driver
 * reports (status measured), DRAM bandwidth and peaks computed from them (status derived).
 * Without a driver or a device it reports `solar: device probe: ...` on diag and returns
 * non-zero.  Remarks about figures it could not derive are warnings on diag. */
int solar_device_probe(FILE *out, solar_diag *diag);
/* The same through a given driver library (tests use a path that does not exist). */
int solar_device_probe_with(const char *libcuda, FILE *out, solar_diag *diag);
/* The probe, and with measure also the measured ceilings (devices/probe.c): a streaming DRAM
 * copy and dense GEMMs (cuBLAS, opened with dlopen) run on device 0, and what they reached
 * replaces the DRAM bandwidth and the peaks they measure, status measured, with a note that
 * the descriptor gives estimates, not bounds (as devices/h200-measured.json). */
int solar_device_probe_ceilings(FILE *out, solar_diag *diag, bool measure);

/* What measuring code reached (0: not measured), each with its source text. */
typedef struct {
	double dram_bytes_per_s; /* best device copy: bytes read + written / median time */
	char dram_source[600];
	double ops_per_s[SOLAR_UNIT_COUNT][SOLAR_PREC_COUNT]; /* GEMMs: 2 n^3 / median time */
	char ops_source[SOLAR_UNIT_COUNT][SOLAR_PREC_COUNT][400];
} solar_ceilings;
/* Writes the ceilings into d as measured figures in place of the DRAM bandwidth and the
 * peaks they measure (a peak's clock becomes clock_hz, status derived, as
 * devices/h200-measured.json), appends " (measured ceilings)" to the name and a note that
 * the descriptor gives estimates, not bounds.  A ceiling above the peak it replaces is
 * a warning on diag: the derived peak was too low.  Nothing changes when no
 * ceiling was measured. */
void solar_device_add_ceilings(SOLAR_KEEP solar_device *d, SOLAR_KEEP const solar_ceilings *c,
			       solar_diag *diag);
/* The PTX of the probe's streaming copy kernel (tests assemble it with ptxas). */
const char *solar_device_probe_copy_ptx(void);

/* The base descriptor a file names, resolved against the file's folder as the loader resolves
 * it ("devices/h200-sxm.json" for devices/h200-measured.json); malloc'd, NULL when the file
 * names none or cannot be read (solar_device_load says why). */
SOLAR_GIVE char *solar_device_base_file(const char *path);

#endif
