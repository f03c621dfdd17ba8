/* test_provision.c - the inverse roofline (roofline/provision.c, docs/provision.md).
 *
 * Provisioning must agree with the bounds it inverts.  For every factor it reports, the bound
 * recomputed at that factor meets the target and the bound a hair below it does not; for the
 * fused bound of a program limited by one resource, the factor equals time / target (the only
 * place a closed form holds, so it is the oracle); the unfused bound, a sum over kernels, needs
 * more of a resource than the fused one; when no resource alone reaches the target, the joint
 * factors it reports do.  Also: knobs set the figures they name, with status hypothetical, and
 * a clone is independent of its original.
 */
#include "analysis/work.h"
#include "frontend/frontend.h"
#include "roofline/provision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "check.h"

typedef struct {
	char *src;
	solar_diag *d;
	solar_program *p;
	solar_work *w;
} loaded;

static loaded load(const char *file)
{
	loaded l = {0};
	int32_t len;
	l.src = solar_read_file(file, &len, on(stderr));
	if (!l.src) {
		failures++;
		return l;
	}
	l.d = solar_diag_new(file, l.src, len, stderr);
	l.p = solar_frontend_load(file, l.src, len, NULL, 0, l.d);
	if (l.p)
		l.w = solar_work_count(l.p, SOLAR_MATH_STRICT, l.d);
	CHECKF(l.w, "%s: cannot count", file);
	return l;
}

static void unload(loaded *l)
{
	solar_work_free(l->w);
	solar_program_free(l->p);
	solar_diag_free(l->d);
	free(l->src);
}

static int knob_index(const solar_knob *k, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(k[i].name, name))
			return i;
	return -1;
}

/* The bound with knob k at factor f meets the target, and at f(1 - eps) misses it. */
static void check_tight(const solar_work *w, const solar_device *dev, const solar_knob *k,
			solar_bound_kind b, double f, double target, const char *what)
{
	solar_device *c = solar_device_clone(dev);
	solar_knob_apply(k, c, f, on(stderr));
	double at = solar_bound_time(w, c, false, b, NULL, on(stderr));
	solar_knob_apply(k, c, f * (1 - 1e-6), on(stderr));
	double below = solar_bound_time(w, c, false, b, NULL, on(stderr));
	CHECKF(at <= target, "%s: %s x%.9g gives %.9g > target %.9g", what, k->name, f, at, target);
	CHECKF(below > target, "%s: %s x%.9g still meets the target (%.9g): not the smallest", what,
	      k->name, f * (1 - 1e-6), below);
	solar_device_free(c);
}

static void test_knobs(const solar_device *h100)
{
	solar_knob k;
	CHECKF(solar_knob_init(&k, h100, "dram_bw", on(stderr)) == 0, "dram_bw");
	CHECKF(k.headline == 3.35e12, "dram_bw headline %g", k.headline);
	solar_device *c = solar_device_clone(h100);
	CHECKF(solar_knob_apply(&k, c, 2, on(stderr)) == 0, "apply");
	const solar_mem_level *d = solar_device_level(c, "dram");
	CHECKF(d->bandwidth_bytes_per_s.value == 6.7e12, "doubled: %g", d->bandwidth_bytes_per_s.value);
	CHECKF(d->bandwidth_bytes_per_s.status == SOLAR_SRC_HYPOTHETICAL, "status");
	CHECKF(solar_device_level(h100, "dram")->bandwidth_bytes_per_s.value == 3.35e12,
	      "the original changed");
	CHECKF(solar_knob_init(&k, h100, "onchip", on(stderr)) == 0 && k.nfig == 3, "onchip");
	/* Rule "clock domains": the SM clock is one figure; the peaks follow it. */
	CHECKF(solar_knob_init(&k, h100, "clock", on(stderr)) == 0 && k.nfig == 1 &&
		   !strcmp(k.path[0], "clock_hz") && k.headline == 1.98e9,
	       "clock: %d figures", k.nfig);
	CHECKF(solar_knob_init(&k, h100, "tensor.bf16", on(stderr)) == 0 &&
		   !strcmp(k.name, "peak.tensor.bf16"),
	       "shorthand");
	FILE *quiet = fopen("/dev/null", "w");
	/* rule "L2 bandwidth": a derived per-SM limit, in every NVIDIA descriptor */
	CHECKF(solar_knob_init(&k, h100, "l2_bw", on(quiet)) == 0 && k.nfig == 1 &&
		   k.headline == 132 * 128 * 1.98e9,
	       "h100 has a derived L2 bandwidth");
	CHECKF(solar_knob_init(&k, h100, "bogus", on(quiet)) < 0, "unknown knob");
	fclose(quiet);
	CHECKF(solar_bound_parse("cache-aware") == SOLAR_BOUND_CACHE_AWARE &&
		      solar_bound_parse("cache_aware") == SOLAR_BOUND_CACHE_AWARE &&
		      solar_bound_parse("x") < 0,
	      "bound names");
	solar_device_free(c);
}

