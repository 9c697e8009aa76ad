// SPDX-License-Identifier: GPL-2.0-only
/*
 * The controller thread: the engine (engine.c) does the arithmetic; this file
 * reads the kernel, writes thresholds, calls the hooks and keeps the status.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu/urcu-memb.h>
#include "controller.h"
#include "engine.h"
#include "policy.h"

/*
 * What a threshold stands on, published per syscall with a sequence count:
 * the consumer reads it for every outlier and must never wait for us. The
 * last few are kept, so that an outlier still in the ring buffer when its
 * threshold moves finds the basis of the threshold it crossed.
 */
struct basis_cell {
	unsigned long seq;		/* odd while being written */
	__u64 threshold_ns;
	__u64 estimate_ns;
	__u64 quantile_bits;		/* a double */
	__u64 samples;
};

#define BASIS_HISTORY	4

struct basis_ring {
	unsigned int head;		/* the newest cell */
	struct basis_cell cell[BASIS_HISTORY];
};

/*
 * The kernel's BPF stats cost every BPF program on the machine two clock
 * reads per run (measured: 125 ns per syscall on the 2-vCPU VM), and turning
 * them on or off patches kernel text on every CPU (7 ms of CPU a pair). sclat
 * keeps them on for one interval in every SELF_MEASURE_EVERY, the first one
 * included, and measures its ns per syscall over those intervals.
 */
#define SELF_MEASURE_EVERY	10

struct controller {
	struct tracer *t;
	struct controller_hooks hooks;
	struct engine *engine;
	int ncpus;
	struct sclat_hist *buf;		/* SCLAT_HIST_SLOTS * ncpus */

	pthread_t thread;
	pthread_mutex_t lock;		/* ready, init_err, stop, and the wake-up */
	pthread_cond_t wake;
	bool ready, stop;
	int init_err;

	__u64 start_ns, last_ns;
	__u64 guard_window_ns;
	__u32 guard_burst;
	__u64 threshold_changes;

	struct basis_ring basis[SCLAT_MAX_SYSCALLS];
	__u64 seen[SCLAT_MAX_SYSCALLS];	/* outliers the consumer saw, atomics */
	__u64 seen_total;
	__u64 lag_ns;

	pthread_mutex_t status_lock;
	struct controller_status *status;
	bool status_valid;
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void basis_publish(struct controller *c, unsigned int nr, const struct engine_syscall *s)
{
	struct basis_ring *r = &c->basis[nr];
	unsigned int head = (r->head + 1) % BASIS_HISTORY;
	struct basis_cell *b = &r->cell[head];
	unsigned long seq = __atomic_load_n(&b->seq, __ATOMIC_RELAXED);
	__u64 qbits, samples = (__u64)(s->samples + 0.5);

	memcpy(&qbits, &s->quantile, sizeof(qbits));
	__atomic_store_n(&b->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&b->threshold_ns, s->threshold_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&b->estimate_ns, s->estimate_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&b->quantile_bits, qbits, __ATOMIC_RELAXED);
	__atomic_store_n(&b->samples, samples, __ATOMIC_RELAXED);
	__atomic_store_n(&b->seq, seq + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
}

/* Copy cell b into out; false if it was being written. */
static bool basis_cell_read(const struct basis_cell *b, __u64 *threshold_ns,
			    struct threshold_basis *out)
{
	unsigned long s1, s2;
	__u64 qbits;

	s1 = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);
	*threshold_ns = __atomic_load_n(&b->threshold_ns, __ATOMIC_RELAXED);
	out->estimate_ns = __atomic_load_n(&b->estimate_ns, __ATOMIC_RELAXED);
	qbits = __atomic_load_n(&b->quantile_bits, __ATOMIC_RELAXED);
	out->samples = __atomic_load_n(&b->samples, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&b->seq, __ATOMIC_RELAXED);
	memcpy(&out->quantile, &qbits, sizeof(qbits));
	return !(s1 & 1) && s1 == s2;
}

void controller_basis(struct controller *c, unsigned int nr, __u64 threshold_ns,
		      struct threshold_basis *out)
{
	const struct basis_ring *r;
	struct threshold_basis b;
	unsigned int head, i;
	__u64 thr;

