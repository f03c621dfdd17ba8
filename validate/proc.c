/* proc.c - running a child process (the compiler, the generated program, the harness).
 *
 * posix_spawnp with pipes for what is captured, a poll loop that drains them (so a chatty
 * child never blocks on a full pipe) until both close, and a deadline after which the child
 * is killed.  No shell: arguments go to the child as they are.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "validate.h"
#include "../diag/alloc.h"

extern char **environ;

volatile pid_t solar_proc_child;

static struct itimerval limit_left; /* while paused: what was left of the limit */

void solar_proc_limit_pause(void)
{
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, &limit_left);
}

void solar_proc_limit_resume(void)
{
	if (limit_left.it_value.tv_sec || limit_left.it_value.tv_usec)
		setitimer(ITIMER_REAL, &limit_left, NULL);
	limit_left = (struct itimerval){{0, 0}, {0, 0}};
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
	char *s;
	size_t n, cap;
} grow_buf;

static void append(grow_buf *b, const char *data, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *s = solar_xrealloc(b->s, cap);
		if (!s)
			return; /* keep what we have */
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->n, data, n);
	b->n += n;
	b->s[b->n] = '\0';
}

int solar_proc_run(char *const argv[], bool capture_out, int stdout_fd, bool capture_err,
		   double timeout_s, solar_proc *r)
{
	memset(r, 0, sizeof *r);
	r->status = -1;
	int po[2] = {-1, -1}, pe[2] = {-1, -1};
	if ((capture_out && pipe(po) < 0) || (capture_err && pipe(pe) < 0))
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (capture_out) {
		posix_spawn_file_actions_adddup2(&fa, po[1], 1);
		posix_spawn_file_actions_addclose(&fa, po[0]);
		posix_spawn_file_actions_addclose(&fa, po[1]);
	} else if (stdout_fd != 1) {
		posix_spawn_file_actions_adddup2(&fa, stdout_fd, 1);
	}
	if (capture_err) {
		posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
		posix_spawn_file_actions_addclose(&fa, pe[0]);
		posix_spawn_file_actions_addclose(&fa, pe[1]);
	}
	double start = now_s();
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == 0)
		solar_proc_child = pid;
	if (po[1] >= 0)
		close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	if (rc != 0) {
		if (po[0] >= 0)
			close(po[0]);
		if (pe[0] >= 0)
			close(pe[0]);
		errno = rc;
		return -1;
	}

	grow_buf bo = {0}, be = {0};
	append(&bo, "", 0);
	append(&be, "", 0);
	struct pollfd fds[2];
	int open_fds = (po[0] >= 0) + (pe[0] >= 0);
	bool killed = false;
	while (open_fds > 0) {
		int nf = 0;
		if (po[0] >= 0)
			fds[nf++] = (struct pollfd){.fd = po[0], .events = POLLIN};
		if (pe[0] >= 0)
			fds[nf++] = (struct pollfd){.fd = pe[0], .events = POLLIN};
		int wait_ms = 200;
		if (timeout_s > 0 && !killed && now_s() - start > timeout_s) {
			kill(pid, SIGKILL);
			killed = true;
		}
		int k = poll(fds, (nfds_t)nf, wait_ms);
		if (k < 0 && errno != EINTR)
			break;
		for (int i = 0; i < nf && k > 0; i++) {
			if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char chunk[65536];
			ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
			bool is_out = fds[i].fd == po[0];
			if (got > 0) {
				append(is_out ? &bo : &be, chunk, (size_t)got);
			} else if (got == 0 || errno != EINTR) {
				close(fds[i].fd);
				if (is_out)
					po[0] = -1;
				else
					pe[0] = -1;
				open_fds--;
			}
		}
	}
	/* Nothing captured (or the pipes closed early): wait, still under the deadline. */
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (timeout_s > 0 && !killed && now_s() - start > timeout_s) {
			kill(pid, SIGKILL);
			killed = true;
		}
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	solar_proc_child = 0;
	r->seconds = now_s() - start;
	r->timed_out = killed;
	if (WIFEXITED(status))
		r->status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->status = 128 + WTERMSIG(status);
	if (capture_out)
		r->out = bo.s;
	else
		free(bo.s);
	if (capture_err)
		r->errout = be.s;
	else
		free(be.s);
	return 0;
}

void solar_proc_free(solar_proc *r)
{
	free(r->out);
	free(r->errout);
	r->out = r->errout = NULL;
}
