/* cuda.c - the GPU backend: NVRTC and the CUDA driver API, both loaded at run time.
 *
 * solar links against neither: libcuda.so.1 and libnvrtc (libnvrtc.so.13, .so.12, .so, or
 * $SOLAR_NVRTC) are opened with dlopen when `--backend cuda` asks for them, so solar builds
 * and runs where CUDA is absent and then says "the CUDA backend is unavailable: ...".
 *
 * A run: read the input .npy files; generate the CUDA source (codegen_cuda.c) for the launch
 * plan; compile it with NVRTC for the device's own architecture (no fused multiply-add
 * contraction, IEEE division and square root: the same rounding as the C backend); load the
 * cubin; allocate every tensor; convert the inputs on the device, poison out and tmp tensors;
 * run the launches in program order, timing each kernel with events; widen and copy the
 * outputs back and write DIR/air_<name>.npy.  A kernel that runs past the deadline ends the
 * run with an error (the process exits soon after, which frees the GPU).
 * The float64 rule's runs (solar_run_cuda_wide) are the same with the program's f32 tensors,
 * or those its reductions write, held in f64 (codegen_c.c's solar_validate_widen), writing
 * DIR/air64_<name>.npy or DIR/airacc_<name>.npy; the accumulator run rounds each reduced
 * tensor to f32 after every kernel that reduces into it, as the C backend's does.
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "validate.h"
#include "../diag/alloc.h"

/* ---- the few driver API and NVRTC declarations we use (cuda.h, nvrtc.h) ---- */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct _nvrtcProgram *nvrtcProgram;
typedef int nvrtcResult;
#define CU_NOT_READY 600
#define CU_ATTR_CC_MAJOR 75
#define CU_ATTR_CC_MINOR 76

typedef struct {
	void *lib, *rtc;
	CUresult (*Init)(unsigned);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*PrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxSynchronize)(void);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
				 unsigned, unsigned, CUstream, void **, void **);
	CUresult (*EventCreate)(CUevent *, unsigned);
	CUresult (*EventDestroy)(CUevent);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventQuery)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*GetErrorString)(CUresult, const char **);
	nvrtcResult (*rtcVersion)(int *, int *);
	nvrtcResult (*rtcCreate)(nvrtcProgram *, const char *, const char *, int,
				 const char *const *, const char *const *);
	nvrtcResult (*rtcCompile)(nvrtcProgram, int, const char *const *);
	nvrtcResult (*rtcLogSize)(nvrtcProgram, size_t *);
	nvrtcResult (*rtcLog)(nvrtcProgram, char *);
	nvrtcResult (*rtcCubinSize)(nvrtcProgram, size_t *);
	nvrtcResult (*rtcCubin)(nvrtcProgram, char *);
	nvrtcResult (*rtcDestroy)(nvrtcProgram *);
	const char *(*rtcError)(nvrtcResult);
} api;

/* dlsym of the first name that exists (versioned driver entry points first). */
static void *sym(void *lib, const char *a, const char *b)
{
	void *f = dlsym(lib, a);
	if (!f && b)
		f = dlsym(lib, b);
	return f;
}

#define LOAD(field, from, a, b)                                                            \
	do {                                                                               \
		*(void **)&x->field = sym(from, a, b);                                     \
		if (!x->field) {                                                           \
			snprintf(why, nwhy, "%s lacks %s",                                 \
				 (from) == x->lib ? "libcuda" : "NVRTC", a);               \
			return -1;                                                         \
		}                                                                          \
	} while (0)

