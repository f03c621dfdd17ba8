/* probe.c - a device descriptor from the CUDA driver of the machine solar runs on.
 *
 * Input: CUDA device 0, read through the driver API in libcuda.so.1, which is opened with
 * dlopen so that solar has no link-time CUDA dependency and runs on machines without a GPU.
 * Output: a descriptor JSON (docs/devices.md) with
 *   - what the driver reports (SM count, clock, L2 size, memory size, shared memory and
 *     registers per SM): status measured;
 *   - what follows from it by a stated formula: status derived.  DRAM bandwidth is
 *     2 x memory clock x bus width / 8 (double data rate); peaks are SMs x ops/clk/SM x clock
 *     with the per-SM rates of the table below.
 *
 * With measure (`solar device probe --ceilings measured`) it also runs code on the device and
 * writes what that code reached as measured ceilings (status measured), in place of the
 * figures they measure, as devices/h200-measured.json does: the best of a driver copy and a
 * streaming copy kernel (PTX below, JIT-compiled by the driver) for the DRAM bandwidth, and
 * cuBLAS GEMMs (libcublas opened with dlopen) for the tensor bf16/f16/tf32 and SIMT f32
 * rates.  Such a descriptor gives estimates, not bounds (docs/bounds.md, "Fidelity levels").
 *
 * The one idea: every derived peak must stay at or above what real code achieves, so where
 * the per-SM rate is uncertain the table holds the higher figure, and where it is unknown the
 * peak is left out (no bound) rather than guessed.  The clock is the driver's peak clock, so
 * tensor peaks come out above the vendor's (NVIDIA quotes H100 tensor peaks at 1830 MHz, the
 * driver says 1980 MHz): too high is sound, too low is not.
 */
#define _POSIX_C_SOURCE 200809L

#include "device.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include "../diag/alloc.h"

/* Driver API subset (cuda.h); the enum values are part of the driver's stable ABI. */
typedef int CUresult;
typedef int CUdevice;
enum {
	ATTR_CLOCK_RATE = 13, /* kHz */
	ATTR_MULTIPROCESSOR_COUNT = 16,
	ATTR_INTEGRATED = 18,
	ATTR_MEMORY_CLOCK_RATE = 36,	   /* kHz */
	ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37, /* bits */
	ATTR_L2_CACHE_SIZE = 38,	   /* bytes */
	ATTR_CC_MAJOR = 75,
	ATTR_CC_MINOR = 76,
	ATTR_SHARED_MEMORY_PER_SM = 81, /* bytes */
	ATTR_REGISTERS_PER_SM = 82,	/* 32-bit registers */
};

typedef struct {
	CUresult (*init)(unsigned int);
	CUresult (*count)(int *);
	CUresult (*get)(CUdevice *, int);
	CUresult (*name)(char *, int, CUdevice);
	CUresult (*attr)(int *, int, CUdevice);
	CUresult (*total_mem)(size_t *, CUdevice);
	CUresult (*error_string)(CUresult, const char **);
	CUresult (*driver_version)(int *);
	/* for measuring (optional: without them the probe only describes) */
	CUresult (*ctx_retain)(void **, CUdevice);
	CUresult (*ctx_release)(CUdevice);
	CUresult (*ctx_set)(void *);
	CUresult (*ctx_sync)(void);
	CUresult (*mem_info)(size_t *, size_t *);
	CUresult (*mem_alloc)(unsigned long long *, size_t);
	CUresult (*mem_free)(unsigned long long);
	CUresult (*memset32)(unsigned long long, unsigned int, size_t);
	CUresult (*htod)(unsigned long long, const void *, size_t);
	CUresult (*dtod)(unsigned long long, unsigned long long, size_t, void *);
	CUresult (*module_load)(void **, const void *);
	CUresult (*module_unload)(void *);
	CUresult (*module_fn)(void **, void *, const char *);
	CUresult (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   unsigned, void *, void **, void **);
	CUresult (*event_create)(void **, unsigned);
	CUresult (*event_destroy)(void *);
	CUresult (*event_record)(void *, void *);
	CUresult (*event_sync)(void *);
	CUresult (*event_ms)(float *, void *, void *);
} driver;

/* Per-SM rates by compute capability.  SIMT columns are per clock per SM: FP32 and FP64 FMA
 * lanes from the CUDA C Programming Guide throughput table (arithmetic instructions); 16-bit
 * results are counted at the packed half2 rate of 2 results per lane, which is also the issue
 * limit (one warp instruction per clock per SM sub-partition), so it is never too low; the
 * SFU (MUFU) is 16 results/clk/SM on 7.x-9.0.  Integer ops use the issue limit: 4 sub-
 * partitions x 32 lanes, an IMAD counted as 2 ops = 256 ops/clk/SM.  Tensor columns are dense
 * FLOP (or OP) per clock per SM from shared/reference/devices.md ("Dense FLOP per clock per
 * SM"); 0 = not known, left out.  l1_kib is the unified L1/shared-memory array per SM. */
typedef struct {
	int major, minor; /* minor -1: any */
	const char *chip;
	int fp32_fma, fp64_fma, half_results, sfu, l1_kib;
	int t_f64, t_tf32, t_f16, t_bf16, t_f8, t_i8;
} arch_rates;

