// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <time.h>
#include "duration.h"
#include "escape.h"
#include "json.h"
#include "outlier_line.h"
#include "proc_title.h"

/* "ENOENT" for an error, NULL for a call that did not fail. */
static const char *errno_name(int64_t ret)
{
	return ret < 0 && ret >= -4095 ? strerrorname_np((int)-ret) : NULL;
}

/* "-ENOENT" for errors, hex for addresses (mmap, brk), the decimal value otherwise. */
static const char *ret_format(int64_t ret, char *buf, size_t len)
{
	const char *name = errno_name(ret);

	if (name)
		snprintf(buf, len, "-%s", name);
	else if (ret > 0xffffffffLL)
		snprintf(buf, len, "0x%llx", (unsigned long long)ret);
	else
		snprintf(buf, len, "%lld", (long long)ret);
	return buf;
}

/*
 * One line per outlier, 115 columns (132 with a host): what a reader scans for
 * first (where, when, who, which call, how slow, how it ended) before what it
 * was compared with. A comm with escapes is shown whole: it may push the
 * columns right.
 */
#define TEXT_COLUMNS "%-12s %-15s %7s %7s %-16.16s %9s %-14s %9s %8s %9s"
#define HOST_COLUMN  "%-16.16s "

void outlier_line_header(FILE *f, bool host)
{
	if (host)
		fprintf(f, HOST_COLUMN, "HOST");
	fprintf(f, TEXT_COLUMNS " %s\n", "TIME", "COMM", "PID", "TID", "SYSCALL", "LATENCY", "RET",
		"THRESHOLD", "SURPRISE", "IMPACT", "WHY");
}

const char *outlier_surprise_format(bool judged, double surprise, bool at_least, char *buf,
				    size_t len)
{
	if (!judged || !(surprise >= 0))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s%.1f", at_least ? ">=" : "", surprise);
	return buf;
}

const char *outlier_why_main_part(const struct outlier_why *w, uint64_t *ns)
{
	const char *name = "cpu";
	uint64_t away = w->irq_ns + w->steal_ns;

	*ns = w->on_cpu_ns - (away < w->on_cpu_ns ? away : w->on_cpu_ns);
	if (w->irq_ns > *ns) {
		*ns = w->irq_ns;
		name = "irq";
	}
	if (w->steal_ns > *ns) {
		*ns = w->steal_ns;
		name = "steal";
	}
	if (w->runqueue_ns > *ns) {
		*ns = w->runqueue_ns;
		name = "runq";
	}
	if (w->sleep_ns > *ns) {
		*ns = w->sleep_ns;
		name = "sleep";
	}
	if (w->io_wait_ns > *ns) {
		*ns = w->io_wait_ns;
		name = "io";
	}
	return name;
}

/* The scheduler's own frames, above the function that chose to wait. */
static const char *const sched_frames[] = {
	"__schedule",
	"schedule",
	"io_schedule",
	"preempt_schedule",
	"__cond_resched",
	"__wait_for_common",
	"do_wait_for_common",
	"wait_for_completion",
	"wait_woken",
	"bit_wait",
	"__wait_on_bit",
	"out_of_line_wait_on_bit",
	NULL,
};

static bool is_sched_frame(const char *frame, size_t len)
{
	const char *const *s;
	size_t n;

	for (s = sched_frames; *s; s++) {
		n = strlen(*s);
		/* The name itself or one built on it (schedule_timeout, io_schedule_timeout). */
		if (n < len && !strncmp(frame, *s, n) && (frame[n] == '+' || frame[n] == '_'))
			return true;
	}
	return false;
}

const char *outlier_why_wait_frame(const struct outlier_why *w, size_t *len)
{
	const char *p = w->kernel_stack;
	size_t n;

	while (p && *p) {
		n = strcspn(p, ";");
		if (n && !is_sched_frame(p, n)) {
			*len = n;
			return p;
		}
		p += n + (p[n] == ';');
	}
	return NULL;
}

/* The binary a user frame is in: "fn+0xoff (bin) file:line", or "bin+0xoff"; NULL unmapped. */
static const char *frame_binary(const char *frame, size_t len, size_t *bin_len)
{
	const char *open = memchr(frame, '(', len), *close, *plus;

	if (open) {
		close = memchr(open, ')', len - (open - frame));
		if (!close)
			return NULL;
		*bin_len = close - open - 1;
		return open + 1;
	}
	plus = memchr(frame, '+', len);
	if (!plus || plus == frame)
		return NULL;
	*bin_len = plus - frame;
	return frame;
}

