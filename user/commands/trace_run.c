// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>
#include <bpf/libbpf.h>
#include "trace_run.h"
#include "traced_command.h"
#include "sclat_abi.h"
#include "control/control_server.h"
#include "controller/classes.h"
#include "controller/controller.h"
#include "explain/explain.h"
#include "explain/target.h"
#include "kernel/probes.h"
#include "outputs/output.h"
#include "policy/policy.h"
#include "util/duration.h"
#include "util/clock.h"
#include "util/size.h"

enum {
	OPT_CGROUP = 0x100,
	OPT_COMM,
	OPT_POLICY,
	OPT_THRESHOLD,
	OPT_DURATION,
	OPT_BUFFER_SIZE,
	OPT_SNAPSHOT_SESSION,
	OPT_SNAPSHOT_MIN_LATENCY,
	OPT_SNAPSHOT_RATE_POLICY,
};

static const struct argp_option trace_options[] = {
	{ "pid", 'p', "PID", 0, "Trace this process and its future children (repeatable)", 1 },
	{ "cgroup", OPT_CGROUP, "PATH", 0, "Trace only tasks in this cgroup v2 directory", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "Only threads named NAME (1 to 15 characters)", 1 },
	{ "policy", OPT_POLICY, "FILE", 0,
	  "Threshold policy file (INI). Default: the file $" POLICY_ENV
	  " names, else " POLICY_INSTALLED " if it exists, else the built-in policy",
	  2 },
	{ "threshold", OPT_THRESHOLD, "DUR", 0,
	  "Static threshold for every syscall (e.g. 500us, 2ms)", 2 },
	{ "duration", OPT_DURATION, "DUR", 0, "Stop after DUR (e.g. 10s)", 3 },
	{ "buffer-size", OPT_BUFFER_SIZE, "SIZE", 0,
	  "Kernel ring buffer size, a power of two from 4K to 2G (default 1M)", 3 },
	{ "verbose", 'v', NULL, 0, "Show libbpf's messages", 3 },
	{ "snapshot-session", OPT_SNAPSHOT_SESSION, "NAME", 0,
	  "On each outlier, LTTng snapshots NAME, a snapshot-mode session of yours", 4 },
	{ "snapshot-min-latency", OPT_SNAPSHOT_MIN_LATENCY, "DUR", 0,
	  "Only outliers at least this slow cause a snapshot (default: every outlier)", 4 },
	{ "snapshot-rate-policy", OPT_SNAPSHOT_RATE_POLICY, "POLICY", 0,
	  "every:N (a snapshot on every N-th of those outliers; default every:1) or "
	  "once-after:N (on the N-th only)",
	  4 },
	{},
};

