// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"

void agg_filter_init(struct agg_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->pid = -1;
	f->tid = -1;
	f->begin_ns = INT64_MIN;
	f->end_ns = INT64_MAX;
}

int agg_init(struct agg *a, enum agg_by by, const struct agg_filter *f, unsigned int top_n)
{
	memset(a, 0, sizeof(*a));
	a->by = by;
	a->filter = *f;
	a->top_n = top_n;
	return 0;
}

void agg_free(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->nr_groups; i++) {
		free(a->groups[i].lat);
		free(a->groups[i].ret);
	}
	free(a->groups);
	free(a->top);
	free(a->changes);
	free(a->snapshots);
	memset(a, 0, sizeof(*a));
}

static bool agg_filter_pass(const struct agg_filter *f, const struct outlier *o)
{
	if (f->syscall && strcmp(f->syscall, o->syscall))
		return false;
	if (f->comm && strcmp(f->comm, o->comm))
		return false;
	if (f->pid >= 0 && f->pid != o->pid)
		return false;
	if (f->tid >= 0 && f->tid != o->tid)
		return false;
	return o->latency_ns >= f->min_latency_ns && o->entry_epoch_ns >= f->begin_ns &&
	       o->entry_epoch_ns <= f->end_ns;
}

static bool group_matches(enum agg_by by, const struct agg_group *g, const struct outlier *o)
{
	switch (by) {
	case AGG_BY_SYSCALL:
		return !strcmp(g->syscall, o->syscall);
	case AGG_BY_PROCESS:
		return g->pid == o->pid;
	case AGG_BY_THREAD:
		return g->tid == o->tid && g->pid == o->pid;
	}
	return false;
}

/* Groups are few (syscalls, processes, threads): a linear scan is enough. */
static struct agg_group *group_get(struct agg *a, const struct outlier *o)
{
	static const size_t none = (size_t)-1;
	struct agg_group *g;
	size_t i, found = none;

	for (i = 0; i < a->nr_groups; i++)
		if (group_matches(a->by, &a->groups[i], o)) {
			found = i;
			break;
		}
	if (found != none)
		return &a->groups[found];
	if (a->nr_groups == a->cap_groups) {
		size_t cap = a->cap_groups ? 2 * a->cap_groups : 16;

		g = realloc(a->groups, cap * sizeof(*g));
		if (!g)
			return NULL;
		a->groups = g;
		a->cap_groups = cap;
	}
	g = &a->groups[a->nr_groups++];
	memset(g, 0, sizeof(*g));
	if (a->by == AGG_BY_SYSCALL)
		snprintf(g->syscall, sizeof(g->syscall), "%s", o->syscall);
	else
		snprintf(g->comm, sizeof(g->comm), "%s", o->comm);
	g->pid = a->by == AGG_BY_SYSCALL ? -1 : o->pid;
	g->tid = a->by == AGG_BY_THREAD ? o->tid : -1;
	return g;
}

/* The top-N is a min-heap on latency until agg_finish() sorts it. */
static bool slower(const struct outlier *x, const struct outlier *y)
{
	if (x->latency_ns != y->latency_ns)
		return x->latency_ns > y->latency_ns;
	return x->entry_epoch_ns < y->entry_epoch_ns;
}

static void top_sift_down(struct outlier *h, unsigned int n, unsigned int i)
{
	struct outlier tmp;

	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && slower(&h[m], &h[l]))
			m = l;
		if (r < n && slower(&h[m], &h[r]))
			m = r;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/* The heap grows with the outliers up to top_n: top_n may be huge ("unlimited"). */
