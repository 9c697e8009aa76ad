/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The processes descended from one now, from /proc/PID/task/TID/children:
 * what tracing a running service (-p PID) must take in besides the process,
 * its workers forked long before.
 */
#ifndef SCLAT_PROC_CHILDREN_H
#define SCLAT_PROC_CHILDREN_H

#include <sys/types.h>

/*
 * Call fn(child, ctx) for each process descended from pid now (its
 * children, theirs, ...), each once, parents before their children; at most
 * max of them. 0; fn's nonzero return, which stops the walk; or -ENOMEM.
 * A process that ends meanwhile is passed over.
 */
int proc_descendants(pid_t pid, unsigned int max, int (*fn)(pid_t child, void *ctx), void *ctx);

#endif
