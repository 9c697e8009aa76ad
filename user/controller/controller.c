// SPDX-License-Identifier: GPL-2.0-only
/*
 * The controller thread: the engine (engine.c) does the arithmetic; this file
 * reads the kernel, writes thresholds, calls the hooks and keeps the status.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu/urcu-memb.h>
#include "controller.h"
#include "controller_state.h"
#include "classes.h"
#include "classes_auto.h"
#include "engine.h"
#include "brake.h"
#include "metrics_view.h"
#include "kernel/probes_hists.h"
#include "kernel/probes_knobs.h"
#include "kernel/probes_load.h"
#include "kernel/probes_ring.h"
#include "kernel/probes_routes.h"
#include "policy/policy.h"
#include "util/clock.h"

/*
 * The kernel's BPF stats cost every BPF program on the machine two clock
 * reads per run (measured: 125 ns per syscall on the 2-vCPU VM), and turning
 * them on or off patches kernel text on every CPU (7 ms of CPU a pair). sclat
 * keeps them on for one interval in every SELF_MEASURE_EVERY, the first one
 * included, and measures its ns per syscall over those intervals.
 */
#define SELF_MEASURE_EVERY 10

/*
 * A syscall first seen takes the long path (two more pages per call) until
 * the lanes know its slot, and a new class has none until the controller
 * answers: it looks for both this often between intervals (a load and a
 * map lookup when there are none; controller_tick()).
 */
#define LANES_REFRESH_NS (50 * 1000000ULL)

bool controller_basis(struct controller *c, unsigned int nr, unsigned int cell, __u32 gen,
		      __u64 threshold_ns, struct threshold_basis *out)
{
	if (!c || cell >= SCLAT_CLASS_CELLS_MAX) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	return basis_lookup(&c->basis, cell ? SCLAT_MAX_SYSCALLS + cell : nr, gen, threshold_ns,
			    out);
}

void controller_outlier_delivered(struct controller *c, unsigned int nr, __u64 exit_ns,
				  __u64 bpf_ns, __u64 user_ns)
{
	__u64 now = clock_ns(CLOCK_MONOTONIC);

	if (!c)
		return;
	if (nr < SCLAT_MAX_SYSCALLS)
		__atomic_fetch_add(&c->delivered[nr], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->explain_bpf_ns, bpf_ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->explain_user_ns, user_ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->delivered_total, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->lag_ns, now > exit_ns ? now - exit_ns : 0, __ATOMIC_RELAXED);
}

/*
 * The controller takes syscall nr's slot as its own, from the counts the
 * slot had at start: its histogram is fed from the next reading on, and
 * requests for its cells can be answered.
 */
static void slot_adopt(struct controller *c, unsigned int nr, unsigned int slot)
{
	/* Counts from before the slot was nr's are not nr's calls. */
	engine_baseline(c->engine, nr, &c->baseline[slot]);
	c->fed[nr] = true;
	c->slot_nr[slot] = nr;
}

/* Feed every syscall with a histogram of its own, and the shared one. */
static int hists_feed(struct controller *c)
{
	__u64 taken, skipped, lost, unseen;
	struct sclat_hist sum;
	unsigned int nr, slot;
	int nslots;

	/*
	 * Read before the histograms: sclat status then shows no stack whose
	 * outlier the totals could not have counted yet, but for calls still in
	 * flight.
	 */
	probes_kstacks(c->t, &taken, &skipped, &lost, &unseen);
	__atomic_store_n(&c->kstacks_taken, taken, __ATOMIC_RELAXED);
	__atomic_store_n(&c->kstacks_skipped, skipped, __ATOMIC_RELAXED);
	__atomic_store_n(&c->wakers_lost, lost, __ATOMIC_RELAXED);
	__atomic_store_n(&c->backs_unseen, unseen, __ATOMIC_RELAXED);
	/* Only the slots in use: the work follows the active syscalls, not the slot count. */
	nslots = probes_hists_read(c->t, c->buf, false);
	if (nslots < 0)
		return nslots;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		slot = probes_slot(c->t, nr);
		/* A slot handed out after the read is fed from the next interval. */
		if (slot == SCLAT_SLOT_NONE || slot >= (unsigned int)nslots)
			continue;
		if (!c->fed[nr])
			slot_adopt(c, nr, slot);
		engine_hist_sum(&sum, &c->buf[slot * c->ncpus], c->ncpus);
		engine_feed(c->engine, nr, &sum);
	}
	engine_hist_sum(&sum, &c->buf[SCLAT_HIST_SHARED * c->ncpus], c->ncpus);
	engine_feed(c->engine, ENGINE_SHARED, &sum);
	return 0;
}