/* NVRTC alone (enough to compile; the tests use it where no GPU is present). */
static int load_nvrtc(api *x, char *why, size_t nwhy)
{
	const char *env = getenv("SOLAR_NVRTC");
	const char *names[] = {env && *env ? env : NULL, "libnvrtc.so.13", "libnvrtc.so.12",
			       "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so"};
	for (size_t i = 0; i < sizeof names / sizeof *names && !x->rtc; i++)
		if (names[i])
			x->rtc = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!x->rtc) {
		snprintf(why, nwhy, "cannot load NVRTC (libnvrtc.so.13, .so.12 or .so: %s); set "
				    "SOLAR_NVRTC to its path",
			 dlerror());
		return -1;
	}
	LOAD(rtcVersion, x->rtc, "nvrtcVersion", NULL);
	LOAD(rtcCreate, x->rtc, "nvrtcCreateProgram", NULL);
	LOAD(rtcCompile, x->rtc, "nvrtcCompileProgram", NULL);
	LOAD(rtcLogSize, x->rtc, "nvrtcGetProgramLogSize", NULL);
	LOAD(rtcLog, x->rtc, "nvrtcGetProgramLog", NULL);
	LOAD(rtcCubinSize, x->rtc, "nvrtcGetCUBINSize", NULL);
	LOAD(rtcCubin, x->rtc, "nvrtcGetCUBIN", NULL);
	LOAD(rtcDestroy, x->rtc, "nvrtcDestroyProgram", NULL);
	LOAD(rtcError, x->rtc, "nvrtcGetErrorString", NULL);
	return 0;
}

