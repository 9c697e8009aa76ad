/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading sclat's lttng-ust events (user/outputs/lttng_provider.h) out of babeltrace2
 * events: the one place that knows their names and field names.
 */
#ifndef SCLAT_BT2_OUTLIER_H
#define SCLAT_BT2_OUTLIER_H

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>
#include "util/outlier_line.h"

#define OUTLIER_NAME_LEN    64
#define OUTLIER_COMM_LEN    17
#define OUTLIER_NR_ARGS	    6
#define OUTLIER_HOST_LEN    65 /* a hostname: 64 bytes at most on Linux */
#define OUTLIER_CLASS_LEN   64 /* a class name (trace version 4 on) */
#define OUTLIER_OFF_CPU_MAX 15 /* stretches off the CPU kept; the rest are counted */

/* The host of a trace without a hostname in its environment. */
#define OUTLIER_HOST_UNKNOWN "(unknown)"

enum sclat_event_kind {
	SCLAT_EVENT_OTHER,
	SCLAT_EVENT_OUTLIER,
	SCLAT_EVENT_THRESHOLD,
	SCLAT_EVENT_STATS,
	SCLAT_EVENT_LOST,
	SCLAT_EVENT_OVERHEAD,
	SCLAT_EVENT_SESSION_BEGIN,
	SCLAT_EVENT_SESSION_END,
	SCLAT_EVENT_SNAPSHOT,
	SCLAT_EVENT_SNAPSHOT_TOTALS,
	SCLAT_EVENT_INFLIGHT,
};

/*
 * What explains an outlier (trace version 3 on: README.md, "The trace"). The
 * strings are "" when the trace has none, borrowed from the event by
 * outlier_read(): a copy that outlives the event must own them (agg_add()
 * interns them).
 */
struct outlier_explanation {
	bool present; /* false: a trace older than explanations, the rest is 0 */
	uint64_t on_cpu_ns, runqueue_ns, sleep_ns, io_wait_ns; /* they add up to the latency */
	uint64_t irq_ns; /* of on_cpu_ns, in interrupts (version 10 on; before, 0) */
	/* Of on_cpu_ns, its vCPU held by the hypervisor (version 13 on; before, 0). */
	uint64_t steal_ns;
	/* Of sleep_ns + io_wait_ns, its wakers' waits for a CPU (version 11 on; before, 0). */
	uint64_t waker_runqueue_ns;
	uint32_t switches;
	int32_t waker_pid, waker_tid;
	char waker_comm[OUTLIER_COMM_LEN]; /* "": nothing woke it */
	const char *target;		   /* "": none */
	const char *kernel_stack;	   /* frames innermost first, ';'-joined */
	const char *user_stack;		   /* the same; "": none, or a trace before version 5 */
	bool user_stack_dropped;	   /* went out without its user stack */
	/*
	 * Its first stretches off the CPU, times after the entry (trace
	 * version 7 on; off_cpu_known false before).
	 */
	bool off_cpu_known;
	uint32_t off_cpu_listed, off_cpu_unlisted;
	int32_t off_cpu_waker; /* the listed stretch the waker ended; -1: none */
	struct outlier_off_cpu off_cpu[OUTLIER_OFF_CPU_MAX];
	/*
	 * Why it has no user stack (version 9 on; 0: it has one, or none was
	 * asked for): OUTLIER_USTACK_* as sclat's enum outlier_ustack_missing.
	 */
	uint8_t user_stack_missing;
	/* Kept outliers (aggregate.c): kernel then user frames, innermost first; else NULL. */
	const char *stack;
};

/* Why an outlier has no user stack, as sclat:syscall_outlier's user_stack_missing says. */
#define OUTLIER_USTACK_WHYS 6
extern const char *const outlier_ustack_why[OUTLIER_USTACK_WHYS]; /* [0]: NULL */