static const arch_rates rates[] = {
    {7, 0, "GV100", 64, 32, 128, 16, 128, 0, 0, 0, 0, 0, 0},
    {7, 2, "GV10B", 64, 32, 128, 16, 128, 0, 0, 0, 0, 0, 0},
    {7, 5, "TU10x", 64, 2, 128, 16, 96, 0, 0, 0, 0, 0, 0},
    {8, 0, "GA100", 64, 32, 256, 16, 192, 128, 1024, 2048, 2048, 0, 4096},
    {8, 6, "GA10x", 128, 2, 256, 16, 128, 0, 0, 0, 0, 0, 0},
    {8, 7, "GA10B", 128, 2, 256, 16, 192, 0, 1024, 2048, 2048, 0, 4096},
    /* AD10x: the L40S rates; GeForce runs FP32-accumulate MMA at half rate and TF32 at
     * half, so these are upper figures there (sound, looser). */
    {8, 9, "AD10x", 128, 2, 256, 16, 128, 0, 512, 1024, 1024, 2048, 2048},
    {9, 0, "GH100", 128, 64, 256, 16, 256, 256, 2048, 4096, 4096, 8192, 8192},
    {10, 0, "GB100", 128, 64, 256, 16, 256, 128, 4096, 8192, 8192, 16384, 16384},
    {12, 0, "GB20x", 128, 2, 256, 16, 128, 0, 0, 0, 0, 0, 0},
};

