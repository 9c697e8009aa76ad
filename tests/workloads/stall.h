/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A stall for a workload's thread to make on demand: a 2-byte read of a pipe
 * that a helper thread fills 2 ms after the thread sleeps in that read. The
 * helper waits for the request on a semaphore and looks at the thread's
 * state with pread, not read, so the thread's reads are its own calls and its
 * stalls only. Waiting for the stall in read() would put a second kind of
 * slow read in the thread's class, one per stall, as long as the time between
 * two stalls; 2 ms from the request would make a short stall of one that the
 * thread entered late, having lost its CPU on a loaded machine.
 */
#ifndef SCLAT_WORKLOAD_STALL_H
#define SCLAT_WORKLOAD_STALL_H

#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "monotonic.h"

struct stall {
	sem_t request;
	int pipe_r, pipe_w, stat_fd; /* stat_fd: the stalling thread's /proc stat */
};

/* The state letter of /proc/.../stat (R, S, D, ...), read with pread. */
static inline char stall_task_state(int stat_fd)
{
	char buf[512], *p;
	ssize_t n = pread(stat_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static inline void *stall_helper_main(void *arg)
{
	struct stall *s = arg;

	for (;;) {
		while (sem_wait(&s->request) && errno == EINTR)
			;
		/* The stalling thread sleeps in no other call. */
		while (stall_task_state(s->stat_fd) != 'S')
			sleep_ns(20000);
		sleep_ns(2000000);
		if (write(s->pipe_w, "ss", 2) != 2)
			break;
	}
	return NULL;
}

/* Stalls for the calling thread, from now on: 0, or -1 and errno. */
static inline int stall_start(struct stall *s)
{
	char path[64];
	pthread_t t;
	int p[2], err;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)gettid());
	s->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->stat_fd < 0 || pipe(p) || sem_init(&s->request, 0, 0))
		return -1;
	s->pipe_r = p[0];
	s->pipe_w = p[1];
	err = pthread_create(&t, NULL, stall_helper_main, s);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* One stall of the thread that started s: 0, or -1 and errno. */
static inline int stall_make(struct stall *s)
{
	char buf[2];

	if (sem_post(&s->request) || read(s->pipe_r, buf, 2) != 2)
		return -1;
	return 0;
}

#endif
