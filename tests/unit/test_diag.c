/* test_diag.c - the lowest module (diag/): the edit distance behind every "did you mean" hint
 * and the checked allocators.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diag/alloc.h"
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
}

int main(void)
{
	test_edit_distance();
	test_alloc();
	printf("test_diag: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
