// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/urcu-memb.h>
#include "inflight.h"
#include "kernel/probes_knobs.h"
#include "policy/policy.h"

/* A call is reported again when its age is this many times that of its first report. */
#define REPORT_AGAIN_FACTOR 10

struct inflight_entry {
	struct inflight_call call;
	__u64 next_report_ns; /* the age at which it is due again */
	__u64 scan;	      /* the last scan that saw it */
};

struct inflight {
	pthread_mutex_t lock; /* all of the below */
	struct inflight_entry *v;
	unsigned int n, cap;
	__u64 scan;
	__u64 reports;
	/* Per syscall, this scan: when a call is reported, and the threshold. */
	__u64 after_ns[SCLAT_MAX_SYSCALLS];
	/* Per syscall: inflight_after is auto, which reports only calls stuck (stuck()). */
	bool auto_after[SCLAT_MAX_SYSCALLS];
};

/* What a scan hands its callback. */
struct scan {
	struct inflight *in;
	bool final;
	inflight_report_fn fn;
	void *ctx;
	int n;
};

struct inflight *inflight_new(void)
{
	struct inflight *in = calloc(1, sizeof(*in));

	if (in)
		pthread_mutex_init(&in->lock, NULL);
	return in;
}

void inflight_free(struct inflight *in)
{
	if (!in)
		return;
	pthread_mutex_destroy(&in->lock);
	free(in->v);
	free(in);
}

static struct inflight_entry *entry_find(struct inflight *in, __u32 tid, __u64 entry_ns)
{
	unsigned int i;

	for (i = 0; i < in->n; i++)
		if (in->v[i].call.tid == tid && in->v[i].call.entry_ns == entry_ns)
			return &in->v[i];
	return NULL;
}

static struct inflight_entry *entry_add(struct inflight *in)
{
	struct inflight_entry *v;

	if (in->n == in->cap) {
		v = realloc(in->v, (in->cap ? in->cap * 2 : 16) * sizeof(*v));
		if (!v)
			return NULL;
		in->v = v;
		in->cap = in->cap ? in->cap * 2 : 16;
	}
	memset(&in->v[in->n], 0, sizeof(in->v[0]));
	return &in->v[in->n++];
}

static void entry_forget(struct inflight *in, struct inflight_entry *x)
{
	*x = in->v[--in->n];
}

/*
 * Whether a call in this state is stuck, for inflight_after = auto: idle is
 * not stuck. A task asleep interruptibly waits for something that may never
 * come by design (input on a terminal, a pipe or a socket, a client, a child,
 * a timer, another thread), and stopped is stopped by someone; the kernel's
 * own hung-task detector looks only at uninterruptible sleep. In D (I/O,
 * a device, a file system's lock), or on or waiting for a CPU for that long,
 * the call is stuck in the kernel. An explicit inflight_after reports any.
 */
static bool stuck(__u32 state)
{
	return state == SCLAT_STATE_DISK || state == SCLAT_STATE_RUNNING ||
	       state == SCLAT_STATE_RUNNABLE;
}

/* Called with in->lock held: the scan's lock covers the whole pass. */
static void on_record(void *ctx, const struct sclat_inflight *r)
{
	struct scan *s = ctx;
	struct inflight *in = s->in;
	const struct sclat_event *e = &r->e;
	struct inflight_entry *x = entry_find(in, e->tid, e->entry_ns);
	__u64 after = in->after_ns[e->nr % SCLAT_MAX_SYSCALLS];
	bool due;

	if (!x) {
		x = entry_add(in);
		if (!x)
			return;
		x->call.pid = e->pid;
		x->call.tid = e->tid;
		x->call.nr = e->nr;
		x->call.entry_ns = e->entry_ns;
		memcpy(x->call.comm, e->comm, sizeof(x->call.comm));
		x->next_report_ns = after;
	}
	x->scan = in->scan;
	x->call.state = r->state;
	x->call.inflight_ns = e->latency_ns;
	x->call.threshold_ns = e->threshold_ns;
	s->n++;
	due = after && e->latency_ns >= x->next_report_ns;
	if (in->auto_after[e->nr % SCLAT_MAX_SYSCALLS] && !stuck(r->state))
		return; /* listed, not reported: and due again when it is stuck */
	if (!due && !s->final)
		return;
	if (due) {
		/* 10x, 100x ... the first report's age: a hang of hours never goes quiet. */
		x->next_report_ns =
			(x->call.reports ? x->next_report_ns : e->latency_ns) * REPORT_AGAIN_FACTOR;
	}
	x->call.reports++;
	in->reports++;
	s->fn(s->ctx, r, x->call.reports, s->final);
}

