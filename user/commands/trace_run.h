/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `sclat watch` and `sclat record` share: the scope, threshold and
 * duration options, and the run loop that assembles the pipeline (probes,
 * controller, control socket, an output), starts the command, consumes
 * outliers until the end, and takes it all down.
 */
#ifndef SCLAT_TRACE_RUN_H
#define SCLAT_TRACE_RUN_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "outputs/snapshot_trigger.h"

struct output;
struct policy;

#define TRACE_MAX_PIDS 64

struct trace_options {
	pid_t pids[TRACE_MAX_PIDS];
	int nr_pids;
	const char *cgroup;
	const char *comm;
	const char *policy_file;
	__u64 threshold_ns;
	bool threshold_set;
	__u64 duration_ns; /* 0: until Ctrl-C or the command's end */
	size_t ringbuf_bytes;
	char **command; /* NULL-terminated, or NULL */
	bool verbose;
	bool no_user_stack;		  /* --no-user-stack: outliers without their user stack */
	unsigned int user_stacks_per_cpu; /* --user-stacks-per-cpu; 0: the default */
	struct snapshot_trigger_opts snapshot; /* .session NULL: no --snapshot-session */
};

/* The common options, as an argp child parser; state->input is a struct trace_options. */
extern const struct argp trace_argp;

/* From ARGP_KEY_ARG: this argument and all after it are the command. */
void trace_options_command(struct trace_options *o, struct argp_state *state);

/*
 * The policy a run of these options applies, parsed once: --threshold
 * (static, no budget), --policy FILE, or the default one (see
 * policy_default()). *file is the file it came from, which SIGHUP reloads
 * (NULL: none). NULL after one line on stderr.
 */
struct policy *trace_policy(const struct trace_options *o, const char **file);

/*
 * From now on SIGINT and SIGTERM stop the run, or what comes before it,
 * instead of killing sclat, and a SIGHUP before the control thread serves
 * it is ignored. trace_run() holds them itself; a command that makes a
 * session first holds them earlier, and asks trace_interrupted() (the first
 * signal's number, 0: none) before going on.
 */
void trace_interrupts_hold(void);
int trace_interrupted(void);

/*
 * Trace with policy (trace_run takes it) until Ctrl-C, --duration or the
 * command's end, outliers to out. Returns the exit status for sclat: the
 * command's when there is one, else 0, or 1 on error.
 */
int trace_run(const struct trace_options *o, struct policy *policy, const char *policy_file,
	      const struct output *out);

#endif