static const arch_rates *rates_for(int major, int minor)
{
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
		if (rates[i].major == major && (rates[i].minor == minor || rates[i].minor < 0))
			return &rates[i];
	return NULL;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void
set(solar_figure *f, double value, solar_status status, const char *fmt, ...)
{
	char buf[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	free(f->source);
	f->present = true;
	f->value = value;
	f->status = status;
	f->source = solar_xstrdup(buf);
}

static char *dupstr(const char *s) { return s ? solar_xstrdup(s) : NULL; }

static const char *cu_error(const driver *cu, CUresult r)
{
	const char *s = NULL;
	if (cu->error_string && cu->error_string(r, &s) == 0 && s)
		return s;
	return "unknown error";
}

/* Reads one attribute; -1 if the driver does not give it. */
static int attr(const driver *cu, int which, CUdevice dev)
{
	int v = -1;
	if (cu->attr(&v, which, dev) != 0)
		return -1;
	return v;
}

static void add_note(solar_device *d, const char *text)
{
	char **n = solar_xrealloc(d->notes, sizeof *n * (size_t)(d->nnotes + 1));
	if (!n)
		return;
	d->notes = n;
	d->notes[d->nnotes++] = solar_xstrdup(text);
}

/* What the driver reports of one device, read once: every figure below derives from it. */
typedef struct {
	char name[256];
	char via[96]; /* "CUDA driver X.Y, solar device probe": the tail of every source */
	int sms, clock_khz, mem_khz, bus_bits, l2, smem, regs, major, minor, integrated;
	size_t total; /* DRAM bytes, 0: not given */
	double clock; /* the peak SM clock in Hz, 0: not given */
} reported;

/* Device dev's name and attributes from the driver (-1 where it gives none). */
static void read_reported(const driver *cu, CUdevice dev, reported *a)
{
	*a = (reported){.name = "CUDA device"}; /* zeros after it: the name ends within 255 bytes */
	int version = 0;
	if (cu->name(a->name, (int)sizeof a->name - 1, dev) != 0)
		strcpy(a->name, "CUDA device");
	if (cu->driver_version)
		cu->driver_version(&version);
	snprintf(a->via, sizeof a->via, "CUDA driver %d.%d, solar device probe", version / 1000,
		 version % 1000 / 10);

	a->sms = attr(cu, ATTR_MULTIPROCESSOR_COUNT, dev);
	a->clock_khz = attr(cu, ATTR_CLOCK_RATE, dev);
	a->mem_khz = attr(cu, ATTR_MEMORY_CLOCK_RATE, dev);
	a->bus_bits = attr(cu, ATTR_GLOBAL_MEMORY_BUS_WIDTH, dev);
	a->l2 = attr(cu, ATTR_L2_CACHE_SIZE, dev);
	a->smem = attr(cu, ATTR_SHARED_MEMORY_PER_SM, dev);
	a->regs = attr(cu, ATTR_REGISTERS_PER_SM, dev);
	a->major = attr(cu, ATTR_CC_MAJOR, dev);
	a->minor = attr(cu, ATTR_CC_MINOR, dev);
	a->integrated = attr(cu, ATTR_INTEGRATED, dev);
	a->total = 0;
	if (cu->total_mem(&a->total, dev) != 0)
		a->total = 0;
	a->clock = a->clock_khz > 0 ? a->clock_khz * 1e3 : 0;
}

/* The DRAM level: its capacity, and its bandwidth where the memory clock and bus width give
 * it (an integrated GPU's do not: the user must add it). */
static void describe_dram(solar_device *d, const reported *a, solar_diag *diag)
{
	solar_mem_level *dram = &d->levels[0];
	if (a->total > 0)
		set(&dram->capacity_bytes, (double)a->total, SOLAR_SRC_MEASURED,
		    "driver cuDeviceTotalMem = %zu bytes (%s)", a->total, a->via);
	if (a->integrated == 1) {
		add_note(d, "Integrated GPU: the DRAM is shared with the CPU, and the memory clock "
			    "and bus width the driver reports do not give its bandwidth. Add "
			    "memory[0].bandwidth_bytes_per_s from the datasheet.");
		solar_diag_tool_warning(
		    diag,
		    "device probe: %s is an integrated GPU: the memory clock and "
		    "bus width its driver reports do not give the DRAM bandwidth; add "
		    "memory[0].bandwidth_bytes_per_s from the datasheet (the descriptor "
		    "does not load without it)",
		    a->name);
	} else if (a->mem_khz > 0 && a->bus_bits > 0) {
		double bw = 2.0 * a->mem_khz * 1e3 * a->bus_bits / 8.0;
		set(&dram->bandwidth_bytes_per_s, bw, SOLAR_SRC_DERIVED,
		    "2 (double data rate) x MEMORY_CLOCK_RATE %d kHz x GLOBAL_MEMORY_BUS_WIDTH "
		    "%d bits / 8 (%s)",
		    a->mem_khz, a->bus_bits, a->via);
	} else {
		solar_diag_tool_warning(
		    diag, "device probe: the driver gives no memory clock or bus width; "
			  "add memory[0].bandwidth_bytes_per_s from the datasheet");
	}
}

/* The on-chip capacities (L2, shared memory, registers); the shared memory takes the whole
 * L1/shared array where the table knows it, since a larger capacity keeps bounds sound. */
static void describe_on_chip(solar_device *d, const reported *a, const arch_rates *r)
{
	solar_mem_level *l2lv = &d->levels[1], *smemlv = &d->levels[2], *regslv = &d->levels[3];
	if (a->l2 > 0)
		set(&l2lv->capacity_bytes, a->l2, SOLAR_SRC_MEASURED,
		    "driver attribute L2_CACHE_SIZE = %d bytes (%s)", a->l2, a->via);
	if (a->sms > 0 && a->smem > 0) {
		long per_sm = a->smem;
		const char *why = "the driver's MAX_SHARED_MEMORY_PER_MULTIPROCESSOR";
		if (r && r->l1_kib * 1024L > per_sm) {
			per_sm = r->l1_kib * 1024L;
			why = "the unified L1/shared-memory array per SM of this architecture, "
			      "larger "
			      "than the shared-memory maximum; a larger capacity keeps traffic "
			      "bounds "
			      "sound";
		}
		set(&smemlv->capacity_bytes, (double)a->sms * (double)per_sm, SOLAR_SRC_DERIVED,
		    "%d SMs x %ld bytes: %s (the driver reports %d bytes of shared memory per SM; "
		    "%s)",
		    a->sms, per_sm, why, a->smem, a->via);
	}
	if (a->sms > 0 && a->regs > 0)
		set(&regslv->capacity_bytes, (double)a->sms * a->regs * 4.0, SOLAR_SRC_DERIVED,
		    "%d SMs x %d registers x 4 bytes (driver attribute "
		    "MAX_REGISTERS_PER_MULTIPROCESSOR; %s)",
		    a->sms, a->regs, a->via);
}

/* The SIMT and SFU peaks: SMs x clock (sc) x the table's per-SM lanes; tail names sc. */
static void describe_simt_peaks(solar_device *d, const reported *a, const arch_rates *r, double sc,
				const char *tail)
{
	solar_figure(*pk)[SOLAR_PREC_COUNT] = d->peak;
	set(&pk[SOLAR_UNIT_SIMT][SOLAR_PREC_F32], sc * 2 * r->fp32_fma, SOLAR_SRC_DERIVED,
	    "%d FP32 FMA lanes x 2 FLOP x %s; lanes from the CUDA C Programming Guide "
	    "throughput table for cc %d.%d",
	    r->fp32_fma, tail, a->major, a->minor);
	set(&pk[SOLAR_UNIT_SIMT][SOLAR_PREC_F64], sc * 2 * r->fp64_fma, SOLAR_SRC_DERIVED,
	    "%d FP64 FMA lanes x 2 FLOP x %s; lanes from the CUDA C Programming Guide "
	    "throughput table for cc %d.%d",
	    r->fp64_fma, tail, a->major, a->minor);
	for (int p = SOLAR_PREC_BF16; p <= SOLAR_PREC_F16; p++)
		set(&pk[SOLAR_UNIT_SIMT][p], sc * 2 * r->half_results, SOLAR_SRC_DERIVED,
		    "%d packed half2 results x 2 FLOP x %s; an upper figure (the issue limit) "
		    "where the chip runs half2 slower",
		    r->half_results, tail);
	set(&pk[SOLAR_UNIT_SIMT][SOLAR_PREC_I32], sc * 256, SOLAR_SRC_DERIVED,
	    "issue limit 4 sub-partitions x 32 lanes x 2 (IMAD counted as 2 ops) x %s; an upper "
	    "figure",
	    tail);
	set(&pk[SOLAR_UNIT_SFU][SOLAR_PREC_F32], sc * r->sfu, SOLAR_SRC_DERIVED,
	    "%d MUFU results (rcp, rsqrt, lg2, ex2, sin, cos) x %s; CUDA C Programming Guide "
	    "throughput table",
	    r->sfu, tail);
}

/* The dense tensor peaks the table knows (0 there: left out); returns how many it set. */
static int describe_tensor_peaks(solar_device *d, const arch_rates *r, double sc, const char *tail)
{
	struct {
		solar_prec p;
		int per_clk;
	} t[] = {{SOLAR_PREC_F64, r->t_f64}, {SOLAR_PREC_TF32, r->t_tf32},
		 {SOLAR_PREC_F16, r->t_f16}, {SOLAR_PREC_BF16, r->t_bf16},
		 {SOLAR_PREC_F8, r->t_f8},   {SOLAR_PREC_I8, r->t_i8}};
	int tensors = 0;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (!t[i].per_clk)
			continue;
		tensors++;
		set(&d->peak[SOLAR_UNIT_TENSOR][t[i].p], sc * t[i].per_clk, SOLAR_SRC_DERIVED,
		    "%d dense ops/clk/SM (%s, solar's per-architecture table) x %s; at the peak "
		    "SM clock, so at or above the vendor's tensor peak",
		    t[i].per_clk, r->chip, tail);
	}
	return tensors;
}

/* The peaks and their clock, where the table knows the architecture and the driver gives
 * the SM count and clock; else a note that none were derived (never a guess). */
static void describe_peaks(solar_device *d, const reported *a, const arch_rates *r,
			   solar_diag *diag)
{
	if (!r || a->sms <= 0 || a->clock <= 0) {
		char msg[300];
		snprintf(msg, sizeof msg,
			 "Compute capability %d.%d is not in solar's table of per-SM rates (or the "
			 "driver gave no SM count or clock): no peaks were derived. Add "
			 "peak.simt.f32 (required) and the other peaks from the datasheet.",
			 a->major, a->minor);
		add_note(d, msg);
		solar_diag_tool_warning(diag, "device probe: %s", msg);
		return;
	}
	double sc = a->sms * a->clock;
	char tail[300];
	snprintf(tail, sizeof tail, "%d SMs x %.0f MHz (%s)", a->sms, a->clock / 1e6, a->via);
	describe_simt_peaks(d, a, r, sc, tail);
	int tensors = describe_tensor_peaks(d, r, sc, tail);
	/* Rule "clock domains": every peak above is at the driver's peak SM clock. */
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++)
			if (d->peak[u][p].present)
				set(&d->peak_clock_hz[u][p], a->clock, SOLAR_SRC_MEASURED,
				    "the peak is derived at the driver attribute CLOCK_RATE = "
				    "%d kHz (%s)",
				    a->clock_khz, a->via);
	if (!tensors) {
		char msg[200];
		snprintf(msg, sizeof msg,
			 "No dense tensor rates are known for compute capability %d.%d: tensor "
			 "peaks were left out (add them from the datasheet, dense figures).",
			 a->major, a->minor);
		add_note(d, msg);
		solar_diag_tool_warning(diag, "device probe: %s", msg);
	}
}

