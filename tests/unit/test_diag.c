/* test_diag.c - the lowest module (diag/): the edit distance behind every "did you mean" hint
 * and the checked allocators.
 */
#include <stdint.h>
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
 * `solar: ...` and counts as a warning. */
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
	CHECKF(!strcmp(text, "solar: device probe: no cuBLAS\nsolar: x: y\n"), "got:\n%s", text);
	free(text);
}

int main(void)
{
	test_silent();
	test_channel();
	test_edit_distance();
	test_alloc();
	printf("test_diag: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
