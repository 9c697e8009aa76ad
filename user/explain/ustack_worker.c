// SPDX-License-Identifier: GPL-2.0-only
/* Unwinding on a thread of its own, fed through a bounded queue. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "util/clock.h"
#include "explain/ustack_queue.h"
#include "explain/ustack_worker.h"
#include "util/log.h"

/* Mappings of one process handed to the unwinder: more than any process we saw. */
#define SNAPSHOT_MAX	1024
/* How often an idle worker reads the map records and forgets exited processes. */
#define IDLE_POLL_MS	200
#define WORKER_NICE	10
/* Stacks of one process the queue takes once it is nearly full (7/8): the rest is for others. */
#define SHARE_BUCKETS	64
#define SHARE_OTHERS_NS 1000000000ULL
/*
 * How long a stopping run names the stacks still queued before it lets them go
 * unnamed: enough for a short command's last stacks and libc's debug file.
 */
#define STOP_GRACE_NS	2000000000ULL

struct ustack_worker {
	struct ustack_worker_opts o;
	struct ustack_queue *q;
	size_t slot_size;
	struct map_table *table;
	struct map_tracker *tracker;
	struct symbols *syms;
	struct map_entry *snapshot;
	struct ustack_result result;
	struct pollfd *pfd; /* the queue's eventfd, then the tracker's per CPU */
	pthread_t thread;
	int stop;	   /* atomic */
	__u64 deadline_ns; /* atomic: set with stop, STOP_GRACE_NS after it */
	/* Stacks queued per process (hashed): the producer adds, the worker takes away. */
	unsigned int queued_by[SHARE_BUCKETS];
	__u64 dropped_share; /* producer's */
	/* Producer's: the last submitter, and when the submitter last changed. */
	pid_t last_pid;
	__u64 other_ns;
	pthread_mutex_t lock; /* the counters below, read by ustack_worker_stats() */
	struct ustack_worker_stats st;
};

/* A slot: the job, the payload, then the capture up to its copied bytes. */
static size_t cap_offset(const struct ustack_worker *w)
{
	return (sizeof(struct ustack_job) + w->o.payload_size + 7) & ~(size_t)7;
}

static unsigned int *share_of(struct ustack_worker *w, pid_t pid)
{
	return &w->queued_by[((unsigned int)pid * 2654435761U) >> 26];
}

/*
 * Whether pid has had its share: the queue nearly full, half of it its, and
 * stacks of more than one process came within the last second. A process whose
 * stacks are slow to name (a binary being read, a huge one) then leaves room
 * for the others' outliers; alone, it has the whole queue.
 */
static bool share_taken(struct ustack_worker *w, pid_t pid, __u64 now)
{
	unsigned int slots = w->o.queue_slots;

	if (pid != w->last_pid && w->last_pid)
		w->other_ns = now;
	w->last_pid = pid;
	return __atomic_load_n(share_of(w, pid), __ATOMIC_RELAXED) >= slots / 2 &&
	       ustack_queue_depth(w->q) >= slots - slots / 8 && now - w->other_ns < SHARE_OTHERS_NS;
}

