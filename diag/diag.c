/* diag.c - the one place that prints diagnostics.
 *
 *   file:line:col: error: message
 *   <the source line>
 *   <a caret line: ^ under the first byte of the span, ~ under the rest of it>
 *
 * Spans are byte offsets; the line and column are found here, by binary search in a table of
 * line starts built on first use.  The source line is echoed safely: control bytes and bytes
 * that are not UTF-8 text print as '?', and a very long line is cut to a window around the
 * span.  The caret line copies the tabs of the source line so the caret lines up in any
 * terminal, and gives a multi-byte UTF-8 character one column.
 *
 * JSON files have no spans worth echoing for most errors: there the place is a JSON path
 * (`x.json: memory[1].bandwidth_bytes_per_s: expected a positive number`), written by
 * solar_diag_path_error and nowhere else.
 *
 * Errors past SOLAR_DIAG_MAX_ERRORS (and warnings past the same number) are counted but not
 * printed; solar_diag_finish says how many were dropped.  A note prints only when the
 * diagnostic it belongs to did.  A context made by solar_diag_new_file counts each error and
 * warning in its parent as well (the parent's cap is its own file's).  A NULL context is
 * silent: every report to it is dropped and counts nowhere (a library caller that wants no
 * messages passes NULL).
 *
 * Every message, of every spelling, is written by emit() from its parts (kind, file, line and
 * column, JSON path, text), so a stream can take them in a second format: JSON lines, one
 * object a message, for a command whose own output is JSON.  That format belongs to the
 * stream, not to a context, since every context printing on it must follow (the API's, the
 * report's, the command line's); so does the fatal error, which has no context at all.
 */
#include "diag.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "../diag/alloc.h"

struct solar_diag {
	solar_diag *parent; /* counts this context's errors and warnings too; may be NULL */
	const char *file;
	bool tool; /* a command's channel (solar_diag_new_tool): it prints `solar: ...` */
	const char *src;
	int32_t len;
	FILE *out;
	int errors, warnings;
	int dropped_errors, dropped_warnings;
	bool last_shown; /* was the last error or warning printed (for its notes) */
	int32_t *lines;	 /* offsets of line starts, built on first use */
	int nlines;
};

/* Longest stretch of a source line that is echoed; longer lines show a window. */
enum { LINE_WINDOW = 160, LINE_CONTEXT = 60 };

solar_diag *solar_diag_new(const char *file, const char *src, int32_t len, FILE *out)
{
	solar_diag *d = solar_xcalloc(1, sizeof *d);
	d->file = file ? file : "<input>";
	d->src = src ? src : "";
	d->len = src ? len : 0;
	d->out = out;
	return d;
}

solar_diag *solar_diag_new_file(solar_diag *parent, const char *file, const char *src, int32_t len)
{
	solar_diag *d = solar_diag_new(file, src, len, parent ? parent->out : NULL);
	d->parent = parent;
	return d;
}

void solar_diag_free(solar_diag *d)
{
	if (!d)
		return;
	free(d->lines);
	free(d);
}

FILE *solar_diag_stream(const solar_diag *d) { return d ? d->out : NULL; }

static void build_lines(solar_diag *d)
{
	if (d->lines)
		return;
	int n = 1;
	for (int32_t i = 0; i < d->len; i++)
		n += d->src[i] == '\n';
	d->lines = solar_xmalloc((size_t)n * sizeof *d->lines);
	d->lines[0] = 0;
	int k = 1;
	for (int32_t i = 0; i < d->len; i++)
		if (d->src[i] == '\n')
			d->lines[k++] = i + 1;
	d->nlines = n;
}