/* Each slot's counts before any syscall was measured, summed over CPUs. */
static int baseline_read(struct controller *c)
{
	int nslots = probes_hists_read(c->t, c->buf, true), slot;

	if (nslots < 0)
		return nslots;
	for (slot = 0; slot < nslots; slot++)
		engine_hist_sum(&c->baseline[slot], &c->buf[slot * c->ncpus], c->ncpus);
	engine_baseline(c->engine, ENGINE_SHARED, &c->baseline[SCLAT_HIST_SHARED]);
	return 0;
}

/* The share of the budget that may go out ahead of its pace (see struct sclat_knobs). */
#define CONTROLLER_BUDGET_AHEAD 0.2

static void guard_apply(struct controller *c, const struct policy *p)
{
	__u64 window;
	__u32 burst;

	engine_guard(p->budget, c->ncpus, &window, &burst);
	/*
	 * The budget for all CPUs at once, in the kernel: in any second, at most
	 * CONTROLLER_BUDGET_AHEAD more than the budget go out (the per-CPU
	 * guard alone let each CPU burst at 4x its share).
	 */
	probes_budget_set(c->t, p->budget ? 1000000000ULL / p->budget : 0,
			  p->budget ? (__u64)(CONTROLLER_BUDGET_AHEAD * 1e9) : 0);
	probes_judge_set(c->t, p->judge);
	if (window == c->guard_window_ns && burst == c->guard_burst)
		return;
	probes_guard_set(c->t, window, burst);
	c->guard_window_ns = window;
	c->guard_burst = burst;
}

/* The run's totals from the engine's counts, which take the 2^32 wrap into account. */
static void totals_of(struct controller *c, struct controller_totals *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < ENGINE_ENTRIES; i++) {
		const struct engine_syscall *s = &c->engine->sc[i];

		t->syscalls += s->calls;
		t->emitted += s->outliers;
		t->drops += s->drops;
		t->throttled += s->throttled;
		t->braked += s->braked;
	}
	t->outliers = __atomic_load_n(&c->delivered_total, __ATOMIC_RELAXED);
	t->threshold_changes = c->threshold_changes;
}

