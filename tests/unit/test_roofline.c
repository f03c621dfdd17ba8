/* test_roofline.c - invariants of the three bounds on every example and several devices:
 *   fused <= unfused, fused <= cache-aware (compulsory traffic is the floor), and no bound
 *   increases when a bandwidth, a peak, an on-chip capacity or the SM clock grows; and rule
 *   "clock domains" on the 8192^3 bf16 matmul at a locked 1.5 GHz.
 * Runs from the repository root (reads every example and several device descriptors).
 */
#define _XOPEN_SOURCE 700

#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/work.h"
#include "devices/device.h"
#include "frontend/frontend.h"
#include "roofline/provision.h"
#include "roofline/roofline.h"


#include "check.h"

static const double eps = 1e-12;

static void bounds(const solar_work *w, const solar_device *d, double t[3])
{
	solar_bounds b;
	if (solar_bounds_compute(w, d, false, &b, on(stderr)) < 0) {
		t[0] = t[1] = t[2] = -1;
		return;
	}
	t[0] = b.unfused.time_s;
	t[1] = b.fused.time_s;
	t[2] = b.cache_aware.time_s;
	solar_bounds_free(&b);
}

/* Scales one figure of a fresh copy of the device by `factor`; returns the bounds. */
static void scaled(const solar_work *w, const char *devfile, const char *path, double factor,
		   double t[3])
{
	solar_device *d = solar_device_load(devfile, on(stderr));
	const char *dot = strrchr(path, '.');
	double v = -1;
	if (!strcmp(path, "clock_hz")) {
		v = d->clock_hz.value;
	} else if (!strncmp(path, "memory.", 7)) {
		char level[32];
		size_t n = (size_t)(strchr(path + 7, '.') - (path + 7));
		memcpy(level, path + 7, n);
		level[n] = '\0';
		const solar_mem_level *l = solar_device_level(d, level);
		const solar_figure *f = !l ? NULL
					: !strcmp(dot + 1, "capacity_bytes") ? &l->capacity_bytes
									     : &l->bandwidth_bytes_per_s;
		if (f && f->present)
			v = f->value;
	} else {
		int u = -1, q = -1;
		char unit[32];
		size_t n = (size_t)(dot - (path + 5));
		memcpy(unit, path + 5, n);
		unit[n] = '\0';
		u = solar_unit_parse(unit);
		q = solar_prec_parse(dot + 1);
		if (u >= 0 && q >= 0 && d->peak[u][q].present)
			v = solar_device_peak(d, u, q); /* the rate the bounds use */
	}
	if (v > 0)
		solar_device_set(d, path, v * factor, on(stderr));
	bounds(w, d, t);
	solar_device_free(d);
}

/* Rule "clock domains" (docs/bounds.md).  NVIDIA quotes the H100's BF16 tensor peak at a
 * 1830 MHz tensor clock, the SM clock goes to 1980: at a locked 1.5 GHz the hardware does
 * 132 SMs x 4096 FLOP/clk x 1.5 GHz = 811 TFLOP/s, so the 8192^3 matmul (2 x 8192^3 FLOP) can
 * take as little as 1.3557 ms.  Scaling the 989.4 TFLOP/s figure by 1.5 / 1.98 gave 1.467 ms,
 * above what the hardware allows.  --set clock_hz and sweep's "clock" knob must agree. */
