// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain.h"
#include "ksyms.h"
#include "target.h"
#include "unwind.h"
#include "sclat_ustack.h"
#include "util/clock.h"
#include "util/log.h"

struct explain {
	struct ksyms *ksyms; /* NULL: frames stay addresses */
};

int explain_open(struct explain **xp, const char *kallsyms)
{
	struct explain *x = calloc(1, sizeof(*x));

	*xp = NULL;
	if (!x)
		return -ENOMEM;
	x->ksyms = ksyms_load(kallsyms);
	if (!x->ksyms && errno == ENOMEM) {
		free(x);
		return -ENOMEM;
	}
	if (!x->ksyms && errno == ENOENT)
		log_warn("%s shows no addresses (kernel.kptr_restrict): kernel stacks are "
			 "shown as addresses",
			 kallsyms);
	else if (!x->ksyms)
		log_warn("%s: %s: kernel stacks are shown as addresses", kallsyms, strerror(errno));
	*xp = x;
	return 0;
}

void explain_close(struct explain *x)
{
	if (!x)
		return;
	ksyms_free(x->ksyms);
	free(x);
}

static void waker_decode(const struct sclat_waker *w, struct explanation *out)
{
	out->has_waker = w->context != SCLAT_WAKER_NONE;
	out->waker.pid = w->pid;
	out->waker.tid = w->tid;
	switch (w->context) {
	case SCLAT_WAKER_TASK:
		snprintf(out->waker.comm, sizeof(out->waker.comm), "%.*s", SCLAT_COMM_LEN, w->comm);
		break;
	case SCLAT_WAKER_INTERRUPT:
		snprintf(out->waker.comm, sizeof(out->waker.comm), "[interrupt]");
		break;
	default:
		out->waker.comm[0] = '\0';
	}
}

static int wait_decode(const struct sclat_wait *w, size_t len, struct explanation *out)
{
	if (len < sizeof(*w))
		return -EINVAL;
	out->breakdown = w->breakdown;
	out->switches = w->switches;
	waker_decode(&w->waker, out);
	return 0;
}

/* A link of the chain as ns after the entry: the kernel keeps them in order from it. */
static __u64 after_entry(__u64 ts, __u64 entry_ns)
{
	return ts > entry_ns ? ts - entry_ns : 0;
}

static int off_cpu_decode(const struct sclat_off_cpu_list *l, size_t len,
			  const struct sclat_event *e, struct explanation *out)
{
	const size_t head = offsetof(struct sclat_off_cpu_list, span);
	__u32 listed, i;

	if (len < head)
		return -EINVAL;
	listed = l->count < SCLAT_OFF_CPU_MAX ? l->count : SCLAT_OFF_CPU_MAX;
	if (len < head + listed * sizeof(l->span[0]))
		return -EINVAL;
	for (i = 0; i < listed; i++) {
		const struct sclat_off_cpu *k = &l->span[i];

		out->off_cpu[i] = (struct outlier_off_cpu){
			.out_ns = after_entry(k->out_ns, e->entry_ns),
			.wake_ns = after_entry(k->wake_ns, e->entry_ns),
			.in_ns = after_entry(k->in_ns, e->entry_ns),
			.cpu = k->cpu,
			.in_cpu = k->in_cpu,
			.kind = k->kind,
			.woken = k->wake_ns != 0,
		};
	}
	out->off_cpu_listed = listed;
	out->off_cpu_unlisted = l->count - listed;
	out->off_cpu_waker = l->waker_index < listed ? (int)l->waker_index : -1;
	return 0;
}

static int kstack_decode(struct explain *x, const struct sclat_kstack *ks, size_t len,
			 struct explanation *out)
{
	unsigned int i;

	if (len < offsetof(struct sclat_kstack, ip) || ks->depth > SCLAT_KSTACK_MAX ||
	    len < offsetof(struct sclat_kstack, ip) + ks->depth * sizeof(ks->ip[0]))
		return -EINVAL;
	out->kstack_depth = ks->depth;
	for (i = 0; i < ks->depth; i++) {
		out->kstack_ip[i] = ks->ip[i];
		ksyms_format(x ? x->ksyms : NULL, ks->ip[i], out->kstack[i],
			     sizeof(out->kstack[i]));
	}
	return 0;
}

/* The capture stays in the record: the worker copies the bytes the kernel did. */
static int ustack_decode(const struct sclat_ustack *u, size_t len, struct explanation *out)
{
	if (len < offsetof(struct sclat_ustack, stack) || u->size > SCLAT_USTACK_BYTES ||
	    u->size > len - offsetof(struct sclat_ustack, stack))
		return -EINVAL;
	out->ustack_capture = u;
	if (u->flags & SCLAT_USTACK_BUDGET)
		out->user_stack_missing = OUTLIER_USTACK_BUDGET;
	else if (u->flags & SCLAT_USTACK_SKIPPED)
		out->user_stack_missing = OUTLIER_USTACK_RING;
	else if (u->flags & SCLAT_USTACK_NO_REGS)
		out->user_stack_missing = OUTLIER_USTACK_NO_USER;
	else if (!u->size)
		out->user_stack_missing = OUTLIER_USTACK_UNREADABLE;
	return 0;
}

