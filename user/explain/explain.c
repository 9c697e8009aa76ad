// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "explain.h"
#include "ksyms.h"
#include "target.h"
#include "util/clock.h"

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
		fprintf(stderr,
			"sclat: %s shows no addresses (kernel.kptr_restrict): kernel stacks are "
			"shown as addresses\n",
			kallsyms);
	else if (!x->ksyms)
		fprintf(stderr, "sclat: %s: %s: kernel stacks are shown as addresses\n", kallsyms,
			strerror(errno));
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
	out->bpf_ns = e->explain_ns;
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

void explanation_why(const struct explanation *x, struct outlier_why *w, char *stack, size_t len)
{
	*w = (struct outlier_why){
		.on_cpu_ns = x->breakdown.on_cpu_ns,
		.runqueue_ns = x->breakdown.runqueue_ns,
		.sleep_ns = x->breakdown.sleep_ns,
		.io_wait_ns = x->breakdown.io_wait_ns,
		.switches = x->switches,
		.has_waker = x->has_waker,
		.waker_pid = (int32_t)x->waker.pid,
		.waker_tid = (int32_t)x->waker.tid,
		.waker_comm = x->waker.comm,
		.target = x->has_target ? x->target : NULL,
		.kernel_stack = explanation_kernel_stack(x, stack, len),
	};
}
