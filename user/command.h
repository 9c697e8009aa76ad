/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command of `sclat ... -- COMMAND`: forked first and held before exec,
 * so that its pid is in scope before it runs a single instruction of its own.
 */
#ifndef SCLAT_COMMAND_H
#define SCLAT_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

struct command {
	pid_t pid;
	int go_fd;		/* write end: one byte lets the child exec */
	int err_fd;		/* read end: the child's errno if exec failed */
	int status;		/* wait status, once reaped */
	bool reaped;
	char **argv;
};

/* Fork the child and hold it. Prints one line and returns -errno on failure. */
int command_prepare(struct command *c, char **argv);

/* Let the child exec; returns -errno (after one line on stderr) if exec failed. */
int command_start(struct command *c);

/* Whether the child has exited (reaps it without blocking). */
bool command_exited(struct command *c);

/*
 * Send sig to a child still running, wait for it, and return its exit status
 * as a shell would: the exit code, or 128 + the signal that killed it.
 */
int command_finish(struct command *c, int sig);

#endif
