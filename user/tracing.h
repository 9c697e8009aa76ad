/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `sclat watch` and `sclat record` share: the scope, threshold and
 * duration options, and the run loop that loads the tracer, starts the
 * command, consumes outliers until the end, and cleans up.
 */
#ifndef SCLAT_TRACING_H
#define SCLAT_TRACING_H

#include <argp.h>
#include <stdbool.h>
#include <sys/types.h>
#include "sclat_abi.h"

struct controller_hooks;
struct policy;

#define TRACING_MAX_PIDS 64

struct tracing_opts {
	pid_t pids[TRACING_MAX_PIDS];
	int nr_pids;
	const char *cgroup;
	const char *comm;
	const char *policy_file;
	__u64 threshold_ns;
	bool threshold_set;
	__u64 duration_ns;		/* 0: until Ctrl-C or the command's end */
	size_t ringbuf_bytes;
	char **command;			/* NULL-terminated, or NULL */
	bool verbose;
};

/* What a threshold crossed by an outlier stood on. */
struct threshold_basis {
	__u64 estimate_ns;		/* quantile estimate, 0 when static */
	double quantile;		/* its quantile, 0 when static */
	__u64 samples;			/* samples behind it */
};

/* Running totals, for the summary line and live status. */
struct tracing_totals {
	__u64 syscalls;
	__u64 outliers;			/* reached the sink */
	__u64 drops;			/* ring buffer full, counted in the kernel */
	__u64 throttled;		/* held back by the burst guard or the budget */
	__u64 threshold_changes;
};

/* One syscall's counts over the whole run, from the kernel's histograms. */
struct syscall_count {
	unsigned int nr;		/* SCLAT_MAX_SYSCALLS: syscalls sharing the last slot */
	__u64 calls;
	__u64 outliers;			/* emitted by the kernel */
	__u64 drops;
	__u64 throttled;
};

/* Where outliers go: the terminal (watch) or the LTTng trace (record). */
struct tracing_sink {
	/* Each outlier, with the epoch time of its entry. Non-zero stops tracing. */
	int (*outlier)(void *ctx, const struct sclat_event *e, __s64 entry_epoch_ns,
		       const struct threshold_basis *basis);
	/* About once a second while tracing; may be NULL. */
	void (*tick)(void *ctx, __u64 elapsed_ns, const struct tracing_totals *totals);
	/* At the end, the per-syscall counts, busiest first; may be NULL. */
	void (*end)(void *ctx, const struct tracing_totals *totals,
		    const struct syscall_count *counts, unsigned int n);
	/* Passed to the controller (struct controller_hooks *, see controller.h); may be NULL. */
	const struct controller_hooks *hooks;
	void *ctx;
};

/* The common options, as an argp child parser; state->input is a struct tracing_opts. */
extern const struct argp tracing_argp;

/* From ARGP_KEY_ARG: this argument and all after it are the command. */
void tracing_opts_command(struct tracing_opts *o, struct argp_state *state);

/*
 * The policy a run of these options applies: --threshold (static, no budget),
 * --policy FILE, or the default one (see policy_default()). *file is the file
 * it came from, which SIGHUP reloads (NULL: none). NULL after one line on stderr.
 */
struct policy *tracing_policy(const struct tracing_opts *o, const char **file);

/*
 * Trace until Ctrl-C, --duration or the command's end. Returns the exit
 * status for sclat: the command's when there is one, else 0, or 1 on error.
 */
int tracing_run(const struct tracing_opts *o, const struct tracing_sink *sink);

#endif
