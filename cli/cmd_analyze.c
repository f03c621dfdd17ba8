/* cmd_analyze.c - `solar analyze FILE --device D [--measured T] [--format ...]`.
 *
 * Counts the program exactly, computes the three bounds on the device and prints them per
 * kernel and in total, with the limiting resource and, given measured times, the headroom
 * (measured / bound).  Layout follows shared/design/analyze-output.md; the JSON schema is in
 * docs/json.md.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/work.h"
#include "api/detail.h"
#include "report/measured.h"
#include "cli.h"
#include "output.h"
#include "roofline/roofline.h"

/* The resource that limits r; "-" for a scope with no work (a bound of 0: nothing limits it). */
static const char *res_label(const solar_roof *r, char *buf, size_t n)
{
	if (!(r->time_s > 0)) {
		snprintf(buf, n, "-");
		return buf;
	}
	return solar_resource_name(r->limiter, buf, n);
}

/* "34.4 G tensor.bf16 + 2.1 G sfu.f32": every term, largest first (the table widens its work
 * column to the longest, so an expression is never cut). */
static void work_summary(char *buf, size_t n, const solar_ops *o)
{
	double v[SOLAR_UNIT_COUNT * SOLAR_PREC_COUNT];
	int idx[SOLAR_UNIT_COUNT * SOLAR_PREC_COUNT], m = 0;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (!solar_count_is_zero(o->v[u][q])) {
				v[m] = solar_count_double(o->v[u][q]);
				idx[m++] = u * SOLAR_PREC_COUNT + q;
			}
	for (int i = 0; i < m; i++) /* selection sort, m is tiny */
		for (int j = i + 1; j < m; j++)
			if (v[j] > v[i]) {
				double tv = v[i];
				int ti = idx[i];
				v[i] = v[j];
				idx[i] = idx[j];
				v[j] = tv;
				idx[j] = ti;
			}
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < m; i++) {
		char si[32];
		solar_fmt_si(si, sizeof si, v[i]);
		if (si[0] && si[strlen(si) - 1] == ' ')
			si[strlen(si) - 1] = '\0';
		off += (size_t)snprintf(buf + off, n - off, "%s%s %s.%s", i ? " + " : "",
					si, solar_unit_name((solar_unit)(idx[i] / SOLAR_PREC_COUNT)),
					solar_prec_name((solar_prec)(idx[i] % SOLAR_PREC_COUNT)));
		if (off >= n)
			break;
	}
	if (!m)
		snprintf(buf, n, "0");
}

static void print_peaks(FILE *out, const solar_device *dev, const solar_work *w)
{
	char a[32], b2[32];
	fprintf(out, "  peaks:");
	bool first = true;
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if ((w->total.ops.v[u][q] ||
			     (u == SOLAR_UNIT_TENSOR && q == SOLAR_PREC_F32 && w->total.ops.f32_mma)) &&
			    dev->peak[u][q].present) {
				fprintf(out, "%s %s%s/s %s.%s", first ? "" : ",",
					solar_fmt_si(a, sizeof a, solar_device_peak(dev, u, q)),
					q >= SOLAR_PREC_I64 ? "OP" : "FLOP", solar_unit_name(u),
					solar_prec_name(q));
				first = false;
			}
	char missing[40]; /* rule "clock domains": the clock the compute peaks are at */
	if (!first && !solar_device_unclocked(dev, missing, sizeof missing))
		fprintf(out, " (SM clock %sHz)", solar_fmt_si(a, sizeof a, dev->clock_hz.value));
	const solar_mem_level *d = solar_device_level(dev, "dram");
	const solar_mem_level *l2 = solar_device_level(dev, "l2");
	fprintf(out, "%s %sB/s DRAM", first ? "" : ",",
		solar_fmt_si(a, sizeof a, d->bandwidth_bytes_per_s.value));
	if (l2 && l2->capacity_bytes.present)
		fprintf(out, ", %sB L2", solar_fmt_si(b2, sizeof b2, l2->capacity_bytes.value));
	fputs("\n", out);
}

/* A measured time below a bound that holds for every execution on the device (the fused and
 * cache-aware bounds of the program, or a kernel's own bound for that kernel) is impossible:
 * the measurement or solar is wrong.  Worded as `solar report` words it (docs/report.md); each
 * case is one line on err (NULL: only counted), and the count makes analyze exit 1. */
static bool below(double measured_s, double bound_s)
{
	return measured_s > 0 && bound_s > 0 && measured_s < bound_s * (1 - 1e-6);
}

static int report_below_sol(solar_diag *diag, const char *file, const solar_program *p,
			    const solar_bounds *b, const solar_measured *m)
{
	char t1[32], t2[32];
	int n = 0;
	const solar_roof *r = below(m->total_s, b->fused.time_s) ? &b->fused : &b->cache_aware;
	if (below(m->total_s, r->time_s)) {
		n++;
		solar_diag_tool_error(diag,
				      "%s: measured %s is %.3gx the %s bound (%s): below the "
				      "speed of light, so the measurement or solar is wrong",
				      file, solar_fmt_time(t1, sizeof t1, m->total_s),
				      m->total_s / r->time_s,
				      r == &b->fused ? "fused" : "cache-aware",
				      solar_fmt_time(t2, sizeof t2, r->time_s));
	}
	for (int k = 0; k < p->nkernels; k++) {
		if (!below(m->kernel_s[k], b->kernel[k].time_s))
			continue;
		n++;
		solar_diag_tool_error(
		    diag,
		    "%s: kernel %s: measured %s is %.3gx its bound (%s): "
		    "below the speed of light, so the measurement or solar is wrong",
		    file, p->kernels[k].name, solar_fmt_time(t1, sizeof t1, m->kernel_s[k]),
		    m->kernel_s[k] / b->kernel[k].time_s,
		    solar_fmt_time(t2, sizeof t2, b->kernel[k].time_s));
	}
	return n;
}

/* Some kernel has a measured time (--measured FILE). */
static bool kernel_times(const solar_program *p, const solar_measured *m)
{
	for (int k = 0; k < p->nkernels; k++)
		if (m->kernel_s[k] > 0)
			return true;
	return false;
}

static void headroom_cell(char *buf, size_t n, double measured_s, double bound_s)
{
	if (measured_s > 0 && bound_s > 0)
		snprintf(buf, n, "%.3gx", measured_s / bound_s);
	else
		snprintf(buf, n, "-");
}

/* Rule "memory, least": the inputs, inouts and outputs are all in device memory when the
 * program ends, so a program whose tensors exceed the DRAM capacity cannot run. */
static bool capacity_exceeded(const solar_result *res)
{
	return res->dram_capacity_bytes > 0 && res->live_bytes > res->dram_capacity_bytes;
}

/* The kernel groups ([group = NAME], docs/air.md) in the order they first appear: the group of
 * each kernel (an index into names, -1 for none) and the number of groups. */
static int kernel_groups(const solar_program *p, const char **names, int *of)
{
	int n = 0;
	for (int k = 0; k < p->nkernels; k++) {
		of[k] = -1;
		const char *g = p->kernels[k].group;
		if (!g)
			continue;
		int i = 0;
		while (i < n && strcmp(names[i], g))
			i++;
		if (i == n)
			names[n++] = g;
		of[k] = i;
	}
	return n;
}

