/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * The lttng-ust provider "sclat": every event sclat writes into an LTTng trace.
 * Field names are a contract with tracer-plugins/ (babeltrace2 plugin, Trace
 * Compass analysis, LAMI command): rename nothing without updating them, and
 * bump SCLAT_TRACE_VERSION when an event changes.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER sclat

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "outputs/lttng_provider.h"

#ifndef SCLAT_LTTNG_PROVIDER_TYPES_H
#define SCLAT_LTTNG_PROVIDER_TYPES_H
/* Arguments of the tracepoints below (outside the multi-read section). */
#include <stdint.h>
#include "sclat_abi.h"
#include "controller/controller.h"
#include "explain/explain.h"

/*
 * The version of these events, in sclat:session_begin's abi_version.
 * 2: sclat:session_end.
 * 3: sclat:syscall_outlier explains itself (breakdown, switches, waker,
 * target, kernel stack); sclat:overhead has the cost of that.
 * 4: sclat:syscall_inflight, a call reported while still in flight.
 * 5: sclat:syscall_outlier has the user stack (frames, addresses, binaries,
 * build-ids and offsets); sclat:overhead has the unwinder's cost and counts.
 * 6: class in sclat:syscall_outlier, sclat:threshold_update and sclat:stats
 * (thresholds learned per class; "" for the syscall's own).
 * 7: sclat:syscall_outlier lists its first stretches off the CPU (off_cpu_*):
 * when and on which CPU it was switched out and back in, and woken.
 * 8: sclat:session_end has what explaining, classing and the scope could not
 * do (kernel_stacks_skipped, wakers_lost, class_ids_refused,
 * class_requests_lost, children_not_followed).
 * 9: braked (outliers the kernel brake held back) at the end of sclat:stats,
 * sclat:lost (with total_braked) and sclat:session_end; at the end of
 * sclat:syscall_outlier, title (the process's, from its cmdline),
 * user_stack_missing (why it has no user stack: enum outlier_ustack_missing,
 * user/util/outlier_line.h; 0: it has one) and how surprising and costly it
 * is (normal_ns, impact_ns, surprise, surprise_at_least); sclat:threshold_update
 * says the rate it aims at and the fitted tail it came from (rate, fit_*).
 * 10: irq_ns at the end of sclat:syscall_outlier: of on_cpu_ns, the time in
 * interrupts on its CPU.
 * 11: waker_runqueue_ns at the end of sclat:syscall_outlier: of its time
 * blocked, the time the threads that woke it had waited for a CPU.
 * 12: storage_stall at the end of sclat:syscall_outlier: judged at its
 * storage threshold (it waited for storage where its calls seldom do), which
 * sclat:threshold_update has at its end (io_ns; 0: none).
 * 13: steal_ns at the end of sclat:syscall_outlier: of on_cpu_ns, the time
 * the hypervisor held its virtual CPU (KVM's steal clock; 0 elsewhere).
 */
#define SCLAT_TRACE_VERSION 13

/*
 * An outlier's stretches off the CPU as sequences, one per field, times on
 * the trace's clock (as entry_ts); wake_ts 0: no wake-up seen.
 */
struct sclat_tp_off_cpu {
	uint32_t n;
	uint64_t out_ts[SCLAT_OFF_CPU_MAX], wake_ts[SCLAT_OFF_CPU_MAX], in_ts[SCLAT_OFF_CPU_MAX];
	uint32_t cpu[SCLAT_OFF_CPU_MAX], in_cpu[SCLAT_OFF_CPU_MAX];
	uint8_t kind[SCLAT_OFF_CPU_MAX]; /* enum sclat_off_cpu_kind */
};