/* glibc's own objects: the syscall wrappers and what calls them on the program's behalf. */
static bool is_libc_binary(const char *bin, size_t len)
{
	static const char *const libc[] = { "libc.so", "libc-", "ld-linux", "libpthread", NULL };
	const char *const *l;

	for (l = libc; *l; l++)
		if (len >= strlen(*l) && !strncmp(bin, *l, strlen(*l)))
			return true;
	return false;
}

const char *outlier_why_caller_frame(const struct outlier_why *w, size_t *len)
{
	const char *p = w->user_stack, *bin;
	size_t n, bin_len;

	while (p && *p) {
		n = strcspn(p, ";");
		bin = frame_binary(p, n, &bin_len);
		if (bin && !is_libc_binary(bin, bin_len)) {
			*len = n;
			return p;
		}
		p += n + (p[n] == ';');
	}
	return NULL;
}

/*
 * The why column: the largest part of the latency, where the task waited in
 * the kernel, the call and its target, who woke it, and the program's code that made
 * the call: "sleep 20.1ms pipe_read <- read(pipe:[38211]) woken by writer
 * 4243 <- slow_read (app)". Escaped: a target is a path anyone may name.
 */
static void why_text(FILE *f, const struct outlier_why *w, const char *syscall, const char *state)
{
	char dur[16], frame[TEXT_ESCAPED_SIZE(128)], target[TEXT_ESCAPED_SIZE(1024)];
	char comm[TEXT_ESCAPED_SIZE(64)];
	const char *part, *fr;
	size_t len = 0;
	uint64_t ns;

	if (state) {
		fprintf(f, " %s", state);
	} else {
		part = outlier_why_main_part(w, &ns);
		fprintf(f, " %s %s", part, duration_format(ns, dur, sizeof(dur)));
	}
	fr = outlier_why_wait_frame(w, &len);
	/* The function, without its offset. */
	if (fr) {
		len = strcspn(fr, "+ ;") < len ? strcspn(fr, "+ ;") : len;
		fprintf(f, " %s", text_escape(fr, len < 128 ? len : 128, frame, sizeof(frame)));
	}
	fprintf(f, " <- %s(%s)", syscall,
		w->target ? text_escape(w->target, 1024, target, sizeof(target)) : "");
	if (w->has_waker)
		fprintf(f, " woken by %s",
			text_escape(w->waker_comm ? w->waker_comm : "", 64, comm, sizeof(comm)));
	if (w->has_waker && w->waker_tid)
		fprintf(f, " %d", w->waker_tid);
	fr = outlier_why_caller_frame(w, &len);
	if (fr) {
		/* "fn (bin)" without the offset and source line; "bin+0xoff" as it is. */
		size_t fn = strcspn(fr, "+");
		const char *bin = memchr(fr, '(', len);
		size_t bin_len = bin ? strcspn(bin, ")") + 1 : 0;

		if (bin)
			fprintf(f, " <- %s %s",
				text_escape(fr, fn < 128 ? fn : 128, frame, sizeof(frame)),
				text_escape(bin, bin_len < 64 ? bin_len : 64, comm, sizeof(comm)));
		else
			fprintf(f, " <- %s",
				text_escape(fr, len < 128 ? len : 128, frame, sizeof(frame)));
	}
}

void outlier_why_text(FILE *f, const struct outlier_why *w, const char *syscall)
{
	why_text(f, w, syscall, NULL);
}

