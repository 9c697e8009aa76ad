/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A bounded queue of fixed-size slots between one producer that must never
 * wait (the ring buffer consumer) and one consumer that may be slow (the
 * unwinder): a full queue refuses the item and counts it, it does not block.
 * Lock-free; an eventfd wakes the consumer only when it sleeps.
 */
#ifndef SCLAT_USTACK_QUEUE_H
#define SCLAT_USTACK_QUEUE_H

#include <stddef.h>
#include <linux/types.h>

struct ustack_queue;

struct ustack_queue_stats {
	__u64 pushed;	 /* items committed */
	__u64 dropped;	 /* items refused: the queue was full */
	__u64 popped;	 /* items released by the consumer */
	__u32 max_depth; /* the most items it held at once */
	__u32 slots;
};

/* slots: a power of two; slot_size: bytes of one item. NULL with errno. */
struct ustack_queue *ustack_queue_new(unsigned int slots, size_t slot_size);
void ustack_queue_free(struct ustack_queue *q);

/* Producer: the next free slot to fill, or NULL (counted as dropped) when full. */
void *ustack_queue_reserve(struct ustack_queue *q);
/* Producer: how many items are queued now. */
unsigned int ustack_queue_depth(const struct ustack_queue *q);
/* Producer: hand the reserved slot to the consumer (and wake it if it sleeps). */
void ustack_queue_commit(struct ustack_queue *q);

/* Consumer: the oldest item, or NULL when empty. */
void *ustack_queue_peek(struct ustack_queue *q);
/* Consumer: done with the item peek returned; its slot is free again. */
void ustack_queue_release(struct ustack_queue *q);

/*
 * Consumer, about to sleep: returns an fd to poll (readable once an item
 * comes), or -1 when an item is already there. ustack_queue_awake() after.
 */
int ustack_queue_sleep_fd(struct ustack_queue *q);
void ustack_queue_awake(struct ustack_queue *q);
/* Any thread: wake the consumer from its poll (to stop it). */
void ustack_queue_wake(struct ustack_queue *q);

void ustack_queue_stats(const struct ustack_queue *q, struct ustack_queue_stats *st);

#endif