typedef struct {
	const char *name;
	int kernels;
	double time_s, dram_bytes, ops;
} group_sum;

/* Per group (and "(no group)" last when some kernel has none while others have one): its
 * kernels, the sum of their bounds (the group's unfused bound) and traffic.  NULL when the
 * program has no groups; *n the rows.  malloc'd. */
static group_sum *group_sums(const solar_program *p, const solar_bounds *b, int *n)
{
	const char **names = solar_xcalloc((size_t)p->nkernels + 1, sizeof *names);
	int *of = solar_xcalloc((size_t)p->nkernels + 1, sizeof *of);
	int ng = kernel_groups(p, names, of);
	group_sum *g = NULL;
	*n = 0;
	if (ng) {
		g = solar_xcalloc((size_t)ng + 1, sizeof *g);
		for (int i = 0; i < ng; i++)
			g[i].name = names[i];
		g[ng].name = "(no group)";
		for (int k = 0; k < p->nkernels; k++) {
			group_sum *x = &g[of[k] < 0 ? ng : of[k]];
			x->kernels++;
			x->time_s += b->kernel[k].time_s;
			x->dram_bytes += b->kernel[k].dram_bytes;
			x->ops += b->kernel[k].ops;
		}
		*n = ng + (g[ng].kernels > 0);
	}
	free(names);
	free(of);
	return g;
}

/* The groups' table: each group's unfused bound (its kernels' bounds added) and its share of
 * the program's (docs/bounds.md, "Groups"). */
static void print_groups(FILE *out, const solar_program *p, const solar_bounds *b, bool md)
{
	int n;
	group_sum *g = group_sums(p, b, &n);
	if (!g)
		return;
	char t1[32], t2[32], t3[32];
	int nw = 10;
	for (int i = 0; i < n; i++)
		if ((int)strlen(g[i].name) > nw)
			nw = (int)strlen(g[i].name);
	if (md)
		fputs("| group | kernels | unfused bound | share | DRAM traffic | ops |\n"
		      "|---|---|---|---|---|---|\n", out);
	else
		fprintf(out, "%-*s %-8s %-14s %-7s %-13s %s\n", nw, "group", "kernels",
			"unfused bound", "share", "DRAM traffic", "ops");
	for (int i = 0; i < n; i++) {
		char share[16], traffic[32], ops[32];
		snprintf(share, sizeof share, "%.1f%%",
			 b->unfused.time_s > 0 ? 100 * g[i].time_s / b->unfused.time_s : 0.0);
		snprintf(traffic, sizeof traffic, "%sB", solar_fmt_si(t2, sizeof t2, g[i].dram_bytes));
		snprintf(ops, sizeof ops, "%s", solar_fmt_si(t3, sizeof t3, g[i].ops));
		solar_fmt_time(t1, sizeof t1, g[i].time_s);
		if (md)
			fprintf(out, "| %s | %d | %s | %s | %s | %s |\n", g[i].name, g[i].kernels,
				t1, share, traffic, ops);
		else
			fprintf(out, "%-*s %-8d %-14s %-7s %-13s %s\n", nw, g[i].name, g[i].kernels,
				t1, share, traffic, ops);
	}
	fputs("\n", out);
	free(g);
}

/* Rule "memory": the least device memory and the as-written peak, one line. */
static void print_memory(FILE *out, const solar_result *res)
{
	char t1[32], t2[32], t3[32], t4[32];
	fprintf(out, "Memory: %sB at least (inputs %sB + inouts %sB + outputs %sB, all held when "
		     "the program ends)",
		solar_fmt_si(t1, sizeof t1, res->memory.least_bytes),
		solar_fmt_si(t2, sizeof t2, res->memory.in_bytes),
		solar_fmt_si(t3, sizeof t3, res->memory.inout_bytes),
		solar_fmt_si(t4, sizeof t4, res->memory.out_bytes));
	if (res->memory.tmp_at_peak > 0 && res->memory.peak_kernel)
		fprintf(out, "; %sB as written (at kernel %s, %sB of %d intermediate%s live across "
			     "kernels)",
			solar_fmt_si(t1, sizeof t1, res->memory.as_written_bytes),
			res->memory.peak_kernel,
			solar_fmt_si(t2, sizeof t2, res->memory.tmp_at_peak_bytes),
			res->memory.tmp_at_peak, res->memory.tmp_at_peak == 1 ? "" : "s");
	if (res->memory.stage >= 0 && res->pipe_axis)
		fprintf(out, "; on the ranks of stage %d of %s, the most of any stage, one "
			     "micro-batch in flight",
			res->memory.stage, res->pipe_axis);
	fputs(" (docs/bounds.md#memory).\n", out);
}

/* One row per pipeline stage (docs/bounds.md, "Pipelines"): its fused bound (M micro-batches,
 * the bubble hidden), its unfused bound (with the bubble of the kernels as written). */
static void print_stages(FILE *out, const solar_result *res, bool md)
{
	if (!res->nstages)
		return;
	char h[48], t1[32], t2[32];
	snprintf(h, sizeof h, "stage of %s", res->pipe_axis);
	if (md)
		fprintf(out, "| %s | fused | unfused (with the bubble) | limited by |\n"
			     "|---|---|---|---|\n",
			h);
	else
		fprintf(out, "%-12s  %-10s %-26s %s\n", h, "fused", "unfused (with the bubble)",
			"limited by");
	double slow = 0;
	for (int s = 0; s < res->nstages; s++)
		slow = res->stages[s].unfused_s > slow ? res->stages[s].unfused_s : slow;
	for (int s = 0; s < res->nstages; s++) {
		const solar_result_stage *q = &res->stages[s];
		char id[32];
		snprintf(id, sizeof id, "%d%s", s, q->unfused_s == slow ? " (slowest)" : "");
		solar_fmt_time(t1, sizeof t1, q->fused_s);
		solar_fmt_time(t2, sizeof t2, q->unfused_s);
		if (md)
			fprintf(out, "| %s | %s | %s | %s |\n", id, t1, t2, q->limited_by);
		else
			fprintf(out, "%-12s  %-10s %-26s %s\n", id, t1, t2, q->limited_by);
	}
	fprintf(out, "\nPipeline: %lld micro-batch%s through %d stages of %s; fused: each stage's "
		     "micro-batches and optimizer, the bubble hidden; unfused: the bubble of the "
		     "kernels as written, (M + p - 1) stage times for p equal stages "
		     "(docs/bounds.md#pipelines).\n\n",
		res->microbatches, res->microbatches == 1 ? "" : "es", res->nstages, res->pipe_axis);
}

/* rank(A) (docs/bounds.md, "Ranks that differ"): one row per class of ranks, the one shown
 * above marked. */
