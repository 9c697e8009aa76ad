/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernelize's pending events: each outlier's entry, exit, switches and
 * wake-ups, held in a heap (util/heap.h) until no later input can come
 * before them, then released a nanosecond at a time.
 */
#ifndef SCLAT_BT2_KZ_PENDING_H
#define SCLAT_BT2_KZ_PENDING_H

#include <stddef.h>
#include <stdint.h>
#include "outlier.h"

struct kz_iter;

/* An outlier, shared by its pending events: freed with the last. */
struct kz_call {
	unsigned int refs;
	struct outlier o;
	char target[]; /* o.why.target's copy: the file its fd names, for its statedump */
};

/* What a pending event of an outlier is. */
enum kz_step {
	KZ_ENTRY,
	KZ_SWITCH_OUT, /* off_cpu[span] begins */
	KZ_WAKEUP,     /* its block is woken */
	KZ_SWITCH_IN,  /* it ends */
	KZ_EXIT,
};

struct pending {
	uint64_t ts;
	uint64_t seq;
	enum kz_step step;
	uint32_t cpu;
	uint32_t span; /* KZ_SWITCH_OUT, KZ_WAKEUP: the stretch off the CPU */
	struct kz_call *call;
};

/* The heap of pending events, empty; and what is left of it, its outliers freed. */
void kz_pending_init(struct kz_iter *it);
void kz_pending_free(struct kz_iter *it);

/* The pending events of outlier o: its entry and exit, its switches and wake-ups; 0 or -1. */
int kz_push_outlier(struct kz_iter *it, const struct outlier *o);

/*
 * Release pending events earlier than until (UINT64_MAX: all, the last
 * nanosecond included), while fewer than max messages are queued; 0 or -1.
 */
int kz_flush(struct kz_iter *it, uint64_t until, size_t max);

#endif