/* One sclat:syscall_outlier. */
struct outlier {
	uint32_t nr;
	char syscall[OUTLIER_NAME_LEN];
	int32_t pid;
	int32_t tid;
	char comm[OUTLIER_COMM_LEN];
	uint32_t cpu;
	uint64_t entry_ts;	/* monotonic ns, the trace clock's value */
	int64_t entry_epoch_ns; /* the same instant by the trace clock's offset */
	uint64_t latency_ns;
	int64_t ret;
	uint64_t args[OUTLIER_NR_ARGS];
	uint64_t threshold_ns;
	uint64_t estimate_ns; /* the quantile estimate behind the threshold, 0 if none */
	uint64_t samples;     /* behind the estimate */
	char class_name[OUTLIER_CLASS_LEN]; /* whose threshold it crossed; "": the syscall's */
	char title[OUTLIER_CLASS_LEN];	    /* its process's (trace version 9 on); "": none */
	const char *host; /* the recording host: set by the reader's caller, not outlier_read() */
	struct outlier_explanation why;
	/*
	 * How surprising and costly (trace version 9 on: judged; before, the
	 * rest is 0 but impact_ns, the whole latency). surprise < 0: not known.
	 */
	bool judged;
	double surprise;
	bool surprise_at_least;
	uint64_t normal_ns, impact_ns;
	bool storage_stall; /* judged at its storage threshold (trace version 12 on) */
};

/* One sclat:threshold_update, at its time in ns since the epoch. */
struct threshold_change {
	int64_t epoch_ns;
	char syscall[OUTLIER_NAME_LEN];
	uint64_t old_ns;
	uint64_t new_ns;
	uint64_t estimate_ns;		    /* 0: not learned (static, or not armed yet) */
	double quantile;		    /* of the estimate */
	uint64_t samples;		    /* behind the estimate */
	char class_name[OUTLIER_CLASS_LEN]; /* a class's threshold; "": the syscall's */
	/* Trace version 9 on (0 before): the rate it aims at, the fitted tail (fit_start_ns 0:
	 * none). */
	double rate;
	uint64_t fit_start_ns;
	double fit_shape, fit_scale_ns, fit_above;
};

/* One sclat:stats: one syscall over one controller interval. */
struct syscall_stats {
	char syscall[OUTLIER_NAME_LEN];
	uint64_t interval_ns;
	uint64_t calls;
	uint64_t outliers;
	uint64_t p99_ns; /* over the decayed window */
	uint64_t threshold_ns;
	char class_name[OUTLIER_CLASS_LEN]; /* one class of the syscall's calls; "": all of them */
};

/* One sclat:lost: since the previous one, and since the start. */
struct lost_count {
	uint64_t drops;
	uint64_t throttled;
	uint64_t total_drops;
	uint64_t total_throttled;
	uint64_t braked, total_braked; /* trace version 9 on (0 before): the kernel brake's */
};

/* One sclat:session_end: the totals of a run that ended (trace version 2 on). */
struct run_end {
	uint64_t syscalls;
	uint64_t outliers; /* sclat:syscall_outlier events written */
	uint64_t drops;
	uint64_t throttled;
	/* Trace version 8 on (0 before): what the run could not do. */
	uint64_t kernel_stacks_skipped, wakers_lost, class_ids_refused, class_requests_lost;
	uint64_t children_not_followed; /* new processes of the scope not followed */
	uint64_t braked;		/* trace version 9 on: held back by the kernel brake */
};

#define SNAPSHOT_PATH_LEN 4096

/* One sclat:snapshot: the outlier that caused it (the fields it carries), and where it is. */
struct snapshot_ref {
	struct outlier outlier; /* nr, syscall, pid, tid, comm, entry_ts, entry_epoch_ns, latency */
	char session[OUTLIER_NAME_LEN];
	char path[SNAPSHOT_PATH_LEN]; /* "" when LTTng failed to take it */
};

#define HUNG_STATE_LEN 16

/*
 * One sclat:syscall_inflight (trace version 4 on): a call reported while
 * still in flight, and, once its outlier is seen, how it ended.
 */