static void print_rank_classes(FILE *out, const solar_result *res, bool md)
{
	if (res->nrank_classes <= 1)
		return;
	bool equal = true;
	for (int c = 1; c < res->nrank_classes; c++)
		equal &= res->rank_classes[c].fused_s == res->rank_classes[0].fused_s &&
			  res->rank_classes[c].unfused_s == res->rank_classes[0].unfused_s;
	if (equal) {
		fprintf(out, "Ranks: rank() makes %d programs (%s to %s), each bounded; their bounds "
			     "are equal (docs/bounds.md#ranks-that-differ).\n\n",
			res->nrank_classes, res->rank_classes[0].ranks,
			res->rank_classes[res->nrank_classes - 1].ranks);
		return;
	}
	if (md)
		fputs("| ranks | fused | unfused |\n|---|---|---|\n", out);
	else
		fprintf(out, "%-20s  %-10s %s\n", "ranks", "fused", "unfused");
	for (int c = 0; c < res->nrank_classes; c++) {
		const solar_result_rank_class *q = &res->rank_classes[c];
		char id[300], t1[32], t2[32];
		snprintf(id, sizeof id, "%s%s", q->ranks,
			 !strcmp(q->ranks, res->rank_class) ? " (shown)" : "");
		solar_fmt_time(t1, sizeof t1, q->fused_s);
		solar_fmt_time(t2, sizeof t2, q->unfused_s);
		if (md)
			fprintf(out, "| %s | %s | %s |\n", id, t1, t2);
		else
			fprintf(out, "%-20s  %-10s %s\n", id, t1, t2);
	}
	fprintf(out, "\nRanks: rank() makes %d programs; each is bounded, the step takes the "
		     "longest: the kernels above are %s's (the largest fused bound, ties to the "
		     "larger unfused), the unfused bound %s's (docs/bounds.md#ranks-that-differ).\n\n",
		res->nrank_classes, res->rank_class, res->unfused_class);
}

/* The kernels whose own [math = M] differs from the mode in effect (--math, default strict),
 * as " (a, b: tf32)": a kernel that sets the mode in effect changes nothing and is not named
 * (a translated f32 model sets it on every matmul), and past three names the rest are counted,
 * so the header stays one line for a model of hundreds of kernels. */
static void print_math_overrides(FILE *out, const solar_opts *o, const solar_program *p,
				 solar_math m)
{
	solar_math mode = o->math == SOLAR_MATH_TF32 ? SOLAR_MATH_TF32 : SOLAR_MATH_STRICT;
	int n = 0;
	if (m == mode)
		return;
	for (int k = 0; k < p->nkernels; k++)
		if (p->kernels[k].math == m)
			n++;
	if (!n)
		return;
	fputs(" (", out);
	for (int k = 0, shown = 0; k < p->nkernels && shown < 3; k++)
		if (p->kernels[k].math == m)
			fprintf(out, "%s%s", shown++ ? ", " : "", p->kernels[k].name);
	if (n > 3)
		fprintf(out, " and %d more", n - 3);
	fprintf(out, ": %s)", solar_math_name(m));
}

/* The consts after the params, as "  const KH=3 KW=3": sizes -D cannot change are sizes of the
 * problem too (a translated model's batch may be one).  Past eight the rest are counted. */
static void print_consts(FILE *out, const solar_program *p)
{
	if (!p->nconsts)
		return;
	fputs("  const", out);
	for (int i = 0; i < p->nconsts && i < 8; i++)
		fprintf(out, " %s=%lld", p->consts[i].name, (long long)p->consts[i].value);
	if (p->nconsts > 8)
		fprintf(out, " and %d more", p->nconsts - 8);
}

/* The table's heading: the program and its sizes, the device and math mode, then what makes
 * the figures hypothetical or estimates (--set, --ceilings measured). */
static void print_heading(FILE *out, const solar_opts *o, const solar_program *p,
			  const solar_device *dev, const solar_work *w, const solar_result *res,
			  bool md)
{
	const char *base = strrchr(o->files[0], '/');
	fprintf(out, "%s%s", md ? "### " : "", base ? base + 1 : o->files[0]);
	for (int i = 0; i < p->nparams; i++)
		if (solar_param_shown(p, i))
			fprintf(out, "%s%s=%lld", i ? " " : "  ", p->params[i].name,
				(long long)p->params[i].value);
	print_consts(out, p);
	if (res && res->system_name) /* docs/bounds.md, "Programs on many GPUs" */
		fprintf(out, "   on %s, %lld rank%s of %s, math %s", res->system_name, res->ranks,
			res->ranks == 1 ? "" : "s", dev->name,
			o->math == SOLAR_MATH_TF32 ? "tf32" : "strict");
	else
		fprintf(out, "   on %s, math %s", dev->name,
			o->math == SOLAR_MATH_TF32 ? "tf32" : "strict");
	print_math_overrides(out, o, p, SOLAR_MATH_TF32);
	print_math_overrides(out, o, p, SOLAR_MATH_TF32X3);
	print_math_overrides(out, o, p, SOLAR_MATH_STRICT);
	fputs("\n", out);
	if (!md)
		print_peaks(out, dev, w);
	for (int i = 0; i < o->nsets; i++)
		fprintf(out, "%s  hypothetical: %s (--set)\n", md ? "\n" : "", o->sets[i]);
	if (o->ceilings_measured)
		fprintf(out, "%s  ESTIMATE, not a bound: %d measured ceilings (--ceilings measured); "
			     "good code reaches about this, better code may beat it\n",
			md ? "\n" : "", solar_device_measured_rates(dev));
	fputs("\n", out);
}

/* One row per collective (docs/bounds.md, "Programs on many GPUs"): its axis, placement, the
 * buffer S each rank holds, its bound and what limits it. */
static void print_collectives(FILE *out, const solar_result *res, bool md)
{
	if (!res->ncollectives)
		return;
	int wk = 10;
	for (int i = 0; i < res->ncollectives; i++)
		if ((int)strlen(res->collectives[i].kernel) > wk)
			wk = (int)strlen(res->collectives[i].kernel);
	if (md)
		fputs("| collective | op | axis | ranks | placement | bytes | bound | limited by |\n"
		      "|---|---|---|---|---|---|---|---|\n",
		      out);
	else
		fprintf(out, "%-*s  %-14s %-6s %-6s %-22s %-10s %-10s %s\n", wk, "collective", "op",
			"axis", "ranks", "placement", "bytes", "bound", "limited by");
	for (int i = 0; i < res->ncollectives; i++) {
		const solar_result_collective *c = &res->collectives[i];
		char place[64], t[32], by[32], bytes[40];
		if (c->nodes > 1)
			snprintf(place, sizeof place, "%d nodes, %d per node", c->nodes,
				 c->ranks_per_node);
		else
			snprintf(place, sizeof place, "one node");
		snprintf(bytes, sizeof bytes, "%sB", solar_fmt_si(by, sizeof by, c->bytes));
		solar_fmt_time(t, sizeof t, c->time_s);
		if (md)
			fprintf(out, "| %s | %s | %s | %d | %s | %s | %s | %s |\n", c->kernel, c->op,
				c->axis, c->ranks, place, bytes, t, c->limited_by);
		else
			fprintf(out, "%-*s  %-14s %-6s %-6d %-22s %-10s %-10s %s\n", wk, c->kernel,
				c->op, c->axis, c->ranks, place, bytes, t, c->limited_by);
	}
	fputs("\n", out);
}

