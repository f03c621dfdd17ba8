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
 * The one idea: every derived peak must stay at or above what real code achieves, so where
 * the per-SM rate is uncertain the table holds the higher figure, and where it is unknown the
 * peak is left out (no bound) rather than guessed.  The clock is the driver's peak clock, so
 * tensor peaks come out above the vendor's (NVIDIA quotes H100 tensor peaks at 1830 MHz, the
 * driver says 1980 MHz): too high is sound, too low is not.
 */
#define _POSIX_C_SOURCE 200809L

#include "device.h"

#include <dlfcn.h>
#include <stdarg.h>
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

/* Fills `d` from device `dev`.  Remarks for the user go to err. */
static void describe(const driver *cu, CUdevice dev, solar_device *d, FILE *err)
{
	char name[256] = "CUDA device";
	int version = 0;
	if (cu->name(name, (int)sizeof name - 1, dev) != 0)
		strcpy(name, "CUDA device");
	if (cu->driver_version)
		cu->driver_version(&version);
	char via[96];
	snprintf(via, sizeof via, "CUDA driver %d.%d, solar device probe", version / 1000,
		 version % 1000 / 10);

	int sms = attr(cu, ATTR_MULTIPROCESSOR_COUNT, dev);
	int clock_khz = attr(cu, ATTR_CLOCK_RATE, dev);
	int mem_khz = attr(cu, ATTR_MEMORY_CLOCK_RATE, dev);
	int bus_bits = attr(cu, ATTR_GLOBAL_MEMORY_BUS_WIDTH, dev);
	int l2 = attr(cu, ATTR_L2_CACHE_SIZE, dev);
	int smem = attr(cu, ATTR_SHARED_MEMORY_PER_SM, dev);
	int regs = attr(cu, ATTR_REGISTERS_PER_SM, dev);
	int major = attr(cu, ATTR_CC_MAJOR, dev), minor = attr(cu, ATTR_CC_MINOR, dev);
	int integrated = attr(cu, ATTR_INTEGRATED, dev);
	size_t total = 0;
	if (cu->total_mem(&total, dev) != 0)
		total = 0;

	char arch[32];
	snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
	d->name = dupstr(name);
	d->vendor = dupstr("NVIDIA");
	d->arch = dupstr(arch);
	d->sm_count = sms > 0 ? sms : 0;
	double clock = clock_khz > 0 ? clock_khz * 1e3 : 0;
	if (clock > 0)
		set(&d->clock_hz, clock, SOLAR_SRC_MEASURED,
		    "driver attribute CLOCK_RATE = %d kHz (the peak SM clock; %s)", clock_khz, via);

	d->levels = solar_xcalloc(4, sizeof *d->levels);
	if (!d->levels)
		return;
	const char *names[4] = {"dram", "l2", "smem", "regs"};
	for (int i = 0; i < 4; i++)
		d->levels[i].name = solar_xstrdup(names[i]);
	d->nlevels = 4;
	solar_mem_level *dram = &d->levels[0], *l2lv = &d->levels[1];
	solar_mem_level *smemlv = &d->levels[2], *regslv = &d->levels[3];

	if (total > 0)
		set(&dram->capacity_bytes, (double)total, SOLAR_SRC_MEASURED,
		    "driver cuDeviceTotalMem = %zu bytes (%s)", total, via);
	if (integrated == 1) {
		add_note(d, "Integrated GPU: the DRAM is shared with the CPU, and the memory clock "
			    "and bus width the driver reports do not give its bandwidth. Add "
			    "memory[0].bandwidth_bytes_per_s from the datasheet.");
		fprintf(err,
			"solar: device probe: %s is an integrated GPU: the memory clock and "
			"bus width its driver reports do not give the DRAM bandwidth; add "
			"memory[0].bandwidth_bytes_per_s from the datasheet (the descriptor "
			"does not load without it)\n",
			name);
	} else if (mem_khz > 0 && bus_bits > 0) {
		double bw = 2.0 * mem_khz * 1e3 * bus_bits / 8.0;
		set(&dram->bandwidth_bytes_per_s, bw, SOLAR_SRC_DERIVED,
		    "2 (double data rate) x MEMORY_CLOCK_RATE %d kHz x GLOBAL_MEMORY_BUS_WIDTH "
		    "%d bits / 8 (%s)",
		    mem_khz, bus_bits, via);
	} else {
		fprintf(err, "solar: device probe: the driver gives no memory clock or bus width; "
			     "add memory[0].bandwidth_bytes_per_s from the datasheet\n");
	}
	if (l2 > 0)
		set(&l2lv->capacity_bytes, l2, SOLAR_SRC_MEASURED,
		    "driver attribute L2_CACHE_SIZE = %d bytes (%s)", l2, via);

	const arch_rates *r = rates_for(major, minor);
	if (sms > 0 && smem > 0) {
		long per_sm = smem;
		const char *why = "the driver's MAX_SHARED_MEMORY_PER_MULTIPROCESSOR";
		if (r && r->l1_kib * 1024L > per_sm) {
			per_sm = r->l1_kib * 1024L;
			why = "the unified L1/shared-memory array per SM of this architecture, "
			      "larger "
			      "than the shared-memory maximum; a larger capacity keeps traffic "
			      "bounds "
			      "sound";
		}
		set(&smemlv->capacity_bytes, (double)sms * (double)per_sm, SOLAR_SRC_DERIVED,
		    "%d SMs x %ld bytes: %s (the driver reports %d bytes of shared memory per SM; "
		    "%s)",
		    sms, per_sm, why, smem, via);
	}
	if (sms > 0 && regs > 0)
		set(&regslv->capacity_bytes, (double)sms * regs * 4.0, SOLAR_SRC_DERIVED,
		    "%d SMs x %d registers x 4 bytes (driver attribute "
		    "MAX_REGISTERS_PER_MULTIPROCESSOR; %s)",
		    sms, regs, via);

	if (!r || sms <= 0 || clock <= 0) {
		char msg[300];
		snprintf(msg, sizeof msg,
			 "Compute capability %d.%d is not in solar's table of per-SM rates (or the "
			 "driver gave no SM count or clock): no peaks were derived. Add "
			 "peak.simt.f32 (required) and the other peaks from the datasheet.",
			 major, minor);
		add_note(d, msg);
		fprintf(err, "solar: device probe: %s\n", msg);
		return;
	}
	double sc = sms * clock;
	char tail[300];
	snprintf(tail, sizeof tail, "%d SMs x %.0f MHz (%s)", sms, clock / 1e6, via);
	solar_figure(*pk)[SOLAR_PREC_COUNT] = d->peak;
	set(&pk[SOLAR_UNIT_SIMT][SOLAR_PREC_F32], sc * 2 * r->fp32_fma, SOLAR_SRC_DERIVED,
	    "%d FP32 FMA lanes x 2 FLOP x %s; lanes from the CUDA C Programming Guide "
	    "throughput table for cc %d.%d",
	    r->fp32_fma, tail, major, minor);
	set(&pk[SOLAR_UNIT_SIMT][SOLAR_PREC_F64], sc * 2 * r->fp64_fma, SOLAR_SRC_DERIVED,
	    "%d FP64 FMA lanes x 2 FLOP x %s; lanes from the CUDA C Programming Guide "
	    "throughput table for cc %d.%d",
	    r->fp64_fma, tail, major, minor);
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
		set(&pk[SOLAR_UNIT_TENSOR][t[i].p], sc * t[i].per_clk, SOLAR_SRC_DERIVED,
		    "%d dense ops/clk/SM (%s, solar's per-architecture table) x %s; at the peak "
		    "SM clock, so at or above the vendor's tensor peak",
		    t[i].per_clk, r->chip, tail);
	}
	/* Rule "clock domains": every peak above is at the driver's peak SM clock. */
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int p = 0; p < SOLAR_PREC_COUNT; p++)
			if (pk[u][p].present)
				set(&d->peak_clock_hz[u][p], clock, SOLAR_SRC_MEASURED,
				    "the peak is derived at the driver attribute CLOCK_RATE = "
				    "%d kHz (%s)",
				    clock_khz, via);
	if (!tensors) {
		char msg[200];
		snprintf(msg, sizeof msg,
			 "No dense tensor rates are known for compute capability %d.%d: tensor "
			 "peaks were left out (add them from the datasheet, dense figures).",
			 major, minor);
		add_note(d, msg);
		fprintf(err, "solar: device probe: %s\n", msg);
	}
}

