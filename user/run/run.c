// SPDX-License-Identifier: GPL-2.0-only
/*
 * A run's life: start (the pipeline assembled in the libbpf order), the loop
 * on the ring buffer, stop (each stage drained in the order that loses
 * nothing), and one cleanup path.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/urcu-memb.h>
#include <bpf/libbpf.h>
#include "run_state.h"
#include "interrupts.h"
#include "control/control_server.h"
#include "controller/classes.h"
#include "explain/target.h"
#include "kernel/probes_load.h"
#include "kernel/probes_ring.h"
#include "outputs/metrics_server.h"
#include "outputs/recent_outliers.h"
#include "policy/policy.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/proc_children.h"

/* How long the drain polls the ring buffer while the unwinder may hand outliers back. */
#define UNWOUND_POLL_MS 20

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC as LTTng measures its clock's offset: a
 * realtime read between two monotonic ones, the tightest of a few. Read one
 * after the other, each read's cost (60-90 ns on kvm-clock) would bias it.
 */
static __s64 epoch_offset_ns(void)
{
	__u64 best = UINT64_MAX, m0, m1, rt;
	__s64 offset = 0;
	int i;

	for (i = 0; i < 10; i++) {
		m0 = clock_ns(CLOCK_MONOTONIC);
		rt = clock_ns(CLOCK_REALTIME);
		m1 = clock_ns(CLOCK_MONOTONIC);
		if (m1 - m0 < best) {
			best = m1 - m0;
			offset = (__s64)(rt - (m0 + (m1 - m0) / 2));
		}
	}
	return offset;
}

/* Load the programs for the run's scope, with user stacks if the unwinder runs. */
static int probes_open(struct run *r, const struct policy *policy)
{
	const struct run_opts *o = r->o;
	struct probes_opts popts = {
		.pids = o->pids,
		.nr_pids = o->nr_pids,
		.scope_tgid = o->command && o->command[0],
		.cgroup = o->cgroup,
		.comm = o->comm,
		.ringbuf_bytes = o->ringbuf_bytes,
		.verbose = o->verbose,
		.target_rules = r->rules,
		.user_stacks = r->unwound.worker != NULL,
		.user_stacks_per_cpu = o->user_stacks_per_cpu ? o->user_stacks_per_cpu
							      : PROBES_USER_STACKS_PER_CPU,
		.class_cells = classes_cells_for(policy, libbpf_num_possible_cpus()),
		.on_event = drain_event,
		.ctx = r,
	};

	return probes_load(&r->probes, &popts);
}

/*
 * Everything up to the attach, in order: the command forked and held, the
 * unwinder, the programs, the kernel's symbols, the controller (which takes
 * policy), the control socket. Non-zero when the run cannot go on (it said
 * why); policy is the controller's or freed either way.
 */
static int run_start(struct run *r, struct policy *policy, const char *policy_file)
{
	int err;

	/* A port taken is said before anything is loaded. */
	if (r->o->metrics.addr && metrics_server_open(&r->metrics, &r->o->metrics))
		goto fail;
	if (r->o->command && r->o->command[0] && traced_command_prepare(&r->cmd, r->o->command))
		goto fail;
	r->rules = calloc(SCLAT_MAX_SYSCALLS, sizeof(*r->rules));
	if (!r->rules || inflight_reports_open(r)) {
		log_err("%s", strerror(ENOMEM));
		goto fail;
	}
	target_rules_build(r->rules);
	unwound_start(r);
	if (probes_open(r, policy))
		goto fail;
	/*
	 * The kernel's symbols, read before the command starts: reading them
	 * beside it would take its CPU. Without them, kernel stacks are shown
	 * as addresses. Read before the controller starts, whose first interval,
	 * the one measured with BPF statistics, should see the programs attached.
	 */
	explain_open(&r->explain, EXPLAIN_KALLSYMS);
	/* The controller publishes the policy, and owns it from here. */
	err = controller_start(&r->ctl, r->probes, policy, &r->hooks);
	if (err) {
		log_err("starting the threshold controller: %s", strerror(-err));
		return -1;
	}
	unwound_costs_push(r);
	/* Without the socket (it said why) tracing still works, only not tunable live. */
	control_start(&r->control, r->ctl, r->inflight, r->recent, policy_file);
	metrics_server_attach(r->metrics, r->ctl, r->inflight);
	return 0;
fail:
	policy_free(policy);
	return -1;
}

/* Until a signal, the deadline, the command's end or a failure: drain, scan, poll, tick. */
static void run_loop(struct run *r)
{
	__u64 start = r->start_ns, now, deadline = 0, next_tick, next_inflight_scan;
	int err;

	if (r->o->duration_ns)
		deadline = start + r->o->duration_ns;
	next_tick = start + 1000000000ULL;
	r->next_snapshot_poll_ns = start;
	/* The calls in flight are looked at once per controller interval. */
	next_inflight_scan = start + policy_current_interval_ns();
	while (!run_interrupted()) {
		/* Unwound outliers come back between polls: a shorter wait keeps them prompt. */
		err = probes_poll(r->probes, r->unwound.worker ? UNWOUND_POLL_MS : 100);
		/* A sink failed (it said why): the run ends as any other, its totals said. */
		if (r->out_err)
			break;
		/* The run still ends as any other: what was emitted is drained and counted. */
		if (err < 0 && err != -EINTR) {
			log_err("reading the ring buffer: %s", strerror(-err));
			r->poll_failed = true;
			break;
		}
		unwound_deliver(r);
		if (r->out_err)
			break;
		unwound_costs_push(r);
		if (r->cmd.pid > 0 && traced_command_exited(&r->cmd))
			break;
		now = clock_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline)
			break;
		snapshot_stage_poll(r, now);
		if (now >= next_inflight_scan) {
			next_inflight_scan = now + policy_current_interval_ns();
			inflight_reports_scan(r, false);
		}
		if (now >= next_tick) {
			next_tick = now + 1000000000ULL;
			fanout_tick(r, now - start);
		}
	}
}