/* The status snapshot, built from the engine after a step; status_lock held. */
static void status_fill(struct controller *c, struct controller_status *st, __u64 now)
{
	const struct engine *e = c->engine;
	__u64 run_time = 0, enters = 0;
	double secs = e->interval_ns ? e->interval_ns / 1e9 : 0;
	unsigned int nr, n = 0;
	int i;

	memset(st, 0, offsetof(struct controller_status, syscalls));
	st->nr_classes = 0;
	st->elapsed_ns = now - c->start_ns;
	st->interval_ns = e->interval_ns;
	totals_of(c, &st->totals);
	c->totals = st->totals;

	st->nr_progs = probes_prog_stats(c->t, st->progs, PROBES_MAX_PROGS);
	/* Every program's time counts, sched_switch's too: all of it is what sclat adds. */
	for (i = 0; i < st->nr_progs; i++) {
		if (!st->progs[i].name)
			continue;
		run_time += st->progs[i].run_time_ns;
		if (!strncmp(st->progs[i].name, "sclat_enter", 11))
			enters += st->progs[i].run_cnt;
	}
	st->ns_per_syscall = enters ? run_time / enters : 0;
	probes_mem(c->t, &st->mem);
	st->ringbuf_used = probes_ringbuf_used(c->t);
	st->ringbuf_size = probes_ringbuf_size(c->t);
	st->consumer_lag_ns = __atomic_load_n(&c->lag_ns, __ATOMIC_RELAXED);
	st->explain_bpf_ns = __atomic_load_n(&c->explain_bpf_ns, __ATOMIC_RELAXED);
	st->explain_user_ns = __atomic_load_n(&c->explain_user_ns, __ATOMIC_RELAXED);
	st->kernel_stacks = __atomic_load_n(&c->kstacks_taken, __ATOMIC_RELAXED);
	st->kernel_stacks_skipped = __atomic_load_n(&c->kstacks_skipped, __ATOMIC_RELAXED);
	st->wakers_lost = __atomic_load_n(&c->wakers_lost, __ATOMIC_RELAXED);
	st->backs_unseen = __atomic_load_n(&c->backs_unseen, __ATOMIC_RELAXED);
	st->children_not_followed = probes_children_not_followed(c->t);
	st->user_stacks = c->user_stacks;
	st->attach_kind = probes_attach_kind(c->t);

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		const struct engine_syscall *s = &e->sc[nr];
		struct syscall_status *ss;
		unsigned int slot = probes_slot(c->t, nr);

		if (slot == SCLAT_SLOT_NONE)
			continue;
		ss = &st->syscalls[n++];
		status_row_fill(s, nr, secs, ss);
		if (slot >= SCLAT_HIST_SLOTS) {
			/* Counted in the shared histogram: only what was delivered is its own. */
			*ss = (struct syscall_status){
				.nr = nr,
				.threshold_ns = ss->threshold_ns,
				.armed = ss->armed,
				.basis = ss->basis,
				.outliers = __atomic_load_n(&c->delivered[nr], __ATOMIC_RELAXED),
			};
			continue;
		}
		ss->classes = c->classes->per_syscall[nr];
		ss->classes_refused = c->classes->refused[nr];
		ss->sampled_under_ns = probes_floor_ns(c->t, nr);
	}
	if (e->sc[ENGINE_SHARED].calls) {
		status_row_fill(&e->sc[ENGINE_SHARED], ENGINE_SHARED, secs, &st->syscalls[n]);
		/* Each of them has its own threshold and outliers, in its row. */
		st->syscalls[n].threshold_ns = SCLAT_THRESHOLD_NEVER;
		st->syscalls[n].armed = false;
		st->syscalls[n++].outliers = 0;
	}
	st->nr_syscalls = n;
	classes_status_fill(c->classes, st, secs);
}

/* Each syscall with a slot of its own (probes_body_set): the body of its latencies. */
static void bodies_set(struct controller *c, const struct policy *p)
{
	unsigned int nr;

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		probes_body_set(c->t, nr, engine_body_ns(&c->engine->sc[nr], &p->rules[nr]));
}

/* The interval's statistics of each syscall and class cell that made calls; status_lock held. */
static void stats_report(struct controller *c, const struct controller_status *st)
{
	const struct controller_hooks *h = &c->hooks;
	const struct engine *e = c->engine;
	unsigned int i;

	for (i = 0; i < st->nr_syscalls; i++) {
		const struct syscall_status *ss = &st->syscalls[i];
		const struct engine_syscall *s = &e->sc[ss->nr];

		if (!s->i_calls)
			continue;
		h->stats(h->ctx, ss, s->i_calls, s->i_outliers, s->i_throttled, s->i_drops,
			 e->interval_ns);
	}
	for (i = 1; i < c->classes->top; i++) {
		const struct engine_syscall *s = &e->cell[i];
		struct syscall_status cs;

		if (!c->classes->cell[i].used || !s->i_calls)
			continue;
		classes_cell_status(c->classes, i, e->interval_ns / 1e9, &cs);
		h->stats(h->ctx, &cs, s->i_calls, s->i_outliers, s->i_throttled, s->i_drops,
			 e->interval_ns);
	}
}