/* Fills `d` from device `dev`.  Remarks for the user are warnings on diag. */
static void describe(const driver *cu, CUdevice dev, solar_device *d, solar_diag *diag)
{
	reported a;
	read_reported(cu, dev, &a);
	char arch[32];
	snprintf(arch, sizeof arch, "sm_%d%d", a.major, a.minor);
	d->name = dupstr(a.name);
	d->vendor = dupstr("NVIDIA");
	d->arch = dupstr(arch);
	d->sm_count = a.sms > 0 ? a.sms : 0;
	if (a.clock > 0)
		set(&d->clock_hz, a.clock, SOLAR_SRC_MEASURED,
		    "driver attribute CLOCK_RATE = %d kHz (the peak SM clock; %s)", a.clock_khz,
		    a.via);

	d->levels = solar_xcalloc(4, sizeof *d->levels);
	if (!d->levels)
		return;
	const char *names[4] = {"dram", "l2", "smem", "regs"};
	for (int i = 0; i < 4; i++)
		d->levels[i].name = solar_xstrdup(names[i]);
	d->nlevels = 4;
	describe_dram(d, &a, diag);
	const arch_rates *r = rates_for(a.major, a.minor);
	describe_on_chip(d, &a, r);
	describe_peaks(d, &a, r, diag);
}

/* ---- measured ceilings (--ceilings measured) ------------------------------------------- */

/* A streaming copy: each thread moves 16 bytes per step of a grid-stride loop, loads through
 * the non-coherent path, stores with evict-first (.cs) hints.  Assembled with ptxas (CUDA 13)
 * for sm_75 to sm_100 by tests/unit/test_device.c; the driver JIT-compiles it for the device. */
static const char copy_ptx[] =
	".version 7.0\n"
	".target sm_70\n"
	".address_size 64\n"
	".visible .entry solar_copy(.param .u64 dst, .param .u64 src, .param .u64 n16)\n"
	"{\n"
	"\t.reg .pred %p;\n"
	"\t.reg .b32 %r<9>;\n"
	"\t.reg .b64 %rd<12>;\n"
	"\tld.param.u64 %rd1, [dst];\n"
	"\tld.param.u64 %rd2, [src];\n"
	"\tld.param.u64 %rd3, [n16];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tcvta.to.global.u64 %rd2, %rd2;\n"
	"\tmov.u32 %r1, %ctaid.x;\n"
	"\tmov.u32 %r2, %ntid.x;\n"
	"\tmov.u32 %r3, %tid.x;\n"
	"\tmov.u32 %r4, %nctaid.x;\n"
	"\tmul.wide.u32 %rd4, %r1, %r2;\n"
	"\tcvt.u64.u32 %rd5, %r3;\n"
	"\tadd.u64 %rd4, %rd4, %rd5;\n"
	"\tmul.wide.u32 %rd6, %r4, %r2;\n"
	"LOOP:\n"
	"\tsetp.ge.u64 %p, %rd4, %rd3;\n"
	"\t@%p bra DONE;\n"
	"\tshl.b64 %rd7, %rd4, 4;\n"
	"\tadd.u64 %rd8, %rd2, %rd7;\n"
	"\tadd.u64 %rd9, %rd1, %rd7;\n"
	"\tld.global.nc.v4.u32 {%r5, %r6, %r7, %r8}, [%rd8];\n"
	"\tst.global.cs.v4.u32 [%rd9], {%r5, %r6, %r7, %r8};\n"
	"\tadd.u64 %rd4, %rd4, %rd6;\n"
	"\tbra LOOP;\n"
	"DONE:\n"
	"\tret;\n"
	"}\n";

