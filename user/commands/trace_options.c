// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace_options.h"
#include "sclat_abi.h"
#include "kernel/probes_load.h"
#include "outputs/metrics_server.h"
#include "policy/policy.h"
#include "util/duration.h"
#include "util/size.h"
#include "util/log.h"

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
	OPT_METRICS,
	OPT_METRICS_BIND_ANY,
	OPT_MIN_LATENCY,
};

static const struct argp_option trace_options[] = {
	{ "pid", 'p', "PID", 0,
	  "Trace this process with its descendants (those running now and those forked later; repeatable)",
	  1 },
	{ "cgroup", OPT_CGROUP, "PATH", 0, "Trace only tasks in this cgroup v2 directory", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "Only threads named NAME (1 to 15 characters)", 1 },
	{ "policy", OPT_POLICY, "FILE", 0,
	  "Threshold policy file (INI). Default: the file $" POLICY_ENV
	  " names, else " POLICY_INSTALLED " if it exists, else the built-in policy",
	  2 },
	{ "threshold", OPT_THRESHOLD, "DUR", 0,
	  "Static threshold for every syscall, on whole latencies, no classes (e.g. 500us, 2ms)",
	  2 },
	{ "min-latency", OPT_MIN_LATENCY, "DUR", 0,
	  "No threshold below DUR, learnt or not: only outliers at least DUR slow, of every "
	  "syscall (the policy's min_latency)",
	  2 },
	{ "duration", OPT_DURATION, "DUR", 0, "Stop after DUR (e.g. 10s)", 3 },
	{ "buffer-size", OPT_BUFFER_SIZE, "SIZE", 0,
	  "Kernel ring buffer size, a power of two from 4K to 2G (default 1M)", 3 },
	{ "verbose", 'v', NULL, 0, "Show debug messages, libbpf's among them", 3 },
	{ "no-user-stack", OPT_NO_USER_STACK, NULL, 0,
	  "Do not copy and unwind each outlier's user stack (it costs per outlier)", 3 },
	{ "user-stacks-per-cpu", OPT_USER_STACKS_PER_CPU, "N", 0,
	  "At most N outliers a second per CPU carry their user stack, half of them kept for "
	  "outliers 4x their threshold or more; the others go without, flagged (default 100)",
	  3 },
	{ "snapshot-session", OPT_SNAPSHOT_SESSION, "NAME", 0,
	  "On each outlier, LTTng snapshots NAME, a snapshot-mode session of yours", 4 },
	{ "snapshot-min-latency", OPT_SNAPSHOT_MIN_LATENCY, "DUR", 0,
	  "Only outliers at least this slow cause a snapshot (default: every outlier)", 4 },
	{ "snapshot-rate-policy", OPT_SNAPSHOT_RATE_POLICY, "POLICY", 0,
	  "every:N (a snapshot on every N-th of those outliers; default every:1) or "
	  "once-after:N (on the N-th only)",
	  4 },
	{ "metrics", OPT_METRICS, "ADDR:PORT", 0,
	  "Serve Prometheus metrics on http://ADDR:PORT/metrics (PORT alone: 127.0.0.1; "
	  "IPV4:PORT, [IPV6]:PORT, localhost:PORT); a loopback address unless "
	  "--metrics-bind-any",
	  5 },
	{ "metrics-bind-any", OPT_METRICS_BIND_ANY, NULL, 0,
	  "Let --metrics listen on any address, not only loopback: whoever reaches it reads "
	  "the traced processes' and cgroups' names",
	  5 },
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

/* -p PID: a thread id stands for its process, since scope is by process. */
static void pid_parse(struct trace_options *o, const char *arg, struct argp_state *state)
{
	char *end;
	long pid;

	errno = 0;
	pid = strtol(arg, &end, 10);
	if (errno || *end || pid <= 0 || pid > 0x3fffffff)
		argp_failure(state, 2, 0, "-p %s: not a process id", arg);
	if (o->run.nr_pids >= RUN_MAX_PIDS)
		argp_failure(state, 2, 0, "-p %s: at most %d processes", arg, RUN_MAX_PIDS);
	pid = tgid_of(pid);
	if (pid < 0)
		argp_failure(state, 2, 0, "-p %s: no such process", arg);
	o->run.pids[o->run.nr_pids++] = pid;
}

static void buffer_size_parse(struct trace_options *o, const char *arg, struct argp_state *state)
{
	int err = size_parse(arg, &o->run.ringbuf_bytes);

	if (err == -ERANGE || (!err && o->run.ringbuf_bytes > PROBES_RINGBUF_MAX))
		argp_failure(state, 2, 0,
			     "--buffer-size %s: too large: at most 2G (a BPF map's "
			     "size is 32 bits)",
			     arg);
	if (err)
		argp_failure(state, 2, 0,
			     "--buffer-size %s: not a size (a number, then K, M or G or "
			     "nothing)",
			     arg);
	if (o->run.ringbuf_bytes < 4096 || (o->run.ringbuf_bytes & (o->run.ringbuf_bytes - 1)))
		argp_failure(state, 2, 0, "--buffer-size %s: not a power of two from 4K to 2G",
			     arg);
}

static void user_stacks_per_cpu_parse(struct trace_options *o, const char *arg,
				      struct argp_state *state)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || !n || n > 1000000)
		argp_failure(state, 2, 0, "--user-stacks-per-cpu %s: not a count from 1 to 1000000",
			     arg);
	o->run.user_stacks_per_cpu = n;
}