/* What explains an outlier beyond the kernel's record. */
struct sclat_tp_outlier {
	const struct sclat_event *e;
	const char *syscall;	/* name, or "syscall_<nr>" */
	int64_t entry_epoch_ns; /* e->entry_ns on the realtime clock */
	uint64_t estimate_ns;	/* quantile estimate behind the threshold, 0 if none */
	double quantile;	/* the quantile that estimate is for, 0 if static */
	uint64_t samples;	/* samples behind the estimate */
	const struct explanation *x;
	const char *target;	  /* "" when none */
	const char *kernel_stack; /* x->kstack joined with ';', innermost first */
	/* The user stack, innermost first: its frames' text joined with ';', and per frame: */
	const char *user_stack;
	uint32_t user_depth;
	const uint64_t *user_ips;     /* the address (pc) */
	const uint64_t *user_offsets; /* the address in its binary (0: unmapped) */
	const char *user_binaries;    /* the binaries' paths, joined with ';' ("" unmapped) */
	const char *user_build_ids;   /* their build-ids in hex, joined with ';' */
	const char *class_name;	      /* the class whose threshold it crossed, "" the syscall's */
	const struct sclat_tp_off_cpu *off_cpu;
	/* controller/surprise.h: surprise -1 when not known (normal_ns 0, impact the latency) */
	uint64_t normal_ns, impact_ns;
	double surprise;
	uint8_t surprise_at_least;
	uint8_t storage_stall; /* judged at its storage threshold (basis.h) */
};

/* A threshold moved, and what it stands on (basis.h); class_name "" for the syscall's own. */
struct sclat_tp_threshold {
	uint32_t nr;
	const char *syscall;
	uint64_t old_ns, new_ns;
	const struct threshold_basis *b;
};

/*
 * A call still in flight (r: the task iterator's record), reported the
 * report-th time; final: by the last scan, at stop.
 */
struct sclat_tp_inflight {
	const struct sclat_inflight *r;
	const char *syscall;
	const char *state; /* "running", "runnable", "sleeping", "D", "stopped" */
	int64_t entry_epoch_ns;
	uint32_t report;
	uint8_t final;
	const struct explanation *x;
	const char *target;	  /* "" when none */
	const char *kernel_stack; /* where it is now, innermost first, joined with ';' */
};

/* Periodic per-syscall summary of one interval. */
struct sclat_tp_stats {
	uint32_t nr;
	const char *syscall;
	uint64_t interval_ns;
	uint64_t calls;			  /* in this interval */
	uint64_t p50_ns, p99_ns, p999_ns; /* over the decayed window */
	uint64_t threshold_ns;
	uint64_t outliers, throttled, drops; /* in this interval */
	const char *class_name;		     /* a class of the syscall's, "" the syscall */
	uint64_t braked;		     /* in this interval, held back by the brake */
};

/*
 * The tracer's own cost: one event per BPF program, cumulative since attach,
 * over the intervals in which the kernel's BPF stats were on (sampled: one
 * controller interval in ten, the first included); ns_per_syscall is their ratio.
 */
struct sclat_tp_overhead {
	const char *prog;
	uint64_t run_cnt;
	uint64_t run_time_ns;
	uint64_t ns_per_syscall; /* sclat's added ns per syscall, all programs */
	uint64_t ringbuf_used;	 /* bytes waiting in the ring buffer */
	uint64_t ringbuf_size;
	uint64_t consumer_lag_ns; /* exit of the last outlier to its tracepoint */
	uint64_t outliers;	  /* delivered since the start */
	uint64_t explain_bpf_ns;  /* explaining them, in the kernel, in total */
	uint64_t explain_user_ns; /* and decoding them in userspace */
	/* The user stacks: queued for unwinding, dropped (queue full), unwound, and its cost. */
	uint64_t user_stacks_queued, user_stacks_dropped, user_stacks_unwound;
	uint64_t user_stack_unwind_ns, user_stack_name_ns; /* finding, naming the frames: total */
	uint32_t user_stack_queue_max;			   /* the most stacks queued at once */
};

/* A snapshot of the user's session that an outlier caused (--snapshot-session). */
struct sclat_tp_snapshot {
	const char *session;
	const char *path; /* "" when LTTng failed to take it */
	uint32_t nr;
	const char *syscall;
	int32_t pid, tid;
	const char *comm;
	uint64_t entry_ts; /* the outlier's: with tid, its key */
	int64_t entry_epoch_ns;
	uint64_t latency_ns;
};

/* What became of the snapshots, once at the end. */
struct sclat_tp_snapshot_totals {
	const char *session;
	const char *trigger;
	uint64_t outliers, discarded, requested, taken, failed, unreported;
};

