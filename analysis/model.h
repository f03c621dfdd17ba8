/* model.h - the polyhedral model of an AIR program (ISL sets and maps).
 *
 * Lowering turns every statement into an iteration domain S<id>[iterators], every tensor
 * reference into an access relation, and program order into a schedule.  Read references get
 * their own domain name R<ref>[iterators] (same points as the statement) so that ISL's dataflow
 * analysis tells, per reference, which instance produced each value read; a read is scheduled
 * just before the write of its own statement instance.
 *
 * Two modes: numeric (params replaced by their values: the sets have no parameters and can be
 * counted) and symbolic (params kept as ISL parameters p<index>, for symbolic counts).
 */
#ifndef SOLAR_MODEL_H
#define SOLAR_MODEL_H

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "../frontend/frontend.h"
#include "../ir/ir.h"

/* ISL operations allowed per kernel (its lowering, its dataflow, its counts; and the
 * whole-program counts as one more) before the analysis gives up on hostile input.  The
 * environment variable SOLAR_ISL_MAX_OPERATIONS overrides it (for tests: docs/air.md). */
#define SOLAR_ISL_MAX_OPERATIONS 200000000UL

/* The shape guard (model.c): distinct divisions (`//`, `%`) a statement may use, when its
 * conditions have or-ed alternatives, in one index, and in all (docs/air.md, limits). */
#define SOLAR_MAX_DIVS_OR 3
#define SOLAR_MAX_DIVS_INDEX 3
#define SOLAR_MAX_DIVS 32

typedef struct {
	int stmt;                 /* statement that makes the reference */
	int tensor;
	bool write;               /* the statement's store (one per statement) */
	const solar_expr *expr;   /* the ACCESS expression of a read; NULL for the store and for
				     the implicit read of a reduction's target */
	isl_map *access;          /* R<ref>[...] -> T<t>[...] (reads) or S<id>[...] -> T<t>[...] */
	int text_id;              /* refs with equal text_id have equal accesses up to the names
				     of their tuples */
	/* AIR 1.1 (docs/bounds.md, "Indexing with data"): bit k is set when index position k
	 * reads data (`E[ids[t], d]`: bit 0).  Such a ref's access is its *proxy*: every data
	 * position is 0, and the tuple is the tensor's shadow T<t>d<data>, so that the dataflow
	 * never links it to the tensor's affine refs (it has no source unless a scatter of the
	 * same shadow wrote it).  work.c counts it by the rules of data indexing, never as an
	 * element of T<t>; solar_model_may_access gives the elements it may reach. */
	unsigned data;
} solar_ref;

typedef struct {
	isl_ctx *ctx;
	const solar_program *prog;
	bool symbolic;
	bool rank_generic; /* rank(A) is read only in values and data positions (ir.h,
			      solar_program_rank_shapes_work false): a data position takes each
			      rank(A) as a variable in 0..N-1, so that one check covers every rank */
	isl_set **domain;   /* per statement */
	solar_ref *refs;    /* program order; a statement's reads precede its write */
	int nrefs;
	int *write_ref;     /* per statement: index of its write in refs */
	isl_set **shape;    /* per tensor: T<t>[...] within its extents */
	int *iter_pos;      /* per iterator: its depth in its nest (ISL names it i<depth>) */
	int64_t (*iter_range)[2]; /* per depth, during the lowering: the values the iterator
				     of the enclosing loop there can take (affine.c) */
	bool *iter_ranged;        /* per depth: iter_range is known */
	int *chain;         /* per statement: solar_model_chain_depth */
	struct solar_chain_box **box; /* per statement: its inner loops as a box, or NULL
					 (model.c, "closed-form chains") */
	struct solar_chain_memo *memo; /* per access text (text_id): a chain's points, computed
					  once (model.c, chain_prev) */
	int ntexts;                    /* distinct access texts: text_id < ntexts */
	int direct;                    /* domains, accesses and shapes built from affine forms,
					  not parsed from their text (affine.c; for tests) */
	bool *links_omitted; /* per ref: a chain's read whose links solar_model_flow left out */
} solar_model;

/* Builds the model.  Returns NULL (after reporting through d, when given) if ISL fails,
 * e.g. by running out of its operation budget. */
SOLAR_GIVE solar_model *solar_model_build(SOLAR_KEEP const solar_program *p, isl_ctx *ctx,
					  bool symbolic, solar_diag *d);
void solar_model_free(SOLAR_TAKE solar_model *m);

/* The reduction-chain depth of a statement (model.c, "the reduction-chain shortcut"): m when
 * its instances that store one element are those of one execution of its loop m, in order,
 * with no other statement inside that loop writing the tensor; -1 when it is not such a
 * chain. */
int solar_model_chain_depth(SOLAR_KEEP const solar_model *m, int stmt);