const char *solar_device_probe_copy_ptx(void) { return copy_ptx; }

#define WARMUPS 5
#define TIMED_RUNS 20

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* cuBLAS, opened with dlopen like the driver (subset of cublas_api.h; stable ABI values). */
typedef struct {
	int (*create)(void **);
	int (*destroy)(void *);
	int (*gemm)(void *, int, int, int, int, int, const void *, const void *, int, int,
		    const void *, int, int, const void *, void *, int, int, int, int);
	const char *lib;
} blas;
enum { R_32F = 0, R_16F = 2, R_16BF = 14 };
enum { COMPUTE_32F = 68, COMPUTE_32F_FAST_TF32 = 77, GEMM_DEFAULT = -1 };

typedef struct {
	const driver *cu;
	void *start, *stop;
	solar_diag *diag;
	bool failed;
} timer;

static bool ok(timer *t, CUresult r, const char *what)
{
	if (r == 0)
		return true;
	if (!t->failed)
		solar_diag_tool_error(t->diag, "device probe: measuring: %s failed: %s (error %d)",
				      what, cu_error(t->cu, r), r);
	t->failed = true;
	return false;
}

/* The median of TIMED_RUNS runs of run(arg) after WARMUPS, each timed with CUDA events on the
 * null stream (seconds); -1 on failure. */
static double median_time(timer *t, CUresult (*run)(const driver *, void *), void *arg)
{
	double s[TIMED_RUNS];
	for (int i = 0; i < WARMUPS; i++)
		if (!ok(t, run(t->cu, arg), "a warm-up run"))
			return -1;
	for (int i = 0; i < TIMED_RUNS; i++) {
		float ms = 0;
		if (!ok(t, t->cu->event_record(t->start, NULL), "cuEventRecord") ||
		    !ok(t, run(t->cu, arg), "a timed run") ||
		    !ok(t, t->cu->event_record(t->stop, NULL), "cuEventRecord") ||
		    !ok(t, t->cu->event_sync(t->stop), "cuEventSynchronize") ||
		    !ok(t, t->cu->event_ms(&ms, t->start, t->stop), "cuEventElapsedTime"))
			return -1;
		s[i] = ms * 1e-3;
	}
	qsort(s, TIMED_RUNS, sizeof *s, cmp_double);
	return (s[TIMED_RUNS / 2 - 1] + s[TIMED_RUNS / 2]) / 2;
}

typedef struct {
	unsigned long long dst, src;
	size_t bytes;
	void *fn;
	unsigned grid, block;
} copy_job;

static CUresult run_memcpy(const driver *cu, void *arg)
{
	copy_job *j = arg;
	return cu->dtod(j->dst, j->src, j->bytes, NULL);
}

static CUresult run_kernel(const driver *cu, void *arg)
{
	copy_job *j = arg;
	unsigned long long n16 = j->bytes / 16;
	void *params[] = {&j->dst, &j->src, &n16};
	return cu->launch(j->fn, j->grid, 1, 1, j->block, 1, 1, 0, NULL, params, NULL);
}

typedef struct {
	const blas *b;
	void *handle;
	unsigned long long a, bm, c;
	int n, type, compute;
} gemm_job;

static CUresult run_gemm(const driver *cu, void *arg)
{
	(void)cu;
	gemm_job *g = arg;
	const float one = 1, zero = 0;
	int st = g->b->gemm(g->handle, 0, 0, g->n, g->n, g->n, &one, (void *)(uintptr_t)g->a,
			    g->type, g->n, (void *)(uintptr_t)g->bm, g->type, g->n, &zero,
			    (void *)(uintptr_t)g->c, g->type, g->n, g->compute, GEMM_DEFAULT);
	return st == 0 ? 0 : 999; /* a cuBLAS status is not a CUresult: "unknown error" */
}

/* Random operands, magnitudes in [1/32, 1) with random signs and mantissas (random data, as the
 * shipped measurements used: zeros would draw less power and run faster). */
static void fill_f32(unsigned char *buf, size_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint32_t r = (uint32_t)(x >> 16);
		uint32_t v = (r & 0x80000000u) | ((122u + r % 5) << 23) | (uint32_t)(x & 0x7fffff);
		memcpy(buf + 4 * i, &v, 4);
	}
}

static void fill_half(unsigned char *buf, size_t n, bool bf16)
{
	uint64_t x = 0x2545f4914f6cdd1dull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint16_t r = (uint16_t)(x >> 20), v;
		if (bf16) /* sign, exponent 122..126, 7 mantissa bits */
			v = (uint16_t)((r & 0x8000u) | ((122u + (r >> 7) % 5) << 7) | (r & 0x7fu));
		else /* f16: sign, exponent 10..14, 10 mantissa bits */
			v = (uint16_t)((r & 0x8000u) | ((10u + (r >> 10) % 5) << 10) | (r & 0x3ffu));
		memcpy(buf + 2 * i, &v, 2);
	}
}

static bool open_blas(blas *b, solar_diag *diag)
{
	/* $SOLAR_CUBLAS first, then the loader's path, then the CUDA toolkit's usual folder */
	const char *env = getenv("SOLAR_CUBLAS");
	const char *const libs[] = {env && *env ? env : "libcublas.so.13", "libcublas.so.13",
				    "libcublas.so.12", "libcublas.so.11", "libcublas.so",
				    "/usr/local/cuda/lib64/libcublas.so.13",
				    "/usr/local/cuda/lib64/libcublas.so.12",
				    "/usr/local/cuda/lib64/libcublas.so"};
	memset(b, 0, sizeof *b);
	for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
		if (!h)
			continue;
		*(void **)&b->create = dlsym(h, "cublasCreate_v2");
		*(void **)&b->destroy = dlsym(h, "cublasDestroy_v2");
		*(void **)&b->gemm = dlsym(h, "cublasGemmEx");
		if (b->create && b->destroy && b->gemm) {
			b->lib = libs[i];
			return true; /* kept open for the process's life */
		}
		dlclose(h);
	}
	solar_diag_tool_warning(
	    diag, "device probe: no cuBLAS (libcublas.so.13/.12/.11; SOLAR_CUBLAS names "
		  "one) found: the GEMM ceilings are not measured");
	return false;
}

