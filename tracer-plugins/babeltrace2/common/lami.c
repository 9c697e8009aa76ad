// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "util/json.h"
#include "lami.h"

struct lami_column {
	const char *title;
	const char *class;
	const char *unit;
};

struct lami_table {
	const char *name;
	const char *title;
	const struct lami_column *columns;
};

static const struct lami_column syscall_columns[] = {
	{ "System call", "syscall", NULL },
	{ "Outliers", "number", "outliers" },
	{ "Minimum latency", "duration", NULL },
	{ "Median latency", "duration", NULL },
	{ "90th percentile", "duration", NULL },
	{ "99th percentile", "duration", NULL },
	{ "Maximum latency", "duration", NULL },
	{ "Mean latency", "duration", NULL },
	{ "Most frequent return value", "number", NULL },
	/* Of the explained outliers' latency (trace version 3 on), else unknown. */
	{ "Share on CPU", "ratio", NULL },
	{ "Share on the runqueue", "ratio", NULL },
	{ "Share asleep", "ratio", NULL },
	{ "Share in I/O wait", "ratio", NULL },
	{},
};

static const struct lami_column outlier_columns[] = {
	{ "Time range", "time-range", NULL },
	{ "System call", "syscall", NULL },
	{ "Process", "process", NULL },
	{ "Latency", "duration", NULL },
	{ "Return value", "number", NULL },
	{ "Threshold", "duration", NULL },
	{ "CPU", "cpu", NULL },
	/* What explains it (trace version 3 on), else unknown. */
	{ "Target", "string", NULL },
	{ "On CPU", "duration", NULL },
	{ "On the runqueue", "duration", NULL },
	{ "Asleep", "duration", NULL },
	{ "In I/O wait", "duration", NULL },
	{},
};

static const struct lami_column threshold_columns[] = {
	{ "Time", "timestamp", NULL },
	{ "System call", "syscall", NULL },
	{ "Previous threshold", "duration", NULL },
	{ "New threshold", "duration", NULL },
	{},
};

static const struct lami_column loss_columns[] = {
	{ "Dropped in the kernel", "number", "outliers" },
	{ "Throttled", "number", "outliers" },
	{ "Discarded by LTTng (at least)", "number", "events" },
	{ "Trace", "string", NULL },
	{},
};

/* What the runs could not do (sclat:session_end, trace version 8 on): no outlier lost. */
static const struct lami_column undone_columns[] = {
	{ "Kernel stacks skipped", "number", "outliers" },
	{ "Wakers lost", "number", "outliers" },
	{ "Class ids refused", "number", "classes" },
	{ "Class requests lost", "number", "requests" },
	{ "Children not followed", "number", "processes" },
	{},
};

enum { TABLE_SYSCALLS, TABLE_OUTLIERS, TABLE_THRESHOLDS, TABLE_LOSS, TABLE_UNDONE, NR_TABLES };

static const struct lami_table tables[NR_TABLES] = {
	[TABLE_SYSCALLS] = { "syscall-latency", "Outlier latency statistics per system call",
			     syscall_columns },
	[TABLE_OUTLIERS] = { "top-outliers", "Slowest system calls", outlier_columns },
	[TABLE_THRESHOLDS] = { "thresholds", "Threshold changes", threshold_columns },
	[TABLE_LOSS] = { "lost-outliers", "Outliers lost before the trace", loss_columns },
	[TABLE_UNDONE] = { "not-done", "Not explained, classed or followed", undone_columns },
};

void lami_metadata(FILE *f)
{
	const struct lami_column *c;
	unsigned int t;

	fprintf(f, "{\"mi-version\":{\"major\":1,\"minor\":0},"
		   "\"version\":{\"major\":0,\"minor\":1,\"patch\":0},"
		   "\"title\":\"sclat syscall latency outliers\","
		   "\"authors\":[\"sclat authors\"],"
		   "\"description\":\"Latency statistics, slowest calls, threshold changes and "
		   "losses of a trace recorded by sclat record\","
		   "\"tags\":[\"syscall\",\"latency\",\"sclat\"],"
		   "\"table-classes\":{");
	for (t = 0; t < NR_TABLES; t++) {
		fprintf(f, "%s\"%s\":{\"title\":\"%s\",\"column-descriptions\":[", t ? "," : "",
			tables[t].name, tables[t].title);
		for (c = tables[t].columns; c->title; c++) {
			fprintf(f, "%s{\"title\":\"%s\",\"class\":\"%s\"",
				c == tables[t].columns ? "" : ",", c->title, c->class);
			if (c->unit)
				fprintf(f, ",\"unit\":\"%s\"", c->unit);
			fprintf(f, "}");
		}
		fprintf(f, "]}");
	}
	fprintf(f, "}}\n");
}

