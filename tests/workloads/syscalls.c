// SPDX-License-Identifier: GPL-2.0-only
/*
 * A workload with a known set of syscalls, for the integration tests:
 *
 *   syscalls [--fast N] [--slow M] [--slow-ms MS] [--bad B] [--timeouts T] [--fork K]
 *            [--many U] [--report FILE]
 *
 * Makes N getppid() calls and M clock_nanosleep() calls of MS ms (default 5),
 * B calls of syscall number -1 (which the kernel refuses with ENOSYS), and T
 * futex() waits that give up after MS ms with ETIMEDOUT: slow and failing,
 * so outliers carry an errno. --many: U calls of each of 102 syscall numbers,
 * more than sclat has histograms for, all refused: 87 that x86-64 leaves
 * unassigned (337 to 423: ENOSYS; 335 and 336 are uretprobe's and uprobe's)
 * and 15 given fd -1 (EBADF), those refused so counted in the report
 * ("many"); then the slow calls. It does so after forking K children that do
 * the same. Each process appends one JSON line to FILE (or stdout) with its
 * pid, tid and comm once it is done.
 */
#define _GNU_SOURCE
#include <errno.h>
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

/* --many: u calls of each number; how many calls returned what was expected. */
static long many_syscalls(long u)
{
	static const long ebadf[] = {
		SYS_read,   SYS_write,	SYS_close,	SYS_fsync,  SYS_fdatasync,
		SYS_fchdir, SYS_fchmod, SYS_fchown,	SYS_fstat,  SYS_ftruncate,
		SYS_dup,    SYS_lseek,	SYS_getdents64, SYS_syncfs, SYS_fstatfs,
	};
	long nr, i, made = 0;
	unsigned int k;

	for (nr = 337; nr <= 423; nr++)
		for (i = 0; i < u; i++)
			made += syscall(nr, 0, 0, 0) == -1 && errno == ENOSYS;
	for (k = 0; k < sizeof(ebadf) / sizeof(ebadf[0]); k++)
		for (i = 0; i < u; i++)
			made += syscall(ebadf[k], -1, 0, 0) == -1 && errno == EBADF;
	return made;
}

int main(int argc, char **argv)
{
	long fast = 0, slow = 0, slow_ms = 5, bad = 0, timeouts = 0, forks = 0, many = 0, i;
	long made = 0;
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
		else if (!strcmp(argv[i], "--many"))
			many = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--report"))
			report = argv[i + 1];
		else
			break;
	}
	if (i != argc) {
		fprintf(stderr, "usage: syscalls [--fast N] [--slow M] [--slow-ms MS] "
				"[--bad B] [--timeouts T] [--fork K] [--many U] [--report FILE]\n");
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
	if (many > 0)
		made = many_syscalls(many);
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
	fprintf(out, "{\"pid\":%d,\"tid\":%ld,\"comm\":\"%s\",\"many\":%ld}\n", getpid(),
		(long)syscall(SYS_gettid), comm, made);
	fclose(out);
	return 0;
}
