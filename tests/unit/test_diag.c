/* test_diag.c - the lowest module (diag/): the edit distance behind every "did you mean" hint,
 * the checked allocators, and the two formats of the channel (text, JSON lines).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "diag/alloc.h"
#include "diag/diag.h"
#include "diag/hint.h"

static void test_edit_distance(void)
{
	CHECK(solar_diag_edit_distance("matmul", "matmul", false) == 0);
	CHECK(solar_diag_edit_distance("", "abc", false) == 3);
	CHECK(solar_diag_edit_distance("exp", "epx", false) == 1);   /* a swap is one edit */
	CHECK(solar_diag_edit_distance("tensor", "tensro", false) == 1);
	CHECK(solar_diag_edit_distance("sqrt", "sqr", false) == 1);   /* a deletion */
	CHECK(solar_diag_edit_distance("bf16", "bf18", false) == 1);  /* a substitution */
	CHECK(solar_diag_edit_distance("abc", "ca", false) == 3);     /* OSA, not Damerau */
	/* case folding is the front end's choice; the device loader's keys are case-sensitive */
	CHECK(solar_diag_edit_distance("Exp", "exp", true) == 0);
	CHECK(solar_diag_edit_distance("Exp", "exp", false) == 1);
	CHECK(solar_diag_edit_distance("XEP", "exp", true) == 1);
	char longname[SOLAR_HINT_MAX_NAME + 2];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	CHECK(solar_diag_edit_distance(longname, "a", false) == 99);
	longname[SOLAR_HINT_MAX_NAME] = 0; /* exactly the longest name compared */
	CHECK(solar_diag_edit_distance(longname, longname, false) == 0);
}

static void test_alloc(void)
{
	char *s = solar_xstrdup("kernel");
	CHECK(s && !strcmp(s, "kernel"));
	free(s);
	CHECK(solar_xstrdup(NULL) == NULL);
	s = solar_xstrndup("abcdef", 3);
	CHECK(!strcmp(s, "abc"));
	free(s);
	int *z = solar_xcalloc(16, sizeof *z);
	int sum = 0;
	for (int i = 0; i < 16; i++)
		sum += z[i];
	CHECK(sum == 0);
	z = solar_xrealloc(z, 0); /* a size of 0 is a valid, unique pointer */
	CHECK(z != NULL);
	free(z);
	free(solar_xmalloc(0));
	/* n x size past SIZE_MAX: the message and exit status 3, never a short buffer */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(1); /* fails the check below: the status is not 3 */
		free(solar_xcalloc(SIZE_MAX / 2 + 2, 2));
		_exit(0);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == SOLAR_EXIT_NOMEM, "status %d", status);
}

/* The three spellings of a diagnostic, through one context, and a child context for a
 * second file counting in its parent. */
static void test_channel(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	const char *src = "{\"a\": 1,\n \"b\": x}\n";
	solar_diag *d = solar_diag_new("m.json", src, (int32_t)strlen(src), out);
	solar_diag_path_error(d, "entries[2].measured", "expected a positive time");
	solar_diag_path_error(d, NULL, "expected a JSON object");
	solar_diag_tool_error(d, "device override 'x': expected a positive number");
	solar_diag *f = solar_diag_new_file(d, "x.json", src, (int32_t)strlen(src));
	CHECK(solar_diag_stream(f) == out);
	solar_diag_error(f, (solar_span){16, 1}, "invalid JSON");
	solar_diag_free(f);
	CHECK(solar_diag_errors(d) == 4);
	fclose(out);
	CHECKF(!strcmp(text, "m.json: entries[2].measured: expected a positive time\n"
			     "m.json: expected a JSON object\n"
			     "solar: device override 'x': expected a positive number\n"
			     "x.json:2:8: error: invalid JSON\n"
			     " \"b\": x}\n"
			     "       ^\n"),
	       "got:\n%s", text);
	free(text);
	/* the cap: 20 errors printed, the rest counted */
	out = open_memstream(&text, &len);
	solar_diag_free(d);
	d = solar_diag_new("m.json", NULL, 0, out);
	for (int i = 0; i < SOLAR_DIAG_MAX_ERRORS + 3; i++)
		solar_diag_path_error(d, "k", "bad");
	solar_diag_finish(d);
	CHECK(solar_diag_errors(d) == SOLAR_DIAG_MAX_ERRORS + 3);
	solar_diag_free(d);
	fclose(out);
	CHECK(strstr(text, "m.json: note: too many errors; 3 more not shown\n") != NULL);
	free(text);
}

/* A NULL context is the silent channel: reports to it are dropped; a tool warning prints as
 * `solar: warning: ...` and counts as a warning. */