int solar_device_probe_with(const char *libcuda, FILE *out, FILE *err)
{
	void *lib = dlopen(libcuda, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *why = dlerror();
		size_t n = strlen(libcuda);
		if (why && strncmp(why, libcuda, n) == 0 && strncmp(why + n, ": ", 2) == 0)
			why += n + 2; /* dlerror repeats the name */
		fprintf(err, "solar: device probe: no CUDA driver found (%s: %s)\n", libcuda,
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
	int rc = 1;
	if (!cu.init || !cu.count || !cu.get || !cu.name || !cu.attr || !cu.total_mem) {
		fprintf(err,
			"solar: device probe: %s lacks the driver API functions solar needs "
			"(cuInit, cuDeviceGet, cuDeviceGetName, cuDeviceGetAttribute, "
			"cuDeviceTotalMem_v2)\n",
			libcuda);
		goto out;
	}
	CUresult res = cu.init(0);
	if (res != 0) {
		fprintf(err, "solar: device probe: cuInit failed: %s (error %d)\n",
			cu_error(&cu, res), res);
		goto out;
	}
	int count = 0;
	CUdevice dev = 0;
	if ((res = cu.count(&count)) != 0 || count < 1) {
		fprintf(err, "solar: device probe: no CUDA device found%s%s\n", res ? ": " : "",
			res ? cu_error(&cu, res) : "");
		goto out;
	}
	if ((res = cu.get(&dev, 0)) != 0) {
		fprintf(err, "solar: device probe: cuDeviceGet(0) failed: %s\n",
			cu_error(&cu, res));
		goto out;
	}
	solar_device *d = solar_xcalloc(1, sizeof *d);
	if (!d)
		goto out;
	describe(&cu, dev, d, err);
	rc = solar_device_write_json(d, out) ? 1 : 0;
	solar_device_free(d);
out:
	dlclose(lib);
	return rc;
}

int solar_device_probe(FILE *out, FILE *err)
{
	return solar_device_probe_with("libcuda.so.1", out, err);
}
