/* pipeline.c - `solar shard --mesh pp=P` (pipeline.h, docs/shard.md "Pipelines (`pp`)"): a
 * program cut into pipeline stages by layer.
 *
 * In: a loaded program, one GPU's or one rank's of a dp/tp mesh (analysis/shard.c makes that
 * first).  Out: the AIR 1.2 text of one rank's program with the pipeline axis outermost,
 * `stage(pp, s)` on every tensor one stage holds, each kernel split where its nests fall on
 * several stages, and a `send(pp)` wherever one stage reads what another made.
 *
 * The one idea: the parameters get their stages from their layers (contiguous blocks of the
 * repeated layers, found in the names), and everything else from where it is read.  The
 * top-level nests of the kernels ("nodes") are taken in program order, and each runs on the
 * stage that needs the fewest new sends of what it reads; a tensor's home is the stage of its
 * first writer.  A node that touches no staged tensor runs on every stage.  Two things only a
 * later node shows are learnt by running the assignment again: a tensor that every stage
 * wrote (an optimizer's state scaled in place, a gradient's zero fill) which a node of one
 * stage then updates belongs to that stage from the start; and a tensor computed from
 * constants alone (the rotary tables, from `inv_freq` and an arange) that would be sent is
 * computed on every stage instead.  Each run only adds to what is learnt, so this ends.
 *
 * The blocks (`--pp-cut`, docs/shard.md rule 1) are by default those whose largest stage has
 * the fewest operations in a step.  The same assignment, run once more with each layer a stage
 * of its own between a stage before the layers and one after them, says which layer each node
 * belongs to, or whether it is the first or the last stage's own work (the embedding; the
 * final norm, the head and the loss); each node's operations (analysis/work.h) summed so are
 * the costs of a linear partition, solved exactly.
 */
#include "pipeline.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/val.h>

#include "diag/alloc.h"
#include "model.h"
#include "work.h"

#define MAX_RUNS 64

/* One node's use of one tensor (a node: a top-level item of a kernel's body). */
typedef struct {
	int tensor;
	bool rd, wr;
} access;

/* A copy of a tensor on a stage other than its home: the tmp a send writes. */
typedef struct {
	int tensor, stage;
	int next;   /* the tensor's next copy, -1 */
	bool valid; /* sent since the tensor was last written */
} copy;

/* A send before node `node`: tensor's home to copy `copy`. */
typedef struct {
	int node, copy;
} xfer;

/* A set of names, to make new ones unique: open addressing over owned copies. */
typedef struct {
	char **slot;
	size_t cap, n;
} nameset;

static bool nameset_add(nameset *s, const char *name)
{
	if (2 * (s->n + 1) > s->cap) {
		nameset g = {solar_xcalloc(s->cap ? 2 * s->cap : 1024, sizeof *g.slot),
			     s->cap ? 2 * s->cap : 1024, 0};
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i]) {
				size_t h = solar_text_hash(s->slot[i]) & (g.cap - 1);
				while (g.slot[h])
					h = (h + 1) & (g.cap - 1);
				g.slot[h] = s->slot[i];
				g.n++;
			}
		free(s->slot);
		*s = g;
	}
	size_t h = solar_text_hash(name) & (s->cap - 1);
	for (; s->slot[h]; h = (h + 1) & (s->cap - 1))
		if (!strcmp(s->slot[h], name))
			return false;
	s->slot[h] = solar_xstrdup(name);
	s->n++;
	return true;
}

static void nameset_free(nameset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->slot[i]);
	free(s->slot);
}

/* A new name from base (base, base_2, base_3, ...) that s does not hold, added to it. */
static char *unique(nameset *s, const char *base)
{
	size_t len = strlen(base) + 24;
	char *name = solar_xmalloc(len);
	snprintf(name, len, "%s", base);
	for (int i = 2; !nameset_add(s, name); i++)
		snprintf(name, len, "%s_%d", base, i);
	return name;
}

typedef struct {
	const solar_program *p;
	const char *axis;
	int64_t P, microbatches;
	solar_diag *d, *tool;
	nameset names; /* the names of tensors, params, consts and axes: copies take new ones */
	/* the layers: the container's name and each layered tensor's stage */
	char *prefix;
	int nlayers;
	int64_t *indices; /* the layer indices, sorted */
	int *cut;	  /* per layer (index order): its stage */
	int *stage_layers; /* per stage: its layers */
	char *cut_why;	   /* the rule that cut them, as the header and the note say it */
	int *layer_stage; /* per tensor: its layer's stage, -1 */
	int *pin;	  /* per kernel: the stage of the layer its name is in, -1 */
	bool *forward;	  /* per kernel: activations flow forward (ties to the later stage) */
	/* the nodes: node i of kernel k is base[k] + i */
	int *base, *kernel_of, M;
	access *acc;
	int *node_acc; /* node m's accesses: acc[node_acc[m] .. node_acc[m + 1]) */
	int *writers,
	    *tensor_w;	/* tensor t's writer nodes: writers[tensor_w[t] .. tensor_w[t+1]) */
	bool *constant; /* per tensor: computed from never-written inputs alone */
	/* what the runs learnt */
	int *prehome; /* per tensor: its stage from the start, -1 */
	bool *forced; /* per tensor: computed on every stage, never staged */
	int *gather_at; /* per kernel: the stage of an all-gather whose output only that stage
			 * reads (its block sent there, not its whole output), -1 */
	/* one run */
	int *home;	       /* per tensor: its stage, -1 */
	bool *everyw, *everyr; /* per tensor: written, read by a node of every stage */
	int *stage;	       /* per node: its stage, -1 every stage */
	int *copy_head;	       /* per tensor: its copies, -1 */
	copy *copies;
	int ncopies, cap_copies;
	xfer *sends;
	int nsends, cap_sends;
	int *node_send; /* node m's sends: sends[node_send[m] .. node_send[m + 1]) */
} plan;

