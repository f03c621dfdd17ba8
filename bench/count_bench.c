/* count_bench.c - how long exact counting takes, solar's summation against isl_set_count_val.
 *
 * Build and run from the repository root:
 *   gcc -std=c17 -O2 -I. bench/count_bench.c analysis/count.c -lisl -lgmp -o count_bench
 *   ./count_bench
 *
 * Each set is counted with solar_count_set (summation; repeated until 0.2 s have passed, the
 * mean is printed) and with isl_set_count_val (point enumeration) in a child process that is
 * killed after 10 s, so the slow column shows "> 10 s" rather than hanging.  The two counts
 * must agree wherever both finish.
 */
#define _POSIX_C_SOURCE 200809L

#include "analysis/count.h"

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/val.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { ISL_LIMIT_S = 10 };

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* isl_set_count_val in a child with a time limit; writes the decimal count to out. Returns the
 * seconds taken, or -1 on timeout or failure. */
static double isl_count_limited(isl_set *set, char *out, size_t outsz)
{
	int fd[2];
	if (pipe(fd) != 0)
		return -1;
	double t0 = now_s();
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		alarm(ISL_LIMIT_S);
		isl_val *v = isl_set_count_val(set);
		char *s = v ? isl_val_to_str(v) : NULL;
		if (s && write(fd[1], s, strlen(s)) < 0)
			_exit(2);
		_exit(s ? 0 : 1);
	}
	close(fd[1]);
	ssize_t n = read(fd[0], out, outsz - 1);
	close(fd[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	double t = now_s() - t0;
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	out[n] = 0;
	return t;
}

static void bench(isl_ctx *ctx, const char *name, isl_set *set)
{
	const char *why = NULL;
	isl_val *v = NULL;
	int reps = 0;
	double t0 = now_s(), t;
	do {
		isl_val_free(v);
		v = solar_count_set(set, &why);
		reps++;
		t = now_s() - t0;
	} while (v && t < 0.2);
	char *ours = v ? isl_val_to_str(v) : NULL;
	char theirs[256] = "";
	double ti = isl_count_limited(set, theirs, sizeof theirs);
	char tis[32];
	if (ti < 0)
		snprintf(tis, sizeof tis, "> %d s", ISL_LIMIT_S);
	else
		snprintf(tis, sizeof tis, "%.4f s", ti);
	const char *agree = ti < 0 ? "-" : ours && strcmp(ours, theirs) == 0 ? "yes" : "NO";
	printf("%-40s %26s %12.6f s %12s  %s\n", name, ours ? ours : why, t / reps, tis, agree);
	fflush(stdout);
	free(ours);
	isl_val_free(v);
	isl_set_free(set);
	(void)ctx;
}

static void bench_str(isl_ctx *ctx, const char *name, const char *text)
{
	bench(ctx, name, isl_set_read_from_str(ctx, text));
}

int main(void)
{
	isl_ctx *ctx = isl_ctx_alloc();
	isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	printf("%-40s %26s %14s %12s  %s\n", "set", "count", "solar", "isl_count", "agree");
	char text[512], name[64];
	for (int n = 256; n <= 8192; n *= 2) {
		snprintf(text, sizeof text, "{ [i, j, k] : 0 <= i, j, k < %d }", n);
		snprintf(name, sizeof name, "box %d^3", n);
		bench_str(ctx, name, text);
	}
	bench_str(ctx, "causal T2048 D128", "{ [i, j, d] : 0 <= j <= i < 2048 and 0 <= d < 128 }");
	bench_str(ctx, "causal B8 H32 T32768 D128",
		  "{ [b, h, i, j, d] : 0 <= b < 8 and 0 <= h < 32 and 0 <= j <= i < 32768 and "
		  "0 <= d < 128 }");
	bench_str(ctx, "causal T=1M", "{ [i, j] : 0 <= j <= i < 1000000 }");
	bench_str(ctx, "sliding window T32768 W1024 D128",
		  "{ [b, h, i, j, d] : 0 <= b < 8 and 0 <= h < 32 and 0 <= j <= i < 32768 and "
		  "i - j < 1024 and 0 <= d < 128 }");
	bench_str(ctx, "conv N1 K64 C64 28x28 3x3",
		  "{ S[n, k, c, oh, ow, r, s] : 0 <= n < 1 and 0 <= k < 64 and 0 <= c < 64 and "
		  "0 <= oh < 28 and 0 <= ow < 28 and 0 <= r < 3 and 0 <= s < 3 }");
	bench_str(ctx, "conv N256 K512 C256 28x28 3x3",
		  "{ S[n, k, c, oh, ow, r, s] : 0 <= n < 256 and 0 <= k < 512 and 0 <= c < 256 and "
		  "0 <= oh < 28 and 0 <= ow < 28 and 0 <= r < 3 and 0 <= s < 3 }");
	/* input footprint: image of the domain under the access, within the tensor shape */
	isl_map *acc = isl_map_read_from_str(
	    ctx, "{ S[n, k, c, oh, ow, r, s] -> In[n, c, 2oh + 2r - 1, 2ow + 2s - 1] : "
		 "0 <= n < 256 and 0 <= k < 512 and 0 <= c < 256 and 0 <= oh < 112 and "
		 "0 <= ow < 112 and 0 <= r < 3 and 0 <= s < 3 }");
	isl_set *shape = isl_set_read_from_str(
	    ctx, "{ In[n, c, h, w] : 0 <= n < 256 and 0 <= c < 256 and 0 <= h < 224 and "
		 "0 <= w < 224 }");
	bench(ctx, "conv footprint s2 d2 p1 224x224", isl_set_intersect(isl_map_range(acc), shape));
	bench_str(ctx, "block-causal 64x64 blocks, T=1M",
		  "{ [i, j] : 0 <= i < 1000000 and 0 <= j < 1000000 and j // 64 <= i // 64 }");
	bench_str(ctx, "(i+j) mod 7 < 3, T=1M",
		  "{ [i, j] : 0 <= i < 1000000 and 0 <= j <= i and (i + j) mod 7 < 3 }");
	bench_str(ctx, "2i + 3j + 5k <= 1e5",
		  "{ [i, j, k] : i >= 0 and j >= 0 and k >= 0 and 2i + 3j + 5k <= 100000 }");
	isl_ctx_free(ctx);
	return 0;
}
