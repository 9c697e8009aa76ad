// SPDX-License-Identifier: GPL-2.0-only
/* The rows of `sclat top`: rated between frames, sorted (top_view.h). */
#include <stdlib.h>
#include <string.h>
#include "top_view.h"

static const char *const column_names[TOP_COLUMNS] = {
	[TOP_COL_NAME] = "SYSCALL",
	[TOP_COL_CALLS] = "CALLS/S",
	[TOP_COL_P50] = "P50",
	[TOP_COL_P99] = "P99",
	[TOP_COL_THRESHOLD] = "THRESHOLD",
	[TOP_COL_OUTLIERS] = "OUTL/S",
	[TOP_COL_LOST] = "LOST/S",
};

const char *top_column_name(enum top_column c)
{
	return c < TOP_COLUMNS ? column_names[c] : "?";
}

bool top_view_key(struct top_view *v, int key)
{
	switch (key) {
	case 'C':
		v->sort = TOP_COL_CALLS;
		break;
	case 'P':
		v->sort = TOP_COL_P99;
		break;
	case 'O':
		v->sort = TOP_COL_OUTLIERS;
		break;
	case 'T':
		v->sort = TOP_COL_LOST;
		break;
	case 'N':
		v->sort = TOP_COL_NAME;
		break;
	case '<':
		v->sort = v->sort ? v->sort - 1 : v->sort;
		break;
	case '>':
		v->sort = v->sort + 1 < TOP_COLUMNS ? v->sort + 1 : v->sort;
		break;
	case 'R':
		v->reverse = !v->reverse;
		break;
	default:
		return false;
	}
	return true;
}

struct top_view *top_view_new(void)
{
	struct top_view *v = calloc(1, sizeof(*v));
	int i;

	if (!v)
		return NULL;
	v->sort = TOP_COL_LOST;
	for (i = 0; i < 3; i++) {
		v->frames[i] = calloc(1, sizeof(struct top_frame));
		if (!v->frames[i]) {
			top_view_free(v);
			return NULL;
		}
	}
	return v;
}

void top_view_free(struct top_view *v)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < 3; i++)
		free(v->frames[i]);
	free(v);
}

struct top_frame *top_view_next(struct top_view *v)
{
	int i;

	for (i = 0; i < 2; i++)
		if (v->frames[i] != v->cur && v->frames[i] != v->prev)
			break;
	return v->frames[i];
}

void top_view_take(struct top_view *v, struct top_frame *f)
{
	if (!v->cur || v->cur->pid != f->pid || v->cur->elapsed_ns < f->elapsed_ns)
		v->prev = v->cur;
	v->cur = f;
	top_view_update(v);
}

/* The same row in prev: the same syscall, and the same class or none. */
static const struct top_row *row_before(const struct top_frame *prev, const struct top_row *r)
{
	unsigned int i;

	for (i = 0; i < prev->nr_rows; i++) {
		const struct top_row *p = &prev->rows[i];

		if (p->nr == r->nr && !strcmp(p->cls, r->cls) && !strcmp(p->syscall, r->syscall))
			return p;
	}
	return NULL;
}

/* Per second from a count now and before (a count that went back started again). */
static double per_s(__u64 now, __u64 before, double secs)
{
	return (now >= before ? now - before : now) / secs;
}

static void row_rate(struct top_view *v, struct top_view_row *vr, double secs, double lost_secs)
{
	const struct top_row *r = vr->row, *p = v->since_start ? NULL : row_before(v->prev, r);
	double since = v->cur->elapsed_ns / 1e9;

	if (!p) {
		/* The last interval's calls; outliers and time lost on average so far. */
		vr->calls_s = r->rate;
		vr->outliers_s = since > 0 ? r->outliers / since : 0;
		vr->lost_s = r->lost_ns == TOP_NONE ? -1 : since > 0 ? r->lost_ns / since : 0;
		return;
	}
	vr->calls_s = per_s(r->calls, p->calls, secs);
	vr->outliers_s = per_s(r->outliers, p->outliers, secs);
	/* The time lost is summed as outliers come, not once an interval. */
	if (r->lost_ns == TOP_NONE)
		vr->lost_s = -1;
	else if (p->lost_ns == TOP_NONE || lost_secs <= 0)
		vr->lost_s = since > 0 ? r->lost_ns / since : 0;
	else
		vr->lost_s = per_s(r->lost_ns, p->lost_ns, lost_secs);
}

