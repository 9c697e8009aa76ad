// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include "feed.h"

static int feed_event(struct feed *fd, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	struct threshold_change t;
	struct snapshot_count c;
	struct snapshot_ref s;
	struct lost_count l;
	struct run_end end;
	struct outlier o;
	uint32_t version;
	uint64_t n;

	switch (sclat_event_kind(ec)) {
	case SCLAT_EVENT_OUTLIER:
		if (outlier_read(ev, &o))
			break;
		return agg_add(fd->agg, &o);
	case SCLAT_EVENT_THRESHOLD:
		if (threshold_change_read(
			    ev, bt_message_event_borrow_default_clock_snapshot_const(msg), &t))
			break;
		return agg_add_change(fd->agg, &t);
	case SCLAT_EVENT_LOST:
		if (lost_count_read(ev, &l))
			break;
		agg_add_loss(fd->agg, &l);
		return 0;
	case SCLAT_EVENT_STATS:
		if (stats_outliers_read(ev, &n))
			break;
		fd->agg->runs.stats_outliers += n;
		return 0;
	case SCLAT_EVENT_SESSION_BEGIN:
		if (trace_version_read(ev, &version))
			break;
		agg_add_run_begin(fd->agg, version);
		return 0;
	case SCLAT_EVENT_SESSION_END:
		if (run_end_read(ev, &end))
			break;
		agg_add_run_end(fd->agg, &end);
		return 0;
	case SCLAT_EVENT_SNAPSHOT:
		if (snapshot_ref_read(ev, &s))
			break;
		return agg_add_snapshot(fd->agg, &s);
	case SCLAT_EVENT_SNAPSHOT_TOTALS:
		if (snapshot_count_read(ev, &c))
			break;
		agg_add_snapshot_count(fd->agg, &c);
		return 0;
	default:
		return 0;
	}
	fd->bad_event = bt_event_class_get_name(ec);
	return -EINVAL;
}

int feed_message(struct feed *fd, const bt_message *msg)
{
	const bt_stream *stream;
	uint64_t count;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return feed_event(fd, msg);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		stream = bt_message_stream_beginning_borrow_stream_const(msg);
		if (sclat_stream_class_is_sclat(bt_stream_borrow_class_const(stream)))
			fd->sclat_streams++;
		return 0;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		if (bt_message_discarded_events_get_count(msg, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			fd->agg->loss.discarded += count;
		else
			fd->agg->loss.discarded_unknown = true;
		return 0;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		/* A packet that never reached the trace: LTTng discards events, not packets. */
		if (bt_message_discarded_packets_get_count(msg, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			fd->agg->loss.discarded_packets += count;
		else
			fd->agg->loss.discarded_packets++;
		return 0;
	default:
		return 0;
	}
}
