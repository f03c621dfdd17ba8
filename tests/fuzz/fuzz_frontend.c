/* fuzz_frontend.c - libFuzzer target for the front end.
 *
 * Feeds arbitrary bytes to solar_frontend_load (diagnostics go to /dev/null, but they are
 * still formatted, so the caret code runs too).  Beyond "no crash, no leak, no undefined
 * behaviour", every program that loads is held to the front end's promises: its IR passes
 * solar_ir_verify, its canonical form parses back to an equal IR, and printing is a fixed
 * point.  A broken promise aborts, which libFuzzer reports as a crash with the input.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined (CMake: -DSOLAR_FUZZ=ON with clang).
 */
#define _POSIX_C_SOURCE 200809L

#include "frontend/frontend.h"
#include "fuzz.h"

static char *print(const solar_program *p, size_t *len)
{
	char *text = NULL;
	FILE *mem = open_memstream(&text, len);
	if (!mem)
		abort();
	solar_ir_print(p, mem);
	fclose(mem);
	return text;
}

static solar_program *load(const char *src, size_t len, const solar_define *defs, int ndefs,
			   solar_diag **d)
{
	*d = solar_diag_new("fuzz.air", src, (int32_t)len, fuzz_sink());
	solar_program *p = solar_frontend_load("fuzz.air", src, (int32_t)len, defs, ndefs, *d);
	solar_diag_finish(*d);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > FUZZ_MAX_INPUT)
		return 0;
	char *src = fuzz_text(data, size);
	/* a -D on half of the inputs, so the override paths run too */
	static const solar_define defs[] = {{"N", 3}};
	int ndefs = size && (data[0] & 1);

	solar_diag *d;
	solar_program *p = load(src, size, defs, ndefs, &d);
	if (p) {
		if (solar_ir_verify(p, fuzz_diag_stderr()))
			abort();
		size_t len;
		char *text = print(p, &len);
		solar_diag *d2;
		solar_program *q = load(text, len, defs, ndefs, &d2);
		if (!q || !solar_ir_equal(p, q)) {
			fprintf(stderr, "fuzz_frontend: the canonical form %s:\n%s\n",
				q ? "parses to a different IR" : "does not parse", text);
			abort();
		}
		size_t len2;
		char *again = print(q, &len2);
		if (len != len2 || memcmp(text, again, len)) {
			fprintf(stderr, "fuzz_frontend: printing is not idempotent:\n%s\n---\n%s\n",
				text, again);
			abort();
		}
		free(again);
		solar_program_free(q);
		solar_diag_free(d2);
		free(text);
	}
	solar_program_free(p);
	solar_diag_free(d);
	free(src);
	return 0;
}
