// SPDX-License-Identifier: GPL-2.0-only
/*
 * A server whose processes share one name (comm) and tell what each is in
 * their titles, written over argv as postgres does after fork: the tests of
 * classes = title.
 *
 *   titled --dir DIR [--fast N] [--slow N] [--stall-every K] [--duration S]
 *
 * Forks N "fast" and N "slow" children (2 each by default), comm "titled"
 * all. Each first reads 1 byte of /dev/zero in bursts of 50 (1 ms apart)
 * under the title it was forked with, the parent's command line, until the
 * file DIR/go exists; then it writes its title over its argv ("titled: slow",
 * "titled:\tfast": a tab, which outputs escape) and works until DIR/stop
 * exists:
 *   fast: the same bursts, and one read in K (default 4000) reads 2 bytes
 *	from a pipe that a helper thread fills 2 ms after it sleeps in that
 *	read: a stall;
 *   slow: reads 3 bytes from a pipe that a thread fills every 3 ms: its
 *	normal read waits ~3 ms.
 * Then it appends one JSON line to DIR/report (pid, role, title, the reads
 * and stalls it made under its title, when each stall began, CLOCK_MONOTONIC
 * ns) and waits to be killed; the parent,
 * to be killed (its children die with it) or for S seconds (default 120).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "stall.h"

#define BURST	   50
#define STALLS_MAX 4096

static const char *dir;
static char **args;
static int nargs;

static void die(const char *what)
{
	fprintf(stderr, "titled: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int exists(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Title over the argv area, its bytes past the title zeroed, as setproctitle() does. */
static void title_set(const char *title)
{
	char *start = args[0], *end = args[nargs - 1] + strlen(args[nargs - 1]);
	size_t room = end - start;

	memset(start, 0, room);
	memcpy(start, title, strlen(title) < room ? strlen(title) : room);
}

/* A burst of 1-byte reads of /dev/zero; every stall_every-th call (0: none) a stall instead. */
struct fast {
	int zero;
	struct stall stall;
	unsigned long reads, stalls, calls, stall_every;
	unsigned long long stall_ns[STALLS_MAX]; /* when each began (CLOCK_MONOTONIC) */
};

static void burst(struct fast *f)
{
	char buf[2];
	int i;

	for (i = 0; i < BURST; i++) {
		if (f->stall_every && ++f->calls % f->stall_every == 0) {
			if (f->stalls < STALLS_MAX)
				f->stall_ns[f->stalls] = mono_ns();
			if (stall_make(&f->stall))
				die("stall read");
			f->stalls++;
		} else {
			if (read(f->zero, buf, 1) != 1)
				die("read /dev/zero");
			f->reads += f->stall_every != 0;
		}
	}
	sleep_ns(1000000);
}

static void *slow_writer(void *arg)
{
	int fd = *(int *)arg;

	for (;;) {
		sleep_ns(3000000);
		if (write(fd, "sss", 3) != 3)
			break;
	}
	return NULL;
}

/* One JSON line appended to DIR/report, written whole by one write(). */
static void report(const char *role, const char *title, unsigned long reads, const struct fast *f)
{
	unsigned long i, stalls = f ? f->stalls : 0;
	size_t size = 256 + 24 * STALLS_MAX, n;
	char path[4096], *line = malloc(size);
	int fd;

	snprintf(path, sizeof(path), "%s/report", dir);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || !line)
		die(path);
	/* The title's tab as JSON has it. */
	n = snprintf(line, size,
		     "{\"pid\":%d,\"role\":\"%s\",\"title\":\"%s\",\"reads\":%lu,\"stalls\":%lu,"
		     "\"stall_ns\":[",
		     getpid(), role, strchr(title, '\t') ? "titled:\\tfast" : title, reads, stalls);
	for (i = 0; i < stalls && i < STALLS_MAX; i++)
		n += snprintf(line + n, size - n, "%s%llu", i ? "," : "", f->stall_ns[i]);
	n += snprintf(line + n, size - n, "]}\n");
	if (write(fd, line, n) != (ssize_t)n)
		die(path);
	close(fd);
	free(line);
}

static void child(int fast_role, unsigned long stall_every)
{
	const char *title = fast_role ? "titled:\tfast" : "titled: slow";
	struct fast f = { .stall_every = 0 };
	int slow_pipe[2];
	unsigned long reads = 0;
	pthread_t t;
	char buf[3];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	f.zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (f.zero < 0)
		die("/dev/zero");
	while (!exists("go"))
		burst(&f);
	title_set(title);
	if (fast_role) {
		if (stall_start(&f.stall))
			die("staller");
		f.stall_every = stall_every;
		while (!exists("stop"))
			burst(&f);
		report("fast", title, f.reads, &f);
	} else {
		if (pipe(slow_pipe) || pthread_create(&t, NULL, slow_writer, &slow_pipe[1]))
			die("slow writer");
		while (!exists("stop")) {
			if (read(slow_pipe[0], buf, 3) != 3)
				die("slow read");
			reads++;
		}
		report("slow", title, reads, NULL);
	}
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	unsigned long stall_every = 4000;
	int i, fast = 2, slow = 2, duration = 120;
	pid_t pid;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--dir"))
			dir = strdup(argv[i + 1]); /* the title goes over argv */
		else if (!strcmp(argv[i], "--fast"))
			fast = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--slow"))
			slow = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--stall-every"))
			stall_every = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--duration"))
			duration = atoi(argv[i + 1]);
		else
			break;
	}
	if (!dir || i != argc || stall_every < 2) {
		fprintf(stderr, "usage: titled --dir DIR [--fast N] [--slow N] [--stall-every K] "
				"[--duration S]\n");
		return 2;
	}
	args = argv;
	nargs = argc;
	for (i = 0; i < fast + slow; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			child(i < fast, stall_every);
	}
	alarm(duration);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}
