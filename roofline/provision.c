/* provision.c - the inverse roofline (docs/provision.md).
 *
 * Input: exact counts (solar_work), a device, a target time.  Output: per resource, the
 * smallest factor that meets the target with the other resources as given.
 *
 * The one idea: never invert a formula.  A bound is recomputed by solar_bounds_compute on a
 * copy of the device whose figures solar_device_set has scaled, and the factor is found by
 * bisection.  This is exact for every bound whatever its shape: the unfused bound is a sum of
 * per-kernel maxima (scaling DRAM bandwidth helps only the kernels DRAM limits), the special-
 * function rate mixes two peaks (rule "special functions"), and capacity acts through the
 * warm-L2 allowance and the segment rules (rule "cache-aware"), none of them linear.  Each of
 * these times is non-increasing in every rate and every capacity, which is what makes
 * bisection valid.
 */
#include "provision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../diag/alloc.h"

const char *solar_bound_key(solar_bound_kind k)
{
	static const char *const key[] = {"unfused", "cache_aware", "fused"};
	return k >= 0 && k < SOLAR_BOUND_COUNT ? key[k] : "?";
}

const char *solar_bound_name(solar_bound_kind k)
{
	static const char *const name[] = {"unfused", "cache-aware", "fused"};
	return k >= 0 && k < SOLAR_BOUND_COUNT ? name[k] : "?";
}

int solar_bound_parse(const char *s)
{
	for (int k = 0; k < SOLAR_BOUND_COUNT; k++)
		if (!strcmp(s, solar_bound_key(k)) || !strcmp(s, solar_bound_name(k)))
			return k;
	return -1;
}

const solar_roof *solar_bound_roof(const solar_bounds *b, solar_bound_kind k)
{
	return k == SOLAR_BOUND_UNFUSED ? &b->unfused
	       : k == SOLAR_BOUND_FUSED ? &b->fused
					: &b->cache_aware;
}

/* ---- knobs ---------------------------------------------------------------------------- */

static void add_fig(solar_knob *k, const char *path, double base)
{
	snprintf(k->path[k->nfig], sizeof k->path[k->nfig], "%s", path);
	k->base[k->nfig++] = base;
}

/* A capacity knob over the named levels (all must be given). */
static int capacity_knob(solar_knob *k, const solar_device *d, const char *const *levels, int n,
			 solar_diag *diag)
{
	k->kind = SOLAR_KNOB_CAPACITY;
	k->unit = "B";
	for (int i = 0; i < n; i++) {
		const solar_mem_level *l = solar_device_level(d, levels[i]);
		if (!l || !l->capacity_bytes.present) {
			solar_diag_tool_error(
			    diag,
			    "%s: '%s' needs memory.%s.capacity_bytes, which the descriptor "
			    "does not give (set one with --set memory.%s.capacity_bytes=VALUE)",
			    d->file, k->name, levels[i], levels[i]);
			return -1;
		}
		char path[40];
		snprintf(path, sizeof path, "memory.%s.capacity_bytes", levels[i]);
		add_fig(k, path, l->capacity_bytes.value);
		k->headline += l->capacity_bytes.value;
	}
	return 0;
}

static int peak_knob(solar_knob *k, const solar_device *d, int u, int q, solar_diag *diag)
{
	const solar_figure *f = &d->peak[u][q];
	k->kind = SOLAR_KNOB_RATE;
	k->resource = SOLAR_RES_OPS + u * SOLAR_PREC_COUNT + q;
	k->unit = q >= SOLAR_PREC_I64 ? "OP/s" : "FLOP/s";
	snprintf(k->name, sizeof k->name, "peak.%s.%s", solar_unit_name(u), solar_prec_name(q));
	snprintf(k->label, sizeof k->label, "%s.%s peak", solar_unit_name(u), solar_prec_name(q));
	double v = solar_device_peak(d, u, q); /* at the SM clock: what the bounds use */
	/* Rule "missing peak": such work runs at the fastest peak, so that is factor 1.  The
	 * special-function rate has no such stand-in (it also draws on simt.f32). */
	if (!f->present && u != SOLAR_UNIT_SFU)
		v = solar_device_fastest_peak(d);
	if (v <= 0) {
		solar_diag_tool_error(
		    diag,
		    "%s: the descriptor gives no %s peak to scale (set one with --set "
		    "%s=VALUE)",
		    d->file, k->name + 5, k->name);
		return -1;
	}
	char path[40];
	snprintf(path, sizeof path, "%s", k->name);
	add_fig(k, path, v);
	k->headline = v;
	return 0;
}

