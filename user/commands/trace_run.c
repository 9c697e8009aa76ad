// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
#include "controller/inflight.h"
#include "explain/ustack_worker.h"
#include "kernel/probes.h"
#include "outputs/output.h"
#include "policy/policy.h"
#include "util/duration.h"
#include "util/clock.h"
#include "util/compiler.h"
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
	OPT_NO_USER_STACK,
	OPT_USER_STACKS_PER_CPU,
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
	{ "no-user-stack", OPT_NO_USER_STACK, NULL, 0,
	  "Do not copy and unwind each outlier's user stack (it costs per outlier)", 3 },
	{ "user-stacks-per-cpu", OPT_USER_STACKS_PER_CPU, "N", 0,
	  "At most N outliers a second per CPU carry their user stack; the others go "
	  "without, flagged (default 100)",
	  3 },
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
		if (err)
			argp_failure(state, 2, 0,
				     "--buffer-size %s: not a size (a number, then K, M or G or "
				     "nothing)",
				     arg);
		if (o->ringbuf_bytes < 4096 || (o->ringbuf_bytes & (o->ringbuf_bytes - 1)))
			argp_failure(state, 2, 0,
				     "--buffer-size %s: not a power of two from 4K to 2G", arg);
		break;
	case 'v':
		o->verbose = true;
		break;
	case OPT_NO_USER_STACK:
		o->no_user_stack = true;
		break;
	case OPT_USER_STACKS_PER_CPU: {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || *arg == '-' || !n || n > 1000000)
			argp_failure(state, 2, 0,
				     "--user-stacks-per-cpu %s: not a count from 1 to 1000000",
				     arg);
		o->user_stacks_per_cpu = n;
		break;
	}
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

/*
 * Whether execvp() would find a file named name: with a '/', that file; else
 * one in PATH (an empty entry is the working directory). One it finds but
 * cannot run is found: exec says why.
 */
static bool command_found(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char file[PATH_MAX];
	struct stat st;

	if (strchr(name, '/'))
		return !access(name, F_OK);
	for (p = path ? path : "/bin:/usr/bin";; p = end + 1) {
		end = strchrnul(p, ':');
		snprintf(file, sizeof(file), "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "",
			 name);
		if (!stat(file, &st) && S_ISREG(st.st_mode))
			return true;
		if (!*end)
			return false;
	}
}

void trace_options_command(struct trace_options *o, struct argp_state *state)
{
	/* The first non-option and everything after it, options included. */
	o->command = &state->argv[state->next - 1];
	state->next = state->argc;
	/* Said now, before a session is made or a program attached: not after. */
	if (!command_found(o->command[0]))
		argp_failure(state, 2, 0, "%s: command not found", o->command[0]);
}

/* How often the run loop asks whether LTTng reported snapshots. */
#define SNAPSHOT_POLL_NS 50000000ULL

/* The first SIGINT or SIGTERM, whether the kernel sent it (a terminal's Ctrl-C), and how many. */
static volatile sig_atomic_t stop_signal, stop_by_tty, stops;

static void on_stop_signal(int sig, siginfo_t *info, void *uctx __always_unused)
{
	if (!stop_signal) {
		stop_signal = sig;
		stop_by_tty = info && info->si_code == SI_KERNEL;
	}
	stops++;
}

/* A SIGHUP while no control thread serves it: the policy is being read or the run ends. */
static void on_early_hup(int sig __always_unused)
{
}

void trace_interrupts_hold(void)
{
	/*
	 * SA_RESTART: a write of outliers to a full pipe resumes after the
	 * handler instead of failing with EINTR and losing them. The loop waits in
	 * epoll_wait, which is never restarted: it still sees the signal at once.
	 */
	struct sigaction sa = { .sa_sigaction = on_stop_signal,
				.sa_flags = SA_RESTART | SA_SIGINFO },
			 hup = { .sa_handler = on_early_hup, .sa_flags = SA_RESTART }, old;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Started ignoring hangups (nohup), it keeps doing so until the control thread. */
	if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &hup, NULL);
}

