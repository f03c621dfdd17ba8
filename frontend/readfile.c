/* readfile.c - a whole source file (or standard input) into memory.
 *
 * The front end works on one NUL-terminated buffer with byte offsets into it, so the file
 * is read in full before anything else happens.  Reading stops with an error past
 * SOLAR_MAX_SOURCE_BYTES, so a huge or endless input (a pipe, /dev/zero) cannot exhaust
 * memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"

#include <stdbool.h>
#include "../diag/alloc.h"

char *solar_read_file(const char *path, int32_t *len, solar_diag *diag)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "rb");
	if (!f) {
		solar_diag_tool_error(diag, "%s: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = solar_xmalloc(cap + 1);
	while (n <= SOLAR_MAX_SOURCE_BYTES) {
		if (n == cap) {
			cap *= 2;
			char *bigger = solar_xrealloc(buf, cap + 1);
			buf = bigger;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	int err = ferror(f) ? errno : 0;
	if (!std)
		fclose(f);
	if (err || n > SOLAR_MAX_SOURCE_BYTES) {
		if (err)
			solar_diag_tool_error(diag, "%s: %s", path, strerror(err));
		else
			solar_diag_tool_error(diag,
					      "%s: larger than the limit of %d bytes (64 MiB)",
					      path, SOLAR_MAX_SOURCE_BYTES);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = (int32_t)n;
	return buf;
}
