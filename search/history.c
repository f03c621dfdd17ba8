/* history.c - the JSONL files of `solar triage`: measurements and external forecasts.
 *
 * A history line is a JSON object with at least "candidate" (its file), "device" (descriptor
 * name or file), "ms" (a positive time in milliseconds) and "l2" ("warm" or "cold": cold when
 * the L2 was flushed before each run); "correct": false marks the candidate wrong, and so does
 * a failed run ("error": a message, "ms" null, as bench/pools/measure.py writes it); "op_class"
 * and "kind" are used when present, every other key is kept in the file and ignored here.  A
 * forecast line has "candidate" and "bin_probabilities" (one probability per speedup bin of the
 * candidate over the reference), optionally "bin_edges".  Every bad line is reported as
 * `FILE:LINE: error: ...` (up to 20), then the load fails: a history is evidence, and a
 * half-read one would silently change decisions.  Appending (--record) writes one whole line
 * with one write and fsyncs it, so the file is never left with half a line.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "devices/json.h"
#include "search/triage.h"

/* [0, 0.25), [0.25, 0.5), [0.5, 0.8), [0.8, 1), [1, 1.25), [1.25, 2), [2, 4), [4, inf) */
const double solar_forecast_default_edges[9] = {0, 0.25, 0.5, 0.8, 1.0, 1.25, 2, 4, INFINITY};

typedef struct {
	solar_diag *d; /* the file's context (its own copy of the text), off the caller's */
	int errors;
	int32_t line_off; /* where the line being read starts */
} reader;

/* `FILE:LINE:1: error: message`, the line and a caret, through the diag module (which stops
 * printing after 20 and says how many more there were). */
SOLAR_PRINTF(3, 4) static void line_error(reader *r, int line, const char *fmt, ...)
{
	(void)line; /* the diag module finds it from the offset */
	r->errors++;
	va_list ap;
	va_start(ap, fmt);
	solar_diag_verror(r->d, "error", (solar_span){r->line_off, 0}, fmt, ap);
	va_end(ap);
}

/* Calls fn on every non-blank line of text, as a parsed JSON object (NULL after an error). */
static void each_line(reader *r, char *text, void (*fn)(reader *, int, cJSON *, void *), void *ctx)
{
	int line = 0;
	for (char *s = text; s && *s;) {
		char *nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		line++;
		r->line_off = (int32_t)(s - text);
		char *t = s;
		while (*t == ' ' || *t == '\t' || *t == '\r')
			t++;
		if (*t) {
			const char *end = NULL;
			cJSON *j = cJSON_ParseWithOpts(t, &end, false);
			if (!j) {
				line_error(r, line, "not valid JSON (near column %d)",
					   end ? (int)(end - s) + 1 : 1);
			} else {
				while (end && (*end == ' ' || *end == '\t' || *end == '\r'))
					end++;
				if (end && *end)
					line_error(r, line, "text after the JSON object (column %d)",
						   (int)(end - s) + 1);
				else if (!cJSON_IsObject(j))
					line_error(r, line, "expected a JSON object per line");
				else if (solar_json_check(j, r->line_off, r->d))
					r->errors++; /* a key twice, a number past a double */
				else
					fn(r, line, j, ctx);
			}
			cJSON_Delete(j);
		}
		s = nl ? nl + 1 : NULL;
	}
}

static const char *str_field(reader *r, int line, cJSON *j, const char *key, bool required)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	if (!v) {
		if (required)
			line_error(r, line, "missing \"%s\"", key);
		return NULL;
	}
	if (!cJSON_IsString(v) || !v->valuestring[0]) {
		line_error(r, line, "\"%s\": expected a non-empty string", key);
		return NULL;
	}
	return v->valuestring;
}

static char *dup_or_null(const char *s) { return s ? solar_xstrdup(s) : NULL; }

