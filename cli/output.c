/* output.c - every command's output (checked writes, atomic files) and the formatting they share. */
#define _GNU_SOURCE /* realpath, fchmod */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/work.h"
#include "validate/validate.h"
#include "../diag/alloc.h"
#include "../diag/file.h"

/* ---- output files ----------------------------------------------------------------------
 *
 * Nothing lost: every output of every command is written through here.  An output FILE is
 * first written to a temporary file beside it (mkstemp in the same folder, so the rename is
 * atomic), and solar_out_finish, called once by main after the command, checks every write
 * and the close of each and renames them all into place, or removes them all: a full disk,
 * SIGINT, SIGTERM or the time limit leaves the old file intact, and two concurrent runs on one
 * -o leave one run's whole output.  An output that names something that is not a regular file
 * (/dev/null, /dev/full, a FIFO) is written in place.  Outputs that name an input file (the
 * same inode as a program, descriptor, manifest, ...) are refused.  Standard output is
 * checked too: a failed write ends the run with `solar: error: writing <stdout>: ...`, exit 2.
 *
 * The temporary files are in the launcher's table of temporaries (validate/proc.c), which the
 * signal and time-limit handlers remove. */

enum { MAX_OUTPUTS = 8, MAX_INPUTS = 64 };

typedef struct {
	FILE *f;
	char *path; /* the name given */
	char *temp; /* the temporary file beside it; NULL when written in place */
	bool done;  /* the command finished writing it */
	int err;    /* first errno seen, 0 if none */
} pending_output;

static pending_output outputs[MAX_OUTPUTS];
static int noutputs;
static struct {
	dev_t dev;
	ino_t ino;
	char *path;
} inputs[MAX_INPUTS];
static int ninputs;