struct hung_call {
	/* nr, syscall, pid, tid, comm, cpu, entry_ts, entry_epoch_ns, args, threshold_ns;
	 * latency_ns: its time in flight at the report */
	struct outlier outlier;
	char state[HUNG_STATE_LEN]; /* its state then: "sleeping", "D", ... */
	uint32_t reports;	    /* in-flight reports of the call */
	bool returned;		    /* its outlier is in the trace: outlier.latency_ns is then
				     * its latency, outlier.ret its return value */
};

/* sclat:snapshot_totals: what became of the snapshots of a run. */
struct snapshot_count {
	uint64_t outliers;   /* at or above the minimum latency */
	uint64_t discarded;  /* lost on their way to the session daemon */
	uint64_t requested;  /* snapshots the rate policy asked for */
	uint64_t taken;	     /* with a path */
	uint64_t failed;     /* LTTng failed to take them */
	uint64_t unreported; /* asked for, never reported to sclat */
};

/* One sclat:overhead (one BPF program's): its run's totals so far. */
struct overhead_sample {
	uint64_t ns_per_syscall; /* all programs */
	uint64_t consumer_lag_ns;
	uint64_t outliers; /* delivered so far */
	uint64_t explain_bpf_ns, explain_user_ns;
	uint64_t user_stacks_dropped, user_stacks_unwound;
};

enum sclat_event_kind sclat_event_kind(const bt_event_class *ec);

/* Whether the stream class has any sclat:* event class: an sclat trace. */
bool sclat_stream_class_is_sclat(const bt_stream_class *sc);

/*
 * The host that recorded the trace of a stream: its environment's
 * "hostname" (LTTng writes it), or OUTLIER_HOST_UNKNOWN. The string lives as
 * long as the trace.
 */
const char *sclat_stream_host(const bt_stream *stream);

/*
 * Every field of a trace is untrusted. Returns 0; -EINVAL when a field is
 * missing or has another type; -EDOM when its stretches off the CPU are not
 * in time order within the call; -ERANGE when the times do not fit: the exit
 * (entry_ts + latency_ns) beyond 64 bits, or the entry or exit beyond what
 * the clock can say in ns from its origin. entry_epoch_ns comes from the
 * event's clock (its offset is LTTng's, what every reader of the trace uses),
 * and from the event's own field only when that clock has no epoch origin.
 */
int outlier_read(const bt_event *ev, struct outlier *o);

struct outlier_why;

/* An outlier's explanation as a line of `sclat watch` shows it (w->target NULL when none). */
void outlier_why_fill(const struct outlier_explanation *x, struct outlier_why *w);

struct outlier_line;

/*
 * o as a line of `sclat watch` (its JSON keys and text columns), of host
 * (NULL: none); why holds its explanation, that the line points to.
 */
void outlier_line_of(const struct outlier *o, const char *host, struct outlier_line *line,
		     struct outlier_why *why);

/* Why outlier_read() refused an outlier, from its return value. */
const char *outlier_error(int err);

/* Each returns 0, or -1 when a field is missing or has another type. */
int threshold_change_read(const bt_event *ev, const bt_clock_snapshot *cs,
			  struct threshold_change *t);
int lost_count_read(const bt_event *ev, struct lost_count *l);
int run_end_read(const bt_event *ev, struct run_end *e);
/* sclat:session_begin's abi_version: the version of the trace's events. */
int trace_version_read(const bt_event *ev, uint32_t *version);
int snapshot_ref_read(const bt_event *ev, struct snapshot_ref *s);
/* reports is the event's report number; returned is false. Same errors as outlier_read(). */
int hung_call_read(const bt_event *ev, struct hung_call *h);
int snapshot_count_read(const bt_event *ev, struct snapshot_count *c);
int syscall_stats_read(const bt_event *ev, struct syscall_stats *s);
/* -1 without ns_per_syscall; the members a trace's version lacks are 0. */
int overhead_read(const bt_event *ev, struct overhead_sample *o);
/* sclat:session_begin's policy (INI text), borrowed from the event. */
int session_policy_read(const bt_event *ev, const char **policy);

#endif
