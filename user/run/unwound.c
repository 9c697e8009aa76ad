// SPDX-License-Identifier: GPL-2.0-only
/*
 * The outliers that carry a user stack: submitted to the unwinder's thread
 * (explain/ustack_worker.c), which names the stack and hands the outlier back
 * here; the drain thread takes them between polls and sends them out. And
 * the unwinder's counts, pushed to the controller for `sclat status` and
 * sclat:overhead.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "run_state.h"
#include "util/compiler.h"
#include "util/log.h"

static void unwound_deliver_one(struct run *r, struct unwound_outlier *u)
{
	u->p.x.user_stack = &u->stack;
	u->p.x.user_ns += u->stack.unwind_ns + u->stack.name_ns;
	fanout_outlier(r, &u->p, &u->p.x);
}

/* Drain thread: the outliers the unwinder has finished, oldest first; then, if last, no more. */
static void unwound_deliver_all(struct run *r, bool last)
{
	struct unwound *u = &r->unwound;

	pthread_mutex_lock(&u->lock);
	while (u->count) {
		unwound_deliver_one(r, &u->slot[u->head]);
		u->head = (u->head + 1) % UNWOUND_SLOTS;
		u->count--;
	}
	if (last)
		u->direct = true;
	pthread_cond_signal(&u->room);
	pthread_mutex_unlock(&u->lock);
}

void unwound_deliver(struct run *r)
{
	if (r->unwound.worker)
		unwound_deliver_all(r, false);
}

/* The run stopped before its stack's turn came: it goes out without it, as one dropped. */
static void unwound_stopped_mark(struct unwound_outlier *o)
{
	if (o->stack.end == USTACK_END_STOPPED)
		o->p.x.user_stack_dropped = true;
}

/* On the unwinder's thread: hand the outlier and its named stack back to the drain. */
static void on_user_stack(void *ctx, const struct ustack_job *job __always_unused,
			  const void *payload, const struct ustack_result *res)
{
	struct run *r = ctx;
	struct unwound *u = &r->unwound;
	struct unwound_outlier *o;

	pthread_mutex_lock(&u->lock);
	while (u->count == UNWOUND_SLOTS && !u->direct)
		pthread_cond_wait(&u->room, &u->lock);
	if (u->direct) {
		/* The drain is waiting for this thread to finish: it is the only writer now. */
		o = &u->slot[0];
		memcpy(&o->p, payload, sizeof(o->p));
		o->stack = *res;
		unwound_stopped_mark(o);
		unwound_deliver_one(r, o);
	} else {
		o = &u->slot[(u->head + u->count) % UNWOUND_SLOTS];
		memcpy(&o->p, payload, sizeof(o->p));
		o->stack = *res;
		unwound_stopped_mark(o);
		u->count++;
	}
	pthread_mutex_unlock(&u->lock);
}

int unwound_submit(struct run *r, const struct sclat_event *e, const struct sclat_ustack *cap)
{
	return ustack_worker_submit(r->unwound.worker, e->entry_ns + e->latency_ns, e->pid, e->tid,
				    cap, &r->p);
}

/* The unwinder's counts as the controller shows them. */
static void costs_of(const struct unwound *u, const struct ustack_worker_stats *st,
		     struct user_stack_costs *c)
{
	*c = (struct user_stack_costs){
		.on = u->on,
		.queued = st->submitted,
		.dropped = st->dropped + u->skipped,
		.unwound = st->unwound,
		.frames = st->frames,
		.unwind_ns = st->unwind_ns,
		.name_ns = st->name_ns,
		.unwind_ns_max = st->unwind_ns_max,
		.name_ns_max = st->name_ns_max,
		.wait_ns_max = st->wait_ns_max,
		.queue_slots = st->queue_slots,
		.queue_max_depth = st->queue_max_depth,
	};
}

/* The run pushes what the unwinder counted so far to the controller, which shows it. */
void unwound_costs_push(struct run *r)
{
	struct ustack_worker_stats st = {};
	struct user_stack_costs c;

	if (!r->ctl || !r->unwound.on)
		return;
	if (r->unwound.worker)
		ustack_worker_stats(r->unwound.worker, &st);
	costs_of(&r->unwound, &st, &c);
	controller_user_stacks(r->ctl, &c);
}

/*
 * Unwind what is queued and deliver it (the unwinder delivers directly once
 * what it handed back is out), then push the final counts for the
 * controller's last pass.
 */
void unwound_stop(struct run *r)
{
	struct ustack_worker *w = r->unwound.worker;
	struct ustack_worker_stats last;
	struct user_stack_costs c;

	if (!w)
		return;
	unwound_deliver_all(r, true);
	ustack_worker_stop(w, &last);
	r->unwound.worker = NULL;
	if (last.symbols.refused || last.abandoned)
		log_warn("user stacks: %llu binaries refused for their size or the time they took "
			 "(frames in them unnamed), %llu stacks left unnamed as the run stopped",
			 (unsigned long long)last.symbols.refused,
			 (unsigned long long)last.abandoned);
	costs_of(&r->unwound, &last, &c);
	if (r->ctl)
		controller_user_stacks(r->ctl, &c);
}

/* Whether this process may open perf events on every CPU (CAP_PERFMON or CAP_SYS_ADMIN). */
static bool perfmon_capable(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d))
		return false;
	return (d[CAP_PERFMON / 32].effective >> (CAP_PERFMON % 32) & 1) ||
	       (d[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32) & 1);
}

/*
 * The unwinder, started before the programs are loaded, so that they copy
 * user stacks only when it runs. Without it (no perf events: it said why)
 * tracing goes on without user stacks. Without the capability the programs
 * cannot load either: that error says what to do.
 */
void unwound_start(struct run *r)
{
	struct unwound *u = &r->unwound;
	struct ustack_worker_opts opts = {
		.payload_size = sizeof(struct pending_outlier),
		.done = on_user_stack,
		.ctx = r,
	};
	int err;

	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->room, NULL);
	if (r->o->no_user_stack || !perfmon_capable())
		return;
	u->slot = calloc(UNWOUND_SLOTS, sizeof(*u->slot));
	err = u->slot ? ustack_worker_start(&u->worker, &opts) : -ENOMEM;
	if (err)
		log_warn("user stacks: %s: outliers go without them", strerror(-err));
	u->on = !err;
}