static void lami_syscall(FILE *f, const char *name)
{
	fprintf(f, "{\"class\":\"syscall\",\"name\":");
	json_string(f, name);
	fprintf(f, "}");
}

static void lami_duration(FILE *f, uint64_t ns)
{
	fprintf(f, "{\"class\":\"duration\",\"value\":%" PRIu64 "}", ns);
}

/* LAMI 1.0 has no bare values: a count or a return value is a number object. */
static void lami_number(FILE *f, int64_t v)
{
	fprintf(f, "{\"class\":\"number\",\"value\":%" PRId64 "}", v);
}

/* What the trace does not say: an outlier it does not explain. */
static void lami_unknown(FILE *f)
{
	fprintf(f, "{\"class\":\"unknown\"}");
}

static void lami_count_or_unknown(FILE *f, uint64_t v, bool known)
{
	if (known)
		lami_number(f, (int64_t)v);
	else
		lami_unknown(f);
}

/* A group's shares of explained latency, one cell per part. */
static void lami_shares(FILE *f, const struct agg_group *g)
{
	unsigned int p;

	for (p = 0; p < AGG_NR_TIME_PARTS; p++) {
		fprintf(f, ",");
		if (g->explained)
			fprintf(f, "{\"class\":\"ratio\",\"value\":%.6f}", agg_time_share(g, p));
		else
			lami_unknown(f);
	}
}

/* An outlier's target and where its time went, one cell each. */
static void lami_why(FILE *f, const struct outlier_explanation *x)
{
	const uint64_t parts[] = { x->on_cpu_ns, x->runqueue_ns, x->sleep_ns, x->io_wait_ns };
	unsigned int p;

	fprintf(f, ",");
	if (x->present) {
		fprintf(f, "{\"class\":\"string\",\"value\":");
		json_string(f, x->target && *x->target ? x->target : GROUP_NONE);
		fprintf(f, "}");
	} else {
		lami_unknown(f);
	}
	for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
		fprintf(f, ",");
		if (x->present)
			lami_duration(f, parts[p]);
		else
			lami_unknown(f);
	}
}

static void lami_timestamp(FILE *f, int64_t ns)
{
	fprintf(f, "{\"class\":\"timestamp\",\"value\":%" PRId64 "}", ns);
}

/* Its ends are timestamp objects in LAMI 1.0 (plain integers before). */
static void lami_time_range(FILE *f, int64_t begin, int64_t end)
{
	fprintf(f, "{\"class\":\"time-range\",\"begin\":");
	lami_timestamp(f, begin);
	fprintf(f, ",\"end\":");
	lami_timestamp(f, end);
	fprintf(f, "}");
}

/* "complete", "incomplete: WHY; WHY", or "unknown (...)" for a trace of version 1. */
static void lami_completeness(FILE *f, const struct agg *a)
{
	char text[AGG_MAX_WARNINGS * (AGG_WARNING_LEN + 2) + 16] = "incomplete: ";
	size_t len = strlen(text);
	unsigned int i;

	if (a->complete == AGG_COMPLETE)
		snprintf(text, sizeof(text), "complete");
	else if (a->complete == AGG_UNKNOWN)
		snprintf(text, sizeof(text), "unknown (version 1: no end-of-run accounting)");
	for (i = 0; a->complete == AGG_INCOMPLETE && i < a->nr_warnings; i++)
		len += snprintf(text + len, sizeof(text) - len, "%s%s", i ? "; " : "",
				a->warnings[i]);
	fprintf(f, "{\"class\":\"string\",\"value\":");
	json_string(f, text);
	fprintf(f, "}");
}

static void table_begin(FILE *f, unsigned int t, int64_t begin, int64_t end, bool *first)
{
	fprintf(f, "%s\n{\"time-range\":", *first ? "" : ",");
	lami_time_range(f, begin, end);
	fprintf(f, ",\"class\":\"%s\",\"data\":[", tables[t].name);
	*first = false;
}

/* One row per group of the aggregation by syscall. */
static void rows_syscalls(FILE *f, const struct agg *a, uint64_t limit)
{
	uint64_t i;

	for (i = 0; i < a->nr_groups && i < limit; i++) {
		const struct agg_group *g = &a->groups[i];

		fprintf(f, "%s[", i ? "," : "");
		lami_syscall(f, g->syscall);
		fprintf(f, ",");
		lami_number(f, (int64_t)g->count);
		fprintf(f, ",");
		lami_duration(f, g->min_ns);
		fprintf(f, ",");
		lami_duration(f, g->p50_ns);
		fprintf(f, ",");
		lami_duration(f, g->p90_ns);
		fprintf(f, ",");
		lami_duration(f, g->p99_ns);
		fprintf(f, ",");
		lami_duration(f, g->max_ns);
		fprintf(f, ",");
		lami_duration(f, g->mean_ns);
		fprintf(f, ",");
		lami_number(f, g->top_ret);
		lami_shares(f, g);
		fprintf(f, "]");
	}
}