static void measure_copy(const driver *cu, timer *t, const solar_device *d, solar_ceilings *c,
			 const char *via)
{
	size_t free_b = 0, total_b = 0;
	if (!ok(t, cu->mem_info(&free_b, &total_b), "cuMemGetInfo"))
		return;
	const solar_mem_level *l2 = solar_device_level(d, "l2");
	double l2_bytes = l2 && l2->capacity_bytes.present ? l2->capacity_bytes.value : 64e6;
	size_t bytes = (size_t)1 << 30;
	while (bytes > free_b / 4)
		bytes /= 2;
	if ((double)bytes < 8 * l2_bytes) {
		solar_diag_tool_warning(
		    t->diag,
		    "device probe: too little free memory (%zu bytes) for a copy "
		    "8x larger than the L2: the DRAM ceiling is not measured",
		    free_b);
		return;
	}
	copy_job j = {.bytes = bytes};
	if (!ok(t, cu->mem_alloc(&j.src, bytes), "cuMemAlloc"))
		return;
	if (!ok(t, cu->mem_alloc(&j.dst, bytes), "cuMemAlloc")) {
		cu->mem_free(j.src);
		return;
	}
	double best = 0;
	const char *how = NULL;
	if (ok(t, cu->memset32(j.src, 0x3f800000u, bytes / 4), "cuMemsetD32") &&
	    ok(t, cu->memset32(j.dst, 0, bytes / 4), "cuMemsetD32")) {
		double s = median_time(t, run_memcpy, &j);
		if (s > 0) {
			best = 2.0 * (double)bytes / s;
			how = "cuMemcpyDtoDAsync";
		}
		void *mod = NULL;
		if (!t->failed && ok(t, cu->module_load(&mod, copy_ptx), "cuModuleLoadData (copy)") &&
		    ok(t, cu->module_fn(&j.fn, mod, "solar_copy"), "cuModuleGetFunction")) {
			j.block = 512;
			j.grid = (unsigned)(d->sm_count > 0 ? d->sm_count : 128) * 4;
			s = median_time(t, run_kernel, &j);
			if (s > 0 && 2.0 * (double)bytes / s > best) {
				best = 2.0 * (double)bytes / s;
				how = "a streaming copy kernel (16 B per thread per step, 4 blocks of 512 "
				      "threads per SM)";
			}
		}
		if (mod)
			cu->module_unload(mod);
	}
	cu->mem_free(j.src);
	cu->mem_free(j.dst);
	if (best > 0) {
		c->dram_bytes_per_s = best;
		snprintf(c->dram_source, sizeof c->dram_source,
			 "device-to-device copy of %zu MiB, bytes read + written / time: %.3g TB/s "
			 "by %s, the better of cuMemcpyDtoDAsync and a streaming copy kernel; median "
			 "of %d timed runs after %d warm-ups, CUDA events (%s)",
			 bytes >> 20, best / 1e12, how, TIMED_RUNS, WARMUPS, via);
	}
}

static void measure_gemms(const driver *cu, timer *t, solar_ceilings *c, const char *via)
{
	blas b;
	if (!open_blas(&b, t->diag))
		return;
	gemm_job g = {.b = &b, .n = 8192};
	if (b.create(&g.handle) != 0) {
		solar_diag_tool_warning(t->diag,
					"device probe: cublasCreate failed: the GEMM ceilings are "
					"not measured");
		return;
	}
	size_t elems = (size_t)g.n * (size_t)g.n;
	unsigned char *host = solar_xmalloc(elems * 4);
	bool alloc = host && ok(t, cu->mem_alloc(&g.a, elems * 4), "cuMemAlloc") &&
		     ok(t, cu->mem_alloc(&g.bm, elems * 4), "cuMemAlloc") &&
		     ok(t, cu->mem_alloc(&g.c, elems * 4), "cuMemAlloc");
	static const struct {
		solar_unit u;
		solar_prec p;
		int type, compute, elem;
		const char *what;
	} runs[] = {
		{SOLAR_UNIT_TENSOR, SOLAR_PREC_BF16, R_16BF, COMPUTE_32F, 2, "bf16"},
		{SOLAR_UNIT_TENSOR, SOLAR_PREC_F16, R_16F, COMPUTE_32F, 2, "fp16"},
		{SOLAR_UNIT_TENSOR, SOLAR_PREC_TF32, R_32F, COMPUTE_32F_FAST_TF32, 4, "tf32"},
		{SOLAR_UNIT_SIMT, SOLAR_PREC_F32, R_32F, COMPUTE_32F, 4, "fp32 without TF32"},
	};
	for (size_t i = 0; alloc && i < sizeof runs / sizeof *runs; i++) {
		if (runs[i].elem == 4)
			fill_f32(host, elems);
		else
			fill_half(host, elems, runs[i].type == R_16BF);
		if (!ok(t, cu->htod(g.a, host, elems * (size_t)runs[i].elem), "cuMemcpyHtoD") ||
		    !ok(t, cu->htod(g.bm, host, elems * (size_t)runs[i].elem), "cuMemcpyHtoD"))
			break;
		g.type = runs[i].type;
		g.compute = runs[i].compute;
		double s = median_time(t, run_gemm, &g);
		if (s <= 0) {
			solar_diag_tool_warning(
			    t->diag,
			    "device probe: the %s GEMM did not run: its ceiling is "
			    "not measured",
			    runs[i].what);
			t->failed = false; /* the other GEMMs may still run */
			continue;
		}
		double rate = 2.0 * g.n * (double)g.n * g.n / s;
		c->ops_per_s[runs[i].u][runs[i].p] = rate;
		snprintf(c->ops_source[runs[i].u][runs[i].p], sizeof c->ops_source[0][0],
			 "cuBLAS %s GEMM %d^3 (cublasGemmEx, %s): %.4g TFLOP/s, median of %d timed "
			 "runs after %d warm-ups, CUDA events, random data (%s)",
			 runs[i].what, g.n, b.lib, rate / 1e12, TIMED_RUNS, WARMUPS, via);
	}
	if (g.a)
		cu->mem_free(g.a);
	if (g.bm)
		cu->mem_free(g.bm);
	if (g.c)
		cu->mem_free(g.c);
	free(host);
	b.destroy(g.handle);
}

