/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command of `sclat ... -- COMMAND`: forked first and held before exec,
 * so that its pid is in scope before it runs a single instruction of its own.
 */
#ifndef SCLAT_TRACED_COMMAND_H
#define SCLAT_TRACED_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

#include <signal.h>

struct traced_command {
	pid_t pid;
	int go_fd;  /* write end: one byte lets the child exec */
	int err_fd; /* read end: the child's errno if exec failed */
	int status; /* wait status, once reaped */
	bool reaped;
	bool started; /* the go was given */
	char **argv;
};

/*
 * Note the signal dispositions and mask sclat was started with, before it
 * changes any: the command gets them back (an ignored SIGPIPE, say, would
 * survive its exec), but SIGINT and SIGTERM, its default: sclat passes them
 * on to stop it. Call first thing in main().
 */
void traced_command_signals_save(void);

/* Fork the child and hold it. Prints one line and returns -errno on failure. */
int traced_command_prepare(struct traced_command *c, char **argv);

/* Let the child exec; returns -errno (after one line on stderr) if exec failed. */
int traced_command_start(struct traced_command *c);

/* Whether the child has exited (reaps it without blocking). */
bool traced_command_exited(struct traced_command *c);

/* How long a command may take to end after its signal before it is killed. */
#define TRACED_COMMAND_GRACE_MS 10000

/*
 * End a child still running: send it sig, unless it has it already (had is
 * true: a terminal's Ctrl-C reaches its whole process group), and wait for
 * it. One still running TRACED_COMMAND_GRACE_MS later, or when *stops moves
 * (another Ctrl-C meanwhile), is killed (SIGKILL), and says so. Returns its
 * exit status as a shell would: the exit code, or 128 + the signal that
 * killed it; 128 + sig for a child that was never let to exec.
 */
int traced_command_finish(struct traced_command *c, int sig, bool had,
			  const volatile sig_atomic_t *stops);

#endif
