// SPDX-License-Identifier: GPL-2.0-only
/* The report as text (render.h): tables, the slowest outliers, histograms, hosts compared. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/duration.h"
#include "util/escape.h"
#include "util/outlier_line.h"
#include "render.h"

#define HIST_BAR_WIDTH 40

/* Times are UTC so that a report reads the same on every machine. */
static const char *epoch_format(int64_t ns, char *buf, size_t len)
{
	time_t secs = (time_t)(ns / 1000000000LL);
	int64_t frac = ns % 1000000000LL;
	char date[32];
	struct tm tm;

	if (frac < 0) {
		frac += 1000000000LL;
		secs--;
	}
	gmtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%09" PRId64, date, frac);
	return buf;
}

/* "-EAGAIN" for errors, the decimal value otherwise. */
static const char *ret_format(int64_t ret, char *buf, size_t len)
{
	const char *name = agg_errno_name(ret);

	if (name)
		snprintf(buf, len, "-%s", name);
	else
		snprintf(buf, len, "%" PRId64, ret);
	return buf;
}

static const char *dur(uint64_t ns, char *buf, size_t len)
{
	return duration_format(ns, buf, len);
}

static void text_loss_counts(FILE *f, const struct agg_loss *l)
{
	fprintf(f, "%" PRIu64 " outliers dropped in the kernel, %" PRIu64 " throttled, ", l->drops,
		l->throttled);
	if (l->braked)
		fprintf(f, "%" PRIu64 " braked, ", l->braked);
	/* LTTng cannot always count what it discarded (a whole lost packet). */
	fprintf(f, "%s%" PRIu64 " discarded by LTTng", l->discarded_unknown ? "at least " : "",
		l->discarded);
}

/* What the runs could not do besides losing outliers (sclat:session_end, trace version 8). */
static void text_shortfalls(FILE *f, const struct run_end *e)
{
	if (e->kernel_stacks_skipped || e->wakers_lost || e->class_ids_refused ||
	    e->class_requests_lost)
		fprintf(f,
			"Not explained or classed in full: %" PRIu64
			" kernel stacks skipped (burst "
			"guard), %" PRIu64 " wakers lost, %" PRIu64 " class ids refused, %" PRIu64
			" class requests lost (asked again).\n",
			e->kernel_stacks_skipped, e->wakers_lost, e->class_ids_refused,
			e->class_requests_lost);
}

/* The outliers without a user stack, and why (trace version 9 on). */
static void text_ustacks_missing(FILE *f, const struct agg *a)
{
	uint64_t n = 0;
	unsigned int i;
	bool first = true;

	for (i = 1; i < OUTLIER_USTACK_WHYS; i++)
		n += a->ustack_missing[i];
	if (!n)
		return;
	fprintf(f, "Without a user stack: %" PRIu64 " of %" PRIu64 " outliers (", n, a->matched);
	for (i = 1; i < OUTLIER_USTACK_WHYS; i++) {
		if (!a->ustack_missing[i])
			continue;
		fprintf(f, "%s%" PRIu64 " %s", first ? "" : ", ", a->ustack_missing[i],
			outlier_ustack_why[i]);
		first = false;
	}
	fprintf(f, ").\n");
}

static void text_loss(FILE *f, const struct agg *a)
{
	const struct agg_loss *l = &a->loss;
	unsigned int i;

	for (i = 0; i < a->nr_warnings; i++)
		fprintf(f, "TRACE INCOMPLETE: %s.\n", a->warnings[i]);
	if (!agg_loss_any(a)) {
		fprintf(f, "%s\n",
			a->complete == AGG_UNKNOWN
				? "No events counted as lost (a trace of version 1 has no end-of-run "
				  "accounting: it may be incomplete)."
				: "No events lost.");
		return;
	}
	if (!agg_loss_counted(l))
		return;
	fprintf(f, "EVENTS LOST: ");
	text_loss_counts(f, l);
	fprintf(f, "; the counts below are lower bounds.\n");
}

