// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "traced_command.h"

int traced_command_prepare(struct traced_command *c, char **argv)
{
	int go[2], err[2];
	char byte;

	c->pid = -1;
	c->go_fd = -1;
	c->err_fd = -1;
	c->reaped = false;
	c->argv = argv;
	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		fprintf(stderr, "sclat: pipe: %s\n", strerror(errno));
		return -errno;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;

		fprintf(stderr, "sclat: fork: %s\n", strerror(e));
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(err[0]);
		/* EOF without the byte: sclat gave up before tracing started. */
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
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
		fprintf(stderr, "sclat: starting %s: %s\n", c->argv[0], strerror(errno));
		return -EIO;
	}
	close(c->go_fd);
	c->go_fd = -1;
	/* Closed by exec (CLOEXEC) on success; one errno byte on failure. */
	do
		n = read(c->err_fd, &e, 1);
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == 1) {
		fprintf(stderr, "sclat: %s: %s\n", c->argv[0],
			e == ENOENT ? "command not found" : strerror(e));
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

int traced_command_finish(struct traced_command *c, int sig)
{
	if (c->go_fd >= 0) {
		close(c->go_fd); /* a child still held exits with 127 */
		c->go_fd = -1;
	}
	if (c->err_fd >= 0) {
		close(c->err_fd);
		c->err_fd = -1;
	}
	if (!traced_command_exited(c)) {
		kill(c->pid, sig);
		while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
			;
		c->reaped = true;
	}
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return 1;
}
