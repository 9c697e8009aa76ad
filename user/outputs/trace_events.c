// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>
#include "util/compiler.h"
#include "trace_events.h"
#include "lttng_provider.h"
#include "controller/surprise.h"
#include "explain/unwind.h"
#include "util/syscall_names.h"
#include "util/version.h"

/* Per frame of a user stack, what names it again elsewhere: its binary, build-id and offset. */
struct user_frames {
	uint64_t ips[USTACK_FRAMES_MAX], offsets[USTACK_FRAMES_MAX];
	char binaries[USTACK_FRAMES_MAX * 129];
	char build_ids[USTACK_FRAMES_MAX * (2 * MAP_BUILD_ID_MAX + 1) + 1];
};

static uint32_t user_frames_fill(const struct ustack_result *r, struct user_frames *uf)
{
	size_t bin = 0, id = 0;
	int i, j;

	uf->binaries[0] = uf->build_ids[0] = '\0';
	for (i = 0; r && i < r->nr; i++) {
		const struct ustack_frame *f = &r->frames[i];

		uf->ips[i] = f->addr;
		uf->offsets[i] = f->mapped ? f->rel : 0;
		bin += snprintf(uf->binaries + bin, sizeof(uf->binaries) - bin, "%s%s",
				i ? ";" : "", f->mapped ? f->path : "");
		if (i)
			uf->build_ids[id++] = ';';
		for (j = 0; f->mapped && j < f->build_id_len; j++)
			id += snprintf(uf->build_ids + id, sizeof(uf->build_ids) - id, "%02x",
				       f->build_id[j]);
		uf->build_ids[id] = '\0';
	}
	return r ? (uint32_t)r->nr : 0;
}

/* x's stretches off the CPU back on the trace's clock. */
static void off_cpu_fill(const struct explanation *x, __u64 entry_ns, struct sclat_tp_off_cpu *t)
{
	unsigned int i;

	t->n = x->off_cpu_listed;
	for (i = 0; i < x->off_cpu_listed; i++) {
		const struct outlier_off_cpu *s = &x->off_cpu[i];

		t->out_ts[i] = entry_ns + s->out_ns;
		t->wake_ts[i] = s->woken ? entry_ns + s->wake_ns : 0;
		t->in_ts[i] = entry_ns + s->in_ns;
		t->cpu[i] = s->cpu;
		t->in_cpu[i] = s->in_cpu;
		t->kind[i] = (uint8_t)s->kind;
	}
}

int trace_events_outlier(void *ctx __always_unused, const struct sclat_event *e,
			 __s64 entry_epoch_ns, const struct threshold_basis *basis,
			 const struct explanation *x)
{
	char buf[32], stack[EXPLAIN_KSTACK_TEXT_LEN], ustack[EXPLAIN_USTACK_TEXT_LEN];
	static __thread struct user_frames uf;
	struct sclat_tp_off_cpu off_cpu;
	struct surprise sp;
	uint32_t depth = user_frames_fill(x->user_stack, &uf);
	struct sclat_tp_outlier o = {
		.e = e,
		.syscall = syscall_label(e->nr, "other", buf, sizeof(buf)),
		.entry_epoch_ns = entry_epoch_ns,
		.estimate_ns = basis->estimate_ns,
		.quantile = basis->quantile,
		.samples = basis->samples,
		.x = x,
		.target = x->has_target ? x->target : "",
		.kernel_stack = explanation_kernel_stack(x, stack, sizeof(stack)),
		.user_stack = explanation_user_stack(x, ustack, sizeof(ustack)),
		.user_depth = depth,
		.user_ips = uf.ips,
		.user_offsets = uf.offsets,
		.user_binaries = uf.binaries,
		.user_build_ids = uf.build_ids,
		.class_name = basis->class_name,
		.storage_stall = basis->storage_stall,
		.off_cpu = &off_cpu,
	};

	off_cpu_fill(x, e->entry_ns, &off_cpu);
	surprise_judge_call(basis, e->judged_ns, e->latency_ns, &sp);
	o.normal_ns = sp.normal_ns;
	o.impact_ns = sp.impact_ns;
	o.surprise = sp.known ? sp.score : -1;
	o.surprise_at_least = sp.at_least;
	lttng_ust_tracepoint(sclat, syscall_outlier, &o);
	return 0;
}

int trace_events_inflight(void *ctx __always_unused, const struct sclat_inflight *r,
			  __s64 entry_epoch_ns, __u32 report, bool final,
			  const struct explanation *x)
{
	char buf[32], stack[EXPLAIN_KSTACK_TEXT_LEN];
	struct sclat_tp_inflight i = {
		.r = r,
		.syscall = syscall_label(r->e.nr, "other", buf, sizeof(buf)),
		.state = inflight_state_name(r->state),
		.entry_epoch_ns = entry_epoch_ns,
		.report = report,
		.final = final,
		.x = x,
		.target = x->has_target ? x->target : "",
		.kernel_stack = explanation_kernel_stack(x, stack, sizeof(stack)),
	};

	lttng_ust_tracepoint(sclat, syscall_inflight, &i);
	return 0;
}

void trace_events_outlier_sink(struct sink *s)
{
	*s = (struct sink){ .outlier = trace_events_outlier };
}

bool trace_events_outlier_enabled(void)
{
	return lttng_ust_tracepoint_enabled(sclat, syscall_outlier);
}

