// SPDX-License-Identifier: GPL-2.0-only
/* The report as one JSON object (render.h), one line per row. */
#include <inttypes.h>
#include "util/json.h"
#include "util/outlier_line.h"
#include "render.h"

static void json_errno(FILE *f, const char *key, int64_t ret)
{
	const char *name = agg_errno_name(ret);

	fprintf(f, ",\"%s\":", key);
	if (name)
		json_string(f, name);
	else
		fprintf(f, "null");
}

/*
 * Where the explained outliers' latency went: ns and shares (they add up to
 * 1), null when the trace explains none of them.
 */
static void json_breakdown(FILE *f, const struct agg_group *g)
{
	unsigned int p;

	fprintf(f, ",\"explained\":%" PRIu64 ",\"breakdown\":", g->explained);
	if (!g->explained) {
		fprintf(f, "null");
		return;
	}
	for (p = 0; p < AGG_NR_TIME_PARTS; p++)
		fprintf(f, "%s\"%s_ns\":%" PRIu64 ",\"%s_share\":%.6f", p ? "," : "{",
			agg_time_part_name(p), g->time_ns[p], agg_time_part_name(p),
			agg_time_share(g, p));
	fprintf(f, "}");
}

static void json_group(FILE *f, const struct group_key *key, const struct agg_group *g)
{
	unsigned int k;
	const char *sep = "";

	fprintf(f, "{");
	for (k = 0; k < key->nr; k++, sep = ",") {
		switch (key->parts[k]) {
		case GROUP_PART_SYSCALL:
			fprintf(f, "%s\"syscall\":", sep);
			json_string(f, g->syscall);
			break;
		case GROUP_PART_PROCESS:
		case GROUP_PART_THREAD:
			fprintf(f, "%s\"comm\":", sep);
			json_string(f, g->comm);
			fprintf(f, ",\"pid\":%d", g->pid);
			if (key->parts[k] == GROUP_PART_THREAD)
				fprintf(f, ",\"tid\":%d", g->tid);
			break;
		case GROUP_PART_HOST:
			fprintf(f, "%s\"host\":", sep);
			json_string(f, g->host);
			break;
		case GROUP_PART_TARGET:
			fprintf(f, "%s\"target\":", sep);
			json_string(f, g->target);
			break;
		case GROUP_PART_STACK:
			fprintf(f, "%s\"stack\":", sep);
			json_string(f, g->stack);
			break;
		case GROUP_PART_CLASS:
			fprintf(f, "%s\"class\":", sep);
			json_string(f, g->class_name);
			break;
		case GROUP_PART_TITLE:
			fprintf(f, "%s\"title\":", sep);
			json_string(f, g->title);
			break;
		case GROUP_NR_PARTS:
			break;
		}
	}
	fprintf(f,
		",\"count\":%" PRIu64 ",\"min_ns\":%" PRIu64 ",\"p50_ns\":%" PRIu64
		",\"p90_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
		",\"mean_ns\":%" PRIu64 ",\"top_ret\":%" PRId64 ",\"top_ret_count\":%" PRIu64,
		g->count, g->min_ns, g->p50_ns, g->p90_ns, g->p99_ns, g->max_ns, g->mean_ns,
		g->top_ret, g->top_ret_count);
	json_errno(f, "top_errno", g->top_ret);
	json_breakdown(f, g);
	fprintf(f, ",\"histogram\":[");
	for (k = 0; k < g->nr_bins; k++)
		fprintf(f,
			"%s{\"from_ns\":%" PRIu64 ",\"to_ns\":%" PRIu64 ",\"count\":%" PRIu64 "}",
			k ? "," : "", g->hist[k].from_ns, g->hist[k].to_ns, g->hist[k].count);
	fprintf(f, "]}");
}

/* The keys of `sclat watch --json` (outlier_line_json_open), and the snapshot it caused. */
static void json_outlier(FILE *f, const struct agg *a, const struct outlier *o)
{
	const struct snapshot_ref *snap = agg_snapshot_of(a, o);
	struct outlier_line line;
	struct outlier_why why;

	outlier_line_of(o, o->host, &line, &why);
	outlier_line_json_open(f, &line);
	if (snap) {
		fprintf(f, ",\"snapshot\":");
		json_string(f, snap->path);
	}
	fprintf(f, "}");
}

