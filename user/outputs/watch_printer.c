// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "watch_printer.h"
#include "trace_events.h"
#include "util/duration.h"
#include "util/json.h"
#include "util/syscall_names.h"

/* "-ENOENT" for errors, hex for addresses (mmap, brk), the decimal value otherwise. */
static const char *ret_format(__s64 ret, char *buf, size_t len)
{
	const char *name = ret < 0 && ret >= -4095 ? strerrorname_np((int)-ret) : NULL;

	if (name)
		snprintf(buf, len, "-%s", name);
	else if (ret > 0xffffffffLL)
		snprintf(buf, len, "0x%llx", (unsigned long long)ret);
	else
		snprintf(buf, len, "%lld", (long long)ret);
	return buf;
}

/*
 * One line per outlier, 96 columns: what a reader scans for first (when, who,
 * which call, how slow, how it ended) before what it was compared with.
 */
#define TEXT_COLUMNS "%-12s %-15.15s %7s %7s %-16.16s %9s %-14s %9s"

/* HH:MM:SS.mmm, local time. */
static const char *clock_format(__s64 epoch_ns, char *buf, size_t len)
{
	time_t secs = epoch_ns / 1000000000LL;
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), len - strlen(buf), ".%03lld",
		 (long long)(epoch_ns % 1000000000LL) / 1000000);
	return buf;
}

/* A reader on a pipe sees each line as it happens. */
static int stdout_flush(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "sclat: writing the outliers to standard output: %s\n",
			strerror(errno));
		return -EIO;
	}
	return 0;
}

static int watch_outlier(void *ctx, const struct sclat_event *e, __s64 entry_epoch_ns,
			 const struct threshold_basis *basis)
{
	struct watch_printer *w = ctx;
	char name[32], lat[16], thr[16], ret[24], clock[24], pid[16], tid[16];
	int i;

	if (w->fire_outlier_event)
		trace_events_outlier(NULL, e, entry_epoch_ns, basis);

	syscall_name_or_nr(e->nr, name, sizeof(name));
	if (w->json) {
		printf("{\"ts_ns\":%llu,\"epoch_ns\":%lld,\"syscall\":\"%s\",\"nr\":%u,"
		       "\"pid\":%u,\"tid\":%u,\"comm\":",
		       (unsigned long long)e->entry_ns, (long long)entry_epoch_ns, name, e->nr,
		       e->pid, e->tid);
		json_string_n(stdout, e->comm, sizeof(e->comm));
		printf(",\"cpu\":%u,\"latency_ns\":%llu,\"threshold_ns\":%llu,\"ret\":%lld,"
		       "\"args\":[",
		       e->cpu, (unsigned long long)e->latency_ns,
		       (unsigned long long)e->threshold_ns, (long long)e->ret);
		for (i = 0; i < SCLAT_NR_ARGS; i++)
			printf("%s%llu", i ? "," : "", (unsigned long long)e->args[i]);
		printf("],\"estimate_ns\":%llu,\"samples\":%llu}\n",
		       (unsigned long long)basis->estimate_ns, (unsigned long long)basis->samples);
	} else {
		if (!w->header_done) {
			printf(TEXT_COLUMNS "\n", "TIME", "COMM", "PID", "TID", "SYSCALL",
			       "LATENCY", "RET", "THRESHOLD");
			w->header_done = true;
		}
		clock_format(entry_epoch_ns, clock, sizeof(clock));
		snprintf(pid, sizeof(pid), "%u", e->pid);
		snprintf(tid, sizeof(tid), "%u", e->tid);
		printf(TEXT_COLUMNS "\n", clock, e->comm, pid, tid, name,
		       duration_format(e->latency_ns, lat, sizeof(lat)),
		       ret_format(e->ret, ret, sizeof(ret)),
		       duration_format(e->threshold_ns, thr, sizeof(thr)));
	}
	return stdout_flush();
}

/* After its outlier's line: when (its entry), which outlier, and where the snapshot is. */
static void watch_snapshot(void *ctx, const struct snapshot_taken *s, __s64 entry_epoch_ns)
{
	struct watch_printer *w = ctx;
	char name[32], lat[16], clock[24];

	syscall_name_or_nr(s->nr, name, sizeof(name));
	if (w->json) {
		printf("{\"snapshot\":{\"session\":");
		json_string(stdout, s->session);
		printf(",\"path\":");
		json_string(stdout, s->path);
		printf(",\"ts_ns\":%llu,\"epoch_ns\":%lld,\"syscall\":\"%s\",\"nr\":%u,"
		       "\"pid\":%d,\"tid\":%d,\"comm\":",
		       (unsigned long long)s->entry_ns, (long long)entry_epoch_ns, name, s->nr,
		       s->pid, s->tid);
		json_string(stdout, s->comm);
		printf(",\"latency_ns\":%llu}}\n", (unsigned long long)s->latency_ns);
	} else {
		printf("%-12s snapshot of %s for %s of tid %d (%s): %s\n",
		       clock_format(entry_epoch_ns, clock, sizeof(clock)), s->session, name, s->tid,
		       duration_format(s->latency_ns, lat, sizeof(lat)),
		       s->path[0] ? s->path : "FAILED (lttng-sessiond's log says why)");
	}
	stdout_flush();
}

static void watch_end(void *ctx, const struct controller_totals *totals,
		      const struct syscall_count *counts, unsigned int n)
{
	struct watch_printer *w = ctx;
	char name[32];
	unsigned int i;

	if (!w->summary)
		return;
	if (w->json) {
		printf("{\"summary\":{\"syscalls\":%llu,\"outliers\":%llu,\"drops\":%llu,"
		       "\"throttled\":%llu,\"per_syscall\":[",
		       (unsigned long long)totals->syscalls, (unsigned long long)totals->outliers,
		       (unsigned long long)totals->drops, (unsigned long long)totals->throttled);
		for (i = 0; i < n; i++)
			printf("%s{\"syscall\":\"%s\",\"nr\":%d,\"calls\":%llu,\"outliers\":%llu,"
			       "\"drops\":%llu,\"throttled\":%llu}",
			       i ? "," : "",
			       counts[i].nr < SCLAT_MAX_SYSCALLS
				       ? syscall_name_or_nr(counts[i].nr, name, sizeof(name))
				       : "other",
			       counts[i].nr < SCLAT_MAX_SYSCALLS ? (int)counts[i].nr : -1,
			       (unsigned long long)counts[i].calls,
			       (unsigned long long)counts[i].outliers,
			       (unsigned long long)counts[i].drops,
			       (unsigned long long)counts[i].throttled);
		printf("]}}\n");
		return;
	}
	printf("\n%-20s %12s %10s %8s %10s\n", "SYSCALL", "CALLS", "OUTLIERS", "DROPS",
	       "THROTTLED");
	for (i = 0; i < n; i++)
		printf("%-20s %12llu %10llu %8llu %10llu\n",
		       counts[i].nr < SCLAT_MAX_SYSCALLS
			       ? syscall_name_or_nr(counts[i].nr, name, sizeof(name))
			       : "(other)",
		       (unsigned long long)counts[i].calls, (unsigned long long)counts[i].outliers,
		       (unsigned long long)counts[i].drops,
		       (unsigned long long)counts[i].throttled);
}

void watch_printer_output(struct watch_printer *w, struct output *out)
{
	*out = (struct output){
		.outlier = watch_outlier,
		.end = watch_end,
		.snapshot = watch_snapshot,
		.ctx = w,
	};
}
