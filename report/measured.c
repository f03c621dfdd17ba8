/* measured.c - measured times of a program, in every form solar reads them.
 *
 * One reader for `solar analyze --measured FILE` and the `measured` of a report manifest
 * (docs/report.md, "Measured times"): a JSON file of plain times {"total": T, "kernels":
 * {NAME: T}} (T in seconds or a string with a unit, "341us"), a `solar validate --json` result
 * (the reference's time, and whether it passed), or an Nsight Compute CSV export of kernel
 * durations (the sum of the rows over the forward passes it covers, per kernel where the rows
 * can be matched to the program's kernels).  Errors name the file and the place in it
 * (`t.json: kernels.x: no kernel of that name`, `k.csv: line 4: ...`).
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/detail.h"
#include "devices/json.h"
#include "frontend/frontend.h"
#include "report/measured.h"

typedef struct {
	solar_diag *diag;
	bool error;
} reader;

static void fail(reader *c, const char *file, const char *path, const char *fmt, ...)
	SOLAR_PRINTF(4, 5);
static void fail(reader *c, const char *file, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	solar_diag_vpath_error_in(c->diag, file, path, fmt, ap);
	va_end(ap);
	c->error = true;
}

cJSON *solar_report_parse_json(const char *file, solar_diag *diag)
{
	int32_t len;
	char *text = solar_read_file(file, &len, diag);
	if (!text)
		return NULL;
	solar_diag *d = solar_diag_new_file(diag, file, text, len);
	cJSON *j = solar_json_parse(text, (size_t)len, d); /* syntax, duplicate keys, 1e400 */
	solar_diag_free(d);
	free(text);
	return j;
}


static cJSON *parse(reader *c, const char *file)
{
	cJSON *j = solar_report_parse_json(file, c->diag);
	c->error |= !j;
	return j;
}

/* The reference time of a `solar validate --json` result (docs/report.md lists the keys). */
static double validate_time(reader *c, const char *file, const cJSON *j, bool *failed)
{
	static const char *const keys[][2] = {{"reference", "time_s"},	  {"reference", "median_s"},
					      {"reference", "measured_s"}, {"reference_time_s", NULL},
					      {"measured_s", NULL},	   {"time_s", NULL}};
	double t = -1;
	for (size_t i = 0; i < sizeof keys / sizeof *keys && t < 0; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, keys[i][0]);
		if (v && keys[i][1])
			v = cJSON_GetObjectItemCaseSensitive(v, keys[i][1]);
		if (cJSON_IsNumber(v) && v->valuedouble > 0)
			t = v->valuedouble;
		else if (cJSON_IsString(v))
			t = solar_quantity_parse_time(v->valuestring);
	}
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "status");
	const cJSON *pass = cJSON_GetObjectItemCaseSensitive(j, "pass");
	*failed = (cJSON_IsString(st) && !strcasecmp(st->valuestring, "fail")) || cJSON_IsFalse(pass);
	if (t <= 0)
		fail(c, file, "reference.time_s", "no reference time (expected a positive "
							 "reference.time_s, reference.median_s or "
							 "measured_s)");
	return t;
}

/* One CSV record (RFC 4180 quoting) from *p; fields point into a copy owned by the caller.
 * *open_quote is set when the text ends inside a quoted cell (a truncated file); *lines
 * counts the newlines consumed (quoted ones too), for line numbers in messages. */
static int csv_record(char **p, char **field, int max, bool *open_quote, int *lines)
{
	int n = 0;
	char *s = *p;
	if (!*s)
		return -1;
	for (;;) {
		char *out = s, *start = s;
		if (*s == '"') {
			s++;
			for (;;) {
				if (!*s) {
					*open_quote = true;
					break;
				}
				if (*s == '"' && s[1] == '"') {
					*out++ = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					*lines += *s == '\n';
					*out++ = *s++;
				}
			}
			while (*s && *s != ',' && *s != '\n' && *s != '\r')
				s++;
		} else {
			while (*s && *s != ',' && *s != '\n' && *s != '\r')
				out = ++s;
			out = s;
		}
		char sep = *s;
		*out = '\0';
		if (n < max)
			field[n++] = start;
		if (sep == ',') {
			s++;
			continue;
		}
		if (sep == '\r' || sep == '\n') { /* *s may be the '\0' just written */
			s++;
			if (sep == '\r' && *s == '\n')
				s++;
			++*lines;
		}
		break;
	}
	*p = s;
	return n;
}

/* A duration cell: "12,345.6" (thousands separators dropped); -1 if not a number. */
static double csv_number(const char *s)
{
	char buf[64];
	size_t n = 0;
	for (; *s && n + 1 < sizeof buf; s++)
		if (*s != ',' && *s != ' ')
			buf[n++] = *s;
	buf[n] = '\0';
	char *end;
	double v = strtod(buf, &end);
	return n && !*end && isfinite(v) && v >= 0 ? v : -1;
}