int ustack_worker_submit(struct ustack_worker *w, __u64 ts, pid_t pid, pid_t tid,
			 const struct sclat_ustack *cap, const void *payload)
{
	__u64 now = clock_ns(CLOCK_MONOTONIC);
	char *slot;
	struct ustack_job *job;
	struct sclat_ustack *copy;
	__u32 size;

	if (share_taken(w, pid, now)) {
		__atomic_store_n(&w->dropped_share, w->dropped_share + 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	slot = ustack_queue_reserve(w->q);
	job = (struct ustack_job *)slot;
	if (!slot)
		return -ENOSPC;
	job->ts = ts;
	job->pid = pid;
	job->tid = tid;
	job->submit_ns = now;
	if (w->o.payload_size)
		memcpy(slot + sizeof(*job), payload, w->o.payload_size);
	copy = (struct sclat_ustack *)(slot + cap_offset(w));
	size = cap->size <= SCLAT_USTACK_BYTES ? cap->size : SCLAT_USTACK_BYTES;
	/* Only the bytes the kernel copied: most stacks are a fraction of the buffer. */
	memcpy(copy, cap, offsetof(struct sclat_ustack, stack) + size);
	copy->size = size;
	job->stack_bytes = size;
	job->stack_flags = cap->flags;
	__atomic_add_fetch(share_of(w, pid), 1, __ATOMIC_RELAXED);
	ustack_queue_commit(w->q);
	return 0;
}

static void job_run(struct ustack_worker *w, char *slot, bool abandon)
{
	const struct ustack_job *job = (const struct ustack_job *)slot;
	const struct sclat_ustack *cap = (const void *)(slot + cap_offset(w));
	struct ustack_result *r = &w->result;
	__u64 waited;
	int n;

	/* Every mmap, fork and exec before the capture is in the perf buffers by now. */
	map_tracker_drain(w->tracker);
	waited = clock_ns(CLOCK_MONOTONIC) - job->submit_ns;
	if (abandon) {
		memset(r, 0, offsetof(struct ustack_result, frames));
		r->end = USTACK_END_STOPPED;
	} else {
		n = map_table_snapshot(w->table, job->pid, job->ts, w->snapshot, SNAPSHOT_MAX);
		/* Its records were lost (or it predates the tracker and the scan missed it). */
		if (!n && !map_tracker_scan_late(w->tracker, job->pid, job->ts))
			n = map_table_snapshot(w->table, job->pid, job->ts, w->snapshot,
					       SNAPSHOT_MAX);
		ustack_unwind(w->syms, cap, job->pid, job->tid, w->snapshot, n, r);
	}
	__atomic_sub_fetch(share_of(w, job->pid), 1, __ATOMIC_RELAXED);

	pthread_mutex_lock(&w->lock);
	w->st.abandoned += abandon;
	w->st.unwound += !abandon;
	w->st.frames += r->nr;
	w->st.capture_bytes += cap->size;
	if (cap->size > w->st.capture_bytes_max)
		w->st.capture_bytes_max = cap->size;
	w->st.unwind_ns += r->unwind_ns;
	if (r->unwind_ns > w->st.unwind_ns_max)
		w->st.unwind_ns_max = r->unwind_ns;
	w->st.name_ns += r->name_ns;
	if (r->name_ns > w->st.name_ns_max)
		w->st.name_ns_max = r->name_ns;
	if (waited > w->st.wait_ns_max)
		w->st.wait_ns_max = waited;
	pthread_mutex_unlock(&w->lock);

	w->o.done(w->o.ctx, job, slot + sizeof(*job), r);
}

/* Publish what the worker's own parts count, for ustack_worker_stats(). */
static void parts_stats_publish(struct ustack_worker *w)
{
	pthread_mutex_lock(&w->lock);
	map_tracker_stats(w->tracker, &w->st.maps);
	map_table_stats(w->table, &w->st.table);
	symbols_stats(w->syms, &w->st.symbols);
	pthread_mutex_unlock(&w->lock);
}

static void idle_wait(struct ustack_worker *w)
{
	const int *fds;
	int i, n, efd;

	efd = ustack_queue_sleep_fd(w->q);
	if (efd < 0)
		return;
	w->pfd[0] = (struct pollfd){ .fd = efd, .events = POLLIN };
	n = map_tracker_fds(w->tracker, &fds);
	for (i = 0; i < n; i++)
		w->pfd[1 + i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	poll(w->pfd, 1 + n, IDLE_POLL_MS);
	ustack_queue_awake(w->q);
}

static void *worker_main(void *arg)
{
	struct ustack_worker *w = arg;
	__u64 last_gc = clock_ns(CLOCK_MONOTONIC), now;
	char *slot;

	/*
	 * Below the ring buffer's consumer and the traced programs when CPUs are
	 * short: a stack waits (or is dropped, and counted), the drain does not.
	 */
	setpriority(PRIO_PROCESS, syscall(SYS_gettid), WORKER_NICE);
	/* Named: its CPU time follows the outliers, not the controller's interval. */
	pthread_setname_np(pthread_self(), "sclat-unwind");

	for (;;) {
		/*
		 * stop is read before the queue: a job queued before stop was set
		 * is then seen by this peek, and run, however the two interleave.
		 */
		bool stopping = __atomic_load_n(&w->stop, __ATOMIC_ACQUIRE);

		slot = ustack_queue_peek(w->q);
		if (slot) {
			job_run(w, slot,
				stopping &&
					clock_ns(CLOCK_MONOTONIC) >
						__atomic_load_n(&w->deadline_ns, __ATOMIC_RELAXED));
			ustack_queue_release(w->q);
			parts_stats_publish(w);
			continue;
		}
		if (stopping)
			break;
		map_tracker_drain(w->tracker);
		now = clock_ns(CLOCK_MONOTONIC);
		if (now - last_gc > w->o.retention_ns / 4 && now > w->o.retention_ns) {
			map_table_forget(w->table, now - w->o.retention_ns);
			last_gc = now;
		}
		parts_stats_publish(w);
		idle_wait(w);
	}
	return NULL;
}

/* What ustack_worker_start made of w, whatever it got to: its thread is not running. */
static void worker_free(struct ustack_worker *w)
{
	map_tracker_close(w->tracker);
	free(w->pfd);
	free(w->snapshot);
	symbols_free(w->syms);
	map_table_free(w->table);
	ustack_queue_free(w->q);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

int ustack_worker_start(struct ustack_worker **wp, const struct ustack_worker_opts *opts)
{
	struct ustack_worker *w;
	const int *fds;
	int err;

	*wp = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->o = *opts;
	if (!w->o.queue_slots)
		w->o.queue_slots = 256;
	if (!w->o.retention_ns)
		w->o.retention_ns = 30ULL * 1000000000ULL;
	pthread_mutex_init(&w->lock, NULL);
	w->slot_size = cap_offset(w) + sizeof(struct sclat_ustack);
	w->q = ustack_queue_new(w->o.queue_slots, w->slot_size);
	if (!w->q && errno == EINVAL) {
		log_err("stack queue: %u slots: not a power of two", w->o.queue_slots);
		err = -EINVAL;
		goto fail;
	}
	w->table = map_table_new(NULL);
	/* A stopping run reads no binary past its deadline: what is left goes unnamed. */
	w->o.symbols.deadline_ns = &w->deadline_ns;
	w->syms = symbols_new(&w->o.symbols);
	w->snapshot = calloc(SNAPSHOT_MAX, sizeof(*w->snapshot));
	if (!w->q || !w->table || !w->syms || !w->snapshot) {
		err = -ENOMEM;
		goto fail;
	}
	err = map_tracker_open(&w->tracker, w->table, &w->o.maps);
	if (err)
		goto fail;
	w->pfd = calloc(1 + map_tracker_fds(w->tracker, &fds), sizeof(*w->pfd));
	if (!w->pfd) {
		err = -ENOMEM;
		goto fail;
	}
	err = -pthread_create(&w->thread, NULL, worker_main, w);
	if (err)
		goto fail;
	*wp = w;
	return 0;
fail:
	worker_free(w);
	return err;
}

void ustack_worker_stats(struct ustack_worker *w, struct ustack_worker_stats *st)
{
	struct ustack_queue_stats qs;

	pthread_mutex_lock(&w->lock);
	*st = w->st;
	pthread_mutex_unlock(&w->lock);
	ustack_queue_stats(w->q, &qs);
	st->submitted = qs.pushed;
	st->dropped_share = __atomic_load_n(&w->dropped_share, __ATOMIC_RELAXED);
	st->dropped = qs.dropped + st->dropped_share + st->abandoned;
	st->queue_slots = qs.slots;
	st->queue_max_depth = qs.max_depth;
}

void ustack_worker_stop(struct ustack_worker *w, struct ustack_worker_stats *last)
{
	if (!w)
		return;
	__atomic_store_n(&w->deadline_ns, clock_ns(CLOCK_MONOTONIC) + STOP_GRACE_NS,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	ustack_queue_wake(w->q);
	pthread_join(w->thread, NULL);
	if (last)
		ustack_worker_stats(w, last);
	worker_free(w);
}
