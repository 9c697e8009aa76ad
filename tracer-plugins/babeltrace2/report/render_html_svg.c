// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTML page's static pictures: the outliers over time (a scatter of
 * latency, log scale, against time; the calls reported in flight as bars),
 * and per syscall and class a card with its latency histogram (log2
 * buckets, the threshold and the normal marked) and its threshold over time
 * (learned changes, static ones, intervals with throttling).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/escape.h"
#include "render_html.h"

#define SC_W	 1200.0
#define SC_H	 380.0
#define SC_LEFT	 70.0
#define SC_BOT	 30.0
#define SC_TOP	 10.0
#define HIST_W	 400.0
#define HIST_H	 160.0
#define THR_H	 120.0
#define CARD_L	 60.0
#define CARD_B	 28.0
#define MAX_HUNG 2000

/* A linear axis from [lo, hi] to [a, b]. */
struct axis {
	double lo, hi, a, b;
};

static double axis_at(const struct axis *x, double v)
{
	double span = x->hi - x->lo;

	return x->a + (span > 0 ? (v - x->lo) / span : 0.5) * (x->b - x->a);
}

void html_span(const struct html_data *d, int64_t *t0, int64_t *t1)
{
	const struct agg *a = d->agg;
	bool set = false;
	size_t i;

	*t0 = a->first_epoch_ns;
	*t1 = a->last_exit_epoch_ns;
	for (i = 0; i < a->nr_hosts; i++) {
		if (!a->hosts[i]->timed)
			continue;
		if (!set || a->hosts[i]->first_ns < *t0)
			*t0 = a->hosts[i]->first_ns;
		if (!set || a->hosts[i]->last_ns > *t1)
			*t1 = a->hosts[i]->last_ns;
		set = true;
	}
	if (*t1 <= *t0)
		*t1 = *t0 + 1000000000LL;
}

/* Time ticks along a time axis: "12:00:01.250" UTC. */
static void time_ticks(FILE *f, const struct axis *x, double y, int n)
{
	char t[48];
	int i;

	for (i = 0; i <= n; i++) {
		double v = x->lo + (x->hi - x->lo) * i / n;
		double px = axis_at(x, v);

		html_time((int64_t)v, t, sizeof(t));
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			px, SC_TOP, px, y);
		fprintf(f,
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
			px, y + 16, i == n ? "end" : "middle", t + 11);
	}
}

/* Decade ticks along a log10 latency axis. */
static void latency_ticks(FILE *f, const struct axis *y, double x0, double x1)
{
	char dur[16];
	int k;

	for (k = (int)ceil(y->lo); k <= (int)floor(y->hi); k++) {
		double py = axis_at(y, k);

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			x0, py, x1, py);
		fprintf(f,
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			x0 - 4, py + 4, html_dur((uint64_t)pow(10, k), dur, sizeof(dur)));
	}
}

/* The latency range of the points and in-flight calls, as decades. */
static void latency_range(const struct html_data *d, double *lo, double *hi)
{
	uint64_t min = UINT64_MAX, max = 1;
	size_t i;

	for (i = 0; i < d->nr_points; i++) {
		if (d->points[i].latency_ns < min)
			min = d->points[i].latency_ns;
		if (d->points[i].latency_ns > max)
			max = d->points[i].latency_ns;
	}
	for (i = 0; i < d->agg->nr_hung && i < MAX_HUNG; i++)
		if (d->agg->hung[i].outlier.latency_ns > max)
			max = d->agg->hung[i].outlier.latency_ns;
	for (i = 0; i < d->top.nr; i++) {
		const struct html_top *t = (const struct html_top *)d->top.items + i;

		if (t->o.latency_ns < min)
			min = t->o.latency_ns;
		if (t->o.latency_ns > max)
			max = t->o.latency_ns;
	}
	if (min == UINT64_MAX || !min)
		min = 1;
	*lo = floor(log10((double)min));
	*hi = ceil(log10((double)max));
	if (*hi <= *lo)
		*hi = *lo + 1;
}

