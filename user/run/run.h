/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tracing run, from start to end: the programs loaded and attached, the
 * threshold controller and the control socket started, the command started;
 * then, until Ctrl-C, --duration or the command's end, the drain of the ring
 * buffer (each outlier explained, its user stack unwound off the drain and
 * handed back), the scans of the calls in flight and the snapshots taken, all
 * fanned out to the run's sinks; and at the end the totals. `sclat watch`
 * (watch.c) and `sclat record` (record.c) are runs with different sinks.
 */
#ifndef SCLAT_RUN_H
#define SCLAT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "outputs/metrics_server.h"

struct sink;
struct policy;

#define RUN_MAX_PIDS 64

/* What a run traces, and how. */
struct run_opts {
	pid_t pids[RUN_MAX_PIDS];
	int nr_pids;
	const char *cgroup;
	const char *comm;
	__u64 duration_ns; /* 0: until Ctrl-C or the command's end */
	size_t ringbuf_bytes;
	char **command; /* NULL-terminated, or NULL */
	bool verbose;
	bool no_user_stack;		  /* outliers without their user stack */
	unsigned int user_stacks_per_cpu; /* 0: the default */
	struct metrics_opts metrics;	  /* .addr NULL: no --metrics */
};

/*
 * Trace with policy (the run takes it) until Ctrl-C, --duration or the
 * command's end, to the nr_sinks sinks (at most SINKS_MAX); policy_file is
 * the file SIGHUP reloads (NULL: none). Returns the exit status for sclat:
 * the command's when there is one, else 0, or 1 on error.
 */
int run_trace(const struct run_opts *o, struct policy *policy, const char *policy_file,
	      const struct sink *sinks, unsigned int nr_sinks);

#endif