/* An error at node m's place when the program is the user's text, else naming the file. */
static void fail(plan *pl, int m, const char *fmt, ...) SOLAR_PRINTF(3, 4);
static void fail(plan *pl, int m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (pl->d && m >= 0) {
		const solar_kernel *kn = &pl->p->kernels[pl->kernel_of[m]];
		solar_diag_verror(pl->d, "error",
				  kn->body.items[m - pl->base[pl->kernel_of[m]]]->span, fmt, ap);
	} else {
		va_list again;
		va_copy(again, ap);
		int n = vsnprintf(NULL, 0, fmt, again);
		va_end(again);
		char *msg = solar_xmalloc(n > 0 ? (size_t)n + 1 : 1);
		vsnprintf(msg, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
		solar_diag_tool_error(pl->tool, "%s: %s", pl->p->file, msg);
		free(msg);
	}
	va_end(ap);
}

/* ---- the layers ------------------------------------------------------------------------- */

/* The first component `_<digits>_` of name: *len the prefix's length, *index its number;
 * false when there is none. */
static bool layer_component(const char *name, size_t *len, int64_t *index)
{
	for (const char *c = strchr(name, '_'); c; c = strchr(c + 1, '_')) {
		const char *d = c + 1;
		int64_t v = 0;
		while (*d >= '0' && *d <= '9' && d - c <= 9)
			v = 10 * v + (*d++ - '0');
		if (d > c + 1 && *d == '_' && c > name) {
			*len = (size_t)(c - name);
			*index = v;
			return true;
		}
	}
	return false;
}

typedef struct {
	const char *name;
	size_t len;
	int64_t index;
} component;

static int component_cmp(const void *a, const void *b)
{
	const component *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = strncmp(x->name, y->name, n);
	if (c || x->len != y->len)
		return c ? c : (x->len < y->len ? -1 : 1);
	return (x->index > y->index) - (x->index < y->index);
}

/* The stage of the layer named by name (its first component under the container), -1. */
static int name_stage(const plan *pl, const char *name)
{
	size_t len;
	int64_t index;
	if (!layer_component(name, &len, &index) || len != strlen(pl->prefix) ||
	    strncmp(name, pl->prefix, len))
		return -1;
	int lo = 0, hi = pl->nlayers;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (pl->indices[mid] < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == pl->nlayers || pl->indices[lo] != index)
		return -1;
	return pl->cut[lo];
}

/* The container of the repeated layers: among the in and inout tensors' names, the prefix
 * before their first component `_<digits>_` with the most distinct indices (ties: the first
 * in name order); its L indices, sorted, are the layers.  Fewer than P is an error. */
static int find_layers(plan *pl)
{
	const solar_program *p = pl->p;
	component *c = solar_xcalloc((size_t)p->ntensors + 1, sizeof *c);
	int n = 0;
	for (int t = 0; t < p->ntensors; t++) {
		const solar_tensor *x = &p->tensors[t];
		if ((x->role == SOLAR_ROLE_IN || x->role == SOLAR_ROLE_INOUT) &&
		    layer_component(x->name, &c[n].len, &c[n].index))
			c[n++].name = x->name;
	}
	qsort(c, (size_t)n, sizeof *c, component_cmp);
	int best = -1, best_count = 0;
	for (int i = 0; i < n;) {
		int j = i, count = 0;
		for (; j < n && c[j].len == c[i].len && !strncmp(c[j].name, c[i].name, c[i].len);
		     j++)
			count += j == i || c[j].index != c[j - 1].index;
		if (count > best_count) {
			best = i;
			best_count = count;
		}
		i = j;
	}
	if (best < 0 || best_count < pl->P) {
		if (best < 0)
			solar_diag_tool_error(pl->tool,
					      "%s has no repeated layers to cut into %" PRId64
					      " stages: no in or inout tensor's name has a layer "
					      "index (a component _<digits>_, as in "
					      "lm_model_layers_3_mlp_up_proj_weight)",
					      p->file, pl->P);
		else
			solar_diag_tool_error(pl->tool,
					      "%s has no repeated layers to cut into %" PRId64
					      " stages: only %d (%.*s_<i>_)",
					      p->file, pl->P, best_count, (int)c[best].len,
					      c[best].name);
		free(c);
		return -1;
	}
	pl->prefix = solar_xmalloc(c[best].len + 1);
	memcpy(pl->prefix, c[best].name, c[best].len);
	pl->prefix[c[best].len] = 0;
	pl->nlayers = best_count;
	pl->indices = solar_xcalloc((size_t)best_count, sizeof *pl->indices);
	for (int j = best, k = 0; k < best_count; j++)
		if (j == best || c[j].index != c[j - 1].index)
			pl->indices[k++] = c[j].index;
	free(c);
	return 0;
}

/* The stages of the layered tensors and of the kernels named in a layer, from pl->cut. */
static void stage_layers(plan *pl)
{
	const solar_program *p = pl->p;
	pl->layer_stage = solar_xcalloc((size_t)p->ntensors + 1, sizeof *pl->layer_stage);
	for (int t = 0; t < p->ntensors; t++)
		pl->layer_stage[t] = name_stage(pl, p->tensors[t].name);
	pl->pin = solar_xcalloc((size_t)p->nkernels + 1, sizeof *pl->pin);
	for (int k = 0; k < p->nkernels; k++)
		pl->pin[k] = p->kernels[k].coll ? -1 : name_stage(pl, p->kernels[k].name);
}

/* ---- the nodes ---------------------------------------------------------------------------- */

typedef struct {
	plan *pl;
	int *slot; /* per tensor: its access in this node + 1, 0 none */
	int m, cap;
} collect;

static void collect_visit(void *ctx, int t, bool write)
{
	collect *c = ctx;
	plan *pl = c->pl;
	if (!c->slot[t]) {
		if (pl->node_acc[c->m + 1] == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 1024;
			pl->acc = solar_xrealloc(pl->acc, (size_t)c->cap * sizeof *pl->acc);
		}
		int a = pl->node_acc[c->m + 1]++;
		pl->acc[a] = (access){t, false, false};
		c->slot[t] = a + 1;
	}
	access *a = &pl->acc[c->slot[t] - 1];
	*(write ? &a->wr : &a->rd) = true;
}

/* Every node's accesses, and each tensor's writers. */
static void nodes(plan *pl)
{
	const solar_program *p = pl->p;
	int K = p->nkernels, T = p->ntensors;
	pl->base = solar_xcalloc((size_t)K + 1, sizeof *pl->base);
	for (int k = 0; k < K; k++)
		pl->base[k + 1] = pl->base[k] + p->kernels[k].body.n;
	int M = pl->M = pl->base[K];
	pl->kernel_of = solar_xcalloc((size_t)M + 1, sizeof *pl->kernel_of);
	pl->node_acc = solar_xcalloc((size_t)M + 2, sizeof *pl->node_acc);
	collect c = {pl, solar_xcalloc((size_t)T + 1, sizeof *c.slot), 0, 0};
	for (int k = 0; k < K; k++)
		for (int i = 0; i < p->kernels[k].body.n; i++) {
			int m = c.m = pl->base[k] + i;
			pl->kernel_of[m] = k;
			pl->node_acc[m + 1] = pl->node_acc[m];
			solar_ir_node_tensors(p, p->kernels[k].body.items[i], collect_visit, &c);
			for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++)
				c.slot[pl->acc[a].tensor] = 0;
		}
	free(c.slot);
	pl->tensor_w = solar_xcalloc((size_t)T + 2, sizeof *pl->tensor_w);
	for (int a = 0; a < pl->node_acc[M]; a++)
		pl->tensor_w[pl->acc[a].tensor + 1] += pl->acc[a].wr;
	for (int t = 0; t < T; t++)
		pl->tensor_w[t + 1] += pl->tensor_w[t];
	pl->writers = solar_xcalloc((size_t)pl->tensor_w[T] + 1, sizeof *pl->writers);
	int *fill = solar_xcalloc((size_t)T + 1, sizeof *fill);
	for (int m = 0; m < M; m++)
		for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++)
			if (pl->acc[a].wr) {
				int t = pl->acc[a].tensor;
				pl->writers[pl->tensor_w[t] + fill[t]++] = m;
			}
	free(fill);
}

/* The forward kernels (`[group = forward]`, or every kernel of a program without groups) and
 * the parameters' stages (in and inout tensors a forward kernel reads): a layered one its
 * layer's; another (embedding, final norm, head) the first stage when its first reader comes
 * no later than the first kernel that reads a layered one (the model's input, read with layer
 * 0's weights by one fused kernel, is the first stage's too), the last otherwise. */