int solar_knob_init(solar_knob *k, const solar_device *d, const char *name, solar_diag *diag)
{
	memset(k, 0, sizeof *k);
	k->resource = -1;
	if (!strcmp(name, "dram_bw") || !strcmp(name, "l2_bw")) {
		const char *lv = name[0] == 'd' ? "dram" : "l2";
		const solar_mem_level *l = solar_device_level(d, lv);
		snprintf(k->name, sizeof k->name, "%s", name);
		snprintf(k->label, sizeof k->label, "%s bandwidth", name[0] == 'd' ? "DRAM" : "L2");
		k->kind = SOLAR_KNOB_RATE;
		k->unit = "B/s";
		k->resource = name[0] == 'd' ? SOLAR_RES_DRAM : SOLAR_RES_L2;
		if (!l || !l->bandwidth_bytes_per_s.present) {
			solar_diag_tool_error(
			    diag,
			    "%s: '%s' needs memory.%s.bandwidth_bytes_per_s, which the "
			    "descriptor does not give (set one with --set "
			    "memory.%s.bandwidth_bytes_per_s=VALUE)",
			    d->file, name, lv, lv);
			return -1;
		}
		char path[40];
		snprintf(path, sizeof path, "memory.%s.bandwidth_bytes_per_s", lv);
		add_fig(k, path, l->bandwidth_bytes_per_s.value);
		k->headline = l->bandwidth_bytes_per_s.value;
		return 0;
	}
	static const struct {
		const char *name, *label;
		int first, n;
	} caps[] = {{"l2", "L2 capacity", 0, 1},
		    {"smem", "shared memory capacity", 1, 1},
		    {"regs", "register capacity", 2, 1},
		    {"onchip", "on-chip capacity (L2+smem+regs)", 0, 3}};
	static const char *const levels[] = {"l2", "smem", "regs"};
	for (size_t i = 0; i < sizeof caps / sizeof *caps; i++)
		if (!strcmp(name, caps[i].name)) {
			snprintf(k->name, sizeof k->name, "%s", name);
			snprintf(k->label, sizeof k->label, "%s", caps[i].label);
			return capacity_knob(k, d, levels + caps[i].first, caps[i].n, diag);
		}
	if (!strcmp(name, "clock")) {
		/* Rule "clock domains": one figure, the SM clock; every peak follows it through
		 * its own clock (solar_device_peak), as --set clock_hz does.  DRAM and L2
		 * bandwidth are on other clocks and stay. */
		char missing[40];
		snprintf(k->name, sizeof k->name, "clock");
		snprintf(k->label, sizeof k->label, "SM clock (every peak)");
		k->kind = SOLAR_KNOB_RATE;
		k->unit = "Hz";
		if (solar_device_unclocked(d, missing, sizeof missing)) {
			solar_diag_tool_error(
			    diag,
			    "%s: 'clock' needs %s, which the descriptor does not give "
			    "(every peak needs the clock its figure assumes; "
			    "docs/devices.md#clocks)",
			    d->file, missing);
			return -1;
		}
		k->headline = d->clock_hz.value;
		add_fig(k, "clock_hz", d->clock_hz.value);
		return 0;
	}
	/* peak.<unit>.<prec>, or <unit>.<prec> */
	const char *s = !strncmp(name, "peak.", 5) ? name + 5 : name;
	const char *dot = strchr(s, '.');
	if (dot && dot - s < 16) {
		char unit[16];
		memcpy(unit, s, (size_t)(dot - s));
		unit[dot - s] = '\0';
		int u = solar_unit_parse(unit), q = solar_prec_parse(dot + 1);
		if (u >= 0 && q >= 0)
			return peak_knob(k, d, u, q, diag);
	}
	solar_diag_tool_error(diag,
			      "unknown resource '%s' (expected dram_bw, l2_bw, l2, smem, regs, "
			      "onchip, clock or peak.<unit>.<precision>, e.g. peak.tensor.bf16)",
			      name);
	return -1;
}

