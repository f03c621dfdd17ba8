/* cmd_translate.c - `solar translate MODEL.py [-o OUT.air] [--no-validate] [-D NAME=V ...]`.
 *
 * The translator is Python (translate/, docs/translate.md): PyTorch's own tracer
 * (torch.export) has to run, so this command only finds an interpreter and the translator
 * and executes them, passing its arguments through unchanged (the one parser, cli/args.c,
 * checked them against the table first).  The interpreter is
 * $SOLAR_PYTHON, else the virtual environment that `make venv` builds beside the executable
 * (build/venv/bin/python) or in the source tree solar was built from; without one the
 * command says how to get it (exit 2).  The translator validates its output with this same
 * executable (`solar validate`), which it finds through $SOLAR_EXE.  The C commands never
 * need Python.
 *
 * The translator runs as a child of the launcher (validate/proc.c), not in solar's place, so
 * that it ends as validate's children do: in a process group of its own, stopped as a group
 * on SIGINT, SIGTERM, SIGHUP, past SOLAR_TIME_LIMIT (armed by main) or past --timeout; its
 * temporary files go in a folder of this command's own, $TMPDIR/solar-translate-XXXXXX (its
 * TMPDIR), removed at the end whatever ends the run.  While it validates, the translator
 * pauses both limits through its control pipe (the validation's steps run under --timeout
 * each, in `solar validate`).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "validate/validate.h"
#include "../diag/alloc.h"
#include "../diag/file.h"

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The folder of this executable (no trailing slash), or "" when /proc/self/exe is unreadable. */
static void exe_dir(char *dir, size_t n, char *exe, size_t exe_n)
{
	solar_self_exe(exe, exe_n);
	snprintf(dir, n, "%s", exe);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
}

/* The first of the candidates "DIR/REL" that passes ok(), copied to out; false if none. */
static bool find(char *out, size_t n, const char *const *dirs, size_t ndirs, const char *rel,
		 bool (*ok)(const char *))
{
	for (size_t i = 0; i < ndirs; i++) {
		if (!dirs[i] || !dirs[i][0])
			continue;
		snprintf(out, n, "%s/%s", dirs[i], rel);
		if (ok(out))
			return true;
	}
	return false;
}

/* Runs the translator in a scratch folder of its own, removed after; its exit status. */
static int run_translator(char **args, double timeout_s)
{
	const char *tmp = getenv("TMPDIR");
	char *scratch = solar_xmalloc(PATH_MAX);
	snprintf(scratch, PATH_MAX, "%s/solar-translate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	solar_proc_catch_signals();
	solar_proc_temp(scratch, true); /* before it exists: a signal may come at any time */
	if (!mkdtemp(scratch)) {
		solar_diag_tool_error(solar_cli_diag(),
				      "cannot make a temporary folder under %s: %s",
				      tmp && *tmp ? tmp : "/tmp", strerror(errno));
		solar_proc_temp_done(scratch);
		free(scratch);
		return SOLAR_EXIT_USAGE;
	}
	char *tmpdir = solar_xmalloc(strlen(scratch) + 8);
	sprintf(tmpdir, "TMPDIR=%s", scratch);
	const char *env[] = {tmpdir, NULL};
	solar_proc pr;
	fflush(NULL);
	int rc = solar_proc_run(
	    args, &(solar_proc_how){.timeout_s = timeout_s, .limit_control = true, .env = env},
	    &pr);
	int err = errno;
	solar_proc_remove_tree(scratch);
	solar_proc_temp_done(scratch);
	free(tmpdir);
	free(scratch);
	if (rc < 0) {
		solar_diag_tool_error(solar_cli_diag(),
				      "cannot run '%s': %s (set SOLAR_PYTHON or run `make venv`)",
				      args[0], strerror(err));
		return SOLAR_EXIT_USAGE;
	}
	if (pr.timed_out) {
		solar_diag_tool_error(solar_cli_diag(),
				      "the translation ran past --timeout (%g s) and was stopped; "
				      "nothing was written",
				      timeout_s);
		return SOLAR_EXIT_USAGE;
	}
	return pr.status;
}

int solar_cmd_translate(const solar_opts *o)
{
	int argc = o->argc;
	char **argv = o->argv;
	char exe[PATH_MAX], dir[PATH_MAX], up[PATH_MAX + 4], share[PATH_MAX + 20];
	exe_dir(dir, sizeof dir, exe, sizeof exe);
	snprintf(up, sizeof up, "%s/..", dir);
	snprintf(share, sizeof share, "%s/../share/solar", dir); /* `make install` */
	const char *const script_dirs[] = {up, dir, share, SOLAR_SOURCE_DIR};
	const char *const venv_dirs[] = {dir, up, SOLAR_SOURCE_DIR "/build"};

	char script[PATH_MAX + 64];
	if (!find(script, sizeof script, script_dirs, 4, "translate/run.py", readable)) {
		solar_diag_tool_error(solar_cli_diag(),
				      "cannot find translate/run.py (beside the executable or in "
				      "%s)",
				      SOLAR_SOURCE_DIR);
		return SOLAR_EXIT_USAGE;
	}
	char python[PATH_MAX + 64];
	const char *env = getenv("SOLAR_PYTHON");
	if (env && *env) {
		snprintf(python, sizeof python, "%s", env);
	} else if (find(python, sizeof python, venv_dirs, 3, "venv/.installed", readable)) {
		/* the marker `make venv` writes when the install is complete */
		snprintf(python + strlen(python) - strlen(".installed"), sizeof ".installed", "bin/python");
	} else {
		solar_diag_tool_error(
		    solar_cli_diag(),
		    "no Python with PyTorch: build the virtual environment with `make "
		    "venv` (build/venv, pinned torch from PyPI) or set SOLAR_PYTHON to "
		    "a Python that has torch >= 2.4");
		return SOLAR_EXIT_USAGE;
	}
	if (exe[0])
		setenv("SOLAR_EXE", exe, 0);
	char **args = solar_xcalloc((size_t)argc + 3, sizeof *args);
	args[0] = python;
	args[1] = script;
	for (int i = 0; i < argc; i++)
		args[2 + i] = argv[i];
	int rc = run_translator(args, o->timeout_s > 0 ? o->timeout_s : 600);
	free(args);
	return rc;
}
