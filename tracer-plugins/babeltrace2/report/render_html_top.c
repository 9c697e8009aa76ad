// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTML page's outliers of most impact (the most time beyond their
 * normal), each explained in full: where its time went as a stacked bar
 * against its normal and threshold, its one-line why, waker, target, return
 * value and both stacks, frame by frame.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "util/escape.h"
#include "util/outlier_line.h"
#include "render_html.h"

#define BD_W 600.0
#define BD_H 22.0

static int cmp_impact(const void *x, const void *y)
{
	const struct html_top *a = x, *b = y;

	if (a->impact_ns != b->impact_ns)
		return a->impact_ns < b->impact_ns ? 1 : -1;
	return a->o.entry_epoch_ns < b->o.entry_epoch_ns ? -1 : 1;
}

static void bd_part(FILE *f, const char *cls, const char *label, uint64_t ns, double scale,
		    double *x)
{
	char dur[16];

	if (!ns)
		return;
	fprintf(f,
		"<rect class=\"%s\" x=\"%.1f\" y=\"2\" width=\"%.1f\" height=\"%.0f\">"
		"<title>%s %s</title></rect>",
		cls, *x, (double)ns * scale, BD_H - 4, label, html_dur(ns, dur, sizeof(dur)));
	*x += (double)ns * scale;
}

/* Where the latency went, parts side by side, with the normal and threshold marked. */
static void breakdown_svg(FILE *f, const struct html_top *t)
{
	const struct outlier *o = &t->o;
	const struct outlier_explanation *x = &o->why;
	uint64_t lat = o->latency_ns ? o->latency_ns : 1, parts;
	double scale = BD_W / (double)lat, px = 0;
	char dur[16];

	fprintf(f,
		"<svg class=\"bd\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">",
		BD_W, BD_H, BD_W, BD_H);
	bd_part(f, "on", "on CPU", x->on_cpu_ns, scale, &px);
	bd_part(f, "rq", "on the runqueue", x->runqueue_ns, scale, &px);
	bd_part(f, "sl", "asleep", x->sleep_ns, scale, &px);
	bd_part(f, "io", "in I/O wait", x->io_wait_ns, scale, &px);
	parts = x->on_cpu_ns + x->runqueue_ns + x->sleep_ns + x->io_wait_ns;
	if (parts < lat)
		bd_part(f, "other", "not explained", lat - parts, scale, &px);
	if (t->normal_ns && t->normal_ns < lat)
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.0f\"><title>normal %s"
			"</title></line>",
			(double)t->normal_ns * scale, (double)t->normal_ns * scale, BD_H,
			html_dur(t->normal_ns, dur, sizeof(dur)));
	fprintf(f, "</svg>\n");
}

/* A stack's frames, innermost first as the trace has them. */
static void stack_list(FILE *f, const char *title, const char *stack)
{
	const char *s = stack, *end;

	fprintf(f, "<div><h4>%s</h4>", title);
	if (!s || !*s) {
		fprintf(f, "<p>(none)</p></div>\n");
		return;
	}
	fprintf(f, "<ol>");
	while (*s) {
		end = strchr(s, ';');
		fprintf(f, "<li>");
		html_text(f, s, end ? (size_t)(end - s) : strlen(s));
		fprintf(f, "</li>");
		if (!end)
			break;
		s = end + 1;
	}
	fprintf(f, "</ol></div>\n");
}

static void top_why(FILE *f, const struct outlier *o)
{
	char name[TEXT_ESCAPED_SIZE(OUTLIER_NAME_LEN)], *text = NULL;
	struct outlier_why why;
	size_t len;
	FILE *m;

	if (!o->why.present) {
		fprintf(f, "<p class=\"whyline\">why: not recorded (a trace before sclat explained "
			   "outliers)</p>\n");
		return;
	}
	m = open_memstream(&text, &len);
	if (!m)
		return;
	outlier_why_fill(&o->why, &why);
	outlier_why_text(m, &why, text_escape(o->syscall, sizeof(o->syscall), name, sizeof(name)));
	if (!fclose(m)) {
		fprintf(f, "<p class=\"whyline\">why:");
		html_line(f, text);
		fprintf(f, "</p>\n");
	}
	free(text);
}