/* softmax: DRAM-limited everywhere; the fused factor is exactly time / target. */
static void test_linear(const solar_device *h100)
{
	loaded l = load("examples/softmax.air");
	if (!l.w)
		return;
	solar_knob *ks;
	int n = solar_knobs_default(l.w, h100, &ks);
	int dram = knob_index(ks, n, "dram_bw");
	CHECKF(dram >= 0, "no dram_bw knob");
	double t = solar_bound_time(l.w, h100, false, SOLAR_BOUND_FUSED, NULL, on(stderr));
	double target = t / 3;
	solar_provision p;
	CHECKF(solar_provision_compute(l.w, h100, NULL, NULL, false, ks, n, SOLAR_BOUND_FUSED, target, &p,
				       on(stderr)) == 0,
	       "provision");
	CHECKF(fabs(p.knob[dram].factor / 3 - 1) < 1e-8, "dram factor %.12g, expected 3",
	      p.knob[dram].factor);
	CHECKF(p.binding == dram, "binding %d", p.binding);
	CHECKF(p.single, "reachable by DRAM alone");
	check_tight(l.w, h100, &ks[dram], SOLAR_BOUND_FUSED, p.knob[dram].factor, target, "softmax");
	int l2 = knob_index(ks, n, "l2");
	if (l2 >= 0 && isfinite(p.knob[l2].factor) && p.knob[l2].factor > 0)
		check_tight(l.w, h100, &ks[l2], SOLAR_BOUND_FUSED, p.knob[l2].factor, target,
			    "softmax, L2 capacity");
	solar_provision_free(&p);
	/* a target already met: the factor is below 1 and still tight */
	CHECKF(solar_provision_compute(l.w, h100, NULL, NULL, false, ks, n, SOLAR_BOUND_FUSED, t * 4, &p,
				       on(stderr)) == 0,
	       "provision");
	CHECKF(fabs(p.knob[dram].factor * 4 - 1) < 1e-8, "dram factor %.12g, expected 0.25",
	      p.knob[dram].factor);
	solar_provision_free(&p);
	free(ks);
	unload(&l);
}

/* mlp_block: tensor-limited GEMMs and a DRAM-limited GELU. */
static void test_sum_and_joint(const solar_device *h100)
{
	loaded l = load("examples/mlp_block.air");
	if (!l.w)
		return;
	solar_knob *ks;
	int n = solar_knobs_default(l.w, h100, &ks);
	int tc = knob_index(ks, n, "peak.tensor.bf16"), dram = knob_index(ks, n, "dram_bw");
	CHECKF(tc >= 0 && dram >= 0, "knobs");
	double target = 300e-6;
	solar_provision u, f;
	CHECKF(solar_provision_compute(l.w, h100, NULL, NULL, false, ks, n, SOLAR_BOUND_UNFUSED, target, &u,
				       on(stderr)) == 0,
	       "unfused");
	CHECKF(solar_provision_compute(l.w, h100, NULL, NULL, false, ks, n, SOLAR_BOUND_FUSED, target, &f,
				       on(stderr)) == 0,
	       "fused");
	CHECKF(u.knob[tc].factor > f.knob[tc].factor * 1.05,
	      "unfused needs more tensor peak than fused: %g vs %g", u.knob[tc].factor,
	      f.knob[tc].factor);
	check_tight(l.w, h100, &ks[tc], SOLAR_BOUND_UNFUSED, u.knob[tc].factor, target, "unfused");
	check_tight(l.w, h100, &ks[tc], SOLAR_BOUND_FUSED, f.knob[tc].factor, target, "fused");
	CHECKF(!isfinite(u.knob[dram].factor), "DRAM alone cannot make the GEMMs faster");
	solar_provision_free(&u);
	solar_provision_free(&f);

	/* 10 us: tensor alone stops at the DRAM time, DRAM alone at the tensor time */
	target = 10e-6;
	CHECKF(solar_provision_compute(l.w, h100, NULL, NULL, false, ks, n, SOLAR_BOUND_FUSED, target, &f,
				       on(stderr)) == 0,
	       "joint");
	CHECKF(!f.single, "no single resource should reach 10 us");
	CHECKF(f.joint_ok && f.njoint == 2, "joint: %d knobs", f.njoint);
	solar_device *c = solar_device_clone(h100);
	for (int a = 0; a < f.njoint; a++)
		solar_knob_apply(&ks[f.joint[a]], c, f.joint_factor[a], on(stderr));
	double t = solar_bound_time(l.w, c, false, SOLAR_BOUND_FUSED, NULL, on(stderr));
	CHECKF(t <= target, "joint factors give %g > %g", t, target);
	solar_device_free(c);
	solar_provision_free(&f);
	CHECKF(solar_provision_compute(l.w, h100, NULL, NULL, false, ks, n, SOLAR_BOUND_UNFUSED, target, &u,
				       on(stderr)) == 0,
	       "joint, unfused");
	c = solar_device_clone(h100);
	for (int a = 0; a < u.njoint; a++)
		solar_knob_apply(&ks[u.joint[a]], c, u.joint_factor[a], on(stderr));
	t = solar_bound_time(l.w, c, false, SOLAR_BOUND_UNFUSED, NULL, on(stderr));
	CHECKF(u.joint_ok && t <= target * (1 + 1e-9), "unfused joint factors give %g > %g", t, target);
	solar_device_free(c);
	solar_provision_free(&u);
	free(ks);
	unload(&l);
}

int main(void)
{
	solar_device *h100 = solar_device_load("devices/h100-sxm.json", on(stderr));
	CHECKF(h100, "cannot load devices/h100-sxm.json (run from the source tree)");
	if (!h100)
		return 1;
	test_knobs(h100);
	test_linear(h100);
	test_sum_and_joint(h100);
	solar_device_free(h100);
	if (failures)
		fprintf(stderr, "test_provision: %d failures\n", failures);
	return failures != 0;
}
