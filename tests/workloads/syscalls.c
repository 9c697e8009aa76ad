// SPDX-License-Identifier: GPL-2.0-only
/*
 * A workload with a known set of syscalls, for the integration tests:
 *
 *   syscalls [--fast N] [--slow M] [--slow-ms MS] [--bad B] [--timeouts T] [--fork K]
 *            [--report FILE]
 *
 * Makes N getppid() calls and M clock_nanosleep() calls of MS ms (default 5),
 * B calls of syscall number -1 (which the kernel refuses with ENOSYS), and T
 * futex() waits that give up after MS ms with ETIMEDOUT: slow and failing,
 * so outliers carry an errno. It does so after forking K children that do
 * the same. Each process appends one JSON line to FILE (or stdout) with its
 * pid, tid and comm once it is done.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long fast = 0, slow = 0, slow_ms = 5, bad = 0, timeouts = 0, forks = 0, i;
	const char *report = NULL;
	uint32_t futex_word = 0;
	char comm[17] = {};
	struct timespec ts;
	FILE *out;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--fast"))
			fast = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--slow"))
			slow = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--slow-ms"))
			slow_ms = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--bad"))
			bad = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--timeouts"))
			timeouts = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--fork"))
			forks = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--report"))
			report = argv[i + 1];
		else
			break;
	}
	if (i != argc) {
		fprintf(stderr, "usage: syscalls [--fast N] [--slow M] [--slow-ms MS] "
				"[--bad B] [--timeouts T] [--fork K] [--report FILE]\n");
		return 2;
	}
	for (i = 0; i < forks; i++)
		if (fork() == 0) {
			forks = 0;
			break;
		}
	for (i = 0; i < fast; i++)
		syscall(SYS_getppid);
	for (i = 0; i < bad; i++)
		syscall(-1L);
	ts.tv_sec = slow_ms / 1000;
	ts.tv_nsec = (slow_ms % 1000) * 1000000L;
	for (i = 0; i < slow; i++)
		syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
	/* The word holds the value waited for and nobody wakes it: the wait times out. */
	for (i = 0; i < timeouts; i++)
		syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	while (forks > 0 && wait(NULL) > 0)
		;
	prctl(PR_GET_NAME, comm);
	out = report ? fopen(report, "a") : stdout;
	if (!out)
		return 1;
	fprintf(out, "{\"pid\":%d,\"tid\":%ld,\"comm\":\"%s\"}\n", getpid(),
		(long)syscall(SYS_gettid), comm);
	fclose(out);
	return 0;
}