static void parameters(plan *pl)
{
	const solar_program *p = pl->p;
	int K = p->nkernels, T = p->ntensors;
	bool groups = false;
	for (int k = 0; k < K; k++)
		groups |= p->kernels[k].group != NULL;
	pl->forward = solar_xcalloc((size_t)K + 1, sizeof *pl->forward);
	for (int k = 0; k < K; k++)
		pl->forward[k] =
		    !groups || (p->kernels[k].group && !strcmp(p->kernels[k].group, "forward"));
	int *first = solar_xcalloc((size_t)T + 1, sizeof *first);
	for (int t = 0; t < T; t++)
		first[t] = -1;
	int first_layered = K;
	for (int m = 0; m < pl->M; m++) {
		int k = pl->kernel_of[m];
		if (!pl->forward[k])
			continue;
		for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++) {
			int t = pl->acc[a].tensor;
			solar_role r = p->tensors[t].role;
			if (!pl->acc[a].rd || (r != SOLAR_ROLE_IN && r != SOLAR_ROLE_INOUT))
				continue;
			if (first[t] < 0)
				first[t] = k;
			if (pl->layer_stage[t] >= 0 && k < first_layered)
				first_layered = k;
		}
	}
	for (int t = 0; t < T; t++) {
		pl->prehome[t] = -1;
		if (first[t] >= 0)
			pl->prehome[t] = pl->layer_stage[t] >= 0     ? pl->layer_stage[t]
					 : first[t] <= first_layered ? 0
								     : (int)(pl->P - 1);
	}
	free(first);
}

/* The tensors computed from constants alone: never-written in tensors without a layer, and
 * tmps whose every writer reads only such tensors (a fixed point from all of them down). */
static void constants(plan *pl)
{
	const solar_program *p = pl->p;
	int T = p->ntensors;
	pl->constant = solar_xcalloc((size_t)T + 1, sizeof *pl->constant);
	for (int t = 0; t < T; t++) {
		bool written = pl->tensor_w[t + 1] > pl->tensor_w[t];
		solar_role r = p->tensors[t].role;
		pl->constant[t] =
		    written ? r == SOLAR_ROLE_TMP : r == SOLAR_ROLE_IN && pl->layer_stage[t] < 0;
	}
	for (bool changed = true; changed;) {
		changed = false;
		for (int m = 0; m < pl->M; m++) {
			bool all = true;
			for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1] && all; a++)
				all = !pl->acc[a].rd || pl->constant[pl->acc[a].tensor];
			for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1] && !all; a++)
				if (pl->acc[a].wr && pl->constant[pl->acc[a].tensor]) {
					pl->constant[pl->acc[a].tensor] = false;
					changed = true;
				}
		}
	}
}

/* Tensor t and all its computation reads and writes, back to the inputs, computed on every
 * stage from now on; false (nothing changed) when a writer on the way also writes a tensor
 * that is not constant. */
static bool force_cone(plan *pl, int t)
{
	int T = pl->p->ntensors, n = 0;
	int *todo = solar_xcalloc((size_t)T + 1, sizeof *todo);
	bool *seen = solar_xcalloc((size_t)T + 1, sizeof *seen);
	bool ok = true;
	todo[n++] = t;
	seen[t] = true;
	for (int i = 0; i < n && ok; i++)
		for (int w = pl->tensor_w[todo[i]]; w < pl->tensor_w[todo[i] + 1] && ok; w++) {
			int m = pl->writers[w];
			for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1] && ok; a++) {
				int u = pl->acc[a].tensor;
				ok = pl->constant[u];
				if (ok && !seen[u]) {
					seen[u] = true;
					todo[n++] = u;
				}
			}
		}
	for (int i = 0; i < n && ok; i++)
		pl->forced[todo[i]] = true;
	free(todo);
	free(seen);
	return ok;
}

/* ---- the assignment ----------------------------------------------------------------------- */

static bool stageable(const plan *pl, int t)
{
	return !pl->forced[t] && pl->p->tensors[t].role != SOLAR_ROLE_RAND;
}

/* Whether stage s holds tensor t now: its home, or a copy sent since its last write. */
static bool avail(const plan *pl, int t, int s)
{
	if (pl->home[t] == s)
		return true;
	for (int c = pl->copy_head[t]; c >= 0; c = pl->copies[c].next)
		if (pl->copies[c].stage == s)
			return pl->copies[c].valid;
	return false;
}

/* The sends node m needs on stage s. */
static int cost(const plan *pl, int m, int s)
{
	int n = 0;
	for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++) {
		int t = pl->acc[a].tensor;
		n += pl->acc[a].rd && pl->home[t] >= 0 && !avail(pl, t, s);
	}
	return n;
}

/* Stage s for node m, if it needs fewer sends than *best (ties: the later stage in the
 * forward, where activations flow forward, the earlier otherwise). */
static void consider(const plan *pl, int m, int s, int *best, int *best_cost)
{
	int n = cost(pl, m, s);
	bool later = pl->forward[pl->kernel_of[m]];
	if (n < *best_cost || (n == *best_cost && (later ? s > *best : s < *best))) {
		*best = s;
		*best_cost = n;
	}
}

/* Node m's stage: where the staged tensors it writes are (they must be one stage; a
 * collective runs where its input is), else the stage of the layer its kernel's name is in,
 * else the one needing the fewest sends of what it reads (ties: the later stage in the
 * forward, the earlier otherwise); -1 when it touches no staged tensor, -2 after an error. */
static int choose(plan *pl, int m)
{
	const solar_program *p = pl->p;
	int k = pl->kernel_of[m];
	const solar_collective *coll = p->kernels[k].coll;
	int need = coll ? pl->home[coll->in] : -1, who = coll ? coll->in : -1;
	if (coll && pl->gather_at[k] >= 0)
		need = pl->gather_at[k];
	bool touched = need >= 0;
	for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++) {
		int t = pl->acc[a].tensor, h = pl->home[t];
		touched |= h >= 0;
		if (!pl->acc[a].wr || h < 0)
			continue;
		if (need >= 0 && h != need) {
			fail(pl, m,
			     "kernel '%s' writes '%s' (stage %d of %s) and %s'%s' (stage %d) "
			     "in one nest: a nest runs on one stage, so it cannot be "
			     "pipelined",
			     p->kernels[k].name, p->tensors[t].name, h, pl->axis,
			     coll && who == coll->in ? "reads " : "", p->tensors[who].name, need);
			return -2;
		}
		need = h;
		who = t;
	}
	if (!touched)
		return -1;
	if (need >= 0)
		return need;
	if (pl->pin[k] >= 0)
		return pl->pin[k];
	int best = -1, best_cost = INT_MAX;
	for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++) {
		int t = pl->acc[a].tensor;
		if (!pl->acc[a].rd || pl->home[t] < 0)
			continue;
		consider(pl, m, pl->home[t], &best, &best_cost);
		for (int c = pl->copy_head[t]; c >= 0; c = pl->copies[c].next)
			if (pl->copies[c].valid)
				consider(pl, m, pl->copies[c].stage, &best, &best_cost);
	}
	return best;
}

/* A send of t to stage s before node m: its copy there made valid. */
static void send_to(plan *pl, int m, int t, int s)
{
	int c = pl->copy_head[t];
	while (c >= 0 && pl->copies[c].stage != s)
		c = pl->copies[c].next;
	if (c < 0) {
		if (pl->ncopies == pl->cap_copies) {
			pl->cap_copies = pl->cap_copies ? 2 * pl->cap_copies : 64;
			pl->copies =
			    solar_xrealloc(pl->copies, (size_t)pl->cap_copies * sizeof *pl->copies);
		}
		c = pl->ncopies++;
		pl->copies[c] = (copy){t, s, pl->copy_head[t], false};
		pl->copy_head[t] = c;
	}
	pl->copies[c].valid = true;
	if (pl->nsends == pl->cap_sends) {
		pl->cap_sends = pl->cap_sends ? 2 * pl->cap_sends : 64;
		pl->sends = solar_xrealloc(pl->sends, (size_t)pl->cap_sends * sizeof *pl->sends);
	}
	pl->sends[pl->nsends++] = (xfer){m, c};
}

