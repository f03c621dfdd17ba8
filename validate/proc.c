/* proc.c - the one process launcher: every child solar runs (the compiler, the generated
 * program, the harness, the translator, `solar translate` under triage and advise).
 *
 * posix_spawnp with pipes for what is captured, a poll loop that drains them (so a chatty
 * child never blocks on a full pipe), and a deadline after which the child is stopped.  No
 * shell: arguments go to the child as they are.
 *
 * The one idea: every child runs in a process group of its own, and it is the group that is
 * stopped, never the one process: when the child exits (its stragglers: a model that forked,
 * a compiler's helpers), when its deadline passes, and when a signal (SIGINT, SIGTERM, SIGHUP)
 * or solar's own time limit ends the run.  Stopping is SIGTERM to the group, then SIGKILL to it
 * after a grace period, so a child that is itself solar (`solar translate` under triage) has
 * the time to stop its own group and remove its own files.  Beside the child, a table of the
 * run's temporary files and folders, which the signal handlers remove after the child is
 * stopped: an interrupted run leaves no process and no file behind.  Both are process-global
 * (a signal handler has no other way in) and read with async-signal-safe calls only.
 *
 * The child's limits: solar's own time limit (SOLAR_TIME_LIMIT, an interval timer the command
 * line arms) is paused while a child with a limit of its own runs, and a child given a control
 * pipe (SOLAR_LIMIT_FD) can itself say "p" (what runs now has limits of its own: the validation
 * under its --timeout) and "r" (back under ours): both solar's limit and the child's deadline
 * then count only the time outside those spans.  "n" starts both afresh (a new step: each
 * case of translate's --batch-list has the limits a single translation has).
 */
#define _GNU_SOURCE /* struct dirent64, SYS_getdents64 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "validate.h"
#include "../diag/alloc.h"

extern char **environ;

enum { MAX_TEMPS = 32 };
static const double GRACE_S = 3; /* from SIGTERM to SIGKILL */

/* ---- the time limit ---------------------------------------------------------------------- */

static struct itimerval limit_left; /* while paused: what was left of the limit */
static int limit_paused;            /* pauses nest: only the outermost stops and restarts */
static long limit_s;                /* the limit as armed, 0 when none */

void solar_proc_limit_arm(long seconds)
{
	limit_s = seconds;
	struct itimerval t = {.it_value = {.tv_sec = seconds}};
	setitimer(ITIMER_REAL, &t, NULL);
}

/* The whole limit again, from now (a new case of translate's --batch-list). */
static void limit_restart(void)
{
	if (limit_s > 0 && !limit_paused)
		solar_proc_limit_arm(limit_s);
}

void solar_proc_limit_pause(void)
{
	if (limit_paused++)
		return;
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, &limit_left);
}

void solar_proc_limit_resume(void)
{
	if (limit_paused == 0 || --limit_paused)
		return;
	if (limit_left.it_value.tv_sec || limit_left.it_value.tv_usec)
		setitimer(ITIMER_REAL, &limit_left, NULL);
	limit_left = (struct itimerval){{0, 0}, {0, 0}};
}

/* ---- the child and the temporaries, for the signal handlers ------------------------------ */

volatile pid_t solar_proc_child; /* the running child's pid, which is its process group */

static struct {
	const char *volatile path;
	volatile bool dir;
} temps[MAX_TEMPS];

void solar_proc_temp(const char *path, bool dir)
{
	for (int i = 0; path && i < MAX_TEMPS; i++)
		if (!temps[i].path) {
			temps[i].dir = dir;
			/* last: the handler sees the slot whole or not at all */
			temps[i].path = path;
			return;
		}
}

