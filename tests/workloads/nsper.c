// SPDX-License-Identifier: GPL-2.0-only
/*
 * ns per syscall of a tight loop, or per round trip between two threads, for
 * scripts/bench:
 *
 *   nsper WORKLOAD [--duration SECONDS | --count N] [--warmup SECONDS] [--cpu CPU]
 *         [--procs N] [--calls K]
 *
 * getppid: getppid(); read: a 1-byte read from /dev/zero; pipe: a 1-byte write
 * then a 1-byte read on a pipe (two syscalls per iteration, both counted).
 * pingpong-1cpu, pingpong-2cpu: a byte goes to a second thread and back over
 * two pipes (4 syscalls, each side blocking in read until the other writes);
 * the threads share CPU (1cpu: 2 context switches a round trip), or each has
 * one of its own (2cpu: each side goes idle and is woken). ring: --procs N
 * processes (2 .. 1024, default 8) on one CPU pass a byte round a ring of
 * pipes, each making --calls K getppid() (default 8) in its turn: N turns a
 * lap, N * (K + 2) syscalls, N context switches; each process is a class of
 * its own under `classes = process`.
 * Pinned to one CPU (default: the last one it may run on; 2cpu: the second
 * thread to the one before), warmed up first, timed with CLOCK_MONOTONIC.
 * Prints one line of key=value pairs:
 *   workload=getppid syscalls=N ops=N ns=T ns_per_op=X cpu_ns=C switches=S
 * ops are syscalls, round trips for the ping-pongs, laps for the ring. cpu_ns (the thread's
 * CPU time; both threads' for pingpong-1cpu) and switches (involuntary
 * context switches) tell a run that shared its CPU with another task: then
 * cpu_ns < ns. pingpong-2cpu waits by design: its cpu_ns says nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Iterations between two clock reads in --duration mode. */
#define BATCH 1024

enum workload { W_GETPPID, W_READ, W_PIPE, W_PINGPONG_1CPU, W_PINGPONG_2CPU, W_RING, W_COUNT };

static const char *const workload_names[] = { "getppid",       "read",		"pipe",
					      "pingpong-1cpu", "pingpong-2cpu", "ring" };

/* The syscalls an op counts (run() counts pipe's two as two ops; the ring's: ring_start). */
static int syscalls_per_op[] = { 1, 1, 1, 4, 4, 0 };

static int fds[2];
/* The ping-pong's pipes: there (to the second thread) and back. */
static int there[2], back[2];

#define RING_PROCS_MAX 1024
/* The ring's processes, its getppid() calls per turn, and the first one's ends of the ring. */
static int ring_procs = 8, ring_calls = 8, ring_in = -1, ring_out = -1;
static pid_t ring_pids[RING_PROCS_MAX];

static unsigned long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A ring process's turn: its getppid() calls, then the byte to the next (and back, if in >= 0). */
static void ring_turn(int out, int in)
{
	char c = 0;
	int i;

	for (i = 0; i < ring_calls; i++)
		syscall(SYS_getppid);
	if (write(out, &c, 1) != 1 || (in >= 0 && read(in, &c, 1) != 1))
		exit(1);
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
	case W_PINGPONG_1CPU:
	case W_PINGPONG_2CPU:
		if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
			exit(1);
		return 1;
	case W_RING:
		ring_turn(ring_out, ring_in);
		return 1;
	default:
		return 0;
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "nsper: pinning to CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
}

/* The ping-pong's other side: each byte that comes goes back, until the pipe closes. */
static void *echo(void *arg)
{
	char c;

	pin(*(int *)arg);
	while (read(there[0], &c, 1) == 1)
		if (write(back[1], &c, 1) != 1)
			break;
	return NULL;
}

/* The ring's processes but the first, each on its pipe: they end when the ring closes. */
static void ring_start(int cpu)
{
	int p[RING_PROCS_MAX][2], i, j;

	for (i = 0; i < ring_procs; i++) {
		if (pipe(p[i])) {
			fprintf(stderr, "nsper: ring: pipe: %s\n", strerror(errno));
			exit(1);
		}
	}
	/* Process i reads from p[i], writes to p[i + 1]; the first is this one. */
	for (i = 1; i < ring_procs; i++) {
		ring_pids[i] = fork();
		if (ring_pids[i] < 0) {
			fprintf(stderr, "nsper: ring: fork: %s\n", strerror(errno));
			exit(1);
		}
		if (ring_pids[i])
			continue;
		pin(cpu);
		for (j = 0; j < ring_procs; j++) {
			if (j != i)
				close(p[j][0]);
			if (j != (i + 1) % ring_procs)
				close(p[j][1]);
		}
		for (;;) {
			char c;

			if (read(p[i][0], &c, 1) != 1)
				_exit(0);
			ring_turn(p[(i + 1) % ring_procs][1], -1);
		}
	}
	ring_in = p[0][0];
	ring_out = p[1][1];
	for (j = 0; j < ring_procs; j++) {
		if (j != 0)
			close(p[j][0]);
		if (j != 1)
			close(p[j][1]);
	}
	syscalls_per_op[W_RING] = ring_procs * (ring_calls + 2);
}

