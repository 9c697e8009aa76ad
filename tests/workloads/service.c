// SPDX-License-Identifier: GPL-2.0-only
/*
 * A running service, as an operator meets one (postgres, nginx): a main
 * process whose workers were forked long before anyone traced it, all with
 * the same comm, each telling what it is by its title, written over its
 * argv as postgres does ("postgres: checkpointer"):
 *
 *   service N [--sleep-ms MS]
 *
 * The main process forks N workers; worker 1 forks one of its own (a
 * grandchild). Each worker sets its title "service: worker I" (the
 * grandchild "service: worker 1.1"), then sleeps MS ms (default 20) at a
 * time in nanosleep, forever: the known slow call. The main process sets
 * "service: main", prints one JSON line once all are forked,
 * {"pid":P,"workers":[...],"grandchild":G}, and waits in sigwait for SIGTERM
 * or SIGINT; then it ends its workers and reaps them. A worker whose parent
 * dies ends too.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 64

static char *title_area;
static size_t title_len;

/* The title over argv: the bytes of all the arguments, the rest of them zeroed. */
static void title_set(const char *title)
{
	size_t n = strlen(title);

	if (n >= title_len)
		n = title_len - 1;
	memcpy(title_area, title, n);
	memset(title_area + n, 0, title_len - n);
}

static void sleep_forever(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	for (;;)
		nanosleep(&ts, NULL);
}

/* A worker that sets its title and sleeps; it ends with its parent. */
static pid_t worker_fork(const char *title, long ms, int report_fd, int grandchild)
{
	pid_t pid = fork();
	sigset_t term;

	if (pid)
		return pid;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	sigprocmask(SIG_UNBLOCK, &term, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (grandchild) {
		pid_t g = worker_fork("service: worker 1.1", ms, -1, 0);

		if (write(report_fd, &g, sizeof(g)) != sizeof(g))
			_exit(1);
	}
	if (report_fd >= 0)
		close(report_fd);
	title_set(title);
	sleep_forever(ms);
	return 0;
}

int main(int argc, char **argv)
{
	pid_t workers[MAX_WORKERS], grandchild = -1;
	long n, ms = 20, i;
	char title[64];
	sigset_t set;
	int fd[2], sig;

	if (argc < 2 || (n = atol(argv[1])) <= 0 || n > MAX_WORKERS) {
		fprintf(stderr, "usage: service N [--sleep-ms MS]\n");
		return 2;
	}
	if (argc == 4 && !strcmp(argv[2], "--sleep-ms"))
		ms = atol(argv[3]);
	title_area = argv[0];
	title_len = argv[argc - 1] + strlen(argv[argc - 1]) + 1 - argv[0];
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pipe(fd)) {
		perror("service: pipe");
		return 1;
	}
	for (i = 0; i < n; i++) {
		snprintf(title, sizeof(title), "service: worker %ld", i + 1);
		workers[i] = worker_fork(title, ms, i ? -1 : fd[1], !i);
		if (workers[i] < 0) {
			perror("service: fork");
			return 1;
		}
	}
	close(fd[1]);
	if (read(fd[0], &grandchild, sizeof(grandchild)) != sizeof(grandchild))
		return 1;
	title_set("service: main");
	printf("{\"pid\":%d,\"workers\":[", getpid());
	for (i = 0; i < n; i++)
		printf("%s%d", i ? "," : "", workers[i]);
	printf("],\"grandchild\":%d}\n", grandchild);
	fflush(stdout);
	sigwait(&set, &sig);
	for (i = 0; i < n; i++)
		kill(workers[i], SIGTERM);
	for (i = 0; i < n; i++)
		waitpid(workers[i], NULL, 0);
	return 0;
}