int trace_interrupted(void)
{
	return stop_signal;
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

/* An outlier on its way to the output, as the unwinder's queue holds it beside its stack. */
struct pending_outlier {
	struct sclat_event e; /* the record's header */
	struct threshold_basis basis;
	struct explanation x;
};

/* An outlier whose user stack the unwinder has named, waiting for the drain. */
struct unwound_outlier {
	struct pending_outlier p;
	struct ustack_result stack;
};

/*
 * Unwound outliers handed back to the drain thread, which alone writes
 * outliers to the output (one writer of sclat:syscall_outlier). When it is
 * full the unwinder waits: it may, the drain may not.
 */
#define UNWOUND_SLOTS	16
/* How long the drain polls the ring buffer while the unwinder may hand outliers back. */
#define UNWOUND_POLL_MS 20

/*
 * The run loop's state. The outliers go out from the drain thread only;
 * the unwinder's thread hands its finished ones back through unwound[].
 */
struct run {
	const struct output *out;
	struct controller *ctl;
	struct explain *explain;
	struct ustack_worker *unwinder; /* NULL: no user stacks */
	/* The unwinder's counts, the last read or final: the controller reads them. */
	pthread_mutex_t stacks_lock;
	bool stacks_on;
	struct ustack_worker_stats stacks;
	__u64 stacks_skipped;	  /* left out by the kernel, its ring buffer filling up (atomic) */
	struct pending_outlier p; /* the outlier being decoded by the drain */
	struct explanation ix;	  /* the call in flight being reported */
	/* unwound[] and its counts, under unwound_lock; unwound_room is signalled on taking. */
	pthread_mutex_t unwound_lock;
	pthread_cond_t unwound_room;
	struct unwound_outlier *unwound;
	unsigned int unwound_head, unwound_count;
	bool unwound_direct;   /* stopping: the drain waits for the unwinder, which delivers */
	__s64 epoch_offset_ns; /* realtime - monotonic */
	int out_err;
	bool poll_failed;	/* the ring buffer could not be read: the run ended there */
	int inflight_err;	/* of the first scan that failed */
	__u64 inflight_at_stop; /* calls reported in flight by the last scan */
};

static void outlier_deliver(struct run *r, const struct pending_outlier *p,
			    const struct explanation *x)
{
	const struct sclat_event *e = &p->e;
	int err;

	if (r->out_err)
		return;
	err = r->out->outlier(r->out->ctx, e, (__s64)e->entry_ns + r->epoch_offset_ns, &p->basis,
			      x);
	if (err) {
		r->out_err = err;
		return;
	}
	controller_outlier_delivered(r->ctl, e->nr, e->entry_ns + e->latency_ns, x->bpf_ns,
				     x->user_ns);
	if (r->out->snapshot_trigger)
		snapshot_trigger_outlier(r->out->snapshot_trigger, e->latency_ns);
}

static void unwound_deliver_one(struct run *r, struct unwound_outlier *u)
{
	u->p.x.user_stack = &u->stack;
	u->p.x.user_ns += u->stack.unwind_ns + u->stack.name_ns;
	outlier_deliver(r, &u->p, &u->p.x);
}

/* Drain thread: the outliers the unwinder has finished, oldest first; then, if last, no more. */
static void unwound_deliver_all(struct run *r, bool last)
{
	pthread_mutex_lock(&r->unwound_lock);
	while (r->unwound_count) {
		unwound_deliver_one(r, &r->unwound[r->unwound_head]);
		r->unwound_head = (r->unwound_head + 1) % UNWOUND_SLOTS;
		r->unwound_count--;
	}
	if (last)
		r->unwound_direct = true;
	pthread_cond_signal(&r->unwound_room);
	pthread_mutex_unlock(&r->unwound_lock);
}

static void unwound_deliver(struct run *r)
{
	if (r->unwinder)
		unwound_deliver_all(r, false);
}

/* On the unwinder's thread: hand the outlier and its named stack back to the drain. */
static void on_user_stack(void *ctx, const struct ustack_job *job __always_unused,
			  const void *payload, const struct ustack_result *res)
{
	struct run *r = ctx;
	struct unwound_outlier *u;

	pthread_mutex_lock(&r->unwound_lock);
	while (r->unwound_count == UNWOUND_SLOTS && !r->unwound_direct)
		pthread_cond_wait(&r->unwound_room, &r->unwound_lock);
	if (r->unwound_direct) {
		/* The drain is waiting for this thread to finish: it is the only writer now. */
		u = &r->unwound[0];
		memcpy(&u->p, payload, sizeof(u->p));
		u->stack = *res;
		unwound_deliver_one(r, u);
	} else {
		u = &r->unwound[(r->unwound_head + r->unwound_count) % UNWOUND_SLOTS];
		memcpy(&u->p, payload, sizeof(u->p));
		u->stack = *res;
		r->unwound_count++;
	}
	pthread_mutex_unlock(&r->unwound_lock);
}

/*
 * An outlier with a user stack goes to the unwinder and comes back to this
 * thread once named, in the order they came; the others go out at once. So
 * a thread's outliers with stacks keep their order among themselves, and an
 * outlier without one (the queue was full, a kernel thread) may go out
 * before that thread's earlier ones still being unwound: entry_ts orders
 * them.
 */
static int on_event(void *ctx, const struct sclat_event *e, size_t size)
{
	struct run *r = ctx;
	struct pending_outlier *p = &r->p;
	const struct sclat_ustack *cap;

	unwound_deliver(r);
	p->e = *e;
	controller_basis(r->ctl, e->nr, e->cell, e->threshold_gen, e->threshold_ns, &p->basis);
	/* A malformed part loses that part, not the outlier. */
	explain_outlier(r->explain, e, size, &p->x);
	p->x.inflight_reports = inflight_returned(controller_inflight(r->ctl), e->tid, e->entry_ns);
	cap = p->x.ustack_capture;
	/* The capture stays in the ring buffer: the queue keeps its own copy. */
	p->x.ustack_capture = NULL;
	if (cap && (cap->flags & SCLAT_USTACK_SKIPPED)) {
		/* The kernel left it out: its ring buffer filling up, or the CPU past its rate. */
		__atomic_fetch_add(&r->stacks_skipped, 1, __ATOMIC_RELAXED);
		p->x.user_stack_dropped = true;
	} else if (cap && r->unwinder) {
		if (!ustack_worker_submit(r->unwinder, e->entry_ns + e->latency_ns, e->pid, e->tid,
					  cap, p))
			return r->out_err;
		p->x.user_stack_dropped = true;
	}
	outlier_deliver(r, p, &p->x);
	return r->out_err;
}

/* user_stack_costs_fn: the unwinder's counts for `sclat status` and sclat:overhead. */
static void user_stack_costs(void *ctx, struct user_stack_costs *c)
{
	struct run *r = ctx;
	const struct ustack_worker_stats *st = &r->stacks;

	pthread_mutex_lock(&r->stacks_lock);
	if (r->unwinder)
		ustack_worker_stats(r->unwinder, &r->stacks);
	*c = (struct user_stack_costs){
		.on = r->stacks_on,
		.queued = st->submitted,
		.dropped = st->dropped + __atomic_load_n(&r->stacks_skipped, __ATOMIC_RELAXED),
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
	pthread_mutex_unlock(&r->stacks_lock);
}

/*
 * Unwind what is queued and deliver it (the unwinder delivers directly once
 * what it handed back is out), then keep the final counts for the
 * controller's last pass.
 */
static void unwinder_stop(struct run *r)
{
	struct ustack_worker *w = r->unwinder;
	struct ustack_worker_stats last;

	if (!w)
		return;
	unwound_deliver_all(r, true);
	pthread_mutex_lock(&r->stacks_lock);
	ustack_worker_stats(w, &r->stacks);
	r->unwinder = NULL;
	pthread_mutex_unlock(&r->stacks_lock);
	/* The controller's thread reads r->stacks under the lock meanwhile. */
	ustack_worker_stop(w, &last);
	pthread_mutex_lock(&r->stacks_lock);
	r->stacks = last;
	pthread_mutex_unlock(&r->stacks_lock);
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
 * tracing goes on without user stacks.
 */
static void unwinder_start(struct run *r)
{
	struct ustack_worker_opts opts = {
		.payload_size = sizeof(struct pending_outlier),
		.done = on_user_stack,
		.ctx = r,
	};
	int err;

	r->unwound = calloc(UNWOUND_SLOTS, sizeof(*r->unwound));
	err = r->unwound ? ustack_worker_start(&r->unwinder, &opts) : -ENOMEM;
	if (err)
		fprintf(stderr, "sclat: user stacks: %s: outliers go without them\n",
			strerror(-err));
	r->stacks_on = !err;
}

/* A call still in flight, due for a report: explained like an outlier, then to the output. */
static void on_inflight(void *ctx, const struct sclat_inflight *rec, __u32 reports, bool final)
{
	struct run *r = ctx;
	int err;

	if (!r->out->inflight || r->out_err)
		return;
	explain_outlier(r->explain, &rec->e, rec->size - offsetof(struct sclat_inflight, e),
			&r->ix);
	/* No user stack for a call in flight: the iterator copies none. */
	r->ix.ustack_capture = NULL;
	err = r->out->inflight(r->out->ctx, rec, (__s64)rec->e.entry_ns + r->epoch_offset_ns,
			       reports, final, &r->ix);
	if (err)
		r->out_err = err;
	if (final)
		r->inflight_at_stop++;
}

/* Scan the calls in flight; one line on stderr the first time a scan fails. */
static void inflight_scan_run(struct run *r, struct probes *probes, bool final)
{
	int err = inflight_scan(controller_inflight(r->ctl), probes, final, on_inflight, r);

	if (err < 0 && err != -ENOTSUP && !r->inflight_err) {
		fprintf(stderr, "sclat: scanning the syscalls in flight: %s\n", strerror(-err));
		r->inflight_err = err;
	}
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

/*
 * The end of the run: the output's summary and the closing lines, from the
 * final counts. Non-zero when the output failed to write its summary.
 */
static int run_end(struct run *r)
{
	struct controller_totals totals;
	struct syscall_count *counts;
	int err = 0;

	controller_totals(r->ctl, &totals);
	if (r->out->end) {
		counts = calloc(SCLAT_MAX_SYSCALLS + 1, sizeof(*counts));
		if (counts)
			err = r->out->end(r->out->ctx, &totals, counts,
					  controller_counts(r->ctl, counts));
		free(counts);
	}
	fprintf(stderr, "sclat: %llu syscalls, %llu outliers, %llu dropped, %llu throttled\n",
		(unsigned long long)totals.syscalls, (unsigned long long)totals.outliers,
		(unsigned long long)totals.drops, (unsigned long long)totals.throttled);
	/* Counted while the tracer ran, and said once more when it ends: not lost with it. */
	if (totals.kernel_stacks_skipped || totals.wakers_lost || totals.class_ids_refused ||
	    totals.class_requests_lost)
		fprintf(stderr,
			"sclat: %llu kernel stacks skipped (burst guard), %llu wakers lost, %llu "
			"class ids refused, %llu class requests lost (asked again)\n",
			(unsigned long long)totals.kernel_stacks_skipped,
			(unsigned long long)totals.wakers_lost,
			(unsigned long long)totals.class_ids_refused,
			(unsigned long long)totals.class_requests_lost);
	if (totals.children_not_followed)
		fprintf(stderr,
			"sclat: %llu new processes not followed: the scope's table of %d "
			"processes was full, their syscalls were not measured\n",
			(unsigned long long)totals.children_not_followed, PROBES_SCOPE_PIDS_MAX);
	if (inflight_reports_total(controller_inflight(r->ctl)))
		fprintf(stderr,
			"sclat: %llu reports of calls in flight, %llu still in flight at stop\n",
			(unsigned long long)inflight_reports_total(controller_inflight(r->ctl)),
			(unsigned long long)r->inflight_at_stop);
	/*
	 * What the kernel emitted and was never written, counted: the output
	 * failed, or (a bug) an outlier went astray on its way.
	 */
	if (totals.emitted > totals.outliers)
		fprintf(stderr, "sclat: %llu outliers not written: %s\n",
			(unsigned long long)(totals.emitted - totals.outliers),
			r->out_err	 ? "the output failed"
			: r->poll_failed ? "the ring buffer could not be read"
					 : "lost on their way out");
	return err;
}

/* The command ends with the signal that stopped the run (SIGTERM at its end otherwise). */
static int command_finish(struct traced_command *cmd)
{
	int sig = stop_signal ? stop_signal : SIGTERM;

	return traced_command_finish(cmd, sig, stop_signal == SIGINT && stop_by_tty, &stops);
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
	struct sclat_target_rule *rules = calloc(SCLAT_MAX_SYSCALLS, sizeof(*rules));
	struct run r = {
		.out = out,
		.stacks_lock = PTHREAD_MUTEX_INITIALIZER,
		.unwound_lock = PTHREAD_MUTEX_INITIALIZER,
		.unwound_room = PTHREAD_COND_INITIALIZER,
	};
	struct traced_command cmd = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct control *control = NULL;
	struct probes *probes = NULL;
	struct snapshot_totals snapshots;
	__u64 start, deadline = 0, next_tick, next_snapshot_poll, next_inflight_scan;
	int ret = 1, err, status, cmd_status = -1;

	/* Publishing (call_rcu) needs an RCU-registered thread. */
	urcu_memb_register_thread();

	popts.ctx = &r;
	/* Held from here if the caller did not already: a signal it had stays had. */
	trace_interrupts_hold();

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
	/* Without the capability the programs cannot load either: that error says what to do. */
	if (!o->no_user_stack && perfmon_capable())
		unwinder_start(&r);
	popts.user_stacks = r.unwinder != NULL;
	popts.user_stacks_per_cpu =
		o->user_stacks_per_cpu ? o->user_stacks_per_cpu : PROBES_USER_STACKS_PER_CPU;
	popts.class_cells = classes_cells_for(policy, libbpf_num_possible_cpus());
	err = probes_load(&probes, &popts);
	if (err)
		goto cleanup;
	/*
	 * The kernel's symbols, read before the command starts: reading them
	 * beside it would take its CPU. Without them, kernel stacks are shown
	 * as addresses. Read before the controller starts, whose first interval,
	 * the one measured with BPF statistics, should see the programs attached.
	 */
	explain_open(&r.explain, EXPLAIN_KALLSYMS);
	/* The controller publishes the policy, and owns it from here. */
	err = controller_start(&r.ctl, probes, policy, out->hooks);
	policy = NULL;
	if (err) {
		fprintf(stderr, "sclat: starting the threshold controller: %s\n", strerror(-err));
		goto cleanup;
	}
	controller_user_stack_source(r.ctl, user_stack_costs, &r);
	/* Without the socket (it said why) tracing still works, only not tunable live. */
	control_start(&control, r.ctl, policy_file);

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
	/* The calls in flight are looked at once per controller interval. */
	next_inflight_scan = start + policy_current_interval_ns();

	/*
	 * Stopped while it started (loading takes a while): the command never
	 * runs, and the run ends as any other, with 128 + the signal.
	 */
	if (cmd.pid > 0 && !stop_signal && traced_command_start(&cmd))
		goto cleanup;

	while (!stop_signal) {
		__u64 now;

		/* Unwound outliers come back between polls: a shorter wait keeps them prompt. */
		err = probes_poll(probes, r.unwinder ? UNWOUND_POLL_MS : 100);
		/* The output failed (it said why): the run ends as any other, its totals said. */
		if (r.out_err)
			break;
		/* The run still ends as any other: what was emitted is drained and counted. */
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "sclat: reading the ring buffer: %s\n", strerror(-err));
			r.poll_failed = true;
			break;
		}
		unwound_deliver(&r);
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
		if (now >= next_inflight_scan) {
			next_inflight_scan = now + policy_current_interval_ns();
			inflight_scan_run(&r, probes, false);
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
	 * The command ends first, while the programs are attached: the call
	 * that its SIGTERM ends is seen returning and reported. What is still in
	 * flight then (in other processes) is reported as such, once consumed
	 * outliers have taken their calls off the table.
	 */
	if (cmd.pid > 0)
		cmd_status = command_finish(&cmd);
	probes_drain(probes);
	inflight_scan_run(&r, probes, true);
	/*
	 * Then detach: an outlier emitted after the last drain would be counted
	 * and never consumed. What the kernel wrote until then is still ours.
	 */
	probes_detach(probes);
	probes_drain(probes);
	/* The outliers still waiting for their user stack go out before the totals. */
	unwinder_stop(&r);
	/* The last outliers may have asked for snapshots still being taken. */
	if (out->snapshot_trigger)
		snapshot_trigger_settle(out->snapshot_trigger, on_snapshot, &r, &snapshots);
	control_stop(control);
	control = NULL;
	/* Its last pass makes the counts final while the programs are still loaded. */
	controller_stop(r.ctl);
	ret = run_end(&r) || r.out_err || r.poll_failed ? 1 : 0;
	if (out->snapshot_trigger)
		snapshot_end(&r, &snapshots);
cleanup:
	unwinder_stop(&r);
	control_stop(control);
	controller_free(r.ctl);
	probes_close(probes);
	explain_close(r.explain);
	free(r.unwound);
	free(rules);
	if (cmd.pid > 0) {
		status = cmd_status >= 0 ? cmd_status : command_finish(&cmd);
		if (ret == 0)
			ret = status;
	}
	/* Not handed to the controller: the run ended before it started. */
	policy_free(policy);
	urcu_memb_unregister_thread();
	return ret;
}