static double unit_scale(const char *u)
{
	static const struct {
		const char *name;
		double s;
	} t[] = {{"nsecond", 1e-9}, {"ns", 1e-9},     {"usecond", 1e-6}, {"us", 1e-6},
		 {"msecond", 1e-3}, {"ms", 1e-3},     {"second", 1},	  {"s", 1}};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(u, t[i].name))
			return t[i].s;
	return -1;
}

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return false;
}

/* Kernel durations from `ncu --csv --page raw --metrics gpu__time_duration.sum` (docs/report.md,
 * "Nsight Compute") of `runs` forward passes: the measured time is the sum of all rows / runs
 * (the original may launch kernels the AIR does not have: transposes, memsets); rows are
 * matched to AIR kernels by name when each AIR kernel is named exactly `runs` times, else by
 * launch order when there are exactly runs x kernels rows, else per-kernel times are unknown. */
static double ncu_times(reader *c, const char *file, int runs, const char *const *names,
			int nkernels, double *kernel_s)
{
	int32_t len;
	char *text = solar_read_file(file, &len, c->diag);
	if (!text) {
		c->error = true;
		return -1;
	}
	/* ncu may print "==PROF==" lines before the table */
	char *p = text;
	while (!strncmp(p, "==", 2) && strchr(p, '\n'))
		p = strchr(p, '\n') + 1;
	/* ncu's raw page has hundreds of columns (every device attribute): room for all */
	enum { MAX_COLS = 4096 };
	char **head = solar_xmalloc(sizeof *head * MAX_COLS),
	     **f = solar_xmalloc(sizeof *f * MAX_COLS);
	bool open_quote = false;
	int line = 0; /* lines before p */
	for (const char *q = text; q < p; q++)
		line += *q == '\n';
	int head_line = line + 1;
	int nh = csv_record(&p, head, MAX_COLS, &open_quote, &line), col_name = -1, col_time = -1,
	    col_id = -1;
	for (int i = 0; i < nh; i++) {
		if (!strcmp(head[i], "gpu__time_duration.sum"))
			col_time = i;
		else if (!strcmp(head[i], "Kernel Name") || !strcmp(head[i], "Function Name") ||
			 (col_name < 0 && !strcmp(head[i], "Name")))
			col_name = i;
		else if (!strcmp(head[i], "ID"))
			col_id = i;
	}
	double total = -1;
	if (col_time < 0 || col_name < 0) {
		char hl[32];
		snprintf(hl, sizeof hl, "line %d", head_line);
		fail(c, file, hl,
			    "expected the columns \"Kernel Name\" and \"gpu__time_duration.sum\" "
			    "(ncu --csv --page raw --metrics gpu__time_duration.sum)");
		free(head);
		free(f);
		free(text);
		return -1;
	}
	int cap = 64, nr = 0;
	double *dur = solar_xmalloc(sizeof *dur * (size_t)cap);
	char **kname = solar_xmalloc(sizeof *kname * (size_t)cap);
	double scale = 1e-9; /* gpu__time_duration is in nanoseconds unless a unit row says */
	int n;
	char where[32];
	for (;;) {
		int first = line + 1; /* the record's first line in the file */
		if ((n = csv_record(&p, f, MAX_COLS, &open_quote, &line)) < 0)
			break;
		snprintf(where, sizeof where, "line %d", first);
		if (open_quote) {
			fail(c, file, where, "the file ends inside a quoted cell (a truncated "
						    "export?)");
			goto done;
		}
		if (n == 1 && (!f[0][0] || !strncmp(f[0], "==", 2)))
			continue; /* a blank line, or ncu's "==PROF==" notes */
		if (n != nh) {
			fail(c, file, where, "%d cell%s, but the header has %d (a truncated "
						    "export?)",
				    n, n == 1 ? "" : "s", nh);
			goto done;
		}
		double v = csv_number(f[col_time]);
		if (v < 0) {
			double s = unit_scale(f[col_time]);
			if (s > 0 && nr == 0) {
				scale = s;
				continue;
			}
			fail(c, file, where, "gpu__time_duration.sum: '%s' is not a duration",
				    f[col_time]);
			goto done;
		}
		if (nr == cap) {
			cap *= 2;
			dur = solar_xrealloc(dur, sizeof *dur * (size_t)cap);
			kname = solar_xrealloc(kname, sizeof *kname * (size_t)cap);
		}
		(void)col_id; /* rows are in launch order already (ncu numbers them by ID) */
		dur[nr] = v;
		kname[nr++] = solar_xstrdup(f[col_name]);
	}
	for (int i = 0; i < nr; i++)
		dur[i] *= scale;
	if (nr == 0) {
		fail(c, file, NULL, "no kernel rows");
		goto done;
	}
	/* By name: every row names at most one AIR kernel and every AIR kernel is named. */
	int *owner = solar_xmalloc(sizeof *owner * (size_t)nr);
	int *hits = solar_xcalloc((size_t)nkernels + 1, sizeof *hits);
	bool by_name = true;
	for (int i = 0; i < nr && by_name; i++) {
		owner[i] = -1;
		for (int k = 0; k < nkernels; k++)
			if (contains_ci(kname[i], names[k])) {
				if (owner[i] >= 0)
					by_name = false;
				owner[i] = k;
			}
		if (owner[i] >= 0)
			hits[owner[i]]++;
	}
	for (int k = 0; k < nkernels && by_name; k++)
		by_name = hits[k] == runs;
	bool per_kernel = true;
	if (!by_name) {
		per_kernel = nr == runs * nkernels;
		for (int i = 0; i < nr; i++)
			owner[i] = per_kernel ? i % nkernels : -1;
		if (!per_kernel)
			solar_diag_tool_warning(
			    c->diag,
			    "%s: %d kernel rows for %d run(s) of %d AIR kernel(s), "
			    "and the AIR kernel names do not each match %d row(s): "
			    "only the total is used",
			    file, nr, runs, nkernels, runs);
	}
	total = 0;
	for (int k = 0; k < nkernels; k++)
		kernel_s[k] = per_kernel ? 0 : -1;
	for (int i = 0; i < nr; i++) {
		total += dur[i] / runs;
		if (owner[i] >= 0)
			kernel_s[owner[i]] += dur[i] / runs;
	}
	free(owner);
	free(hits);
	if (total <= 0) {
		fail(c, file, NULL, "the kernel durations add up to zero");
		total = -1;
	}
done:
	for (int i = 0; i < nr; i++)
		free(kname[i]);
	free(kname);
	free(dur);
	free(head);
	free(f);
	free(text);
	return total;
}