/* Runs the measurements on dev; 0, or non-zero after a message when nothing can run. */
static int measure_ceilings(const driver *cu, CUdevice dev, const solar_device *d,
			    solar_ceilings *c, solar_diag *diag)
{
	memset(c, 0, sizeof *c);
	if (!cu->ctx_retain || !cu->ctx_set || !cu->mem_info || !cu->mem_alloc || !cu->mem_free ||
	    !cu->memset32 || !cu->htod || !cu->dtod || !cu->module_load || !cu->module_fn ||
	    !cu->launch || !cu->event_create || !cu->event_record || !cu->event_sync ||
	    !cu->event_ms) {
		solar_diag_tool_error(diag,
				      "device probe: --ceilings measured: the CUDA driver lacks "
				      "the functions to run code (cuDevicePrimaryCtxRetain, "
				      "cuMemAlloc_v2, cuLaunchKernel, cuEventElapsedTime, ...)");
		return 1;
	}
	void *ctx = NULL;
	timer t = {.cu = cu, .diag = diag};
	if (!ok(&t, cu->ctx_retain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
	    !ok(&t, cu->ctx_set(ctx), "cuCtxSetCurrent"))
		return 1;
	if (!ok(&t, cu->event_create(&t.start, 0), "cuEventCreate") ||
	    !ok(&t, cu->event_create(&t.stop, 0), "cuEventCreate"))
		return 1;
	time_t now = time(NULL);
	char day[16] = "";
	strftime(day, sizeof day, "%Y-%m-%d", gmtime(&now));
	char via[160];
	snprintf(via, sizeof via, "%s, solar device probe --ceilings measured, %s", d->name, day);
	measure_copy(cu, &t, d, c, via);
	t.failed = false;
	measure_gemms(cu, &t, c, via);
	if (cu->ctx_sync)
		cu->ctx_sync();
	cu->event_destroy(t.start);
	cu->event_destroy(t.stop);
	if (cu->ctx_release)
		cu->ctx_release(dev);
	return 0;
}

void solar_device_add_ceilings(solar_device *d, const solar_ceilings *c, solar_diag *diag)
{
	int n = 0;
	solar_mem_level *dram = NULL;
	for (int i = 0; i < d->nlevels; i++)
		if (!strcmp(d->levels[i].name, "dram"))
			dram = &d->levels[i];
	if (c->dram_bytes_per_s > 0 && dram) {
		set(&dram->bandwidth_bytes_per_s, c->dram_bytes_per_s, SOLAR_SRC_MEASURED, "%s",
		    c->dram_source);
		n++;
	}
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++) {
			double v = c->ops_per_s[u][p];
			if (!(v > 0))
				continue;
			solar_figure *f = &d->peak[u][p];
			if (f->present && v > f->value * 1.02)
				solar_diag_tool_warning(
				    diag,
				    "device probe: the measured %s.%s ceiling "
				    "(%.4g TFLOP/s) is above the derived peak (%.4g TFLOP/s): "
				    "solar's per-SM rate for this chip is too low, so bounds from "
				    "the derived peak are not sound; please report it",
				    solar_unit_name((solar_unit)u), solar_prec_name((solar_prec)p),
				    v / 1e12, f->value / 1e12);
			set(f, v, SOLAR_SRC_MEASURED, "%s", c->ops_source[u][p]);
			if (d->clock_hz.present)
				set(&d->peak_clock_hz[u][p], d->clock_hz.value, SOLAR_SRC_DERIVED,
				    "the clock this ceiling was reached at was not recorded (clocks "
				    "unlocked, never set); taken as clock_hz = %.0f MHz, so at the "
				    "default clock the figure is the ceiling as measured and a locked "
				    "clock scales it in proportion",
				    d->clock_hz.value / 1e6);
			n++;
		}
	if (!n)
		return;
	char *name = solar_xmalloc(strlen(d->name ? d->name : "device") + 24);
	if (name) {
		sprintf(name, "%s (measured ceilings)", d->name ? d->name : "device");
		free(d->name);
		d->name = name;
	}
	add_note(d, "PRACTICAL, NOT SOUND: the figures marked measured are what one code (cuBLAS, "
		    "a device copy) reached on this device, not hardware limits. Bounds computed "
		    "with them are estimates of attainable time (solar analyze --ceilings "
		    "measured); a better kernel may beat them. Use `solar device probe` without "
		    "--ceilings measured for lower bounds.");
}