void outlier_line_text(FILE *f, const struct outlier_line *o)
{
	char lat[16], thr[16], ret[24], clock[24], pid[16], tid[16], sur[16], imp[16];
	char comm[TEXT_ESCAPED_SIZE(64)], host[TEXT_ESCAPED_SIZE(64)], name[TEXT_ESCAPED_SIZE(64)];
	char cls[TEXT_ESCAPED_SIZE(64)];
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
	fprintf(f, TEXT_COLUMNS, clock, comm, pid, tid,
		text_escape(o->syscall, 64, name, sizeof(name)),
		duration_format(o->latency_ns, lat, sizeof(lat)),
		o->inflight_state ? "IN FLIGHT" : ret_format(o->ret, ret, sizeof(ret)),
		o->threshold_ns == UINT64_MAX ? "off"
					      : duration_format(o->threshold_ns, thr, sizeof(thr)),
		outlier_surprise_format(o->judged, o->surprise, o->surprise_at_least, sur,
					sizeof(sur)),
		o->judged ? duration_format(o->impact_ns, imp, sizeof(imp)) : "-");
	if (o->why)
		why_text(f, o->why, name, o->inflight_state);
	else
		fprintf(f, " -");
	if (o->inflight_reports && !o->inflight_state)
		fprintf(f, " (reported in flight %u time%s)", o->inflight_reports,
			o->inflight_reports > 1 ? "s" : "");
	if (o->class_name && *o->class_name)
		fprintf(f, " [%s]", text_escape(o->class_name, 64, cls, sizeof(cls)));
	if (o->storage_stall)
		fprintf(f, " (waited for storage, which its calls seldom do)");
	/* A command line is long and says little; a title a server set says what it is. */
	if (proc_title_is_set(o->title))
		fprintf(f, " title \"%s\"", text_escape(o->title, 64, cls, sizeof(cls)));
	fprintf(f, "\n");
}

/* A stack's ';'-separated frames as a JSON array. */
static void stack_json(FILE *f, const char *p)
{
	bool first = true;
	size_t n;

	fprintf(f, "[");
	while (p && *p) {
		n = strcspn(p, ";");
		if (n) {
			fprintf(f, "%s", first ? "" : ",");
			json_string_n(f, p, n);
			first = false;
		}
		p += n + (p[n] == ';');
	}
	fprintf(f, "]");
}

const char *outlier_off_cpu_kind_name(uint32_t kind)
{
	switch (kind) {
	case OUTLIER_OFF_CPU_RUNQUEUE:
		return "runqueue";
	case OUTLIER_OFF_CPU_SLEEP:
		return "sleep";
	case OUTLIER_OFF_CPU_IO:
		return "io";
	}
	return NULL;
}

/* The stretches off the CPU as a JSON array of objects, times in ns after the entry. */
static void off_cpu_json(FILE *f, const struct outlier_why *w)
{
	const struct outlier_off_cpu *s;
	const char *kind;
	uint32_t i;

	fprintf(f, ",\"off_cpu\":");
	if (!w->off_cpu) {
		fprintf(f, "null,\"off_cpu_unlisted\":null");
		return;
	}
	fprintf(f, "[");
	for (i = 0; i < w->off_cpu_listed; i++) {
		s = &w->off_cpu[i];
		kind = outlier_off_cpu_kind_name(s->kind);
		fprintf(f, "%s{\"cpu\":%u,\"kind\":", i ? "," : "", s->cpu);
		if (kind)
			fprintf(f, "\"%s\"", kind);
		else
			fprintf(f, "null");
		fprintf(f, ",\"out_ns\":%llu,\"wake_ns\":", (unsigned long long)s->out_ns);
		if (s->woken)
			fprintf(f, "%llu", (unsigned long long)s->wake_ns);
		else
			fprintf(f, "null");
		fprintf(f, ",\"in_ns\":%llu,\"in_cpu\":%u,\"by_waker\":%s}",
			(unsigned long long)s->in_ns, s->in_cpu,
			(int32_t)i == w->off_cpu_waker ? "true" : "false");
	}
	fprintf(f, "],\"off_cpu_unlisted\":%u", w->off_cpu_unlisted);
}

void outlier_why_json(FILE *f, const struct outlier_why *w)
{
	fprintf(f,
		",\"breakdown\":{\"on_cpu_ns\":%llu,\"runqueue_ns\":%llu,\"sleep_ns\":%llu,"
		"\"io_wait_ns\":%llu,\"irq_ns\":%llu,\"steal_ns\":%llu,\"waker_runqueue_ns\":%llu},"
		"\"switches\":%u,\"waker\":",
		(unsigned long long)w->on_cpu_ns, (unsigned long long)w->runqueue_ns,
		(unsigned long long)w->sleep_ns, (unsigned long long)w->io_wait_ns,
		(unsigned long long)w->irq_ns, (unsigned long long)w->steal_ns,
		(unsigned long long)w->waker_runqueue_ns, w->switches);
	if (w->has_waker) {
		fprintf(f, "{\"pid\":%d,\"tid\":%d,\"comm\":", w->waker_pid, w->waker_tid);
		json_string(f, w->waker_comm ? w->waker_comm : "");
		fprintf(f, "}");
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\"target\":");
	if (w->target)
		json_string(f, w->target);
	else
		fprintf(f, "null");
	fprintf(f, ",\"kernel_stack\":");
	stack_json(f, w->kernel_stack);
	fprintf(f, ",\"user_stack\":");
	stack_json(f, w->user_stack);
	fprintf(f, ",\"user_stack_dropped\":%s", w->user_stack_dropped ? "true" : "false");
	if (outlier_ustack_missing_name(w->user_stack_missing))
		fprintf(f, ",\"user_stack_missing\":\"%s\"",
			outlier_ustack_missing_name(w->user_stack_missing));
	off_cpu_json(f, w);
}