static int top_add(struct agg *a, const struct outlier *o)
{
	unsigned int i;
	struct outlier tmp;

	if (!a->top_n)
		return 0;
	if (a->nr_top < a->top_n) {
		if (a->nr_top == a->cap_top) {
			unsigned int cap = a->cap_top ? 2 * a->cap_top : 64;
			struct outlier *t;

			if (cap > a->top_n)
				cap = a->top_n;
			t = realloc(a->top, cap * sizeof(*t));
			if (!t)
				return -ENOMEM;
			a->top = t;
			a->cap_top = cap;
		}
		i = a->nr_top++;
		a->top[i] = *o;
		while (i && slower(&a->top[(i - 1) / 2], &a->top[i])) {
			tmp = a->top[i];
			a->top[i] = a->top[(i - 1) / 2];
			a->top[(i - 1) / 2] = tmp;
			i = (i - 1) / 2;
		}
		return 0;
	}
	if (slower(o, &a->top[0])) {
		a->top[0] = *o;
		top_sift_down(a->top, a->nr_top, 0);
	}
	return 0;
}

int agg_add(struct agg *a, const struct outlier *o)
{
	struct agg_group *g;

	a->seen++;
	if (!agg_filter_pass(&a->filter, o))
		return 0;
	g = group_get(a, o);
	if (!g)
		return -ENOMEM;
	if (g->count == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		uint64_t *lat = realloc(g->lat, cap * sizeof(*lat));
		int64_t *ret;

		if (!lat)
			return -ENOMEM;
		g->lat = lat;
		ret = realloc(g->ret, cap * sizeof(*ret));
		if (!ret)
			return -ENOMEM;
		g->ret = ret;
		g->cap = cap;
	}
	g->lat[g->count] = o->latency_ns;
	g->ret[g->count] = o->ret;
	g->count++;
	if (!a->matched || o->entry_epoch_ns < a->first_epoch_ns)
		a->first_epoch_ns = o->entry_epoch_ns;
	if (!a->matched || o->entry_epoch_ns > a->last_epoch_ns)
		a->last_epoch_ns = o->entry_epoch_ns;
	if (!a->matched || o->entry_epoch_ns + (int64_t)o->latency_ns > a->last_exit_epoch_ns)
		a->last_exit_epoch_ns = o->entry_epoch_ns + (int64_t)o->latency_ns;
	a->matched++;
	return top_add(a, o);
}

