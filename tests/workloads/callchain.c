// SPDX-License-Identifier: GPL-2.0-only
/*
 * A known user stack for the unwinding tests: main() -> handle_request() ->
 * slow_read(), none inlined, built without frame pointers (and once more
 * with frame pointers and no CFI at all, as callchain-fp). The pipe's writer
 * waits until the reader sleeps in read(2), then 20 ms: the read takes 20 ms
 * or more however the machine schedules them.
 *
 *   callchain pipe         slow_read() reads a pipe that a writer thread
 *                          fills after 20 ms: one slow read(2)
 *   callchain thread       the same, called by a thread: reader_thread() ->
 *                          handle_request() -> slow_read(), on a thread's stack
 *   callchain gap          main() -> handle_gap() -> slow_read(), where
 *                          handle_gap()'s frame holds a buffer whose pages
 *                          are dropped (madvise): a hole in the stack above
 *                          slow_read(), as a page swapped out would be
 *   callchain burst N [US] slow_read() calls getppid(2) N times, as fast as it can
 *                          or US microseconds apart
 *
 * Prints one JSON line to stdout: {"mode":..., "calls":N, "pipe_ino":...}.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int pipe_fds[2];
static long burst_gap_us;

static pid_t reader_tid; /* atomic: the thread that will read the pipe, once it is about to */

/* Whether thread tid of this process sleeps (blocked in the pipe's read). */
static bool thread_sleeps(pid_t tid)
{
	char path[64], stat[512], *state;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	state = strrchr(stat, ')');
	return state && state[1] == ' ' && state[2] == 'S';
}

/* Fill the pipe 20 ms after the reader blocked on it: however late the reader came. */
static void *late_writer(void *arg)
{
	struct timespec delay = { 0, 20 * 1000 * 1000 }, poll = { 0, 100 * 1000 };
	pid_t tid;

	(void)arg;
	while (!(tid = __atomic_load_n(&reader_tid, __ATOMIC_ACQUIRE)) || !thread_sleeps(tid))
		nanosleep(&poll, NULL);
	nanosleep(&delay, NULL);
	if (write(pipe_fds[1], "x", 1) != 1)
		exit(1);
	return NULL;
}

/* noipa: no inlining, cloning or renaming; the names are what the test looks for. */
__attribute__((noipa)) static long slow_read(int burst)
{
	char c;
	long i, sum = 0;

	if (!burst) {
		__atomic_store_n(&reader_tid, gettid(), __ATOMIC_RELEASE);
		return read(pipe_fds[0], &c, 1);
	}
	for (i = 0; i < burst; i++) {
		sum += syscall(SYS_getppid);
		if (burst_gap_us)
			usleep(burst_gap_us);
	}
	return sum ? burst : 0;
}

__attribute__((noipa)) static long handle_request(int burst)
{
	long n = slow_read(burst);

	/* Work after the call, so that it is not a tail call. */
	return n < 0 ? -1 : n + 1;
}

/* A frame with pages that are not there: slow_read()'s stack copy meets them. */
__attribute__((noipa)) static long handle_gap(void)
{
	char hole[16 * 4096];
	long page = sysconf(_SC_PAGESIZE);
	char *first = (char *)(((unsigned long)hole + page - 1) & ~(page - 1));
	long n;

	/* Only whole pages of the buffer, which holds nothing anyone reads. */
	if (madvise(first, 8 * page, MADV_DONTNEED))
		return -1;
	n = slow_read(0);
	asm volatile("" : : "r"(hole) : "memory");
	return n < 0 ? -1 : n + 1;
}

static long thread_result;

__attribute__((noipa)) static void *reader_thread(void *arg)
{
	(void)arg;
	thread_result = handle_request(0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t writer, reader;
	bool threaded = false, gap = false;
	int burst = 0;
	struct stat st;
	long n;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "burst")) {
		burst = atoi(argv[2]);
		burst_gap_us = argc == 4 ? atol(argv[3]) : 0;
	} else if (argc == 2 && !strcmp(argv[1], "thread")) {
		threaded = true;
	} else if (argc == 2 && !strcmp(argv[1], "gap")) {
		gap = true;
	} else if (argc != 2 || strcmp(argv[1], "pipe")) {
		fprintf(stderr, "usage: callchain pipe|thread|gap | callchain burst N [US]\n");
		return 2;
	}
	if (pipe(pipe_fds) || fstat(pipe_fds[0], &st))
		return 1;
	if (!burst && pthread_create(&writer, NULL, late_writer, NULL))
		return 1;
	if (threaded) {
		if (pthread_create(&reader, NULL, reader_thread, NULL))
			return 1;
		pthread_join(reader, NULL);
		n = thread_result;
	} else if (gap) {
		n = handle_gap();
	} else {
		n = handle_request(burst);
	}
	if (!burst)
		pthread_join(writer, NULL);
	printf("{\"mode\":\"%s\",\"calls\":%d,\"pipe_ino\":%llu,\"result\":%ld}\n", argv[1],
	       burst ? burst : 1, (unsigned long long)st.st_ino, n);
	return n > 0 ? 0 : 1;
}
