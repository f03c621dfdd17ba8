/* pool.c - a pool of candidate kernels for `solar triage`, and their AIR.
 *
 * A pool is a folder holding the reference (ref.air or ref.py) and the candidates (cand_*.air,
 * cand_*.py; a cand_x.py beside a cand_x.air is one candidate, measured as the .py and bounded
 * with the .air, which describes its own structure), or a JSON manifest naming them
 * (docs/triage.md#pools).  A .py without an .air is translated with `solar translate
 * --no-validate`, once per content: the AIR is cached under the cache folder by a hash of the
 * file's bytes and of solar's version, and so is a failure (exit 1: the translator cannot read
 * it), so repeated triage runs translate nothing.  A candidate without AIR (Triton, custom
 * CUDA, a failed translation) stays in the pool: it is ranked with the problem's bounds.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag/file.h"
#include "frontend/frontend.h"
#include "devices/json.h"
#include "search/triage.h"
#include "validate/validate.h"

#define TRANSLATE_TIMEOUT_S 600
#define STR_(x) #x
#define STR(x) STR_(x)

static bool exists(const char *path)
{
	return access(path, R_OK) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static char *join(const char *dir, const char *name)
{
	if (name[0] == '/' || !dir[0])
		return solar_xstrdup(name);
	size_t n = strlen(dir) + strlen(name) + 2;
	char *s = solar_xmalloc(n);
	if (s)
		snprintf(s, n, "%s/%s", dir, name);
	return s;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

#define FNV_BASIS 1469598103934665603ull

/* FNV-1a, 64 bits, of the file's bytes and solar's version: the cache key. */
static int content_hash(const char *file, char out[17])
{
	int32_t len;
	char *text = solar_read_file(file, &len, NULL); /* the callers say why */
	if (!text)
		return -1;
	uint64_t h = fnv1a(FNV_BASIS, text, (size_t)len);
	h = fnv1a(h, "solar " SOLAR_VERSION, strlen("solar " SOLAR_VERSION));
	free(text);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A hash of the translator's Python sources (translate/run.py and translate/solar_translate/
 * *.py, found as `solar translate` finds them: beside the executable or in the source tree),
 * so a translation cached by an older translator is not reused.  0 when none is found. */
static uint64_t translator_hash(const char *exe)
{
	char dir[4096], up[4200], path[4400];
	snprintf(dir, sizeof dir, "%s", exe);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	snprintf(up, sizeof up, "%s/..", dir);
	const char *roots[] = {up, dir, SOLAR_SOURCE_DIR};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/translate/run.py", roots[i]);
		if (access(path, R_OK))
			continue;
		uint64_t h = FNV_BASIS;
		char pkg[4400];
		snprintf(pkg, sizeof pkg, "%s/translate/solar_translate", roots[i]);
		DIR *d = opendir(pkg);
		char *names[256];
		int n = 0;
		for (struct dirent *e; d && n < 256 && (e = readdir(d));)
			if (ends_with(e->d_name, ".py"))
				names[n++] = solar_xstrdup(e->d_name);
		if (d)
			closedir(d);
		qsort(names, (size_t)n, sizeof *names, cmp_name);
		for (int k = -1; k < n; k++) {
			char f[4700];
			if (k < 0)
				snprintf(f, sizeof f, "%s", path);
			else
				snprintf(f, sizeof f, "%s/%s", pkg, names[k]);
			int32_t len;
			char *text = solar_read_file(
			    f, &len, NULL); /* a file that is not there is skipped */
			if (text)
				h = fnv1a(h, text, (size_t)len);
			free(text);
			if (k >= 0)
				free(names[k]);
		}
		return h;
	}
	return 0;
}