	memset(out, 0, sizeof(*out));
	if (!c || nr >= SCLAT_MAX_SYSCALLS)
		return;
	r = &c->basis[nr];
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	/* Newest first: the same threshold published twice stands on the later basis. */
	for (i = 0; i < BASIS_HISTORY; i++) {
		const struct basis_cell *cell = &r->cell[(head + BASIS_HISTORY - i) % BASIS_HISTORY];

		while (!basis_cell_read(cell, &thr, &b))
			;
		if (thr == threshold_ns) {
			*out = b;
			return;
		}
	}
}

void controller_outlier_seen(struct controller *c, unsigned int nr, __u64 exit_ns)
{
	__u64 now = mono_ns();

	if (!c)
		return;
	if (nr < SCLAT_MAX_SYSCALLS)
		__atomic_fetch_add(&c->seen[nr], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->seen_total, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->lag_ns, now > exit_ns ? now - exit_ns : 0, __ATOMIC_RELAXED);
}

/* Feed every syscall with a histogram of its own, and the shared one. */
static int hists_feed(struct controller *c)
{
	struct sclat_hist sum;
	unsigned int nr, slot;
	int nslots;

	/* Only the slots in use: the work follows the active syscalls, not the slot count. */
	nslots = tracer_hists_read(c->t, c->buf);
	if (nslots < 0)
		return nslots;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		slot = tracer_slot(c->t, nr);
		/* A slot handed out after the read is fed from the next interval. */
		if (slot == SCLAT_SLOT_NONE || slot >= (unsigned int)nslots)
			continue;
		engine_hist_sum(&sum, &c->buf[slot * c->ncpus], c->ncpus);
		engine_feed(c->engine, nr, &sum);
	}
	engine_hist_sum(&sum, &c->buf[0], c->ncpus);
	engine_feed(c->engine, ENGINE_SHARED, &sum);
	return 0;
}

static void guard_apply(struct controller *c, const struct policy *p)
{
	__u64 window;
	__u32 burst;

	engine_guard(p->budget, c->ncpus, &window, &burst);
	if (window == c->guard_window_ns && burst == c->guard_burst)
		return;
	tracer_guard_set(c->t, window, burst);
	c->guard_window_ns = window;
	c->guard_burst = burst;
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
	st->elapsed_ns = now - c->start_ns;
	st->interval_ns = e->interval_ns;
	for (nr = 0; nr < ENGINE_ENTRIES; nr++) {
		const struct engine_syscall *s = &e->sc[nr];

		st->totals.syscalls += s->calls;
		st->totals.drops += s->drops;
		st->totals.throttled += s->throttled;
	}
	st->totals.outliers = __atomic_load_n(&c->seen_total, __ATOMIC_RELAXED);
	st->totals.threshold_changes = c->threshold_changes;

	st->nr_progs = tracer_prog_stats(c->t, st->progs, TRACER_MAX_PROGS);
	/* Every program's time counts, sched_switch's too: all of it is what sclat adds. */
	for (i = 0; i < st->nr_progs; i++) {
		if (!st->progs[i].name)
			continue;
		run_time += st->progs[i].run_time_ns;
		if (!strncmp(st->progs[i].name, "sclat_enter", 11))
			enters += st->progs[i].run_cnt;
	}
	st->ns_per_syscall = enters ? run_time / enters : 0;
	tracer_mem(c->t, &st->mem);
	st->ringbuf_used = tracer_ringbuf_used(c->t);
	st->ringbuf_size = tracer_ringbuf_size(c->t);
	st->consumer_lag_ns = __atomic_load_n(&c->lag_ns, __ATOMIC_RELAXED);
	st->attach_kind = tracer_attach_kind(c->t);

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		const struct engine_syscall *s = &e->sc[nr];
		struct syscall_status *ss;
		unsigned int slot = tracer_slot(c->t, nr);

		if (slot == SCLAT_SLOT_NONE)
			continue;
		ss = &st->syscalls[n++];
		memset(ss, 0, sizeof(*ss));
		ss->nr = nr;
		ss->threshold_ns = s->threshold_ns;
		ss->armed = s->armed;
		if (slot >= SCLAT_HIST_SLOTS) {
			/* Counted in the shared histogram: only what the consumer saw is its own. */
			ss->outliers = __atomic_load_n(&c->seen[nr], __ATOMIC_RELAXED);
			continue;
		}
		ss->calls = s->calls;
		ss->rate = secs > 0 ? s->i_calls / secs : 0;
		ss->p50_ns = engine_quantile_interp(s->window, s->samples, 0.5);
		ss->p99_ns = engine_quantile_interp(s->window, s->samples, 0.99);
		ss->p999_ns = engine_quantile_interp(s->window, s->samples, 0.999);
		ss->outliers = s->outliers;
		ss->throttled = s->throttled;
		ss->drops = s->drops;
	}
	st->nr_syscalls = n;
}

