// SPDX-License-Identifier: GPL-2.0-only
/*
 * A steady stream of one fast syscall, for tests that change the policy while
 * it runs:
 *
 *   ticker [--syscall getppid|read] [--batch N] [--pause-us U] [--seconds S]
 *          [--until FILE] [--last FILE]
 *
 * Makes N calls (default 10), sleeps U microseconds (default 10000), and so on
 * for S seconds (default 60), until FILE exists (looked for before each batch)
 * or until killed. read reads one byte of /dev/zero. The sleep is
 * clock_nanosleep, which the default policy never reports. With --last, it
 * writes to FILE as it ends when its last batch began (CLOCK_MONOTONIC, ns):
 * its last call came after.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double now(void)
{
	return now_ns() / 1e9;
}

int main(int argc, char **argv)
{
	long batch = 10, pause_us = 10000, i;
	double seconds = 60, end;
	const char *which = "getppid", *until = NULL, *last_file = NULL;
	long long last = 0;
	struct timespec ts;
	char byte;
	int fd = -1;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--syscall"))
			which = argv[i + 1];
		else if (!strcmp(argv[i], "--batch"))
			batch = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--pause-us"))
			pause_us = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--until"))
			until = argv[i + 1];
		else if (!strcmp(argv[i], "--last"))
			last_file = argv[i + 1];
		else
			break;
	}
	if (i != argc || (strcmp(which, "getppid") && strcmp(which, "read"))) {
		fprintf(stderr, "usage: ticker [--syscall getppid|read] [--batch N] "
				"[--pause-us U] [--seconds S] [--until FILE] [--last FILE]\n");
		return 2;
	}
	if (!strcmp(which, "read")) {
		fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror("/dev/zero");
			return 1;
		}
	}
	ts.tv_sec = pause_us / 1000000;
	ts.tv_nsec = (pause_us % 1000000) * 1000;
	for (end = now() + seconds; now() < end && !(until && !access(until, F_OK));) {
		last = now_ns();
		for (i = 0; i < batch; i++) {
			if (fd < 0)
				syscall(SYS_getppid);
			else if (read(fd, &byte, 1) != 1)
				return 1;
		}
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	}
	if (last_file) {
		FILE *f = fopen(last_file, "w");

		if (!f || fprintf(f, "%lld\n", last) < 0 || fclose(f)) {
			perror(last_file);
			return 1;
		}
	}
	return 0;
}
