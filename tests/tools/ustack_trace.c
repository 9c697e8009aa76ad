// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run a command and explain the user stacks of its slow syscalls, with the
 * pieces sclat's outlier path will use: the BPF capture of kern-bpf/ustack.bpf.h
 * (through tests/bpf/ustack_check.bpf.c), the ring buffer, and user/explain's
 * worker (map tracker, unwinder, symbols). For the integration tests and
 * scripts/bench-ustack.
 *
 *   ustack_trace --nr N [options] -- COMMAND [ARG...]
 *
 * Writes JSON lines: one per captured stack, then {"summary":...}.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "util/clock.h"
#include "util/compiler.h"
#include "explain/ustack_worker.h"
#include "util/json.h"
#include "ustack_check.h"
#include "ustack_check.skel.h"

static const char usage[] =
	"usage: ustack_trace --nr N [options] -- COMMAND [ARG...]\n"
	"  --nr N            the syscall whose stacks are captured\n"
	"  --min-latency NS  only calls that took NS or more (default 0)\n"
	"  --raw-tp          attach the raw_tp programs instead of tp_btf\n"
	"  --hold            unwind only once COMMAND has exited and been reaped\n"
	"  --queue SLOTS     the worker's queue (power of two, default 256)\n"
	"  --ringbuf BYTES   the ring buffer (power of two pages, default 16 MiB)\n"
	"  --limit BYTES     stack bytes copied at most (default and maximum 8192)\n"
	"  --stall           the worker waits, after its first stack, until the ring\n"
	"                    buffer is drained: the queue fills and the rest is dropped\n"
	"  --out FILE        JSON lines to FILE (default stdout)\n"
	"  --maps-only       no BPF: the worker only tracks the process maps (its cost)\n"
	"  --no-worker       with --maps-only: not even that (the baseline)\n"
	"  --no-name-cache   name every frame with libdwfl again (the cache's worth)\n";

static struct env {
	int nr;
	__u64 min_latency_ns;
	bool raw_tp, hold, stall, maps_only, no_worker, no_name_cache;
	unsigned int queue;
	size_t ringbuf;
	__u32 limit;
	FILE *out;
} env = { .nr = -1, .queue = 256, .ringbuf = 16 << 20, .limit = SCLAT_USTACK_BYTES };

/* What travels with each stack through the queue. */
struct payload {
	__u64 exit_ns, latency_ns;
	__s64 ret;
	__u32 nr;
	bool proc_gone; /* /proc/PID was gone when the stack was submitted */
};

static struct ustack_worker *worker;
static __u64 records, *submit_ns; /* each accepted submit's time, for its percentiles */
static size_t nr_submits, cap_submits;
static struct ustack_check_record **held;
static size_t nr_held, cap_held;

static pthread_mutex_t stall_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stall_cond = PTHREAD_COND_INITIALIZER;
static bool drained;