void solar_proc_temp_done(const char *path)
{
	for (int i = 0; path && i < MAX_TEMPS; i++)
		if (temps[i].path && (temps[i].path == path || !strcmp(temps[i].path, path)))
			temps[i].path = NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether the child pid has exited, without reaping it: the zombie keeps its pid, so the
 * process group cannot be reused while its stragglers are stopped. */
static bool exited(pid_t pid)
{
	siginfo_t si;
	si.si_pid = 0;
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 ? si.si_pid == pid
									      : errno == ECHILD;
}

/* Stops the process group of the child pid: SIGTERM, GRACE_S for the child to exit, SIGKILL
 * to what is left; returns once the child has exited (not reaped).  Async-signal-safe. */
static void stop_group(pid_t pid)
{
	if (kill(-pid, SIGTERM) < 0)
		kill(pid, SIGTERM);
	for (int i = 0; i < (int)(GRACE_S * 50) && !exited(pid); i++) {
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	kill(-pid, SIGKILL);
	while (!exited(pid)) {
		struct timespec ts = {0, 5 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* Removes what the folder open as dfd holds, depth folders deep at most, with calls that are
 * async-signal-safe (getdents64, unlinkat, openat): a handler may run it.  Reads the folder
 * from its start again after each batch, until a read finds nothing more to remove. */
static void remove_entries(int dfd, int depth)
{
	for (bool removed = true; removed;) {
		removed = false;
		char buf[4096] __attribute__((aligned(8)));
		if (lseek(dfd, 0, SEEK_SET) < 0)
			return;
		long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
		for (long at = 0; at < n;) {
			struct dirent64 *e = (struct dirent64 *)(buf + at);
			at += e->d_reclen;
			const char *name = e->d_name;
			if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
				continue;
			if (unlinkat(dfd, name, 0) == 0) {
				removed = true;
				continue;
			}
			int sub = depth > 0 ? openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
					    : -1;
			if (sub < 0)
				continue;
			remove_entries(sub, depth - 1);
			close(sub);
			if (unlinkat(dfd, name, AT_REMOVEDIR) == 0)
				removed = true;
		}
	}
}

void solar_proc_remove_tree(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd >= 0) {
		remove_entries(fd, 16);
		close(fd);
	}
	rmdir(path);
}

void solar_proc_cleanup(void)
{
	pid_t child = solar_proc_child;
	if (child > 0) {
		stop_group(child);
		waitpid(child, NULL, 0);
		solar_proc_child = 0;
	}
	for (int i = 0; i < MAX_TEMPS; i++) {
		const char *path = temps[i].path;
		if (!path)
			continue;
		if (temps[i].dir)
			solar_proc_remove_tree(path);
		else
			unlink(path);
		temps[i].path = NULL;
	}
}

static void on_signal(int sig)
{
	solar_proc_cleanup();
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when the handler returns: the run ends by the signal */
}

void solar_proc_catch_signals(void)
{
	static bool caught;
	if (caught)
		return;
	caught = true;
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	int sig[] = {SIGINT, SIGTERM, SIGHUP};
	for (int i = 0; i < 3; i++) /* a second signal waits for the first one's cleanup */
		sigaddset(&sa.sa_mask, sig[i]);
	sigaddset(&sa.sa_mask, SIGALRM);
	for (int i = 0; i < 3; i++) {
		struct sigaction old;
		sigaction(sig[i], NULL, &old);
		if (old.sa_handler != SIG_IGN) /* ignored on entry (nohup, a & job): stays so */
			sigaction(sig[i], &sa, NULL);
	}
}

/* ---- running one child -------------------------------------------------------------------- */

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
		b->s = solar_xrealloc(b->s, cap);
		b->cap = cap;
	}
	memcpy(b->s + b->n, data, n);
	b->n += n;
	b->s[b->n] = '\0';
}

/* environ with how->env's NAME=VALUE in place of the same names (and SOLAR_LIMIT_FD=fd when
 * ctl_fd >= 0); the array is the caller's to free, the strings of extra are its own. */
static char **child_env(const char *const *env, int ctl_fd, char *extra, size_t extra_n)
{
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	for (size_t i = 0; env && env[i]; i++)
		k++;
	char **e = solar_xcalloc(n + k + 2, sizeof *e);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		size_t eq = strcspn(environ[i], "=");
		bool replaced = !strncmp(environ[i], "SOLAR_LIMIT_FD=", 15);
		for (size_t j = 0; env && env[j] && !replaced; j++)
			replaced = !strncmp(environ[i], env[j], eq) && env[j][eq] == '=';
		if (!replaced)
			e[m++] = environ[i];
	}
	for (size_t j = 0; env && env[j]; j++)
		e[m++] = (char *)env[j];
	if (ctl_fd >= 0) {
		snprintf(extra, extra_n, "SOLAR_LIMIT_FD=%d", ctl_fd);
		e[m++] = extra;
	}
	return e;
}

/* The span the child has paused its limits for (control "p" to "r"), in the run's clock. */
typedef struct {
	double start; /* of the run, or of its last step ("n") */
	bool paused;
	double paused_at, paused_s;
} limit_span;

static void control(int fd, limit_span *ls, int *open_fd)
{
	char buf[64];
	ssize_t got = read(fd, buf, sizeof buf);
	if (got <= 0 && !(got < 0 && errno == EINTR)) {
		close(fd);
		*open_fd = -1;
		return;
	}
	for (ssize_t i = 0; i < got; i++) {
		if (buf[i] == 'p' && !ls->paused) {
			ls->paused = true;
			ls->paused_at = now_s();
			solar_proc_limit_pause();
		} else if (buf[i] == 'r' && ls->paused) {
			ls->paused = false;
			ls->paused_s += now_s() - ls->paused_at;
			solar_proc_limit_resume();
		} else if (buf[i] == 'n' && !ls->paused) {
			ls->start = now_s();
			ls->paused_s = 0;
			limit_restart();
		}
	}
}

/* Starts the child in a process group of its own; pid or -1 with errno.  The signals that
 * stop a run are blocked from before the spawn until solar_proc_child names the child, so a
 * handler never misses it; the child starts with the mask solar had. */
static pid_t spawn(char *const argv[], posix_spawn_file_actions_t *fa, char **envp)
{
	sigset_t block, old;
	sigemptyset(&block);
	int sig[] = {SIGINT, SIGTERM, SIGHUP, SIGALRM};
	for (int i = 0; i < 4; i++)
		sigaddset(&block, sig[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &old);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	if (rc == 0)
		solar_proc_child = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = rc;
	return rc == 0 ? pid : -1;
}

/* Reads what is ready on the captured pipes (fd[0] stdout, fd[1] stderr, fd[2] control);
 * a pipe at its end is closed and set to -1. */
static void drain(int fd[3], grow_buf *bo, grow_buf *be, limit_span *ls, int wait_ms)
{
	struct pollfd fds[3];
	int which[3], nf = 0;
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0) {
			which[nf] = i;
			fds[nf++] = (struct pollfd){.fd = fd[i], .events = POLLIN};
		}
	if (nf == 0) { /* nothing to read: only the exit to notice (as soon as before: 20 ms) */
		struct timespec ts = {0, (long)(wait_ms < 20 ? wait_ms : 20) * 1000 * 1000};
		nanosleep(&ts, NULL);
		return;
	}
	int k = poll(fds, (nfds_t)nf, wait_ms);
	for (int i = 0; i < nf && k > 0; i++) {
		if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		int w = which[i];
		if (w == 2) {
			control(fd[2], ls, &fd[2]);
			continue;
		}
		char chunk[65536];
		ssize_t got = read(fd[w], chunk, sizeof chunk);
		if (got > 0) {
			append(w == 0 ? bo : be, chunk, (size_t)got);
		} else if (got == 0 || errno != EINTR) {
			close(fd[w]);
			fd[w] = -1;
		}
	}
}

/* Waits for the child pid while draining its pipes: until it has exited and its pipes are
 * closed.  Its group is stopped when it exits (stragglers), and when the deadline passes
 * (r->timed_out).  Returns the wait status. */
static int supervise(pid_t pid, int fd[3], const solar_proc_how *how, solar_proc *r,
		     grow_buf *bo, grow_buf *be)
{
	double start = now_s(), gone_at = -1, term_at = -1;
	limit_span ls = {.start = start};
	for (;;) {
		drain(fd, bo, be, &ls, 50);
		double t = now_s();
		if (gone_at < 0 && exited(pid)) {
			kill(-pid, SIGKILL); /* what it left running in its group */
			gone_at = t;
		}
		double ran = t - ls.start - ls.paused_s - (ls.paused ? t - ls.paused_at : 0);
		if (gone_at < 0 && how->timeout_s > 0 && ran > how->timeout_s && term_at < 0) {
			kill(-pid, SIGTERM);
			term_at = t;
			r->timed_out = true;
		}
		if (gone_at < 0 && term_at >= 0 && t - term_at > GRACE_S)
			kill(-pid, SIGKILL);
		/* done when its pipes are closed, or a second after it exited: a process that
		 * left the group (setsid) may hold them open */
		if (gone_at >= 0 && ((fd[0] < 0 && fd[1] < 0) || t - gone_at > 1))
			break;
	}
	if (ls.paused)
		solar_proc_limit_resume();
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	solar_proc_child = 0;
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	r->seconds = now_s() - start;
	return status;
}

int solar_proc_run(char *const argv[], const solar_proc_how *how, solar_proc *r)
{
	memset(r, 0, sizeof *r);
	r->status = -1;
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, pc[2] = {-1, -1};
	if ((how->capture_out && pipe(po) < 0) || (how->capture_err && pipe(pe) < 0) ||
	    (how->limit_control && pipe(pc) < 0)) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			if (po[i] >= 0)
				close(po[i]);
			if (pe[i] >= 0)
				close(pe[i]);
		}
		errno = e;
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (how->capture_out)
		posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	else if (how->out_fd > 1)
		posix_spawn_file_actions_adddup2(&fa, how->out_fd, 1);
	if (how->capture_err)
		posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	else if (how->err_fd > 0 && how->err_fd != 2)
		posix_spawn_file_actions_adddup2(&fa, how->err_fd, 2);
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			posix_spawn_file_actions_addclose(&fa, po[i]);
		if (pe[i] >= 0)
			posix_spawn_file_actions_addclose(&fa, pe[i]);
	}
	if (pc[0] >= 0)
		posix_spawn_file_actions_addclose(&fa, pc[0]);
	char extra[40];
	char **envp = child_env(how->env, pc[1], extra, sizeof extra);
	solar_proc_catch_signals(); /* from now on a signal stops the child first */
	if (how->own_limit)
		solar_proc_limit_pause();
	pid_t pid = spawn(argv, &fa, envp);
	int spawn_errno = errno;
	posix_spawn_file_actions_destroy(&fa);
	free(envp);
	int fd[3] = {po[0], pe[0], pc[0]};
	for (int i = 0; i < 3; i++) {
		int w = i == 0 ? po[1] : i == 1 ? pe[1] : pc[1];
		if (w >= 0)
			close(w);
		if (pid < 0 && fd[i] >= 0)
			close(fd[i]);
	}
	if (pid < 0) {
		if (how->own_limit)
			solar_proc_limit_resume();
		errno = spawn_errno;
		return -1;
	}
	grow_buf bo = {0}, be = {0};
	append(&bo, "", 0);
	append(&be, "", 0);
	int status = supervise(pid, fd, how, r, &bo, &be);
	if (how->own_limit)
		solar_proc_limit_resume();
	if (WIFEXITED(status))
		r->status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->status = 128 + WTERMSIG(status);
	if (how->capture_out)
		r->out = bo.s;
	else
		free(bo.s);
	if (how->capture_err)
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
