// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <time.h>
#include "duration.h"
#include "escape.h"
#include "json.h"
#include "outlier_line.h"

/* "-ENOENT" for errors, hex for addresses (mmap, brk), the decimal value otherwise. */
static const char *ret_format(int64_t ret, char *buf, size_t len)
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
 * One line per outlier, 96 columns (113 with a host): what a reader scans for
 * first (where, when, who, which call, how slow, how it ended) before what it
 * was compared with. A comm with escapes is shown whole: it may push the
 * columns right.
 */
#define TEXT_COLUMNS "%-12s %-15s %7s %7s %-16.16s %9s %-14s %9s"
#define HOST_COLUMN  "%-16.16s "

void outlier_line_header(FILE *f, bool host)
{
	if (host)
		fprintf(f, HOST_COLUMN, "HOST");
	fprintf(f, TEXT_COLUMNS "\n", "TIME", "COMM", "PID", "TID", "SYSCALL", "LATENCY", "RET",
		"THRESHOLD");
}

void outlier_line_text(FILE *f, const struct outlier_line *o)
{
	char lat[16], thr[16], ret[24], clock[24], pid[16], tid[16];
	char comm[TEXT_ESCAPED_SIZE(64)], host[TEXT_ESCAPED_SIZE(64)], name[TEXT_ESCAPED_SIZE(64)];
	time_t secs = o->entry_epoch_ns / 1000000000LL;
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	snprintf(clock + strlen(clock), sizeof(clock) - strlen(clock), ".%03lld",
		 (long long)(o->entry_epoch_ns % 1000000000LL) / 1000000);
	snprintf(pid, sizeof(pid), "%d", o->pid);
	snprintf(tid, sizeof(tid), "%d", o->tid);
	/* Any user names their threads, and a trace is anyone's file: nothing may drive the
	 * terminal. */
	text_escape(o->comm, o->comm_len < 64 ? o->comm_len : 64, comm, sizeof(comm));
	if (o->host)
		fprintf(f, HOST_COLUMN, text_escape(o->host, 64, host, sizeof(host)));
	fprintf(f, TEXT_COLUMNS "\n", clock, comm, pid, tid,
		text_escape(o->syscall, 64, name, sizeof(name)),
		duration_format(o->latency_ns, lat, sizeof(lat)),
		ret_format(o->ret, ret, sizeof(ret)),
		duration_format(o->threshold_ns, thr, sizeof(thr)));
}

void outlier_line_json(FILE *f, const struct outlier_line *o)
{
	int i;

	fprintf(f, "{\"ts_ns\":%llu,\"epoch_ns\":%lld,", (unsigned long long)o->entry_ns,
		(long long)o->entry_epoch_ns);
	if (o->host) {
		fprintf(f, "\"host\":");
		json_string(f, o->host);
		fprintf(f, ",");
	}
	fprintf(f, "\"syscall\":");
	json_string(f, o->syscall);
	fprintf(f, ",\"nr\":%u,\"pid\":%d,\"tid\":%d,\"comm\":", o->nr, o->pid, o->tid);
	json_string_n(f, o->comm, o->comm_len);
	fprintf(f, ",\"cpu\":%u,\"latency_ns\":%llu,\"threshold_ns\":%llu,\"ret\":%lld,\"args\":[",
		o->cpu, (unsigned long long)o->latency_ns, (unsigned long long)o->threshold_ns,
		(long long)o->ret);
	for (i = 0; i < OUTLIER_LINE_NR_ARGS; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)o->args[i]);
	fprintf(f, "],\"estimate_ns\":%llu,\"samples\":%llu}\n", (unsigned long long)o->estimate_ns,
		(unsigned long long)o->samples);
}