/* Node m on stage s: its reads sent there or taking their first stage, its writes homed. */
static void place(plan *pl, int m, int s, bool *again)
{
	for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++) {
		int t = pl->acc[a].tensor;
		if (!pl->acc[a].rd)
			continue;
		if (s < 0)
			pl->everyr[t] |= pl->home[t] < 0;
		else if (pl->home[t] >= 0 && !avail(pl, t, s))
			send_to(pl, m, t, s);
		else if (pl->home[t] < 0 && stageable(pl, t) && !pl->everyr[t] && !pl->everyw[t])
			pl->home[t] = s; /* an input not yet staged: its first reader's */
	}
	for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++) {
		int t = pl->acc[a].tensor;
		if (!pl->acc[a].wr)
			continue;
		if (s < 0) {
			pl->everyw[t] = true;
			continue;
		}
		if (pl->home[t] < 0 && (pl->everyw[t] || pl->everyr[t])) {
			pl->prehome[t] = s; /* every stage had it: this stage's from the start */
			*again = true;
		}
		if (pl->home[t] < 0)
			pl->home[t] = s;
		for (int c = pl->copy_head[t]; c >= 0; c = pl->copies[c].next)
			pl->copies[c].valid = false;
	}
}

/* Whether the run learnt of an all-gather (--sequence-parallel's, --zero's) whose output is
 * read on one other stage alone: it runs there from the next run on, its input sent there,
 * 1/N of the bytes of its output (the gradient of a layer's input gathered for the
 * row-parallel backward of the layer before, on the stage before). */
static bool gathers_moved(plan *pl)
{
	const solar_program *p = pl->p;
	int T = p->ntensors;
	bool moved = false;
	int *readers = solar_xcalloc((size_t)T + 1, sizeof *readers); /* stage + 2; 1 many */
	for (int m = 0; m < pl->M; m++)
		for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++) {
			int t = pl->acc[a].tensor, s = pl->stage[m] + 2;
			if (pl->acc[a].rd)
				readers[t] = !readers[t] || readers[t] == s ? s : 1;
		}
	for (int m = 0; m < pl->M; m++) {
		int k = pl->kernel_of[m];
		const solar_collective *coll = p->kernels[k].coll;
		if (!coll || coll->op != SOLAR_XOP_ALL_GATHER || pl->stage[m] < 0 ||
		    pl->gather_at[k] >= 0)
			continue;
		int r = readers[coll->out] - 2;
		if (r >= 0 && r != pl->stage[m]) {
			pl->gather_at[k] = r;
			moved = true;
		}
	}
	free(readers);
	return moved;
}

/* One assignment in program order: 1 when it learnt something that changes an earlier
 * choice (run again), 0 when it is final, -1 after errors. */
static int assign(plan *pl)
{
	const solar_program *p = pl->p;
	int T = p->ntensors;
	bool again = false;
	for (int t = 0; t < T; t++) {
		pl->home[t] = stageable(pl, t) ? pl->prehome[t] : -1;
		pl->everyw[t] = pl->everyr[t] = false;
		pl->copy_head[t] = -1;
	}
	pl->ncopies = pl->nsends = 0;
	for (int m = 0; m < pl->M; m++) {
		int s = choose(pl, m);
		if (s == -2)
			return -1;
		pl->stage[m] = s;
		pl->node_send[m] = pl->nsends;
		place(pl, m, s, &again);
	}
	pl->node_send[pl->M] = pl->nsends;
	/* a constant sent: computed on every stage instead */
	for (int i = 0; i < pl->nsends; i++) {
		int t = pl->copies[pl->sends[i].copy].tensor;
		if (pl->constant[t] && !pl->forced[t] && force_cone(pl, t))
			again = true;
	}
	return gathers_moved(pl) || again;
}

/* The layers of each stage as text ("11 10 10 9"), malloc'd. */
static char *stage_list(const plan *pl)
{
	size_t len = (size_t)pl->P * 12 + 1, n = 0;
	char *text = solar_xmalloc(len);
	text[0] = 0;
	for (int s = 0; s < pl->P; s++)
		n += (size_t)snprintf(text + n, len - n, "%s%d", s ? " " : "", pl->stage_layers[s]);
	return text;
}

/* ---- the text ----------------------------------------------------------------------------- */

/* What the text needs besides the program: the copies' names, the kernels' names. */
typedef struct {
	plan *pl;
	FILE *f;
	solar_print_opts o;
	const char **names; /* per tensor: the name a node prints it by (its copy's), NULL */
	char **copy_name;   /* per copy */
	nameset kernels;
	/* the kernel being written: per node its group and piece, per piece its stage */
	int *group, *piece, *piece_stage;
	int *rd_piece, *wr_piece, *stamp; /* per tensor: the last piece reading / writing it */
} text;

/* Tensor t's declaration as `name` (a copy: a tmp without t's layouts on other axes), its
 * stage after its layouts, before its value range. */
static void print_decl(const text *x, int t, const char *name, solar_role role, int stage,
		       bool layouts)
{
	const solar_program *p = x->pl->p;
	const solar_tensor *tn = &p->tensors[t];
	solar_tensor named = *tn;
	FILE *f = x->f;
	named.name = name;
	fprintf(f, "%s ", solar_role_name(role));
	solar_ir_print_tensor_with(p, &named, &x->o, f);
	fprintf(f, ": %s", solar_dtype_name(tn->dtype));
	if (tn->dist != SOLAR_DIST_NONE)
		fprintf(f, " %s", solar_dist_name(tn->dist));
	for (int l = 0; layouts && l < tn->nlayout; l++) {
		const solar_layout *ly = &tn->layout[l];
		const char *axis = p->mesh[ly->axis].name;
		if (ly->kind == SOLAR_LAYOUT_SPLIT)
			fprintf(f, " split(%s, %d)", axis, ly->dim);
		else if (ly->kind == SOLAR_LAYOUT_PARTIAL)
			fprintf(f, " partial(%s)", axis);
	}
	if (stage >= 0)
		fprintf(f, " stage(%s, %d)", x->pl->axis, stage);
	if (tn->range_hi) { /* a copy read in indices needs it too */
		fputs(" in ", f);
		solar_ir_print_expr_with(p, tn->range_lo, &x->o, f);
		fputs("..", f);
		solar_ir_print_expr_with(p, tn->range_hi, &x->o, f);
	}
	fputs(";\n", f);
}

/* The declarations: params, consts, the mesh with the pipeline axis first, the tensors with
 * their stages, the copies the sends write. */