/* One row per kernel: its work, traffic, intensity, bound and limiter, and where measured
 * its time and headroom; the text columns as wide as their longest cell. */
static void print_kernel_rows(FILE *out, const solar_program *p, const solar_work *w,
			      const solar_bounds *b, const solar_measured *m, bool md)
{
	char t1[32], t2[32], rb[48], work[512], hr[32];
	bool have_k = kernel_times(p, m);
	int ww = 38; /* the work column: as wide as its longest expression */
	int nw = 14; /* the kernel column: as wide as its longest name */
	for (int k = 0; k < p->nkernels; k++) {
		work_summary(work, sizeof work, &w->kernel[k].ops);
		if ((int)strlen(work) > ww)
			ww = (int)strlen(work);
		if ((int)strlen(p->kernels[k].name) > nw)
			nw = (int)strlen(p->kernels[k].name);
	}
	if (md)
		fprintf(out, "| kernel | work | DRAM traffic | intensity | bound | limited by |%s\n"
			     "|---|---|---|---|---|---|%s\n",
			have_k ? " measured | headroom |" : "", have_k ? "---|---|" : "");
	else
		fprintf(out, "%-*s %-*s %-13s %-12s %-10s %s%s\n", nw, "kernel", ww, "work",
			"DRAM traffic", "intensity", "bound", have_k ? "limited by  " : "limited by",
			have_k ? "measured   headroom" : "");
	for (int k = 0; k < p->nkernels; k++) {
		const solar_roof *r = &b->kernel[k];
		work_summary(work, sizeof work, &w->kernel[k].ops);
		char traffic[32], inten[32];
		snprintf(traffic, sizeof traffic, "%sB", solar_fmt_si(t1, sizeof t1, r->dram_bytes));
		if (r->dram_bytes > 0)
			snprintf(inten, sizeof inten, "%.3g op/B", r->ops / r->dram_bytes);
		else
			snprintf(inten, sizeof inten, "-");
		solar_fmt_time(t2, sizeof t2, r->time_s);
		res_label(r, rb, sizeof rb);
		char meas[32] = "";
		hr[0] = '\0';
		if (m->kernel_s[k] > 0) {
			solar_fmt_time(meas, sizeof meas, m->kernel_s[k]);
			headroom_cell(hr, sizeof hr, m->kernel_s[k], r->time_s);
		}
		if (md) {
			fprintf(out, "| %s | %s | %s | %s | %s | %s |", p->kernels[k].name, work,
				traffic, inten, t2, rb);
			if (have_k)
				fprintf(out, " %s | %s |", meas[0] ? meas : "-", hr[0] ? hr : "-");
			fputs("\n", out);
		} else
			if (have_k)
				fprintf(out, "%-*s %-*s %-13s %-12s %-10s %-12s%-10s %s\n",
					nw, p->kernels[k].name, ww, work, traffic, inten, t2, rb, meas,
					hr);
			else
				fprintf(out, "%-*s %-*s %-13s %-12s %-10s %s\n", nw,
					p->kernels[k].name, ww, work, traffic, inten, t2, rb);
	}
	fputs("\n", out);
}

/* The three bounds of the whole program, each with its limiter and traffic, and the headroom
 * where the program's time was measured. */
static void print_bound_rows(FILE *out, const solar_bounds *b, const solar_measured *m, bool md)
{
	char t1[32], t2[32], t3[32], rb[48], hr[32];
	char mh[64] = "";
	if (m->total_s > 0)
		snprintf(mh, sizeof mh, "headroom (measured %s)", solar_fmt_time(t3, sizeof t3, m->total_s));
	if (md)
		fprintf(out, "| bound | time | limited by | DRAM traffic |%s\n|---|---|---|---|%s\n",
			m->total_s > 0 ? " headroom |" : "", m->total_s > 0 ? "---|" : "");
	else
		fprintf(out, "%-34s %-10s %-14s %s%s%s\n", "bound", "time", "limited by",
			mh[0] ? "DRAM traffic " : "DRAM traffic", mh[0] ? "  " : "", mh);
	struct {
		const char *name;
		const solar_roof *r;
	} rows[3] = {{"unfused (kernels as written)", &b->unfused},
		     {"cache-aware (fused, on-chip)", &b->cache_aware},
		     {"fused (inputs and outputs once)", &b->fused}};
	for (int i = 0; i < 3; i++) {
		const solar_roof *r = rows[i].r;
		solar_fmt_time(t1, sizeof t1, r->time_s);
		res_label(r, rb, sizeof rb);
		char traffic[32];
		snprintf(traffic, sizeof traffic, "%sB", solar_fmt_si(t2, sizeof t2, r->dram_bytes));
		headroom_cell(hr, sizeof hr, m->total_s, r->time_s);
		if (md)
			fprintf(out, "| %s | %s | %s | %s |%s%s%s\n", rows[i].name, t1, rb, traffic,
				m->total_s > 0 ? " " : "", m->total_s > 0 ? hr : "",
				m->total_s > 0 ? " |" : "");
		else
			fprintf(out, "%-34s %-10s %-14s %-*s%s%s\n", rows[i].name, t1, rb,
				m->total_s > 0 ? 13 : 0, traffic, m->total_s > 0 ? "  " : "",
				m->total_s > 0 ? hr : "");
	}
	fputs("\n", out);
}

/* Where the gap between unfused and fused comes from, when it is large: DRAM traffic, L2
 * traffic, or neither (the kernels' limits add up one after another, while the fused kernel
 * overlaps them). */
static void print_fusion_gap(FILE *out, const solar_bounds *b)
{
	char t1[32];
	if (!(b->fused.time_s > 0 && b->unfused.time_s > 1.5 * b->fused.time_s))
		return;
	double dd = b->unfused.dram_bytes - b->fused.dram_bytes,
	       dl = b->unfused.l2_bytes - b->fused.l2_bytes;
	fprintf(out, "Fusion gap: unfused/fused = %.3gx (", b->unfused.time_s / b->fused.time_s);
	if (dd > 0)
		fprintf(out,
			"intermediates written and read back: %sB more DRAM traffic "
			"than fused",
			solar_fmt_si(t1, sizeof t1, dd));
	else if (dl > 0)
		fprintf(out,
			"intermediates written and read back through the L2: %sB more "
			"L2 traffic than fused, no more DRAM traffic",
			solar_fmt_si(t1, sizeof t1, dl));
	else
		fputs("no more traffic than fused: the kernels' limits add up one after "
		      "another, while one fused kernel overlaps them",
		      out);
	fputs(").\n", out);
}

/* The notes under the table: what is wrong or empty, the fusion gap, which rule set the
 * traffic (cache-aware, compulsory, L2 state, one L2), capacity and peaks the bounds lack. */