#endif /* SCLAT_LTTNG_PROVIDER_TYPES_H */

#if !defined(SCLAT_LTTNG_PROVIDER_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define SCLAT_LTTNG_PROVIDER_H

#include <lttng/tracepoint.h>

/* The tracepoint macros are a language of their own: laid out by hand. */
/* clang-format off */

/* One outlier and what explains it (README.md, "The trace"). */
LTTNG_UST_TRACEPOINT_EVENT(sclat, syscall_outlier,
	LTTNG_UST_TP_ARGS(const struct sclat_tp_outlier *, o),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, nr, o->e->nr)
		lttng_ust_field_string(syscall, o->syscall)
		lttng_ust_field_integer(int32_t, pid, o->e->pid)
		lttng_ust_field_integer(int32_t, tid, o->e->tid)
		lttng_ust_field_array_text(char, comm, o->e->comm, SCLAT_COMM_LEN)
		lttng_ust_field_integer(uint32_t, cpu, o->e->cpu)
		lttng_ust_field_integer(uint64_t, entry_ts, o->e->entry_ns)
		lttng_ust_field_integer(int64_t, entry_epoch_ns, o->entry_epoch_ns)
		lttng_ust_field_integer(uint64_t, latency_ns, o->e->latency_ns)
		lttng_ust_field_integer(int64_t, ret, o->e->ret)
		lttng_ust_field_array_hex(uint64_t, args, o->e->args, SCLAT_NR_ARGS)
		lttng_ust_field_integer(uint64_t, threshold_ns, o->e->threshold_ns)
		lttng_ust_field_integer(uint64_t, estimate_ns, o->estimate_ns)
		lttng_ust_field_float(double, quantile, o->quantile)
		lttng_ust_field_integer(uint64_t, samples, o->samples)
		lttng_ust_field_integer(uint64_t, on_cpu_ns, o->x->breakdown.on_cpu_ns)
		lttng_ust_field_integer(uint64_t, runqueue_ns, o->x->breakdown.runqueue_ns)
		lttng_ust_field_integer(uint64_t, sleep_ns, o->x->breakdown.sleep_ns)
		lttng_ust_field_integer(uint64_t, io_wait_ns, o->x->breakdown.io_wait_ns)
		lttng_ust_field_integer(uint32_t, switches, o->x->switches)
		lttng_ust_field_integer(int32_t, waker_pid, o->x->waker.pid)
		lttng_ust_field_integer(int32_t, waker_tid, o->x->waker.tid)
		lttng_ust_field_string(waker_comm, o->x->waker.comm)
		lttng_ust_field_string(target, o->target)
		lttng_ust_field_string(kernel_stack, o->kernel_stack)
		lttng_ust_field_sequence_hex(uint64_t, kernel_stack_ips, o->x->kstack_ip,
					     uint32_t, o->x->kstack_depth)
		lttng_ust_field_string(class, o->class_name)
		lttng_ust_field_string(user_stack, o->user_stack)
		lttng_ust_field_sequence_hex(uint64_t, user_stack_ips, o->user_ips,
					     uint32_t, o->user_depth)
		lttng_ust_field_sequence_hex(uint64_t, user_stack_offsets, o->user_offsets,
					     uint32_t, o->user_depth)
		lttng_ust_field_string(user_stack_binaries, o->user_binaries)
		lttng_ust_field_string(user_stack_build_ids, o->user_build_ids)
		lttng_ust_field_integer(uint8_t, user_stack_dropped, o->x->user_stack_dropped)
		lttng_ust_field_sequence(uint32_t, off_cpu_cpu, o->off_cpu->cpu,
					 uint32_t, o->off_cpu->n)
		lttng_ust_field_sequence(uint8_t, off_cpu_kind, o->off_cpu->kind,
					 uint32_t, o->off_cpu->n)
		lttng_ust_field_sequence(uint64_t, off_cpu_out_ts, o->off_cpu->out_ts,
					 uint32_t, o->off_cpu->n)
		lttng_ust_field_sequence(uint64_t, off_cpu_wake_ts, o->off_cpu->wake_ts,
					 uint32_t, o->off_cpu->n)
		lttng_ust_field_sequence(uint64_t, off_cpu_in_ts, o->off_cpu->in_ts,
					 uint32_t, o->off_cpu->n)
		lttng_ust_field_sequence(uint32_t, off_cpu_in_cpu, o->off_cpu->in_cpu,
					 uint32_t, o->off_cpu->n)
		lttng_ust_field_integer(uint32_t, off_cpu_unlisted, o->x->off_cpu_unlisted)
		lttng_ust_field_integer(int32_t, off_cpu_waker, o->x->off_cpu_waker)
		lttng_ust_field_string(title, o->x->title)
		lttng_ust_field_integer(uint8_t, user_stack_missing, o->x->user_stack_missing)
		lttng_ust_field_integer(uint64_t, normal_ns, o->normal_ns)
		lttng_ust_field_integer(uint64_t, impact_ns, o->impact_ns)
		lttng_ust_field_float(double, surprise, o->surprise)
		lttng_ust_field_integer(uint8_t, surprise_at_least, o->surprise_at_least)
		lttng_ust_field_integer(uint64_t, irq_ns, o->x->irq_ns)
		lttng_ust_field_integer(uint64_t, waker_runqueue_ns, o->x->waker_runqueue_ns)
		lttng_ust_field_integer(uint8_t, storage_stall, o->storage_stall)
		lttng_ust_field_integer(uint64_t, steal_ns, o->x->steal_ns)
	)
)