static void history_line(reader *r, int line, cJSON *j, void *ctx)
{
	solar_history *h = ctx;
	int before = r->errors;
	const char *cand = str_field(r, line, j, "candidate", true);
	const char *dev = str_field(r, line, j, "device", true);
	const char *l2 = str_field(r, line, j, "l2", true);
	const char *cls = str_field(r, line, j, "op_class", false);
	const char *kind = str_field(r, line, j, "kind", false);
	cJSON *ms = cJSON_GetObjectItemCaseSensitive(j, "ms");
	cJSON *ok = cJSON_GetObjectItemCaseSensitive(j, "correct");
	/* a failed run (the measurement script's "error" line: "ms" and "correct" null) is a
	 * record that the candidate is wrong */
	cJSON *error = cJSON_GetObjectItemCaseSensitive(j, "error");
	bool failed = cJSON_IsString(error) && (!ms || cJSON_IsNull(ms)) && (!ok || !cJSON_IsTrue(ok));
	if (failed) {
		/* no time to check */
	} else if (!ms)
		line_error(r, line, "missing \"ms\"");
	else if (!cJSON_IsNumber(ms) || !isfinite(ms->valuedouble) || ms->valuedouble <= 0)
		line_error(r, line, "\"ms\": expected a positive number of milliseconds");
	bool l2_cold = false;
	if (l2 && solar_l2_parse(l2, &l2_cold) < 0)
		line_error(r, line, "\"l2\": expected \"warm\" or \"cold\", not \"%s\"", l2);
	if (ok && !cJSON_IsBool(ok) && !(failed && cJSON_IsNull(ok)))
		line_error(r, line, "\"correct\": expected true or false");
	if (r->errors != before)
		return;
	h->e = solar_xgrow(h->e, &h->cap, h->n, sizeof *h->e);
	h->e[h->n++] = (solar_hist_entry){.candidate = solar_xstrdup(cand),
					  .device = solar_xstrdup(dev),
					  .op_class = dup_or_null(cls),
					  .kind = dup_or_null(kind),
					  .seconds = failed ? 0 : ms->valuedouble * 1e-3,
					  .l2_cold = l2_cold,
					  .correct = !failed && (!ok || cJSON_IsTrue(ok)),
					  .line = line};
}

/* Reads file and calls fn on each line's object; the number of errors, or -1 when the file
 * cannot be read (after solar_read_file's message). */
static int read_lines(const char *file, solar_diag *diag,
		      void (*fn)(reader *, int, cJSON *, void *), void *ctx)
{
	int32_t len;
	char *text = solar_read_file(file, &len, diag);
	if (!text)
		return -1;
	char *orig = solar_xstrndup(text, (size_t)len); /* each_line cuts text into lines */
	reader r = {solar_diag_new_file(diag, file, orig, len), 0, 0};
	each_line(&r, text, fn, ctx);
	solar_diag_finish(r.d);
	solar_diag_free(r.d);
	free(orig);
	free(text);
	return r.errors;
}

int solar_history_load(const char *file, bool may_be_absent, solar_history *h, solar_diag *diag)
{
	h->e = NULL;
	h->n = 0;
	if (may_be_absent && access(file, F_OK) != 0 && errno == ENOENT)
		return 0;
	if (read_lines(file, diag, history_line, h) == 0)
		return 0;
	solar_history_free(h);
	return -1;
}

void solar_history_free(solar_history *h)
{
	for (int i = 0; i < h->n; i++) {
		free(h->e[i].candidate);
		free(h->e[i].device);
		free(h->e[i].op_class);
		free(h->e[i].kind);
	}
	free(h->e);
	h->e = NULL;
	h->n = 0;
}