int solar_knob_apply(const solar_knob *k, solar_device *d, double factor, solar_diag *diag)
{
	for (int i = 0; i < k->nfig; i++)
		if (solar_device_set(d, k->path[i], k->base[i] * factor, diag) < 0)
			return -1;
	return 0;
}

int solar_knob_init_on(solar_knob *k, const solar_device *d, const solar_system *sys,
		       const char *name, solar_diag *diag)
{
	static const struct {
		const char *name, *label, *path;
		int resource;
	} fig[] = {{"nvlink_bw", "NVLink bandwidth", "nvlink.bandwidth_bytes_per_s", SOLAR_RES_LINKS},
		   {"network_bw", "network bandwidth", "network.bandwidth_bytes_per_s",
		    SOLAR_RES_NETWORK}};
	for (size_t i = 0; i < sizeof fig / sizeof *fig; i++) {
		if (strcmp(name, fig[i].name))
			continue;
		if (!sys) {
			solar_diag_tool_error(diag,
					      "%s: '%s' is a figure of a system of many GPUs; give one "
					      "with --device (`solar device list`)",
					      d->file, name);
			return -1;
		}
		const solar_figure *f = i == 0 ? &sys->nvlink_bw : &sys->network_bw;
		if (!f->present) {
			solar_diag_tool_error(diag,
					      "%s: '%s' needs %s, which the system does not give "
					      "(set one with --set %s=VALUE)",
					      sys->file, name, fig[i].path, fig[i].path);
			return -1;
		}
		memset(k, 0, sizeof *k);
		snprintf(k->name, sizeof k->name, "%s", name);
		snprintf(k->label, sizeof k->label, "%s", fig[i].label);
		k->kind = SOLAR_KNOB_RATE;
		k->unit = "B/s";
		k->resource = fig[i].resource;
		k->system = true;
		add_fig(k, fig[i].path, f->value);
		k->headline = f->value;
		return 0;
	}
	return solar_knob_init(k, d, name, diag);
}

int solar_knob_apply_on(const solar_knob *k, solar_machine *m, double factor, solar_diag *diag)
{
	if (k->system) {
		for (int i = 0; i < k->nfig; i++)
			if (solar_system_set(m->sys, k->path[i], k->base[i] * factor, diag) < 0)
				return -1;
		return 0;
	}
	return solar_knob_apply(k, m->dev, factor, diag) < 0 ||
		       (m->sys && solar_knob_apply(k, m->sys->gpu, factor, diag) < 0)
		   ? -1
		   : 0;
}

int solar_knobs_default(const solar_work *w, const solar_device *d, solar_knob **out)
{
	solar_knob *ks = solar_xcalloc(SOLAR_RES_COUNT + 4, sizeof *ks);
	int n = 0;
	solar_diag *quiet = NULL; /* a knob the device cannot take is left out, silently */
	if (solar_knob_init(&ks[n], d, "dram_bw", quiet) == 0)
		n++;
	if (solar_knob_init(&ks[n], d, "l2_bw", quiet) == 0)
		n++;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++) {
			if (!solar_count_is_zero(w->total.ops.v[u][q]) && peak_knob(&ks[n], d, u, q, quiet) == 0)
				n++;
		}
	if (solar_knob_init(&ks[n], d, "l2", quiet) == 0)
		n++;
	if (solar_knob_init(&ks[n], d, "onchip", quiet) == 0)
		n++;
	*out = ks;
	return n;
}

int solar_knobs_default_on(const solar_work *w, const solar_device *d, const solar_system *sys,
			   solar_knob **out)
{
	int n = solar_knobs_default(w, d, out);
	if (!sys)
		return n;
	*out = solar_xrealloc(*out, (size_t)(n + 2) * sizeof **out);
	if (solar_knob_init_on(&(*out)[n], d, sys, "nvlink_bw", NULL) == 0)
		n++;
	if (sys->nodes > 1 && solar_knob_init_on(&(*out)[n], d, sys, "network_bw", NULL) == 0)
		n++;
	return n;
}

/* ---- bounds at scaled figures --------------------------------------------------------- */