/* Closes the ring: each process reads its end of file, closes its write end, and exits. */
static void ring_stop(void)
{
	int i;

	close(ring_out);
	for (i = 1; i < ring_procs; i++)
		waitpid(ring_pids[i], NULL, 0);
}

/* Run for ns nanoseconds (or count syscalls); returns syscalls made, *elapsed set. */
static unsigned long long run(enum workload w, unsigned long long ns, unsigned long long count,
			      unsigned long long *elapsed)
{
	unsigned long long start = clock_ns(CLOCK_MONOTONIC), end = start + ns, n = 0, t = start;
	/* A lap of the ring takes up to milliseconds: the clock at each. */
	int i, batch = w == W_RING ? 1 : BATCH;

	if (count) {
		while (n < count)
			n += step(w);
		t = clock_ns(CLOCK_MONOTONIC);
	} else {
		while (t < end) {
			for (i = 0; i < batch; i++)
				n += step(w);
			t = clock_ns(CLOCK_MONOTONIC);
		}
	}
	*elapsed = t - start;
	return n;
}

static int count_arg(const char *opt, const char *s, int min, int max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "nsper: %s %s: not a number from %d to %d\n", opt, s, min, max);
		exit(2);
	}
	return v;
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
	int cpu = -1, echo_cpu, i;
	pthread_t echo_thread;
	clockid_t cpu_clock;
	char *end;

	if (argc < 2)
		goto usage;
	for (w = W_GETPPID; w < W_COUNT; w++)
		if (!strcmp(argv[1], workload_names[w]))
			break;
	if (w == W_COUNT) {
		fprintf(stderr,
			"nsper: unknown workload \"%s\" (getppid, read, pipe, pingpong-1cpu, "
			"pingpong-2cpu or ring)\n",
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
		} else if (!strcmp(argv[i], "--procs")) {
			ring_procs = count_arg(argv[i], argv[i + 1], 2, RING_PROCS_MAX);
		} else if (!strcmp(argv[i], "--calls")) {
			ring_calls = count_arg(argv[i], argv[i + 1], 0, 1000000);
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
	pin(cpu);
	echo_cpu = w == W_PINGPONG_2CPU ? (cpu ? cpu - 1 : 1) : cpu;
	if (w == W_READ) {
		fds[0] = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		if (fds[0] < 0) {
			fprintf(stderr, "nsper: /dev/zero: %s\n", strerror(errno));
			return 1;
		}
	} else if (w == W_PIPE && pipe2(fds, O_CLOEXEC)) {
		fprintf(stderr, "nsper: pipe: %s\n", strerror(errno));
		return 1;
	} else if (w == W_PINGPONG_1CPU || w == W_PINGPONG_2CPU) {
		if (pipe2(there, O_CLOEXEC) || pipe2(back, O_CLOEXEC) ||
		    pthread_create(&echo_thread, NULL, echo, &echo_cpu)) {
			fprintf(stderr, "nsper: ping-pong: %s\n", strerror(errno));
			return 1;
		}
	} else if (w == W_RING) {
		ring_start(cpu);
	}

	/* Both threads share the CPU in pingpong-1cpu: both are what ran there. */
	cpu_clock = w == W_PINGPONG_1CPU ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID;
	run(w, warmup * 1e9, 0, &elapsed);
	getrusage(RUSAGE_THREAD, &ru0);
	cpu0 = clock_ns(cpu_clock);
	n = run(w, duration * 1e9, count, &elapsed);
	cpu0 = clock_ns(cpu_clock) - cpu0;
	getrusage(RUSAGE_THREAD, &ru1);
	if (w == W_PINGPONG_1CPU || w == W_PINGPONG_2CPU) {
		close(there[1]);
		pthread_join(echo_thread, NULL);
	} else if (w == W_RING) {
		ring_stop();
	}
	printf("workload=%s syscalls=%llu ops=%llu ns=%llu ns_per_op=%.2f cpu_ns=%llu "
	       "switches=%ld\n",
	       workload_names[w], n * syscalls_per_op[w], n, elapsed, n ? (double)elapsed / n : 0.0,
	       cpu0, ru1.ru_nivcsw - ru0.ru_nivcsw);
	return 0;
usage:
	fprintf(stderr, "usage: nsper getppid|read|pipe|pingpong-1cpu|pingpong-2cpu|ring "
			"[--duration SECONDS | --count N] [--warmup SECONDS] [--cpu CPU] "
			"[--procs N] [--calls K]\n");
	return 2;
}
