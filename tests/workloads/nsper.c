// SPDX-License-Identifier: GPL-2.0-only
/*
 * ns per syscall of a tight loop, for scripts/bench:
 *
 *   nsper getppid|read|pipe [--duration SECONDS | --count N] [--warmup SECONDS] [--cpu CPU]
 *
 * getppid: getppid(); read: a 1-byte read from /dev/zero; pipe: a 1-byte write
 * then a 1-byte read on a pipe (two syscalls per iteration, both counted).
 * Pinned to one CPU (default: the last one it may run on), warmed up first,
 * timed with CLOCK_MONOTONIC. Prints one line of key=value pairs:
 *   workload=getppid syscalls=N ns=T ns_per_syscall=X cpu_ns=C switches=S
 * cpu_ns (the thread's CPU time) and switches (involuntary context switches)
 * tell a run that shared its CPU with another task: then cpu_ns < ns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Iterations between two clock reads in --duration mode. */
#define BATCH 1024

enum workload { W_GETPPID, W_READ, W_PIPE };

static const char *const workload_names[] = { "getppid", "read", "pipe" };

static int fds[2];

static unsigned long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* One iteration; returns how many syscalls it made. */
static inline int step(enum workload w)
{
	char c = 0;

	switch (w) {
	case W_GETPPID:
		syscall(SYS_getppid);
		return 1;
	case W_READ:
		if (read(fds[0], &c, 1) != 1)
			exit(1);
		return 1;
	case W_PIPE:
		if (write(fds[1], &c, 1) != 1 || read(fds[0], &c, 1) != 1)
			exit(1);
		return 2;
	}
	return 0;
}

/* Run for ns nanoseconds (or count syscalls); returns syscalls made, *elapsed set. */
static unsigned long long run(enum workload w, unsigned long long ns, unsigned long long count,
			      unsigned long long *elapsed)
{
	unsigned long long start = clock_ns(CLOCK_MONOTONIC), end = start + ns, n = 0, t = start;
	int i;

	if (count) {
		while (n < count)
			n += step(w);
		t = clock_ns(CLOCK_MONOTONIC);
	} else {
		while (t < end) {
			for (i = 0; i < BATCH; i++)
				n += step(w);
			t = clock_ns(CLOCK_MONOTONIC);
		}
	}
	*elapsed = t - start;
	return n;
}

static double seconds_arg(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || v < 0 || v > 3600) {
		fprintf(stderr, "nsper: %s %s: not a number of seconds (0 .. 3600)\n", opt, s);
		exit(2);
	}
	return v;
}

static int cpu_default(void)
{
	cpu_set_t set;
	int cpu, last = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			last = cpu;
	return last;
}

int main(int argc, char **argv)
{
	double duration = 1.0, warmup = 0.1;
	unsigned long long count = 0, n, elapsed, cpu0;
	struct rusage ru0, ru1;
	enum workload w;
	int cpu = -1, i;
	cpu_set_t set;
	char *end;

	if (argc < 2)
		goto usage;
	for (w = W_GETPPID; w <= W_PIPE; w++)
		if (!strcmp(argv[1], workload_names[w]))
			break;
	if (w > W_PIPE) {
		fprintf(stderr, "nsper: unknown workload \"%s\" (getppid, read or pipe)\n",
			argv[1]);
		return 2;
	}
	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--duration")) {
			duration = seconds_arg(argv[i], argv[i + 1]);
		} else if (!strcmp(argv[i], "--warmup")) {
			warmup = seconds_arg(argv[i], argv[i + 1]);
		} else if (!strcmp(argv[i], "--count")) {
			errno = 0;
			count = strtoull(argv[i + 1], &end, 10);
			if (errno || *end || !count) {
				fprintf(stderr, "nsper: --count %s: not a positive number\n",
					argv[i + 1]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--cpu")) {
			errno = 0;
			cpu = strtol(argv[i + 1], &end, 10);
			if (errno || *end || cpu < 0 || cpu >= CPU_SETSIZE) {
				fprintf(stderr, "nsper: --cpu %s: not a CPU number\n", argv[i + 1]);
				return 2;
			}
		} else {
			break;
		}
	}
	if (i != argc)
		goto usage;

	if (cpu < 0)
		cpu = cpu_default();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "nsper: pinning to CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	if (w == W_READ) {
		fds[0] = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		if (fds[0] < 0) {
			fprintf(stderr, "nsper: /dev/zero: %s\n", strerror(errno));
			return 1;
		}
	} else if (w == W_PIPE && pipe2(fds, O_CLOEXEC)) {
		fprintf(stderr, "nsper: pipe: %s\n", strerror(errno));
		return 1;
	}

	run(w, warmup * 1e9, 0, &elapsed);
	getrusage(RUSAGE_THREAD, &ru0);
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	n = run(w, duration * 1e9, count, &elapsed);
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	getrusage(RUSAGE_THREAD, &ru1);
	printf("workload=%s syscalls=%llu ns=%llu ns_per_syscall=%.2f cpu_ns=%llu switches=%ld\n",
	       workload_names[w], n, elapsed, n ? (double)elapsed / n : 0.0, cpu0,
	       ru1.ru_nivcsw - ru0.ru_nivcsw);
	return 0;
usage:
	fprintf(stderr, "usage: nsper getppid|read|pipe [--duration SECONDS | --count N] "
			"[--warmup SECONDS] [--cpu CPU]\n");
	return 2;
}