void outlier_judgement_json(FILE *f, bool judged, double surprise, bool at_least,
			    uint64_t normal_ns, uint64_t impact_ns)
{
	bool known = judged && surprise >= 0;

	fprintf(f, ",\"surprise\":");
	if (known)
		fprintf(f, "%.3f,\"surprise_at_least\":%s", surprise, at_least ? "true" : "false");
	else
		fprintf(f, "null,\"surprise_at_least\":false");
	fprintf(f, ",\"normal_ns\":");
	if (known)
		fprintf(f, "%llu", (unsigned long long)normal_ns);
	else
		fprintf(f, "null");
	fprintf(f, ",\"impact_ns\":");
	if (judged)
		fprintf(f, "%llu", (unsigned long long)impact_ns);
	else
		fprintf(f, "null");
}

const char *outlier_ustack_missing_name(unsigned int why)
{
	static const char *const names[OUTLIER_USTACK_WHYS] = {
		[OUTLIER_USTACK_BUDGET] = "budget",
		[OUTLIER_USTACK_RING] = "ring buffer",
		[OUTLIER_USTACK_QUEUE] = "unwinder queue",
		[OUTLIER_USTACK_NO_USER] = "no user context",
		[OUTLIER_USTACK_UNREADABLE] = "unreadable",
	};

	return why < OUTLIER_USTACK_WHYS ? names[why] : NULL;
}

void outlier_line_json_open(FILE *f, const struct outlier_line *o)
{
	const char *err;
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
	fprintf(f, ",\"title\":");
	json_string(f, o->title ? o->title : "");
	if (o->inflight_state) {
		fprintf(f, ",\"inflight\":true,\"state\":\"%s\",\"inflight_ns\":%llu,\"report\":%u",
			o->inflight_state, (unsigned long long)o->latency_ns, o->inflight_reports);
		fprintf(f, ",\"cpu\":%u,\"threshold_ns\":", o->cpu);
		/* A syscall that is off has no threshold. */
		if (o->threshold_ns == UINT64_MAX)
			fprintf(f, "null,\"args\":[");
		else
			fprintf(f, "%llu,\"args\":[", (unsigned long long)o->threshold_ns);
	} else {
		fprintf(f, ",\"cpu\":%u,\"latency_ns\":%llu,\"threshold_ns\":%llu,\"ret\":%lld,",
			o->cpu, (unsigned long long)o->latency_ns,
			(unsigned long long)o->threshold_ns, (long long)o->ret);
		err = errno_name(o->ret);
		fprintf(f, "\"errno\":");
		if (err)
			json_string(f, err);
		else
			fprintf(f, "null");
		fprintf(f, ",\"inflight_reports\":%u,\"args\":[", o->inflight_reports);
	}
	for (i = 0; i < OUTLIER_LINE_NR_ARGS; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)o->args[i]);
	fprintf(f, "],\"estimate_ns\":%llu,\"samples\":%llu,\"class\":",
		(unsigned long long)o->estimate_ns, (unsigned long long)o->samples);
	json_string(f, o->class_name ? o->class_name : "");
	fprintf(f, ",\"storage_stall\":%s", o->storage_stall ? "true" : "false");
	outlier_judgement_json(f, o->judged, o->surprise, o->surprise_at_least, o->normal_ns,
			       o->impact_ns);
	if (o->why)
		outlier_why_json(f, o->why);
}

void outlier_line_json(FILE *f, const struct outlier_line *o)
{
	outlier_line_json_open(f, o);
	fprintf(f, "}\n");
}