/* The interval's losses, and the run's; to the hook when there were some, or final. */
static void losses_report(struct controller *c, bool final)
{
	const struct controller_hooks *h = &c->hooks;
	__u64 drops = 0, throttled = 0, total_drops = 0, total_throttled = 0;
	__u64 braked = 0, total_braked = 0;
	unsigned int i;

	for (i = 0; i < ENGINE_ENTRIES; i++) {
		const struct engine_syscall *s = &c->engine->sc[i];

		drops += s->i_drops;
		throttled += s->i_throttled;
		braked += s->i_braked;
		total_braked += s->braked;
		total_drops += s->drops;
		total_throttled += s->throttled;
	}
	if (h->lost && (drops || throttled || braked || final))
		h->lost(h->ctx, drops, throttled, braked, total_drops, total_throttled,
			total_braked);
}

/* One interval: read, step, write, report. final: report losses even when none. */
static void controller_pass(struct controller *c, bool final)
{
	const struct controller_hooks *h = &c->hooks;
	struct controller_status *st = c->status;
	struct policy *p;
	__u64 now;

	/* Without a reading the interval is not over: the next pass covers it. */
	now = clock_ns(CLOCK_MONOTONIC);
	if (hists_feed(c) || classes_feed(c->classes, now))
		return;
	urcu_memb_read_lock();
	p = policy_current();
	if (p) {
		/* Before the step, while the engine holds the interval's counts. */
		metrics_view_fold(c->metrics, c->engine, c->classes, p);
		engine_step(c->engine, p, now - c->last_ns);
		classes_auto_step(c->classes, p);
		guard_apply(c, p);
	}
	urcu_memb_read_unlock();
	c->last_ns = now;
	if (!p)
		return;

	controller_thresholds_changed_publish(c);
	controller_windows_publish(c);
	urcu_memb_read_lock();
	p = policy_current();
	if (p) {
		classes_retire(c->classes, p, now);
		/* First: a request of a split the policy no longer has opens nothing. */
		classes_apply(c->classes, p);
		classes_requests_answer(c->classes, p, now, c->slot_nr, c->fed);
		classes_requests_rearm(c->classes);
		bodies_set(c, p);
		brakes_arm(c->t, c->engine, c->classes, p);
	}
	urcu_memb_read_unlock();
	probes_floors_refresh(c->t);

	pthread_mutex_lock(&c->status_lock);
	status_fill(c, st, now);
	c->status_valid = true;
	if (h->stats)
		stats_report(c, st);
	if (h->overhead)
		h->overhead(h->ctx, st);
	pthread_mutex_unlock(&c->status_lock);

	losses_report(c, final);
}

/* The engine and the first thresholds, from the controller's own (registered) thread. */
static int controller_init(struct controller *c)
{
	struct policy *p;
	unsigned int nr;
	int err;

	urcu_memb_read_lock();
	p = policy_current();
	if (p) {
		c->engine = engine_new(p, probes_class_cells(c->t));
		c->classes = c->engine ? classes_open(c->t, c->engine, &c->basis) : NULL;
		c->metrics = c->engine ? metrics_view_new(c->engine->nr_cells) : NULL;
		if (c->classes) {
			guard_apply(c, p);
			classes_apply(c->classes, p);
		}
	}
	urcu_memb_read_unlock();
	if (!p)
		return -EINVAL;
	if (!c->engine || !c->classes || !c->metrics)
		return -ENOMEM;
	err = baseline_read(c);
	if (err)
		return err;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		controller_threshold_publish(c, nr);
	probes_floors_refresh(c->t);
	c->start_ns = c->last_ns = clock_ns(CLOCK_MONOTONIC);
	return 0;
}

/* Wait on c->lock (held) until deadline or a stop. */
static void controller_wait(struct controller *c, __u64 deadline_ns)
{
	struct timespec deadline = {
		.tv_sec = deadline_ns / 1000000000ULL,
		.tv_nsec = deadline_ns % 1000000000ULL,
	};

	while (!c->stop && clock_ns(CLOCK_MONOTONIC) < deadline_ns)
		pthread_cond_timedwait(&c->wake, &c->lock, &deadline);
}