static void hung_bars(FILE *f, const struct html_data *d, const struct axis *x,
		      const struct axis *y)
{
	char dur[16];
	size_t i;

	for (i = 0; i < d->agg->nr_hung && i < MAX_HUNG; i++) {
		const struct hung_call *h = &d->agg->hung[i];
		const struct outlier *o = &h->outlier;
		double py = axis_at(y, log10((double)(o->latency_ns ? o->latency_ns : 1)));

		fprintf(f, "<g class=\"inflight\"><title>%s ",
			h->returned ? "returned" : "IN FLIGHT");
		html_text(f, o->syscall, sizeof(o->syscall));
		fprintf(f, " %s ", html_dur(o->latency_ns, dur, sizeof(dur)));
		html_text(f, o->comm, sizeof(o->comm));
		fprintf(f, "[%d/%d] ", o->pid, o->tid);
		html_text(f, h->state, sizeof(h->state));
		fprintf(f,
			", reported %u time%s</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\"/></g>\n",
			h->reports, h->reports == 1 ? "" : "s",
			axis_at(x, (double)o->entry_epoch_ns), py,
			axis_at(x, (double)o->entry_epoch_ns + (double)o->latency_ns), py);
	}
}

/* The outliers of most impact, sampled or not: ringed, over the sample. */
static void top_points(FILE *f, const struct html_data *d, const struct axis *x,
		       const struct axis *y)
{
	const struct html_top *t = d->top.items;
	char *line;
	size_t i;

	for (i = 0; i < d->top.nr; i++) {
		line = html_point_line(&t[i].o, d->agg->nr_hosts > 1);
		if (!line)
			return;
		fprintf(f,
			"<circle class=\"pt top\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\">"
			"<title>",
			axis_at(x, (double)t[i].o.entry_epoch_ns),
			axis_at(y, log10((double)(t[i].o.latency_ns ? t[i].o.latency_ns : 1))),
			t[i].series == UINT32_MAX ? "#888" : html_color(t[i].series));
		html_line(f, line);
		fprintf(f, "</title></circle>\n");
		free(line);
	}
}

static void scatter_legend(FILE *f, const struct html_data *d)
{
	size_t i;

	fprintf(f, "<p class=\"legend\">");
	for (i = 0; i < d->nr_series; i++) {
		fprintf(f, "<span><i style=\"background:%s\"></i>", html_color(i));
		html_text(f, d->series[i].syscall, sizeof(d->series[i].syscall));
		if (d->series[i].class_name[0]) {
			fprintf(f, " [");
			html_text(f, d->series[i].class_name, sizeof(d->series[i].class_name));
			fprintf(f, "]");
		}
		fprintf(f, "</span> ");
	}
	if (d->agg->nr_hung)
		fprintf(f,
			"<span><i class=\"hungkey\"></i>reported in flight (a bar from its entry "
			"over its time in flight)</span>");
	fprintf(f, "</p>\n");
}

