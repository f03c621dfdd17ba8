/* run_c.c - the CPU backend: write the C program, compile it with the system compiler, run it.
 *
 * DIR/air_prog.c is compiled with `cc -std=c17 -O2 -fno-fast-math -ffp-contract=off` (no
 * contraction of a*b+c into a fused multiply-add: AIR rounds each operation as C does), then
 * DIR/air_prog runs as a child process on DIR under a deadline.  Its stdout carries the
 * kernel times ("solar-kernel NAME SECONDS"); its stderr, when it fails, explains why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"
#include "../diag/alloc.h"

static int write_text(const char *path, const char *text, solar_diag *diag)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		solar_diag_tool_error(diag, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Parses "solar-kernel NAME SECONDS" lines into r->kernel_s. */
static void parse_times(const solar_program *p, const char *out, solar_run *r)
{
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		char name[256];
		double s;
		if (sscanf(line, "solar-kernel %255s %lf", name, &s) == 2)
			for (int k = 0; k < p->nkernels; k++)
				if (!strcmp(p->kernels[k].name, name)) {
					r->kernel_s[k] = s;
					r->run_s += s;
				}
		line = nl ? nl + 1 : NULL;
	}
}

/* The last lines of a child's stderr, each on a line of its own and indented, to follow a
 * failure message (malloc'd; "" when there is nothing to show). */
static char *tail_of(const char *text)
{
	size_t n = text ? strlen(text) : 0;
	const char *start = text;
	bool cut = n > 4000;
	if (cut) {
		start = text + n - 4000;
		const char *nl = strchr(start, '\n');
		start = nl ? nl + 1 : start;
	}
	/* each line of the tail gains "\n  " (at most 3 bytes a byte of it) */
	char *out = solar_xmalloc(3 * (n - (size_t)(start - text)) + 16), *o = out;
	*o = '\0';
	if (cut)
		o += sprintf(o, "\n  ...");
	for (const char *l = start; l && *l;) {
		const char *nl = strchr(l, '\n');
		int len = nl ? (int)(nl - l) : (int)strlen(l);
		o += sprintf(o, "\n  %.*s", len, l);
		l = nl ? nl + 1 : l + len;
	}
	return out;
}

/* Which program build_and_run writes: the AIR's (with check points where given), the float64
 * run's, the accumulator run's. */
typedef enum { RUN_AIR, RUN_F64, RUN_ACC } run_kind;

/* Writes DIR/<stem>.c (the program with the check points), compiles it to DIR/<stem> and
 * runs it on DIR. */
static int build_and_run(const solar_program *p, const char *file, const char *dir,
			 const char *stem, const solar_check *checks, int nchecks, run_kind kind,
			 double timeout_s, solar_run *r, solar_diag *diag)
{
	memset(r, 0, sizeof *r);
	r->nkernels = p->nkernels;
	r->kernel_s = solar_xcalloc((size_t)p->nkernels + 1, sizeof *r->kernel_s);
	const char *cc = getenv("SOLAR_CC");
	if (!cc || !*cc)
		cc = "cc";
	snprintf(r->device, sizeof r->device, "cpu (%s -O2, one thread)", cc);

	size_t dl = strlen(dir) + strlen(stem) + 8;
	char *src = solar_xmalloc(dl), *exe = solar_xmalloc(dl);
	snprintf(src, dl, "%s/%s.c", dir, stem);
	snprintf(exe, dl, "%s/%s", dir, stem);
	char *text = kind == RUN_F64   ? solar_codegen_c_f64(p, file)
		     : kind == RUN_ACC ? solar_codegen_c_acc(p, file)
				       : solar_codegen_c_checked(p, file, checks, nchecks);
	int rc = write_text(src, text, diag) < 0 ? 2 : 0;
	free(text);
	if (rc)
		goto done;

	char *cargv[] = {(char *)cc, "-std=c17", "-O2", "-fno-fast-math", "-ffp-contract=off",
			 "-w", "-o", exe, src, "-lm", NULL};
	solar_proc pr;
	solar_proc_how how = {.out_fd = 2, .capture_err = true, .timeout_s = timeout_s};
	if (solar_proc_run(cargv, &how, &pr) < 0) {
		solar_diag_tool_error(diag,
				      "the C backend needs a C compiler: cannot run '%s' (%s); set "
				      "SOLAR_CC",
				      cc, strerror(errno));
		rc = 2;
		goto done;
	}
	r->compile_s = pr.seconds;
	if (pr.status != 0) {
		char *tail = tail_of(pr.errout);
		solar_diag_tool_error(
		    diag, "%s: the generated C program does not compile (%s exit %d)%s%s", src, cc,
		    pr.status, pr.timed_out ? ", timed out" : "", tail);
		free(tail);
		solar_proc_free(&pr);
		rc = 2;
		goto done;
	}
	solar_proc_free(&pr);

	char *rargv[] = {exe, (char *)dir, NULL};
	how.capture_out = true;
	if (solar_proc_run(rargv, &how, &pr) < 0) {
		solar_diag_tool_error(diag, "cannot run %s: %s", exe, strerror(errno));
		rc = 2;
		goto done;
	}
	if (pr.timed_out) {
		solar_diag_tool_error(
		    diag,
		    "the AIR program ran past the time limit of %g s and was stopped "
		    "(try smaller sizes with -D, or --timeout)",
		    timeout_s);
		rc = 2;
	} else if (pr.status != 0) {
		char *tail = tail_of(pr.errout);
		solar_diag_tool_error(diag, "the AIR program failed (exit %d)%s", pr.status, tail);
		free(tail);
		rc = 2;
	} else {
		parse_times(p, pr.out, r);
	}
	solar_proc_free(&pr);
done:
	free(src);
	free(exe);
	return rc;
}

int solar_run_c(const solar_program *p, const char *file, const char *dir, double timeout_s,
		solar_run *r, solar_diag *diag)
{
	return build_and_run(p, file, dir, "air_prog", NULL, 0, RUN_AIR, timeout_s, r, diag);
}

int solar_run_c_f64(const solar_program *p, const char *file, const char *dir, double timeout_s,
		    solar_diag *diag)
{
	solar_run r;
	int rc = build_and_run(p, file, dir, "air_f64", NULL, 0, RUN_F64, timeout_s, &r, diag);
	solar_run_free(&r);
	return rc;
}

int solar_run_c_acc(const solar_program *p, const char *file, const char *dir, double timeout_s,
		    solar_diag *diag)
{
	solar_run r;
	int rc = build_and_run(p, file, dir, "air_acc", NULL, 0, RUN_ACC, timeout_s, &r, diag);
	solar_run_free(&r);
	return rc;
}

int solar_run_c_checked(const solar_program *p, const char *file, const char *dir,
			const solar_check *checks, int nchecks, double timeout_s, solar_diag *diag)
{
	solar_run r;
	int rc = build_and_run(p, file, dir, "air_localise", checks, nchecks, RUN_AIR, timeout_s, &r,
			       diag);
	solar_run_free(&r);
	return rc;
}

void solar_run_free(solar_run *r)
{
	free(r->kernel_s);
	r->kernel_s = NULL;
}
