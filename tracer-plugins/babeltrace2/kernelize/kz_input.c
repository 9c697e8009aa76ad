// SPDX-License-Identifier: GPL-2.0-only
/* The outliers kernelize reads, checked (kz_input.h). */
#include <ctype.h>
#include "util/escape.h"
#include "kz_input.h"
#include "kz_iter.h"

/* What the output is made of, from an untrusted trace: a CPU, a thread, a syscall name. */
static int kz_outlier_check(struct kz_iter *it, const struct outlier *o)
{
	char name[TEXT_ESCAPED_SIZE(OUTLIER_NAME_LEN)];
	const char *c;
	uint32_t i;

	text_escape(o->syscall, sizeof(o->syscall), name, sizeof(name));
	for (c = o->syscall; isalnum((unsigned char)*c) || *c == '_'; c++)
		;
	if (*c || c == o->syscall) {
		KZ_ERROR(it,
			 "Failed to convert an outlier: syscall=\"%s\" is not a syscall name "
			 "(letters, digits and _)",
			 name);
		return -1;
	}
	for (i = 0; i < o->why.off_cpu_listed; i++)
		if (o->why.off_cpu[i].cpu >= KZ_MAX_CPUS ||
		    o->why.off_cpu[i].in_cpu >= KZ_MAX_CPUS) {
			KZ_ERROR(
				it,
				"Failed to convert an outlier: off_cpu_cpu=%u off_cpu_in_cpu=%u is "
				"not a CPU number (below %u): syscall=%s tid=%d entry_ts=%llu",
				o->why.off_cpu[i].cpu, o->why.off_cpu[i].in_cpu, KZ_MAX_CPUS, name,
				o->tid, (unsigned long long)o->entry_ts);
			return -1;
		}
	if (o->cpu >= KZ_MAX_CPUS) {
		KZ_ERROR(it,
			 "Failed to convert an outlier: cpu=%u is not a CPU number (below %u): "
			 "syscall=%s tid=%d entry_ts=%llu",
			 o->cpu, KZ_MAX_CPUS, name, o->tid, (unsigned long long)o->entry_ts);
		return -1;
	}
	if (o->tid <= 0) {
		KZ_ERROR(it,
			 "Failed to convert an outlier: tid=%d is not a thread id: syscall=%s "
			 "cpu=%u entry_ts=%llu",
			 o->tid, name, o->cpu, (unsigned long long)o->entry_ts);
		return -1;
	}
	return 0;
}

int kz_outlier_of(struct kz_iter *it, const bt_message *msg, struct outlier *o, uint64_t *ts)
{
	const bt_clock_class *cc;
	const bt_event *ev;
	int err;

	if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_STREAM_BEGINNING &&
	    sclat_stream_class_is_sclat(bt_stream_borrow_class_const(
		    bt_message_stream_beginning_borrow_stream_const(msg))))
		it->sclat_seen = true;
	if (bt_message_get_type(msg) != BT_MESSAGE_TYPE_EVENT)
		return 0;
	ev = bt_message_event_borrow_event_const(msg);
	if (sclat_event_kind(bt_event_borrow_class_const(ev)) != SCLAT_EVENT_OUTLIER)
		return 0;
	err = outlier_read(ev, o);
	if (err) {
		KZ_ERROR(it, "Failed to read event: name=sclat:syscall_outlier %s",
			 outlier_error(err));
		return -1;
	}
	if (kz_outlier_check(it, o))
		return -1;
	/* entry_ts is a value of the event's clock: it must count nanoseconds. */
	cc = bt_message_event_borrow_stream_class_default_clock_class_const(msg);
	if (!cc || bt_clock_class_get_frequency(cc) != 1000000000ULL) {
		KZ_ERROR(it,
			 "Failed to convert the trace: its clock must count nanoseconds "
			 "(frequency=%llu)",
			 cc ? (unsigned long long)bt_clock_class_get_frequency(cc) : 0ULL);
		return -1;
	}
	*ts = bt_clock_snapshot_get_value(
		bt_message_event_borrow_default_clock_snapshot_const(msg));
	return 1;
}