/* A time: a positive number of seconds, or a string with a unit ("341us"); -1 if neither. */
static double json_time(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble
	       : cJSON_IsString(v)			 ? solar_quantity_parse_time(v->valuestring)
							 : -1;
}

/* Plain times {"total": T, "kernels": {"name": T, ...}}. */
static void plain_times(reader *c, const char *file, const cJSON *j, const char *const *names,
			int nkernels, solar_measured *m)
{
	const cJSON *item;
	cJSON_ArrayForEach(item, j)
	{
		if (!strcmp(item->string, "total")) {
			m->total_s = json_time(item);
			if (m->total_s <= 0)
				fail(c, file, "total", "expected a positive time");
		} else if (!strcmp(item->string, "kernels") && cJSON_IsObject(item)) {
			const cJSON *k;
			cJSON_ArrayForEach(k, item)
			{
				int idx = -1;
				for (int i = 0; i < nkernels; i++)
					if (!strcmp(names[i], k->string))
						idx = i;
				char where[160];
				snprintf(where, sizeof where, "kernels.%s", k->string);
				double t = json_time(k);
				if (idx < 0)
					fail(c, file, where, "no kernel of that name");
				else if (t <= 0)
					fail(c, file, where, "expected a positive time");
				else
					m->kernel_s[idx] = t;
			}
		} else {
			fail(c, file, item->string, "unknown key (expected total or kernels)");
		}
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcasecmp(s + a - b, suffix);
}

int solar_measured_init(solar_measured *m, int nkernels)
{
	m->total_s = -1;
	m->validation_failed = false;
	m->form = NULL;
	m->nkernels = nkernels;
	m->kernel_s = solar_xmalloc(sizeof *m->kernel_s * (size_t)(nkernels + 1));
	if (!m->kernel_s)
		return -1;
	for (int k = 0; k < nkernels; k++)
		m->kernel_s[k] = -1;
	return 0;
}

void solar_measured_free(solar_measured *m)
{
	free(m->kernel_s);
	m->kernel_s = NULL;
}

const char *solar_measured_kind_of(const char *file, solar_measured_kind kind)
{
	if (kind == SOLAR_MEASURED_NCU || (kind == SOLAR_MEASURED_AUTO && ends_with(file, ".csv")))
		return "ncu";
	return "json";
}

int solar_measured_read(const char *file, solar_measured_kind kind, int runs,
			const char *const *names, int nkernels, solar_measured *m, solar_diag *diag)
{
	reader c = {diag, false};
	if (!strcmp(solar_measured_kind_of(file, kind), "ncu")) {
		m->form = "ncu";
		m->total_s = ncu_times(&c, file, runs < 1 ? 1 : runs, names, nkernels, m->kernel_s);
		return c.error ? -1 : 0;
	}
	cJSON *j = parse(&c, file);
	if (!j)
		return -1;
	/* plain times name a total or kernels; anything else is a validate result */
	bool plain = kind == SOLAR_MEASURED_TIMES ||
		     (kind == SOLAR_MEASURED_AUTO && cJSON_IsObject(j) &&
		      (cJSON_GetObjectItemCaseSensitive(j, "total") ||
		       cJSON_GetObjectItemCaseSensitive(j, "kernels")));
	if (!cJSON_IsObject(j) && kind == SOLAR_MEASURED_TIMES) {
		fail(&c, file, NULL,
		     "expected a JSON object {\"total\": SECONDS, \"kernels\": {NAME: SECONDS}} or "
		     "a solar validate --json result");
	} else if (plain) {
		m->form = "times";
		plain_times(&c, file, j, names, nkernels, m);
	} else {
		m->form = "validate";
		m->total_s = validate_time(&c, file, j, &m->validation_failed);
	}
	cJSON_Delete(j);
	return c.error ? -1 : 0;
}