static void hex_write(FILE *f, const __u8 *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

/* On the worker thread: one JSON line per stack. */
static void stack_done(void *ctx, const struct ustack_job *job, const void *payload,
		       const struct ustack_result *r)
{
	const struct payload *p = payload;
	static bool first = true;
	FILE *f = ctx;
	int i;

	fprintf(f,
		"{\"pid\":%d,\"tid\":%d,\"nr\":%u,\"exit_ns\":%llu,\"latency_ns\":%llu,"
		"\"ret\":%lld,\"proc_gone\":%s,\"stack_bytes\":%u,\"stack_flags\":%u,"
		"\"end\":\"%s\",\"frames\":[",
		job->pid, job->tid, p->nr, (unsigned long long)p->exit_ns,
		(unsigned long long)p->latency_ns, (long long)p->ret,
		p->proc_gone ? "true" : "false", job->stack_bytes, job->stack_flags,
		ustack_end_name(r->end));
	for (i = 0; i < r->nr; i++) {
		const struct ustack_frame *fr = &r->frames[i];

		fprintf(f, "%s{\"addr\":\"0x%llx\",\"text\":", i ? "," : "",
			(unsigned long long)fr->addr);
		json_string(f, fr->text);
		if (fr->mapped) {
			fprintf(f, ",\"rel\":\"0x%llx\",\"path\":", (unsigned long long)fr->rel);
			json_string(f, fr->path);
			fprintf(f, ",\"build_id\":\"");
			hex_write(f, fr->build_id, fr->build_id_len);
			fputc('"', f);
		}
		fputc('}', f);
	}
	fprintf(f, "]}\n");
	fflush(f);

	if (env.stall && first) {
		first = false;
		pthread_mutex_lock(&stall_lock);
		while (!drained)
			pthread_cond_wait(&stall_cond, &stall_lock);
		pthread_mutex_unlock(&stall_lock);
	}
}

static void record_submit(const struct ustack_check_record *rec)
{
	struct payload p = {
		.exit_ns = rec->exit_ns,
		.latency_ns = rec->latency_ns,
		.ret = rec->ret,
		.nr = rec->nr,
	};
	char proc[32];
	__u64 t0, spent;

	snprintf(proc, sizeof(proc), "/proc/%u", rec->pid);
	p.proc_gone = access(proc, F_OK) != 0;
	t0 = clock_ns(CLOCK_MONOTONIC);
	if (ustack_worker_submit(worker, rec->exit_ns, rec->pid, rec->tid, &rec->ustack, &p))
		return; /* refused: counted by the worker, and no hand-over to time */
	spent = clock_ns(CLOCK_MONOTONIC) - t0;
	if (nr_submits == cap_submits) {
		cap_submits = cap_submits ? 2 * cap_submits : 1024;
		submit_ns = realloc(submit_ns, cap_submits * sizeof(*submit_ns));
		if (!submit_ns)
			exit(1);
	}
	submit_ns[nr_submits++] = spent;
}

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of the submit times, 0 if none. */
static __u64 submit_quantile(double q)
{
	size_t i = (size_t)(q * (nr_submits - 1) + 0.5);

	return nr_submits ? submit_ns[i] : 0;
}

/* The ring buffer consumer: hand the stack over (or keep it, --hold) and go on. */
static int on_record(void *ctx __always_unused, void *data, size_t size)
{
	const struct ustack_check_record *rec = data;

	if (size < sizeof(*rec))
		return 0;
	records++;
	if (!env.hold) {
		record_submit(rec);
		return 0;
	}
	if (nr_held == cap_held) {
		cap_held = cap_held ? cap_held * 2 : 16;
		held = realloc(held, cap_held * sizeof(*held));
		if (!held)
			return -ENOMEM;
	}
	held[nr_held] = malloc(sizeof(*rec));
	if (!held[nr_held])
		return -ENOMEM;
	memcpy(held[nr_held++], rec, sizeof(*rec));
	return 0;
}

#define U(x) ((unsigned long long)(x))

/* What the run cost: the command's wall and CPU time, and this process's CPU time. */
struct run_cost {
	__u64 wall_ns, cpu_ns, command_cpu_ns;
};

/* CPU time (user and system) of RUSAGE_SELF or RUSAGE_CHILDREN. */
static __u64 cpu_ns_of(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

static void summary_print(FILE *f, int exit_status, const struct ustack_check_bpf *skel,
			  const struct ustack_worker_stats *st, const struct run_cost *cost)
{
	__u64 lost = skel ? skel->bss->lost : 0, captures = skel ? skel->bss->nr_captures : 0;

	fprintf(f,
		"{\"summary\":{\"exit_status\":%d,\"wall_ns\":%llu,\"cpu_ns\":%llu,"
		"\"command_cpu_ns\":%llu,"
		"\"captures\":%llu,\"capture_ns_mean\":%llu,\"records\":%llu,\"lost\":%llu,"
		"\"submitted\":%llu,\"dropped\":%llu,\"unwound\":%llu,\"frames\":%llu,"
		"\"queue_slots\":%u,\"queue_max_depth\":%u,"
		"\"submit_ns_p50\":%llu,\"submit_ns_p99\":%llu,\"submit_ns_max\":%llu,"
		"\"unwind_ns_mean\":%llu,\"unwind_ns_max\":%llu,"
		"\"name_ns_mean\":%llu,\"name_ns_max\":%llu,\"wait_ns_max\":%llu,"
		"\"capture_bytes_mean\":%llu,\"capture_bytes_max\":%llu,",
		exit_status, U(cost->wall_ns), U(cost->cpu_ns), U(cost->command_cpu_ns),
		U(captures), U(captures ? skel->bss->capture_ns / captures : 0), U(records),
		U(lost), U(st->submitted), U(st->dropped), U(st->unwound), U(st->frames),
		st->queue_slots, st->queue_max_depth, U(submit_quantile(0.5)),
		U(submit_quantile(0.99)), U(submit_quantile(1)),
		U(st->unwound ? st->unwind_ns / st->unwound : 0), U(st->unwind_ns_max),
		U(st->unwound ? st->name_ns / st->unwound : 0), U(st->name_ns_max),
		U(st->wait_ns_max), U(st->unwound ? st->capture_bytes / st->unwound : 0),
		U(st->capture_bytes_max));
	fprintf(f,
		"\"maps\":{\"records\":%llu,\"mmaps\":%llu,\"forks\":%llu,\"execs\":%llu,"
		"\"exits\":%llu,\"lost\":%llu,\"scanned_procs\":%llu,\"scan_ns\":%llu,"
		"\"late_scans\":%llu,\"procs\":%llu,\"mappings\":%llu},",
		U(st->maps.records), U(st->maps.mmaps), U(st->maps.forks), U(st->maps.execs),
		U(st->maps.exits), U(st->maps.lost), U(st->maps.scanned_procs), U(st->maps.scan_ns),
		U(st->maps.late_scans), U(st->table.procs), U(st->table.mappings));
	fprintf(f,
		"\"symbols\":{\"images\":%llu,\"opened\":%llu,\"hits\":%llu,"
		"\"evicted\":%llu,\"failed\":%llu}}}\n",
		U(st->symbols.images), U(st->symbols.opened), U(st->symbols.hits),
		U(st->symbols.evicted), U(st->symbols.failed));
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nr", required_argument, NULL, 'n' },
		{ "min-latency", required_argument, NULL, 'm' },
		{ "raw-tp", no_argument, NULL, 'r' },
		{ "hold", no_argument, NULL, 'H' },
		{ "queue", required_argument, NULL, 'q' },
		{ "ringbuf", required_argument, NULL, 'b' },
		{ "limit", required_argument, NULL, 'l' },
		{ "stall", no_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "maps-only", no_argument, NULL, 'M' },
		{ "no-worker", no_argument, NULL, 'W' },
		{ "no-name-cache", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	env.out = stdout;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			env.nr = atoi(optarg);
			break;
		case 'm':
			env.min_latency_ns = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			env.raw_tp = true;
			break;
		case 'H':
			env.hold = true;
			break;
		case 'q':
			env.queue = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			env.ringbuf = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			env.limit = strtoul(optarg, NULL, 0);
			break;
		case 's':
			env.stall = true;
			break;
		case 'o':
			env.out = fopen(optarg, "w");
			if (!env.out) {
				fprintf(stderr, "ustack_trace: %s: %s\n", optarg, strerror(errno));
				return -1;
			}
			break;
		case 'M':
			env.maps_only = true;
			break;
		case 'W':
			env.no_worker = true;
			break;
		case 'N':
			env.no_name_cache = true;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return -1;
		}
	}
	if ((env.nr < 0 && !env.maps_only) || optind >= argc || env.limit > SCLAT_USTACK_BYTES ||
	    (env.no_worker && !env.maps_only)) {
		fputs(usage, stderr);
		return -1;
	}
	return optind;
}

int main(int argc, char **argv)
{
	struct ustack_worker_opts wopts = { 0 };
	struct ustack_check_bpf *skel = NULL;
	struct ustack_worker_stats st = { 0 };
	struct run_cost cost = { 0 };
	struct ring_buffer *rb = NULL;
	__u64 t0, cpu0;
	int cmd, go[2] = { -1, -1 }, status = 0, err = 1;
	pid_t child = -1;
	size_t i;

	cmd = parse_args(argc, argv);
	if (cmd < 0)
		return 2;

	if (!env.maps_only) {
		skel = ustack_check_bpf__open();
		if (!skel) {
			fprintf(stderr, "ustack_trace: open the BPF object: %s\n", strerror(errno));
			goto cleanup;
		}
		bpf_map__set_max_entries(skel->maps.captures, env.ringbuf);
		bpf_program__set_autoload(skel->progs.ustack_enter_btf, !env.raw_tp);
		bpf_program__set_autoload(skel->progs.ustack_exit_btf, !env.raw_tp);
		bpf_program__set_autoload(skel->progs.ustack_enter_raw, env.raw_tp);
		bpf_program__set_autoload(skel->progs.ustack_exit_raw, env.raw_tp);
		if (ustack_check_bpf__load(skel)) {
			fprintf(stderr, "ustack_trace: load the BPF programs: %s\n",
				strerror(errno));
			goto cleanup;
		}
		rb = ring_buffer__new(bpf_map__fd(skel->maps.captures), on_record, NULL, NULL);
		if (!rb)
			goto cleanup;
	}

	wopts.queue_slots = env.queue;
	wopts.symbols.no_name_cache = env.no_name_cache;
	wopts.payload_size = sizeof(struct payload);
	wopts.done = stack_done;
	wopts.ctx = env.out;
	if (!env.no_worker && ustack_worker_start(&worker, &wopts))
		goto cleanup;

	/* The child waits until it is the target, then runs the command. */
	if (pipe(go))
		goto cleanup;
	child = fork();
	if (child < 0)
		goto cleanup;
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(argv[cmd], argv + cmd);
		fprintf(stderr, "ustack_trace: %s: %s\n", argv[cmd], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	go[0] = -1;
	if (skel) {
		skel->bss->target_tgid = child;
		skel->bss->target_nr = env.nr;
		skel->bss->min_latency_ns = env.min_latency_ns;
		skel->data->copy_limit = env.limit;
		if (ustack_check_bpf__attach(skel)) {
			fprintf(stderr, "ustack_trace: attach: %s\n", strerror(errno));
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			goto cleanup;
		}
	}
	cpu0 = cpu_ns_of(RUSAGE_SELF);
	t0 = clock_ns(CLOCK_MONOTONIC);
	if (write(go[1], "g", 1) != 1)
		goto cleanup;
	close(go[1]);
	go[1] = -1;

	if (rb) {
		while (waitpid(child, &status, WNOHANG) == 0)
			ring_buffer__poll(rb, 20);
		ring_buffer__consume(rb);
	} else {
		waitpid(child, &status, 0);
	}
	cost.wall_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	/* The command and all it forked, reaped: the side-band records' kernel cost is there. */
	cost.command_cpu_ns = cpu_ns_of(RUSAGE_CHILDREN);
	for (i = 0; i < nr_held; i++)
		record_submit(held[i]);

	pthread_mutex_lock(&stall_lock);
	drained = true;
	pthread_cond_broadcast(&stall_cond);
	pthread_mutex_unlock(&stall_lock);

	ustack_worker_stop(worker, &st);
	worker = NULL;
	/* The worker's thread is joined: its CPU time is in RUSAGE_SELF. */
	cost.cpu_ns = cpu_ns_of(RUSAGE_SELF) - cpu0;
	qsort(submit_ns, nr_submits, sizeof(*submit_ns), u64_cmp);
	summary_print(env.out, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
		      skel, &st, &cost);
	err = 0;
cleanup:
	ustack_worker_stop(worker, NULL);
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	for (i = 0; i < nr_held; i++)
		free(held[i]);
	free(held);
	free(submit_ns);
	ring_buffer__free(rb);
	ustack_check_bpf__destroy(skel);
	if (env.out && env.out != stdout)
		fclose(env.out);
	return err;
}
