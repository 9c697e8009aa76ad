// SPDX-License-Identifier: GPL-2.0-only
/* Single producer, single consumer ring of slots; full means refused, never wait. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "explain/ustack_queue.h"

struct ustack_queue {
	unsigned int mask;
	size_t slot_size;
	char *slots;
	int efd;
	/* Producer's line: head, its counts. Consumer's line: tail, sleeping. */
	__u64 head __attribute__((aligned(64)));
	__u64 pushed, dropped;
	__u32 max_depth;
	__u64 tail __attribute__((aligned(64)));
	int sleeping;
};

struct ustack_queue *ustack_queue_new(unsigned int slots, size_t slot_size)
{
	struct ustack_queue *q;

	if (!slots || (slots & (slots - 1)) || !slot_size) {
		errno = EINVAL;
		return NULL;
	}
	q = aligned_alloc(64, sizeof(*q));
	if (!q)
		return NULL;
	*q = (struct ustack_queue){ .mask = slots - 1, .slot_size = slot_size };
	q->slots = malloc((size_t)slots * slot_size);
	q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!q->slots || q->efd < 0) {
		ustack_queue_free(q);
		return NULL;
	}
	/* Touched now, not on the producer's path: a first write to a page faults. */
	memset(q->slots, 0, (size_t)slots * slot_size);
	return q;
}

void ustack_queue_free(struct ustack_queue *q)
{
	if (!q)
		return;
	if (q->efd >= 0)
		close(q->efd);
	free(q->slots);
	free(q);
}

void *ustack_queue_reserve(struct ustack_queue *q)
{
	__u64 tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);

	if (q->head - tail > q->mask) {
		__atomic_store_n(&q->dropped, q->dropped + 1, __ATOMIC_RELAXED);
		return NULL;
	}
	return q->slots + (q->head & q->mask) * q->slot_size;
}

unsigned int ustack_queue_depth(const struct ustack_queue *q)
{
	return q->head - __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
}

void ustack_queue_commit(struct ustack_queue *q)
{
	__u64 depth = q->head + 1 - __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
	__u64 one = 1;

	__atomic_store_n(&q->head, q->head + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&q->pushed, q->pushed + 1, __ATOMIC_RELAXED);
	if (depth > q->max_depth)
		__atomic_store_n(&q->max_depth, (__u32)depth, __ATOMIC_RELAXED);
	/* Pairs with ustack_queue_sleep_fd(): either it sees the item or we see it asleep. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->sleeping, __ATOMIC_RELAXED))
		(void)!write(q->efd, &one, sizeof(one));
}

void *ustack_queue_peek(struct ustack_queue *q)
{
	__u64 head = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);

	if (q->tail == head)
		return NULL;
	return q->slots + (q->tail & q->mask) * q->slot_size;
}

void ustack_queue_release(struct ustack_queue *q)
{
	__atomic_store_n(&q->tail, q->tail + 1, __ATOMIC_RELEASE);
}

int ustack_queue_sleep_fd(struct ustack_queue *q)
{
	__u64 count;

	/* Empty the eventfd of past wake-ups first, so poll() waits for a new one. */
	(void)!read(q->efd, &count, sizeof(count));
	__atomic_store_n(&q->sleeping, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->head, __ATOMIC_RELAXED) != q->tail) {
		__atomic_store_n(&q->sleeping, 0, __ATOMIC_RELAXED);
		return -1;
	}
	return q->efd;
}

void ustack_queue_awake(struct ustack_queue *q)
{
	__atomic_store_n(&q->sleeping, 0, __ATOMIC_RELAXED);
}

void ustack_queue_wake(struct ustack_queue *q)
{
	__u64 one = 1;

	(void)!write(q->efd, &one, sizeof(one));
}

void ustack_queue_stats(const struct ustack_queue *q, struct ustack_queue_stats *st)
{
	__u64 pushed = __atomic_load_n(&q->pushed, __ATOMIC_RELAXED);
	__u64 tail = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);

	st->pushed = pushed;
	st->dropped = __atomic_load_n(&q->dropped, __ATOMIC_RELAXED);
	st->popped = tail;
	st->max_depth = __atomic_load_n(&q->max_depth, __ATOMIC_RELAXED);
	st->slots = q->mask + 1;
}
