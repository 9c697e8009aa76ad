// SPDX-License-Identifier: GPL-2.0-only
/* The lines of a screen of `sclat top` (top_render.h). */
#include <stdio.h>
#include <string.h>
#include "top_render.h"
#include "util/duration.h"
#include "util/outlier_line.h"

/* The table: the syscall's name, six figures, then a class's name. */
#define ROW_FORMAT "%-18.18s %8s %7s %7s %9s %7s %8s %s"

/* Lines above the table (the tracer's, the keys, the head), and between the panes. */
#define TOP_LINES_ABOVE 3

/* 1234, 12.3k, 4.56M: a rate in a narrow column. */
static const char *rate_format(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else if (v < 10)
		snprintf(buf, len, "%.1f", v);
	else if (v < 10000)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.1fM", v / 1e6);
	return buf;
}

static const char *lat_format(__u64 ns, char *buf, size_t len)
{
	if (!ns)
		return "-";
	return duration_format(ns, buf, len);
}

static const char *threshold_format(const struct top_row *r, char *buf, size_t len)
{
	/* off*: initial = off, nothing judged until it is learnt. */
	if (r->threshold_ns == SCLAT_THRESHOLD_NEVER)
		return r->initial && !r->cls[0] ? "off*" : "off";
	if (r->threshold_ns == TOP_NONE)
		return "-";
	duration_format(r->threshold_ns, buf, len - 1);
	/* Not its own yet: the policy's initial value, or a class's syscall's. */
	if (r->initial)
		strcat(buf, r->cls[0] ? "=" : "*");
	return buf;
}

/* Time lost per second, as a duration (of each second); "-" when not summed. */
static const char *lost_format(double ns_per_s, char *buf, size_t len)
{
	if (ns_per_s < 0)
		return "-";
	if (ns_per_s < 1)
		return "0";
	return duration_format((__u64)ns_per_s, buf, len);
}

static void title_lines(const struct top_view *v, int delay_ms, top_emit_fn emit, void *ctx)
{
	const struct top_frame *f = v->cur;
	char line[512], up[16], iv[16], calls[16], outl[16];
	double secs = f->elapsed_ns / 1e9, calls_s = 0, outliers_s = 0;
	unsigned int i;

	for (i = 0; i < v->nr_rows; i++)
		if (!v->rows[i].row->cls[0]) {
			calls_s += v->rows[i].calls_s;
			outliers_s += v->rows[i].outliers_s;
		}
	snprintf(line, sizeof(line),
		 "sclat top - tracer %d, up %s, interval %s, every %.1fs: %s calls/s, %s "
		 "outliers/s; %llu outliers, %llu throttled, %llu drops; %llu ns/syscall%s",
		 f->pid, duration_format(f->elapsed_ns, up, sizeof(up)),
		 duration_format(f->interval_ns, iv, sizeof(iv)), delay_ms / 1000.0,
		 rate_format(calls_s, calls, sizeof(calls)),
		 rate_format(outliers_s, outl, sizeof(outl)), (unsigned long long)f->outliers_total,
		 (unsigned long long)f->throttled, (unsigned long long)f->drops,
		 (unsigned long long)f->ns_per_syscall,
		 v->since_start && secs > 0 ? " (first frame: averages since start)" : "");
	emit(ctx, TOP_STYLE_TITLE, line, 0, 0);
	snprintf(line, sizeof(line),
		 "sort %s%s: C calls/s, P p99, O outliers/s, T lost/s, N name, < > column, "
		 "R reverse; q quit",
		 top_column_name(v->sort), v->reverse ? " (reversed)" : "");
	emit(ctx, TOP_STYLE_TEXT, line, 0, 0);
}

/* The table's head, the sort column marked. */
static void table_head(const struct top_view *v, top_emit_fn emit, void *ctx)
{
	const char *names[TOP_COLUMNS];
	char line[256], *at;
	int i, mark = 0;

	for (i = 0; i < TOP_COLUMNS; i++)
		names[i] = top_column_name(i);
	snprintf(line, sizeof(line), ROW_FORMAT, names[0], names[1], names[2], names[3], names[4],
		 names[5], names[6], "CLASS");
	/* Each name is in the head once; the first column is at 0. */
	at = v->sort ? strstr(line + 18, names[v->sort]) : line;
	if (at)
		mark = at - line;
	emit(ctx, TOP_STYLE_HEAD, line, mark, at ? (int)strlen(names[v->sort]) : 0);
}

