// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>
#include "command.h"
#include "control.h"
#include "controller.h"
#include "duration.h"
#include "policy.h"
#include "size.h"
#include "tracer.h"
#include "tracing.h"

enum {
	OPT_CGROUP = 0x100,
	OPT_COMM,
	OPT_POLICY,
	OPT_THRESHOLD,
	OPT_DURATION,
	OPT_BUFFER_SIZE,
};

static const struct argp_option tracing_options[] = {
	{ "pid", 'p', "PID", 0, "Trace this process and its future children (repeatable)", 1 },
	{ "cgroup", OPT_CGROUP, "PATH", 0, "Trace only tasks in this cgroup v2 directory", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "Trace only threads named NAME", 1 },
	{ "policy", OPT_POLICY, "FILE", 0,
	  "Threshold policy file (INI). Default: the file $" POLICY_ENV " names, else "
	  POLICY_INSTALLED " if it exists, else the built-in policy",
	  2 },
	{ "threshold", OPT_THRESHOLD, "DUR", 0,
	  "Static threshold for every syscall (e.g. 500us, 2ms)", 2 },
	{ "duration", OPT_DURATION, "DUR", 0, "Stop after DUR (e.g. 10s)", 3 },
	{ "buffer-size", OPT_BUFFER_SIZE, "SIZE", 0,
	  "Kernel ring buffer size, a power of two (default 1M)", 3 },
	{ "verbose", 'v', NULL, 0, "Show libbpf's messages", 3 },
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

static error_t tracing_parse(int key, char *arg, struct argp_state *state)
{
	struct tracing_opts *o = state->input;
	char *end;
	long pid;
	int err;

	switch (key) {
	case 'p':
		errno = 0;
		pid = strtol(arg, &end, 10);
		if (errno || *end || pid <= 0 || pid > 0x3fffffff)
			argp_failure(state, 2, 0, "-p %s: not a process id", arg);
		if (o->nr_pids >= TRACING_MAX_PIDS)
			argp_failure(state, 2, 0, "-p %s: at most %d processes", arg,
				     TRACING_MAX_PIDS);
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
		o->comm = arg;
		break;
	case OPT_POLICY:
		o->policy_file = arg;
		break;
	case OPT_THRESHOLD:
		err = duration_parse(arg, &o->threshold_ns);
		if (err)
			argp_failure(state, 2, 0, "--threshold %s: %s", arg,
				     err == -ERANGE ? "too large"
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
		if (err || o->ringbuf_bytes < 4096 || (o->ringbuf_bytes & (o->ringbuf_bytes - 1)))
			argp_failure(state, 2, 0,
				     "--buffer-size %s: not a power of two of at least 4K", arg);
		break;
	case 'v':
		o->verbose = true;
		break;
	case ARGP_KEY_END:
		if (o->threshold_set && o->policy_file)
			argp_failure(state, 2, 0,
				     "--threshold and --policy %s: give one or the other",
				     o->policy_file);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp tracing_argp = {
	.options = tracing_options,
	.parser = tracing_parse,
};

void tracing_opts_command(struct tracing_opts *o, struct argp_state *state)
{
	/* The first non-option and everything after it, options included. */
	o->command = &state->argv[state->next - 1];
	state->next = state->argc;
}

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static __u64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct run {
	const struct tracing_opts *o;
	const struct tracing_sink *sink;
	struct tracer *tracer;
	struct controller *ctl;
	struct tracing_totals totals;
	__s64 epoch_offset_ns;		/* realtime - monotonic */
	int sink_err;
};

static int on_event(void *ctx, const struct sclat_event *e)
{
	struct run *r = ctx;
	struct threshold_basis basis;
	int err;

	controller_basis(r->ctl, e->nr, e->threshold_ns, &basis);
	controller_outlier_seen(r->ctl, e->nr, e->entry_ns + e->latency_ns);
	err = r->sink->outlier(r->sink->ctx, e, (__s64)e->entry_ns + r->epoch_offset_ns, &basis);
	if (err) {
		r->sink_err = err;
		return err;
	}
	r->totals.outliers++;
	return 0;
}

/* Sum the kernel's counters over every slot and CPU. */
static int totals_read(struct run *r, struct sclat_hist *buf)
{
	int ncpus = tracer_ncpus(r->tracer), nslots, i;
	unsigned int b;
	__u64 syscalls = 0, drops = 0, throttled = 0;

	nslots = tracer_hists_read(r->tracer, buf);
	if (nslots < 0)
		return nslots;
	for (i = 0; i < nslots * ncpus; i++) {
		for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
			syscalls += buf[i].bucket[b];
		drops += buf[i].drops;
		throttled += buf[i].throttled;
	}
	r->totals.syscalls = syscalls;
	r->totals.drops = drops;
	r->totals.throttled = throttled;
	return 0;
}

static int count_cmp(const void *a, const void *b)
{
	const struct syscall_count *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return (int)x->nr - (int)y->nr;
}

/* Per-syscall counts from a histogram read, busiest first; returns how many. */
static unsigned int counts_of(struct run *r, const struct sclat_hist *buf,
			      struct syscall_count *counts)
{
	int ncpus = tracer_ncpus(r->tracer), cpu;
	unsigned int nr, n = 0, slot, b;

	for (nr = 0; nr <= SCLAT_MAX_SYSCALLS; nr++) {
		struct syscall_count *c = &counts[n];

		if (nr < SCLAT_MAX_SYSCALLS) {
			slot = tracer_slot(r->tracer, nr);
			if (slot == SCLAT_SLOT_NONE || slot >= SCLAT_HIST_SLOTS)
				continue;
		} else {
			slot = 0;	/* the shared slot */
		}
		memset(c, 0, sizeof(*c));
		c->nr = nr;
		for (cpu = 0; cpu < ncpus; cpu++) {
			const struct sclat_hist *h = &buf[slot * ncpus + cpu];

			for (b = 0; b < SCLAT_HIST_BUCKETS; b++)
				c->calls += h->bucket[b];
			c->outliers += h->outliers;
			c->drops += h->drops;
			c->throttled += h->throttled;
		}
		if (c->calls)
			n++;
	}
	qsort(counts, n, sizeof(*counts), count_cmp);
	return n;
}

struct policy *tracing_policy(const struct tracing_opts *o, const char **file)
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

int tracing_run(const struct tracing_opts *o, const struct tracing_sink *sink)
{
	struct tracer_opts topts = {
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
	struct run r = { .o = o, .sink = sink };
	struct command cmd = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct sclat_hist *hists = NULL;
	struct control *control = NULL;
	struct policy *policy;
	const char *policy_file;
	__u64 start, deadline = 0, next_tick;
	int ret = 1, err, status;

	/* A bad policy stops us before anything is started or attached. */
	policy = tracing_policy(o, &policy_file);
	if (!policy)
		return 1;
	/* Publishing (call_rcu) needs an RCU-registered thread. */
	urcu_memb_register_thread();
	policy_publish(policy);

	topts.ctx = &r;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	stop_signal = 0;

	if (topts.scope_tgid) {
		err = command_prepare(&cmd, o->command);
		if (err)
			goto cleanup;
	}
	err = tracer_load(&r.tracer, &topts);
	if (err)
		goto cleanup;
	hists = calloc((size_t)SCLAT_HIST_SLOTS * tracer_ncpus(r.tracer), sizeof(*hists));
	if (!hists)
		goto cleanup;

	err = controller_start(&r.ctl, r.tracer, sink->hooks);
	if (err) {
		fprintf(stderr, "sclat: starting the threshold controller: %s\n", strerror(-err));
		goto cleanup;
	}
	/* Without the socket (it said why) tracing still works, only not tunable live. */
	control_start(&control, r.ctl, policy_file);

	if (cmd.pid > 0 && tracer_scope_add(r.tracer, cmd.pid))
		goto cleanup;
	err = tracer_attach(r.tracer);
	if (err)
		goto cleanup;
	r.epoch_offset_ns = (__s64)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC));
	start = clock_ns(CLOCK_MONOTONIC);
	if (o->duration_ns)
		deadline = start + o->duration_ns;
	next_tick = start + 1000000000ULL;

	if (cmd.pid > 0 && command_start(&cmd))
		goto cleanup;

	while (!stop_signal) {
		__u64 now;

		err = tracer_poll(r.tracer, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "sclat: reading the ring buffer: %s\n", strerror(-err));
			goto cleanup;
		}
		if (r.sink_err)
			break;
		if (cmd.pid > 0 && command_exited(&cmd))
			break;
		now = clock_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline)
			break;
		if (now >= next_tick) {
			next_tick = now + 1000000000ULL;
			if (sink->tick && !totals_read(&r, hists))
				sink->tick(sink->ctx, now - start, &r.totals);
		}
	}
	/*
	 * Detach first: an outlier emitted after the last drain would be counted
	 * and never consumed. What the kernel wrote until then is still ours.
	 */
	tracer_detach(r.tracer);
	tracer_drain(r.tracer);
	control_stop(control);
	control = NULL;
	/* Its last pass reports the final counts while the programs are still loaded. */
	controller_stop(r.ctl);
	r.ctl = NULL;
	if (totals_read(&r, hists) == 0) {
		if (sink->end) {
			struct syscall_count *counts = calloc(SCLAT_MAX_SYSCALLS + 1,
							      sizeof(*counts));

			if (counts)
				sink->end(sink->ctx, &r.totals, counts,
					  counts_of(&r, hists, counts));
			free(counts);
		}
		fprintf(stderr, "sclat: %llu syscalls, %llu outliers, %llu dropped, "
				"%llu throttled\n",
			(unsigned long long)r.totals.syscalls,
			(unsigned long long)r.totals.outliers,
			(unsigned long long)r.totals.drops,
			(unsigned long long)r.totals.throttled);
	}
	ret = r.sink_err ? 1 : 0;
cleanup:
	control_stop(control);
	controller_stop(r.ctl);
	tracer_close(r.tracer);
	free(hists);
	if (cmd.pid > 0) {
		status = command_finish(&cmd, stop_signal ? stop_signal : SIGTERM);
		if (ret == 0)
			ret = status;
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	policy_publish(NULL);
	urcu_memb_unregister_thread();
	return ret;
}