/* Only in a trace recorded with --snapshot-session: other reports stay as they were. */
static void json_snapshots(FILE *f, const struct agg *a)
{
	const struct snapshot_count *c = &a->snapshot_count;
	size_t i;

	if (!a->nr_snapshots && !a->snapshot_counted)
		return;
	fprintf(f, ",\n \"snapshots\":[");
	for (i = 0; i < a->nr_snapshots; i++) {
		const struct snapshot_ref *s = &a->snapshots[i];
		const struct outlier *o = &s->outlier;

		fprintf(f,
			"%s\n  {\"entry_epoch_ns\":%" PRId64 ",\"entry_ts\":%" PRIu64
			",\"syscall\":",
			i ? "," : "", o->entry_epoch_ns, o->entry_ts);
		json_string(f, o->syscall);
		fprintf(f, ",\"nr\":%u,\"comm\":", o->nr);
		json_string(f, o->comm);
		fprintf(f, ",\"pid\":%d,\"tid\":%d,\"latency_ns\":%" PRIu64 ",\"session\":", o->pid,
			o->tid, o->latency_ns);
		json_string(f, s->session);
		fprintf(f, ",\"path\":");
		json_string(f, s->path);
		fprintf(f, "}");
	}
	fprintf(f, "]");
	if (a->snapshot_counted)
		fprintf(f,
			",\n \"snapshot_totals\":{\"outliers\":%" PRIu64 ",\"discarded\":%" PRIu64
			",\"requested\":%" PRIu64 ",\"taken\":%" PRIu64 ",\"failed\":%" PRIu64
			",\"unreported\":%" PRIu64 "}",
			c->outliers, c->discarded, c->requested, c->taken, c->failed,
			c->unreported);
}

/* The counts of a loss, as the first members of an object left open. */
static void json_loss_counts(FILE *f, const struct agg_loss *l, bool lost)
{
	fprintf(f,
		"{\"events_lost\":%s,\"drops\":%" PRIu64 ",\"throttled\":%" PRIu64
		",\"braked\":%" PRIu64 ",\"discarded\":%" PRIu64 ",\"discarded_exact\":%s",
		lost ? "true" : "false", l->drops, l->throttled, l->braked, l->discarded,
		l->discarded_unknown ? "false" : "true");
}

static void json_loss(FILE *f, const struct agg_loss *l)
{
	json_loss_counts(f, l, agg_loss_counted(l));
	fprintf(f, "}");
}

/* The report's: also whether the traces are complete (null: cannot tell), and why not. */
static void json_lost(FILE *f, const struct agg *a)
{
	unsigned int i;

	json_loss_counts(f, &a->loss, agg_loss_any(a));
	fprintf(f,
		",\"kernel_stacks_skipped\":%" PRIu64 ",\"wakers_lost\":%" PRIu64
		",\"class_ids_refused\":%" PRIu64 ",\"class_requests_lost\":%" PRIu64
		",\"children_not_followed\":%" PRIu64,
		a->ended.kernel_stacks_skipped, a->ended.wakers_lost, a->ended.class_ids_refused,
		a->ended.class_requests_lost, a->ended.children_not_followed);
	/* Matched outliers without a user stack, by why (trace version 9 on). */
	fprintf(f,
		",\"user_stacks_missing\":{\"budget\":%" PRIu64 ",\"ring_buffer\":%" PRIu64
		",\"unwinder_queue\":%" PRIu64 ",\"no_user_context\":%" PRIu64
		",\"unreadable\":%" PRIu64 "}",
		a->ustack_missing[1], a->ustack_missing[2], a->ustack_missing[3],
		a->ustack_missing[4], a->ustack_missing[5]);
	fprintf(f, ",\"complete\":%s,\"warnings\":[",
		a->complete == AGG_COMPLETE	? "true"
		: a->complete == AGG_INCOMPLETE ? "false"
						: "null");
	for (i = 0; i < a->nr_warnings; i++) {
		fprintf(f, "%s", i ? "," : "");
		json_string(f, a->warnings[i]);
	}
	fprintf(f, "]}");
}

static void json_host(FILE *f, const struct agg_host *h)
{
	fprintf(f, "{\"host\":");
	json_string(f, h->name);
	fprintf(f,
		",\"outliers\":%" PRIu64 ",\"matched\":%" PRIu64 ",\"span_ns\":%" PRId64
		",\"lost\":",
		h->seen, h->matched, h->timed ? h->last_ns - h->first_ns : 0);
	json_loss(f, &h->loss);
	fprintf(f, "}");
}