static void print_head(text *x, const char *cmdline)
{
	plan *pl = x->pl;
	const solar_program *p = pl->p;
	FILE *f = x->f;
	for (const char *c = p->src; c && *c == '#';) { /* the source's leading comments */
		const char *nl = strchr(c, '\n');
		size_t n = nl ? (size_t)(nl - c + 1) : strlen(c);
		fwrite(c, 1, n, f);
		c += n;
	}
	if (!p->nmesh)
		fprintf(f, "# One rank's program: %s (docs/shard.md).\n", cmdline);
	char *list = stage_list(pl);
	fprintf(f, "# Stages of %s: %s layers of %s_<i>_ (%s).\n", pl->axis, list, pl->prefix,
		pl->cut_why);
	free(list);
	fputs("air 1.2;\n\n", f);
	for (int i = 0; i < p->nparams; i++)
		if (p->params[i].axis < 0) /* not rank(A) */
			fprintf(f, "param %s = %" PRId64 ";\n", p->params[i].name,
				p->params[i].value);
	for (int i = 0; i < p->nconsts; i++) {
		fprintf(f, "const %s = ", p->consts[i].name);
		solar_ir_print_expr_with(p, p->consts[i].expr, &x->o, f);
		fputs(";\n", f);
	}
	fprintf(f, "mesh %s = %" PRId64, pl->axis, pl->P);
	for (int a = 0; a < p->nmesh; a++)
		fprintf(f, ", %s = %" PRId64, p->mesh[a].name, p->mesh[a].value);
	fputs(";\n", f);
	if (pl->microbatches > 1)
		fprintf(f, "microbatches %s = %" PRId64 ";\n", pl->axis, pl->microbatches);
	fputc('\n', f);
	for (int t = 0; t < p->ntensors; t++)
		print_decl(x, t, p->tensors[t].name, p->tensors[t].role, pl->home[t], true);
	for (int c = 0; c < pl->ncopies; c++)
		print_decl(x, pl->copies[c].tensor, x->copy_name[c], SOLAR_ROLE_TMP,
			   pl->copies[c].stage, false);
	for (int i = 0; i < p->nassumes; i++) {
		fprintf(f, "assume distinct(%s) >= ", p->tensors[p->assumes[i].tensor].name);
		solar_ir_print_expr_with(p, p->assumes[i].count, &x->o, f);
		fputs(";\n", f);
	}
}

/* Kernel k's nodes in groups, each group's nodes in pieces, one piece per stage: a piece
 * is one kernel of the text, so its nodes move before those of the pieces made after it;
 * a node that conflicts with those, or needs a send of a tensor the group writes, starts a
 * new group (the send between them).  Returns the pieces made. */
static int cut(text *x, int k)
{
	plan *pl = x->pl;
	int n = pl->p->kernels[k].body.n, g = 0, first = 0, pieces = 0;
	for (int i = 0; i < n; i++) {
		int m = pl->base[k] + i, s = pl->stage[m], mine = -1;
		bool split = false;
		for (int j = first; j < pieces && mine < 0; j++)
			if (x->piece_stage[j] == s)
				mine = j;
		for (int j = pl->node_send[m]; j < pl->node_send[m + 1] && !split; j++) {
			int t = pl->copies[pl->sends[j].copy].tensor;
			split = x->stamp[t] == g + 1 && x->wr_piece[t] >= 0;
		}
		for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1] && mine >= 0 && !split; a++) {
			int t = pl->acc[a].tensor;
			if (x->stamp[t] != g + 1)
				continue;
			split = x->wr_piece[t] > mine || (pl->acc[a].wr && x->rd_piece[t] > mine);
		}
		if (split) {
			g++;
			first = pieces;
			mine = -1;
		}
		if (mine < 0) {
			mine = pieces++;
			x->piece_stage[mine] = s;
		}
		x->group[i] = g;
		x->piece[i] = mine;
		for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++) {
			int t = pl->acc[a].tensor;
			if (x->stamp[t] != g + 1) {
				x->stamp[t] = g + 1;
				x->rd_piece[t] = x->wr_piece[t] = -1;
			}
			if (pl->acc[a].rd && mine > x->rd_piece[t])
				x->rd_piece[t] = mine;
			if (pl->acc[a].wr && mine > x->wr_piece[t])
				x->wr_piece[t] = mine;
		}
	}
	/* the stamps name groups of this kernel only: clear them for the next */
	for (int i = 0; i < n; i++) {
		int m = pl->base[k] + i;
		for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++)
			x->stamp[pl->acc[a].tensor] = 0;
	}
	return pieces;
}

/* The send kernels before node m. */
static void print_sends(text *x, int m)
{
	plan *pl = x->pl;
	const solar_program *p = pl->p;
	const char *group = p->kernels[pl->kernel_of[m]].group;
	for (int j = pl->node_send[m]; j < pl->node_send[m + 1]; j++) {
		int c = pl->sends[j].copy, t = pl->copies[c].tensor;
		char base[1100];
		snprintf(base, sizeof base, "%s_to_%s%d", p->tensors[t].name, pl->axis,
			 pl->copies[c].stage);
		char *name = unique(&x->kernels, base);
		fprintf(x->f, "\nkernel %s ", name);
		if (group)
			fprintf(x->f, "[group = %s] ", group);
		fprintf(x->f, "{ send(%s) %s <- %s; }\n", pl->axis, x->copy_name[c],
			p->tensors[t].name);
		free(name);
	}
}

/* The name of tensor t's copy on stage s. */
static const char *copy_on(const text *x, int t, int s)
{
	const plan *pl = x->pl;
	int c = pl->copy_head[t];
	while (pl->copies[c].stage != s)
		c = pl->copies[c].next;
	return x->copy_name[c];
}

/* Node m as its stage runs it: what it reads from other stages, from its copies there. */
static void print_node(text *x, int m)
{
	plan *pl = x->pl;
	const solar_program *p = pl->p;
	int s = pl->stage[m], k = pl->kernel_of[m];
	for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1] && s >= 0; a++) {
		int t = pl->acc[a].tensor;
		if (!pl->acc[a].rd || pl->home[t] < 0 || pl->home[t] == s)
			continue;
		x->names[t] = copy_on(x, t, s);
	}
	const solar_node *node = p->kernels[k].body.items[m - pl->base[k]];
	solar_block one = {.items = (solar_node **)&node, .n = 1};
	solar_ir_print_block_with(p, &one, 1, &x->o, x->f);
	for (int a = pl->node_acc[m]; a < pl->node_acc[m + 1]; a++)
		x->names[pl->acc[a].tensor] = NULL;
}

/* Kernel k: whole when its nodes are one piece, else one kernel per piece (KERNEL_pp<s>,
 * KERNEL_all for every stage's), each group's sends first. */
static void print_kernel(text *x, int k)
{
	plan *pl = x->pl;
	const solar_kernel *kn = &pl->p->kernels[k];
	int n = kn->body.n, pieces = cut(x, k);
	for (int i = 0; i < n;) {
		int g = x->group[i], end = i;
		while (end < n && x->group[end] == g)
			end++;
		for (int j = i; j < end; j++)
			print_sends(x, pl->base[k] + j);
		for (int piece = x->piece[i]; piece < pieces; piece++) {
			int j = i;
			while (j < end && x->piece[j] != piece)
				j++;
			if (j == end)
				break;
			char base[1100], *name = NULL;
			if (pieces == 1)
				name = solar_xstrdup(kn->name);
			else {
				int s = x->piece_stage[piece];
				if (s >= 0)
					snprintf(base, sizeof base, "%s_%s%d", kn->name, pl->axis,
						 s);
				else
					snprintf(base, sizeof base, "%s_all", kn->name);
				name = unique(&x->kernels, base);
			}
			fprintf(x->f, "\nkernel %s ", name);
			free(name);
			solar_ir_print_kernel_attrs(kn, x->f);
			if (kn->coll && pl->gather_at[k] >= 0) { /* its input sent there */
				const solar_collective *c = kn->coll;
				fprintf(x->f, "{ all_gather(%s, dim = %d) %s <- %s; }\n",
					pl->p->mesh[c->axis].name, c->dim, pl->p->tensors[c->out].name,
					copy_on(x, c->in, pl->gather_at[k]));
				break;
			}
			if (kn->coll) { /* the collective, not the loops of its stand-in copy */
				fputs("{ ", x->f);
				solar_ir_print_stmt(pl->p, pl->p->stmts[kn->first_stmt], x->f);
				fputs("; }\n", x->f);
				break;
			}
			fputs("{\n", x->f);
			for (; j < end; j++)
				if (x->piece[j] == piece)
					print_node(x, pl->base[k] + j);
			fputs("}\n", x->f);
		}
		i = end;
	}
}