void solar_out_input(const char *path)
{
	struct stat st;
	if (!path || !strcmp(path, "-") || stat(path, &st) < 0 || ninputs == MAX_INPUTS)
		return;
	for (int i = 0; i < ninputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			return;
	inputs[ninputs].dev = st.st_dev;
	inputs[ninputs].ino = st.st_ino;
	inputs[ninputs++].path = solar_xstrdup(path);
}

/* A small regular file's text, or NULL (quietly: the command reads it again and reports). */
static char *read_small(const char *path)
{
	char why[128];
	FILE *f = solar_fopen_regular(path, why, sizeof why); /* never a FIFO: it would block */
	if (!f)
		return NULL;
	size_t cap = 1 << 20;
	char *buf = solar_xmalloc(cap + 1);
	size_t n = fread(buf, 1, cap, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

void solar_out_input_device(const char *path)
{
	/* the descriptor and its "base" chain (docs/devices.md), each relative to its file */
	char *file = path ? solar_xstrdup(path) : NULL;
	for (int depth = 0; file && depth < 16; depth++) {
		solar_out_input(file);
		char *text = read_small(file);
		cJSON *j = text ? cJSON_Parse(text) : NULL;
		free(text);
		cJSON *base = cJSON_GetObjectItemCaseSensitive(j, "base");
		char *next = NULL;
		if (cJSON_IsString(base) && base->valuestring[0]) {
			const char *slash = strrchr(file, '/');
			size_t dl = base->valuestring[0] == '/' || !slash ? 0 : (size_t)(slash - file) + 1;
			next = solar_xmalloc(dl + strlen(base->valuestring) + 1);
			memcpy(next, file, dl);
			strcpy(next + dl, base->valuestring);
		}
		cJSON_Delete(j);
		free(file);
		file = next;
	}
	free(file);
}

/* The input that path names (same inode), or NULL. */
static const char *names_input(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return NULL;
	for (int i = 0; i < ninputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			return inputs[i].path;
	return NULL;
}

bool solar_out_refuse_input(const char *path)
{
	const char *in = names_input(path);
	if (!in)
		return false;
	if (!strcmp(in, path))
		solar_diag_tool_error(solar_cli_diag(),
				      "refusing to write %s: it is an input of this run", path);
	else
		solar_diag_tool_error(solar_cli_diag(), "refusing to write %s: it is the input %s",
				      path, in);
	return true;
}

FILE *solar_out_open_path(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	if (solar_out_refuse_input(path))
		return NULL;
	/* through a symbolic link: the file it names is the one replaced */
	struct stat st;
	char *real = NULL;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		path = real;
	bool exists = stat(path, &st) == 0;
	for (int i = 0; i < noutputs; i++) {
		struct stat o;
		if (!strcmp(outputs[i].path, path) ||
		    (exists && stat(outputs[i].path, &o) == 0 && o.st_dev == st.st_dev &&
		     o.st_ino == st.st_ino)) {
			solar_diag_tool_error(solar_cli_diag(), "%s is named by two outputs", path);
			free(real);
			return NULL;
		}
	}
	if (noutputs == MAX_OUTPUTS) {
		solar_diag_tool_error(solar_cli_diag(), "too many output files");
		free(real);
		return NULL;
	}
	pending_output *p = &outputs[noutputs];
	*p = (pending_output){.path = solar_xstrdup(path)};
	free(real);
	path = p->path;
	if (exists && !S_ISREG(st.st_mode)) { /* a device or a FIFO: written in place */
		p->f = fopen(path, "w");
		if (!p->f) {
			solar_diag_tool_error(solar_cli_diag(), "cannot write %s: %s", path,
					      strerror(errno));
			free(p->path);
			return NULL;
		}
		noutputs++;
		return p->f;
	}
	if (exists && access(path, W_OK) < 0) { /* as fopen would: a read-only file stays */
		solar_diag_tool_error(solar_cli_diag(), "cannot write %s: %s", path,
				      strerror(errno));
		free(p->path);
		return NULL;
	}
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
	p->temp = solar_xmalloc(strlen(path) + 16);
	memcpy(p->temp, path, dl);
	sprintf(p->temp + dl, ".%s.XXXXXX", path + dl);
	solar_proc_catch_signals();
	solar_proc_temp(p->temp, false); /* before it exists: a signal may come at any time */
	int fd = mkstemp(p->temp);
	if (fd < 0 || !(p->f = fdopen(fd, "w"))) {
		solar_diag_tool_error(solar_cli_diag(), "cannot write %s: %s", path,
				      strerror(errno));
		solar_proc_temp_done(p->temp);
		if (fd >= 0) {
			close(fd);
			unlink(p->temp);
		}
		free(p->temp);
		free(p->path);
		return NULL;
	}
	/* the mode a plain fopen would give, or the old file's */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
	noutputs++;
	return p->f;
}

FILE *solar_out_open(const solar_opts *o)
{
	return solar_out_open_path(o->out);
}

void solar_out_close(const solar_opts *o, FILE *f)
{
	(void)o;
	for (int i = 0; i < noutputs; i++)
		if (outputs[i].f == f) {
			outputs[i].done = true;
			if (ferror(f)) /* errno is still that of the failed write */
				outputs[i].err = errno ? errno : EIO;
		}
}

static int close_checked(FILE *f, int err);

int solar_out_commit(FILE *f)
{
	if (f == stdout)
		return 0;
	for (int i = 0; i < noutputs; i++) {
		pending_output *p = &outputs[i];
		if (p->f != f)
			continue;
		int err = close_checked(f, p->err);
		bool failed = err != 0;
		if (failed)
			solar_diag_tool_error(solar_cli_diag(), "writing %s: %s", p->path,
					      strerror(err));
		else if (solar_out_refuse_input(p->path))
			failed = true;
		else if (p->temp && rename(p->temp, p->path) < 0) {
			solar_diag_tool_error(solar_cli_diag(), "cannot rename %s to %s: %s",
					      p->temp, p->path, strerror(errno));
			failed = true;
		}
		if (p->temp && failed)
			unlink(p->temp);
		/* out of the table: the last entry takes its place */
		int last = noutputs - 1;
		solar_proc_temp_done(p->temp);
		free(p->temp);
		free(p->path);
		outputs[i] = outputs[last];
		noutputs--;
		return failed ? -1 : 0;
	}
	return -1;
}

/* Flushes and closes one output; its errno (err: one seen before), or 0. */
static int close_checked(FILE *f, int err)
{
	if (!err && ferror(f))
		err = errno ? errno : EIO;
	if (fflush(f) && !err)
		err = errno;
	if (!err && fsync(fileno(f)) < 0 && errno != EINVAL && errno != EROFS &&
	    errno != ENOTSUP)
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

int solar_out_finish(int rc)
{
	bool keep = rc != SOLAR_EXIT_USAGE;
	bool failed = false;
	for (int i = 0; i < noutputs; i++) {
		pending_output *p = &outputs[i];
		int err = close_checked(p->f, p->err);
		if (err) {
			solar_diag_tool_error(solar_cli_diag(), "writing %s: %s", p->path,
					      strerror(err));
			failed = true;
		}
		if (!p->done)
			keep = false; /* the command stopped before it finished this output */
	}
	for (int i = 0; i < noutputs; i++) /* inputs named again since (report's entries) */
		if (keep && !failed && solar_out_refuse_input(outputs[i].path))
			failed = true;
	for (int i = 0; i < noutputs; i++) {
		pending_output *p = &outputs[i];
		if (p->temp && keep && !failed && rename(p->temp, p->path) < 0) {
			solar_diag_tool_error(solar_cli_diag(), "cannot rename %s to %s: %s",
					      p->temp, p->path, strerror(errno));
			failed = true;
		}
	}
	for (int i = 0; i < noutputs; i++) {
		if (outputs[i].temp && (!keep || failed))
			unlink(outputs[i].temp);
		solar_proc_temp_done(outputs[i].temp);
		free(outputs[i].temp);
		free(outputs[i].path);
	}
	noutputs = 0;
	for (int i = 0; i < ninputs; i++)
		free(inputs[i].path);
	ninputs = 0;
	int serr = ferror(stdout) ? (errno ? errno : EIO) : 0;
	if (fflush(stdout) && !serr)
		serr = errno;
	if (serr) {
		solar_diag_tool_error(solar_cli_diag(), "writing <stdout>: %s", strerror(serr));
		failed = true;
	}
	return failed ? SOLAR_EXIT_USAGE : rc;
}

void solar_out_header(FILE *out, const char *file, const solar_program *p, bool ranks)
{
	const char *base = strrchr(file, '/');
	fprintf(out, "%s", base ? base + 1 : file);
	for (int i = 0; i < p->nparams; i++)
		if (solar_param_shown(p, i) && (ranks || p->params[i].axis < 0))
			fprintf(out, "%s%s=%lld", i ? " " : "  ", p->params[i].name,
				(long long)p->params[i].value);
	fputs("\n", out);
}

/* Exact integers (docs/json.md): the decimal digits themselves as a raw JSON number, never
 * through a double (cJSON prints doubles with 15 significant digits where they read back
 * within its tolerance: 9007199254740991 would come out as 9007199254740990). */
cJSON *solar_json_digits(const char *s)
{
	size_t i = s[0] == '-';
	if (!s[i])
		return cJSON_CreateNull();
	for (; s[i]; i++)
		if (s[i] < '0' || s[i] > '9')
			return cJSON_CreateNull(); /* not an integer: no count is one */
	return cJSON_CreateRaw(s);
}

cJSON *solar_json_int(long long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", v);
	return solar_json_digits(buf);
}

cJSON *solar_json_count(const solar_count *v)
{
	if (!v)
		return solar_json_digits("0");
	char *s = solar_count_str(v);
	cJSON *j = solar_json_digits(s);
	free(s);
	return j;
}

cJSON *solar_json_schema(cJSON *j, const char *command)
{
	char v[64];
	snprintf(v, sizeof v, "solar.%s/1", command);
	cJSON *s = cJSON_CreateString(v);
	if (j && s && cJSON_InsertItemInArray(j, 0, s))
		s->string = solar_xstrdup("schema");
	else
		cJSON_Delete(s);
	return j;
}

cJSON *solar_json_program(const char *file, const solar_program *p)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "program", file);
	cJSON *ps = cJSON_AddObjectToObject(j, "params");
	for (int i = 0; i < p->nparams; i++)
		cJSON_AddItemToObject(ps, p->params[i].name,
				      solar_json_int((long long)p->params[i].value));
	if (p->nconsts) { /* sizes -D cannot change: present only when the program has some */
		cJSON *cs = cJSON_AddObjectToObject(j, "consts");
		for (int i = 0; i < p->nconsts; i++)
			cJSON_AddItemToObject(cs, p->consts[i].name,
					      solar_json_int((long long)p->consts[i].value));
	}
	return j;
}

/* "distinct(ids) >= 4096" and "file.air:12:1" of assumption a. */
static void assumption_text(const solar_program *p, int a, char *text, size_t n, char *at,
			    size_t m)
{
	const solar_assume *as = &p->assumes[a];
	snprintf(text, n, "distinct(%s) >= %lld", p->tensors[as->tensor].name,
		 (long long)as->value);
	int line = 1, col = 1;
	for (int32_t i = 0; i < as->span.off && i < p->src_len; i++) {
		col = p->src[i] == '\n' ? 1 : col + 1;
		line += p->src[i] == '\n';
	}
	snprintf(at, m, "%s:%d:%d", p->file, line, col);
}

void solar_out_assumptions(FILE *out, const solar_program *p, const bool *used)
{
	for (int a = 0; a < p->nassumes; a++) {
		char text[160], at[512];
		assumption_text(p, a, text, sizeof text, at, sizeof at);
		if (used && used[a])
			fprintf(out, "Assumes %s (%s): the elements a gather through '%s' reads "
				     "rest on it; --no-assume gives the counts without it "
				     "(docs/bounds.md#indexing-with-data).\n",
				text, at, p->tensors[p->assumes[a].tensor].name);
		else
			fprintf(out, "Assumption %s (%s) raises no count: no gather indexes with all "
				     "of '%s' alone (docs/bounds.md#indexing-with-data).\n",
				text, at, p->tensors[p->assumes[a].tensor].name);
	}
}

void solar_json_assumptions(cJSON *j, const solar_program *p, const bool *used)
{
	if (!p->nassumes)
		return;
	cJSON *arr = cJSON_AddArrayToObject(j, "assumptions");
	for (int a = 0; a < p->nassumes; a++) {
		char text[160], at[512];
		assumption_text(p, a, text, sizeof text, at, sizeof at);
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "text", text);
		cJSON_AddStringToObject(e, "at", at);
		cJSON_AddBoolToObject(e, "used", used && used[a]);
		cJSON_AddItemToArray(arr, e);
	}
}

void solar_json_print(FILE *out, cJSON *j)
{
	char *s = cJSON_Print(j);
	if (!s)
		solar_out_of_memory();
	fprintf(out, "%s\n", s);
	free(s);
	cJSON_Delete(j);
}