static void print_notes(FILE *out, const solar_opts *o, const solar_program *p, const solar_work *w,
			const solar_bounds *b, const solar_measured *m, const solar_result *res)
{
	char t1[32], t2[32], t4[32];
	if (!o->ceilings_measured && report_below_sol(NULL, o->files[0], p, b, m))
		fputs("ERROR: a measured time is below the speed of light, so the measurement or "
		      "solar is wrong (details on stderr).\n",
		      out);
	if (!p->nstmts)
		fputs("The program has no statements: there is no work to bound.\n", out);
	print_fusion_gap(out, b);
	if (b->cache_rule_stmt >= 0) {
		char *st = solar_ir_stmt_text(p, p->stmts[b->cache_rule_stmt], false);
		fprintf(out, "Cache-aware DRAM traffic set by a rule on statement S%d "
			     "(docs/bounds.md#cache-aware): %s\n",
			b->cache_rule_stmt, st);
		free(st);
	}
	/* Rule "compulsory traffic" before rule "warm L2": the fused row's DRAM traffic is what
	 * is left of it once the L2 allowance is taken off the loads and off the stores. */
	solar_count *lv = solar_scope_bytes(w, &w->total, SOLAR_DATA_LOAD),
		    *sv = solar_scope_bytes(w, &w->total, SOLAR_DATA_STORE);
	double ld = solar_count_double(lv), st = solar_count_double(sv);
	solar_count_free(lv);
	solar_count_free(sv);
	fprintf(out, "Compulsory traffic: %sB (%sB of inputs read once + %sB of outputs written "
		     "once).\n",
		solar_fmt_si(t1, sizeof t1, ld + st), solar_fmt_si(t2, sizeof t2, ld),
		solar_fmt_si(t4, sizeof t4, st));
	if (b->l2_cold)
		fprintf(out, "L2 cold (--l2 cold: the L2 is flushed before each run): the program's "
			     "inputs come from DRAM; DRAM traffic is what exceeds the %sB the L2 may "
			     "hold of the stores, and of the loads of later kernels "
			     "(docs/bounds.md#l2-state).\n",
			solar_fmt_si(t1, sizeof t1, b->l2_carry_bytes));
	else if (b->l2_carry_bytes > 0)
		fprintf(out, "L2 warm (the default, sound for any protocol; --l2 cold if it is "
			     "flushed): DRAM traffic is what exceeds the %sB the L2 may hold across "
			     "launches, of the loads and of the stores (docs/bounds.md#warm-l2).\n",
			solar_fmt_si(t1, sizeof t1, b->l2_carry_bytes));
	if (b->placed_bytes > 0)
		fprintf(out, "Unfused DRAM traffic includes %sB that the kernels' own allowances "
			     "leave out: all kernels share one L2, so together they move at least the "
			     "fused traffic (docs/bounds.md#one-l2-for-all-kernels).\n",
			solar_fmt_si(t1, sizeof t1, b->placed_bytes));
	print_memory(out, res);
	if (capacity_exceeded(res))
		fprintf(out, "Warning: the program's memory (%sB at least) exceeds the device's "
			     "DRAM capacity (%sB); it cannot run on one device as written.\n",
			solar_fmt_si(t1, sizeof t1, res->live_bytes),
			solar_fmt_si(t2, sizeof t2, res->dram_capacity_bytes));
	else if (res->dram_capacity_bytes > 0 &&
		 res->memory.as_written_bytes > res->dram_capacity_bytes)
		fprintf(out, "Warning: as written the program holds %sB at once, more than the "
			     "device's DRAM capacity (%sB); it runs only recomputing or offloading.\n",
			solar_fmt_si(t1, sizeof t1, res->memory.as_written_bytes),
			solar_fmt_si(t2, sizeof t2, res->dram_capacity_bytes));
	if (b->capacity_dram_bytes <= 0)
		fputs("Note: the descriptor lacks on-chip capacities; cache-aware = fused.\n", out);
	if (b->f32_emulation)
		fputs("f32 emulation: a library may run strict f32 contractions on the matrix unit "
		      "(tensor.f32, as cuBLAS's BF16x9 does); the bound splits them between simt.f32 "
		      "and tensor.f32 where that takes least time (docs/bounds.md#f32-emulation).\n",
		      out);
	if (b->missing_peak)
		fputs("Note: some work has no peak in the descriptor and was charged at its fastest "
		      "peak (docs/bounds.md#missing-peak).\n",
		      out);
	solar_out_assumptions(out, p, w->assumed);
	if (res && res->ncollectives) {
		double sum = 0;
		for (int k = 0; k < p->nkernels; k++)
			sum += b->kernel[k].time_s;
		if (sum > b->unfused.time_s * (1 + 1e-9))
			fprintf(out, "Overlap: the kernels' bounds add up to %s; the collectives "
				     "overlap the compute that does not depend on them, so the longest "
				     "path is %s (docs/bounds.md#programs-on-many-gpus).\n",
				solar_fmt_time(t1, sizeof t1, sum),
				solar_fmt_time(t2, sizeof t2, b->unfused.time_s));
	}
	if (res && res->ncollectives && b->fused.limiter == SOLAR_RES_NETWORK)
		fprintf(out, "Network: every group of an axis that crosses nodes runs its collectives "
			     "at once, so a node's network carries the bytes of all the groups it "
			     "holds: %s in all, more than any one collective's bound "
			     "(docs/bounds.md#programs-on-many-gpus).\n",
			solar_fmt_time(t1, sizeof t1, b->fused.res_s[SOLAR_RES_NETWORK]));
	fputs(res && res->ncollectives
		  ? "Rules: docs/bounds.md#unfused, #fused, #cache-aware, #programs-on-many-gpus.\n"
		  : "Rules: docs/bounds.md#unfused, #fused, #cache-aware.\n",
	      out);
}

/* The table `analyze` prints (text, or markdown with md): heading, kernels, bounds, notes. */
static void print_table(FILE *out, const solar_opts *o, const solar_program *p,
			const solar_device *dev, const solar_work *w, const solar_bounds *b,
			const solar_measured *m, const solar_result *res, bool md)
{
	print_heading(out, o, p, dev, w, res, md);
	print_kernel_rows(out, p, w, b, m, md);
	print_bound_rows(out, b, m, md);
	print_collectives(out, res, md);
	print_stages(out, res, md);
	print_rank_classes(out, res, md);
	print_groups(out, p, b, md);
	print_notes(out, o, p, w, b, m, res);
}

static cJSON *json_roof(const solar_roof *r, double measured_s)
{
	char rb[48];
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "time_s", r->time_s);
	if (r->time_s > 0)
		cJSON_AddStringToObject(j, "limited_by", res_label(r, rb, sizeof rb));
	else
		cJSON_AddNullToObject(j, "limited_by"); /* no work: nothing limits it */
	cJSON_AddNumberToObject(j, "ops", r->ops);
	if (r->emulated_ops > 0) /* rule "f32 emulation" */
		cJSON_AddNumberToObject(j, "f32_emulated_ops", r->emulated_ops);
	cJSON *bytes = cJSON_AddObjectToObject(j, "bytes");
	cJSON_AddNumberToObject(bytes, "dram", r->dram_bytes);
	cJSON_AddNumberToObject(bytes, "l2", r->l2_bytes);
	cJSON *res = cJSON_AddObjectToObject(j, "resource_time_s");
	for (int i = 0; i < SOLAR_RES_COUNT; i++)
		if (r->res_s[i] > 0)
			cJSON_AddNumberToObject(res, solar_resource_name(i, rb, sizeof rb), r->res_s[i]);
	if (measured_s > 0) {
		cJSON_AddNumberToObject(j, "measured_s", measured_s);
		cJSON_AddNumberToObject(j, "headroom", measured_s / r->time_s);
	}
	return j;
}