void html_scatter(FILE *f, const struct html_data *d)
{
	struct axis x = { .a = SC_LEFT, .b = SC_W - 10 }, y = { .a = SC_H - SC_BOT, .b = SC_TOP };
	int64_t t0, t1;
	size_t i;

	fprintf(f, "<section id=\"scatter\"><h2>Outliers over time</h2>\n");
	if (!d->nr_points && !d->agg->nr_hung) {
		fprintf(f, "<p>No outlier in the trace (within the filters).</p></section>\n");
		return;
	}
	if (d->outliers > d->nr_points)
		fprintf(f,
			"<p class=\"sampled\">Sampled: %zu of %" PRIu64 " outliers drawn, chosen "
			"uniformly at random (each outlier had the same chance).</p>\n",
			d->nr_points, d->outliers);
	if (d->agg->nr_hung > MAX_HUNG)
		fprintf(f,
			"<p class=\"sampled\">%d of %zu calls reported in flight drawn (the "
			"ones still in flight first, then the longest).</p>\n",
			MAX_HUNG, d->agg->nr_hung);
	fprintf(f, "<p>Latency (log scale) against entry time (UTC); hover a point for why it "
		   "was slow, or click it. The outliers of most impact (below) are ringed, "
		   "always drawn.</p>\n");
	html_span(d, &t0, &t1);
	x.lo = (double)t0;
	x.hi = (double)t1;
	latency_range(d, &y.lo, &y.hi);
	fprintf(f,
		"<svg id=\"scattersvg\" class=\"scatter\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		SC_W, SC_H, SC_W, SC_H);
	time_ticks(f, &x, SC_H - SC_BOT, 6);
	latency_ticks(f, &y, SC_LEFT, SC_W - 10);
	for (i = 0; i < d->nr_points; i++) {
		const struct html_point *p = &d->points[i];

		fprintf(f,
			"<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>",
			axis_at(&x, (double)p->epoch_ns),
			axis_at(&y, log10((double)(p->latency_ns ? p->latency_ns : 1))),
			p->series == UINT32_MAX ? "#888" : html_color(p->series));
		html_line(f, p->line);
		fprintf(f, "</title></circle>\n");
	}
	top_points(f, d, &x, &y);
	hung_bars(f, d, &x, &y);
	fprintf(f, "</svg>\n<p id=\"why\" class=\"why\"></p>\n");
	scatter_legend(f, d);
	fprintf(f, "</section>\n");
}

/* A vertical marker at a latency on a log2 histogram's axis. */
static void hist_marker(FILE *f, const struct axis *x, uint64_t ns, const char *cls,
			const char *label)
{
	char dur[16];
	double px;

	if (!ns)
		return;
	px = axis_at(x, log2((double)ns));
	fprintf(f,
		"<g class=\"%s\"><title>%s %s</title><line x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" "
		"y2=\"%.1f\"/><text x=\"%.1f\" y=\"%s\">%s</text></g>\n",
		cls, label, html_dur(ns, dur, sizeof(dur)), px, px, HIST_H - CARD_B, px + 3,
		!strcmp(cls, "thr") ? "18" : "30", label);
}

static void hist_svg(FILE *f, const struct html_series *s)
{
	struct axis x = { .a = CARD_L, .b = HIST_W - 10 }, y = { .a = HIST_H - CARD_B, .b = 10 };
	uint64_t max = 1, lo_ns = s->min_ns, hi_ns = s->max_ns;
	char from[16], to[16];
	unsigned int k, lo, hi, step;

	if (s->threshold_ns && s->threshold_ns < lo_ns)
		lo_ns = s->threshold_ns;
	if (s->normal_ns && s->normal_ns < lo_ns)
		lo_ns = s->normal_ns;
	if (s->threshold_ns > hi_ns)
		hi_ns = s->threshold_ns;
	lo = lo_ns ? 63 - (unsigned int)__builtin_clzll(lo_ns) : 0;
	hi = hi_ns ? 63 - (unsigned int)__builtin_clzll(hi_ns) : 0;
	for (k = lo; k <= hi; k++)
		if (s->hist[k] > max)
			max = s->hist[k];
	x.lo = lo;
	x.hi = hi + 1;
	y.lo = 0;
	y.hi = log10((double)max + 1); /* counts on a log scale: the tail shows beside the body */
	step = (hi - lo + 1 + 5) / 6;
	fprintf(f,
		"<svg class=\"hist\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		HIST_W, HIST_H, HIST_W, HIST_H);
	fprintf(f,
		"<text class=\"tick\" x=\"%.0f\" y=\"14\" text-anchor=\"end\">%" PRIu64 "</text>\n",
		CARD_L - 4, max);
	for (k = lo; k <= hi; k++) {
		double x0 = axis_at(&x, k), x1 = axis_at(&x, k + 1),
		       py = axis_at(&y, log10((double)s->hist[k] + 1));

		fprintf(f,
			"<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
			"<title>[%s, %s): %" PRIu64 "</title></rect>\n",
			x0 + 0.5, py, x1 - x0 - 1, HIST_H - CARD_B - py,
			html_dur(1ULL << k, from, sizeof(from)),
			html_dur(k < 63 ? 1ULL << (k + 1) : UINT64_MAX, to, sizeof(to)),
			s->hist[k]);
		if ((k - lo) % step == 0 && x0 < HIST_W - 40)
			fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x0,
				HIST_H - CARD_B + 14, from);
	}
	hist_marker(f, &x, s->threshold_ns, "thr", "threshold");
	hist_marker(f, &x, s->normal_ns != s->threshold_ns ? s->normal_ns : 0, "normal", "normal");
	fprintf(f, "</svg>\n");
}

/* The log10 range of a series' thresholds over time. */
static void threshold_range(const struct html_series *s, double *lo, double *hi)
{
	uint64_t min = s->threshold_ns ? s->threshold_ns : UINT64_MAX, max = s->threshold_ns;
	size_t i;

	for (i = 0; i < s->nr_changes; i++) {
		const struct html_change *c = &s->changes[i];
		uint64_t v[2] = { c->old_ns, c->new_ns };
		int k;

		for (k = 0; k < 2; k++) {
			if (v[k] && v[k] != UINT64_MAX && v[k] < min)
				min = v[k];
			if (v[k] != UINT64_MAX && v[k] > max)
				max = v[k];
		}
	}
	*lo = log10((double)(min == UINT64_MAX || !min ? 1 : min)) - 0.15;
	*hi = log10((double)(max ? max : 1)) + 0.15;
}

static double thr_y(const struct axis *y, uint64_t ns)
{
	double v;

	/* UINT64_MAX: off, drawn at the top; below the range (0 ns, cold): at the bottom. */
	if (ns == UINT64_MAX)
		return y->b;
	v = log10((double)(ns ? ns : 1));
	return axis_at(y, v < y->lo ? y->lo : v > y->hi ? y->hi : v);
}

static void throttle_marks(FILE *f, const struct html_data *d, const struct axis *x)
{
	size_t i;

	for (i = 0; i < d->nr_throttles; i++) {
		const struct html_throttle *t = &d->throttles[i];
		double px = axis_at(x, (double)t->epoch_ns);

		fprintf(f,
			"<g class=\"throttle\"><title>%" PRIu64 " throttled, %" PRIu64
			" dropped in this interval</title><rect x=\"%.1f\" y=\"%.1f\" width=\"3\" "
			"height=\"8\"/></g>\n",
			t->throttled, t->drops, px - 1.5, THR_H - CARD_B - 8);
	}
}

static void change_dot(FILE *f, const struct html_change *c, double px, double py)
{
	char o[16], n[16], e[16];

	fprintf(f, "<g class=\"%s\"><title>%s -&gt; %s", c->estimate_ns ? "learned" : "static",
		c->old_ns == UINT64_MAX ? "off" : html_dur(c->old_ns, o, sizeof(o)),
		c->new_ns == UINT64_MAX ? "off" : html_dur(c->new_ns, n, sizeof(n)));
	if (c->estimate_ns)
		fprintf(f, ", learned from an estimate of %s",
			html_dur(c->estimate_ns, e, sizeof(e)));
	else
		fprintf(f, ", not learned (static, or not armed yet)");
	fprintf(f, "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/></g>\n", px, py);
}

static void threshold_svg(FILE *f, const struct html_data *d, const struct html_series *s)
{
	struct axis x = { .a = CARD_L, .b = HIST_W - 10 }, y = { .a = THR_H - CARD_B, .b = 14 };
	uint64_t last = s->nr_changes ? s->changes[s->nr_changes - 1].new_ns : s->threshold_ns;
	char dur[16];
	int64_t t0, t1;
	double px, py;
	size_t i;

	html_span(d, &t0, &t1);
	x.lo = (double)t0;
	x.hi = (double)t1;
	threshold_range(s, &y.lo, &y.hi);
	fprintf(f,
		"<svg class=\"thrsvg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		HIST_W, THR_H, HIST_W, THR_H);
	latency_ticks(f, &y, CARD_L, HIST_W - 10);
	py = thr_y(&y, s->nr_changes ? s->changes[0].old_ns : s->threshold_ns);
	fprintf(f, "<path class=\"step\" d=\"M%.1f %.1f", x.a, py);
	for (i = 0; i < s->nr_changes; i++) {
		px = axis_at(&x, (double)s->changes[i].epoch_ns);
		fprintf(f, " H%.1f V%.1f", px, thr_y(&y, s->changes[i].new_ns));
	}
	fprintf(f, " H%.1f\"/>\n", x.b);
	for (i = 0; i < s->nr_changes; i++)
		change_dot(f, &s->changes[i], axis_at(&x, (double)s->changes[i].epoch_ns),
			   thr_y(&y, s->changes[i].new_ns));
	throttle_marks(f, d, &x);
	/* Its last value at the end: the range may hold no whole decade to tick. */
	fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		x.b, thr_y(&y, last) - 4,
		last == UINT64_MAX ? "off" : html_dur(last, dur, sizeof(dur)));
	fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">threshold over time</text>\n", x.a,
		THR_H - CARD_B + 16);
	fprintf(f, "</svg>\n");
}