int solar_machine_bounds(const solar_work *w, const solar_machine *m, bool l2_cold,
			 solar_bounds *b, solar_diag *diag)
{
	if (solar_bounds_compute(w, m->dev, l2_cold, b, diag) < 0)
		return -1;
	if (!m->sys)
		return 0;
	solar_step st;
	if (solar_step_apply(m->p, m->sys, b, &st, diag) < 0) {
		solar_bounds_free(b);
		return -1;
	}
	solar_step_free(&st);
	return 0;
}

double solar_bound_time(const solar_work *w, const solar_device *d, bool l2_cold,
			solar_bound_kind k, int *limiter, solar_diag *diag)
{
	solar_machine m = {(solar_device *)d, NULL, NULL};
	return solar_bound_time_on(w, &m, l2_cold, k, limiter, diag);
}

double solar_bound_time_on(const solar_work *w, const solar_machine *m, bool l2_cold,
			   solar_bound_kind k, int *limiter, solar_diag *diag)
{
	solar_bounds b;
	if (solar_machine_bounds(w, m, l2_cold, &b, diag) < 0)
		return -1;
	const solar_roof *r = solar_bound_roof(&b, k);
	double t = r->time_s;
	if (limiter)
		*limiter = r->limiter;
	solar_bounds_free(&b);
	return t;
}

/* A search: the knobs idx[0..n) scaled to f[i] x g together, on the working device. */
typedef struct {
	const solar_work *w;
	solar_machine m;
	bool l2_cold;
	const solar_knob *knobs;
	solar_bound_kind bound;
	solar_diag *diag;
	const int *idx;
	const double *f;
	int n;
	bool failed;
} search;

static double time_at(search *s, double g, int *limiter)
{
	for (int i = 0; i < s->n; i++)
		if (solar_knob_apply_on(&s->knobs[s->idx[i]], &s->m, s->f[i] * g, s->diag) < 0)
			s->failed = true;
	double t = s->failed ? -1
			     : solar_bound_time_on(s->w, &s->m, s->l2_cold, s->bound, limiter, s->diag);
	if (t < 0)
		s->failed = true;
	return t;
}

/* The smallest g in [lo_limit, hi_limit] with time <= target: 0 when lo_limit already meets
 * it, infinity when hi_limit does not.  Geometric bisection to a relative 1e-9; the returned
 * factor is the upper end, which meets the target. */