/*
 * Syscall names and hosts come from the trace and comms from whoever named a
 * thread: all are escaped (escape.h). A name is cut to its column; a comm is
 * shown whole, even when its escapes push the columns right.
 */
#define TEXT_NAME(s, buf)   text_escape((s), OUTLIER_NAME_LEN, (buf), sizeof(buf))
#define TEXT_COMM(s, buf)   text_escape((s), OUTLIER_COMM_LEN, (buf), sizeof(buf))
#define TEXT_HOST(s, buf)   text_escape((s), TEXT_HOST_MAX, (buf), sizeof(buf))
#define TEXT_COMM_SIZE	    TEXT_ESCAPED_SIZE(OUTLIER_COMM_LEN)
#define TEXT_HOST_MAX	    64
#define TEXT_HOST_SIZE	    TEXT_ESCAPED_SIZE(TEXT_HOST_MAX)
#define TEXT_TARGET(s, buf) text_escape((s), TEXT_TARGET_MAX, (buf), sizeof(buf))
#define TEXT_TARGET_MAX	    256
#define TEXT_TARGET_SIZE    TEXT_ESCAPED_SIZE(TEXT_TARGET_MAX)
#define TEXT_CLASS(s, buf)  text_escape((s), OUTLIER_CLASS_LEN, (buf), sizeof(buf))
#define TEXT_CLASS_SIZE	    TEXT_ESCAPED_SIZE(OUTLIER_CLASS_LEN)

/* Column widths of each key part, and their heads. */
static const struct {
	const char *head;
	int width;
} part_columns[GROUP_NR_PARTS] = {
	[GROUP_PART_SYSCALL] = { "SYSCALL             ", 20 },
	[GROUP_PART_PROCESS] = { "    PID COMM           ", 23 },
	[GROUP_PART_THREAD] = { "    TID     PID COMM           ", 31 },
	[GROUP_PART_HOST] = { "HOST            ", 16 },
	[GROUP_PART_CLASS] = { "CLASS                         ", 30 },
	/* Of any length: last on the line (text_group_tail()). */
	[GROUP_PART_TARGET] = { "TARGET", 0 },
	[GROUP_PART_STACK] = { "STACK", 0 },
	[GROUP_PART_TITLE] = { "TITLE", 0 },
};

/* Whether a part is of any length: a target, a stack. */
static bool part_is_long(enum group_part p)
{
	return !part_columns[p].width;
}

/* Untrusted text of any length, escaped whole. */
static void text_long(FILE *f, const char *s)
{
	size_t n = strlen(s), len = TEXT_ESCAPED_SIZE(n);
	char *buf = malloc(len);

	if (!buf)
		return;
	fputs(text_escape(s, n, buf, len), f);
	free(buf);
}

static void text_group_key(FILE *f, const struct group_key *k, const struct agg_group *g)
{
	char name[21], comm[TEXT_COMM_SIZE], host[TEXT_HOST_SIZE], cls[TEXT_CLASS_SIZE];
	unsigned int i;

	for (i = 0; i < k->nr; i++) {
		if (part_is_long(k->parts[i]))
			continue;
		if (i)
			fputc(' ', f);
		switch (k->parts[i]) {
		case GROUP_PART_SYSCALL:
			fprintf(f, "%-20s", TEXT_NAME(g->syscall, name));
			break;
		case GROUP_PART_PROCESS:
			fprintf(f, "%7d %-15s", g->pid, TEXT_COMM(g->comm, comm));
			break;
		case GROUP_PART_THREAD:
			fprintf(f, "%7d %7d %-15s", g->tid, g->pid, TEXT_COMM(g->comm, comm));
			break;
		case GROUP_PART_HOST:
			fprintf(f, "%-16.16s", TEXT_HOST(g->host, host));
			break;
		case GROUP_PART_CLASS:
			fprintf(f, "%-30.30s",
				g->class_name[0] ? TEXT_CLASS(g->class_name, cls) : "-");
			break;
		default:
			break;
		}
	}
}

