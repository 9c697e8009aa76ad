/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One reader of /proc/PID/stat for the tracer: whether a process is there,
 * what it runs, its parent, its state, when it started. The command name
 * between the parentheses may itself hold spaces and parentheses, so the
 * fields are counted from the last ')'.
 */
#ifndef SCLAT_PROC_STAT_H
#define SCLAT_PROC_STAT_H

#include <stdbool.h>
#include <sys/types.h>

/* Longer than TASK_COMM_LEN: kernel threads may show more; longer names are cut. */
#define PROC_STAT_COMM_MAX 64

struct proc_stat {
	pid_t pid;
	char comm[PROC_STAT_COMM_MAX]; /* without the parentheses */
	char state;		       /* R, S, D, Z, ... (field 3) */
	pid_t ppid;		       /* field 4 */
	unsigned long long start_time; /* clock ticks after boot (field 22) */
};

/* One line of /proc/PID/stat; 0, or -EINVAL when it is not one. */
int proc_stat_parse(const char *line, struct proc_stat *st);

/* /proc/PID/stat of pid; 0, or -errno (-ENOENT: no such process; -EINVAL: unreadable). */
int proc_stat_read(pid_t pid, struct proc_stat *st);

/* When process pid started (clock ticks after boot), or 0 when there is no such process. */
unsigned long long process_start_time(pid_t pid);

/*
 * What process pid runs: the device and inode of /proc/PID/exe's target,
 * which an exec changes; 0, or -errno (a kernel thread has none: -ENOENT).
 */
int proc_exe_id(pid_t pid, unsigned long long *dev, unsigned long long *ino);

/*
 * Whether a thread of process pid is named comm now (/proc/PID/task/TID/comm,
 * at most PROC_THREADS_LOOKED threads looked at: true past them).
 */
#define PROC_THREADS_LOOKED 256
bool proc_thread_named(pid_t pid, const char *comm);

/* Whether no process holds pid now (kill() says ESRCH): a zombie does, a pid reused too. */
bool pid_vacant(pid_t pid);

#endif
