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

#define OUTLIER_NAME_LEN 64
#define OUTLIER_COMM_LEN 17
#define OUTLIER_NR_ARGS	 6

enum sclat_event_kind {
	SCLAT_EVENT_OTHER,
	SCLAT_EVENT_OUTLIER,
	SCLAT_EVENT_THRESHOLD,
	SCLAT_EVENT_STATS,
	SCLAT_EVENT_LOST,
	SCLAT_EVENT_OVERHEAD,
	SCLAT_EVENT_SESSION_BEGIN,
};

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
};

/* One sclat:threshold_update, at its time in ns since the epoch. */
struct threshold_change {
	int64_t epoch_ns;
	char syscall[OUTLIER_NAME_LEN];
	uint64_t old_ns;
	uint64_t new_ns;
};

/* One sclat:lost: since the previous one, and since the start. */
struct lost_count {
	uint64_t drops;
	uint64_t throttled;
	uint64_t total_drops;
	uint64_t total_throttled;
};

enum sclat_event_kind sclat_event_kind(const bt_event_class *ec);

/* Whether the stream class has any sclat:* event class: an sclat trace. */
bool sclat_stream_class_is_sclat(const bt_stream_class *sc);

/*
 * Every field of a trace is untrusted. Returns 0; -EINVAL when a field is
 * missing or has another type; -ERANGE when the times do not fit: the exit
 * (entry_ts + latency_ns) beyond 64 bits, or the entry or exit beyond what
 * the clock can say in ns from its origin. entry_epoch_ns comes from the
 * event's clock (its offset is LTTng's, what every reader of the trace uses),
 * and from the event's own field only when that clock has no epoch origin.
 */
int outlier_read(const bt_event *ev, struct outlier *o);

/* Why outlier_read() refused an outlier, from its return value. */
const char *outlier_error(int err);

/* Each returns 0, or -1 when a field is missing or has another type. */
int threshold_change_read(const bt_event *ev, const bt_clock_snapshot *cs,
			  struct threshold_change *t);
int lost_count_read(const bt_event *ev, struct lost_count *l);

#endif
