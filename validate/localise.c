/* localise.c - the localising run: which AIR kernel first computes wrong values.
 *
 * After `solar validate` finds an output that differs from the original's, this runs the AIR
 * program once more on the CPU with check points (docs/validate.md, "Localising a mismatch").
 * A tensor is checked at the last kernel that writes it, when the original has a value for
 * it: every out and inout tensor (DIR/ref_<name>.npy) and every tmp that the original exposes
 * (DIR/tap_<name>.npy, written by the harness from a submodule's output or a local variable
 * of forward()).  At a check point the tensor is saved as the kernel left it
 * (DIR/loc_<name>.npy) and then replaced by the original's values, so every kernel runs on
 * the original's values of each checked tensor it reads: a wrong kernel does not make the
 * kernels after it look wrong.  DIR/localise.json describes the kernels (name, place, the
 * tensors read and written, the checks) for `harness.py localise`, which compares in
 * program order and names the first kernel whose checked output differs, with the kernels
 * that wrote unchecked tensors it reads (the suspects, when the original exposes too little).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "validate.h"

typedef struct {
	bool *reads, *writes; /* per kernel, per tensor: [k * ntensors + t] */
	int nt;
} access_sets;

static void expr_reads(const solar_expr *x, bool *reads)
{
	if (!x)
		return;
	if (x->kind == SOLAR_E_ACCESS)
		reads[x->sym] = true;
	for (int i = 0; i < x->nargs; i++)
		expr_reads(x->args[i], reads);
}

static void block_access(const solar_block *b, bool *reads, bool *writes);

static void node_access(const solar_node *n, bool *reads, bool *writes)
{
	switch (n->kind) {
	case SOLAR_N_FOR:
		expr_reads(n->loop.lo, reads);
		expr_reads(n->loop.hi, reads);
		block_access(&n->loop.body, reads, writes);
		break;
	case SOLAR_N_IF:
		expr_reads(n->cond.cond, reads);
		block_access(&n->cond.then, reads, writes);
		block_access(&n->cond.els, reads, writes);
		break;
	case SOLAR_N_STMT: {
		const solar_stmt *s = n->stmt;
		writes[s->tensor] = true;
		if (s->op != SOLAR_ASSIGN) /* t op= v reads t */
			reads[s->tensor] = true;
		expr_reads(s->value, reads);
		break;
	}
	}
}

static void block_access(const solar_block *b, bool *reads, bool *writes)
{
	for (int i = 0; i < b->n; i++)
		node_access(b->items[i], reads, writes);
}

/* A JSON string of plain text (a file name may hold quotes or backslashes). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* 1-based line and column of a byte offset of the source. */
static void locate(const solar_program *p, int32_t off, int *line, int *col)
{
	*line = 1, *col = 1;
	for (int32_t i = 0; i < off && i < p->src_len; i++) {
		if (p->src[i] == '\n')
			++*line, *col = 1;
		else
			++*col;
	}
}

static void name_list(FILE *f, const solar_program *p, const bool *set)
{
	fputc('[', f);
	for (int t = 0, n = 0; t < p->ntensors; t++)
		if (set[t]) {
			fputs(n++ ? ", " : "", f);
			json_str(f, p->tensors[t].name);
		}
	fputc(']', f);
}

static int write_plan(const char *path, const solar_program *p, const char *file,
		      const access_sets *a, const solar_check *checks, int nchecks,
		      solar_diag *diag)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		solar_diag_tool_error(diag, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fputs("{\"kernels\": [", f);
	for (int k = 0; k < p->nkernels; k++) {
		int line, col;
		locate(p, p->kernels[k].span.off, &line, &col);
		char where[64];
		snprintf(where, sizeof where, ":%d:%d", line, col);
		fputs(k ? ",\n {\"name\": " : "\n {\"name\": ", f);
		json_str(f, p->kernels[k].name);
		fputs(", \"where\": ", f);
		size_t n = strlen(file) + sizeof where;
		char *w = solar_xmalloc(n);
		snprintf(w, n, "%s%s", file, where);
		json_str(f, w);
		free(w);
		fputs(",\n  \"reads\": ", f);
		name_list(f, p, a->reads + (size_t)k * a->nt);
		fputs(", \"writes\": ", f);
		name_list(f, p, a->writes + (size_t)k * a->nt);
		fputs(",\n  \"checks\": [", f);
		for (int c = 0, m = 0; c < nchecks; c++) {
			if (checks[c].kernel != k)
				continue;
			const char *name = p->tensors[checks[c].tensor].name;
			fprintf(f, "%s{\"tensor\": ", m++ ? ", " : "");
			json_str(f, name);
			fprintf(f, ", \"air\": \"loc_%s.npy\", \"ref\": \"%s_%s.npy\"}", name,
				checks[c].ref, name);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	if (fclose(f)) {
		solar_diag_tool_error(diag, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int solar_localise_run(const solar_program *p, const char *file, const char *dir, double timeout_s,
		       solar_diag *diag)
{
	int nt = p->ntensors, nk = p->nkernels;
	access_sets a = {solar_xcalloc((size_t)nk * nt + 1, 1),
			 solar_xcalloc((size_t)nk * nt + 1, 1), nt};
	solar_check *checks = solar_xcalloc((size_t)nt + 1, sizeof *checks);
	size_t pl = strlen(dir) + 64;
	char *path = solar_xmalloc(pl);
	int rc = 2, nchecks = 0;
	for (int k = 0; k < nk; k++)
		block_access(&p->kernels[k].body, a.reads + (size_t)k * nt,
			     a.writes + (size_t)k * nt);
	for (int t = 0; t < nt; t++) {
		int last = -1;
		for (int k = 0; k < nk; k++)
			if (a.writes[(size_t)k * nt + t])
				last = k;
		const solar_tensor *tt = &p->tensors[t];
		if (last < 0 || tt->role == SOLAR_ROLE_IN)
			continue;
		const char *ref = "ref";
		if (tt->role == SOLAR_ROLE_TMP) {
			snprintf(path, pl, "%s/tap_%s.npy", dir, tt->name);
			if (access(path, R_OK) != 0)
				continue;
			ref = "tap";
		}
		checks[nchecks++] = (solar_check){last, t, ref};
	}
	snprintf(path, pl, "%s/localise.json", dir);
	if (write_plan(path, p, file, &a, checks, nchecks, diag) == 0)
		rc = solar_run_c_checked(p, file, dir, checks, nchecks, timeout_s, diag);
	free(a.reads);
	free(a.writes);
	free(checks);
	free(path);
	return rc;
}
