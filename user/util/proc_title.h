/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A process's title: its command line as /proc/PID/cmdline has it, which a
 * server rewrites to say what each of its processes is ("postgres:
 * checkpointer", "nginx: worker process", "sshd: admin [priv]") while their
 * comm stays the same.
 */
#ifndef SCLAT_PROC_TITLE_H
#define SCLAT_PROC_TITLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* At most this many bytes of a title are kept, its NUL included. */
#define PROC_TITLE_LEN 64

/*
 * The title of process pid into buf (len bytes, at most PROC_TITLE_LEN used):
 * its arguments joined by blanks, the trailing blanks and NULs of an argv
 * area written over dropped; raw bytes, to be escaped where printed. buf is
 * "" for a process gone, a kernel thread, or one whose cmdline cannot be
 * read. Returns buf.
 */
char *proc_title_read(pid_t pid, char *buf, size_t len);

/*
 * Whether title is one a server set over its argv ("postgres: checkpointer",
 * "nginx: worker process", "sshd: admin [priv]"): its first word ends with a
 * colon, as setproctitle() titles do; a plain command line ("/usr/bin/dd
 * if=...") does not. A text line shows only those.
 */
bool proc_title_is_set(const char *title);

/* The same from the bytes of a cmdline (n of them), for a reader that has them. */
char *proc_title_of(const char *cmdline, size_t n, char *buf, size_t len);

#endif