static pid_t tgid_of(pid_t pid)
{
	char path[64], line[128];
	pid_t tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static error_t trace_parse(int key, char *arg, struct argp_state *state)
{
	/* An option that tunes the snapshots, which needs --snapshot-session. */
	static const char *snapshot_tuned;
	struct trace_options *o = state->input;
	char *end;
	long pid;
	int err;

	switch (key) {
	case ARGP_KEY_INIT:
		snapshot_tuned = NULL;
		break;
	case 'p':
		errno = 0;
		pid = strtol(arg, &end, 10);
		if (errno || *end || pid <= 0 || pid > 0x3fffffff)
			argp_failure(state, 2, 0, "-p %s: not a process id", arg);
		if (o->nr_pids >= TRACE_MAX_PIDS)
			argp_failure(state, 2, 0, "-p %s: at most %d processes", arg,
				     TRACE_MAX_PIDS);
		/* A thread id stands for its process: scope is by process. */
		pid = tgid_of(pid);
		if (pid < 0)
			argp_failure(state, 2, 0, "-p %s: no such process", arg);
		o->pids[o->nr_pids++] = pid;
		break;
	case OPT_CGROUP:
		o->cgroup = arg;
		break;
	case OPT_COMM:
		/* The kernel's task comm: 16 bytes with the NUL. */
		if (!*arg || strlen(arg) >= SCLAT_COMM_LEN)
			argp_failure(state, 2, 0,
				     "--comm \"%s\": a thread name has 1 to %d characters", arg,
				     SCLAT_COMM_LEN - 1);
		o->comm = arg;
		break;
	case OPT_POLICY:
		o->policy_file = arg;
		break;
	case OPT_THRESHOLD:
		err = duration_parse(arg, &o->threshold_ns);
		if (err)
			argp_failure(state, 2, 0, "--threshold %s: %s", arg,
				     err == -ERANGE
					     ? "too large"
					     : "not a duration (a number and ns, us, ms or s)");
		o->threshold_set = true;
		break;
	case OPT_DURATION:
		err = duration_parse(arg, &o->duration_ns);
		if (err || !o->duration_ns)
			argp_failure(state, 2, 0, "--duration %s: %s", arg,
				     err == -ERANGE ? "too large"
				     : err ? "not a duration (a number and ns, us, ms or s)"
					   : "must be more than zero");
		break;
	case OPT_BUFFER_SIZE:
		err = size_parse(arg, &o->ringbuf_bytes);
		if (err == -ERANGE || (!err && o->ringbuf_bytes > PROBES_RINGBUF_MAX))
			argp_failure(state, 2, 0,
				     "--buffer-size %s: too large: at most 2G (a BPF map's "
				     "size is 32 bits)",
				     arg);
		if (err || o->ringbuf_bytes < 4096 || (o->ringbuf_bytes & (o->ringbuf_bytes - 1)))
			argp_failure(state, 2, 0,
				     "--buffer-size %s: not a power of two from 4K to 2G", arg);
		break;
	case 'v':
		o->verbose = true;
		break;
	case OPT_SNAPSHOT_SESSION:
		o->snapshot.session = arg;
		break;
	case OPT_SNAPSHOT_MIN_LATENCY:
		err = duration_parse(arg, &o->snapshot.min_latency_ns);
		if (err)
			argp_failure(state, 2, 0, "--snapshot-min-latency %s: %s", arg,
				     err == -ERANGE
					     ? "too large"
					     : "not a duration (a number and ns, us, ms or s)");
		snapshot_tuned = "--snapshot-min-latency";
		break;
	case OPT_SNAPSHOT_RATE_POLICY:
		if (snapshot_rate_parse(arg, &o->snapshot))
			argp_failure(state, 2, 0,
				     "--snapshot-rate-policy %s: not every:N or once-after:N "
				     "(N a whole number from 1)",
				     arg);
		snapshot_tuned = "--snapshot-rate-policy";
		break;
	case ARGP_KEY_END:
		if (o->threshold_set && o->policy_file)
			argp_failure(state, 2, 0,
				     "--threshold and --policy %s: give one or the other",
				     o->policy_file);
		if (snapshot_tuned && !o->snapshot.session)
			argp_failure(state, 2, 0, "%s: goes with --snapshot-session NAME",
				     snapshot_tuned);
		if (!o->snapshot.rate_n) {
			o->snapshot.rate = SNAPSHOT_RATE_EVERY;
			o->snapshot.rate_n = 1;
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp trace_argp = {
	.options = trace_options,
	.parser = trace_parse,
};

void trace_options_command(struct trace_options *o, struct argp_state *state)
{
	/* The first non-option and everything after it, options included. */
	o->command = &state->argv[state->next - 1];
	state->next = state->argc;
}

/* How often the run loop asks whether LTTng reported snapshots. */
#define SNAPSHOT_POLL_NS 50000000ULL

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

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

struct run {
	const struct output *out;
	struct controller *ctl;
	struct explain *explain;
	struct explanation x;  /* the outlier being delivered */
	__s64 epoch_offset_ns; /* realtime - monotonic */
	int out_err;
};

static int on_event(void *ctx, const struct sclat_event *e, size_t size)
{
	struct run *r = ctx;
	struct threshold_basis basis;
	int err;

	controller_basis(r->ctl, e->nr, e->cell, e->threshold_gen, e->threshold_ns, &basis);
	/* A malformed part loses that part, not the outlier. */
	explain_outlier(r->explain, e, size, &r->x);
	err = r->out->outlier(r->out->ctx, e, (__s64)e->entry_ns + r->epoch_offset_ns, &basis,
			      &r->x);
	if (err) {
		r->out_err = err;
		return err;
	}
	controller_outlier_delivered(r->ctl, e->nr, e->entry_ns + e->latency_ns, r->x.bpf_ns,
				     r->x.user_ns);
	if (r->out->snapshot_trigger)
		snapshot_trigger_outlier(r->out->snapshot_trigger, e->latency_ns);
	return 0;
}

static void on_snapshot(void *ctx, const struct snapshot_taken *s)
{
	struct run *r = ctx;

	if (r->out->snapshot)
		r->out->snapshot(r->out->ctx, s, (__s64)s->entry_ns + r->epoch_offset_ns);
}

struct policy *trace_policy(const struct trace_options *o, const char **file)
{
	char err[512] = "";
	struct policy *p;

	*file = NULL;
	if (o->threshold_set) {
		p = policy_static(o->threshold_ns);
		/* --threshold asks for every call above it: no budget, no burst guard. */
		if (p)
			p->budget = 0;
		else
			snprintf(err, sizeof(err), "building the threshold policy: %s",
				 strerror(errno));
	} else if (o->policy_file) {
		p = policy_load(o->policy_file, err, sizeof(err));
		if (p)
			*file = o->policy_file;
	} else {
		p = policy_default(file, err, sizeof(err));
	}
	if (!p)
		fprintf(stderr, "sclat: %s\n", err);
	return p;
}

/* What became of the snapshots the outliers asked for: the output's record, and a line. */
static void snapshot_end(struct run *r, const struct snapshot_totals *t)
{
	if (r->out->snapshot_end)
		r->out->snapshot_end(r->out->ctx, t);
	fprintf(stderr,
		"sclat: %llu snapshots taken on %llu outliers, %llu failed, %llu unreported, "
		"%llu discarded (session %s, trigger %s)\n",
		(unsigned long long)t->taken, (unsigned long long)t->outliers,
		(unsigned long long)t->failed, (unsigned long long)t->unreported,
		(unsigned long long)t->discarded, t->session, t->trigger);
}

/* The end of the run: the output's summary and the closing line, from the final counts. */
static void run_end(struct run *r)
{
	struct controller_totals totals;
	struct syscall_count *counts;

	controller_totals(r->ctl, &totals);
	if (r->out->end) {
		counts = calloc(SCLAT_MAX_SYSCALLS + 1, sizeof(*counts));
		if (counts)
			r->out->end(r->out->ctx, &totals, counts,
				    controller_counts(r->ctl, counts));
		free(counts);
	}
	fprintf(stderr, "sclat: %llu syscalls, %llu outliers, %llu dropped, %llu throttled\n",
		(unsigned long long)totals.syscalls, (unsigned long long)totals.outliers,
		(unsigned long long)totals.drops, (unsigned long long)totals.throttled);
}

int trace_run(const struct trace_options *o, struct policy *policy, const char *policy_file,
	      const struct output *out)
{
	struct probes_opts popts = {
		.pids = o->pids,
		.nr_pids = o->nr_pids,
		.scope_tgid = o->command != NULL && o->command[0] != NULL,
		.cgroup = o->cgroup,
		.comm = o->comm,
		.ringbuf_bytes = o->ringbuf_bytes,
		.verbose = o->verbose,
		.on_event = on_event,
	};
	/*
	 * SA_RESTART: a write of outliers to a full pipe resumes after the
	 * handler instead of failing with EINTR and losing them. The loop waits in
	 * epoll_wait, which is never restarted: it still sees the signal at once.
	 */
	struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };
	struct sclat_target_rule *rules = calloc(SCLAT_MAX_SYSCALLS, sizeof(*rules));
	struct run r = { .out = out };
	struct traced_command cmd = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct control *control = NULL;
	struct probes *probes = NULL;
	struct snapshot_totals snapshots;
	__u64 start, deadline = 0, next_tick, next_snapshot_poll;
	int ret = 1, err, status;

	/* Publishing (call_rcu) needs an RCU-registered thread. */
	urcu_memb_register_thread();
	policy_publish(policy);

	popts.ctx = &r;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	stop_signal = 0;

	if (popts.scope_tgid) {
		err = traced_command_prepare(&cmd, o->command);
		if (err)
			goto cleanup;
	}
	if (!rules) {
		fprintf(stderr, "sclat: %s\n", strerror(ENOMEM));
		goto cleanup;
	}
	target_rules_build(rules);
	popts.target_rules = rules;
	popts.class_cells = classes_cells_for(policy, libbpf_num_possible_cpus());
	err = probes_load(&probes, &popts);
	if (err)
		goto cleanup;
	err = controller_start(&r.ctl, probes, out->hooks);
	if (err) {
		fprintf(stderr, "sclat: starting the threshold controller: %s\n", strerror(-err));
		goto cleanup;
	}
	/* Without the socket (it said why) tracing still works, only not tunable live. */
	control_start(&control, r.ctl, policy_file);
	/*
	 * The kernel's symbols, read before the command starts: reading them
	 * beside it would take its CPU. Without them, kernel stacks are shown
	 * as addresses.
	 */
	explain_open(&r.explain, EXPLAIN_KALLSYMS);

	if (cmd.pid > 0 && probes_scope_add(probes, cmd.pid))
		goto cleanup;
	err = probes_attach(probes);
	if (err)
		goto cleanup;
	r.epoch_offset_ns = epoch_offset_ns();
	start = clock_ns(CLOCK_MONOTONIC);
	if (o->duration_ns)
		deadline = start + o->duration_ns;
	next_tick = start + 1000000000ULL;
	next_snapshot_poll = start;

	if (cmd.pid > 0 && traced_command_start(&cmd))
		goto cleanup;

	while (!stop_signal) {
		__u64 now;

		err = probes_poll(probes, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "sclat: reading the ring buffer: %s\n", strerror(-err));
			goto cleanup;
		}
		if (r.out_err)
			break;
		if (cmd.pid > 0 && traced_command_exited(&cmd))
			break;
		now = clock_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline)
			break;
		if (out->snapshot_trigger && now >= next_snapshot_poll) {
			next_snapshot_poll = now + SNAPSHOT_POLL_NS;
			snapshot_trigger_poll(out->snapshot_trigger, on_snapshot, &r);
		}
		if (now >= next_tick) {
			struct controller_totals totals;

			next_tick = now + 1000000000ULL;
			if (out->tick) {
				controller_totals(r.ctl, &totals);
				out->tick(out->ctx, now - start, &totals);
			}
		}
	}
	/*
	 * Detach first: an outlier emitted after the last drain would be counted
	 * and never consumed. What the kernel wrote until then is still ours.
	 */
	probes_detach(probes);
	probes_drain(probes);
	/* The last outliers may have asked for snapshots still being taken. */
	if (out->snapshot_trigger)
		snapshot_trigger_settle(out->snapshot_trigger, on_snapshot, &r, &snapshots);
	control_stop(control);
	control = NULL;
	/* Its last pass makes the counts final while the programs are still loaded. */
	controller_stop(r.ctl);
	run_end(&r);
	if (out->snapshot_trigger)
		snapshot_end(&r, &snapshots);
	ret = r.out_err ? 1 : 0;
cleanup:
	control_stop(control);
	controller_free(r.ctl);
	probes_close(probes);
	explain_close(r.explain);
	free(rules);
	if (cmd.pid > 0) {
		status = traced_command_finish(&cmd, stop_signal ? stop_signal : SIGTERM);
		if (ret == 0)
			ret = status;
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	policy_publish(NULL);
	urcu_memb_unregister_thread();
	return ret;
}
