// SPDX-License-Identifier: GPL-2.0-only
#include <signal.h>
#include <stdio.h>
#include "record_sink.h"
#include "lttng_session.h"
#include "trace_events.h"
#include "util/compiler.h"

void record_sink_status_clear(struct record_sink *rs)
{
	if (rs->status_drawn)
		fputs("\r\033[K", stderr);
	rs->status_drawn = false;
}

static void record_tick(void *ctx, __u64 elapsed_ns, const struct controller_totals *t)
{
	struct record_sink *rs = ctx;
	char rate[32];
	double per_s = 0;

	/* A failure is said in a line of its own. */
	record_sink_status_clear(rs);
	if (!trace_session_check(rs->ts)) {
		/* The run stops on SIGTERM as on Ctrl-C. */
		raise(SIGTERM);
		return;
	}
	if (!rs->status_line)
		return;
	if (elapsed_ns > rs->last_elapsed_ns)
		per_s = (double)(t->syscalls - rs->last_syscalls) * 1e9 /
			(double)(elapsed_ns - rs->last_elapsed_ns);
	rs->last_elapsed_ns = elapsed_ns;
	rs->last_syscalls = t->syscalls;
	if (per_s >= 1e6)
		snprintf(rate, sizeof(rate), "%.1fM", per_s / 1e6);
	else if (per_s >= 1e3)
		snprintf(rate, sizeof(rate), "%.1fk", per_s / 1e3);
	else
		snprintf(rate, sizeof(rate), "%.0f", per_s);
	/* Redrawn in place, no newline: not a message for the log. */
	fprintf(stderr,
		"\r\033[Ksclat: %llus  %s syscalls/s  %llu outliers  %llu dropped  "
		"%llu throttled  %llu threshold changes",
		(unsigned long long)(elapsed_ns / 1000000000ULL), rate,
		(unsigned long long)t->outliers, (unsigned long long)t->drops,
		(unsigned long long)t->throttled, (unsigned long long)t->threshold_changes);
	rs->status_drawn = true;
}

static int record_outlier(void *ctx, const struct sclat_event *e, __s64 entry_epoch_ns,
			  const struct threshold_basis *basis, const struct explanation *x)
{
	struct record_sink *rs = ctx;

	trace_session_outlier(rs->ts);
	return trace_events_outlier(ctx, e, entry_epoch_ns, basis, x);
}

static int record_end(void *ctx, const struct controller_totals *totals,
		      const struct syscall_count *counts __always_unused,
		      unsigned int n __always_unused)
{
	record_sink_status_clear(ctx);
	/* After the controller's last sclat:lost and sclat:stats: the last event of the run. */
	trace_events_session_end(totals);
	return 0;
}

void record_sink_init(struct record_sink *rs, struct trace_session *ts, bool status_line,
		      struct sink *s)
{
	*rs = (struct record_sink){ .ts = ts, .status_line = status_line };
	*s = (struct sink){
		.outlier = record_outlier,
		.inflight = trace_events_inflight,
		.tick = record_tick,
		.end = record_end,
		.hooks = &trace_events_hooks,
		.snapshot = trace_events_snapshot,
		.snapshot_end = trace_events_snapshot_totals,
		.ctx = rs,
	};
}
