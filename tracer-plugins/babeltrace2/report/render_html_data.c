// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the HTML page needs beyond the aggregation (render_html.h), collected
 * while the trace is read: a uniform sample of the outliers' points, the
 * series' histograms and threshold changes, throttling over time, each
 * host's missing stacks and sclat's own cost, the outliers of most impact.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/escape.h"
#include "util/outlier_line.h"
#include "agg_grow.h"
#include "render_html.h"

static bool less_impact(const void *x, const void *y)
{
	const struct html_top *a = x, *b = y;

	if (a->impact_ns != b->impact_ns)
		return a->impact_ns < b->impact_ns;
	return a->o.entry_epoch_ns > b->o.entry_epoch_ns;
}

int html_data_init(struct html_data *d, const struct agg *a, unsigned int top_n)
{
	memset(d, 0, sizeof(*d));
	d->agg = a;
	d->top_n = top_n < HTML_MAX_TOP ? top_n : HTML_MAX_TOP;
	d->rng = 0x9e3779b97f4a7c15ULL;
	heap_init(&d->top, sizeof(struct html_top), less_impact);
	d->points = calloc(HTML_MAX_POINTS, sizeof(*d->points));
	return d->points ? 0 : -ENOMEM;
}

void html_data_free(struct html_data *d)
{
	struct html_top *t = d->top.items;
	size_t i;

	for (i = 0; i < d->nr_points; i++)
		free(d->points[i].line);
	for (i = 0; i < d->nr_series; i++)
		free(d->series[i].changes);
	for (i = 0; i < d->top.nr; i++)
		free(t[i].strings);
	free(d->points);
	free(d->series);
	free(d->throttles);
	free(d->hosts);
	free(d->nodes);
	free(d->node_index);
	agg_strings_free(&d->names);
	heap_free(&d->top);
	memset(d, 0, sizeof(*d));
}

uint64_t html_normal_ns(const struct outlier *o)
{
	/* The quantile estimate is what the call usually takes; a static threshold has none. */
	return o->estimate_ns ? o->estimate_ns : o->threshold_ns;
}

static struct html_host *host_of(struct html_data *d, const struct agg_host *h)
{
	size_t i;

	for (i = 0; i < d->nr_hosts; i++)
		if (d->hosts[i].host == h)
			return &d->hosts[i];
	if (agg_grow((void **)&d->hosts, &d->cap_hosts, d->nr_hosts, sizeof(*d->hosts)))
		return NULL;
	memset(&d->hosts[d->nr_hosts], 0, sizeof(*d->hosts));
	d->hosts[d->nr_hosts].host = h;
	return &d->hosts[d->nr_hosts++];
}

/* The series of a syscall and class (added on first sight); NULL past HTML_MAX_SERIES. */
static struct html_series *series_of(struct html_data *d, const char *syscall, const char *cls)
{
	struct html_series *s;
	size_t i;

	for (i = 0; i < d->nr_series; i++)
		if (!strcmp(d->series[i].syscall, syscall) && !strcmp(d->series[i].class_name, cls))
			return &d->series[i];
	if (d->nr_series >= HTML_MAX_SERIES ||
	    agg_grow((void **)&d->series, &d->cap_series, d->nr_series, sizeof(*d->series)))
		return NULL;
	s = &d->series[d->nr_series++];
	memset(s, 0, sizeof(*s));
	snprintf(s->syscall, sizeof(s->syscall), "%s", syscall);
	snprintf(s->class_name, sizeof(s->class_name), "%s", cls);
	return s;
}

static unsigned int log2_bin(uint64_t ns)
{
	return ns ? 63 - (unsigned int)__builtin_clzll(ns) : 0;
}

static uint64_t next_random(struct html_data *d)
{
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	return d->rng;
}