static double smallest(search *s, double target, double lo_limit, double hi_limit)
{
	if (time_at(s, hi_limit, NULL) > target)
		return INFINITY;
	if (time_at(s, lo_limit, NULL) <= target)
		return 0;
	/* Bracket: lo fails, hi meets, a factor 16 apart, starting from 1 where it is in range. */
	double lo, hi;
	if (lo_limit < 1 && hi_limit > 1 && time_at(s, 1, NULL) <= target) {
		hi = 1;
		lo = fmax(hi / 16, lo_limit);
		while (lo > lo_limit && time_at(s, lo, NULL) <= target) {
			hi = lo;
			lo = fmax(lo / 16, lo_limit);
		}
	} else {
		lo = fmax(lo_limit, fmin(1, hi_limit));
		hi = fmin(lo * 16, hi_limit);
		while (hi < hi_limit && time_at(s, hi, NULL) > target) {
			lo = hi;
			hi = fmin(hi * 16, hi_limit);
		}
	}
	while (hi / lo > 1 + 1e-9 && !s->failed) {
		double mid = sqrt(lo * hi);
		if (time_at(s, mid, NULL) <= target)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Puts the search's knobs back to factor 1. */
static void restore(search *s)
{
	for (int i = 0; i < s->n; i++)
		if (solar_knob_apply_on(&s->knobs[s->idx[i]], &s->m, 1, s->diag) < 0)
			s->failed = true;
}

int solar_provision_compute(const solar_work *w, const solar_device *dev, const solar_system *sys,
			    const solar_program *prog, bool l2_cold, const solar_knob *knobs,
			    int nknobs, solar_bound_kind k, double target_s, solar_provision *p,
			    solar_diag *diag)
{
	memset(p, 0, sizeof *p);
	p->bound = k;
	p->target_s = target_s;
	p->knobs = knobs;
	p->nknobs = nknobs;
	p->binding = -1;
	solar_machine given = {(solar_device *)dev, (solar_system *)sys, prog};
	p->time_s = solar_bound_time_on(w, &given, l2_cold, k, &p->limiter, diag);
	if (p->time_s < 0)
		return -1;
	p->knob = solar_xcalloc((size_t)nknobs + 1, sizeof *p->knob);
	p->joint = solar_xcalloc((size_t)nknobs + 1, sizeof *p->joint);
	p->joint_factor = solar_xcalloc((size_t)nknobs + 1, sizeof *p->joint_factor);
	for (int i = 0; i < nknobs; i++)
		if (knobs[i].resource == p->limiter && knobs[i].kind == SOLAR_KNOB_RATE)
			p->binding = i;
	solar_machine m = {solar_device_clone(dev), sys ? solar_system_clone(sys) : NULL, prog};
	search s = {w, m, l2_cold, knobs, k, diag, NULL, NULL, 1, false};
	double one = 1;

	/* Each knob alone, the others as given. */
	for (int i = 0; i < nknobs && !s.failed; i++) {
		s.idx = &i;
		s.f = &one;
		solar_provision_knob *r = &p->knob[i];
		r->floor_s = time_at(&s, SOLAR_PROVISION_FACTOR_MAX, &r->floor_limiter);
		r->factor = smallest(&s, target_s, SOLAR_PROVISION_FACTOR_MIN,
				     SOLAR_PROVISION_FACTOR_MAX);
		if (isfinite(r->factor))
			p->single = true;
		restore(&s);
	}

	/* Each rate's own need: its smallest factor with every other rate unlimited. */
	int *rates = solar_xcalloc((size_t)nknobs + 1, sizeof *rates), nr = 0;
	int *others = solar_xcalloc((size_t)nknobs + 1, sizeof *others);
	double *big = solar_xcalloc((size_t)nknobs + 1, sizeof *big);
	for (int i = 0; i < nknobs; i++) {
		p->knob[i].own = NAN;
		if (knobs[i].kind == SOLAR_KNOB_RATE && knobs[i].resource >= 0)
			rates[nr++] = i;
	}
	for (int a = 0; a < nr && !s.failed; a++) {
		int no = 0;
		for (int b = 0; b < nr; b++)
			if (b != a) {
				others[no] = rates[b];
				big[no++] = SOLAR_PROVISION_FACTOR_MAX;
			}
		search o = s;
		o.idx = others;
		o.f = big;
		o.n = no;
		time_at(&o, 1, NULL);
		s.idx = &rates[a];
		s.f = &one;
		s.n = 1;
		p->knob[rates[a]].own = smallest(&s, target_s, SOLAR_PROVISION_FACTOR_MIN,
						 SOLAR_PROVISION_FACTOR_MAX);
		restore(&s);
		restore(&o);
		s.failed |= o.failed;
	}

	/* No knob alone: the rates that must scale together, each to its own need; that meets a
	 * max-of-resources bound, while a sum over kernels may still miss, so one common
	 * multiplier is then found by bisection.  Capacities stay as given. */
	if (!p->single && !s.failed) {
		for (int a = 0; a < nr; a++) {
			double need = p->knob[rates[a]].own;
			if (need > 1 && isfinite(need)) {
				p->joint[p->njoint] = rates[a];
				p->joint_factor[p->njoint++] = need;
			}
		}
		if (!p->njoint) /* each suffices alone, only their mix over kernels does not */
			for (int a = 0; a < nr; a++)
				if (p->knob[rates[a]].own > 0 && isfinite(p->knob[rates[a]].own)) {
					p->joint[p->njoint] = rates[a];
					p->joint_factor[p->njoint++] = 1;
				}
		s.idx = p->joint;
		s.f = p->joint_factor;
		s.n = p->njoint;
		double g = p->njoint ? smallest(&s, target_s, 1, SOLAR_PROVISION_FACTOR_MAX) : INFINITY;
		restore(&s);
		p->joint_ok = isfinite(g);
		if (p->joint_ok)
			for (int a = 0; a < p->njoint; a++)
				p->joint_factor[a] *= fmax(g, 1);
	}
	free(rates);
	free(others);
	free(big);
	solar_device_free(m.dev);
	solar_system_free(m.sys);
	if (s.failed) {
		solar_provision_free(p);
		return -1;
	}
	return 0;
}

void solar_provision_free(solar_provision *p)
{
	free(p->knob);
	free(p->joint);
	free(p->joint_factor);
	p->knob = NULL;
	p->joint = NULL;
	p->joint_factor = NULL;
}