/* The text of the program as the assignment cut it (malloc'd). */
static char *print_program(plan *pl, const char *cmdline)
{
	const solar_program *p = pl->p;
	int T = p->ntensors, maxn = 1;
	char *out = NULL;
	size_t len = 0;
	text x = {.pl = pl, .f = open_memstream(&out, &len)};
	if (!x.f)
		solar_out_of_memory();
	x.names = solar_xcalloc((size_t)T + 1, sizeof *x.names);
	x.o.tensor_text = x.names;
	x.copy_name = solar_xcalloc((size_t)pl->ncopies + 1, sizeof *x.copy_name);
	for (int c = 0; c < pl->ncopies; c++) {
		char base[1100];
		snprintf(base, sizeof base, "%s_%s%d", p->tensors[pl->copies[c].tensor].name,
			 pl->axis, pl->copies[c].stage);
		x.copy_name[c] = unique(&pl->names, base);
	}
	for (int k = 0; k < p->nkernels; k++) {
		nameset_add(&x.kernels, p->kernels[k].name);
		maxn = p->kernels[k].body.n > maxn ? p->kernels[k].body.n : maxn;
	}
	x.group = solar_xcalloc((size_t)maxn, sizeof *x.group);
	x.piece = solar_xcalloc((size_t)maxn, sizeof *x.piece);
	x.piece_stage = solar_xcalloc((size_t)maxn, sizeof *x.piece_stage);
	x.rd_piece = solar_xcalloc((size_t)T + 1, sizeof *x.rd_piece);
	x.wr_piece = solar_xcalloc((size_t)T + 1, sizeof *x.wr_piece);
	x.stamp = solar_xcalloc((size_t)T + 1, sizeof *x.stamp);
	print_head(&x, cmdline);
	for (int k = 0; k < p->nkernels; k++)
		print_kernel(&x, k);
	if (fclose(x.f) != 0 || !out)
		solar_out_of_memory();
	for (int c = 0; c < pl->ncopies; c++)
		free(x.copy_name[c]);
	free(x.copy_name);
	free((void *)x.names);
	nameset_free(&x.kernels);
	free(x.group);
	free(x.piece);
	free(x.piece_stage);
	free(x.rd_piece);
	free(x.wr_piece);
	free(x.stamp);
	return out;
}

/* The text loads (its stages are consistent: sema's stages() checks them); else a bug. */
static int verify(plan *pl, const char *out)
{
	solar_diag *quiet = solar_diag_new("<pipeline>", out, (int32_t)strlen(out), stderr);
	solar_program *q =
	    solar_frontend_load("<pipeline>", out, (int32_t)strlen(out), NULL, 0, quiet);
	solar_diag_free(quiet);
	if (q) {
		solar_program_free(q);
		return 0;
	}
	solar_diag_tool_error(pl->tool,
			      "internal error: the pipelined program of %s does not "
			      "load; this is a bug in solar",
			      pl->p->file);
	return -1;
}

static void plan_free(plan *pl)
{
	nameset_free(&pl->names);
	free(pl->prefix);
	free(pl->indices);
	free(pl->cut);
	free(pl->stage_layers);
	free(pl->cut_why);
	free(pl->layer_stage);
	free(pl->pin);
	free(pl->gather_at);
	free(pl->forward);
	free(pl->base);
	free(pl->kernel_of);
	free(pl->acc);
	free(pl->node_acc);
	free(pl->writers);
	free(pl->tensor_w);
	free(pl->constant);
	free(pl->prehome);
	free(pl->forced);
	free(pl->home);
	free(pl->everyw);
	free(pl->everyr);
	free(pl->stage);
	free(pl->copy_head);
	free(pl->copies);
	free(pl->sends);
	free(pl->node_send);
}

/* Every node's and tensor's stage and the sends, the layers on the stages of pl->cut: the
 * assignment run again until it settles.  0, or -1 after errors. */
static int settle(plan *pl)
{
	const solar_program *p = pl->p;
	int T = p->ntensors, rc = 1;
	stage_layers(pl);
	nodes(pl);
	pl->prehome = solar_xcalloc((size_t)T + 1, sizeof *pl->prehome);
	pl->forced = solar_xcalloc((size_t)T + 1, sizeof *pl->forced);
	pl->gather_at = solar_xcalloc((size_t)p->nkernels + 1, sizeof *pl->gather_at);
	for (int k = 0; k < p->nkernels; k++)
		pl->gather_at[k] = -1;
	pl->home = solar_xcalloc((size_t)T + 1, sizeof *pl->home);
	pl->everyw = solar_xcalloc((size_t)T + 1, sizeof *pl->everyw);
	pl->everyr = solar_xcalloc((size_t)T + 1, sizeof *pl->everyr);
	pl->copy_head = solar_xcalloc((size_t)T + 1, sizeof *pl->copy_head);
	pl->stage = solar_xcalloc((size_t)pl->M + 1, sizeof *pl->stage);
	pl->node_send = solar_xcalloc((size_t)pl->M + 1, sizeof *pl->node_send);
	parameters(pl);
	constants(pl);
	for (int run = 0; rc > 0; run++) {
		if (run == MAX_RUNS) {
			solar_diag_tool_error(pl->tool,
					      "internal error: the stages of %s did not settle "
					      "in %d runs; this is a bug in solar",
					      p->file, MAX_RUNS);
			return -1;
		}
		rc = assign(pl);
	}
	return rc;
}

/* ---- the cut ------------------------------------------------------------------------------ */

/* What the cut by cost weighs, in ops of one step (docs/shard.md "Pipelines (`pp`)", rule 1):
 * each layer's, and those of the work outside the layers that lands on the first stage (the
 * embedding) and on the last (the final norm, the head, the loss), each with its optimizer's;
 * divided by 2^shift where the step's total would not fit in 62 bits. */
typedef struct {
	int L;
	int64_t *layer, *sum; /* per layer; sum[j]: layers 0 .. j-1 */
	int64_t first, last;
	int shift;
} costs;

/* Layers [i, j) as one stage: their ops, with the first and the last stage's own work. */
static int64_t block_cost(const costs *c, int i, int j)
{
	return c->sum[j] - c->sum[i] + (i == 0 ? c->first : 0) + (j == c->L ? c->last : 0);
}

static int block_stmts(const solar_block *b);

/* The statements of node x. */
static int node_stmts(const solar_node *x)
{
	if (x->kind == SOLAR_N_STMT)
		return 1;
	if (x->kind == SOLAR_N_FOR)
		return block_stmts(&x->loop.body);
	return block_stmts(&x->cond.then) + block_stmts(&x->cond.els);
}

static int block_stmts(const solar_block *b)
{
	int n = 0;
	for (int i = 0; i < b->n; i++)
		n += node_stmts(b->items[i]);
	return n;
}