static void json_compare(FILE *f, const struct agg_compare *c)
{
	static const char *const keys[AGG_NR_METRICS] = { "threshold_ns", "p99_ns",
							  "outliers_per_s" };
	unsigned int m;
	size_t i;

	fprintf(f, "{\"syscall\":");
	json_string(f, c->syscall);
	for (m = 0; m < AGG_NR_METRICS; m++)
		fprintf(f, ",\"%s\":{\"min\":%.17g,\"median\":%.17g,\"max\":%.17g}", keys[m],
			c->spread[m].min, c->spread[m].median, c->spread[m].max);
	fprintf(f, ",\"hosts\":[");
	for (i = 0; i < c->nr_hosts; i++) {
		const struct agg_compare_host *h = &c->hosts[i];
		const char *sep = "";

		fprintf(f, "%s{\"host\":", i ? "," : "");
		json_string(f, h->host->name);
		fprintf(f,
			",\"threshold_ns\":%" PRIu64 ",\"learned\":%s,\"p99_ns\":%" PRIu64
			",\"calls\":%" PRIu64 ",\"outliers\":%" PRIu64
			",\"outliers_per_s\":%.17g,\"stands_out\":[",
			h->sc->threshold_ns, h->sc->learned ? "true" : "false", h->sc->p99_ns,
			h->sc->calls, h->sc->outliers, h->value[AGG_METRIC_RATE]);
		for (m = 0; m < AGG_NR_METRICS; m++) {
			if (!h->stands_out[m])
				continue;
			fprintf(f, "%s{\"measure\":\"%s\",\"times_median\":%.17g}", sep, keys[m],
				h->ratio[m]);
			sep = ",";
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]}");
}

/* One object; one line per row so that diffs of reports stay readable. */
void render_json(FILE *f, const struct agg *a)
{
	char name[GROUP_KEY_NAME_LEN];
	size_t i;

	fprintf(f, "{\"by\":\"%s\",\"outliers\":%" PRIu64 ",\"matched\":%" PRIu64,
		group_key_name(&a->key, name, sizeof(name)), a->seen, a->matched);
	if (a->matched)
		fprintf(f, ",\"first_entry_epoch_ns\":%" PRId64 ",\"last_entry_epoch_ns\":%" PRId64,
			a->first_epoch_ns, a->last_epoch_ns);
	/* Only in a trace with calls reported in flight: other reports stay as they were. */
	if (a->nr_hung)
		fprintf(f, ",\n \"hung\":[");
	for (i = 0; i < a->nr_hung; i++) {
		const struct hung_call *h = &a->hung[i];
		const struct outlier *o = &h->outlier;

		fprintf(f, "%s\n  {\"syscall\":", i ? "," : "");
		json_string(f, o->syscall);
		fprintf(f, ",\"pid\":%d,\"tid\":%d,\"comm\":", o->pid, o->tid);
		json_string(f, o->comm);
		fprintf(f, ",\"entry_epoch_ns\":%" PRId64 ",\"state\":", o->entry_epoch_ns);
		json_string(f, h->state);
		fprintf(f, ",\"reports\":%u,\"returned\":%s,\"%s\":%" PRIu64, h->reports,
			h->returned ? "true" : "false", h->returned ? "latency_ns" : "inflight_ns",
			o->latency_ns);
		if (h->returned)
			fprintf(f, ",\"ret\":%" PRId64, o->ret);
		fprintf(f, "}");
	}
	if (a->nr_hung)
		fprintf(f, "]");
	fprintf(f, ",\n \"lost\":");
	json_lost(f, a);
	fprintf(f, ",\n \"hosts\":[");
	for (i = 0; i < a->nr_hosts; i++) {
		fprintf(f, "%s\n  ", i ? "," : "");
		json_host(f, a->hosts[i]);
	}
	fprintf(f, "],\n \"rows\":[");
	for (i = 0; i < a->nr_groups; i++) {
		fprintf(f, "%s\n  ", i ? "," : "");
		json_group(f, &a->key, &a->groups[i]);
	}
	fprintf(f, "],\n \"top_order\":\"%s\",\n \"top\":[", agg_order_name(a->order));
	for (i = 0; i < a->nr_top; i++) {
		fprintf(f, "%s\n  ", i ? "," : "");
		json_outlier(f, a, &a->top[i]);
	}
	fprintf(f, "],\n \"comparison\":[");
	for (i = 0; i < a->nr_compare; i++) {
		fprintf(f, "%s\n  ", i ? "," : "");
		json_compare(f, &a->compare[i]);
	}
	fprintf(f, "]");
	json_snapshots(f, a);
	fprintf(f, "}\n");
}
