/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * filter.sclat.kernelize's output: the messages made ahead of the
 * downstream's asking, handed out in order, as many as it takes at a time.
 */
#ifndef SCLAT_BT2_KZ_QUEUE_H
#define SCLAT_BT2_KZ_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

/* A ring of message references, grown as it fills. */
struct kz_queue {
	const bt_message **msgs;
	size_t head, len, cap;
};

/* Queue msg (its reference is the queue's); 0, or -1 when msg is NULL or out of memory. */
int kz_queue_push(struct kz_queue *q, const bt_message *msg);

/* Up to capacity messages, the first queued first, into msgs; how many. */
uint64_t kz_queue_take(struct kz_queue *q, bt_message_array_const msgs, uint64_t capacity);

/* The references of what is left, and the ring. */
void kz_queue_free(struct kz_queue *q);

#endif