static void row_line(const struct top_view_row *vr, top_emit_fn emit, void *ctx)
{
	const struct top_row *r = vr->row;
	char line[512], calls[16], p50[16], p99[16], thr[20], outl[16], lost[16];

	snprintf(line, sizeof(line), ROW_FORMAT, r->cls[0] ? "" : r->syscall,
		 rate_format(vr->calls_s, calls, sizeof(calls)), lat_format(r->p50_ns, p50, 16),
		 lat_format(r->p99_ns, p99, 16), threshold_format(r, thr, sizeof(thr)),
		 rate_format(vr->outliers_s, outl, sizeof(outl)),
		 lost_format(vr->lost_s, lost, sizeof(lost)), r->cls);
	emit(ctx, TOP_STYLE_TEXT, line, 0, 0);
}

static void inflight_lines(const struct top_frame *f, unsigned int max, top_emit_fn emit, void *ctx)
{
	char line[512], age[16], thr[16];
	unsigned int i;

	snprintf(line, sizeof(line), "%-18s %7s %7s %-16s %9s %9s %s", "IN FLIGHT", "PID", "TID",
		 "COMM", "FOR", "THRESHOLD", "STATE");
	emit(ctx, TOP_STYLE_HEAD, line, 0, 0);
	for (i = 0; i < f->nr_inflight && i < max; i++) {
		const struct top_inflight *c = &f->inflight[i];

		snprintf(line, sizeof(line), "%-18.18s %7d %7d %-16s %9s %9s %s", c->syscall,
			 c->pid, c->tid, c->comm, duration_format(c->inflight_ns, age, sizeof(age)),
			 c->threshold_ns == SCLAT_THRESHOLD_NEVER
				 ? "off"
				 : duration_format(c->threshold_ns, thr, sizeof(thr)),
			 c->state);
		emit(ctx, TOP_STYLE_TEXT, line, 0, 0);
	}
}

static void outlier_lines(const struct top_frame *f, unsigned int max, top_emit_fn emit, void *ctx)
{
	char head[256];
	FILE *m = fmemopen(head, sizeof(head), "w");
	unsigned int i;

	/* The head of `sclat watch`'s lines, without its newline. */
	head[0] = '\0';
	if (m) {
		outlier_line_header(m, false);
		fclose(m);
	}
	head[strcspn(head, "\n")] = '\0';
	emit(ctx, TOP_STYLE_HEAD, head, 0, 0);
	if (!f->nr_outliers && max)
		emit(ctx, TOP_STYLE_TEXT, "(no outlier yet)", 0, 0);
	for (i = 0; i < f->nr_outliers && i < max; i++)
		emit(ctx, TOP_STYLE_TEXT, f->outliers[i].line, 0, 0);
}

void top_render(const struct top_view *v, int delay_ms, int height, top_emit_fn emit, void *ctx)
{
	const struct top_frame *f = v->cur;
	unsigned int rows = v->nr_rows, inflight = f->nr_inflight, outliers = f->nr_outliers;
	int left, panes;
	unsigned int i;

	if (height > 0) {
		/* The table takes what the panes leave it, and half the screen at least. */
		left = height - TOP_LINES_ABOVE;
		panes = (inflight ? 2 + (int)inflight : 0) + 2 + (outliers ? (int)outliers : 1);
		if ((int)rows > left - panes - 1)
			rows = left - panes - 1 > left / 2 ? left - panes - 1 : left / 2;
		if ((int)rows < 0)
			rows = 0;
		left -= rows + 1;
		if (inflight) {
			/* At most a third of what is left below the table. */
			inflight = left / 3 - 2 > 0 ? (unsigned int)(left / 3 - 2) : 0;
			inflight = inflight < f->nr_inflight ? inflight : f->nr_inflight;
			left -= 2 + inflight;
		}
		outliers = left - 1 > 0 ? (unsigned int)(left - 1) : 0;
	}
	title_lines(v, delay_ms, emit, ctx);
	table_head(v, emit, ctx);
	for (i = 0; i < rows && i < v->nr_rows; i++)
		row_line(&v->rows[i], emit, ctx);
	emit(ctx, TOP_STYLE_TEXT, "", 0, 0);
	if (f->nr_inflight) {
		inflight_lines(f, inflight, emit, ctx);
		emit(ctx, TOP_STYLE_TEXT, "", 0, 0);
	}
	outlier_lines(f, outliers, emit, ctx);
}
