/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `sclat watch` and `sclat record` share: the scope, threshold, duration,
 * user stack and snapshot options, and the policy they make.
 */
#ifndef SCLAT_TRACE_OPTIONS_H
#define SCLAT_TRACE_OPTIONS_H

#include <argp.h>
#include <stdbool.h>
#include <linux/types.h>
#include "outputs/snapshot_trigger.h"
#include "run/run.h"

struct policy;

struct trace_options {
	struct run_opts run; /* what the run traces, and how */
	const char *policy_file;
	__u64 threshold_ns;
	bool threshold_set;
	__u64 min_latency_ns; /* --min-latency: over the policy's min_latency */
	bool min_latency_set;
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

#endif