/* The parts of any length, after the columns, each after two spaces. */
static void text_group_tail(FILE *f, const struct group_key *k, const struct agg_group *g)
{
	unsigned int i;

	for (i = 0; i < k->nr; i++) {
		if (!part_is_long(k->parts[i]))
			continue;
		fputs("  ", f);
		text_long(f, k->parts[i] == GROUP_PART_TARGET  ? g->target
			     : k->parts[i] == GROUP_PART_STACK ? g->stack
			     : g->title[0]		       ? g->title
							       : "-");
	}
}

static const char *group_label(const struct group_key *k, const struct agg_group *g, char *buf,
			       size_t len)
{
	char name[TEXT_ESCAPED_SIZE(OUTLIER_NAME_LEN)], comm[TEXT_COMM_SIZE], host[TEXT_HOST_SIZE];
	char target[TEXT_TARGET_SIZE];
	char cls[TEXT_CLASS_SIZE];
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < k->nr && used < len; i++) {
		const char *sep = i ? ", " : "";

		switch (k->parts[i]) {
		case GROUP_PART_SYSCALL:
			used += snprintf(buf + used, len - used, "%s%s", sep,
					 TEXT_NAME(g->syscall, name));
			break;
		case GROUP_PART_PROCESS:
			used += snprintf(buf + used, len - used, "%sprocess %d (%s)", sep, g->pid,
					 TEXT_COMM(g->comm, comm));
			break;
		case GROUP_PART_THREAD:
			used += snprintf(buf + used, len - used, "%sthread %d of %d (%s)", sep,
					 g->tid, g->pid, TEXT_COMM(g->comm, comm));
			break;
		case GROUP_PART_HOST:
			used += snprintf(buf + used, len - used, "%son %s", sep,
					 TEXT_HOST(g->host, host));
			break;
		case GROUP_PART_TARGET:
			used += snprintf(buf + used, len - used, "%starget %s", sep,
					 TEXT_TARGET(g->target, target));
			break;
		case GROUP_PART_STACK:
			/* Where it waited: the stack's innermost frame; the table has it whole. */
			TEXT_TARGET(g->stack, target);
			used += snprintf(buf + used, len - used, "%sstack %.*s%s", sep,
					 (int)strcspn(target, ";"), target,
					 strchr(target, ';') ? ";..." : "");
			break;
		case GROUP_PART_CLASS:
			if (g->class_name[0])
				used += snprintf(buf + used, len - used, "%sclass %s", sep,
						 TEXT_CLASS(g->class_name, cls));
			else
				used += snprintf(buf + used, len - used,
						 "%sthe syscall's own threshold", sep);
			break;
		case GROUP_PART_TITLE:
			used += snprintf(buf + used, len - used, "%stitle %s", sep,
					 g->title[0] ? TEXT_CLASS(g->title, cls) : "-");
			break;
		case GROUP_NR_PARTS:
			break;
		}
	}
	return buf;
}

/* Whether any matched outlier is explained: only then has the table the breakdown's columns. */
static bool any_explained(const struct agg *a)
{
	size_t i;

	for (i = 0; i < a->nr_groups; i++)
		if (a->groups[i].explained)
			return true;
	return false;
}

/* A group's shares of explained latency by where it went, or "-" when none is explained. */
static void text_breakdown(FILE *f, const struct agg_group *g)
{
	unsigned int p;

	for (p = 0; p < AGG_NR_TIME_PARTS; p++) {
		if (g->explained)
			fprintf(f, " %5.1f%%", 100 * agg_time_share(g, p));
		else
			fprintf(f, " %6s", "-");
	}
}

