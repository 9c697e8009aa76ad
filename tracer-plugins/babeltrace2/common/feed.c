// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include "feed.h"

/* The host of the stream's trace; looked up again only when the trace changes. */
static int feed_host(struct feed *fd, const bt_stream *stream)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);

	if (trace == fd->trace)
		return 0;
	fd->trace = trace;
	return agg_host_find(fd->agg, sclat_stream_host(stream), &fd->host);
}

static int feed_event(struct feed *fd, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	struct threshold_change t;
	struct snapshot_count c;
	struct snapshot_ref snap;
	struct hung_call hung;
	struct syscall_stats s;
	struct lost_count l;
	const char *policy;
	struct run_end end;
	struct outlier o;
	uint32_t version;
	int64_t ns;
	int err;

	err = feed_host(fd, bt_event_borrow_stream_const(ev));
	if (err)
		return err;
	if (cs && !bt_clock_snapshot_get_ns_from_origin(cs, &ns))
		agg_host_saw(fd->host, ns);
	/* What a refused event says when its reader does not: a field missing or out of range. */
	err = -EINVAL;
	switch (sclat_event_kind(ec)) {
	case SCLAT_EVENT_OUTLIER:
		err = outlier_read(ev, &o);
		if (err)
			break;
		return agg_add(fd->agg, fd->host, &o);
	case SCLAT_EVENT_THRESHOLD:
		if (threshold_change_read(ev, cs, &t))
			break;
		return agg_add_change(fd->agg, fd->host, &t);
	case SCLAT_EVENT_STATS:
		if (syscall_stats_read(ev, &s))
			break;
		return s.class_name[0] ? 0 : agg_add_stats(fd->agg, fd->host, &s);
	case SCLAT_EVENT_LOST:
		if (lost_count_read(ev, &l))
			break;
		agg_add_loss(fd->host, &l);
		return 0;
	case SCLAT_EVENT_SNAPSHOT:
		if (snapshot_ref_read(ev, &snap))
			break;
		return agg_add_snapshot(fd->agg, &snap);
	case SCLAT_EVENT_INFLIGHT:
		err = hung_call_read(ev, &hung);
		if (err)
			break;
		return agg_add_hung(fd->agg, fd->host, &hung);
	case SCLAT_EVENT_SNAPSHOT_TOTALS:
		if (snapshot_count_read(ev, &c))
			break;
		agg_add_snapshot_count(fd->agg, &c);
		return 0;
	case SCLAT_EVENT_SESSION_BEGIN:
		if (session_policy_read(ev, &policy) || trace_version_read(ev, &version))
			break;
		agg_add_run_begin(fd->host, version);
		return agg_host_set_policy(fd->host, policy);
	case SCLAT_EVENT_SESSION_END:
		if (run_end_read(ev, &end))
			break;
		agg_add_run_end(fd->host, &end);
		return 0;
	default:
		return 0;
	}
	fd->bad_event = bt_event_class_get_name(ec);
	fd->bad_reason = outlier_error(err);
	return -EINVAL;
}

int feed_message(struct feed *fd, const bt_message *msg)
{
	const bt_stream *stream;
	uint64_t count;
	bool known;
	int err;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return feed_event(fd, msg);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		stream = bt_message_stream_beginning_borrow_stream_const(msg);
		if (sclat_stream_class_is_sclat(bt_stream_borrow_class_const(stream)))
			fd->sclat_streams++;
		return feed_host(fd, stream);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		err = feed_host(fd, bt_message_discarded_events_borrow_stream_const(msg));
		if (err)
			return err;
		known = bt_message_discarded_events_get_count(msg, &count) ==
			BT_PROPERTY_AVAILABILITY_AVAILABLE;
		agg_add_discarded(fd->host, known ? count : 0, known);
		return 0;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		/* A packet that never reached the trace: LTTng discards events, not packets. */
		err = feed_host(fd, bt_message_discarded_packets_borrow_stream_const(msg));
		if (err)
			return err;
		known = bt_message_discarded_packets_get_count(msg, &count) ==
			BT_PROPERTY_AVAILABILITY_AVAILABLE;
		agg_add_discarded_packets(fd->host, known ? count : 1);
		return 0;
	default:
		return 0;
	}
}