static void series_card(FILE *f, const struct html_data *d, size_t i)
{
	const struct html_series *s = &d->series[i];
	char min[16], max[16], thr[16], nor[16];

	fprintf(f, "<div class=\"card\" id=\"series-%zu\"><h3><i style=\"background:%s\"></i>", i,
		html_color(i));
	html_text(f, s->syscall, sizeof(s->syscall));
	if (s->class_name[0]) {
		fprintf(f, " <span class=\"cls\">class ");
		html_text(f, s->class_name, sizeof(s->class_name));
		fprintf(f, "</span>");
	}
	fprintf(f,
		"</h3>\n<p>%" PRIu64 " outlier%s, %s to %s; threshold %s, normal %s; %zu "
		"threshold change%s</p>\n",
		s->count, s->count == 1 ? "" : "s", html_dur(s->min_ns, min, sizeof(min)),
		html_dur(s->max_ns, max, sizeof(max)),
		s->threshold_ns == UINT64_MAX ? "off" : html_dur(s->threshold_ns, thr, sizeof(thr)),
		html_dur(s->normal_ns, nor, sizeof(nor)), s->nr_changes,
		s->nr_changes == 1 ? "" : "s");
	if (s->count)
		hist_svg(f, s);
	threshold_svg(f, d, s);
	fprintf(f, "</div>\n");
}