int explain_outlier(struct explain *x, const struct sclat_event *e, size_t size,
		    struct explanation *out)
{
	const char *rec = (const char *)e;
	const struct sclat_part *p;
	size_t off = sizeof(*e);
	__u64 start = clock_ns(CLOCK_MONOTONIC);
	int err = 0;

	/* Without a wait part, the call ran on its CPU all along. */
	out->breakdown = (struct sclat_breakdown){ .on_cpu_ns = e->latency_ns };
	out->switches = 0;
	waker_decode(&(struct sclat_waker){}, out);
	out->has_target = false;
	out->target[0] = '\0';
	out->kstack_depth = 0;
	out->ustack_capture = NULL;
	out->user_stack = NULL;
	out->user_stack_dropped = false;
	out->user_stack_missing = OUTLIER_USTACK_HAS;
	out->off_cpu_listed = 0;
	out->off_cpu_unlisted = 0;
	out->off_cpu_waker = -1;
	/* Read now: the process may be gone by the time its user stack is named. */
	proc_title_read((pid_t)e->pid, out->title, sizeof(out->title));
	out->bpf_ns = e->explain_ns;
	out->irq_ns = e->irq_ns;
	out->steal_ns = e->steal_ns;
	out->waker_runqueue_ns = e->waker_runqueue_ns;
	while (!err && off + sizeof(*p) <= size) {
		p = (const struct sclat_part *)(rec + off);
		if (p->len > size - off - sizeof(*p)) {
			err = -EINVAL;
			break;
		}
		if (p->kind == SCLAT_PART_WAIT)
			err = wait_decode((const void *)(p + 1), p->len, out);
		else if (p->kind == SCLAT_PART_TARGET)
			out->has_target = target_format((const void *)(p + 1), p->len, out->target,
							sizeof(out->target)) != NULL;
		else if (p->kind == SCLAT_PART_KSTACK)
			err = kstack_decode(x, (const void *)(p + 1), p->len, out);
		else if (p->kind == SCLAT_PART_USTACK)
			err = ustack_decode((const void *)(p + 1), p->len, out);
		else if (p->kind == SCLAT_PART_OFF_CPU)
			err = off_cpu_decode((const void *)(p + 1), p->len, e, out);
		off += SCLAT_PART_SIZE(p->len);
	}
	out->user_ns = clock_ns(CLOCK_MONOTONIC) - start;
	return err;
}

const char *explanation_kernel_stack(const struct explanation *x, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;
	int n;

	buf[0] = '\0';
	for (i = 0; i < x->kstack_depth && used < len; i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? ";" : "", x->kstack[i]);
		if (n < 0)
			break;
		used += n;
	}
	return buf;
}

const char *explanation_user_stack(const struct explanation *x, char *buf, size_t len)
{
	const struct ustack_result *r = x->user_stack;
	size_t used = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; r && i < r->nr && used < len; i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? ";" : "", r->frames[i].text);
		if (n < 0)
			break;
		used += n;
	}
	return buf;
}

/* The time a call was blocked: asleep, or waiting for I/O. */
static __u64 blocked_ns(const struct sclat_breakdown *b)
{
	return b->sleep_ns + b->io_wait_ns;
}

void explanation_why(const struct explanation *x, struct outlier_why *w, char *text, size_t len)
{
	size_t klen = len / 2 < EXPLAIN_KSTACK_TEXT_LEN ? len / 2 : EXPLAIN_KSTACK_TEXT_LEN;

	*w = (struct outlier_why){
		.on_cpu_ns = x->breakdown.on_cpu_ns,
		.runqueue_ns = x->breakdown.runqueue_ns,
		.sleep_ns = x->breakdown.sleep_ns,
		.io_wait_ns = x->breakdown.io_wait_ns,
		.irq_ns = x->irq_ns < x->breakdown.on_cpu_ns ? x->irq_ns : x->breakdown.on_cpu_ns,
		.steal_ns =
			x->steal_ns < x->breakdown.on_cpu_ns ? x->steal_ns : x->breakdown.on_cpu_ns,
		.waker_runqueue_ns = x->waker_runqueue_ns < blocked_ns(&x->breakdown)
					     ? x->waker_runqueue_ns
					     : blocked_ns(&x->breakdown),
		.switches = x->switches,
		.has_waker = x->has_waker,
		.waker_pid = (int32_t)x->waker.pid,
		.waker_tid = (int32_t)x->waker.tid,
		.waker_comm = x->waker.comm,
		.target = x->has_target ? x->target : NULL,
		.kernel_stack = explanation_kernel_stack(x, text, klen),
		.user_stack = explanation_user_stack(x, text + klen, len - klen),
		.user_stack_dropped = x->user_stack_dropped,
		.user_stack_missing = x->user_stack_missing,
		.off_cpu = x->off_cpu,
		.off_cpu_listed = x->off_cpu_listed,
		.off_cpu_unlisted = x->off_cpu_unlisted,
		.off_cpu_waker = x->off_cpu_waker,
	};
}