static cJSON *json_ops_d(const solar_ops *o)
{
	cJSON *j = cJSON_CreateObject();
	for (int u = 0; u < SOLAR_UNIT_COUNT; u++)
		for (int q = 0; q < SOLAR_PREC_COUNT; q++)
			if (!solar_count_is_zero(o->v[u][q])) {
				char key[48];
				snprintf(key, sizeof key, "%s_%s", solar_unit_name(u), solar_prec_name(q));
				cJSON_AddItemToObject(j, key, solar_json_count(o->v[u][q]));
			}
	return j;
}

static cJSON *json_analyze(const solar_opts *o, const solar_program *p, const solar_device *dev,
			   const solar_work *w, const solar_bounds *b, const solar_measured *m,
			   const solar_result *res)
{
	cJSON *j = solar_json_program(o->files[0], p);
	cJSON *d = cJSON_AddObjectToObject(j, "device");
	cJSON_AddStringToObject(d, "name", dev->name);
	cJSON_AddStringToObject(d, "file", dev->file);
	cJSON_AddStringToObject(j, "math", o->math == SOLAR_MATH_TF32 ? "tf32" : "strict");
	if (res->system_name) { /* docs/bounds.md, "Programs on many GPUs" */
		cJSON *sy = cJSON_AddObjectToObject(j, "system");
		cJSON_AddStringToObject(sy, "name", res->system_name);
		cJSON_AddNumberToObject(sy, "ranks", (double)res->ranks);
		cJSON *ca = cJSON_AddArrayToObject(j, "collectives");
		for (int i = 0; i < res->ncollectives; i++) {
			const solar_result_collective *c = &res->collectives[i];
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "kernel", c->kernel);
			cJSON_AddStringToObject(e, "op", c->op);
			cJSON_AddStringToObject(e, "axis", c->axis);
			cJSON_AddNumberToObject(e, "bytes", c->bytes);
			cJSON_AddNumberToObject(e, "ranks", c->ranks);
			cJSON_AddNumberToObject(e, "ranks_per_node", c->ranks_per_node);
			cJSON_AddNumberToObject(e, "nodes", c->nodes);
			cJSON_AddNumberToObject(e, "time_s", c->time_s);
			cJSON_AddStringToObject(e, "limited_by", c->limited_by);
			cJSON_AddItemToArray(ca, e);
		}
		if (res->nrank_classes > 1) { /* docs/bounds.md, "Ranks that differ" */
			cJSON *rk = cJSON_AddObjectToObject(j, "rank_classes");
			cJSON_AddStringToObject(rk, "shown", res->rank_class);
			cJSON_AddStringToObject(rk, "unfused_from", res->unfused_class);
			cJSON *ra = cJSON_AddArrayToObject(rk, "classes");
			for (int c = 0; c < res->nrank_classes; c++) {
				cJSON *e = cJSON_CreateObject();
				cJSON_AddStringToObject(e, "ranks", res->rank_classes[c].ranks);
				cJSON_AddNumberToObject(e, "fused_s", res->rank_classes[c].fused_s);
				cJSON_AddNumberToObject(e, "unfused_s", res->rank_classes[c].unfused_s);
				cJSON_AddItemToArray(ra, e);
			}
		}
		if (res->nstages) { /* docs/bounds.md, "Pipelines" */
			cJSON *pl = cJSON_AddObjectToObject(j, "pipeline");
			cJSON_AddStringToObject(pl, "axis", res->pipe_axis);
			cJSON_AddNumberToObject(pl, "microbatches", (double)res->microbatches);
			cJSON *sa = cJSON_AddArrayToObject(pl, "stages");
			for (int s = 0; s < res->nstages; s++) {
				cJSON *e = cJSON_CreateObject();
				cJSON_AddNumberToObject(e, "stage", s);
				cJSON_AddNumberToObject(e, "fused_s", res->stages[s].fused_s);
				cJSON_AddNumberToObject(e, "unfused_s", res->stages[s].unfused_s);
				cJSON_AddStringToObject(e, "limited_by", res->stages[s].limited_by);
				cJSON_AddItemToArray(sa, e);
			}
		}
	}
	cJSON_AddItemToObject(j, "unfused", json_roof(&b->unfused, m->total_s));
	cJSON *fu = json_roof(&b->fused, m->total_s);
	cJSON *cb = cJSON_AddObjectToObject(fu, "compulsory_bytes"); /* before the L2 allowance */
	solar_count *lv = solar_scope_bytes(w, &w->total, SOLAR_DATA_LOAD),
		    *sv = solar_scope_bytes(w, &w->total, SOLAR_DATA_STORE);
	cJSON_AddItemToObject(cb, "loaded", solar_json_count(lv));
	cJSON_AddItemToObject(cb, "stored", solar_json_count(sv));
	solar_count_free(lv);
	solar_count_free(sv);
	cJSON_AddItemToObject(j, "fused", fu);
	cJSON *ca = json_roof(&b->cache_aware, m->total_s);
	cJSON *cap = cJSON_AddObjectToObject(ca, "capacity_bytes");
	cJSON_AddNumberToObject(cap, "dram", b->capacity_dram_bytes);
	cJSON_AddNumberToObject(cap, "l2", b->capacity_l2_bytes);
	if (b->cache_rule_stmt >= 0)
		cJSON_AddNumberToObject(ca, "segment_rule_statement", b->cache_rule_stmt);
	cJSON_AddItemToObject(j, "cache_aware", ca);
	if (m->total_s > 0)
		cJSON_AddNumberToObject(j, "measured_s", m->total_s);
	cJSON_AddStringToObject(j, "l2", solar_l2_name(b->l2_cold));
	cJSON_AddStringToObject(j, "ceilings", o->ceilings_both	     ? "both"
					       : o->ceilings_measured ? "measured"
								      : "bound");
	cJSON_AddNumberToObject(j, "l2_carry_bytes", b->l2_carry_bytes);
	solar_json_assumptions(j, p, w->assumed);
	if (b->placed_bytes > 0)
		cJSON_AddNumberToObject(cJSON_GetObjectItem(j, "unfused"), "placed_bytes",
					b->placed_bytes);
	cJSON_AddNumberToObject(j, "live_bytes", res->live_bytes);
	if (capacity_exceeded(res))
		cJSON_AddBoolToObject(j, "dram_capacity_exceeded", true);
	cJSON *mem = cJSON_AddObjectToObject(j, "memory"); /* rule "memory" */
	cJSON_AddNumberToObject(mem, "least_bytes", res->memory.least_bytes);
	cJSON_AddNumberToObject(mem, "in_bytes", res->memory.in_bytes);
	cJSON_AddNumberToObject(mem, "inout_bytes", res->memory.inout_bytes);
	cJSON_AddNumberToObject(mem, "out_bytes", res->memory.out_bytes);
	cJSON_AddNumberToObject(mem, "as_written_bytes", res->memory.as_written_bytes);
	if (res->memory.peak_kernel)
		cJSON_AddStringToObject(mem, "peak_kernel", res->memory.peak_kernel);
	cJSON_AddNumberToObject(mem, "tmp_at_peak_bytes", res->memory.tmp_at_peak_bytes);
	int ng;
	group_sum *g = group_sums(p, b, &ng);
	if (g) {
		cJSON *ga = cJSON_AddArrayToObject(j, "groups");
		for (int i = 0; i < ng; i++) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "name", g[i].name);
			cJSON_AddNumberToObject(e, "kernels", g[i].kernels);
			cJSON_AddNumberToObject(e, "unfused_time_s", g[i].time_s);
			cJSON_AddNumberToObject(e, "share", b->unfused.time_s > 0
								? g[i].time_s / b->unfused.time_s
								: 0);
			cJSON_AddNumberToObject(e, "dram_bytes", g[i].dram_bytes);
			cJSON_AddNumberToObject(e, "ops", g[i].ops);
			cJSON_AddItemToArray(ga, e);
		}
		free(g);
	}
	cJSON *ks = cJSON_AddArrayToObject(j, "kernels");
	for (int k = 0; k < p->nkernels; k++) {
		cJSON *e = json_roof(&b->kernel[k], m->kernel_s[k]);
		cJSON_AddItemToObject(e, "counted_ops", json_ops_d(&w->kernel[k].ops));
		cJSON *named = cJSON_CreateObject();
		cJSON_AddStringToObject(named, "name", p->kernels[k].name);
		cJSON *it = e->child;
		while (it) {
			cJSON *next = it->next;
			cJSON_AddItemToObject(named, it->string, cJSON_DetachItemViaPointer(e, it));
			it = next;
		}
		cJSON_Delete(e);
		cJSON_AddItemToArray(ks, named);
	}
	return j;
}