/* A --snapshot-* option; returns the name of one that tunes the snapshots, else NULL. */
static const char *snapshot_parse(int key, struct trace_options *o, const char *arg,
				  struct argp_state *state)
{
	int err;

	switch (key) {
	case OPT_SNAPSHOT_SESSION:
		o->snapshot.session = arg;
		return NULL;
	case OPT_SNAPSHOT_MIN_LATENCY:
		err = duration_parse(arg, &o->snapshot.min_latency_ns);
		if (err)
			argp_failure(state, 2, 0, "--snapshot-min-latency %s: %s", arg,
				     err == -ERANGE
					     ? "too large"
					     : "not a duration (a number and ns, us, ms or s)");
		return "--snapshot-min-latency";
	default:
		if (snapshot_rate_parse(arg, &o->snapshot))
			argp_failure(state, 2, 0,
				     "--snapshot-rate-policy %s: not every:N or once-after:N "
				     "(N a whole number from 1)",
				     arg);
		return "--snapshot-rate-policy";
	}
}

/* --metrics's address, said wrong before anything starts; it listens when the run starts. */
static void metrics_check(const struct trace_options *o, struct argp_state *state)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char why[256];

	if (o->run.metrics.bind_any && !o->run.metrics.addr)
		argp_failure(state, 2, 0, "--metrics-bind-any: goes with --metrics ADDR:PORT");
	if (o->run.metrics.addr && metrics_addr_parse(o->run.metrics.addr, o->run.metrics.bind_any,
						      &sa, &len, why, sizeof(why)))
		argp_failure(state, 2, 0, "--metrics %s: %s", o->run.metrics.addr, why);
}

/* The options that go together, or not, once all are read. */
static void options_check(struct trace_options *o, const char *snapshot_tuned,
			  struct argp_state *state)
{
	if (o->threshold_set && o->policy_file)
		argp_failure(state, 2, 0, "--threshold and --policy %s: give one or the other",
			     o->policy_file);
	if (snapshot_tuned && !o->snapshot.session)
		argp_failure(state, 2, 0, "%s: goes with --snapshot-session NAME", snapshot_tuned);
	metrics_check(o, state);
	if (!o->snapshot.rate_n) {
		o->snapshot.rate = SNAPSHOT_RATE_EVERY;
		o->snapshot.rate_n = 1;
	}
}

static error_t trace_parse(int key, char *arg, struct argp_state *state)
{
	/* An option that tunes the snapshots, which needs --snapshot-session. */
	static const char *snapshot_tuned;
	struct trace_options *o = state->input;
	const char *tuned;
	int err;

	switch (key) {
	case ARGP_KEY_INIT:
		snapshot_tuned = NULL;
		break;
	case 'p':
		pid_parse(o, arg, state);
		break;
	case OPT_CGROUP:
		o->run.cgroup = arg;
		break;
	case OPT_COMM:
		/* The kernel's task comm: 16 bytes with the NUL. */
		if (!*arg || strlen(arg) >= SCLAT_COMM_LEN)
			argp_failure(state, 2, 0,
				     "--comm \"%s\": a thread name has 1 to %d characters", arg,
				     SCLAT_COMM_LEN - 1);
		o->run.comm = arg;
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
	case OPT_MIN_LATENCY:
		err = duration_parse(arg, &o->min_latency_ns);
		if (err)
			argp_failure(state, 2, 0, "--min-latency %s: %s", arg,
				     err == -ERANGE
					     ? "too large"
					     : "not a duration (a number and ns, us, ms or s)");
		o->min_latency_set = true;
		break;
	case OPT_DURATION:
		err = duration_parse(arg, &o->run.duration_ns);
		if (err || !o->run.duration_ns)
			argp_failure(state, 2, 0, "--duration %s: %s", arg,
				     err == -ERANGE ? "too large"
				     : err ? "not a duration (a number and ns, us, ms or s)"
					   : "must be more than zero");
		break;
	case OPT_BUFFER_SIZE:
		buffer_size_parse(o, arg, state);
		break;
	case 'v':
		o->run.verbose = true;
		/* The debug messages, libbpf's among them. */
		log_set_level(LOG_DEBUG);
		break;
	case OPT_NO_USER_STACK:
		o->run.no_user_stack = true;
		break;
	case OPT_USER_STACKS_PER_CPU:
		user_stacks_per_cpu_parse(o, arg, state);
		break;
	case OPT_METRICS:
		o->run.metrics.addr = arg;
		break;
	case OPT_METRICS_BIND_ANY:
		o->run.metrics.bind_any = true;
		break;
	case OPT_SNAPSHOT_SESSION:
	case OPT_SNAPSHOT_MIN_LATENCY:
	case OPT_SNAPSHOT_RATE_POLICY:
		tuned = snapshot_parse(key, o, arg, state);
		if (tuned)
			snapshot_tuned = tuned;
		break;
	case ARGP_KEY_END:
		options_check(o, snapshot_tuned, state);
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
	o->run.command = &state->argv[state->next - 1];
	state->next = state->argc;
	/* Said now, before a session is made or a program attached: not after. */
	if (!command_found(o->run.command[0]))
		argp_failure(state, 2, 0, "%s: command not found", o->run.command[0]);
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
		log_err("%s", err);
	else if (o->min_latency_set)
		p->min_latency_ns = o->min_latency_ns;
	return p;
}