static const struct html_series *sort_base;

static int cmp_series(const void *x, const void *y)
{
	const struct html_series *a = &sort_base[*(const size_t *)x];
	const struct html_series *b = &sort_base[*(const size_t *)y];

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

void html_series_cards(FILE *f, const struct html_data *d)
{
	size_t *order, i;

	fprintf(f, "<section id=\"syscalls\"><h2>Per syscall and class</h2>\n");
	fprintf(f,
		"<p>The outliers' latencies in powers of two, counts on a log scale, the threshold they "
		"crossed (red) and their normal (green, dashed: the quantile estimate behind a "
		"learned threshold); below, the threshold over time: filled dots are learned "
		"changes, hollow ones static; red ticks are intervals in which events were "
		"throttled or dropped.</p>\n");
	if (d->series_dropped)
		fprintf(f,
			"<p class=\"sampled\">%" PRIu64 " outliers of syscalls and classes past "
			"the first %d have no card.</p>\n",
			d->series_dropped, HTML_MAX_SERIES);
	order = calloc(d->nr_series ? d->nr_series : 1, sizeof(*order));
	if (!order)
		return;
	for (i = 0; i < d->nr_series; i++)
		order[i] = i;
	sort_base = d->series;
	qsort(order, d->nr_series, sizeof(*order), cmp_series);
	fprintf(f, "<div class=\"cards\">\n");
	for (i = 0; i < d->nr_series; i++)
		series_card(f, d, order[i]);
	fprintf(f, "</div></section>\n");
	free(order);
}