/*
 * Between intervals, every LANES_REFRESH_NS: syscalls first seen join the
 * short path and the controller, and what the BPF side asked for is
 * answered, so that a new process or kind of file has its class within a
 * tick rather than an interval or two (its calls until then count, and its
 * outliers are judged, as its syscall's).
 */
static void controller_tick(struct controller *c)
{
	__u64 now = clock_ns(CLOCK_MONOTONIC);
	unsigned int nr, slot;
	struct policy *p;

	if (probes_lanes_refresh(c->t))
		for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
			slot = probes_slot(c->t, nr);
			if (!c->fed[nr] && slot != SCLAT_SLOT_NONE && slot < SCLAT_HIST_SLOTS)
				slot_adopt(c, nr, slot);
		}
	urcu_memb_read_lock();
	p = policy_current();
	if (p) {
		classes_requests_answer(c->classes, p, now, c->slot_nr, c->fed);
		classes_requests_rearm(c->classes);
	}
	urcu_memb_read_unlock();
	probes_floors_refresh(c->t);
}

static void *controller_main(void *arg)
{
	struct controller *c = arg;
	unsigned long passes = 0;
	__u64 deadline_ns, now_ns;
	bool stop;
	int err;

	/* Named, so that its CPU time is told apart from the other threads' (scripts/bench). */
	pthread_setname_np(pthread_self(), "sclat-ctl");
	urcu_memb_register_thread();
	err = controller_init(c);
	if (!err)
		probes_stats_sample(c->t, true);
	pthread_mutex_lock(&c->lock);
	c->init_err = err;
	c->ready = true;
	pthread_cond_broadcast(&c->wake);
	while (!err && !c->stop) {
		deadline_ns = c->last_ns + policy_current_interval_ns();
		now_ns = clock_ns(CLOCK_MONOTONIC);
		if (now_ns + LANES_REFRESH_NS < deadline_ns) {
			controller_wait(c, now_ns + LANES_REFRESH_NS);
			if (!c->stop) {
				pthread_mutex_unlock(&c->lock);
				controller_tick(c);
				pthread_mutex_lock(&c->lock);
				continue;
			}
		} else {
			controller_wait(c, deadline_ns);
		}
		stop = c->stop;
		pthread_mutex_unlock(&c->lock);
		/* When stopping, one last pass makes the totals exact. */
		controller_pass(c, stop);
		if (!stop)
			probes_stats_sample(c->t, ++passes % SELF_MEASURE_EVERY == 0);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	urcu_memb_unregister_thread();
	return NULL;
}

static void controller_destroy(struct controller *c)
{
	/* The policy goes with the controller that published it (policy_publish frees it). */
	if (c->published)
		policy_publish(NULL);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->status_lock);
	pthread_cond_destroy(&c->wake);
	engine_free(c->engine);
	classes_free(c->classes);
	metrics_view_free(c->metrics);
	free(c->buf);
	free(c->status);
	free(c);
}

int controller_start(struct controller **cp, struct probes *t, struct policy *policy,
		     const struct controller_hooks *h)
{
	struct controller *c;
	pthread_condattr_t attr;
	char why[512];
	int err;

	*cp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		policy_free(policy);
		return -ENOMEM;
	}
	c->t = t;
	if (h)
		c->hooks = *h;
	c->ncpus = probes_ncpus(t);
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->status_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&c->wake, &attr);
	pthread_condattr_destroy(&attr);
	c->buf = calloc((size_t)SCLAT_HIST_SLOTS * c->ncpus, sizeof(*c->buf));
	c->status = calloc(1, sizeof(*c->status));
	if (!c->buf || !c->status) {
		policy_free(policy);
		controller_destroy(c);
		return -ENOMEM;
	}
	/* Its kernel maps were sized for this policy (classes_cells_for()): it fits them. */
	err = controller_policy_publish(c, policy, why, sizeof(why));
	if (err < 0) {
		controller_destroy(c);
		return err;
	}
	err = -pthread_create(&c->thread, NULL, controller_main, c);
	if (err) {
		controller_destroy(c);
		return err;
	}
	/* Thresholds are in place when we return: attach may follow at once. */
	pthread_mutex_lock(&c->lock);
	while (!c->ready)
		pthread_cond_wait(&c->wake, &c->lock);
	err = c->init_err;
	pthread_mutex_unlock(&c->lock);
	if (err) {
		pthread_join(c->thread, NULL);
		controller_destroy(c);
		return err;
	}
	*cp = c;
	return 0;
}