/* One CSV row: the scope and the limiter through the one field writer (RFC 4180). */
static void csv_row(FILE *out, const char *scope, const solar_roof *r, double measured_s)
{
	char rb[48];
	solar_fmt_csv_field(out, scope);
	fprintf(out, ",%.9g,", r->time_s);
	solar_fmt_csv_field(out, r->time_s > 0 ? res_label(r, rb, sizeof rb) : "");
	fprintf(out, ",%.17g,%.17g,%.17g,", r->dram_bytes, r->l2_bytes, r->ops);
	if (measured_s > 0)
		fprintf(out, "%.9g,%.6g\n", measured_s, measured_s / r->time_s);
	else
		fputs(",\n", out);
}

/* prefix: "" for the bound's rows, "estimate:" for the estimate's (--ceilings both). */
static void print_csv(FILE *out, const solar_program *p, const solar_bounds *b, const solar_measured *m,
		      const char *prefix)
{
	if (!prefix[0])
		fputs("scope,time_s,limited_by,dram_bytes,l2_bytes,ops,measured_s,headroom\n", out);
	char scope[160];
	for (int k = 0; k < p->nkernels; k++) {
		snprintf(scope, sizeof scope, "%skernel:%s", prefix, p->kernels[k].name);
		csv_row(out, scope, &b->kernel[k], m->kernel_s[k]);
	}
	const solar_roof *rows[3] = {&b->unfused, &b->cache_aware, &b->fused};
	const char *names[3] = {"unfused", "cache_aware", "fused"};
	for (int i = 0; i < 3; i++) {
		snprintf(scope, sizeof scope, "%s%s", prefix, names[i]);
		csv_row(out, scope, rows[i], m->total_s);
	}
}

/* The job's warning about measured ceilings, worded for the command line, when it is found
 * (before the program's diagnostics, as the device is loaded first). */
static void print_warning(void *ctx, const solar_warning *wn)
{
	const solar_opts *o = ctx;
	if (wn->kind == SOLAR_WARN_MEASURED_CEILINGS)
		solar_diag_file_warning(solar_cli_diag(), o->device,
					"%d figures are measured ceilings, not peaks: the result is an "
					"estimate, not a bound (--ceilings measured labels it)",
					(int)wn->value);
}

/* The job's warnings about memory (the last thing a job finds). */
static void print_capacity(const solar_opts *o, const solar_result *res)
{
	char t1[32], t2[32];
	for (int i = 0; i < res->nwarnings; i++) {
		const solar_warning *w = &res->warnings[i];
		solar_fmt_si(t1, sizeof t1, w->value);
		solar_fmt_si(t2, sizeof t2, w->limit);
		if (w->kind == SOLAR_WARN_CAPACITY)
			solar_diag_file_warning(
			    solar_cli_diag(), o->files[0],
			    "the program's memory (%sB at least: its inputs, inouts and outputs) "
			    "exceeds the DRAM capacity of %s (%sB)",
			    t1, res->device_name, t2);
		else if (w->kind == SOLAR_WARN_MEMORY_AS_WRITTEN)
			solar_diag_file_warning(
			    solar_cli_diag(), o->files[0],
			    "as written the program holds %sB at once (kernel %s), more than the "
			    "DRAM capacity of %s (%sB): it runs only recomputing or offloading",
			    t1, res->memory.peak_kernel, res->device_name, t2);
	}
}

/* The header of a table of the estimate block; `measured`: with a measured / estimate column. */
static void estimate_header(FILE *out, const char *first, bool measured, bool md)
{
	const char *cols[] = {first, "bound", "estimate", "estimate / bound", "limited by",
			      "measured / estimate"};
	int width[] = {34, 10, 10, 17, 14, 0};
	int n = measured ? 6 : 5;
	for (int i = 0; i < n; i++)
		if (md)
			fprintf(out, "%s %s |", i ? "" : "|", cols[i]);
		else
			fprintf(out, "%s%-*s", i ? " " : "", i < n - 1 ? width[i] : 0, cols[i]);
	fputs("\n", out);
	for (int i = 0; md && i < n; i++)
		fputs(i ? "---|" : "|---|", out);
	if (md)
		fputs("\n", out);
}

/* --ceilings both (rule "fidelity levels"): the estimate beside the bound printed above it,
 * per kernel and per bound, with the ratio estimate / bound and, given a measured time, the
 * measured / estimate. */