static int load_api(api *x, char *why, size_t nwhy)
{
	memset(x, 0, sizeof *x);
	const char *drv = getenv("SOLAR_LIBCUDA"); /* another driver library (tests, odd installs) */
	drv = drv && *drv ? drv : "libcuda.so.1";
	x->lib = dlopen(drv, RTLD_NOW | RTLD_LOCAL);
	if (!x->lib) {
		snprintf(why, nwhy, "cannot load %s (%s)", drv, dlerror());
		return -1;
	}
	if (load_nvrtc(x, why, nwhy) < 0)
		return -1;
	LOAD(Init, x->lib, "cuInit", NULL);
	LOAD(DeviceGetCount, x->lib, "cuDeviceGetCount", NULL);
	LOAD(DeviceGet, x->lib, "cuDeviceGet", NULL);
	LOAD(DeviceGetName, x->lib, "cuDeviceGetName", NULL);
	LOAD(DeviceGetAttribute, x->lib, "cuDeviceGetAttribute", NULL);
	LOAD(PrimaryCtxRetain, x->lib, "cuDevicePrimaryCtxRetain", NULL);
	LOAD(PrimaryCtxRelease, x->lib, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
	LOAD(CtxSetCurrent, x->lib, "cuCtxSetCurrent", NULL);
	LOAD(CtxSynchronize, x->lib, "cuCtxSynchronize", NULL);
	LOAD(ModuleLoadData, x->lib, "cuModuleLoadData", NULL);
	LOAD(ModuleUnload, x->lib, "cuModuleUnload", NULL);
	LOAD(ModuleGetFunction, x->lib, "cuModuleGetFunction", NULL);
	LOAD(MemAlloc, x->lib, "cuMemAlloc_v2", "cuMemAlloc");
	LOAD(MemFree, x->lib, "cuMemFree_v2", "cuMemFree");
	LOAD(MemcpyHtoD, x->lib, "cuMemcpyHtoD_v2", "cuMemcpyHtoD");
	LOAD(MemcpyDtoH, x->lib, "cuMemcpyDtoH_v2", "cuMemcpyDtoH");
	LOAD(LaunchKernel, x->lib, "cuLaunchKernel", NULL);
	LOAD(EventCreate, x->lib, "cuEventCreate", NULL);
	LOAD(EventDestroy, x->lib, "cuEventDestroy_v2", "cuEventDestroy");
	LOAD(EventRecord, x->lib, "cuEventRecord", NULL);
	LOAD(EventQuery, x->lib, "cuEventQuery", NULL);
	LOAD(EventElapsedTime, x->lib, "cuEventElapsedTime", "cuEventElapsedTime_v2");
	LOAD(GetErrorString, x->lib, "cuGetErrorString", NULL);
	return 0;
}

/* The device (ordinal 0 of what CUDA_VISIBLE_DEVICES shows), initialised. */
static int open_device(api *x, CUdevice *dev, char *why, size_t nwhy)
{
	if (load_api(x, why, nwhy) < 0)
		return -1;
	const char *msg = NULL;
	CUresult e = x->Init(0);
	int count = 0;
	if (!e)
		e = x->DeviceGetCount(&count);
	if (e) {
		x->GetErrorString(e, &msg);
		snprintf(why, nwhy, "cuInit failed (%s)", msg ? msg : "unknown error");
		return -1;
	}
	if (count < 1) {
		snprintf(why, nwhy, "no CUDA device is visible");
		return -1;
	}
	if ((e = x->DeviceGet(dev, 0))) {
		snprintf(why, nwhy, "cuDeviceGet failed (error %d)", e);
		return -1;
	}
	return 0;
}

int solar_cuda_available(char *why, size_t nwhy)
{
	api x;
	CUdevice dev;
	return open_device(&x, &dev, why, nwhy);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
	api *x;
	solar_diag *diag;
	CUmodule mod;
	double deadline;
	bool timed_out; /* a kernel still runs: leave the device to process exit */
} gpu;

static int check(gpu *g, CUresult e, const char *what)
{
	if (!e)
		return 0;
	const char *msg = NULL;
	g->x->GetErrorString(e, &msg);
	solar_diag_tool_error(g->diag, "CUDA: %s failed: %s", what, msg ? msg : "unknown error");
	return -1;
}

/* Launches function `name` over n elements (grid-stride) or `threads` threads. */
static int launch(gpu *g, const char *name, int64_t threads, void **args)
{
	CUfunction f;
	if (check(g, g->x->ModuleGetFunction(&f, g->mod, name), name))
		return -1;
	int64_t block = threads < 256 ? (threads > 0 ? threads : 1) : 256;
	int64_t grid = (threads + block - 1) / block;
	if (grid > 2147483647)
		grid = 2147483647;
	if (grid < 1)
		grid = 1;
	return check(g, g->x->LaunchKernel(f, (unsigned)grid, 1, 1, (unsigned)block, 1, 1, 0, NULL,
					   args, NULL),
		     name);
}

/* Waits for an event under the deadline. */
static int wait_event(gpu *g, CUevent ev, const char *what)
{
	for (;;) {
		CUresult e = g->x->EventQuery(ev);
		if (e == CU_NOT_READY) {
			if (now_s() > g->deadline) {
				solar_diag_tool_error(
				    g->diag,
				    "the AIR program ran past the time limit on the "
				    "GPU (in kernel %s); stopped (try smaller sizes with -D, "
				    "or --timeout)",
				    what);
				g->timed_out = true;
				return -1;
			}
			struct timespec ts = {0, 200 * 1000};
			nanosleep(&ts, NULL);
			continue;
		}
		return check(g, e, what);
	}
}

static char *path_in(const char *dir, const char *prefix, const char *name, const char *ext)
{
	size_t n = strlen(dir) + strlen(prefix) + strlen(name) + strlen(ext) + 4;
	char *s = solar_xmalloc(n);
	snprintf(s, n, "%s/%s%s%s", dir, prefix, name, ext);
	return s;
}

static int compile(gpu *g, const char *src, int major, int minor, char **cubin, size_t *size)
{
	api *x = g->x;
	nvrtcProgram prog;
	nvrtcResult e = x->rtcCreate(&prog, src, "air_prog.cu", 0, NULL, NULL);
	if (e) {
		solar_diag_tool_error(g->diag, "NVRTC: %s", x->rtcError(e));
		return -1;
	}
	char arch[64];
	snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
	const char *opts[] = {arch, "--std=c++17", "--fmad=false", "--prec-div=true",
			      "--prec-sqrt=true", "--ftz=false"};
	e = x->rtcCompile(prog, (int)(sizeof opts / sizeof *opts), opts);
	size_t logn = 0;
	x->rtcLogSize(prog, &logn);
	if (e) {
		char *log = solar_xmalloc(logn + 1);
		log[0] = '\0';
		if (logn)
			x->rtcLog(prog, log);
		solar_diag_tool_error(
		    g->diag, "NVRTC could not compile the generated CUDA program (%s):\n%s",
		    x->rtcError(e), log);
		free(log);
		x->rtcDestroy(&prog);
		return -1;
	}
	*size = 0;
	if ((e = x->rtcCubinSize(prog, size)) || !*size) {
		solar_diag_tool_error(g->diag, "NVRTC produced no cubin for sm_%d%d", major, minor);
		x->rtcDestroy(&prog);
		return -1;
	}
	*cubin = solar_xmalloc(*size);
	x->rtcCubin(prog, *cubin);
	x->rtcDestroy(&prog);
	return 0;
}

int solar_cuda_compile_check(const char *src, int major, int minor, solar_diag *diag)
{
	api x;
	memset(&x, 0, sizeof x);
	char why[512];
	if (load_nvrtc(&x, why, sizeof why) < 0)
		return -2;
	gpu g = {&x, diag, NULL, 0, false};
	char *cubin = NULL;
	size_t size = 0;
	int rc = compile(&g, src, major, minor, &cubin, &size);
	free(cubin);
	return rc;
}

/* One run's driver handles and buffers: the steps of solar_run_cuda fill them in turn, and
 * run_free releases them whichever step stopped the run. */
typedef struct {
	api x;
	CUdevice dev;
	gpu g;
	const solar_program *p;
	const char *dir;
	solar_npy *in;		 /* per tensor: its input .npy (from_file tensors) */
	solar_npy_type *in_type; /* per tensor: that file's element type */
	CUdeviceptr *buf;	 /* per tensor: its device buffer */
	CUevent *ev;		 /* per kernel: the events before and after it */
	void **args;		 /* the launches' arguments: every tensor's buffer */
	CUcontext ctx;
	solar_plan plan;
	char *src, *cubin;
	const bool *rounded; /* the accumulator run's tensors to round after their kernels */
	const char *stem;    /* "air", "air64", "airacc": the output files' and source's stem */
} cuda_run;

/* Inputs first: their .npy element types shape the conversion kernels. */
static int read_inputs(cuda_run *c)
{
	for (int i = 0; i < c->p->ntensors; i++) {
		const solar_tensor *t = &c->p->tensors[i];
		if (!solar_validate_from_file(t))
			continue;
		char *path = path_in(c->dir, "in_", t->name, ".npy");
		int bad = solar_npy_read(path, &c->in[i], c->g.diag);
		if (!bad && c->in[i].rank != t->rank)
			bad = 1;
		for (int k = 0; !bad && k < t->rank; k++)
			bad = c->in[i].shape[k] != t->extent[k];
		if (bad > 0)
			solar_diag_tool_error(c->g.diag,
					      "%s: its shape differs from the AIR tensor %s's",
					      path, t->name);
		free(path);
		if (bad)
			return -1;
		c->in_type[i] = c->in[i].type;
	}
	return 0;
}

/* The run's device line ("NAME (sm_XY), NVRTC A.B") and the architecture to compile for. */
static void name_device(cuda_run *c, solar_run *r, int *major, int *minor)
{
	c->x.DeviceGetAttribute(major, CU_ATTR_CC_MAJOR, c->dev);
	c->x.DeviceGetAttribute(minor, CU_ATTR_CC_MINOR, c->dev);
	char name[128] = "GPU";
	c->x.DeviceGetName(name, sizeof name, c->dev);
	int rv_major = 0, rv_minor = 0;
	c->x.rtcVersion(&rv_major, &rv_minor);
	snprintf(r->device, sizeof r->device, "%s (sm_%d%d), NVRTC %d.%d", name, *major, *minor,
		 rv_major, rv_minor);
}

/* The launch plan and the CUDA source, each also written to DIR for the reader. */
static int generate(cuda_run *c, const char *file, const solar_analysis *a)
{
	if (solar_plan_build(c->p, a, &c->plan, c->g.diag) < 0)
		return -1;
	char *plan_path = path_in(c->dir, "plan", "", ".txt");
	FILE *pf = fopen(plan_path, "w");
	if (pf) {
		solar_plan_print(c->p, &c->plan, pf);
		fclose(pf);
	}
	free(plan_path);
	c->src = solar_codegen_cuda(c->p, file, &c->plan, c->in_type, c->rounded);
	char *src_path = path_in(c->dir, c->stem, "_prog", ".cu");
	FILE *sf = fopen(src_path, "w");
	if (sf) {
		fputs(c->src, sf);
		fclose(sf);
	}
	free(src_path);
	return 0;
}

/* NVRTC's cubin loaded into the primary context; the time it took is the run's compile_s. */
static int load_module(cuda_run *c, int major, int minor, solar_run *r)
{
	double t0 = now_s();
	size_t cubin_size = 0;
	if (compile(&c->g, c->src, major, minor, &c->cubin, &cubin_size) < 0)
		return -1;
	if (check(&c->g, c->x.PrimaryCtxRetain(&c->ctx, c->dev), "cuDevicePrimaryCtxRetain") ||
	    check(&c->g, c->x.CtxSetCurrent(c->ctx), "cuCtxSetCurrent") ||
	    check(&c->g, c->x.ModuleLoadData(&c->g.mod, c->cubin), "cuModuleLoadData"))
		return -1;
	r->compile_s = now_s() - t0;
	return 0;
}

/* Input tensor i's file staged on the device and converted into its buffer (n elements). */
static int convert_input(cuda_run *c, int i, int64_t n)
{
	const solar_tensor *t = &c->p->tensors[i];
	CUdeviceptr stage = 0;
	size_t bytes = (size_t)n * (size_t)solar_npy_size(c->in_type[i]);
	if (check(&c->g, c->x.MemAlloc(&stage, bytes ? bytes : 1), "allocating an input") ||
	    check(&c->g, c->x.MemcpyHtoD(stage, c->in[i].data, bytes), "copying an input")) {
		if (stage)
			c->x.MemFree(stage);
		return -1;
	}
	char fn[300];
	void *cargs[] = {&stage, &c->buf[i]};
	snprintf(fn, sizeof fn, "solar_in_%s", t->name);
	int bad = launch(&c->g, fn, n, cargs) ||
		  check(&c->g, c->x.CtxSynchronize(), "converting an input");
	c->x.MemFree(stage);
	return bad ? -1 : 0;
}

/* Tensors: inputs converted on the device, out and tmp poisoned. */
static int prepare_tensors(cuda_run *c)
{
	for (int i = 0; i < c->p->ntensors; i++) {
		const solar_tensor *t = &c->p->tensors[i];
		int64_t n = solar_tensor_elements(t);
		char what[300], fn[300];
		snprintf(what, sizeof what, "allocating %s (%" PRId64 " bytes)", t->name,
			 n * solar_dtype_bytes(t->dtype));
		if (check(&c->g,
			  c->x.MemAlloc(&c->buf[i], (size_t)(n * solar_dtype_bytes(t->dtype))),
			  what))
			return -1;
		if (solar_validate_from_file(t)) {
			if (convert_input(c, i, n) < 0)
				return -1;
		} else {
			void *cargs[] = {&c->buf[i]};
			snprintf(fn, sizeof fn, "solar_poison_%s", t->name);
			if (launch(&c->g, fn, n, cargs))
				return -1;
		}
		solar_npy_free(&c->in[i]);
	}
	return check(&c->g, c->x.CtxSynchronize(), "preparing the tensors");
}

/* After kernel k of the accumulator run: its reduced tensors rounded to f32 in place. */
static int round_reduced(cuda_run *c, int k)
{
	const solar_kernel *kn = &c->p->kernels[k];
	for (int s = kn->first_stmt; c->rounded && s < kn->first_stmt + kn->nstmts; s++) {
		int t = c->p->stmts[s]->tensor;
		if (!c->rounded[t] || !solar_validate_rounds_after(c->p, k, s))
			continue;
		char fn[300];
		snprintf(fn, sizeof fn, "solar_round_%s", c->p->tensors[t].name);
		void *cargs[] = {&c->buf[t]};
		if (launch(&c->g, fn, solar_tensor_elements(&c->p->tensors[t]), cargs))
			return -1;
	}
	return 0;
}

/* The program: kernels in order, each timed between two events. */
static int time_kernels(cuda_run *c, solar_run *r)
{
	const solar_program *p = c->p;
	for (int i = 0; i < p->ntensors; i++)
		c->args[i] = &c->buf[i];
	for (int k = 0; k < 2 * p->nkernels; k++)
		if (check(&c->g, c->x.EventCreate(&c->ev[k], 0), "cuEventCreate"))
			return -1;
	for (int k = 0; k < p->nkernels; k++) {
		if (check(&c->g, c->x.EventRecord(c->ev[2 * k], NULL), "cuEventRecord"))
			return -1;
		for (int li = 0; li < c->plan.nlaunch; li++) {
			const solar_launch *l = &c->plan.launch[li];
			if (l->kernel != k || l->empty)
				continue;
			char fn[64];
			snprintf(fn, sizeof fn, "solar_launch_%d", li);
			if (launch(&c->g, fn, l->threads, c->args))
				return -1;
		}
		if (round_reduced(c, k) ||
		    check(&c->g, c->x.EventRecord(c->ev[2 * k + 1], NULL), "cuEventRecord"))
			return -1;
	}
	for (int k = 0; k < p->nkernels; k++) {
		float ms = 0;
		if (wait_event(&c->g, c->ev[2 * k + 1], p->kernels[k].name) ||
		    check(&c->g, c->x.EventElapsedTime(&ms, c->ev[2 * k], c->ev[2 * k + 1]),
			  "cuEventElapsedTime"))
			return -1;
		r->kernel_s[k] = ms * 1e-3;
		r->run_s += r->kernel_s[k];
	}
	return 0;
}

/* Output tensor i copied back (widened on the device where .npy has no such type, and bool
 * as bytes) and written as DIR/air_<name>.npy. */
static int write_output(cuda_run *c, int i)
{
	const solar_tensor *t = &c->p->tensors[i];
	bool widened;
	solar_npy_type ot = solar_npy_out_type(t->dtype, &widened);
	int64_t n = solar_tensor_elements(t);
	size_t bytes = (size_t)n * (size_t)solar_npy_size(ot);
	void *host = solar_xmalloc(bytes ? bytes : 1);
	CUdeviceptr from = c->buf[i], stage = 0;
	if (widened || t->dtype == SOLAR_DT_BOOL) {
		char fn[300];
		snprintf(fn, sizeof fn, "solar_out_%s", t->name);
		void *cargs[] = {&c->buf[i], &stage};
		if (check(&c->g, c->x.MemAlloc(&stage, bytes ? bytes : 1),
			  "allocating an output") ||
		    launch(&c->g, fn, n, cargs)) {
			free(host);
			return -1;
		}
		from = stage;
	}
	int bad = check(&c->g, c->x.MemcpyDtoH(host, from, bytes), "copying an output back");
	if (stage)
		c->x.MemFree(stage);
	char stem[16];
	snprintf(stem, sizeof stem, "%s_", c->stem);
	char *path = path_in(c->dir, stem, t->name, ".npy");
	if (!bad)
		bad = solar_npy_write(path, ot, t->rank, t->extent, host, c->g.diag);
	free(path);
	free(host);
	return bad ? -1 : 0;
}

/* Outputs: every out and inout tensor, in program order, up to the first that fails. */
static int write_outputs(cuda_run *c)
{
	for (int i = 0; i < c->p->ntensors; i++) {
		solar_role role = c->p->tensors[i].role;
		if ((role == SOLAR_ROLE_OUT || role == SOLAR_ROLE_INOUT) && write_output(c, i) < 0)
			return -1;
	}
	return 0;
}

/* What the run holds; device objects stay to process exit when a kernel still runs. */
static void run_free(cuda_run *c)
{
	for (int k = 0; k < 2 * c->p->nkernels && !c->g.timed_out; k++)
		if (c->ev[k])
			c->x.EventDestroy(c->ev[k]);
	for (int i = 0; i < c->p->ntensors; i++) {
		if (c->buf[i] && !c->g.timed_out)
			c->x.MemFree(c->buf[i]);
		solar_npy_free(&c->in[i]);
	}
	if (c->g.mod && !c->g.timed_out)
		c->x.ModuleUnload(c->g.mod);
	if (c->ctx && !c->g.timed_out)
		c->x.PrimaryCtxRelease(c->dev);
	solar_plan_free(&c->plan);
	free(c->src);
	free(c->cubin);
	free(c->in);
	free(c->in_type);
	free(c->buf);
	free(c->ev);
	free(c->args);
}

/* The steps of the file's header in order; the first that fails ends the run with 2. */
static int run(const solar_program *p, const char *file, const solar_analysis *a,
	       const char *dir, double timeout_s, const bool *rounded, const char *stem,
	       solar_run *r, solar_diag *diag)
{
	memset(r, 0, sizeof *r);
	r->nkernels = p->nkernels;
	r->kernel_s = solar_xcalloc((size_t)p->nkernels + 1, sizeof *r->kernel_s);
	cuda_run c = {.p = p, .dir = dir, .rounded = rounded, .stem = stem};
	char why[512];
	if (open_device(&c.x, &c.dev, why, sizeof why) < 0) {
		solar_diag_tool_error(diag, "the CUDA backend is unavailable: %s", why);
		return 2;
	}
	c.g = (gpu){&c.x, diag, NULL, now_s() + (timeout_s > 0 ? timeout_s : 1e30), false};
	int nt = p->ntensors;
	c.in = solar_xcalloc((size_t)nt + 1, sizeof *c.in);
	c.in_type = solar_xcalloc((size_t)nt + 1, sizeof *c.in_type);
	c.buf = solar_xcalloc((size_t)nt + 1, sizeof *c.buf);
	c.ev = solar_xcalloc((size_t)p->nkernels + 1, 2 * sizeof *c.ev);
	c.args = solar_xcalloc((size_t)nt + 1, sizeof *c.args);
	int major = 0, minor = 0;
	bool ok = read_inputs(&c) == 0;
	if (ok)
		name_device(&c, r, &major, &minor);
	ok = ok && generate(&c, file, a) == 0 && load_module(&c, major, minor, r) == 0 &&
	     prepare_tensors(&c) == 0 && time_kernels(&c, r) == 0 && write_outputs(&c) == 0;
	run_free(&c);
	return ok ? 0 : 2;
}

int solar_run_cuda(const solar_program *p, const char *file, const solar_analysis *a,
		   const char *dir, double timeout_s, solar_run *r, solar_diag *diag)
{
	return run(p, file, a, dir, timeout_s, NULL, "air", r, diag);
}

int solar_run_cuda_wide(const solar_program *p, const char *file, const solar_analysis *a,
			const char *dir, double timeout_s, solar_wide w, solar_diag *diag)
{
	bool *wide = solar_validate_wide_set(p, w);
	solar_program wp;
	solar_tensor *ts = solar_validate_widen(p, wide, &wp);
	solar_run r;
	int rc = run(&wp, file, a, dir, timeout_s, w == SOLAR_WIDE_REDUCED ? wide : NULL,
		     w == SOLAR_WIDE_REDUCED ? "airacc" : "air64", &r, diag);
	solar_run_free(&r);
	free(ts);
	free(wide);
	return rc;
}
