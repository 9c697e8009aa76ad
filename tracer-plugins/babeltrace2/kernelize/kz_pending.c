// SPDX-License-Identifier: GPL-2.0-only
/* kernelize's pending events in time order (kz_pending.h). */
#include <stdlib.h>
#include <string.h>
#include "kz_emit.h"
#include "kz_iter.h"

/*
 * Within one nanosecond: a thread leaves a CPU before another comes in (one
 * sched_switch in the kernel), woken before it is back; entries and exits
 * last, in input order.
 */
static int kz_rank(enum kz_step step)
{
	return step == KZ_SWITCH_OUT ? 0 : step == KZ_WAKEUP ? 1 : step == KZ_SWITCH_IN ? 2 : 3;
}

/* The order of the pending events' heap (util/heap.h). */
static bool kz_before(const void *pa, const void *pb)
{
	const struct pending *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (kz_rank(a->step) != kz_rank(b->step))
		return kz_rank(a->step) < kz_rank(b->step);
	return a->seq < b->seq;
}

void kz_pending_init(struct kz_iter *it)
{
	heap_init(&it->pending, sizeof(struct pending), kz_before);
}

void kz_pending_free(struct kz_iter *it)
{
	struct pending *pe = it->pending.items;
	size_t i;

	for (i = 0; i < it->pending.nr; i++)
		if (!--pe[i].call->refs)
			free(pe[i].call);
	heap_free(&it->pending);
}

static int kz_push(struct kz_iter *it, struct kz_call *call, enum kz_step step, uint64_t ts,
		   uint32_t cpu, uint32_t span)
{
	struct pending pe = {
		.ts = ts, .seq = it->seq++, .step = step, .cpu = cpu, .span = span, .call = call
	};

	if (heap_push(&it->pending, &pe))
		return -1;
	call->refs++;
	return 0;
}

int kz_flush(struct kz_iter *it, uint64_t until, size_t max)
{
	const struct pending *top;
	uint64_t ts;
	size_t n, i;
	int err;

	while ((top = heap_top(&it->pending)) && (top->ts < until || until == UINT64_MAX) &&
	       it->out.len < max) {
		/* All the events of this nanosecond, together. */
		ts = top->ts;
		for (n = 0; (top = heap_top(&it->pending)) && top->ts == ts; n++) {
			if (n == it->cap_batch) {
				size_t cap = it->cap_batch ? 2 * it->cap_batch : 64;
				struct pending *b = realloc(it->batch, cap * sizeof(*b));

				if (!b)
					return -1;
				it->batch = b;
				it->cap_batch = cap;
			}
			heap_pop(&it->pending, &it->batch[n]);
		}
		err = kz_release(it, it->batch, n);
		for (i = 0; i < n; i++)
			if (!--it->batch[i].call->refs)
				free(it->batch[i].call);
		if (err)
			return -1;
	}
	return 0;
}

/*
 * The pending events of outlier o: its entry and exit, and its recorded
 * switches and wake-ups, each on its CPU.
 */
int kz_push_outlier(struct kz_iter *it, const struct outlier *o)
{
	const struct outlier_explanation *x = &o->why;
	size_t target_len = o->why.target ? strnlen(o->why.target, KZ_TARGET_MAX) : 0;
	struct kz_call *call = malloc(sizeof(*call) + target_len + 1);
	uint32_t i;
	int err;

	if (!call)
		return -1;
	call->refs = 1;
	call->o = *o;
	/* Borrowed from the event, gone before this is released: the target is kept. */
	memcpy(call->target, target_len ? o->why.target : "", target_len);
	call->target[target_len] = '\0';
	call->o.why.target = call->target;
	call->o.why.kernel_stack = call->o.why.user_stack = "";
	err = kz_push(it, call, KZ_ENTRY, o->entry_ts,
		      x->off_cpu_listed ? x->off_cpu[0].cpu : o->cpu, 0);
	for (i = 0; !err && i < x->off_cpu_listed; i++) {
		const struct outlier_off_cpu *s = &x->off_cpu[i];

		err = kz_push(it, call, KZ_SWITCH_OUT, o->entry_ts + s->out_ns, s->cpu, i);
		if (!err && s->woken)
			err = kz_push(it, call, KZ_WAKEUP, o->entry_ts + s->wake_ns, s->in_cpu, i);
		/*
		 * Back in the nanosecond it leaves again or exits (a switch in
		 * sched_switch missed): the next event makes it current itself.
		 */
		if (!err && s->in_ns != (i + 1 < x->off_cpu_listed ? s[1].out_ns : o->latency_ns))
			err = kz_push(it, call, KZ_SWITCH_IN, o->entry_ts + s->in_ns, s->in_cpu, i);
	}
	if (!err)
		err = kz_push(it, call, KZ_EXIT, o->entry_ts + o->latency_ns, o->cpu, 0);
	if (!--call->refs)
		free(call);
	return err;
}