/* One interval: read, step, write, report. final: report losses even when none. */
static void controller_pass(struct controller *c, bool final)
{
	const struct controller_hooks *h = &c->hooks;
	struct engine *e = c->engine;
	struct controller_status *st = c->status;
	__u64 now, drops = 0, throttled = 0, total_drops = 0, total_throttled = 0;
	struct policy *p;
	unsigned int nr, i;

	/* Without a reading the interval is not over: the next pass covers it. */
	if (hists_feed(c))
		return;
	now = mono_ns();
	urcu_memb_read_lock();
	p = policy_current();
	if (p) {
		engine_step(e, p, now - c->last_ns);
		guard_apply(c, p);
	}
	urcu_memb_read_unlock();
	c->last_ns = now;
	if (!p)
		return;

	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		const struct engine_syscall *s = &e->sc[nr];
		struct threshold_basis basis;

		if (!s->changed)
			continue;
		/* Basis first: an outlier of the new threshold must not find the old one. */
		basis_publish(c, nr, s);
		tracer_threshold_set(c->t, nr, s->threshold_ns);
		c->threshold_changes++;
		if (h->threshold_update) {
			controller_basis(c, nr, s->threshold_ns, &basis);
			h->threshold_update(h->ctx, nr, s->old_threshold_ns, s->threshold_ns, &basis);
		}
	}
	for (i = 0; i < ENGINE_ENTRIES; i++) {
		const struct engine_syscall *s = &e->sc[i];

		drops += s->i_drops;
		throttled += s->i_throttled;
		total_drops += s->drops;
		total_throttled += s->throttled;
	}

	pthread_mutex_lock(&c->status_lock);
	status_fill(c, st, now);
	c->status_valid = true;
	if (h->stats) {
		for (i = 0; i < st->nr_syscalls; i++) {
			const struct syscall_status *ss = &st->syscalls[i];
			const struct engine_syscall *s = &e->sc[ss->nr];

			if (!s->i_calls)
				continue;
			h->stats(h->ctx, ss, s->i_calls, s->i_outliers, s->i_throttled, s->i_drops,
				 e->interval_ns);
		}
	}
	if (h->overhead)
		h->overhead(h->ctx, st);
	pthread_mutex_unlock(&c->status_lock);

	if (h->lost && (drops || throttled || final))
		h->lost(h->ctx, drops, throttled, total_drops, total_throttled);
}

static __u64 interval_current(void)
{
	struct policy *p;
	__u64 ns = 1000000000ULL;

	urcu_memb_read_lock();
	p = policy_current();
	if (p && p->interval_ns)
		ns = p->interval_ns;
	urcu_memb_read_unlock();
	return ns;
}

/* The engine and the first thresholds, from the controller's own (registered) thread. */
static int controller_init(struct controller *c)
{
	struct policy *p;
	unsigned int nr;

	urcu_memb_read_lock();
	p = policy_current();
	if (p) {
		c->engine = engine_new(p);
		if (c->engine)
			guard_apply(c, p);
	}
	urcu_memb_read_unlock();
	if (!p)
		return -EINVAL;
	if (!c->engine)
		return -ENOMEM;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		basis_publish(c, nr, &c->engine->sc[nr]);
		tracer_threshold_set(c->t, nr, c->engine->sc[nr].threshold_ns);
	}
	c->start_ns = c->last_ns = mono_ns();
	return 0;
}

/* Wait on c->lock (held) until deadline or a stop. */
static void controller_wait(struct controller *c, __u64 deadline_ns)
{
	struct timespec deadline = {
		.tv_sec = deadline_ns / 1000000000ULL,
		.tv_nsec = deadline_ns % 1000000000ULL,
	};

	while (!c->stop && mono_ns() < deadline_ns)
		pthread_cond_timedwait(&c->wake, &c->lock, &deadline);
}

static void *controller_main(void *arg)
{
	struct controller *c = arg;
	unsigned long passes = 0;
	bool stop;
	int err;

	urcu_memb_register_thread();
	err = controller_init(c);
	if (!err)
		tracer_stats_sample(c->t, true);
	pthread_mutex_lock(&c->lock);
	c->init_err = err;
	c->ready = true;
	pthread_cond_broadcast(&c->wake);
	while (!err && !c->stop) {
		controller_wait(c, c->last_ns + interval_current());
		stop = c->stop;
		pthread_mutex_unlock(&c->lock);
		/* When stopping, one last pass makes the totals exact. */
		controller_pass(c, stop);
		if (!stop)
			tracer_stats_sample(c->t, ++passes % SELF_MEASURE_EVERY == 0);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	urcu_memb_unregister_thread();
	return NULL;
}

static void controller_free(struct controller *c)
{
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->status_lock);
	pthread_cond_destroy(&c->wake);
	engine_free(c->engine);
	free(c->buf);
	free(c->status);
	free(c);
}

int controller_start(struct controller **cp, struct tracer *t, const struct controller_hooks *h)
{
	struct controller *c;
	pthread_condattr_t attr;
	int err;

	*cp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->t = t;
	if (h)
		c->hooks = *h;
	c->ncpus = tracer_ncpus(t);
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->status_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&c->wake, &attr);
	pthread_condattr_destroy(&attr);
	c->buf = calloc((size_t)SCLAT_HIST_SLOTS * c->ncpus, sizeof(*c->buf));
	c->status = calloc(1, sizeof(*c->status));
	if (!c->buf || !c->status) {
		controller_free(c);
		return -ENOMEM;
	}
	err = -pthread_create(&c->thread, NULL, controller_main, c);
	if (err) {
		controller_free(c);
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
		controller_free(c);
		return err;
	}
	*cp = c;
	return 0;
}

void controller_stop(struct controller *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	controller_free(c);
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