/* Queries shared by the counts (work.c) and the cache-aware rules (segment.c): e with its
 * casts skipped; the instances of statement src that feed the read instances of ref r
 * (src -> read, from the dataflow dep and any links it omits); the implicit read of its own target by reduction
 * statement i; the read ref of statement st whose ACCESS expression is e (-1 if none). */
const solar_expr *solar_model_uncast(const solar_expr *e);
__isl_give isl_map *solar_model_fed_by(const solar_model *m, __isl_keep isl_union_map *dep,
				       int src, int r);
int solar_model_target_ref(const solar_model *m, int i);
/* The coefficients of the loops of statement s in index e: coef[k] for loop k (s->depth of
 * them); false when e is not of the form sum c_k x_k + c or a coefficient overflows. */
bool solar_model_index_coefs(const solar_program *p, const solar_stmt *s, const solar_expr *e,
			     int64_t *coef);
int solar_model_read_ref(const solar_model *m, int st, const solar_expr *e);

/* An isl_ctx configured for solar: errors return instead of aborting, work is bounded. */
isl_ctx *solar_isl_ctx_new(void);

/* Starts a fresh operation budget: called as each kernel's work begins, so that the budget
 * bounds one kernel's work, not the sum over a program of thousands of kernels. */
void solar_isl_budget_kernel(isl_ctx *ctx);

/* The union of all read (or write) access relations of statements in [first, first+n). */
__isl_give isl_union_map *solar_model_accesses(const solar_model *m, bool write, int first, int n);

/* Dataflow over the whole program plus a final "END" reader of every out/inout element.
 *   dep:       write instance -> read instance (reads are R<ref>[...]; END reads are E<t>[...])
 *   no_source: read instances whose value was never written in the program (program inputs)
 * Either output may be NULL when not needed.  Returns -1 on ISL failure.  With links false,
 * the links of reduction chains (a chain's read of what its own previous point wrote, model.c
 * chain_prev) are left out of dep: solar_model_links_omitted(m, r) says so for chain read r,
 * and solar_model_fed_by supplies them, built only when asked (most analyses only need to
 * know that the read is fed inside its kernel). */
int solar_model_flow(const solar_model *m, bool links, __isl_give isl_union_map **dep,
		     __isl_give isl_union_set **no_source);
bool solar_model_links_omitted(SOLAR_KEEP const solar_model *m, int r);
/* Whether chain read r has links at all: some point of it has a previous one (it is not all
 * first points); isl_bool_error when r is not a chain's read or ISL fails. */
isl_bool solar_model_chain_linked(SOLAR_KEEP const solar_model *m, int r);
/* The same computed over the whole program at once (the original formulation, kept to check
 * the incremental one in tests/unit/test_flow.c). */
int solar_model_flow_global(const solar_model *m, __isl_give isl_union_map **dep,
			    __isl_give isl_union_set **no_source);
/* The elements data ref r may reach for some index data the declared ranges allow:
 * R<r>[..] (or S<stmt>[..]) -> T<t>[..], each read of an index tensor a value of its range;
 * NULL on an ISL error.  For an affine ref, a copy of its access. */
__isl_give isl_map *solar_model_may_access(SOLAR_KEEP const solar_model *m, int r);
/* Whether the affine expression e takes only values in [lo, hi) over statement stmt's domain
 * (numeric models). */
isl_bool solar_model_values_within(SOLAR_KEEP const solar_model *m, int stmt,
				   SOLAR_KEEP const solar_expr *e, int64_t lo, int64_t hi);
/* The shape of data ref r's shadow tuple: T<t>d<mask>[..] within the tensor's extents. */
__isl_give isl_set *solar_model_shadow_shape(SOLAR_KEEP const solar_model *m, int r);

/* The access relation of the END reader of tensor t: E<t>[...] -> T<t>[...]. */
__isl_give isl_map *solar_model_end_access(const solar_model *m, int t);

/* What solar_analysis holds (analysis.h). */
struct solar_analysis {
	isl_ctx *ctx;
	solar_model *model;
	isl_union_map *dep;      /* see solar_model_flow */
	isl_union_set *no_source;
};

/* Names used in ISL tuples. */
void solar_model_stmt_name(char *buf, size_t n, int stmt);
void solar_model_ref_name(char *buf, size_t n, int ref);
void solar_model_tensor_name(char *buf, size_t n, int tensor);

/* Parses ISL text, reporting failures; returns NULL on error. */
__isl_give isl_map *solar_isl_map(isl_ctx *ctx, const char *text);
__isl_give isl_set *solar_isl_set(isl_ctx *ctx, const char *text);

/* Prints an affine (index or bound) expression in ISL syntax into a growable buffer. */
typedef struct {
	char *s;
	size_t n, cap;
} solar_buf;
void solar_buf_printf(solar_buf *b, const char *fmt, ...) SOLAR_PRINTF(2, 3);
void solar_buf_free(solar_buf *b);

#endif
