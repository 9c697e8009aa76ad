// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include "feed.h"

static int feed_event(struct feed *fd, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	struct threshold_change t;
	struct lost_count l;
	struct outlier o;
	int err = -EINVAL;

	switch (sclat_event_kind(ec)) {
	case SCLAT_EVENT_OUTLIER:
		err = outlier_read(ev, &o);
		if (err)
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
	default:
		return 0;
	}
}