static int mkdir_p(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *s = buf + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* The last non-empty line of a log file, for a note. */
static char *last_line(const char *log)
{
	int32_t len;
	char *text = solar_read_file(log, &len, NULL);
	if (!text)
		return solar_xstrdup("no output");
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	char *nl = strrchr(text, '\n');
	char *s = solar_xstrdup(nl ? nl + 1 : text);
	free(text);
	if (s && strlen(s) > 200)
		strcpy(s + 197, "...");
	return s;
}

/* Files the exporter does not read: no point in starting Python for them. */
static const char *opaque_reason(const char *file)
{
	int32_t len;
	char *text = solar_read_file(file, &len, NULL); /* the translator says why it cannot */
	if (!text)
		return NULL;
	const char *why = strstr(text, "import triton")         ? "a Triton kernel"
			  : strstr(text, "load_inline")         ? "a custom CUDA extension"
			  : strstr(text, "cpp_extension")       ? "a custom CUDA extension"
			  : NULL;
	free(text);
	return why;
}

/* Translates a .py into the cache.  Sets c->air on success, else c->note; c->source. */
static void translate(solar_triage_cand *c, const char *exe, const char *cache, solar_diag *diag)
{
	c->source = SOLAR_CAND_OPAQUE;
	const char *why = opaque_reason(c->file);
	char note[512];
	if (why) {
		snprintf(note, sizeof note, "%s: not translated; ranked with the problem's bounds",
			 why);
		c->note = solar_xstrdup(note);
		return;
	}
	char hash[17];
	static uint64_t th;
	static bool th_known;
	if (!th_known) {
		th = translator_hash(exe);
		th_known = true;
	}
	if (content_hash(c->file, hash) < 0 || mkdir_p(cache) < 0) {
		snprintf(note, sizeof note, "cannot use the translation cache %s: %s", cache,
			 strerror(errno));
		c->note = solar_xstrdup(note);
		return;
	}
	/* the key: the file's bytes, solar's version and the translator's sources */
	uint64_t key = fnv1a(strtoull(hash, NULL, 16), (const char *)&th, sizeof th);
	snprintf(hash, sizeof hash, "%016llx", (unsigned long long)key);
	char air[4200], fail[4200], tmp[4200], log[4200];
	snprintf(air, sizeof air, "%s/%s.air", cache, hash);
	snprintf(fail, sizeof fail, "%s/%s.fail", cache, hash);
	snprintf(tmp, sizeof tmp, "%s/%s.%d.tmp.air", cache, hash, (int)getpid());
	snprintf(log, sizeof log, "%s/%s.%d.log", cache, hash, (int)getpid());
	if (exists(air)) {
		c->air = solar_xstrdup(air);
		c->source = SOLAR_CAND_TRANSLATED;
		return;
	}
	if (exists(fail)) {
		char *l = last_line(fail);
		snprintf(note, sizeof note, "not translatable (cached): %s", l ? l : "");
		free(l);
		c->note = solar_xstrdup(note);
		return;
	}
	fflush(NULL);
	/* the translator's own limit, per file, in place of ours (paused meanwhile); the launcher's
	 * deadline, a little later, only if that solar translate itself hangs */
	static const char *const limit[] = {"SOLAR_TIME_LIMIT=" STR(TRANSLATE_TIMEOUT_S), NULL};
	char *argv[] = {(char *)exe, "translate", c->file, "-o", tmp, "--no-validate", NULL};
	solar_proc_temp(tmp, false); /* a signal now removes them, after the translator */
	solar_proc_temp(log, false);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	solar_proc pr;
	int ran = fd < 0 ? -1
			 : solar_proc_run(argv,
					  &(solar_proc_how){.out_fd = fd,
							    .err_fd = fd,
							    .timeout_s = TRANSLATE_TIMEOUT_S + 10,
							    .own_limit = true,
							    .env = limit},
					  &pr);
	if (fd >= 0)
		close(fd);
	if (ran < 0) {
		snprintf(note, sizeof note, "cannot run the translator: %s", strerror(errno));
		c->note = solar_xstrdup(note);
		unlink(log);
		solar_proc_temp_done(tmp);
		solar_proc_temp_done(log);
		return;
	}
	int rc = pr.status >= 128 ? -1 : pr.status; /* -1: ended by a signal */
	if (rc == 0 && exists(tmp) && rename(tmp, air) == 0) {
		c->air = solar_xstrdup(air);
		c->source = SOLAR_CAND_TRANSLATED;
	} else if (rc == 1) { /* the translator read it and cannot translate it: cache that */
		char *l = last_line(log);
		snprintf(note, sizeof note, "not translatable: %s", l ? l : "");
		FILE *f = fopen(fail, "w");
		if (f) {
			fprintf(f, "%s\n", l ? l : "");
			fclose(f);
		}
		free(l);
		c->note = solar_xstrdup(note);
	} else { /* the environment, not the file: not cached, said once per candidate */
		char *l = last_line(log);
		snprintf(note, sizeof note, "translator failed (%s %d): %s",
			 rc < 0 ? "signal" : "exit", rc < 0 ? pr.status - 128 : rc, l ? l : "");
		free(l);
		c->note = solar_xstrdup(note);
		solar_diag_tool_warning(diag, "%s: %s", c->file, note);
	}
	unlink(tmp);
	unlink(log);
	solar_proc_temp_done(tmp);
	solar_proc_temp_done(log);
}

static void cand_init(solar_triage_cand *c, const char *file)
{
	*c = (solar_triage_cand){.name = solar_xstrdup(base_name(file)),
				 .file = solar_xstrdup(file),
				 .unfused_s = -1,
				 .fused_s = -1,
				 .cache_aware_s = -1,
				 .measured_s = -1,
				 .forecast_s = -1};
}

/* 0 when path is a regular file solar can read; else -1 after `FILE: cannot read: WHY`: a
 * FIFO named cand_x.air would block the run forever. */
static int regular(const char *path, solar_diag *diag)
{
	char why[128];
	FILE *f = solar_fopen_regular(path, why, sizeof why);
	if (!f) {
		solar_diag_tool_error(diag, "%s: cannot read: %s", path, why);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Gives c its AIR: air_file when set (its own structure), the file itself when .air, else
 * a translation.  Returns 0, or -1 after a message when a file is not a regular file. */
static int cand_air(solar_triage_cand *c, const char *air_file, bool own, const char *exe,
		    const char *cache, solar_diag *diag)
{
	if (regular(c->file, diag) < 0 || (air_file && regular(air_file, diag) < 0))
		return -1;
	if (air_file) {
		c->air = solar_xstrdup(air_file);
		c->source = SOLAR_CAND_AIR;
		c->own_structure = own;
	} else if (ends_with(c->file, ".air")) {
		c->air = solar_xstrdup(c->file);
		c->source = SOLAR_CAND_AIR;
		c->own_structure = own;
	} else {
		translate(c, exe, cache, diag);
		c->own_structure = false;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_cand(solar_pool *p)
{
	solar_triage_cand *c = solar_xrealloc(p->cand, (size_t)(p->ncand + 1) * sizeof *c);
	if (!c)
		return -1;
	p->cand = c;
	return p->ncand++;
}

/* The candidates of folder dir and, when with_ref, its reference. */
static int load_folder(const char *dir, bool with_ref, const char *exe, const char *cache,
		       solar_pool *p, solar_diag *diag)
{
	DIR *d = opendir(dir);
	if (!d) {
		solar_diag_tool_error(diag, "%s: %s", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	int n = 0, cap = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (strncmp(e->d_name, "cand_", 5) || !(ends_with(e->d_name, ".py") ||
							ends_with(e->d_name, ".air")))
			continue;
		names = solar_xgrow(names, &cap, n, sizeof *names);
		names[n++] = solar_xstrdup(e->d_name);
	}
	closedir(d);
	if (n > 1) /* qsort's base must not be NULL, even for no names */
		qsort(names, (size_t)n, sizeof *names, cmp_str);
	char *ra = join(dir, "ref.air"), *rp = join(dir, "ref.py");
	int rc = 0;
	if (!with_ref) {
		/* the manifest gave the reference */
	} else if (!exists(ra) && !exists(rp)) {
		solar_diag_tool_error(diag, "%s: no reference (ref.air or ref.py) in the pool",
				      dir);
		rc = -1;
	} else {
		cand_init(&p->ref, exists(rp) ? rp : ra);
		rc = cand_air(&p->ref, exists(ra) ? ra : NULL, true, exe, cache, diag);
	}
	for (int i = 0; i < n && rc == 0; i++) {
		size_t l = strlen(names[i]);
		bool air = ends_with(names[i], ".air");
		char stem[1024];
		snprintf(stem, sizeof stem, "%.*s", (int)(l - (air ? 4 : 3)), names[i]);
		char py[1100];
		snprintf(py, sizeof py, "%s.py", stem);
		/* cand_x.air beside cand_x.py: one candidate, the .py with the .air's structure */
		if (air && bsearch(&(const char *){py}, names, (size_t)n, sizeof *names, cmp_str))
			continue;
		char airname[1100];
		snprintf(airname, sizeof airname, "%s.air", stem);
		bool paired = !air && bsearch(&(const char *){airname}, names, (size_t)n,
					      sizeof *names, cmp_str);
		int k = add_cand(p);
		if (k < 0) {
			rc = -1;
			break;
		}
		char *file = join(dir, names[i]), *af = paired ? join(dir, airname) : NULL;
		cand_init(&p->cand[k], file);
		rc = cand_air(&p->cand[k], af, true, exe, cache, diag);
		free(file);
		free(af);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(ra);
	free(rp);
	return rc;
}

static const char *jstr(cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* {"reference": "ref.py", "reference_air": "ref.air", "op_class": "gemm",
 *  "candidates_folder": "DIR" (its cand_* files, as a folder pool's), and/or
 *  "candidates": ["cand_a.py", {"file":
 *  "cand_b.py", "air": "cand_b.air", "structure": "own"|"not-own", "correct": false,
 *  "translate": false}]}; paths relative to the manifest's folder. */
static int load_manifest(const char *file, const char *exe, const char *cache, solar_pool *p,
			 solar_diag *diag)
{
	int32_t len;
	char *text = solar_read_file(file, &len, diag);
	if (!text)
		return -1;
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithOpts(text, &end, true);
	solar_diag *jd = solar_diag_new_file(diag, file, text, len);
	if (!j) /* `FILE:LINE:COL: error: invalid JSON`, the line and a caret */
		solar_diag_error(jd, (solar_span){end ? (int32_t)(end - text) : 0, 0},
				 "invalid JSON");
	else if (solar_json_check(j, -1, jd)) { /* a key twice, a number past a double */
		cJSON_Delete(j);
		j = NULL;
	}
	solar_diag_free(jd);
	if (!j) {
		free(text);
		return -1;
	}
	free(text);
	int rc = -1;
	cJSON *cands = cJSON_GetObjectItemCaseSensitive(j, "candidates");
	const char *ref = jstr(j, "reference");
	if (!cJSON_IsObject(j)) {
		solar_diag_path_error_in(diag, file, NULL,
					 "expected a JSON object {\"reference\": FILE, "
					 "\"candidates\": [...]}");
		goto out;
	}
	if (!ref) {
		solar_diag_path_error_in(diag, file, "reference",
					 "expected the reference's file (ref.py or ref.air)");
		goto out;
	}
	const char *cfolder = jstr(j, "candidates_folder");
	if (!cJSON_IsArray(cands) && !(cfolder && !cands)) {
		solar_diag_path_error_in(diag, file, "candidates",
					 "expected an array of files or objects (or "
					 "\"candidates_folder\": DIR)");
		goto out;
	}
	const char *cls = jstr(j, "op_class");
	p->op_class = cls ? solar_xstrdup(cls) : NULL;
	char *rf = join(p->dir, ref);
	if (!exists(rf)) {
		solar_diag_path_error_in(diag, file, "reference", "cannot read %s", rf);
		free(rf);
		goto out;
	}
	const char *rair = jstr(j, "reference_air");
	char *ra = rair ? join(p->dir, rair) : NULL;
	if (ra && !exists(ra)) {
		solar_diag_path_error_in(diag, file, "reference_air", "cannot read %s", ra);
		free(rf);
		free(ra);
		goto out;
	}
	cand_init(&p->ref, rf);
	rc = cand_air(&p->ref, ra, true, exe, cache, diag);
	free(rf);
	free(ra);
	if (rc < 0)
		goto out;
	if (cfolder) {
		char *cd = join(p->dir, cfolder);
		rc = load_folder(cd, false, exe, cache, p, diag);
		free(cd);
	}
	int i = 0;
	cJSON *c;
	cJSON_ArrayForEach(c, cands)
	{
		const char *f = cJSON_IsString(c) ? c->valuestring : jstr(c, "file");
		const char *air = cJSON_IsObject(c) ? jstr(c, "air") : NULL;
		const char *st = cJSON_IsObject(c) ? jstr(c, "structure") : NULL;
		cJSON *ok = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "correct") : NULL;
		cJSON *tr = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "translate") : NULL;
		char *path = f ? join(p->dir, f) : NULL, *ap = air ? join(p->dir, air) : NULL;
		if (!f || !exists(path) || (ap && !exists(ap)) ||
		    (st && strcmp(st, "own") && strcmp(st, "not-own"))) {
			char at[32];
			snprintf(at, sizeof at, "candidates[%d]", i);
			solar_diag_path_error_in(
			    diag, file, at, "%s",
			    !f			? "expected a file name or {\"file\": ...}"
			    : !exists(path)	? "cannot read the file"
			    : ap && !exists(ap) ? "air: cannot read the file"
						: "structure: expected \"own\" or \"not-own\"");
			rc = -1;
		} else {
			int k = add_cand(p);
			if (k < 0) {
				rc = -1;
			} else {
				solar_triage_cand *x = &p->cand[k];
				cand_init(x, path);
				bool own = !st || !strcmp(st, "own");
				if (cJSON_IsFalse(tr) && !ap && !ends_with(path, ".air")) {
					x->source = SOLAR_CAND_OPAQUE;
					x->note = solar_xstrdup(
					    "not translated (manifest: \"translate\": "
					    "false); ranked with the problem's bounds");
				} else if (cand_air(x, ap, own, exe, cache, diag) < 0) {
					rc = -1;
				}
				if (cJSON_IsFalse(ok)) {
					x->wrong = true;
					x->wrong_why = solar_xstrdup(
					    "marked \"correct\": false in the manifest");
				}
				const char *oc = jstr(c, "op_class");
				x->op_class = oc ? solar_xstrdup(oc) : NULL;
			}
		}
		free(path);
		free(ap);
		i++;
	}
out:
	cJSON_Delete(j);
	return rc;
}

int solar_pool_load(const char *path, const char *exe, const char *cache, solar_pool *p,
		    solar_diag *diag)
{
	*p = (solar_pool){.coverage = 0.8, .incumbent_s = -1, .ref_measured_s = -1};
	struct stat st;
	if (stat(path, &st) < 0) {
		solar_diag_tool_error(diag, "%s: %s", path, strerror(errno));
		return -1;
	}
	bool dir = S_ISDIR(st.st_mode);
	char *copy = solar_xstrdup(path);
	size_t n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	if (dir) {
		p->dir = solar_xstrdup(copy);
	} else {
		char *slash = strrchr(copy, '/');
		p->dir = slash ? solar_xstrndup(copy, (size_t)(slash - copy)) : solar_xstrdup(".");
	}
	p->name =
	    solar_xstrdup(base_name(dir ? p->dir : path)); /* a manifest: its name, less .json */
	if (!dir && ends_with(p->name, ".json"))
		p->name[strlen(p->name) - 5] = '\0';
	if (!strcmp(p->name, ".")) { /* "." names the current folder */
		char cwd[4096];
		if (getcwd(cwd, sizeof cwd)) {
			free(p->name);
			p->name = solar_xstrdup(base_name(cwd));
		}
	}
	free(copy);
	return dir ? load_folder(p->dir, true, exe, cache, p, diag)
		   : load_manifest(path, exe, cache, p, diag);
}

static void cand_free(solar_triage_cand *c)
{
	free(c->name);
	free(c->file);
	free(c->air);
	free(c->note);
	free(c->op_class);
	free(c->wrong_why);
}

void solar_pool_free(solar_pool *p)
{
	cand_free(&p->ref);
	for (int i = 0; i < p->ncand; i++)
		cand_free(&p->cand[i]);
	free(p->cand);
	free(p->plan);
	free(p->dir);
	free(p->name);
	free(p->op_class);
}

/* The bounds of one AIR file, from the cache when it has them: the key is the AIR's bytes,
 * the device as solar resolved it (its JSON, base applied), the L2 state and solar's build,
 * so a cached line is the number solar would compute. */
static int cached_bounds(const char *air, const solar_question *question, uint64_t dev_hash,
			 const char *cache, solar_triage_cand *c, solar_diag *diag)
{
	char key[17], path[4200];
	path[0] = '\0';
	if (cache && content_hash(air, key) == 0) {
		uint64_t h = fnv1a(strtoull(key, NULL, 16), (const char *)&dev_hash, sizeof dev_hash);
		h = fnv1a(h, solar_l2_name(question->l2_cold), 4);
		snprintf(path, sizeof path, "%s/%016llx.bounds", cache, (unsigned long long)h);
		FILE *f = fopen(path, "r");
		if (f) {
			int n = fscanf(f, "%lg %lg %lg %47s", &c->unfused_s, &c->fused_s,
				       &c->cache_aware_s, c->limiter);
			fclose(f);
			if (n == 4) {
				if (!strcmp(c->limiter, "-"))
					c->limiter[0] = '\0';
				return 0;
			}
		}
	}
	if (solar_search_bounds(air, question, &c->unfused_s, &c->fused_s, &c->cache_aware_s,
				c->limiter, sizeof c->limiter, diag) < 0)
		return -1;
	if (path[0] && mkdir_p(cache) == 0) { /* whole or not at all: a temporary, renamed */
		char tmp[4300];
		snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
		FILE *f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%.17g %.17g %.17g %s\n", c->unfused_s, c->fused_s,
				c->cache_aware_s, c->limiter[0] ? c->limiter : "-");
			if (fclose(f) == 0)
				rename(tmp, path);
			unlink(tmp);
		}
	}
	return 0;
}

/* The running executable's bytes: bounds cached by another build of solar (another analysis)
 * are not reused. */
static uint64_t exe_hash(void)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	uint64_t h = FNV_BASIS;
	char buf[1 << 16];
	size_t n;
	while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
		h = fnv1a(h, buf, n);
	if (f)
		fclose(f);
	return h;
}

static uint64_t device_hash(const solar_device *dev)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	uint64_t h = exe_hash();
	if (m) {
		solar_device_write_json(dev, m);
		fclose(m);
		h = fnv1a(h, buf, n);
	}
	free(buf);
	return h;
}

int solar_pool_bounds(solar_pool *p, const solar_question *question, const char *cache,
		      solar_diag *diag)
{
	if (!p->ref.air) {
		solar_diag_tool_error(
		    diag,
		    "%s: the reference has no AIR (%s): triage needs the problem's "
		    "bounds; give ref.air or a ref.py that `solar translate` reads",
		    p->ref.file, p->ref.note ? p->ref.note : "none");
		return -1;
	}
	uint64_t dh = device_hash(question->device);
	if (cached_bounds(p->ref.air, question, dh, cache, &p->ref, diag) < 0)
		return -1;
	for (int i = 0; i < p->ncand; i++) {
		solar_triage_cand *c = &p->cand[i];
		if (!c->air)
			continue;
		if (cached_bounds(c->air, question, dh, cache, c, diag) < 0) {
			char note[300];
			snprintf(note, sizeof note, "its AIR %s has errors (above); ranked with the "
						    "problem's bounds",
				 c->air);
			free(c->note);
			c->note = solar_xstrdup(note);
			free(c->air);
			c->air = NULL;
			c->source = SOLAR_CAND_OPAQUE;
			c->own_structure = false;
			c->unfused_s = c->fused_s = c->cache_aware_s = -1;
		}
	}
	return 0;
}

double solar_triage_lower_bound(const char *candidate, const solar_question *question,
				const char *cache, const char **bound_name)
{
	char *slash = strrchr(candidate, '/');
	char *dir = slash ? solar_xstrndup(candidate, (size_t)(slash - candidate)) : solar_xstrdup(".");
	char *ref = join(dir, "ref.air"), *own = NULL;
	size_t n = strlen(candidate);
	if (ends_with(candidate, ".air"))
		own = solar_xstrdup(candidate);
	else if (ends_with(candidate, ".py")) { /* cand_x.py bounded by cand_x.air beside it */
		own = solar_xmalloc(n + 2);
		snprintf(own, n + 2, "%.*s.air", (int)(n - 3), candidate);
	}
	uint64_t dh = device_hash(question->device);
	double bound = -1;
	solar_triage_cand c;
	char why[128];
	FILE *f;
	if ((f = solar_fopen_regular(ref, why, sizeof why))) {
		fclose(f);
		cand_init(&c, ref);
		if (cached_bounds(ref, question, dh, cache, &c, NULL) == 0) {
			bound = fmax(c.fused_s, c.cache_aware_s);
			*bound_name = "the problem's cache-aware bound";
		}
		cand_free(&c);
	}
	if (own && (f = solar_fopen_regular(own, why, sizeof why))) {
		fclose(f);
		cand_init(&c, own);
		if (cached_bounds(own, question, dh, cache, &c, NULL) == 0 && c.unfused_s > bound) {
			bound = c.unfused_s;
			*bound_name = "its own unfused bound";
		}
		cand_free(&c);
	}
	free(own);
	free(ref);
	free(dir);
	return bound;
}

int solar_pool_load_others(const solar_history *h, const solar_pool *cur, const char *exe,
			   const char *cache, const solar_question *question, solar_pool **out)
{
	char *cur_real = realpath(cur->dir, NULL);
	char **seen = solar_xcalloc((size_t)h->n + 1, sizeof *seen);
	int nseen = 0, n = 0;
	solar_pool *pools = solar_xcalloc((size_t)h->n + 2, sizeof *pools);
	solar_diag *quiet = NULL; /* a pool that does not load is left out, silently */
	for (int i = 0; i < h->n; i++) {
		char *dir = solar_xstrdup(h->e[i].candidate);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		char *real = slash ? realpath(dir, NULL) : NULL;
		free(dir);
		bool skip = !real || (cur_real && !strcmp(real, cur_real));
		for (int k = 0; k < nseen && !skip; k++)
			skip = !strcmp(seen[k], real);
		if (skip) {
			free(real);
			continue;
		}
		seen[nseen++] = real;
		struct stat st;
		if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		solar_pool q;
		if (solar_pool_load(real, exe, cache, &q, quiet) == 0 &&
		    solar_pool_bounds(&q, question, cache, quiet) == 0)
			pools[n++] = q;
		else
			solar_pool_free(&q);
	}
	for (int k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
	free(cur_real);
	*out = pools;
	return n;
}