static void test_clock_domains(void)
{
	const char *file = "examples/matmul_bf16.air";
	int32_t len;
	char *src = solar_read_file(file, &len, on(stderr));
	solar_diag *dg = solar_diag_new(file, src, len, stderr);
	solar_program *p = solar_frontend_load(file, src, len, NULL, 0, dg);
	solar_work *w = p ? solar_work_check_and_count(p, SOLAR_MATH_STRICT, dg) : NULL;
	solar_device *d = solar_device_load("devices/h100-sxm.json", on(stderr));
	CHECK(w && d);
	if (w && d) {
		const double flop = 2.0 * 8192 * 8192 * 8192, hw = flop / (132 * 4096 * 1.5e9);
		double t[3], k[3];
		/* The default (unlocked) clock: the 1980 MHz maximum, no clock the hardware
		 * allows beats it. */
		bounds(w, d, t);
		CHECKF(t[1] <= flop / (132 * 4096 * 1.98e9), "default bound %g", t[1]);
		solar_device *knob_dev = solar_device_clone(d);
		CHECK(solar_device_set(d, "clock_hz", 1.5e9, on(stderr)) == 0);
		bounds(w, d, t);
		CHECKF(t[1] <= 1.356e-3 && t[1] <= hw && t[1] >= hw * (1 - 1e-4),
		       "8192^3 bf16 on the H100 at 1.5 GHz: bound %g s, the hardware allows %g s",
		       t[1], hw);
		solar_knob kn;
		CHECK(solar_knob_init(&kn, knob_dev, "clock", on(stderr)) == 0);
		CHECK(solar_knob_apply(&kn, knob_dev, 1.5e9 / 1.98e9, on(stderr)) == 0);
		bounds(w, knob_dev, k);
		for (int j = 0; j < 3; j++)
			CHECKF(fabs(k[j] / t[j] - 1) < 1e-12, "sweep's clock %g != --set clock_hz %g",
			       k[j], t[j]);
		/* DRAM is not on the SM clock. */
		CHECK(solar_device_level(d, "dram")->bandwidth_bytes_per_s.value == 3.35e12);
		solar_device_free(knob_dev);
	}
	solar_device_free(d);
	solar_work_free(w);
	solar_program_free(p);
	solar_diag_free(dg);
	free(src);
}

int main(void)
{
	test_clock_domains();
	static const char *devices[] = {"devices/h200-sxm.json", "devices/b200.json",
					"devices/a100-sxm-80gb.json", "devices/jetson-agx-orin-64gb.json"};
	static const char *figures[] = {"memory.dram.bandwidth_bytes_per_s", "memory.l2.capacity_bytes",
					"memory.smem.capacity_bytes", "memory.regs.capacity_bytes",
					"peak.tensor.bf16", "peak.tensor.tf32", "peak.simt.f32",
					"peak.sfu.f32", "peak.tensor.f16", "clock_hz"};
	glob_t g;
	if (glob("examples/*.air", 0, NULL, &g) || g.gl_pathc < 12) {
		fprintf(stderr, "test_roofline: run from the repository root (examples/*.air)\n");
		return 1;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *file = g.gl_pathv[i];
		int32_t len;
		char *src = solar_read_file(file, &len, on(stderr));
		solar_diag *dg = solar_diag_new(file, src, len, stderr);
		solar_program *p = solar_frontend_load(file, src, len, NULL, 0, dg);
		solar_work *w = p ? solar_work_check_and_count(p, SOLAR_MATH_STRICT, dg) : NULL;
		CHECKF(w != NULL, "%s does not count", file);
		for (size_t k = 0; w && k < sizeof devices / sizeof *devices; k++) {
			solar_device *d = solar_device_load(devices[k], on(stderr));
			double t[3];
			bounds(w, d, t);
			solar_device_free(d);
			CHECKF(t[1] > 0, "%s on %s: fused bound %g", file, devices[k], t[1]);
			CHECKF(t[1] <= t[0] * (1 + eps), "%s on %s: fused %g > unfused %g", file,
			      devices[k], t[1], t[0]);
			CHECKF(t[1] <= t[2] * (1 + eps), "%s on %s: fused %g > cache-aware %g", file,
			      devices[k], t[1], t[2]);
			for (size_t f = 0; f < sizeof figures / sizeof *figures; f++) {
				double up[3], down[3];
				scaled(w, devices[k], figures[f], 2.0, up);
				scaled(w, devices[k], figures[f], 0.5, down);
				for (int j = 0; j < 3; j++) {
					CHECKF(up[j] <= t[j] * (1 + eps),
					      "%s on %s: bound %d rose from %g to %g with 2x %s", file,
					      devices[k], j, t[j], up[j], figures[f]);
					CHECKF(down[j] >= t[j] * (1 - eps),
					      "%s on %s: bound %d fell from %g to %g with 0.5x %s", file,
					      devices[k], j, t[j], down[j], figures[f]);
				}
			}
		}
		solar_work_free(w);
		solar_program_free(p);
		solar_diag_free(dg);
		free(src);
	}
	globfree(&g);
	printf("test_roofline: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
