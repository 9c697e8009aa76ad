// SPDX-License-Identifier: GPL-2.0-only
/*
 * A known user stack for the unwinding tests: main() -> handle_request() ->
 * slow_read(), none inlined, built without frame pointers (and once more
 * with frame pointers and no CFI at all, as callchain-fp).
 *
 *   callchain pipe         slow_read() reads a pipe that a writer thread
 *                          fills after 20 ms: one slow read(2)
 *   callchain burst N      slow_read() calls getppid(2) N times, as fast as it can
 *
 * Prints one JSON line to stdout: {"mode":..., "calls":N, "pipe_ino":...}.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int pipe_fds[2];

static void *late_writer(void *arg)
{
	struct timespec delay = { 0, 20 * 1000 * 1000 };

	(void)arg;
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

	if (!burst)
		return read(pipe_fds[0], &c, 1);
	for (i = 0; i < burst; i++)
		sum += syscall(SYS_getppid);
	return sum ? burst : 0;
}

__attribute__((noipa)) static long handle_request(int burst)
{
	long n = slow_read(burst);

	/* Work after the call, so that it is not a tail call. */
	return n < 0 ? -1 : n + 1;
}

int main(int argc, char **argv)
{
	int burst = 0;
	pthread_t writer;
	struct stat st;
	long n;

	if (argc == 3 && !strcmp(argv[1], "burst")) {
		burst = atoi(argv[2]);
	} else if (argc != 2 || strcmp(argv[1], "pipe")) {
		fprintf(stderr, "usage: callchain pipe | callchain burst N\n");
		return 2;
	}
	if (pipe(pipe_fds) || fstat(pipe_fds[0], &st))
		return 1;
	if (!burst && pthread_create(&writer, NULL, late_writer, NULL))
		return 1;
	n = handle_request(burst);
	if (!burst)
		pthread_join(writer, NULL);
	printf("{\"mode\":\"%s\",\"calls\":%d,\"pipe_ino\":%llu,\"result\":%ld}\n",
	       burst ? "burst" : "pipe", burst ? burst : 1, (unsigned long long)st.st_ino, n);
	return n > 0 ? 0 : 1;
}