void controller_stop(struct controller *c)
{
	if (!c || c->stopped)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	c->stopped = true;
}

void controller_free(struct controller *c)
{
	if (!c)
		return;
	controller_stop(c);
	controller_destroy(c);
}

void controller_totals(struct controller *c, struct controller_totals *out)
{
	pthread_mutex_lock(&c->status_lock);
	*out = c->totals;
	/* What the consumer delivered is counted as it goes, not per interval. */
	out->outliers = __atomic_load_n(&c->delivered_total, __ATOMIC_RELAXED);
	out->kernel_stacks_skipped = __atomic_load_n(&c->kstacks_skipped, __ATOMIC_RELAXED);
	out->wakers_lost = __atomic_load_n(&c->wakers_lost, __ATOMIC_RELAXED);
	out->backs_unseen = __atomic_load_n(&c->backs_unseen, __ATOMIC_RELAXED);
	out->class_ids_refused = c->classes->ids_refused;
	out->class_requests_lost = c->classes->requests_lost_total;
	out->children_not_followed = probes_children_not_followed(c->t);
	pthread_mutex_unlock(&c->status_lock);
}

static int count_cmp(const void *a, const void *b)
{
	const struct syscall_count *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return (int)x->nr - (int)y->nr;
}

unsigned int controller_counts(struct controller *c, struct syscall_count *counts)
{
	unsigned int nr, n = 0, slot;

	for (nr = 0; nr < ENGINE_ENTRIES; nr++) {
		const struct engine_syscall *s = &c->engine->sc[nr];

		if (nr < SCLAT_MAX_SYSCALLS) {
			/* Those counted in the shared histogram are summed under ENGINE_SHARED. */
			slot = probes_slot(c->t, nr);
			if (slot == SCLAT_SLOT_NONE || slot >= SCLAT_HIST_SLOTS)
				continue;
		}
		if (!s->calls)
			continue;
		counts[n++] = (struct syscall_count){
			.nr = nr,
			.calls = s->calls,
			.outliers = s->outliers,
			.drops = s->drops,
			.throttled = s->throttled,
			.braked = s->braked,
		};
	}
	if (n)
		qsort(counts, n, sizeof(*counts), count_cmp);
	return n;
}

void controller_user_stacks(struct controller *c, const struct user_stack_costs *u)
{
	pthread_mutex_lock(&c->status_lock);
	c->user_stacks = *u;
	pthread_mutex_unlock(&c->status_lock);
}

int controller_status(struct controller *c, struct controller_status *out)
{
	int err = 0;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&c->status_lock);
	if (c->status_valid)
		memcpy(out, c->status, sizeof(*out));
	else
		err = -EAGAIN;
	pthread_mutex_unlock(&c->status_lock);
	return err;
}

struct metrics_view *controller_metrics_view(struct controller *c)
{
	return c ? c->metrics : NULL;
}

int controller_policy_publish(struct controller *c, struct policy *p, char *why, size_t len)
{
	int fits;

	if (!c) {
		snprintf(why, len, "the controller is not running");
		policy_free(p);
		return -EINVAL;
	}
	fits = classes_policy_fits(p, probes_class_cells(c->t), why, len);
	if (fits < 0) {
		policy_free(p);
		return fits;
	}
	policy_publish(p);
	c->published = true;
	return fits;
}