static void text_groups(FILE *f, const struct agg *a)
{
	char b[6][16], r[24], name[GROUP_KEY_NAME_LEN];
	bool breakdown = any_explained(a);
	unsigned int k;
	size_t i;

	fprintf(f, "\nLatency by %s\n", group_key_name(&a->key, name, sizeof(name)));
	for (k = 0; k < a->key.nr; k++)
		if (!part_is_long(a->key.parts[k]))
			fprintf(f, "%s%s", k ? " " : "", part_columns[a->key.parts[k]].head);
	fprintf(f, " %7s %8s %8s %8s %8s %8s", "COUNT", "MIN", "P50", "P90", "P99", "MAX");
	if (breakdown)
		fprintf(f, " %6s %6s %6s %6s", "CPU", "RUNQ", "SLEEP", "IO");
	fprintf(f, "  %s", "TOP RET");
	for (k = 0; k < a->key.nr; k++)
		if (part_is_long(a->key.parts[k]))
			fprintf(f, "  %s", part_columns[a->key.parts[k]].head);
	fprintf(f, "\n");
	for (i = 0; i < a->nr_groups; i++) {
		const struct agg_group *g = &a->groups[i];

		text_group_key(f, &a->key, g);
		fprintf(f, " %7" PRIu64 " %8s %8s %8s %8s %8s", g->count, dur(g->min_ns, b[0], 16),
			dur(g->p50_ns, b[1], 16), dur(g->p90_ns, b[2], 16),
			dur(g->p99_ns, b[3], 16), dur(g->max_ns, b[4], 16));
		if (breakdown)
			text_breakdown(f, g);
		fprintf(f, "  %s (%" PRIu64 "x)", ret_format(g->top_ret, r, sizeof(r)),
			g->top_ret_count);
		text_group_tail(f, &a->key, g);
		fprintf(f, "\n");
	}
}

/* One row per host, with its losses: a host whose trace lost events says so. */
static void text_hosts(FILE *f, const struct agg *a)
{
	char host[TEXT_HOST_SIZE];
	size_t i;

	fprintf(f, "\nHosts\n%-16s %8s %8s %9s  %s\n", "HOST", "OUTLIERS", "MATCHED", "SECONDS",
		"LOSSES");
	for (i = 0; i < a->nr_hosts; i++) {
		const struct agg_host *h = a->hosts[i];

		fprintf(f, "%-16.16s %8" PRIu64 " %8" PRIu64 " %9.1f  ", TEXT_HOST(h->name, host),
			h->seen, h->matched, h->timed ? (h->last_ns - h->first_ns) / 1e9 : 0.0);
		if (agg_loss_counted(&h->loss)) {
			fprintf(f, "EVENTS LOST: ");
			text_loss_counts(f, &h->loss);
			fprintf(f, "\n");
		} else {
			fprintf(f, "none\n");
		}
	}
}

/* A measure as the comparison prints it: a duration, or outliers per second. */
static const char *metric_format(enum agg_metric m, double v, char *buf, size_t len)
{
	if (m == AGG_METRIC_RATE)
		snprintf(buf, len, "%.3g", v);
	else
		duration_format((uint64_t)v, buf, len);
	return buf;
}