static void print_estimate(FILE *out, const solar_program *p, const solar_result *est,
			   const solar_result *bound, const solar_measured *m, bool md)
{
	char t1[32], t2[32], rb[48], ratio[32], hr[32];
	const solar_bounds *e = solar_result_bounds(est), *b = solar_result_bounds(bound);
	fprintf(out, "%sESTIMATE beside the bound (--ceilings both): %s, %d measured ceilings (%s); "
		     "good code reaches about this, better code may beat it.  The bound above uses "
		     "the peaks of %s.\n\n",
		md ? "#### " : "", est->device_name, est->measured_ceilings, est->device_file,
		bound->device_file);
	bool have_k = kernel_times(p, m);
	estimate_header(out, "kernel", have_k, md);
	for (int k = 0; k <= p->nkernels + 3; k++) {
		const solar_roof *re, *rbd;
		const char *name;
		double ms;
		static const char *const rows[3] = {"unfused (kernels as written)",
						    "cache-aware (fused, on-chip)",
						    "fused (inputs and outputs once)"};
		if (k < p->nkernels) {
			re = &e->kernel[k];
			rbd = &b->kernel[k];
			name = p->kernels[k].name;
			ms = m->kernel_s[k];
		} else if (k == p->nkernels) { /* the bounds' own header */
			fputs("\n", out);
			estimate_header(out, "program", m->total_s > 0, md);
			continue;
		} else {
			int i = k - p->nkernels - 1;
			const solar_roof *er[3] = {&e->unfused, &e->cache_aware, &e->fused};
			const solar_roof *br[3] = {&b->unfused, &b->cache_aware, &b->fused};
			re = er[i];
			rbd = br[i];
			name = rows[i];
			ms = m->total_s;
		}
		headroom_cell(ratio, sizeof ratio, re->time_s, rbd->time_s);
		headroom_cell(hr, sizeof hr, ms, re->time_s);
		solar_fmt_time(t1, sizeof t1, rbd->time_s);
		solar_fmt_time(t2, sizeof t2, re->time_s);
		res_label(re, rb, sizeof rb);
		bool col = k < p->nkernels ? have_k : m->total_s > 0;
		if (md)
			fprintf(out, "| %s | %s | %s | %s | %s |%s%s%s\n", name, t1, t2, ratio, rb,
				col ? " " : "", col ? hr : "", col ? " |" : "");
		else
			fprintf(out, "%-34s %-10s %-10s %-17s %-*s%s\n", name, t1, t2, ratio,
				col ? 15 : 0, rb, col ? hr : "");
	}
	fputs("\nRules: docs/bounds.md#fidelity-levels.\n", out);
}

/* The estimate's numbers in the JSON of --ceilings both: "estimate": {device, bounds, kernels}. */
static void json_estimate(cJSON *j, const solar_program *p, const solar_result *est,
			  const solar_measured *m)
{
	const solar_bounds *e = solar_result_bounds(est);
	cJSON *x = cJSON_AddObjectToObject(j, "estimate");
	cJSON *d = cJSON_AddObjectToObject(x, "device");
	cJSON_AddStringToObject(d, "name", est->device_name);
	cJSON_AddStringToObject(d, "file", est->device_file);
	cJSON_AddNumberToObject(x, "measured_ceilings", est->measured_ceilings);
	cJSON_AddItemToObject(x, "unfused", json_roof(&e->unfused, m->total_s));
	cJSON_AddItemToObject(x, "fused", json_roof(&e->fused, m->total_s));
	cJSON_AddItemToObject(x, "cache_aware", json_roof(&e->cache_aware, m->total_s));
	cJSON *ks = cJSON_AddArrayToObject(x, "kernels");
	for (int k = 0; k < p->nkernels; k++) {
		cJSON *r = json_roof(&e->kernel[k], m->kernel_s[k]);
		cJSON *name = cJSON_CreateString(p->kernels[k].name);
		if (cJSON_InsertItemInArray(r, 0, name)) /* "name" first, as in "kernels" */
			name->string = solar_xstrdup("name");
		cJSON_AddItemToArray(ks, r);
	}
}

/* --ceilings both: the bound's job on the peaks of the descriptor's base chain, on the
 * program the estimate's job loaded (read and diagnosed once). */
static solar_result *bound_beside(const solar_opts *o, solar_result *est)
{
	char *peaks = solar_job_peaks_file(o->device, stderr);
	if (!peaks)
		return NULL;
	solar_job job = {.file = o->files[0], .question = solar_cli_question(o)};
	job.question.device_file = peaks;
	job.question.ceilings = SOLAR_CEILINGS_PEAK;
	solar_result *r = solar_job_run_program(&job, solar_result_program(est),
						solar_result_diag(est));
	solar_cli_question_free(&job.question);
	free(peaks);
	if (r && r->status != SOLAR_JOB_OK) {
		solar_result_free(r);
		r = NULL;
	}
	return r;
}

int solar_cmd_analyze(const solar_opts *o)
{
	if (o->nfiles != 1 || !o->device) {
		solar_diag_tool_error(solar_cli_diag(), "%s",
				      o->nfiles != 1
					  ? "analyze needs exactly one FILE"
					  : "analyze needs --device FILE (see devices/*.json)");
		solar_diag_hint(solar_cli_diag(), "Try 'solar --help'.");
		return SOLAR_EXIT_USAGE;
	}
	/* --ceilings both: the estimate first (refused without ceilings), the bound beside it */
	solar_job job = {.file = o->files[0],
			 .question = solar_cli_question(o),
			 .on_warning = print_warning,
			 .on_warning_ctx = (void *)o};
	solar_result *res = solar_job_run(&job), *est = NULL;
	solar_cli_question_free(&job.question);
	int rc = res->status;
	if (rc == SOLAR_EXIT_OK && o->ceilings_both) {
		est = res;
		if (!(res = bound_beside(o, est)))
			rc = SOLAR_EXIT_USAGE;
	}
	if (rc != SOLAR_EXIT_OK) {
		solar_result_free(res);
		solar_result_free(est);
		return rc;
	}
	print_capacity(o, res);
	const solar_program *p = solar_result_program(res);
	const solar_device *dev = solar_result_device(res);
	const solar_work *w = solar_result_work(res);
	const solar_bounds *b = solar_result_bounds(res);
	solar_measured m;
	solar_measured_init(&m, p->nkernels);
	m.total_s = o->measured_s;
	FILE *out = NULL;
	if (o->measured_file) { /* the one reader of measured times (report/measured.c) */
		const char **names = solar_xcalloc((size_t)p->nkernels + 1, sizeof *names);
		for (int k = 0; names && k < p->nkernels; k++)
			names[k] = p->kernels[k].name;
		int mrc = solar_measured_read(o->measured_file, SOLAR_MEASURED_AUTO, 1, names,
					      p->nkernels, &m, solar_cli_diag());
		free(names);
		if (mrc < 0) {
			rc = SOLAR_EXIT_USAGE;
			goto done;
		}
	}
	out = solar_out_open(o);
	if (!out) {
		rc = SOLAR_EXIT_USAGE;
		goto done;
	}
	switch (o->format) {
	case SOLAR_FMT_JSON: {
		cJSON *j = json_analyze(o, p, dev, w, b, &m, res);
		if (est)
			json_estimate(j, p, est, &m);
		solar_json_print(out, solar_json_schema(j, "analyze"));
		break;
	}
	case SOLAR_FMT_CSV:
		print_csv(out, p, b, &m, "");
		if (est)
			print_csv(out, p, solar_result_bounds(est), &m, "estimate:");
		break;
	default:
		print_table(out, o, p, dev, w, b, &m, res, o->format == SOLAR_FMT_MD);
		if (est) {
			fputs("\n", out);
			print_estimate(out, p, est, res, &m, o->format == SOLAR_FMT_MD);
		}
		break;
	}
	solar_out_close(o, out);
	/* an estimate may be beaten: a time below it is no error */
	if (!o->ceilings_measured && report_below_sol(solar_cli_diag(), o->files[0], p, b, &m))
		rc = SOLAR_EXIT_ERRORS;
done:
	solar_measured_free(&m);
	solar_result_free(res);
	solar_result_free(est);
	return rc;
}
