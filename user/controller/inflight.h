/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The syscalls in flight past their threshold: one task-iterator scan per
 * interval (probes_inflight_scan), which of them are due for a report (at
 * inflight_after, then at 10x, 100x ... the age of the first report), and the
 * table that `sclat status` lists and an outlier's report refers to.
 */
#ifndef SCLAT_INFLIGHT_H
#define SCLAT_INFLIGHT_H

#include <stdbool.h>
#include "sclat_abi.h"
#include "kernel/probes_inflight.h"

struct inflight;

/* One call in flight, as the last scan saw it. */
struct inflight_call {
	__u32 pid, tid, nr, state; /* state: enum sclat_task_state */
	char comm[SCLAT_COMM_LEN];
	__u64 entry_ns;	    /* CLOCK_MONOTONIC */
	__u64 inflight_ns;  /* its age at the scan */
	__u64 threshold_ns; /* of its syscall then */
	__u32 reports;	    /* how many times reported in flight */
	__u32 __pad;
};

/*
 * A call due for a report: r is the iterator's record; this is its reports-th
 * report (1 the first); final: the last scan, at stop.
 */
typedef void (*inflight_report_fn)(void *ctx, const struct sclat_inflight *r, __u32 reports,
				   bool final);

struct inflight *inflight_new(void);
void inflight_free(struct inflight *in);

/*
 * Scan once (from one thread only, registered with RCU: it reads the
 * policy). final: every call past its threshold is reported, due or not.
 * Calls not seen again are forgotten: returned, or their task gone. Returns
 * how many calls are in flight past their threshold, or a negative errno.
 */
int inflight_scan(struct inflight *in, struct probes *p, bool final, inflight_report_fn fn,
		  void *ctx);

/* The call of tid that entered at entry_ns returned: how many times it was reported, forgotten. */
__u32 inflight_returned(struct inflight *in, __u32 tid, __u64 entry_ns);

/* Up to max calls of the last scan, longest first; returns how many. Any thread. */
unsigned int inflight_list(struct inflight *in, struct inflight_call *out, unsigned int max);

/* A task's state (enum sclat_task_state) as a word: "running", "D", ... */
const char *inflight_state_name(__u32 state);

/* Reports made so far (at stop included). */
__u64 inflight_reports_total(struct inflight *in);

#endif