static int probe_run(const char *libcuda, FILE *out, solar_diag *diag, bool measure)
{
	void *lib = dlopen(libcuda, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *why = dlerror();
		size_t n = strlen(libcuda);
		if (why && strncmp(why, libcuda, n) == 0 && strncmp(why + n, ": ", 2) == 0)
			why += n + 2; /* dlerror repeats the name */
		solar_diag_tool_error(diag, "device probe: no CUDA driver found (%s: %s)", libcuda,
				      why ? why : "cannot be opened");
		return 1;
	}
	driver cu;
	memset(&cu, 0, sizeof cu);
	/* POSIX guarantees that a dlsym result converts to a function pointer. */
	*(void **)&cu.init = dlsym(lib, "cuInit");
	*(void **)&cu.count = dlsym(lib, "cuDeviceGetCount");
	*(void **)&cu.get = dlsym(lib, "cuDeviceGet");
	*(void **)&cu.name = dlsym(lib, "cuDeviceGetName");
	*(void **)&cu.attr = dlsym(lib, "cuDeviceGetAttribute");
	*(void **)&cu.total_mem = dlsym(lib, "cuDeviceTotalMem_v2");
	*(void **)&cu.error_string = dlsym(lib, "cuGetErrorString");
	*(void **)&cu.driver_version = dlsym(lib, "cuDriverGetVersion");
	static const struct {
		size_t off;
		const char *name, *alt;
	} opt[] = {
		{offsetof(driver, ctx_retain), "cuDevicePrimaryCtxRetain", NULL},
		{offsetof(driver, ctx_release), "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"},
		{offsetof(driver, ctx_set), "cuCtxSetCurrent", NULL},
		{offsetof(driver, ctx_sync), "cuCtxSynchronize", NULL},
		{offsetof(driver, mem_info), "cuMemGetInfo_v2", NULL},
		{offsetof(driver, mem_alloc), "cuMemAlloc_v2", NULL},
		{offsetof(driver, mem_free), "cuMemFree_v2", NULL},
		{offsetof(driver, memset32), "cuMemsetD32_v2", NULL},
		{offsetof(driver, htod), "cuMemcpyHtoD_v2", NULL},
		{offsetof(driver, dtod), "cuMemcpyDtoDAsync_v2", NULL},
		{offsetof(driver, module_load), "cuModuleLoadData", NULL},
		{offsetof(driver, module_unload), "cuModuleUnload", NULL},
		{offsetof(driver, module_fn), "cuModuleGetFunction", NULL},
		{offsetof(driver, launch), "cuLaunchKernel", NULL},
		{offsetof(driver, event_create), "cuEventCreate", NULL},
		{offsetof(driver, event_destroy), "cuEventDestroy_v2", "cuEventDestroy"},
		{offsetof(driver, event_record), "cuEventRecord", NULL},
		{offsetof(driver, event_sync), "cuEventSynchronize", NULL},
		{offsetof(driver, event_ms), "cuEventElapsedTime_v2", "cuEventElapsedTime"},
	};
	for (size_t i = 0; i < sizeof opt / sizeof *opt; i++) {
		void *f = dlsym(lib, opt[i].name);
		if (!f && opt[i].alt)
			f = dlsym(lib, opt[i].alt);
		memcpy((char *)&cu + opt[i].off, &f, sizeof f);
	}
	int rc = 1;
	if (!cu.init || !cu.count || !cu.get || !cu.name || !cu.attr || !cu.total_mem) {
		solar_diag_tool_error(
		    diag,
		    "device probe: %s lacks the driver API functions solar needs "
		    "(cuInit, cuDeviceGet, cuDeviceGetName, cuDeviceGetAttribute, "
		    "cuDeviceTotalMem_v2)",
		    libcuda);
		goto out;
	}
	CUresult res = cu.init(0);
	if (res != 0) {
		solar_diag_tool_error(diag, "device probe: cuInit failed: %s (error %d)",
				      cu_error(&cu, res), res);
		goto out;
	}
	int count = 0;
	CUdevice dev = 0;
	if ((res = cu.count(&count)) != 0 || count < 1) {
		solar_diag_tool_error(diag, "device probe: no CUDA device found%s%s",
				      res ? ": " : "", res ? cu_error(&cu, res) : "");
		goto out;
	}
	if ((res = cu.get(&dev, 0)) != 0) {
		solar_diag_tool_error(diag, "device probe: cuDeviceGet(0) failed: %s",
				      cu_error(&cu, res));
		goto out;
	}
	solar_device *d = solar_xcalloc(1, sizeof *d);
	if (!d)
		goto out;
	describe(&cu, dev, d, diag);
	if (measure) {
		solar_ceilings c;
		if (measure_ceilings(&cu, dev, d, &c, diag)) {
			solar_device_free(d);
			goto out;
		}
		solar_device_add_ceilings(d, &c, diag);
	}
	rc = solar_device_write_json(d, out) ? 1 : 0;
	solar_device_free(d);
out:
	dlclose(lib);
	return rc;
}

int solar_device_probe_with(const char *libcuda, FILE *out, solar_diag *diag)
{
	return probe_run(libcuda, out, diag, false);
}

int solar_device_probe(FILE *out, solar_diag *diag)
{
	return solar_device_probe_with("libcuda.so.1", out, diag);
}

int solar_device_probe_ceilings(FILE *out, solar_diag *diag, bool measure)
{
	return probe_run("libcuda.so.1", out, diag, measure);
}