/*
 * Per syscall, how old a call is listed (its threshold, when it has one) and
 * reported (inflight_after): the iterator writes the calls past the lower one.
 */
static void ages_set(struct inflight *in, struct probes *p)
{
	const struct policy *pol;
	__u64 threshold, after, bar;
	unsigned int nr;

	urcu_memb_read_lock();
	pol = policy_current();
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		threshold = sclat_threshold_ns(probes_threshold_word(p, nr));
		after = pol ? policy_inflight_after(&pol->rules[nr], threshold) : 0;
		bar = threshold < SCLAT_THRESHOLD_MASK ? threshold : after;
		if (after && after < bar)
			bar = after;
		in->after_ns[nr] = after;
		in->auto_after[nr] =
			pol && pol->rules[nr].inflight_after_ns == POLICY_INFLIGHT_AUTO;
		probes_inflight_after_set(p, nr, bar);
	}
	urcu_memb_read_unlock();
}

int inflight_scan(struct inflight *in, struct probes *p, bool final, inflight_report_fn fn,
		  void *ctx)
{
	struct scan s = { .in = in, .final = final, .fn = fn, .ctx = ctx };
	unsigned int i;
	int err;

	pthread_mutex_lock(&in->lock);
	ages_set(in, p);
	in->scan++;
	err = probes_inflight_scan(p, on_record, &s);
	/*
	 * A call not seen again returned, or its task is gone: forgotten at the
	 * next scan, not this one, so that its outlier, which may still be in
	 * the ring buffer now, finds its reports (inflight_returned). Never a
	 * stale entry past that.
	 */
	for (i = 0; err >= 0 && i < in->n;) {
		if (in->scan - in->v[i].scan >= 2)
			entry_forget(in, &in->v[i]);
		else
			i++;
	}
	pthread_mutex_unlock(&in->lock);
	return err < 0 ? err : s.n;
}

__u32 inflight_returned(struct inflight *in, __u32 tid, __u64 entry_ns)
{
	struct inflight_entry *x;
	__u32 reports = 0;

	pthread_mutex_lock(&in->lock);
	x = entry_find(in, tid, entry_ns);
	if (x) {
		reports = x->call.reports;
		entry_forget(in, x);
	}
	pthread_mutex_unlock(&in->lock);
	return reports;
}

static int by_age(const void *a, const void *b)
{
	const struct inflight_call *x = a, *y = b;

	return x->inflight_ns < y->inflight_ns ? 1 : x->inflight_ns > y->inflight_ns ? -1 : 0;
}

unsigned int inflight_list(struct inflight *in, struct inflight_call *out, unsigned int max)
{
	struct inflight_call *all;
	unsigned int i, n;

	pthread_mutex_lock(&in->lock);
	n = in->n;
	/* Longest first, from all of them: the ones cut are the least stuck. */
	all = n ? malloc(n * sizeof(*all)) : NULL;
	/* In flight at the last scan: not those that returned since, kept for their outliers. */
	for (i = 0, n = 0; all && i < in->n; i++)
		if (in->v[i].scan == in->scan)
			all[n++] = in->v[i].call;
	pthread_mutex_unlock(&in->lock);
	if (!all)
		return 0;
	qsort(all, n, sizeof(*all), by_age);
	n = n < max ? n : max;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

__u64 inflight_reports_total(struct inflight *in)
{
	__u64 n;

	pthread_mutex_lock(&in->lock);
	n = in->reports;
	pthread_mutex_unlock(&in->lock);
	return n;
}

const char *inflight_state_name(__u32 state)
{
	static const char *const names[] = {
		[SCLAT_STATE_RUNNING] = "running",   [SCLAT_STATE_RUNNABLE] = "runnable",
		[SCLAT_STATE_SLEEPING] = "sleeping", [SCLAT_STATE_DISK] = "D",
		[SCLAT_STATE_STOPPED] = "stopped",
	};

	return state < sizeof(names) / sizeof(names[0]) && names[state] ? names[state] : "unknown";
}
