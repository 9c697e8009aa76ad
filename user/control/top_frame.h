/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The answer to the control request "top": one frame of `sclat top`, written
 * by the tracer (top_frame_write) and read back by the client
 * (top_frame_parse, pure: unit-tested and fuzzed). Lines of tab-separated
 * fields, the first field the line's kind; every name from a traced process
 * escaped (no tab, newline or control character), numbers in decimal:
 *
 *	sclat-top VERSION
 *	tracer PID ELAPSED_NS INTERVAL_NS SYSCALLS OUTLIERS THROTTLED DROPS NS_PER_SYSCALL
 *	syscall NAME NR CALLS RATE P50_NS P99_NS THRESHOLD INITIAL OUTLIERS LOST_NS
 *	class NR NAME CALLS RATE P50_NS P99_NS THRESHOLD FALLBACK OUTLIERS LOST_NS
 *	inflight SYSCALL PID TID COMM INFLIGHT_NS THRESHOLD STATE REPORTS
 *	outlier EPOCH_NS NR LATENCY_NS THRESHOLD_NS LINE
 *
 * THRESHOLD is "off" for a syscall never reported, "-" where none applies
 * (the syscalls without a histogram, together: NR -1); LOST_NS "-" when not
 * summed. CALLS and OUTLIERS count since the tracer started, LOST_NS too (the
 * outliers' time beyond their threshold); RATE is the last interval's. The
 * outliers come newest first, as `sclat watch` prints their line.
 *
 * Compatibility: a later version only adds kinds of lines, or fields at the
 * end of a line; a reader skips the kinds it does not know and the fields
 * past those it reads. A tracer that does not know "top" answers
 * "error: unknown request". Bounded: at most TOP_FRAME_ROWS rows,
 * CONTROLLER_INFLIGHT_MAX calls in flight and RECENT_OUTLIERS_KEPT outliers
 * of RECENT_OUTLIER_LINE bytes.
 */
#ifndef SCLAT_TOP_FRAME_H
#define SCLAT_TOP_FRAME_H

#include <stdbool.h>
#include <stdio.h>
#include "controller/controller.h"
#include "outputs/recent_outliers.h"
#include "policy/policy.h"
#include "util/escape.h"

#define TOP_FRAME_VERSION 1
/* The syscalls and "other", then the classes. */
#define TOP_FRAME_ROWS	  (SCLAT_MAX_SYSCALLS + 1 + CONTROLLER_STATUS_CLASSES)
/* An answer bigger than this is no frame of ours. */
#define TOP_FRAME_MAX	  (4 << 20)
/* A field where no value applies: a threshold, a time lost. */
#define TOP_NONE	  (~0ULL - 1)

/* A name as the frame carries it: escaped, each byte at most "\xHH". */
#define TOP_NAME_LEN TEXT_ESCAPED_SIZE(BASIS_CLASS_MAX)

/* One row: a syscall's (cls ""), or one of its classes'. */
struct top_row {
	int nr; /* -1: the syscalls without a histogram of their own, together */
	char syscall[32];
	char cls[TOP_NAME_LEN];
	__u64 calls, outliers;
	double rate;
	__u64 p50_ns, p99_ns;
	__u64 threshold_ns; /* SCLAT_THRESHOLD_NEVER: off; TOP_NONE: none applies */
	bool initial;	    /* a syscall's: still the policy's; a class's: still its syscall's */
	__u64 lost_ns;	    /* TOP_NONE: not summed */
};

struct top_inflight {
	char syscall[32];
	int pid, tid;
	char comm[TOP_NAME_LEN];
	__u64 inflight_ns, threshold_ns;
	char state[16];
	unsigned int reports;
};

struct top_outlier {
	__s64 epoch_ns;
	int nr;
	__u64 latency_ns, threshold_ns;
	char line[RECENT_OUTLIER_LINE];
};

struct top_frame {
	__u64 fetched_ns; /* the client's CLOCK_MONOTONIC when it came (not in the answer) */
	int version;
	int pid;
	__u64 elapsed_ns, interval_ns;
	__u64 syscalls, outliers_total, throttled, drops, ns_per_syscall;
	unsigned int nr_rows, nr_inflight, nr_outliers;
	struct top_row rows[TOP_FRAME_ROWS];
	struct top_inflight inflight[CONTROLLER_INFLIGHT_MAX];
	struct top_outlier outliers[RECENT_OUTLIERS_KEPT];
};

/*
 * The tracer's side: st (its calls in flight listed), the policy p (NULL:
 * none), the latest outliers and the time lost (lost NULL: not summed).
 */
void top_frame_write(FILE *f, const struct controller_status *st, const struct policy *p,
		     const struct recent_outlier *outliers, unsigned int nr_outliers,
		     const struct recent_lost *lost);

/*
 * The client's side: body (len bytes, changed in place) into fr. Every name
 * is escaped again: the client trusts no text. 0, or -EINVAL with the reason
 * in err.
 */
int top_frame_parse(char *body, size_t len, struct top_frame *fr, char *err, size_t errlen);

#endif