/*
 * Stop each stage in the order that loses nothing, then the totals. The
 * command's status, when there is one and the run itself went well, else
 * 1 or 0.
 */
static int run_stop(struct run *r, int *cmd_status)
{
	int ret;

	/*
	 * The command ends first, while the programs are attached: the call
	 * that its SIGTERM ends is seen returning and reported. What is still in
	 * flight then (in other processes) is reported as such, once consumed
	 * outliers have taken their calls off the table.
	 */
	if (r->cmd.pid > 0)
		*cmd_status = run_interrupts_command_end(&r->cmd);
	probes_drain(r->probes);
	inflight_reports_scan(r, true);
	/*
	 * Then detach: an outlier emitted after the last drain would be counted
	 * and never consumed. What the kernel wrote until then is still ours.
	 */
	probes_detach(r->probes);
	probes_drain(r->probes);
	/* The outliers still waiting for their user stack go out before the totals. */
	unwound_stop(r);
	snapshot_stage_settle(r);
	control_stop(r->control);
	r->control = NULL;
	metrics_server_detach(r->metrics);
	/* Its last pass makes the counts final while the programs are still loaded. */
	controller_stop(r->ctl);
	ret = run_totals_end(r) || r->out_err || r->poll_failed ? 1 : 0;
	snapshot_stage_end(r);
	return ret;
}

/* The one cleanup path; the run's exit status from ret and the command's. */
static int run_free(struct run *r, int ret, int cmd_status)
{
	int status;

	unwound_stop(r);
	control_stop(r->control);
	metrics_server_close(r->metrics);
	/* The policy goes with it. */
	controller_free(r->ctl);
	probes_close(r->probes);
	explain_close(r->explain);
	inflight_reports_close(r);
	recent_outliers_free(r->recent);
	free(r->unwound.slot);
	pthread_mutex_destroy(&r->unwound.lock);
	pthread_cond_destroy(&r->unwound.room);
	free(r->rules);
	if (r->cmd.pid > 0) {
		status = cmd_status >= 0 ? cmd_status : run_interrupts_command_end(&r->cmd);
		if (ret == 0)
			ret = status;
	}
	return ret;
}

static int scope_add_child(pid_t child, void *probes)
{
	return probes_scope_add(probes, child);
}

/*
 * -p PID is a running service: its workers forked before now are in its
 * scope too, as those it forks from now on are (followed at fork). Walked
 * last before the programs attach, so that few forks fall between the two.
 */
static int scope_add_descendants(struct run *r)
{
	int i, err;

	for (i = 0; i < r->o->nr_pids; i++) {
		err = proc_descendants(r->o->pids[i], PROBES_SCOPE_PIDS_MAX, scope_add_child,
				       r->probes);
		if (err == -ENOMEM)
			log_err("-p %d: listing its descendants: out of memory", r->o->pids[i]);
		if (err)
			return err;
	}
	return 0;
}

int run_trace(const struct run_opts *o, struct policy *policy, const char *policy_file,
	      const struct sink *sinks, unsigned int nr_sinks)
{
	struct run r = {
		.o = o,
		.cmd = { .pid = -1, .go_fd = -1, .err_fd = -1 },
	};
	struct sink all[SINKS_MAX];
	unsigned int n = nr_sinks < SINKS_MAX ? nr_sinks : SINKS_MAX;
	int ret = 1, cmd_status = -1;

	/* The caller's sinks, then the one that keeps the latest outliers for `sclat top`. */
	memcpy(all, sinks, n * sizeof(*sinks));
	r.recent = n < SINKS_MAX ? recent_outliers_new() : NULL;
	if (r.recent)
		recent_outliers_sink(r.recent, &all[n++]);
	fanout_open(&r, all, n);
	/* Publishing (call_rcu) needs an RCU-registered thread. */
	urcu_memb_register_thread();
	/* Held from here if the caller did not already: a signal it had stays had. */
	run_interrupts_hold();
	if (run_start(&r, policy, policy_file))
		goto cleanup;
	if (r.cmd.pid > 0 && probes_scope_add(r.probes, r.cmd.pid))
		goto cleanup;
	if (scope_add_descendants(&r))
		goto cleanup;
	if (probes_attach(r.probes))
		goto cleanup;
	r.epoch_offset_ns = epoch_offset_ns();
	r.start_ns = clock_ns(CLOCK_MONOTONIC);
	/*
	 * Stopped while it started (loading takes a while): the command never
	 * runs, and the run ends as any other, with 128 + the signal.
	 */
	if (r.cmd.pid > 0 && !run_interrupted() && traced_command_start(&r.cmd))
		goto cleanup;
	run_loop(&r);
	ret = run_stop(&r, &cmd_status);
cleanup:
	ret = run_free(&r, ret, cmd_status);
	urcu_memb_unregister_thread();
	return ret;
}
