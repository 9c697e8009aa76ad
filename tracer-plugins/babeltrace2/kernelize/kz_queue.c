// SPDX-License-Identifier: GPL-2.0-only
/* kernelize's output queue (kz_queue.h). */
#include <stdlib.h>
#include "kz_queue.h"

int kz_queue_push(struct kz_queue *q, const bt_message *msg)
{
	if (!msg)
		return -1;
	if (q->len == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 256, i;
		const bt_message **msgs = malloc(cap * sizeof(*msgs));

		if (!msgs) {
			bt_message_put_ref(msg);
			return -1;
		}
		for (i = 0; i < q->len; i++)
			msgs[i] = q->msgs[(q->head + i) % q->cap];
		free(q->msgs);
		q->msgs = msgs;
		q->head = 0;
		q->cap = cap;
	}
	q->msgs[(q->head + q->len++) % q->cap] = msg;
	return 0;
}

uint64_t kz_queue_take(struct kz_queue *q, bt_message_array_const msgs, uint64_t capacity)
{
	uint64_t n;

	for (n = 0; n < capacity && q->len; n++) {
		msgs[n] = q->msgs[q->head];
		q->head = (q->head + 1) % q->cap;
		q->len--;
	}
	return n;
}

void kz_queue_free(struct kz_queue *q)
{
	size_t i;

	for (i = 0; i < q->len; i++)
		bt_message_put_ref(q->msgs[(q->head + i) % q->cap]);
	free(q->msgs);
	q->msgs = NULL;
	q->head = q->len = q->cap = 0;
}
