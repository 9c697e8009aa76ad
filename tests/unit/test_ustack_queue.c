// SPDX-License-Identifier: GPL-2.0-only
/* The unwinder's queue: full refuses and counts, order kept across the wrap, wake-ups. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include "unit.h"
#include "explain/ustack_queue.h"

static bool push(struct ustack_queue *q, int v)
{
	int *slot = ustack_queue_reserve(q);

	if (!slot)
		return false;
	*slot = v;
	ustack_queue_commit(q);
	return true;
}

static int pop(struct ustack_queue *q)
{
	int *slot = ustack_queue_peek(q), v;

	if (!slot)
		return -1;
	v = *slot;
	ustack_queue_release(q);
	return v;
}

static void test_full_refuses_and_counts(void)
{
	struct ustack_queue *q = ustack_queue_new(4, sizeof(int));
	struct ustack_queue_stats st;
	int i, accepted = 0;

	for (i = 0; i < 10; i++)
		accepted += push(q, i);
	ustack_queue_stats(q, &st);
	CHECK_EQ_INT(accepted, 4);
	CHECK_EQ_U64(st.pushed, 4);
	CHECK_EQ_U64(st.dropped, 6);
	CHECK_EQ_U64(st.max_depth, 4);
	/* The first four, in order; the refused never appear. */
	for (i = 0; i < 4; i++)
		CHECK_EQ_INT(pop(q), i);
	CHECK_EQ_INT(pop(q), -1);
	ustack_queue_stats(q, &st);
	CHECK_EQ_U64(st.popped, 4);
	ustack_queue_free(q);
}

static void test_order_across_wrap(void)
{
	struct ustack_queue *q = ustack_queue_new(8, sizeof(int));
	int i, k, next = 0, expect = 0;

	/* 5 in, 5 out, 100 times: head and tail go round the 8 slots many times. */
	for (i = 0; i < 100; i++) {
		for (k = 0; k < 5; k++)
			CHECK(push(q, next++), "room for item %d", next - 1);
		for (k = 0; k < 5; k++)
			CHECK_EQ_INT(pop(q), expect++);
	}
	CHECK_EQ_INT(pop(q), -1);
	ustack_queue_free(q);
}

static void test_bad_sizes_refused(void)
{
	errno = 0;
	CHECK(!ustack_queue_new(6, 8) && errno == EINVAL, "6 slots: not a power of two");
	CHECK(!ustack_queue_new(0, 8), "0 slots");
	CHECK(!ustack_queue_new(8, 0), "0 bytes");
}

static void test_sleep_fd_only_when_empty(void)
{
	struct ustack_queue *q = ustack_queue_new(4, sizeof(int));
	struct pollfd pfd = { .events = POLLIN };

	pfd.fd = ustack_queue_sleep_fd(q);
	CHECK(pfd.fd >= 0, "empty: an fd to sleep on");
	CHECK_EQ_INT(poll(&pfd, 1, 0), 0);
	/* A push while the consumer sleeps makes the fd readable. */
	push(q, 7);
	CHECK_EQ_INT(poll(&pfd, 1, 0), 1);
	ustack_queue_awake(q);
	CHECK_EQ_INT(ustack_queue_sleep_fd(q), -1); /* an item is there: do not sleep */
	ustack_queue_awake(q);
	CHECK_EQ_INT(pop(q), 7);
	ustack_queue_free(q);
}

struct race {
	struct ustack_queue *q;
	int n;
	long sum, popped;
};

static void *consumer(void *arg)
{
	struct race *r = arg;
	struct pollfd pfd = { .events = POLLIN };
	int v;

	while (r->popped < r->n) {
		v = pop(r->q);
		if (v >= 0) {
			r->sum += v;
			r->popped++;
			continue;
		}
		pfd.fd = ustack_queue_sleep_fd(r->q);
		if (pfd.fd >= 0)
			poll(&pfd, 1, 1000);
		ustack_queue_awake(r->q);
	}
	return NULL;
}

/* Every accepted item reaches the consumer once, with no lost wake-up. */
static void test_producer_consumer(void)
{
	struct race r = { .q = ustack_queue_new(16, sizeof(int)), .n = 200000 };
	struct ustack_queue_stats st;
	long sum = 0;
	pthread_t t;
	int i = 0;

	pthread_create(&t, NULL, consumer, &r);
	while (i < r.n) {
		if (push(r.q, i)) {
			sum += i;
			i++;
		}
	}
	pthread_join(t, NULL);
	ustack_queue_stats(r.q, &st);
	CHECK_EQ_U64(st.pushed, r.n);
	CHECK_EQ_U64(st.popped, r.n);
	CHECK_EQ_U64(r.sum, sum);
	ustack_queue_free(r.q);
}

int main(void)
{
	RUN(test_full_refuses_and_counts);
	RUN(test_order_across_wrap);
	RUN(test_bad_sizes_refused);
	RUN(test_sleep_fd_only_when_empty);
	RUN(test_producer_consumer);
	return unit_done();
}