static void forecast_line(reader *r, int line, cJSON *j, void *ctx)
{
	solar_forecasts *fs = ctx;
	int before = r->errors;
	solar_forecast f = {.line = line};
	const char *cand = str_field(r, line, j, "candidate", true);
	cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "bin_probabilities");
	cJSON *edges = cJSON_GetObjectItemCaseSensitive(j, "bin_edges");
	if (!p) {
		line_error(r, line, "missing \"bin_probabilities\"");
		return;
	}
	int n = cJSON_GetArraySize(p);
	if (!cJSON_IsArray(p) || n < 2 || n > SOLAR_FORECAST_MAX_BINS) {
		line_error(r, line, "\"bin_probabilities\": expected an array of 2 to %d numbers",
			   SOLAR_FORECAST_MAX_BINS);
		return;
	}
	f.nbins = n;
	double sum = 0;
	for (int i = 0; i < n; i++) {
		cJSON *v = cJSON_GetArrayItem(p, i);
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0) {
			line_error(r, line, "\"bin_probabilities\"[%d]: expected a probability >= 0",
				   i);
			return;
		}
		f.p[i] = v->valuedouble;
		sum += f.p[i];
	}
	if (fabs(sum - 1) > 0.02) {
		line_error(r, line, "\"bin_probabilities\": they sum to %g, not 1", sum);
		return;
	}
	if (edges) {
		if (!cJSON_IsArray(edges) || cJSON_GetArraySize(edges) != n + 1) {
			line_error(r, line, "\"bin_edges\": expected %d edges for %d bins (the last "
					    "may be null: no upper end)",
				   n + 1, n);
			return;
		}
		for (int i = 0; i <= n; i++) {
			cJSON *v = cJSON_GetArrayItem(edges, i);
			double e = i == n && cJSON_IsNull(v) ? INFINITY
				   : cJSON_IsNumber(v)       ? v->valuedouble
							     : NAN;
			if (isnan(e) || e < 0 || (i && e <= f.edge[i - 1])) {
				line_error(r, line, "\"bin_edges\"[%d]: expected a speedup above the "
						    "previous edge",
					   i);
				return;
			}
			f.edge[i] = e;
		}
	} else if (n != 8) {
		line_error(r, line, "\"bin_probabilities\": %d bins without \"bin_edges\" (the "
				    "default edges are for 8 bins: docs/triage.md#forecasts)",
			   n);
		return;
	} else {
		memcpy(f.edge, solar_forecast_default_edges, sizeof solar_forecast_default_edges);
	}
	for (int i = 0; i < n; i++)
		f.p[i] /= sum;
	if (r->errors != before)
		return;
	fs->f = solar_xgrow(fs->f, &fs->cap, fs->n, sizeof *fs->f);
	f.candidate = solar_xstrdup(cand);
	fs->f[fs->n++] = f;
}

int solar_forecasts_load(const char *file, solar_forecasts *f, solar_diag *diag)
{
	f->f = NULL;
	f->n = 0;
	if (read_lines(file, diag, forecast_line, f) == 0)
		return 0;
	solar_forecasts_free(f);
	return -1;
}

void solar_forecasts_free(solar_forecasts *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->f[i].candidate);
	free(f->f);
	f->f = NULL;
	f->n = 0;
}

int solar_history_append(const char *file, const char *candidate, const char *device, double ms,
			 bool l2_cold, bool correct, solar_diag *diag)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "candidate", candidate);
	cJSON_AddStringToObject(j, "device", device);
	cJSON_AddNumberToObject(j, "ms", ms);
	cJSON_AddStringToObject(j, "l2", solar_l2_name(l2_cold));
	cJSON_AddBoolToObject(j, "correct", correct);
	char *text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	size_t n = text ? strlen(text) : 0;
	char *line = text ? solar_xmalloc(n + 2) : NULL;
	if (!line) {
		free(text);
		solar_diag_tool_error(diag, "%s: out of memory", file);
		return -1;
	}
	memcpy(line, text, n);
	line[n++] = '\n';
	free(text);
	int rc = -1;
	int fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		solar_diag_tool_error(diag, "%s: %s", file, strerror(errno));
		goto out;
	}
	if (st.st_size > 0) { /* a last line without its newline would swallow ours */
		char last = '\n';
		int rfd = open(file, O_RDONLY);
		if (rfd < 0 || pread(rfd, &last, 1, st.st_size - 1) != 1)
			last = '?';
		if (rfd >= 0)
			close(rfd);
		if (last != '\n') {
			solar_diag_tool_error(
			    diag,
			    "%s: the last line does not end with a newline (a line "
			    "half written?); fix the file before recording",
			    file);
			goto out;
		}
	}
	ssize_t w = write(fd, line, n);
	if (w != (ssize_t)n || fsync(fd) < 0) {
		int e = w < 0 ? errno : EIO;
		if (ftruncate(fd, st.st_size) < 0) {
			/* nothing more to do: the message below says the record failed */
		}
		solar_diag_tool_error(diag, "%s: cannot record the measurement: %s", file,
				      strerror(e));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0 && close(fd) < 0 && rc == 0) {
		solar_diag_tool_error(diag, "%s: %s", file, strerror(errno));
		rc = -1;
	}
	free(line);
	return rc;
}