/* One row per slowest outlier, slowest first. */
static void rows_outliers(FILE *f, const struct agg *a, uint64_t limit)
{
	uint64_t i;

	for (i = 0; i < a->nr_top && i < limit; i++) {
		const struct outlier *o = &a->top[i];

		fprintf(f, "%s[", i ? "," : "");
		lami_time_range(f, o->entry_epoch_ns, o->entry_epoch_ns + (int64_t)o->latency_ns);
		fprintf(f, ",");
		lami_syscall(f, o->syscall);
		fprintf(f, ",{\"class\":\"process\",\"name\":");
		json_string(f, o->comm);
		fprintf(f, ",\"pid\":%d,\"tid\":%d},", o->pid, o->tid);
		lami_duration(f, o->latency_ns);
		fprintf(f, ",");
		lami_number(f, o->ret);
		fprintf(f, ",");
		lami_duration(f, o->threshold_ns);
		fprintf(f, ",{\"class\":\"cpu\",\"id\":%u}", o->cpu);
		lami_why(f, &o->why);
		fprintf(f, "]");
	}
}

/* One row per threshold change, in trace order. */
static void rows_thresholds(FILE *f, const struct agg *a, uint64_t limit)
{
	uint64_t i;

	for (i = 0; i < a->nr_changes && i < limit; i++) {
		const struct threshold_change *c = &a->changes[i];

		fprintf(f, "%s[", i ? "," : "");
		lami_timestamp(f, c->epoch_ns);
		fprintf(f, ",");
		lami_syscall(f, c->syscall);
		fprintf(f, ",");
		lami_duration(f, c->old_ns);
		fprintf(f, ",");
		lami_duration(f, c->new_ns);
		fprintf(f, "]");
	}
}

/* The one row of the losses: what was dropped, throttled, discarded; whether it is whole. */
static void row_loss(FILE *f, const struct agg *a)
{
	const struct agg_loss *l = &a->loss;

	fprintf(f, "[");
	lami_number(f, (int64_t)l->drops);
	fprintf(f, ",");
	lami_number(f, (int64_t)l->throttled);
	fprintf(f, ",");
	lami_number(f, (int64_t)l->discarded);
	fprintf(f, ",");
	lami_completeness(f, a);
	fprintf(f, "]");
}

/* The one row of what the runs could not do; unknown before trace version 8. */
static void row_undone(FILE *f, const struct agg *a)
{
	bool known = agg_undone_known(a);

	fprintf(f, "[");
	lami_count_or_unknown(f, a->ended.kernel_stacks_skipped, known);
	fprintf(f, ",");
	lami_count_or_unknown(f, a->ended.wakers_lost, known);
	fprintf(f, ",");
	lami_count_or_unknown(f, a->ended.class_ids_refused, known);
	fprintf(f, ",");
	lami_count_or_unknown(f, a->ended.class_requests_lost, known);
	fprintf(f, ",");
	lami_count_or_unknown(f, a->ended.children_not_followed, known);
	fprintf(f, "]");
}

void lami_results(FILE *f, const struct agg *a, int64_t begin, int64_t end, uint64_t limit)
{
	bool first = true;

	if (begin == INT64_MIN)
		begin = a->matched ? a->first_epoch_ns : 0;
	if (end == INT64_MAX)
		end = a->matched ? a->last_exit_epoch_ns : begin;
	fprintf(f, "{\"results\":[");
	/* LAMI wants at least one row per table: empty ones are left out. */
	if (a->nr_groups && group_key_is(&a->key, GROUP_PART_SYSCALL)) {
		table_begin(f, TABLE_SYSCALLS, begin, end, &first);
		rows_syscalls(f, a, limit);
		fprintf(f, "]}");
	}
	if (a->nr_top) {
		table_begin(f, TABLE_OUTLIERS, begin, end, &first);
		rows_outliers(f, a, limit);
		fprintf(f, "]}");
	}
	if (a->nr_changes) {
		table_begin(f, TABLE_THRESHOLDS, begin, end, &first);
		rows_thresholds(f, a, limit);
		fprintf(f, "]}");
	}
	/* Always there: a reader must see that nothing was lost, or what was. */
	table_begin(f, TABLE_LOSS, begin, end, &first);
	row_loss(f, a);
	fprintf(f, "]}");
	/* Always there too: zeros say that the runs did all of it; unknown before version 8. */
	table_begin(f, TABLE_UNDONE, begin, end, &first);
	row_undone(f, a);
	fprintf(f, "]}\n]}\n");
}

void lami_error(FILE *f, const char *message)
{
	fprintf(f, "{\"error-message\":");
	json_string(f, message);
	fprintf(f, ",\"error-code\":1}\n");
}