void trace_events_snapshot(void *ctx __always_unused, const struct snapshot_taken *s,
			   __s64 entry_epoch_ns)
{
	char buf[32];
	struct sclat_tp_snapshot tp = {
		.session = s->session,
		.path = s->path,
		.nr = s->nr,
		.syscall = syscall_label(s->nr, "other", buf, sizeof(buf)),
		.pid = s->pid,
		.tid = s->tid,
		.comm = s->comm,
		.entry_ts = s->entry_ns,
		.entry_epoch_ns = entry_epoch_ns,
		.latency_ns = s->latency_ns,
	};

	lttng_ust_tracepoint(sclat, snapshot, &tp);
}

void trace_events_snapshot_totals(void *ctx __always_unused, const struct snapshot_totals *t)
{
	struct sclat_tp_snapshot_totals tp = {
		.session = t->session,
		.trigger = t->trigger,
		.outliers = t->outliers,
		.discarded = t->discarded,
		.requested = t->requested,
		.taken = t->taken,
		.failed = t->failed,
		.unreported = t->unreported,
	};

	lttng_ust_tracepoint(sclat, snapshot_totals, &tp);
}

static void hook_threshold_update(void *ctx __always_unused, unsigned int nr, __u64 old_ns,
				  __u64 new_ns, const struct threshold_basis *basis)
{
	char buf[32];
	struct sclat_tp_threshold t = {
		.nr = nr,
		.syscall = syscall_label(nr, "other", buf, sizeof(buf)),
		.old_ns = old_ns,
		.new_ns = new_ns,
		.b = basis,
	};

	lttng_ust_tracepoint(sclat, threshold_update, &t);
}

static void hook_stats(void *ctx __always_unused, const struct syscall_status *s,
		       __u64 interval_calls, __u64 interval_outliers, __u64 interval_throttled,
		       __u64 interval_drops, __u64 interval_ns)
{
	char buf[32];
	struct sclat_tp_stats st = {
		.nr = s->nr,
		.syscall = syscall_label(s->nr, "other", buf, sizeof(buf)),
		.interval_ns = interval_ns,
		.calls = interval_calls,
		.p50_ns = s->p50_ns,
		.p99_ns = s->p99_ns,
		.p999_ns = s->p999_ns,
		.threshold_ns = s->threshold_ns,
		.outliers = interval_outliers,
		.throttled = interval_throttled,
		.drops = interval_drops,
		.class_name = s->basis.class_name,
		.braked = s->interval_braked,
	};

	lttng_ust_tracepoint(sclat, stats, &st);
}

static void hook_lost(void *ctx __always_unused, __u64 drops, __u64 throttled, __u64 braked,
		      __u64 total_drops, __u64 total_throttled, __u64 total_braked)
{
	lttng_ust_tracepoint(sclat, lost, drops, throttled, total_drops, total_throttled, braked,
			     total_braked);
}

static void hook_overhead(void *ctx __always_unused, const struct controller_status *st)
{
	struct sclat_tp_overhead o = {
		.ns_per_syscall = st->ns_per_syscall,
		.ringbuf_used = st->ringbuf_used,
		.ringbuf_size = st->ringbuf_size,
		.consumer_lag_ns = st->consumer_lag_ns,
		.outliers = st->totals.outliers,
		.explain_bpf_ns = st->explain_bpf_ns,
		.explain_user_ns = st->explain_user_ns,
		.user_stacks_queued = st->user_stacks.queued,
		.user_stacks_dropped = st->user_stacks.dropped,
		.user_stacks_unwound = st->user_stacks.unwound,
		.user_stack_unwind_ns = st->user_stacks.unwind_ns,
		.user_stack_name_ns = st->user_stacks.name_ns,
		.user_stack_queue_max = st->user_stacks.queue_max_depth,
	};
	int i;

	for (i = 0; i < st->nr_progs; i++) {
		o.prog = st->progs[i].name;
		o.run_cnt = st->progs[i].run_cnt;
		o.run_time_ns = st->progs[i].run_time_ns;
		lttng_ust_tracepoint(sclat, overhead, &o);
	}
}

const struct controller_hooks trace_events_hooks = {
	.threshold_update = hook_threshold_update,
	.stats = hook_stats,
	.lost = hook_lost,
	.overhead = hook_overhead,
};

static char *syscall_table_text(void)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	const char *sep = "";
	unsigned int nr;

	if (!f)
		return NULL;
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++) {
		if (!syscall_name(nr))
			continue;
		fprintf(f, "%s%u:%s", sep, nr, syscall_name(nr));
		sep = ",";
	}
	fclose(f);
	return text;
}

/* The policy as the INI text that policy_load() reads back; NULL when out of memory. */
static char *policy_text(const struct policy *p)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	policy_write_ini(p, f);
	fclose(f);
	return text;
}

void trace_events_session_begin(const char *scope, const struct policy *policy)
{
	char *table = syscall_table_text(), *text = policy_text(policy);
	struct utsname uts;
	int ncpus = libbpf_num_possible_cpus();

	if (uname(&uts))
		snprintf(uts.release, sizeof(uts.release), "unknown");
	lttng_ust_tracepoint(sclat, session_begin, SCLAT_TRACE_VERSION, SCLAT_VERSION, uts.release,
			     ncpus > 0 ? ncpus : 0, scope ? scope : "", text ? text : "",
			     table ? table : "");
	free(table);
	free(text);
}

void trace_events_session_end(const struct controller_totals *t)
{
	lttng_ust_tracepoint(sclat, session_end, t);
}