/* The ops of one step on each stage of plan v, into ops[v->P] (new vals of ctx): each node's
 * statements' ops as solar count charges them (analysis/work.h), M times for a micro-batch's
 * node, once for an optimizer's (as docs/bounds.md "Pipelines" runs them); a node of every
 * stage is left out, as it weighs on every cut alike.  0, or -1 when a count failed. */
static int stage_ops(const plan *v, isl_ctx *ctx, isl_val **ops)
{
	const solar_program *p = v->p;
	isl_val **stmt = solar_xcalloc((size_t)p->nstmts + 1, sizeof *stmt);
	if (solar_work_stmt_ops(ctx, p, SOLAR_MATH_STRICT, stmt, NULL) < 0) {
		free(stmt);
		return -1;
	}
	for (int s = 0; s < v->P; s++)
		ops[s] = isl_val_zero(ctx);
	for (int k = 0; k < p->nkernels; k++) {
		const solar_kernel *kn = &p->kernels[k];
		bool once = kn->group && !strcmp(kn->group, "optimizer");
		unsigned long times = once ? 1 : (unsigned long)v->microbatches;
		for (int i = 0, j = kn->first_stmt; i < kn->body.n; i++) {
			int m = v->base[k] + i, end = j + node_stmts(kn->body.items[i]);
			for (; j < end && j < kn->first_stmt + kn->nstmts; j++)
				if (v->stage[m] >= 0)
					ops[v->stage[m]] = isl_val_add(
					    ops[v->stage[m]], isl_val_mul_ui(isl_val_copy(stmt[j]), times));
		}
	}
	for (int i = 0; i < p->nstmts; i++)
		isl_val_free(stmt[i]);
	free(stmt);
	return 0;
}

/* ops[0 .. n) as int64 after dividing by 2^c->shift, the least shift that brings their sum
 * under 2^62, into x[n]. */
static void scale(costs *c, isl_ctx *ctx, isl_val **ops, int n, int64_t *x)
{
	isl_val *total = isl_val_zero(ctx);
	isl_val *limit = isl_val_2exp(isl_val_int_from_ui(ctx, 62));
	for (int s = 0; s < n; s++)
		total = isl_val_add(total, isl_val_copy(ops[s]));
	for (c->shift = 0; isl_val_gt(total, limit) == isl_bool_true; c->shift++)
		total = isl_val_floor(isl_val_div_ui(total, 2));
	isl_val_free(total);
	isl_val_free(limit);
	for (int s = 0; s < n; s++) {
		isl_val *unit = isl_val_2exp(isl_val_int_from_si(ctx, c->shift));
		isl_val *v = isl_val_floor(isl_val_div(isl_val_copy(ops[s]), unit));
		x[s] = isl_val_get_num_si(v);
		isl_val_free(v);
	}
}

/* The costs of pl's layers: the program staged with each layer a stage of its own, between
 * a stage before the first layer and one after the last (what the first and the last real
 * stage hold besides their layers), by the rules that stage it for any cut; each node's ops
 * then go to its layer, or to the first or the last stage's own work.  0, or -1 (*why: the
 * reason) when the program cannot be staged so (a nest writing tensors of two layers) or a
 * count fails. */
static int layer_costs(const plan *pl, costs *c, const char **why)
{
	int L = pl->nlayers, rc = -1;
	plan v = {.p = pl->p, .axis = pl->axis, .P = L + 2, .microbatches = pl->microbatches};
	v.prefix = solar_xstrdup(pl->prefix);
	v.nlayers = L;
	v.indices = solar_xcalloc((size_t)L, sizeof *v.indices);
	memcpy(v.indices, pl->indices, (size_t)L * sizeof *v.indices);
	v.cut = solar_xcalloc((size_t)L, sizeof *v.cut);
	for (int j = 0; j < L; j++)
		v.cut[j] = j + 1;
	isl_ctx *ctx = solar_isl_ctx_new();
	isl_val **ops = solar_xcalloc((size_t)L + 2, sizeof *ops);
	int64_t *x = solar_xcalloc((size_t)L + 2, sizeof *x);
	*why = "a nest writes tensors of two layers";
	if (settle(&v) < 0)
		goto done;
	*why = "their operations could not be counted";
	if (stage_ops(&v, ctx, ops) < 0)
		goto done;
	scale(c, ctx, ops, L + 2, x);
	c->L = L;
	c->first = x[0];
	c->last = x[L + 1];
	c->layer = solar_xcalloc((size_t)L, sizeof *c->layer);
	c->sum = solar_xcalloc((size_t)L + 1, sizeof *c->sum);
	for (int j = 0; j < L; j++) {
		c->layer[j] = x[j + 1];
		c->sum[j + 1] = c->sum[j] + c->layer[j];
	}
	rc = 0;
done:
	for (int s = 0; s < L + 2; s++)
		isl_val_free(ops[s]);
	free(ops);
	free(x);
	isl_ctx_free(ctx);
	plan_free(&v);
	return rc;
}

/* Whether the layers fit P stages of at most `bound` each, one layer at least: the greedy cut
 * (each stage as many layers as fit) needs the fewest stages, since a block costs no less than
 * any block inside it, and a cut into fewer than P stages can be cut further. */
static bool fits(const costs *c, int64_t bound, int64_t P)
{
	int64_t stages = 0;
	for (int i = 0; i < c->L; stages++) {
		int j = i + 1;
		if (block_cost(c, i, j) > bound)
			return false;
		while (j < c->L && block_cost(c, i, j + 1) <= bound)
			j++;
		i = j;
	}
	return stages <= P;
}

/* The least cost of the largest stage over the cuts into P stages: a binary search between
 * the largest one-layer stage and all the layers on one. */