/*
 * A call still in flight past its inflight_after (README.md, "The trace"):
 * its outlier, when it returns, has the same tid and entry_ts.
 */
LTTNG_UST_TRACEPOINT_EVENT(sclat, syscall_inflight,
	LTTNG_UST_TP_ARGS(const struct sclat_tp_inflight *, i),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, nr, i->r->e.nr)
		lttng_ust_field_string(syscall, i->syscall)
		lttng_ust_field_integer(int32_t, pid, i->r->e.pid)
		lttng_ust_field_integer(int32_t, tid, i->r->e.tid)
		lttng_ust_field_array_text(char, comm, i->r->e.comm, SCLAT_COMM_LEN)
		lttng_ust_field_integer(uint32_t, cpu, i->r->e.cpu)
		lttng_ust_field_integer(uint64_t, entry_ts, i->r->e.entry_ns)
		lttng_ust_field_integer(int64_t, entry_epoch_ns, i->entry_epoch_ns)
		lttng_ust_field_integer(uint64_t, inflight_ns, i->r->e.latency_ns)
		lttng_ust_field_string(state, i->state)
		lttng_ust_field_integer(uint32_t, report, i->report)
		lttng_ust_field_integer(uint8_t, final, i->final)
		lttng_ust_field_array_hex(uint64_t, args, i->r->e.args, SCLAT_NR_ARGS)
		lttng_ust_field_integer(uint64_t, threshold_ns, i->r->e.threshold_ns)
		lttng_ust_field_string(target, i->target)
		lttng_ust_field_string(kernel_stack, i->kernel_stack)
		lttng_ust_field_sequence_hex(uint64_t, kernel_stack_ips, i->x->kstack_ip,
					     uint32_t, i->x->kstack_depth)
	)
)

/*
 * The controller moved a syscall's threshold, or one of its classes' (class
 * not ""): its basis, the rate it aims at (0: a static threshold) and, for a
 * false_alarm rule, the fitted tail it came from (fit_start_ns 0: none).
 */