int agg_add_change(struct agg *a, const struct threshold_change *t)
{
	if (a->filter.syscall && strcmp(a->filter.syscall, t->syscall))
		return 0;
	if (t->epoch_ns < a->filter.begin_ns || t->epoch_ns > a->filter.end_ns)
		return 0;
	if (a->nr_changes == a->cap_changes) {
		size_t cap = a->cap_changes ? 2 * a->cap_changes : 64;
		struct threshold_change *c = realloc(a->changes, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		a->changes = c;
		a->cap_changes = cap;
	}
	a->changes[a->nr_changes++] = *t;
	return 0;
}

void agg_add_loss(struct agg *a, const struct lost_count *l)
{
	a->loss.drops += l->drops;
	a->loss.throttled += l->throttled;
	if (l->total_drops > a->loss.total_drops)
		a->loss.total_drops = l->total_drops;
	if (l->total_throttled > a->loss.total_throttled)
		a->loss.total_throttled = l->total_throttled;
}

void agg_add_run_begin(struct agg *a, uint32_t version)
{
	if (!a->runs.version || version < a->runs.version)
		a->runs.version = version;
	a->runs.begun++;
}

void agg_add_run_end(struct agg *a, const struct run_end *e)
{
	a->runs.ended++;
	a->runs.totals.syscalls += e->syscalls;
	a->runs.totals.outliers += e->outliers;
	a->runs.totals.drops += e->drops;
	a->runs.totals.throttled += e->throttled;
}

static void __attribute__((format(printf, 2, 3))) warn(struct agg *a, const char *fmt, ...)
{
	va_list ap;

	if (a->nr_warnings == AGG_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(a->warnings[a->nr_warnings++], AGG_WARNING_LEN, fmt, ap);
	va_end(ap);
}

/*
 * What sclat wrote (sclat:session_end) against what the trace holds and what
 * LTTng counts as discarded. LTTng counts discarded events of every kind, so
 * outliers are missing only when even all the discards cannot explain them.
 */
static void completeness_check(struct agg *a)
{
	const struct agg_runs *r = &a->runs;
	struct agg_loss *l = &a->loss;
	uint64_t wrote = r->totals.outliers;
	bool ended = r->ended && r->ended >= r->begun;

	if (r->begun && !r->ended && r->version < 2)
		a->complete = AGG_UNKNOWN;
	else if (!ended)
		warn(a, "no end-of-run accounting (sclat:session_end): sclat record did not "
			"finish this trace (killed, or its output failed); what it wrote after the "
			"last event here is lost and not counted");
	/*
	 * Without it (version 1, or cut short), the statistics still count what
	 * the kernel emitted in the intervals that reached the trace.
	 */
	if (!ended && a->seen + l->discarded < r->stats_outliers && !l->discarded_unknown)
		warn(a,
		     "%llu of the %llu outliers that the trace's sclat:stats count are neither in "
		     "the trace nor counted as discarded by LTTng",
		     (unsigned long long)(r->stats_outliers - a->seen - l->discarded),
		     (unsigned long long)r->stats_outliers);
	if (ended) {
		if (r->begun < r->ended)
			warn(a, "no sclat:session_begin: the start of the trace is missing");
		if (a->seen > wrote)
			warn(a,
			     "the trace holds %llu outliers, more than the %llu sclat wrote into "
			     "it: its counts do not add up",
			     (unsigned long long)a->seen, (unsigned long long)wrote);
		else if (a->seen + l->discarded < wrote && !l->discarded_unknown)
			warn(a,
			     "%llu of the %llu outliers sclat wrote are neither in the trace nor "
			     "counted as discarded by LTTng",
			     (unsigned long long)(wrote - a->seen - l->discarded),
			     (unsigned long long)wrote);
		/* The kernel's final counts, even when LTTng discarded the last sclat:lost. */
		if (r->totals.drops > l->drops)
			l->drops = r->totals.drops;
		if (r->totals.throttled > l->throttled)
			l->throttled = r->totals.throttled;
	}
	if (l->discarded_packets)
		warn(a,
		     "packets missing from the trace: %llu (gaps in their sequence numbers); the "
		     "events they held are lost and not counted",
		     (unsigned long long)l->discarded_packets);
	if (a->nr_warnings)
		a->complete = AGG_INCOMPLETE;
}

int agg_add_snapshot(struct agg *a, const struct snapshot_ref *s)
{
	if (!agg_filter_pass(&a->filter, &s->outlier))
		return 0;
	if (a->nr_snapshots == a->cap_snapshots) {
		size_t cap = a->cap_snapshots ? 2 * a->cap_snapshots : 16;
		struct snapshot_ref *r = realloc(a->snapshots, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		a->snapshots = r;
		a->cap_snapshots = cap;
	}
	a->snapshots[a->nr_snapshots++] = *s;
	return 0;
}

void agg_add_snapshot_count(struct agg *a, const struct snapshot_count *c)
{
	/* One per run; a trace of several runs (one session, --session) holds several. */
	a->snapshot_count.outliers += c->outliers;
	a->snapshot_count.discarded += c->discarded;
	a->snapshot_count.requested += c->requested;
	a->snapshot_count.taken += c->taken;
	a->snapshot_count.failed += c->failed;
	a->snapshot_count.unreported += c->unreported;
	a->snapshot_counted = true;
}

const struct snapshot_ref *agg_snapshot_of(const struct agg *a, const struct outlier *o)
{
	size_t i;

	/* Snapshots are few: the rate policy and the minimum latency keep them so. */
	for (i = 0; i < a->nr_snapshots; i++)
		if (a->snapshots[i].outlier.tid == o->tid &&
		    a->snapshots[i].outlier.entry_ts == o->entry_ts)
			return &a->snapshots[i];
	return NULL;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_s64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_group(const void *x, const void *y, void *by)
{
	const struct agg_group *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (*(enum agg_by *)by == AGG_BY_SYSCALL)
		return strcmp(a->syscall, b->syscall);
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_top(const void *x, const void *y)
{
	return slower(x, y) ? -1 : slower(y, x) ? 1 : 0;
}

/* Nearest rank: the smallest value with at least permille / 1000 of them at or below it. */
static uint64_t quantile(const uint64_t *sorted, uint64_t n, unsigned int permille)
{
	uint64_t rank = (permille * n + 999) / 1000;

	return sorted[rank ? rank - 1 : 0];
}

static unsigned int log2_floor(uint64_t v)
{
	return v ? 63 - __builtin_clzll(v) : 0;
}

static void group_finish(struct agg_group *g)
{
	uint64_t sum = 0, i, run = 0;
	unsigned int lo, hi, k;

	qsort(g->lat, g->count, sizeof(*g->lat), cmp_u64);
	qsort(g->ret, g->count, sizeof(*g->ret), cmp_s64);
	g->min_ns = g->lat[0];
	g->max_ns = g->lat[g->count - 1];
	g->p50_ns = quantile(g->lat, g->count, 500);
	g->p90_ns = quantile(g->lat, g->count, 900);
	g->p99_ns = quantile(g->lat, g->count, 990);
	for (i = 0; i < g->count; i++)
		sum += g->lat[i];
	g->mean_ns = sum / g->count;
	/* The mode of the sorted return values; ties go to the smallest. */
	for (i = 0; i < g->count; i++) {
		run = i && g->ret[i] == g->ret[i - 1] ? run + 1 : 1;
		if (run > g->top_ret_count) {
			g->top_ret_count = run;
			g->top_ret = g->ret[i];
		}
	}
	/* One bin per power of two between the smallest and the largest latency. */
	lo = log2_floor(g->min_ns);
	hi = log2_floor(g->max_ns);
	g->nr_bins = hi - lo + 1;
	for (k = 0; k < g->nr_bins; k++) {
		g->hist[k].from_ns = lo + k ? 1ULL << (lo + k) : 0;
		g->hist[k].to_ns = lo + k + 1 < 64 ? 1ULL << (lo + k + 1) : UINT64_MAX;
		g->hist[k].count = 0;
	}
	for (i = 0; i < g->count; i++)
		g->hist[log2_floor(g->lat[i]) - lo].count++;
}

void agg_finish(struct agg *a)
{
	size_t i;

	/* An sclat:lost that LTTng discarded still shows in the next one's totals. */
	if (a->loss.total_drops > a->loss.drops)
		a->loss.drops = a->loss.total_drops;
	if (a->loss.total_throttled > a->loss.throttled)
		a->loss.throttled = a->loss.total_throttled;
	completeness_check(a);
	for (i = 0; i < a->nr_groups; i++)
		group_finish(&a->groups[i]);
	qsort_r(a->groups, a->nr_groups, sizeof(*a->groups), cmp_group, &a->by);
	qsort(a->top, a->nr_top, sizeof(*a->top), cmp_top);
}

bool agg_loss_any(const struct agg *a)
{
	const struct agg_loss *l = &a->loss;

	return l->drops || l->throttled || l->discarded || l->discarded_unknown ||
	       a->complete == AGG_INCOMPLETE;
}

static const char *const by_names[] = {
	[AGG_BY_SYSCALL] = "syscall",
	[AGG_BY_PROCESS] = "process",
	[AGG_BY_THREAD] = "thread",
};

const char *agg_by_name(enum agg_by by)
{
	return by_names[by];
}

int agg_by_parse(const char *s, enum agg_by *by)
{
	unsigned int i;

	for (i = 0; i < sizeof(by_names) / sizeof(by_names[0]); i++)
		if (!strcmp(s, by_names[i])) {
			*by = i;
			return 0;
		}
	return -1;
}

const char *agg_errno_name(int64_t ret)
{
	return ret < 0 && ret >= -4095 ? strerrorname_np((int)-ret) : NULL;
}
