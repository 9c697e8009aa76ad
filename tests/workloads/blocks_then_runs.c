// SPDX-License-Identifier: GPL-2.0-only
/*
 * A thread whose calls alternate between one that blocks and many that never
 * leave the CPU, for tests/integration/test_kstack.py:
 *
 *   blocks_then_runs [--rounds N] [--calls M] --report FILE
 *
 * Each round, the main thread reads a pipe that a thread named "writer" fills
 * 20 ms later (the read sleeps in pipe_read, the writer wakes it), then makes
 * M preads of 256 KiB from /dev/zero: a copy on the CPU of several microseconds,
 * which never sleeps (it may be preempted). Under a threshold of 1 us each of
 * them is an outlier that never blocked, right after one that did, on the
 * same thread: its kernel stack must be empty, not the read's.
 *
 * Writes one JSON line to FILE: the tids, the pipe's inode, the rounds and
 * calls made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS	   20
#define PREAD_SIZE (256 << 10)

static int pipe_fds[2];
static sem_t go;
static int rounds = 5;
static volatile pid_t writer_tid;

static void die(const char *what)
{
	fprintf(stderr, "blocks_then_runs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: blocks_then_runs [--rounds N] [--calls M] --report FILE\n");
	exit(2);
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/* Each round: told to go, it sleeps WAIT_MS, then fills the pipe the main thread reads. */
static void *writer(void *arg)
{
	struct timespec ts = { .tv_nsec = WAIT_MS * 1000000L };
	int i;

	(void)arg;
	writer_tid = gettid_();
	for (i = 0; i < rounds; i++) {
		while (sem_wait(&go) && errno == EINTR)
			;
		while (nanosleep(&ts, NULL) && errno == EINTR)
			;
		if (write(pipe_fds[1], "x", 1) != 1)
			die("write");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static char buf[PREAD_SIZE];
	const char *report_path = NULL;
	int i, j, calls = 50, zero;
	struct stat st;
	pthread_t t;
	FILE *report;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--report") && i + 1 < argc)
			report_path = argv[++i];
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			calls = atoi(argv[++i]);
		else
			usage();
	}
	if (!report_path || rounds < 1 || calls < 1)
		usage();
	report = fopen(report_path, "a");
	if (!report)
		die(report_path);
	/* Its pages faulted in now: a pread that faults one in might sleep for memory. */
	memset(buf, 1, sizeof(buf));
	zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (zero < 0 || pipe2(pipe_fds, O_CLOEXEC) || sem_init(&go, 0, 0))
		die("setup");
	if (pthread_create(&t, NULL, writer, NULL))
		die("pthread_create");
	pthread_setname_np(t, "writer");
	for (i = 0; i < rounds; i++) {
		sem_post(&go);
		if (read(pipe_fds[0], buf, 1) != 1)
			die("read");
		for (j = 0; j < calls; j++)
			if (pread(zero, buf, sizeof(buf), 0) != sizeof(buf))
				die("pread");
	}
	pthread_join(t, NULL);
	if (fstat(pipe_fds[0], &st))
		die("fstat");
	fprintf(report,
		"{\"reader_tid\":%d,\"writer_tid\":%d,\"pipe_ino\":%llu,\"rounds\":%d,"
		"\"calls\":%d}\n",
		gettid_(), writer_tid, (unsigned long long)st.st_ino, rounds, calls);
	if (fclose(report))
		die(report_path);
	return 0;
}