LTTNG_UST_TRACEPOINT_EVENT(sclat, threshold_update,
	LTTNG_UST_TP_ARGS(const struct sclat_tp_threshold *, t),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, nr, t->nr)
		lttng_ust_field_string(syscall, t->syscall)
		lttng_ust_field_integer(uint64_t, old_ns, t->old_ns)
		lttng_ust_field_integer(uint64_t, new_ns, t->new_ns)
		lttng_ust_field_integer(uint64_t, estimate_ns, t->b->estimate_ns)
		lttng_ust_field_float(double, quantile, t->b->quantile)
		lttng_ust_field_integer(uint64_t, samples, t->b->samples)
		lttng_ust_field_string(class, t->b->class_name)
		lttng_ust_field_float(double, rate, t->b->w.rate)
		lttng_ust_field_integer(uint64_t, fit_start_ns,
					t->b->w.fit.ok ? t->b->w.fit.start_ns : 0)
		lttng_ust_field_float(double, fit_shape, t->b->w.fit.shape)
		lttng_ust_field_float(double, fit_scale_ns, t->b->w.fit.scale_ns)
		lttng_ust_field_float(double, fit_above, t->b->w.fit.above)
		lttng_ust_field_integer(uint64_t, io_ns, t->b->w.io_ns)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(sclat, stats,
	LTTNG_UST_TP_ARGS(const struct sclat_tp_stats *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, nr, s->nr)
		lttng_ust_field_string(syscall, s->syscall)
		lttng_ust_field_integer(uint64_t, interval_ns, s->interval_ns)
		lttng_ust_field_integer(uint64_t, calls, s->calls)
		lttng_ust_field_integer(uint64_t, p50_ns, s->p50_ns)
		lttng_ust_field_integer(uint64_t, p99_ns, s->p99_ns)
		lttng_ust_field_integer(uint64_t, p999_ns, s->p999_ns)
		lttng_ust_field_integer(uint64_t, threshold_ns, s->threshold_ns)
		lttng_ust_field_integer(uint64_t, outliers, s->outliers)
		lttng_ust_field_integer(uint64_t, throttled, s->throttled)
		lttng_ust_field_integer(uint64_t, drops, s->drops)
		lttng_ust_field_string(class, s->class_name)
		lttng_ust_field_integer(uint64_t, braked, s->braked)
	)
)

/* Outliers that did not reach the trace since the previous sclat:lost, and totals. */
LTTNG_UST_TRACEPOINT_EVENT(sclat, lost,
	LTTNG_UST_TP_ARGS(uint64_t, drops, uint64_t, throttled, uint64_t, total_drops,
			  uint64_t, total_throttled, uint64_t, braked, uint64_t, total_braked),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, drops, drops)
		lttng_ust_field_integer(uint64_t, throttled, throttled)
		lttng_ust_field_integer(uint64_t, total_drops, total_drops)
		lttng_ust_field_integer(uint64_t, total_throttled, total_throttled)
		lttng_ust_field_integer(uint64_t, braked, braked)
		lttng_ust_field_integer(uint64_t, total_braked, total_braked)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(sclat, overhead,
	LTTNG_UST_TP_ARGS(const struct sclat_tp_overhead *, o),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(prog, o->prog)
		lttng_ust_field_integer(uint64_t, run_cnt, o->run_cnt)
		lttng_ust_field_integer(uint64_t, run_time_ns, o->run_time_ns)
		lttng_ust_field_integer(uint64_t, ns_per_syscall, o->ns_per_syscall)
		lttng_ust_field_integer(uint64_t, ringbuf_used, o->ringbuf_used)
		lttng_ust_field_integer(uint64_t, ringbuf_size, o->ringbuf_size)
		lttng_ust_field_integer(uint64_t, consumer_lag_ns, o->consumer_lag_ns)
		lttng_ust_field_integer(uint64_t, outliers, o->outliers)
		lttng_ust_field_integer(uint64_t, explain_bpf_ns, o->explain_bpf_ns)
		lttng_ust_field_integer(uint64_t, explain_user_ns, o->explain_user_ns)
		lttng_ust_field_integer(uint64_t, user_stacks_queued, o->user_stacks_queued)
		lttng_ust_field_integer(uint64_t, user_stacks_dropped, o->user_stacks_dropped)
		lttng_ust_field_integer(uint64_t, user_stacks_unwound, o->user_stacks_unwound)
		lttng_ust_field_integer(uint64_t, user_stack_unwind_ns, o->user_stack_unwind_ns)
		lttng_ust_field_integer(uint64_t, user_stack_name_ns, o->user_stack_name_ns)
		lttng_ust_field_integer(uint32_t, user_stack_queue_max, o->user_stack_queue_max)
	)
)

/*
 * Written once at the start: what a reader needs to interpret the trace
 * months later. syscall_table is "nr:name" pairs separated by commas;
 * policy is the effective policy in INI form.
 */