/* Index of the line holding byte `off`. */
static int line_of(solar_diag *d, int32_t off)
{
	build_lines(d);
	int lo = 0, hi = d->nlines - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (d->lines[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

void solar_diag_locate(const solar_diag *d, int32_t off, int *line, int *col)
{
	solar_diag *m = (solar_diag *)d; /* the line table is a cache */
	if (off < 0)
		off = 0;
	if (off > d->len)
		off = d->len;
	int l = line_of(m, off);
	*line = l + 1;
	*col = (int)(off - m->lines[l]) + 1;
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0. */
static int utf8_len(const unsigned char *s, int32_t n)
{
	int len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (s[0] < 0x80 || s[0] >= 0xf5 || !len || len > n)
		return 0;
	unsigned c = s[0] & (0x7f >> len);
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

/* Echoes src[from, to) safely; with `caret`, writes instead the padding or underline that
 * sits below it (tabs kept, one column per character, `mark` for each column). */
static void echo(solar_diag *d, int32_t from, int32_t to, char mark)
{
	const unsigned char *s = (const unsigned char *)d->src;
	for (int32_t i = from; i < to;) {
		int k = utf8_len(s + i, to - i);
		if (k > 0) {
			if (mark)
				fputc(mark, d->out);
			else
				fwrite(s + i, 1, (size_t)k, d->out);
			i += k;
			continue;
		}
		unsigned char c = s[i++];
		if (mark)
			fputc(c == '\t' && mark == ' ' ? '\t' : mark, d->out);
		else
			fputc(c == '\t' || (c >= 0x20 && c < 0x7f) ? c : '?', d->out);
	}
}

/* Moves `off` back to the start of the UTF-8 character it falls in. */
static int32_t char_start(const solar_diag *d, int32_t off, int32_t floor)
{
	while (off > floor && ((unsigned char)d->src[off] & 0xc0) == 0x80)
		off--;
	return off;
}

static void show_source(solar_diag *d, solar_span at)
{
	int l = line_of(d, at.off);
	int32_t ls = d->lines[l];
	int32_t le = l + 1 < d->nlines ? d->lines[l + 1] - 1 : d->len;
	if (le > ls && d->src[le - 1] == '\r')
		le--;
	int32_t start = at.off < le ? at.off : le;
	int32_t end = at.off + (at.len > 0 ? at.len : 0);
	if (end > le)
		end = le;
	if (end <= start)
		end = start;
	/* a window around the span on a long line */
	int32_t ws = ls, we = le;
	if (le - ls > LINE_WINDOW) {
		ws = start - LINE_CONTEXT > ls ? char_start(d, start - LINE_CONTEXT, ls) : ls;
		we = ws + LINE_WINDOW < le ? char_start(d, ws + LINE_WINDOW, ws) : le;
		if (we < start)
			we = start;
		if (end > we)
			end = we;
	}
	if (ws > ls)
		fputs("...", d->out);
	echo(d, ws, we, 0);
	if (we < le)
		fputs("...", d->out);
	fputc('\n', d->out);
	if (ws > ls)
		fputs("   ", d->out);
	echo(d, ws, start, ' ');
	fputc('^', d->out);
	if (end > start) {
		int k = utf8_len((const unsigned char *)d->src + start, end - start);
		echo(d, start + (k > 0 ? k : 1), end, '~');
	}
	fputc('\n', d->out);
}

/* The stream that takes JSON lines (solar_diag_set_json), or NULL: a process has one standard
 * error, and one reader of it. */
static FILE *json_stream;

static bool json_lines(FILE *out) { return out && out == json_stream; }

void solar_diag_set_json(solar_diag *d, bool on)
{
	FILE *out = solar_diag_stream(d);
	if (on)
		json_stream = out;
	else if (json_stream == out)
		json_stream = NULL;
}

/* What a message is about, the parts both formats write. */
typedef struct {
	const char *kind; /* "error", "warning", "note"; NULL: a hint line */
	const char *file; /* NULL: about no file (the command's own) */
	int line, col;    /* 0: no place in the file */
	const char *path; /* a JSON path of the file ("": the whole file), or NULL */
} where;

/*   solar: MESSAGE  /  solar: warning: MESSAGE  (no file; an error has no word)
 *   FILE:LINE:COL: KIND: MESSAGE  /  FILE: PATH: MESSAGE  /  FILE: KIND: MESSAGE */
static void text_prefix(FILE *out, const where *w)
{
	if (!w->kind)
		return;
	if (!w->file)
		fprintf(out, "solar: %s%s", strcmp(w->kind, "error") ? w->kind : "",
			strcmp(w->kind, "error") ? ": " : "");
	else if (w->line > 0)
		fprintf(out, "%s:%d:%d: %s: ", w->file, w->line, w->col, w->kind);
	else if (w->path && *w->path)
		fprintf(out, "%s: %s: ", w->file, w->path);
	else if (w->path)
		fprintf(out, "%s: ", w->file);
	else
		fprintf(out, "%s: %s: ", w->file, w->kind);
}

/* s as a JSON string: quotes, backslashes and control bytes escaped, a byte that is not UTF-8
 * text replaced by U+FFFD.  Byte by byte, allocating nothing (the fatal error writes through
 * it). */
static void json_string(FILE *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	int32_t n = (int32_t)strlen(s);
	fputc('"', out);
	for (int32_t i = 0; i < n;) {
		int k = utf8_len(u + i, n - i);
		if (k > 0) {
			fwrite(u + i, 1, (size_t)k, out);
			i += k;
			continue;
		}
		unsigned char c = u[i++];
		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
		} else if (c == '\n') {
			fputs("\\n", out);
		} else if (c == '\t') {
			fputs("\\t", out);
		} else if (c < 0x20 || c == 0x7f) {
			fputs("\\u00", out);
			fputc(hex[c >> 4], out);
			fputc(hex[c & 15], out);
		} else if (c >= 0x80) {
			fputs("\\ufffd", out);
		} else {
			fputc(c, out);
		}
	}
	fputc('"', out);
}

static void json_int(FILE *out, const char *key, int v)
{
	char digits[16];
	int k = 0;
	unsigned u = v < 0 ? 0u : (unsigned)v;
	do
		digits[k++] = (char)('0' + u % 10);
	while ((u /= 10) && k < (int)sizeof digits);
	fprintf(out, ",\"%s\":", key);
	while (k)
		fputc(digits[--k], out);
}

/* {"severity", "file", "line", "col", "path", "message"}: the fields a message has. */
static void json_object(FILE *out, const where *w, const char *message)
{
	fputs("{\"severity\":", out);
	json_string(out, w->kind ? w->kind : "note");
	if (w->file) {
		fputs(",\"file\":", out);
		json_string(out, w->file);
	}
	if (w->line > 0) {
		json_int(out, "line", w->line);
		json_int(out, "col", w->col);
	}
	if (w->path && *w->path) {
		fputs(",\"path\":", out);
		json_string(out, w->path);
	}
	fputs(",\"message\":", out);
	json_string(out, message);
	fputs("}\n", out);
}

/* Writes one message, in the format of its stream: the one writer of every spelling. */
static void emit(FILE *out, const where *w, const char *fmt, va_list ap)
{
	if (!json_lines(out)) {
		text_prefix(out, w);
		vfprintf(out, fmt, ap);
		fputc('\n', out);
		return;
	}
	char buf[1024], *msg = buf;
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	if (n >= (int)sizeof buf) {
		msg = solar_xmalloc((size_t)n + 1);
		vsnprintf(msg, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	json_object(out, w, n < 0 ? "" : msg);
	if (msg != buf)
		free(msg);
}

static void say(FILE *out, const where *w, const char *fmt, ...) SOLAR_PRINTF(3, 4);
static void say(FILE *out, const where *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(out, w, fmt, ap);
	va_end(ap);
}

void solar_diag_fatal(int status, const char *message)
{
	where w = {"error", NULL, 0, 0, NULL};
	if (json_lines(stderr)) {
		json_object(stderr, &w, message);
	} else {
		text_prefix(stderr, &w);
		fputs(message, stderr);
		fputc('\n', stderr);
	}
	exit(status);
}

/* Counts a diagnostic of `kind` ("error", "warning", "note"); true when it is to be printed. */
static bool count(solar_diag *d, const char *kind)
{
	if (!d)
		return false;
	if (!strcmp(kind, "note"))
		return d->last_shown && d->out;
	bool error = !strcmp(kind, "error");
	for (solar_diag *p = d->parent; p; p = p->parent)
		*(error ? &p->errors : &p->warnings) += 1;
	int n = error ? ++d->errors : ++d->warnings;
	d->last_shown = n <= SOLAR_DIAG_MAX_ERRORS;
	if (!d->last_shown)
		*(error ? &d->dropped_errors : &d->dropped_warnings) += 1;
	return d->last_shown && d->out;
}

void solar_diag_verror(solar_diag *d, const char *kind, solar_span at, const char *fmt, va_list ap)
{
	if (!count(d, kind))
		return;
	where w = {kind, d->file, 0, 0, NULL};
	if (at.off >= 0) {
		if (at.off > d->len)
			at.off = d->len;
		solar_diag_locate(d, at.off, &w.line, &w.col);
	}
	emit(d->out, &w, fmt, ap);
	if (at.off >= 0 && !json_lines(d->out))
		show_source(d, at);
}

void solar_diag_error(solar_diag *d, solar_span at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_verror(d, "error", at, fmt, ap);
	va_end(ap);
}

void solar_diag_warning(solar_diag *d, solar_span at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_verror(d, "warning", at, fmt, ap);
	va_end(ap);
}

void solar_diag_note(solar_diag *d, solar_span at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_verror(d, "note", at, fmt, ap);
	va_end(ap);
}

void solar_diag_error_nowhere(solar_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_verror(d, "error", (solar_span){-1, 0}, fmt, ap);
	va_end(ap);
}

void solar_diag_vpath_error(solar_diag *d, const char *path, const char *fmt, va_list ap)
{
	if (!count(d, "error"))
		return;
	emit(d->out, &(where){"error", d->file, 0, 0, path ? path : ""}, fmt, ap);
}

void solar_diag_path_error(solar_diag *d, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_vpath_error(d, path, fmt, ap);
	va_end(ap);
}

void solar_diag_vtool(solar_diag *d, const char *kind, const char *fmt, va_list ap)
{
	if (!count(d, kind))
		return;
	emit(d->out, &(where){kind, NULL, 0, 0, NULL}, fmt, ap);
}

void solar_diag_file_warning(solar_diag *d, const char *file, const char *fmt, ...)
{
	if (!count(d, "warning"))
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(d->out, &(where){"warning", file, 0, 0, NULL}, fmt, ap);
	va_end(ap);
}

void solar_diag_vpath_error_in(solar_diag *d, const char *file, const char *path, const char *fmt,
			       va_list ap)
{
	solar_diag *f = solar_diag_new_file(d, file, NULL, 0);
	solar_diag_vpath_error(f, path, fmt, ap);
	solar_diag_free(f);
}

void solar_diag_path_error_in(solar_diag *d, const char *file, const char *path, const char *fmt,
			      ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_vpath_error_in(d, file, path, fmt, ap);
	va_end(ap);
}

void solar_diag_tool_error(solar_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_vtool(d, "error", fmt, ap);
	va_end(ap);
}

void solar_diag_tool_warning(solar_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_vtool(d, "warning", fmt, ap);
	va_end(ap);
}

void solar_diag_tool_note(solar_diag *d, const char *fmt, ...)
{
	if (!d || !d->out)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(d->out, &(where){"note", NULL, 0, 0, NULL}, fmt, ap);
	va_end(ap);
}

void solar_diag_hint(solar_diag *d, const char *fmt, ...)
{
	if (!count(d, "note"))
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(d->out, &(where){NULL, NULL, 0, 0, NULL}, fmt, ap);
	va_end(ap);
}

solar_diag *solar_diag_new_tool(FILE *out)
{
	solar_diag *d = solar_diag_new("solar", NULL, 0, out);
	d->tool = true;
	return d;
}

int solar_diag_errors(const solar_diag *d) { return d ? d->errors : 0; }

int solar_diag_warnings(const solar_diag *d) { return d ? d->warnings : 0; }

int solar_diag_full(const solar_diag *d) { return d && d->errors >= SOLAR_DIAG_MAX_ERRORS; }

void solar_diag_finish(solar_diag *d)
{
	if (!d)
		return;
	where w = {"note", d->tool ? NULL : d->file, 0, 0, NULL};
	if (d->out && d->dropped_errors)
		say(d->out, &w, "too many errors; %d more not shown", d->dropped_errors);
	if (d->out && d->dropped_warnings)
		say(d->out, &w, "too many warnings; %d more not shown", d->dropped_warnings);
	d->dropped_errors = d->dropped_warnings = 0;
}
