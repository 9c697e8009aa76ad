// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "watch_printer.h"
#include "controller/inflight.h"
#include "controller/surprise.h"
#include "util/compiler.h"
#include "util/duration.h"
#include "util/escape.h"
#include "util/json.h"
#include "util/outlier_line.h"
#include "util/syscall_names.h"
#include "util/log.h"

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
		log_err("writing the outliers to standard output: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

void watch_line_of(struct outlier_line *line, const struct sclat_event *e, __s64 entry_epoch_ns,
		   const struct explanation *x, struct outlier_why *why, char *stack,
		   size_t stack_len, char *name, size_t name_len)
{
	*line = (struct outlier_line){
		.entry_ns = e->entry_ns,
		.entry_epoch_ns = entry_epoch_ns,
		.syscall = syscall_name_or_nr(e->nr, name, name_len),
		.nr = e->nr,
		.comm = e->comm,
		.comm_len = sizeof(e->comm),
		.title = x->title,
		.pid = (int32_t)e->pid,
		.tid = (int32_t)e->tid,
		.cpu = e->cpu,
		.latency_ns = e->latency_ns,
		.threshold_ns = e->threshold_ns,
		.ret = e->ret,
		.why = why,
		.inflight_reports = x->inflight_reports,
	};
	_Static_assert(sizeof(line->args) == sizeof(e->args), "six 64-bit arguments");
	memcpy(line->args, e->args, sizeof(line->args));
	explanation_why(x, why, stack, stack_len);
}

/* Text lines start with a header, once. */
static int line_print(struct watch_printer *w, const struct outlier_line *line)
{
	if (w->json) {
		outlier_line_json(stdout, line);
	} else {
		if (!w->header_done) {
			outlier_line_header(stdout, false);
			w->header_done = true;
		}
		outlier_line_text(stdout, line);
	}
	return stdout_flush();
}

static int watch_outlier(void *ctx, const struct sclat_event *e, __s64 entry_epoch_ns,
			 const struct threshold_basis *basis, const struct explanation *x)
{
	struct watch_printer *w = ctx;
	char name[32], stack[EXPLAIN_WHY_TEXT_LEN];
	struct outlier_why why;
	struct outlier_line line;
	struct surprise sp;

	surprise_judge_call(basis, e->judged_ns, e->latency_ns, &sp);
	if (w->min_surprise_set && (!sp.known || sp.score < w->min_surprise)) {
		w->hidden++;
		return 0;
	}
	watch_line_of(&line, e, entry_epoch_ns, x, &why, stack, sizeof(stack), name, sizeof(name));
	line.estimate_ns = basis->estimate_ns;
	line.samples = basis->samples;
	line.class_name = basis->class_name;
	line.storage_stall = basis->storage_stall;
	line.judged = true;
	line.surprise = sp.known ? sp.score : -1;
	line.surprise_at_least = sp.at_least;
	line.normal_ns = sp.normal_ns;
	line.impact_ns = sp.impact_ns;
	return line_print(w, &line);
}

/* A line marked IN FLIGHT: its latency is its time in flight so far. */
static int watch_inflight(void *ctx, const struct sclat_inflight *r, __s64 entry_epoch_ns,
			  __u32 reports, bool final __always_unused, const struct explanation *x)
{
	char name[32], stack[EXPLAIN_WHY_TEXT_LEN];
	struct outlier_why why;
	struct outlier_line line;

	watch_line_of(&line, &r->e, entry_epoch_ns, x, &why, stack, sizeof(stack), name,
		      sizeof(name));
	line.inflight_state = inflight_state_name(r->state);
	line.inflight_reports = reports;
	return line_print(ctx, &line);
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

static int watch_end(void *ctx, const struct controller_totals *totals,
		     const struct syscall_count *counts, unsigned int n)
{
	struct watch_printer *w = ctx;
	char name[32];
	unsigned int i;

	if (w->min_surprise_set)
		log_note("%llu outliers less surprising than --min-surprise %g (or not known) not "
			 "printed; the counts have them",
			 (unsigned long long)w->hidden, w->min_surprise);
	if (!w->summary)
		return 0;
	if (w->json) {
		printf("{\"summary\":{\"syscalls\":%llu,\"outliers\":%llu,\"drops\":%llu,"
		       "\"throttled\":%llu,\"kernel_stacks_skipped\":%llu,\"wakers_lost\":%llu,"
		       "\"backs_unseen\":%llu,"
		       "\"class_ids_refused\":%llu,\"class_requests_lost\":%llu,"
		       "\"children_not_followed\":%llu,\"braked\":%llu,\"per_syscall\":[",
		       (unsigned long long)totals->syscalls, (unsigned long long)totals->outliers,
		       (unsigned long long)totals->drops, (unsigned long long)totals->throttled,
		       (unsigned long long)totals->kernel_stacks_skipped,
		       (unsigned long long)totals->wakers_lost,
		       (unsigned long long)totals->backs_unseen,
		       (unsigned long long)totals->class_ids_refused,
		       (unsigned long long)totals->class_requests_lost,
		       (unsigned long long)totals->children_not_followed,
		       (unsigned long long)totals->braked);
		for (i = 0; i < n; i++)
			printf("%s{\"syscall\":\"%s\",\"nr\":%d,\"calls\":%llu,\"outliers\":%llu,"
			       "\"drops\":%llu,\"throttled\":%llu,\"braked\":%llu}",
			       i ? "," : "",
			       syscall_label(counts[i].nr, "other", name, sizeof(name)),
			       counts[i].nr < SCLAT_MAX_SYSCALLS ? (int)counts[i].nr : -1,
			       (unsigned long long)counts[i].calls,
			       (unsigned long long)counts[i].outliers,
			       (unsigned long long)counts[i].drops,
			       (unsigned long long)counts[i].throttled,
			       (unsigned long long)counts[i].braked);
		printf("]}}\n");
		return stdout_flush();
	}
	printf("\n%-20s %12s %10s %8s %10s\n", "SYSCALL", "CALLS", "OUTLIERS", "DROPS",
	       "THROTTLED");
	for (i = 0; i < n; i++)
		printf("%-20s %12llu %10llu %8llu %10llu\n",
		       syscall_label(counts[i].nr, "(other)", name, sizeof(name)),
		       (unsigned long long)counts[i].calls, (unsigned long long)counts[i].outliers,
		       (unsigned long long)counts[i].drops,
		       (unsigned long long)counts[i].throttled);
	return stdout_flush();
}

void watch_printer_sink(struct watch_printer *w, struct sink *s)
{
	*s = (struct sink){
		.outlier = watch_outlier,
		.inflight = watch_inflight,
		.end = watch_end,
		.snapshot = watch_snapshot,
		.ctx = w,
	};
}
