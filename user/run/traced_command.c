// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "traced_command.h"
#include "util/log.h"

/*
 * What sclat was started with, of the signals it changes and does not pass
 * on (traced_command_signals_save()). SIGINT and SIGTERM, which sclat passes
 * on to stop the command, are its default (ignored by its caller, as a shell
 * does for a job in the background, they would not stop it).
 */
static const int saved_signals[] = { SIGHUP, SIGPIPE };
#define NR_SAVED (sizeof(saved_signals) / sizeof(saved_signals[0]))
static struct sigaction saved_action[NR_SAVED];
static sigset_t saved_mask;
static bool saved;

void traced_command_signals_save(void)
{
	size_t i;

	for (i = 0; i < NR_SAVED; i++)
		sigaction(saved_signals[i], NULL, &saved_action[i]);
	sigprocmask(SIG_BLOCK, NULL, &saved_mask);
	saved = true;
}

/* In the child: the dispositions and mask sclat had at its start. Async-signal-safe. */
static void signals_restore(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	size_t i;

	for (i = 0; i < NR_SAVED; i++)
		sigaction(saved_signals[i],
			  saved && saved_action[i].sa_handler == SIG_IGN ? &saved_action[i] : &dfl,
			  NULL);
	if (saved) {
		sigdelset(&saved_mask, SIGINT);
		sigdelset(&saved_mask, SIGTERM);
		sigprocmask(SIG_SETMASK, &saved_mask, NULL);
	}
}

/* A record of getdents64(2). */
struct dirent64_rec {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/*
 * In the command's child, before it waits for the go: every descriptor that
 * its exec would close, closed now, but keep_a and keep_b. sclat's own hold
 * locks (the owner record of its tracing session): a child that kept them
 * while it waits would keep sclat's session looking alive after sclat is
 * killed. Async-signal-safe: the parent has threads.
 */
static void cloexec_fds_close(int keep_a, int keep_b)
{
	char buf[1024];
	long n, off;
	int dir, fd, flags;
	const char *c;

	dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += ((struct dirent64_rec *)(buf + off))->reclen) {
			c = ((struct dirent64_rec *)(buf + off))->name;
			if (*c < '0' || *c > '9')
				continue;
			for (fd = 0; *c >= '0' && *c <= '9'; c++)
				fd = fd * 10 + (*c - '0');
			if (fd == dir || fd == keep_a || fd == keep_b)
				continue;
			flags = fcntl(fd, F_GETFD);
			if (flags >= 0 && (flags & FD_CLOEXEC))
				close(fd);
		}
	}
	close(dir);
}

int traced_command_prepare(struct traced_command *c, char **argv)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t stops, mask;
	int go[2], err[2];
	char byte;

	c->pid = -1;
	c->go_fd = -1;
	c->err_fd = -1;
	c->reaped = false;
	c->started = false;
	c->argv = argv;
	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		log_err("pipe: %s", strerror(errno));
		return -errno;
	}
	/*
	 * SIGINT and SIGTERM held across the fork: the child puts them to their
	 * default before it takes one, so that a Ctrl-C it has while held (or
	 * after its go, before its exec) ends it rather than sclat's handler in
	 * its copy, where it would be lost.
	 */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stops, &mask);
	c->pid = fork();
	if (c->pid == 0) {
		sigaction(SIGINT, &dfl, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigprocmask(SIG_SETMASK, &mask, NULL);
	}
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (c->pid < 0) {
		int e = errno;

		log_err("fork: %s", strerror(e));
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(err[0]);
		cloexec_fds_close(go[0], err[1]);
		/* EOF without the byte: sclat gave up before tracing started. */
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		signals_restore();
		execvp(argv[0], argv);
		byte = errno;
		if (write(err[1], &byte, 1) != 1)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
}

int traced_command_start(struct traced_command *c)
{
	unsigned char e;
	ssize_t n;

	if (write(c->go_fd, "g", 1) != 1) {
		log_err("starting %s: %s", c->argv[0], strerror(errno));
		return -EIO;
	}
	c->started = true;
	close(c->go_fd);
	c->go_fd = -1;
	/* Closed by exec (CLOEXEC) on success; one errno byte on failure. */
	do
		n = read(c->err_fd, &e, 1);
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == 1) {
		log_err("%s: %s", c->argv[0], e == ENOENT ? "command not found" : strerror(e));
		return -e;
	}
	return 0;
}

bool traced_command_exited(struct traced_command *c)
{
	if (c->reaped)
		return true;
	if (waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = true;
	return c->reaped;
}

/* Wait for the child to end, whatever signals come meanwhile. */
static void reap(struct traced_command *c)
{
	while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
		;
	c->reaped = true;
}

/* Wait for the child for up to ms, or until *stops moves; whether it was reaped. */
static bool reap_within(struct traced_command *c, int ms, const volatile sig_atomic_t *stops,
			sig_atomic_t stops_then)
{
	const struct timespec tick = { .tv_nsec = 10000000 };
	int waited;

	for (waited = 0; waited < ms; waited += 10) {
		if (traced_command_exited(c))
			return true;
		if (stops && *stops != stops_then)
			return false;
		nanosleep(&tick, NULL);
	}
	return traced_command_exited(c);
}

int traced_command_finish(struct traced_command *c, int sig, bool had,
			  const volatile sig_atomic_t *stops)
{
	sig_atomic_t stops_then = stops ? *stops : 0;

	if (c->go_fd >= 0) {
		close(c->go_fd); /* a child still held exits with 127 */
		c->go_fd = -1;
	}
	if (c->err_fd >= 0) {
		close(c->err_fd);
		c->err_fd = -1;
	}
	if (!traced_command_exited(c)) {
		/* The terminal sent it to the child's process group only if it is ours. */
		if (!had || !c->started || getpgid(c->pid) != getpgrp())
			kill(c->pid, sig);
		if (!c->started) {
			reap(c);
		} else if (!reap_within(c, 1000, stops, stops_then)) {
			if (!stops || *stops == stops_then)
				log_warn("waiting for %s (pid %d) to end after SIG%s; "
					 "Ctrl-C again kills it",
					 c->argv[0], (int)c->pid, sigabbrev_np(sig));
			/*
			 * Another Ctrl-C: a terminal's reaches the command too, which
			 * may end on it; a moment for that before the kill.
			 */
			if (!reap_within(c, TRACED_COMMAND_GRACE_MS - 1000, stops, stops_then) &&
			    !reap_within(c, 200, NULL, 0)) {
				log_warn("%s (pid %d) did not end: killed", c->argv[0],
					 (int)c->pid);
				kill(c->pid, SIGKILL);
				reap(c);
			}
		}
	}
	if (!c->started)
		return 128 + sig;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return 1;
}