static void top_facts(FILE *f, const struct html_top *t)
{
	const struct outlier *o = &t->o;
	const struct outlier_explanation *x = &o->why;
	char b[16], n[16], th[16];
	const char *err = agg_errno_name(o->ret);

	fprintf(f, "<dl><dt>beyond normal</dt><dd>%s (normal %s, threshold %s",
		html_dur(t->impact_ns, b, sizeof(b)), html_dur(t->normal_ns, n, sizeof(n)),
		o->threshold_ns == UINT64_MAX ? "off" : html_dur(o->threshold_ns, th, sizeof(th)));
	if (o->class_name[0]) {
		fprintf(f, ", class ");
		html_text(f, o->class_name, sizeof(o->class_name));
	}
	fprintf(f, ")</dd><dt>returned</dt><dd>");
	if (err)
		fprintf(f, "-%s", err);
	else
		fprintf(f, "%" PRId64, o->ret);
	fprintf(f, "</dd><dt>waker</dt><dd>");
	if (x->present && x->waker_comm[0]) {
		html_text(f, x->waker_comm, sizeof(x->waker_comm));
		fprintf(f, " %d/%d", x->waker_pid, x->waker_tid);
	} else {
		fprintf(f, "(none)");
	}
	fprintf(f, "</dd><dt>target</dt><dd>");
	if (x->target && *x->target)
		html_text(f, x->target, strlen(x->target));
	else
		fprintf(f, "(none)");
	fprintf(f, "</dd><dt>switches</dt><dd>%u</dd></dl>\n", x->switches);
}

static void top_one(FILE *f, const struct html_data *d, const struct html_top *t, size_t rank)
{
	const struct outlier *o = &t->o;
	char lat[16], when[48];

	fprintf(f, "<article class=\"top\" id=\"top-%zu\"><h3>%zu. ", rank, rank);
	html_text(f, o->syscall, sizeof(o->syscall));
	fprintf(f, " %s, ", html_dur(o->latency_ns, lat, sizeof(lat)));
	html_text(f, o->comm, sizeof(o->comm));
	fprintf(f, " [%d/%d]", o->pid, o->tid);
	if (d->agg->nr_hosts > 1 && o->host) {
		fprintf(f, " on ");
		html_text(f, o->host, OUTLIER_HOST_LEN);
	}
	fprintf(f, " at %s UTC</h3>\n", html_time(o->entry_epoch_ns, when, sizeof(when)));
	top_why(f, o);
	if (o->why.present)
		breakdown_svg(f, t);
	top_facts(f, t);
	fprintf(f, "<div class=\"stacks\">");
	stack_list(f, "user stack (innermost first)", o->why.user_stack);
	stack_list(f, "kernel stack (innermost first)", o->why.kernel_stack);
	fprintf(f, "</div></article>\n");
}

void html_top(FILE *f, const struct html_data *d)
{
	struct html_top *t;
	size_t i, n = d->top.nr;

	fprintf(f, "<section id=\"top\"><h2>The outliers of most impact</h2>\n");
	if (!n) {
		fprintf(f, "<p>None (--top 0, or no outlier beyond its normal).</p></section>\n");
		return;
	}
	fprintf(f,
		"<p>The %zu outlier%s with the most time beyond their normal, explained: the "
		"bar is the latency (green on CPU, orange on the runqueue, blue asleep, purple "
		"in I/O wait, gray not explained), the black line the normal.</p>\n",
		n, n == 1 ? "" : "s");
	t = malloc(n * sizeof(*t));
	if (!t)
		return;
	memcpy(t, d->top.items, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_impact);
	for (i = 0; i < n; i++)
		top_one(f, d, &t[i], i + 1);
	free(t);
	fprintf(f, "</section>\n");
}
