/* file.c - opening a file that must be a regular file (diag/file.h): open(2) with O_NONBLOCK
 * returns at once on a FIFO without a writer, fstat says what it is, and only a regular file
 * is handed on, as a blocking stream. */
#define _POSIX_C_SOURCE 200809L /* fdopen */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *solar_fopen_regular(const char *path, char *why, size_t nwhy)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, nwhy, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, nwhy, "not a regular file (%s)",
			 S_ISFIFO(st.st_mode)  ? "a FIFO"
			 : S_ISDIR(st.st_mode) ? "a directory"
			 : S_ISSOCK(st.st_mode) ? "a socket"
						: "a device");
		close(fd);
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	FILE *f = fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
	if (!f) {
		snprintf(why, nwhy, "%s", strerror(errno));
		close(fd);
	}
	return f;
}

void solar_self_exe(char *buf, size_t n)
{
	if (!n)
		return;
	ssize_t len = readlink("/proc/self/exe", buf, n - 1);
	buf[len > 0 ? len : 0] = '\0';
}