static void text_compare(FILE *f, const struct agg *a)
{
	static const char *const heads[AGG_NR_METRICS] = { "THRESHOLD", "P99", "OUTLIERS/S" };
	char v[3][16], spread[64], name[TEXT_ESCAPED_SIZE(OUTLIER_NAME_LEN)], host[TEXT_HOST_SIZE];
	size_t i, j;
	unsigned int m;
	bool any = false;

	if (!a->nr_compare)
		return;
	fprintf(f, "\nHosts compared, per syscall: min / median / max over the hosts\n%-16s %5s",
		"SYSCALL", "HOSTS");
	for (m = 0; m < AGG_NR_METRICS; m++)
		fprintf(f, "  %-*s", m + 1 < AGG_NR_METRICS ? 26 : 0, heads[m]);
	fprintf(f, "\n");
	for (i = 0; i < a->nr_compare; i++) {
		const struct agg_compare *c = &a->compare[i];

		fprintf(f, "%-16.16s %5zu", TEXT_NAME(c->syscall, name), c->nr_hosts);
		for (m = 0; m < AGG_NR_METRICS; m++) {
			snprintf(spread, sizeof(spread), "%s / %s / %s",
				 metric_format(m, c->spread[m].min, v[0], 16),
				 metric_format(m, c->spread[m].median, v[1], 16),
				 metric_format(m, c->spread[m].max, v[2], 16));
			fprintf(f, "  %-*s", m + 1 < AGG_NR_METRICS ? 26 : 0, spread);
		}
		fprintf(f, "\n");
		any = any || c->nr_stand_out;
	}
	if (!any) {
		fprintf(f, "No host stands out (%gx the median host or more).\n",
			AGG_STAND_OUT_FACTOR);
		return;
	}
	fprintf(f, "\nStanding out (%gx the median host or more)\n", AGG_STAND_OUT_FACTOR);
	for (i = 0; i < a->nr_compare; i++) {
		const struct agg_compare *c = &a->compare[i];

		for (j = 0; j < c->nr_hosts; j++) {
			const struct agg_compare_host *h = &c->hosts[j];
			const char *sep = "";

			if (!h->stands_out[0] && !h->stands_out[1] && !h->stands_out[2])
				continue;
			fprintf(f, "%-16.16s %-16.16s ", TEXT_NAME(c->syscall, name),
				TEXT_HOST(h->host->name, host));
			for (m = 0; m < AGG_NR_METRICS; m++) {
				if (!h->stands_out[m])
					continue;
				fprintf(f, "%s%s %s (%.1fx the median)", sep, agg_metric_name(m),
					metric_format(m, h->value[m], v[0], 16), h->ratio[m]);
				sep = ", ";
			}
			fprintf(f, "\n");
		}
	}
}

/* A snapshot's path as text shows it (escaped: a trace is anyone's file), or why there is none. */
#define SNAPSHOT_PATH_SIZE TEXT_ESCAPED_SIZE(sizeof(((struct snapshot_ref *)0)->path))

static const char *snapshot_path(const struct snapshot_ref *s, char *buf)
{
	if (!s->path[0])
		return "(failed: LTTng could not take it)";
	return text_escape(s->path, sizeof(s->path), buf, SNAPSHOT_PATH_SIZE);
}

/*
 * How surprising and costly: "surprise 6.2 (one in 1.6M), impact 41.2ms over a
 * normal 8.1us"; "surprise unknown" when nothing was learnt, nothing before
 * trace version 9. Then, for one judged at its storage threshold (trace
 * version 12): "; waited for storage, which its calls seldom do (from 57us)".
 */
static void text_judgement(FILE *f, const struct agg *a, const struct outlier *o)
{
	char s[16], n[16], i[16];

	if (!o->judged)
		return;
	fprintf(f, "%*s surprise ", a->nr_hosts > 1 ? 46 : 29, "");
	if (o->surprise < 0)
		fprintf(f, "unknown, impact %s (nothing learnt behind its threshold)",
			dur(o->impact_ns, i, sizeof(i)));
	else
		fprintf(f, "%s (one in %s%.3g), impact %s over a normal %s",
			outlier_surprise_format(true, o->surprise, o->surprise_at_least, s,
						sizeof(s)),
			o->surprise_at_least ? "more than " : "", pow(10, o->surprise),
			dur(o->impact_ns, i, sizeof(i)), dur(o->normal_ns, n, sizeof(n)));
	if (o->storage_stall)
		fprintf(f, "; waited for storage, which its calls seldom do (from %s)",
			dur(o->threshold_ns, i, sizeof(i)));
	fprintf(f, "\n");
}