char *html_point_line(const struct outlier *o, bool host)
{
	char name[TEXT_ESCAPED_SIZE(OUTLIER_NAME_LEN)], comm[TEXT_ESCAPED_SIZE(OUTLIER_COMM_LEN)];
	char h[TEXT_ESCAPED_SIZE(OUTLIER_HOST_LEN)], lat[16];
	struct outlier_why why;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	text_escape(o->syscall, sizeof(o->syscall), name, sizeof(name));
	fprintf(f, "%s %s %s[%d/%d]", name, html_dur(o->latency_ns, lat, sizeof(lat)),
		text_escape(o->comm, sizeof(o->comm), comm, sizeof(comm)), o->pid, o->tid);
	if (host && o->host)
		fprintf(f, " @%s", text_escape(o->host, OUTLIER_HOST_LEN, h, sizeof(h)));
	if (o->why.present) {
		outlier_why_fill(&o->why, &why);
		fprintf(f, ":");
		outlier_why_text(f, &why, name);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* A uniform sample of the outliers (reservoir): each of n kept with chance MAX/n. */
static int points_add(struct html_data *d, const struct outlier *o, uint32_t series)
{
	struct html_point *p;
	uint64_t j;

	if (d->nr_points < HTML_MAX_POINTS) {
		p = &d->points[d->nr_points++];
	} else {
		j = next_random(d) % d->outliers;
		if (j >= HTML_MAX_POINTS)
			return 0;
		p = &d->points[j];
		free(p->line);
	}
	p->epoch_ns = o->entry_epoch_ns;
	p->latency_ns = o->latency_ns;
	p->series = series;
	p->line = html_point_line(o, d->agg->nr_hosts > 1);
	return p->line ? 0 : -ENOMEM;
}

/* A copy of o that owns its strings, for the top list; 0 or -ENOMEM. */
static int top_copy(struct html_top *t, const struct outlier *o, uint64_t normal, uint64_t impact)
{
	const struct outlier_explanation *x = &o->why;
	const char *tg = x->target ? x->target : "", *k = x->kernel_stack ? x->kernel_stack : "";
	const char *u = x->user_stack ? x->user_stack : "";
	size_t ltg = strlen(tg) + 1, lk = strlen(k) + 1, lu = strlen(u) + 1;

	t->o = *o;
	t->normal_ns = normal;
	t->impact_ns = impact;
	t->strings = malloc(ltg + lk + lu);
	if (!t->strings)
		return -ENOMEM;
	memcpy(t->strings, tg, ltg);
	memcpy(t->strings + ltg, k, lk);
	memcpy(t->strings + ltg + lk, u, lu);
	t->o.why.target = t->strings;
	t->o.why.kernel_stack = t->strings + ltg;
	t->o.why.user_stack = t->strings + ltg + lk;
	t->o.why.stack = NULL;
	return 0;
}

static int top_add(struct html_data *d, const struct outlier *o, uint32_t series, uint64_t normal,
		   uint64_t impact)
{
	struct html_top t, old;
	const struct html_top *least = heap_top(&d->top);

	if (!d->top_n)
		return 0;
	if (d->top.nr >= d->top_n) {
		t = (struct html_top){ .o = *o, .impact_ns = impact };
		if (!less_impact(least, &t))
			return 0;
		heap_pop(&d->top, &old);
		free(old.strings);
	}
	if (top_copy(&t, o, normal, impact)) {
		free(t.strings);
		return -ENOMEM;
	}
	t.series = series;
	if (heap_push(&d->top, &t)) {
		free(t.strings);
		return -ENOMEM;
	}
	return 0;
}

static void series_count(struct html_series *s, const struct outlier *o, uint64_t normal)
{
	if (!s->count || o->latency_ns < s->min_ns)
		s->min_ns = o->latency_ns;
	if (o->latency_ns > s->max_ns)
		s->max_ns = o->latency_ns;
	s->count++;
	s->hist[log2_bin(o->latency_ns)]++;
	s->threshold_ns = o->threshold_ns;
	s->normal_ns = normal;
}

static int outlier_add(struct html_data *d, struct html_host *hh, const struct outlier *o)
{
	uint64_t normal = html_normal_ns(o);
	uint64_t beyond = o->latency_ns > normal ? o->latency_ns - normal : 0;
	struct html_series *s = series_of(d, o->syscall, o->class_name);
	uint32_t series;
	int err;

	d->outliers++;
	if (s)
		series_count(s, o, normal);
	else
		d->series_dropped++;
	if (o->why.present) {
		hh->explained++;
		hh->no_kernel_stack += !o->why.kernel_stack || !*o->why.kernel_stack;
		hh->no_user_stack += !o->why.user_stack || !*o->why.user_stack;
	}
	d->beyond_ns += beyond;
	series = s ? (uint32_t)(s - d->series) : UINT32_MAX;
	err = points_add(d, o, series);
	if (!err && beyond)
		err = html_flame_add(d, o, beyond);
	return err ? err : top_add(d, o, series, normal, beyond);
}

static int change_add(struct html_data *d, const struct threshold_change *t)
{
	const char *only = d->agg->filter.syscall;
	struct html_series *s;

	if (only && strcmp(only, t->syscall))
		return 0;
	s = series_of(d, t->syscall, t->class_name);
	if (!s)
		return 0;
	if (agg_grow((void **)&s->changes, &s->cap_changes, s->nr_changes, sizeof(*s->changes)))
		return -ENOMEM;
	s->changes[s->nr_changes++] =
		(struct html_change){ t->epoch_ns, t->old_ns, t->new_ns, t->estimate_ns };
	return 0;
}

static int throttle_add(struct html_data *d, int64_t ns, const struct lost_count *l)
{
	if (!l->throttled && !l->drops)
		return 0;
	if (d->nr_throttles >= HTML_MAX_THROTTLES) {
		d->throttles_dropped++;
		return 0;
	}
	if (agg_grow((void **)&d->throttles, &d->cap_throttles, d->nr_throttles,
		     sizeof(*d->throttles)))
		return -ENOMEM;
	d->throttles[d->nr_throttles++] = (struct html_throttle){ ns, l->throttled, l->drops };
	return 0;
}

/* sclat:overhead: the latest of the run (its totals are since the start). */
static void overhead_add(struct html_host *hh, const struct overhead_sample *o)
{
	hh->overhead_seen = true;
	hh->ns_per_syscall = o->ns_per_syscall;
	hh->explain_bpf_ns = o->explain_bpf_ns;
	hh->explain_user_ns = o->explain_user_ns;
	hh->delivered = o->outliers;
	hh->user_stacks_dropped = o->user_stacks_dropped;
	hh->user_stacks_unwound = o->user_stacks_unwound;
	if (o->consumer_lag_ns > hh->consumer_lag_max_ns)
		hh->consumer_lag_max_ns = o->consumer_lag_ns;
}

int html_data_feed(struct html_data *d, const struct feed *fd, const bt_message *msg)
{
	const bt_event *ev;
	const bt_clock_snapshot *cs;
	struct threshold_change t;
	struct html_host *hh;
	struct overhead_sample over;
	struct lost_count l;
	struct outlier o;
	int64_t ns = 0;

	if (bt_message_get_type(msg) != BT_MESSAGE_TYPE_EVENT || !fd->host)
		return 0;
	ev = bt_message_event_borrow_event_const(msg);
	cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (cs && bt_clock_snapshot_get_ns_from_origin(cs, &ns))
		ns = 0;
	hh = host_of(d, fd->host);
	if (!hh)
		return -ENOMEM;
	/* feed_message() read each event already: one it refused never comes here. */
	switch (sclat_event_kind(bt_event_borrow_class_const(ev))) {
	case SCLAT_EVENT_OUTLIER:
		if (outlier_read(ev, &o) || !agg_filter_pass(&d->agg->filter, &o))
			return 0;
		o.host = fd->host->name;
		return outlier_add(d, hh, &o);
	case SCLAT_EVENT_THRESHOLD:
		return threshold_change_read(ev, cs, &t) ? -EINVAL : change_add(d, &t);
	case SCLAT_EVENT_LOST:
		return lost_count_read(ev, &l) ? -EINVAL : throttle_add(d, ns, &l);
	case SCLAT_EVENT_OVERHEAD:
		/* The report reads it nowhere else: one it cannot read is left out. */
		if (!overhead_read(ev, &over))
			overhead_add(hh, &over);
		return 0;
	default:
		return 0;
	}
}
