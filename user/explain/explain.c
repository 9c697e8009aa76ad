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

const char *explanation_main_part(const struct explanation *x, __u64 *ns)
{
	const struct sclat_breakdown *b = &x->breakdown;
	const char *name = "cpu";

	*ns = b->on_cpu_ns;
	if (b->runqueue_ns > *ns) {
		*ns = b->runqueue_ns;
		name = "runq";
	}
	if (b->sleep_ns > *ns) {
		*ns = b->sleep_ns;
		name = "sleep";
	}
	if (b->io_wait_ns > *ns) {
		*ns = b->io_wait_ns;
		name = "io";
	}
	return name;
}

/* The scheduler's own frames, above the function that chose to wait. */
static const char *const sched_frames[] = {
	"__schedule",
	"schedule",
	"io_schedule",
	"preempt_schedule",
	"__cond_resched",
	"__wait_for_common",
	"do_wait_for_common",
	"wait_for_completion",
	"wait_woken",
	"bit_wait",
	"__wait_on_bit",
	"out_of_line_wait_on_bit",
	NULL,
};

static bool is_sched_frame(const char *frame)
{
	const char *const *s;
	size_t n;

	for (s = sched_frames; *s; s++) {
		n = strlen(*s);
		/* The name itself or one built on it (schedule_timeout, io_schedule_timeout). */
		if (!strncmp(frame, *s, n) && (frame[n] == '+' || frame[n] == '_'))
			return true;
	}
	return false;
}

const char *explanation_wait_frame(const struct explanation *x)
{
	unsigned int i;

	for (i = 0; i < x->kstack_depth; i++)
		if (!is_sched_frame(x->kstack[i]))
			return x->kstack[i];
	return NULL;
}
