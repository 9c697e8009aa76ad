// SPDX-License-Identifier: GPL-2.0-only
/*
 * Many thread names at once, for the class tests:
 *
 *   named_threads N SECONDS [PERIOD_MS [GO_FILE]]
 *
 * N threads, each named tNNNNN (prctl), wait for each other, then each reads
 * 1 byte of /dev/zero every PERIOD_MS (default 100) for SECONDS: N classes of
 * `classes = comm` asked for in the same few milliseconds. With GO_FILE, they
 * start once that file exists (a test holds its tracer's controller first).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t start;
static struct timespec period;
static double seconds;
static int zero_fd;

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *reader(void *arg)
{
	char name[16], byte;
	double stop;

	snprintf(name, sizeof(name), "t%05lu", (unsigned long)(size_t)arg);
	prctl(PR_SET_NAME, name);
	pthread_barrier_wait(&start);
	stop = mono_s() + seconds;
	while (mono_s() < stop) {
		if (read(zero_fd, &byte, 1) != 1)
			break;
		nanosleep(&period, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *go = argc > 4 ? argv[4] : NULL;
	struct timespec poll = { 0, 10000000L };
	pthread_attr_t attr;
	pthread_t *threads;
	long n, i, period_ms = 100;

	if (argc < 3 || (n = atol(argv[1])) <= 0 || (seconds = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: named_threads N SECONDS [PERIOD_MS]\n");
		return 2;
	}
	if (argc > 3)
		period_ms = atol(argv[3]);
	period.tv_sec = period_ms / 1000;
	period.tv_nsec = period_ms % 1000 * 1000000L;
	zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	threads = calloc(n, sizeof(*threads));
	if (zero_fd < 0 || !threads) {
		perror("named_threads");
		return 1;
	}
	/* With a go file, this thread is the last to reach the barrier, once it exists. */
	pthread_barrier_init(&start, NULL, n + (go != NULL));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < n; i++)
		if (pthread_create(&threads[i], &attr, reader, (void *)(size_t)i)) {
			perror("named_threads: pthread_create");
			return 1;
		}
	if (go) {
		printf("ready\n");
		fflush(stdout);
		while (access(go, F_OK))
			nanosleep(&poll, NULL);
		pthread_barrier_wait(&start);
	}
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