static void text_top(FILE *f, const struct agg *a)
{
	const struct snapshot_ref *snap;
	char t[48], l[16], r[24], name[17], comm[TEXT_COMM_SIZE], host[TEXT_HOST_SIZE];
	char path[SNAPSHOT_PATH_SIZE], why_name[TEXT_ESCAPED_SIZE(OUTLIER_NAME_LEN)];
	struct outlier_why why;
	unsigned int i, k;

	if (!a->nr_top)
		return;
	if (a->order == AGG_BY_LATENCY)
		fprintf(f, "\nTop %u slowest\n", a->nr_top);
	else
		fprintf(f, "\nTop %u by %s\n", a->nr_top, agg_order_name(a->order));
	if (a->nr_hosts > 1)
		fprintf(f, "%-16s ", "HOST");
	fprintf(f, "%-29s %8s %-16s %-15s %7s %7s %3s  %s\n", "ENTRY (UTC)", "LATENCY", "SYSCALL",
		"COMM", "PID", "TID", "CPU", "RET");
	for (i = 0; i < a->nr_top; i++) {
		const struct outlier *o = &a->top[i];

		if (a->nr_hosts > 1)
			fprintf(f, "%-16.16s ", TEXT_HOST(o->host, host));
		fprintf(f, "%-29s %8s %-16s %-15s %7d %7d %3u  %s\n",
			epoch_format(o->entry_epoch_ns, t, sizeof(t)),
			dur(o->latency_ns, l, sizeof(l)), TEXT_NAME(o->syscall, name),
			TEXT_COMM(o->comm, comm), o->pid, o->tid, o->cpu,
			ret_format(o->ret, r, sizeof(r)));
		fprintf(f, "%*s args:", a->nr_hosts > 1 ? 46 : 29, "");
		for (k = 0; k < OUTLIER_NR_ARGS; k++)
			fprintf(f, " 0x%" PRIx64, o->args[k]);
		fprintf(f, "\n");
		text_judgement(f, a, o);
		if (o->why.present) {
			outlier_why_fill(&o->why, &why);
			fprintf(f, "%*s why:", a->nr_hosts > 1 ? 46 : 29, "");
			/* The whole name: the column above cuts it. */
			outlier_why_text(f, &why, TEXT_NAME(o->syscall, why_name));
			fprintf(f, "\n");
		}
		snap = agg_snapshot_of(a, o);
		if (snap)
			fprintf(f, "%29s snapshot: %s\n", "", snapshot_path(snap, path));
	}
}

/* The outliers that made LTTng snapshot a session (--snapshot-session), and what became of all. */
static void text_snapshots(FILE *f, const struct agg *a)
{
	const struct snapshot_count *c = &a->snapshot_count;
	char t[48], l[16], name[17], comm[TEXT_COMM_SIZE], path[SNAPSHOT_PATH_SIZE];
	size_t i;

	if (!a->nr_snapshots && !a->snapshot_counted)
		return;
	fprintf(f, "\nSnapshots\n");
	if (a->snapshot_counted)
		fprintf(f,
			"The whole trace: %" PRIu64 " taken on %" PRIu64
			" outliers at or above --snapshot-min-latency, %" PRIu64 " failed, %" PRIu64
			" unreported, %" PRIu64 " discarded.\n",
			c->taken, c->outliers, c->failed, c->unreported, c->discarded);
	if (!a->nr_snapshots)
		return;
	fprintf(f, "%-29s %8s %-16s %-15s %7s %7s  %s\n", "ENTRY (UTC)", "LATENCY", "SYSCALL",
		"COMM", "PID", "TID", "PATH");
	for (i = 0; i < a->nr_snapshots; i++) {
		const struct snapshot_ref *s = &a->snapshots[i];
		const struct outlier *o = &s->outlier;

		fprintf(f, "%-29s %8s %-16s %-15s %7d %7d  %s\n",
			epoch_format(o->entry_epoch_ns, t, sizeof(t)),
			dur(o->latency_ns, l, sizeof(l)), TEXT_NAME(o->syscall, name),
			TEXT_COMM(o->comm, comm), o->pid, o->tid, snapshot_path(s, path));
	}
}