/* The sort column's value of a row: greater first. */
static double sort_value(enum top_column c, const struct top_view_row *r)
{
	switch (c) {
	case TOP_COL_CALLS:
		return r->calls_s;
	case TOP_COL_P50:
		return r->row->p50_ns;
	case TOP_COL_P99:
		return r->row->p99_ns;
	case TOP_COL_THRESHOLD:
		/* off and none last. */
		return r->row->threshold_ns >= TOP_NONE ? -1 : (double)r->row->threshold_ns;
	case TOP_COL_OUTLIERS:
		return r->outliers_s;
	case TOP_COL_LOST:
		return r->lost_s;
	default:
		return 0;
	}
}

/* qsort has no context: the view being sorted, on the one thread that sorts. */
static const struct top_view *sorting;

static int by_column(const void *a, const void *b)
{
	const struct top_view_row *x = a, *y = b;
	double vx, vy;
	int d = 0;

	if (sorting->sort == TOP_COL_NAME) {
		d = strcmp(x->row->cls[0] ? x->row->cls : x->row->syscall,
			   y->row->cls[0] ? y->row->cls : y->row->syscall);
	} else {
		vx = sort_value(sorting->sort, x);
		vy = sort_value(sorting->sort, y);
		d = vx > vy ? -1 : vx < vy;
	}
	if (sorting->reverse)
		d = -d;
	if (!d)
		d = x->calls_s > y->calls_s ? -1 : x->calls_s < y->calls_s;
	return d ? d : (x->row < y->row ? -1 : x->row > y->row);
}

void top_view_update(struct top_view *v)
{
	struct top_view_row *classes;
	unsigned int i, j, n = 0, nc = 0, out = 0;
	double secs = 0, lost_secs = 0;

	v->since_start = !v->prev || v->prev->pid != v->cur->pid ||
			 v->prev->elapsed_ns >= v->cur->elapsed_ns;
	if (!v->since_start) {
		secs = (v->cur->elapsed_ns - v->prev->elapsed_ns) / 1e9;
		lost_secs = ((double)v->cur->fetched_ns - (double)v->prev->fetched_ns) / 1e9;
	}
	classes = malloc(sizeof(*classes) * (v->cur->nr_rows + 1));
	for (i = 0; i < v->cur->nr_rows; i++) {
		const struct top_row *r = &v->cur->rows[i];
		struct top_view_row vr = { .row = r };

		if ((!r->calls && !r->outliers) || (r->cls[0] && !classes))
			continue;
		row_rate(v, &vr, secs, lost_secs);
		if (r->cls[0])
			classes[nc++] = vr;
		else
			v->rows[n++] = vr;
	}
	sorting = v;
	qsort(v->rows, n, sizeof(v->rows[0]), by_column);
	if (classes)
		qsort(classes, nc, sizeof(classes[0]), by_column);
	/* Each syscall's classes under it, in the same order: moved up from the end. */
	if (nc) {
		memmove(v->rows + nc, v->rows, n * sizeof(v->rows[0]));
		for (i = 0; i < n; i++) {
			const struct top_view_row sc = v->rows[nc + i];

			v->rows[out++] = sc;
			for (j = 0; j < nc; j++)
				if (classes[j].row->nr == sc.row->nr)
					v->rows[out++] = classes[j];
		}
	} else {
		out = n;
	}
	v->nr_rows = out;
	free(classes);
}
