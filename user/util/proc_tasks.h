/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The threads of a process now, one file of each: /proc/PID/task/TID/NAME
 * (children, comm, ...). Threads that end meanwhile are passed over.
 */
#ifndef SCLAT_PROC_TASKS_H
#define SCLAT_PROC_TASKS_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

/* What proc_task_files returns when pid has more threads than it may look at. */
#define PROC_TASKS_MORE INT_MAX

/*
 * Call fn(f, ctx) on /proc/PID/task/TID/name, open for reading, for each
 * thread of pid, at most max threads (0: all). fn's first nonzero return
 * stops the walk and is returned; PROC_TASKS_MORE past max threads; else 0
 * (also when pid is gone).
 */
int proc_task_files(pid_t pid, const char *name, unsigned int max, int (*fn)(FILE *f, void *ctx),
		    void *ctx);

#endif