LTTNG_UST_TRACEPOINT_EVENT(sclat, session_begin,
	LTTNG_UST_TP_ARGS(uint32_t, abi_version, const char *, version, const char *, kernel,
			  uint32_t, ncpus, const char *, scope, const char *, policy,
			  const char *, syscall_table),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, abi_version, abi_version)
		lttng_ust_field_string(version, version)
		lttng_ust_field_string(kernel, kernel)
		lttng_ust_field_integer(uint32_t, ncpus, ncpus)
		lttng_ust_field_string(scope, scope)
		lttng_ust_field_string(policy, policy)
		lttng_ust_field_string(syscall_table, syscall_table)
	)
)

/*
 * Written once, last, when the run ends: its totals, so that a reader tells
 * a complete trace from one cut short (no sclat:session_end) or missing
 * events (fewer outliers than written, beyond what LTTng counts as
 * discarded). outliers counts the sclat:syscall_outlier events written. Then
 * what the run could not do: kernel stacks the burst guard left out, wakers
 * lost, class ids refused, class requests lost (and asked again), and new
 * processes the scope's full table could not follow (not measured).
 */
LTTNG_UST_TRACEPOINT_EVENT(sclat, session_end,
	LTTNG_UST_TP_ARGS(const struct controller_totals *, t),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, syscalls, t->syscalls)
		lttng_ust_field_integer(uint64_t, outliers, t->outliers)
		lttng_ust_field_integer(uint64_t, drops, t->drops)
		lttng_ust_field_integer(uint64_t, throttled, t->throttled)
		lttng_ust_field_integer(uint64_t, threshold_changes, t->threshold_changes)
		lttng_ust_field_integer(uint64_t, kernel_stacks_skipped, t->kernel_stacks_skipped)
		lttng_ust_field_integer(uint64_t, wakers_lost, t->wakers_lost)
		lttng_ust_field_integer(uint64_t, class_ids_refused, t->class_ids_refused)
		lttng_ust_field_integer(uint64_t, class_requests_lost, t->class_requests_lost)
		lttng_ust_field_integer(uint64_t, children_not_followed, t->children_not_followed)
		lttng_ust_field_integer(uint64_t, braked, t->braked)
	)
)

/*
 * LTTng snapshotted the user's snapshot-mode session on an outlier (whose
 * nr, pid, tid, comm, entry_ts and latency_ns these are) and put it in path.
 */
LTTNG_UST_TRACEPOINT_EVENT(sclat, snapshot,
	LTTNG_UST_TP_ARGS(const struct sclat_tp_snapshot *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(session, s->session)
		lttng_ust_field_string(path, s->path)
		lttng_ust_field_integer(uint32_t, nr, s->nr)
		lttng_ust_field_string(syscall, s->syscall)
		lttng_ust_field_integer(int32_t, pid, s->pid)
		lttng_ust_field_integer(int32_t, tid, s->tid)
		lttng_ust_field_string(comm, s->comm)
		lttng_ust_field_integer(uint64_t, entry_ts, s->entry_ts)
		lttng_ust_field_integer(int64_t, entry_epoch_ns, s->entry_epoch_ns)
		lttng_ust_field_integer(uint64_t, latency_ns, s->latency_ns)
	)
)

/* Once at the end of a run with --snapshot-session: what became of the snapshots. */
LTTNG_UST_TRACEPOINT_EVENT(sclat, snapshot_totals,
	LTTNG_UST_TP_ARGS(const struct sclat_tp_snapshot_totals *, t),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(session, t->session)
		lttng_ust_field_string(trigger, t->trigger)
		lttng_ust_field_integer(uint64_t, outliers, t->outliers)
		lttng_ust_field_integer(uint64_t, discarded, t->discarded)
		lttng_ust_field_integer(uint64_t, requested, t->requested)
		lttng_ust_field_integer(uint64_t, taken, t->taken)
		lttng_ust_field_integer(uint64_t, failed, t->failed)
		lttng_ust_field_integer(uint64_t, unreported, t->unreported)
	)
)

/* clang-format on */

#endif /* SCLAT_LTTNG_PROVIDER_H */

#include <lttng/tracepoint-event.h>