static int64_t least_largest(const costs *c, int64_t P)
{
	int64_t lo = 0, hi = block_cost(c, 0, c->L);
	for (int j = 0; j < c->L; j++)
		if (block_cost(c, j, j + 1) > lo)
			lo = block_cost(c, j, j + 1);
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (fits(c, mid, P))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

#define EVEN_CELLS (1 << 22) /* most_even's table, at most */
#define EVEN_STEPS (1 << 27) /* and its steps */

/* Among the cuts into P stages of at most `bound` each, the one whose stages' costs have the
 * least sum of squares, the most even (ties: each stage ends as late as it can, so that the
 * larger stages come first, as in the even cut), into n[P]; false when the search would be
 * long (thousands of layers), n then untouched.  f[s][j] is the least sum for layers 0 .. j-1
 * in s stages (-1: none), from[s][j] where its last stage begins. */
static bool most_even(const costs *c, int64_t bound, int P, int *n)
{
	int L = c->L;
	if ((int64_t)(P + 1) * (L + 1) > EVEN_CELLS)
		return false;
	size_t cells = ((size_t)P + 1) * ((size_t)L + 1), row = (size_t)L + 1;
	double *f = solar_xcalloc(cells, sizeof *f);
	int *from = solar_xcalloc(cells, sizeof *from);
	int64_t steps = 0;
	for (size_t i = 1; i < cells; i++)
		f[i] = -1;
	for (int s = 1; s <= P && steps < EVEN_STEPS; s++)
		for (int j = s; j <= L - (P - s); j++)
			for (int i = j - 1; i >= s - 1 && steps++ < EVEN_STEPS; i--) {
				int64_t b = block_cost(c, i, j);
				if (b > bound)
					break; /* a block that begins earlier costs more */
				double prev = f[(s - 1) * row + i], sum = prev + (double)b * (double)b;
				if (prev >= 0 && (f[s * row + j] < 0 || sum < f[s * row + j])) {
					f[s * row + j] = sum;
					from[s * row + j] = i;
				}
			}
	bool found = steps < EVEN_STEPS && f[P * row + L] >= 0;
	for (int s = P, j = L; found && s > 0; s--) {
		int i = from[s * row + j];
		n[s - 1] = j - i;
		j = i;
	}
	free(f);
	free(from);
	return found;
}

/* The cut that gives each stage, first to last, as many layers as fit `bound` while leaving
 * one for each later stage (where most_even would be long): every stage then fits. */
static void packed(const costs *c, int64_t bound, int P, int *n)
{
	for (int s = 0, i = 0; s < P; s++) {
		int j = i + 1;
		while (j < c->L - (P - 1 - s) && block_cost(c, i, j + 1) <= bound)
			j++;
		if (s == P - 1)
			j = c->L;
		n[s] = j - i;
		i = j;
	}
}

/* The cost of the largest stage of the cut n[P]. */
static int64_t largest(const costs *c, const int *n, int P)
{
	int64_t most = 0;
	for (int s = 0, i = 0; s < P; i += n[s++])
		if (block_cost(c, i, i + n[s]) > most)
			most = block_cost(c, i, i + n[s]);
	return most;
}

/* Megatron-LM's even cut: layer j of L on stage floor(j P / L). */
static void even_cut(int L, int P, int *n)
{
	for (int s = 0; s < P; s++)
		n[s] = 0;
	for (int j = 0; j < L; j++)
		n[(int64_t)j * P / L]++;
}

/* The cut by cost into n[P]: the contiguous cut whose largest stage has the fewest ops; of
 * those, the even cut where it is one (so that costs that tell the cuts apart no further, as
 * layers of no operations, keep Megatron's), else the most even; where the costs cannot be
 * found, the even cut, with a warning. */
static void cost_cut(plan *pl, int *n)
{
	int P = (int)pl->P, L = pl->nlayers;
	costs c = {0};
	const char *why = NULL;
	char text[160];
	even_cut(L, P, n);
	if (P == 1 || P == L) { /* one cut only */
		pl->cut_why = solar_xstrdup("--pp-cut cost");
		return;
	}
	if (layer_costs(pl, &c, &why) < 0) {
		solar_diag_tool_warning(pl->tool,
					"%s: the layers' costs could not be found (%s): the layers "
					"are cut evenly (--pp-cut even)",
					pl->p->file, why);
		pl->cut_why = solar_xstrdup("--pp-cut even: the costs could not be found");
		return;
	}
	int64_t evenly = largest(&c, n, P), bound = least_largest(&c, P);
	if (evenly > bound && !most_even(&c, bound, P, n))
		packed(&c, bound, P, n);
	snprintf(text, sizeof text, "--pp-cut cost: the largest stage %.3g ops a step, %.3g cut evenly",
		 ldexp((double)largest(&c, n, P), c.shift), ldexp((double)evenly, c.shift));
	pl->cut_why = solar_xstrdup(text);
	free(c.layer);
	free(c.sum);
}

/* The layers given for each stage into n[P]: 0, or -1 after an error (not P stages, a stage
 * of no layers, not the program's layers in all). */
static int given_cut(plan *pl, const solar_pp_cut *cut, int *n)
{
	int P = (int)pl->P, L = pl->nlayers;
	const char *text = cut->text ? cut->text : "";
	int64_t sum = 0;
	if (cut->nstages != P) {
		solar_diag_tool_error(pl->tool, "--pp-cut %s lists %d stages, the mesh has %s=%d",
				      text, cut->nstages, pl->axis, P);
		return -1;
	}
	for (int s = 0; s < P; s++) {
		if (cut->layers[s] < 1) {
			solar_diag_tool_error(pl->tool,
					      "--pp-cut %s: stage %d has no layers, each needs "
					      "one at least",
					      text, s);
			return -1;
		}
		sum += cut->layers[s] < INT32_MAX ? cut->layers[s] : INT32_MAX;
		n[s] = (int)(cut->layers[s] < L ? cut->layers[s] : L);
	}
	if (sum != L) {
		solar_diag_tool_error(pl->tool,
				      "--pp-cut %s sums to %" PRId64 " layers, %s has %d (%s_<i>_)",
				      text, sum, pl->p->file, L, pl->prefix);
		return -1;
	}
	size_t len = strlen(text) + 16;
	pl->cut_why = solar_xmalloc(len);
	snprintf(pl->cut_why, len, "--pp-cut %s", text);
	return 0;
}

/* The layers of each stage by the rule of cut (pl->stage_layers, pl->cut, pl->cut_why).  0,
 * or -1 after an error in layers given. */
static int choose_cut(plan *pl, const solar_pp_cut *cut)
{
	int P = (int)pl->P, L = pl->nlayers;
	int *n = pl->stage_layers = solar_xcalloc((size_t)P, sizeof *n);
	if (cut->rule == SOLAR_PP_CUT_LAYERS) {
		if (given_cut(pl, cut, n) < 0)
			return -1;
	} else if (cut->rule == SOLAR_PP_CUT_EVEN) {
		even_cut(L, P, n);
		pl->cut_why = solar_xstrdup("--pp-cut even");
	} else
		cost_cut(pl, n);
	pl->cut = solar_xcalloc((size_t)L, sizeof *pl->cut);
	for (int s = 0, j = 0; s < P; s++)
		for (int i = 0; i < n[s]; i++)
			pl->cut[j++] = s;
	return 0;
}

/* The note of the cut on the tool channel: the layers of each stage and the rule. */
static void note_cut(const plan *pl)
{
	char *list = stage_list(pl);
	solar_diag_tool_note(pl->tool, "%s: stages of %s: %s layers (%s)", pl->p->file, pl->axis,
			     list, pl->cut_why);
	free(list);
}

char *solar_pipeline(const solar_program *p, const char *axis, int64_t stages, int64_t microbatches,
		     const solar_pp_cut *cut, const char *cmdline, solar_diag *d, solar_diag *tool)
{
	plan pl = {
	    .p = p, .axis = axis, .P = stages, .microbatches = microbatches, .d = d, .tool = tool};
	solar_pp_cut by_cost = {SOLAR_PP_CUT_COST, NULL, 0, NULL};
	char *out = NULL;
	if (p->pipe_axis >= 0) {
		solar_diag_tool_error(tool, "%s has pipeline stages already", p->file);
		return NULL;
	}
	for (int t = 0; t < p->ntensors; t++)
		nameset_add(&pl.names, p->tensors[t].name);
	for (int i = 0; i < p->nparams; i++)
		nameset_add(&pl.names, p->params[i].name);
	for (int i = 0; i < p->nconsts; i++)
		nameset_add(&pl.names, p->consts[i].name);
	for (int i = 0; i < p->nmesh; i++)
		nameset_add(&pl.names, p->mesh[i].name);
	if (!nameset_add(&pl.names, axis)) {
		solar_diag_tool_error(tool,
				      "%s has a name '%s' already: the pipeline's axis needs it",
				      p->file, axis);
		goto done;
	}
	if (find_layers(&pl) < 0 || choose_cut(&pl, cut ? cut : &by_cost) < 0 || settle(&pl) < 0)
		goto done;
	out = print_program(&pl, cmdline);
	if (verify(&pl, out) < 0) {
		free(out);
		out = NULL;
	} else
		note_cut(&pl);
done:
	plan_free(&pl);
	return out;
}
