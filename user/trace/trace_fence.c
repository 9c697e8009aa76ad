// SPDX-License-Identifier: GPL-2.0-only
/*
 * The child's stderr comes through a pipe: its lines pass as they come,
 * but those babeltrace2, GLib and assert() print as they crash are held
 * back, and dropped when it crashed.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util/compiler.h"
#include "trace_fence.h"

/* What a reader may map besides the trace (libraries, plugins, arenas), and per trace byte. */
#define FENCE_BASE_BYTES   (1ULL << 30)
#define FENCE_BYTES_PER_IN 16

/* nftw() has no user data pointer. */
static uint64_t fence_in_bytes;

static int fence_add(const char *path __always_unused, const struct stat *st, int type,
		     struct FTW *ftw __always_unused)
{
	/* What is on disk: a sparse file does not raise the bound. */
	if (type == FTW_F && S_ISREG(st->st_mode))
		fence_in_bytes += (uint64_t)st->st_size < (uint64_t)st->st_blocks * 512
					  ? (uint64_t)st->st_size
					  : (uint64_t)st->st_blocks * 512;
	return 0;
}

/* What the reader may map beyond what it has mapped already (it starts as a copy of us). */
static uint64_t fence_allowance(char *const *paths, size_t nr_paths)
{
	size_t i;

	fence_in_bytes = 0;
	for (i = 0; i < nr_paths; i++)
		nftw(paths[i], fence_add, 16, FTW_PHYS);
	if (fence_in_bytes > (UINT64_MAX / 2 - FENCE_BASE_BYTES) / FENCE_BYTES_PER_IN)
		return UINT64_MAX / 2;
	return FENCE_BASE_BYTES + FENCE_BYTES_PER_IN * fence_in_bytes;
}

/* The bytes this process maps now (a sanitizer's shadow included); 0 when unknown. */
static uint64_t fence_mapped(void)
{
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * Whether a line of stderr is not sclat's own: babeltrace2's log lines, GLib's
 * and assert()'s, which they print as they crash.
 */
static bool fence_noise(const char *line)
{
	return strncmp(line, "sclat", 5) || strstr(line, ": Assertion `");
}

struct held {
	char *buf;
	size_t len, cap;
};

static void held_add(struct held *h, const char *line, size_t n)
{
	char *grown;

	if (h->len + n > h->cap) {
		grown = realloc(h->buf, h->len + n + 4096);
		if (!grown)
			return;
		h->buf = grown;
		h->cap = h->len + n + 4096;
	}
	memcpy(h->buf + h->len, line, n);
	h->len += n;
}

/* The child's stderr until its end: lines pass, noise is held. */
static void fence_copy(int fd, struct held *h)
{
	char buf[8192], line[8192 + 1];
	size_t used = 0;
	ssize_t n, i;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < n; i++) {
			line[used++] = buf[i];
			if (buf[i] != '\n' && used < sizeof(line) - 1)
				continue;
			line[used] = '\0';
			if (fence_noise(line))
				held_add(h, line, used);
			else if (write(STDERR_FILENO, line, used) < 0)
				break;
			used = 0;
		}
	}
	if (used)
		held_add(h, line, used);
}

static volatile sig_atomic_t fence_child;

static void fence_forward(int sig)
{
	if (fence_child > 0)
		kill(fence_child, sig);
}

static void fence_signals(void (*handler)(int), struct sigaction *old)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = handler };
	size_t i;

	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaction(stops[i], handler ? &sa : &old[i], handler ? &old[i] : NULL);
}

int trace_fenced(char *const *paths, size_t nr_paths, int (*fn)(void *arg), void *arg, char *why,
		 size_t len)
{
	uint64_t allowance = fence_allowance(paths, nr_paths), mapped = fence_mapped();
	struct held held = {};
	struct sigaction old[4];
	struct rlimit rl;
	int pipefd[2], status, sig;
	pid_t pid;

	rl.rlim_cur = rl.rlim_max =
		mapped && mapped < UINT64_MAX / 2 ? mapped + allowance : RLIM_INFINITY;
	fflush(NULL);
	if (pipe2(pipefd, O_CLOEXEC))
		return fn(arg);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return fn(arg);
	}
	if (!pid) {
		close(pipefd[0]);
		dup2(pipefd[1], STDERR_FILENO);
		/* A bound that cannot be set is no reason not to read. */
		if (rl.rlim_cur != RLIM_INFINITY)
			setrlimit(RLIMIT_AS, &rl);
		status = fn(arg);
		/*
		 * Its output flushed, then out without the exit handlers: the
		 * parent's threads (lttng-ust's two listeners) are not in the
		 * child, and a lock one of them held at the fork would hang
		 * lttng-ust's destructor here, and the parent with it. (A CI run
		 * saw `sclat policy from-trace` of the test fixture, read in
		 * 0.02 s otherwise, hang past 60 s: the likely cause.)
		 */
		fflush(NULL);
		_exit(status);
	}
	close(pipefd[1]);
	fence_child = pid;
	fence_signals(fence_forward, old);
	fence_copy(pipefd[0], &held);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	fence_child = 0;
	fence_signals(NULL, old);
	if (WIFEXITED(status) || (sig = WTERMSIG(status)) == SIGINT || sig == SIGTERM ||
	    sig == SIGHUP || sig == SIGQUIT || sig == SIGPIPE) {
		if (held.len && write(STDERR_FILENO, held.buf, held.len) < 0)
			held.len = 0;
		free(held.buf);
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		/* Stopped (or its reader gone: SIGPIPE) as the caller would have been. */
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	free(held.buf);
	snprintf(why, len,
		 "babeltrace2 crashed reading it (SIG%s): a data stream is corrupt, or needs more "
		 "memory than %llu MiB",
		 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?",
		 (unsigned long long)(allowance >> 20));
	return -1;
}