static void text_histograms(FILE *f, const struct agg *a)
{
	char label[TEXT_ESCAPED_SIZE(OUTLIER_NAME_LEN) + TEXT_HOST_SIZE + 2 * TEXT_TARGET_SIZE +
		   160];
	char from[16], to[16];
	size_t i;
	unsigned int k, w;

	for (i = 0; i < a->nr_groups; i++) {
		const struct agg_group *g = &a->groups[i];
		uint64_t peak = 0;

		for (k = 0; k < g->nr_bins; k++)
			if (g->hist[k].count > peak)
				peak = g->hist[k].count;
		fprintf(f, "\nHistogram: %s\n", group_label(&a->key, g, label, sizeof(label)));
		for (k = 0; k < g->nr_bins; k++) {
			const struct agg_hist_bin *b = &g->hist[k];

			fprintf(f, "  %8s .. %-8s |", dur(b->from_ns, from, sizeof(from)),
				dur(b->to_ns, to, sizeof(to)));
			/* Any non-empty bin shows at least one mark. */
			w = (unsigned int)((b->count * HIST_BAR_WIDTH + peak - 1) / peak);
			fprintf(f, "%.*s%*s| %" PRIu64 "\n", (int)w,
				"########################################", HIST_BAR_WIDTH - w, "",
				b->count);
		}
	}
}

/* The calls reported in flight: the ones still hung first, then the longest. */
static void text_hung(FILE *f, const struct agg *a)
{
	char t[48], l[16], r[24], name[17], comm[TEXT_COMM_SIZE], host[TEXT_HOST_SIZE];
	char state[TEXT_ESCAPED_SIZE(HUNG_STATE_LEN)];
	size_t i;

	if (!a->nr_hung)
		return;
	fprintf(f, "\nHung calls (reported while in flight), still in flight first\n");
	if (a->nr_hosts > 1)
		fprintf(f, "%-16s ", "HOST");
	fprintf(f, "%-29s %8s %-16s %-15s %7s %7s %-8s %7s  %s\n", "ENTRY (UTC)", "FOR", "SYSCALL",
		"COMM", "PID", "TID", "STATE", "REPORTS", "ENDED");
	for (i = 0; i < a->nr_hung; i++) {
		const struct hung_call *h = &a->hung[i];
		const struct outlier *o = &h->outlier;

		if (a->nr_hosts > 1)
			fprintf(f, "%-16.16s ", TEXT_HOST(o->host, host));
		fprintf(f, "%-29s %8s %-16s %-15s %7d %7d %-8s %7u  %s\n",
			epoch_format(o->entry_epoch_ns, t, sizeof(t)),
			dur(o->latency_ns, l, sizeof(l)), TEXT_NAME(o->syscall, name),
			TEXT_COMM(o->comm, comm), o->pid, o->tid,
			text_escape(h->state, HUNG_STATE_LEN, state, sizeof(state)), h->reports,
			h->returned ? ret_format(o->ret, r, sizeof(r))
				    : "(no return in the trace)");
	}
}

void render_text(FILE *f, const struct agg *a)
{
	char t0[48], t1[48];

	fprintf(f, "%" PRIu64 " outliers", a->matched);
	if (a->matched != a->seen)
		fprintf(f, " (of %" PRIu64 " in the trace%s)", a->seen, a->nr_hosts > 1 ? "s" : "");
	if (a->nr_hosts > 1)
		fprintf(f, " from %zu hosts", a->nr_hosts);
	if (a->matched)
		fprintf(f, ", entries from %s to %s UTC",
			epoch_format(a->first_epoch_ns, t0, sizeof(t0)),
			epoch_format(a->last_epoch_ns, t1, sizeof(t1)));
	fprintf(f, "\n");
	text_loss(f, a);
	text_shortfalls(f, &a->ended);
	text_ustacks_missing(f, a);
	text_hung(f, a);
	if (a->nr_hosts > 1)
		text_hosts(f, a);
	if (a->matched) {
		text_groups(f, a);
		text_top(f, a);
		text_snapshots(f, a);
		text_histograms(f, a);
	}
	text_compare(f, a);
}
