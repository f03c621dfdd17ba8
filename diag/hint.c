/* hint.c - edit distance for "did you mean" hints (frontend/sema.c, devices/device.c).
 *
 * Optimal string alignment: the Levenshtein table with one more move, a swap of two
 * neighbouring letters, since that is the commonest typo.  Names are short (identifiers and
 * JSON keys), so the table lives on the stack and the cost is quadratic in a bounded length.
 */
#include "hint.h"

#include <string.h>

static char fold(char c, bool fold_case)
{
	return fold_case && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

int solar_diag_edit_distance(const char *a, const char *b, bool fold_case)
{
	enum { N = SOLAR_HINT_MAX_NAME };
	size_t la = strlen(a), lb = strlen(b);
	if (la > N || lb > N)
		return 99;
	int dm[N + 1][N + 1];
	for (size_t i = 0; i <= la; i++)
		dm[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		dm[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			char ai = fold(a[i - 1], fold_case), bj = fold(b[j - 1], fold_case);
			int best = dm[i - 1][j - 1] + (ai != bj);
			if (dm[i - 1][j] + 1 < best)
				best = dm[i - 1][j] + 1;
			if (dm[i][j - 1] + 1 < best)
				best = dm[i][j - 1] + 1;
			if (i > 1 && j > 1 && ai == fold(b[j - 2], fold_case) &&
			    fold(a[i - 2], fold_case) == bj && dm[i - 2][j - 2] + 1 < best)
				best = dm[i - 2][j - 2] + 1;
			dm[i][j] = best;
		}
	return dm[la][lb];
}
