/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command of `sclat ... -- COMMAND`: forked first and held before exec,
 * so that its pid is in scope before it runs a single instruction of its own.
 */
#ifndef SCLAT_TRACED_COMMAND_H
#define SCLAT_TRACED_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

struct traced_command {
	pid_t pid;
	int go_fd;  /* write end: one byte lets the child exec */
	int err_fd; /* read end: the child's errno if exec failed */
	int status; /* wait status, once reaped */
	bool reaped;
	char **argv;
};

/* Fork the child and hold it. Prints one line and returns -errno on failure. */
int traced_command_prepare(struct traced_command *c, char **argv);

/* Let the child exec; returns -errno (after one line on stderr) if exec failed. */
int traced_command_start(struct traced_command *c);

/* Whether the child has exited (reaps it without blocking). */
bool traced_command_exited(struct traced_command *c);

/*
 * Send sig to a child still running, wait for it, and return its exit status
 * as a shell would: the exit code, or 128 + the signal that killed it.
 */
int traced_command_finish(struct traced_command *c, int sig);

#endif