static void test_silent(void)
{
	solar_diag_tool_error(NULL, "dropped");
	solar_diag_path_error(NULL, "a.b", "dropped");
	solar_diag_error(NULL, (solar_span){0, 0}, "dropped");
	solar_diag_finish(NULL);
	CHECK(solar_diag_errors(NULL) == 0 && solar_diag_warnings(NULL) == 0);
	CHECK(!solar_diag_full(NULL));
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	solar_diag *d = solar_diag_new_tool(out);
	solar_diag_tool_warning(d, "device probe: no cuBLAS");
	solar_diag_path_error(d, "x", "y");
	CHECK(solar_diag_warnings(d) == 1 && solar_diag_errors(d) == 1);
	solar_diag_free(d);
	fclose(out);
	CHECKF(!strcmp(text, "solar: warning: device probe: no cuBLAS\nsolar: x: y\n"), "got:\n%s",
	       text);
	free(text);
}

/* The tool's prefixes: an error has no word, a warning and a note say so; a hint line follows
 * as it is, and only after a diagnostic that printed. */
static void test_tool_prefixes(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	solar_diag *d = solar_diag_new_tool(out);
	solar_diag_hint(d, "dropped: nothing before it printed");
	solar_diag_tool_note(d, "a note on its own");
	solar_diag_tool_error(d, "check needs at least one FILE");
	solar_diag_hint(d, "Try 'solar --help'.");
	solar_diag_tool_warning(d, "x.air: the live data exceeds the DRAM");
	solar_diag_tool_note(d, "the estimate is no bound");
	solar_diag_free(d);
	fclose(out);
	CHECKF(!strcmp(text, "solar: note: a note on its own\n"
			     "solar: check needs at least one FILE\n"
			     "Try 'solar --help'.\n"
			     "solar: warning: x.air: the live data exceeds the DRAM\n"
			     "solar: note: the estimate is no bound\n"),
	       "got:\n%s", text);
	free(text);
}

/* JSON lines: every spelling as one object with the fields it has, strings escaped (quotes,
 * backslashes, control bytes; a byte that is not UTF-8 becomes U+FFFD), no source echo; a
 * context for another file follows its parent's stream; off again, text again. */
static void test_json(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	const char *src = "kernel k {\n  C[i] = A[i*j];\n}\n";
	solar_diag *tool = solar_diag_new_tool(out);
	solar_diag_set_json(tool, true);
	solar_diag *d = solar_diag_new_file(tool, "m.air", src, (int32_t)strlen(src));
	solar_diag_error(d, (solar_span){20, 3}, "index '%s' is not affine", "i*j");
	solar_diag_note(d, (solar_span){-1, 0}, "in kernel k");
	solar_diag_path_error_in(tool, "x.json", "memory[1].bandwidth_bytes_per_s",
				 "expected a positive number");
	solar_diag_tool_error(tool, "say \"hi\"\\ \t\n\x01 caf\xc3\xa9 \xff");
	solar_diag_hint(tool, "Try 'solar --help'.");
	solar_diag_tool_warning(tool, "w");
	solar_diag_free(d);
	solar_diag_set_json(tool, false);
	solar_diag_tool_error(tool, "text again");
	solar_diag_free(tool);
	fclose(out);
	CHECKF(!strcmp(text,
		       "{\"severity\":\"error\",\"file\":\"m.air\",\"line\":2,\"col\":10,"
		       "\"message\":\"index 'i*j' is not affine\"}\n"
		       "{\"severity\":\"note\",\"file\":\"m.air\",\"message\":\"in kernel k\"}\n"
		       "{\"severity\":\"error\",\"file\":\"x.json\","
		       "\"path\":\"memory[1].bandwidth_bytes_per_s\","
		       "\"message\":\"expected a positive number\"}\n"
		       "{\"severity\":\"error\",\"message\":"
		       "\"say \\\"hi\\\"\\\\ \\t\\n\\u0001 caf\xc3\xa9 \\ufffd\"}\n"
		       "{\"severity\":\"note\",\"message\":\"Try 'solar --help'.\"}\n"
		       "{\"severity\":\"warning\",\"message\":\"w\"}\n"
		       "solar: text again\n"),
	       "got:\n%s", text);
	free(text);
}

/* Out of memory in JSON mode: the fatal error is a JSON line too, and the status is 3. */
static void test_fatal_json(void)
{
	int fd[2];
	CHECK(pipe(fd) == 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 2);
		solar_diag *tool = solar_diag_new_tool(stderr);
		solar_diag_set_json(tool, true);
		free(solar_xcalloc(SIZE_MAX / 2 + 2, 2));
		_exit(0);
	}
	close(fd[1]);
	char buf[256] = "";
	ssize_t n = 0, k;
	while (n < (ssize_t)sizeof buf - 1 &&
	       (k = read(fd[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0)
		n += k;
	close(fd[0]);
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == SOLAR_EXIT_NOMEM, "status %d", status);
	CHECKF(!strcmp(buf, "{\"severity\":\"error\",\"message\":\"out of memory\"}\n"), "got %s",
	       buf);
}

int main(void)
{
	test_tool_prefixes();
	test_json();
	test_fatal_json();
	test_silent();
	test_channel();
	test_edit_distance();
	test_alloc();
	printf("test_diag: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
