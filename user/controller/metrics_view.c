// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "metrics_view.h"
#include "classes.h"
#include "engine.h"
#include "policy/policy.h"

/* A cell's series, and who it counts for: a cell given to another class starts again. */
struct view_cell {
	bool used;
	unsigned int nr, class_id, fd_kind;
	__u32 kind;
	__u64 key;
	char name[BASIS_CLASS_MAX];
	struct latency_hist h;
};

struct metrics_view {
	pthread_mutex_t lock; /* everything below */
	struct latency_hist sc[ENGINE_ENTRIES];
	unsigned int nr_cells;
	struct view_cell *cell;
	struct metrics_budget budget;
	__u64 cpu_ns;
};

struct metrics_view *metrics_view_new(unsigned int nr_cells)
{
	struct metrics_view *mv = calloc(1, sizeof(*mv));

	if (!mv)
		return NULL;
	mv->cell = nr_cells ? calloc(nr_cells, sizeof(*mv->cell)) : NULL;
	if (nr_cells && !mv->cell) {
		free(mv);
		return NULL;
	}
	mv->nr_cells = nr_cells;
	pthread_mutex_init(&mv->lock, NULL);
	return mv;
}

void metrics_view_free(struct metrics_view *mv)
{
	if (!mv)
		return;
	pthread_mutex_destroy(&mv->lock);
	free(mv->cell);
	free(mv);
}

unsigned int latency_le_index(unsigned int bucket)
{
	/* The bucket's end (exclusive): its calls are under every bound from there. */
	__u64 end = sclat_hist_upper(bucket);
	unsigned int i;

	if (bucket >= SCLAT_HIST_BUCKETS - 1)
		return LATENCY_LE_BUCKETS;
	for (i = 0; i < LATENCY_LE_BUCKETS; i++)
		if (end <= latency_le_ns(i))
			return i;
	return LATENCY_LE_BUCKETS;
}

static void hist_add(struct latency_hist *h, const struct sclat_hist *d)
{
	unsigned int b, i;

	for (b = 0; b < SCLAT_HIST_BUCKETS; b++) {
		if (!d->bucket[b])
			continue;
		h->count += d->bucket[b];
		h->sum_ns += (__u64)d->bucket[b] * sclat_hist_value(b);
		i = latency_le_index(b);
		if (i < LATENCY_LE_BUCKETS)
			h->in[i] += d->bucket[b];
	}
}

/* Cell i of cs as the view knows it: the same class as last time, or a new series. */
static void cell_track(struct view_cell *v, const struct classes *cs, unsigned int i)
{
	const struct class_cell *c = &cs->cell[i];
	const struct task_class *t = c->class_id < SCLAT_CLASS_IDS ? &cs->id[c->class_id] : NULL;
	__u32 kind = t ? t->kind : 0;
	__u64 key = t ? t->key : 0;

	if (v->used && v->nr == c->nr && v->class_id == c->class_id && v->fd_kind == c->fd_kind &&
	    v->kind == kind && v->key == key)
		return;
	memset(v, 0, sizeof(*v));
	v->used = true;
	v->nr = c->nr;
	v->class_id = c->class_id;
	v->fd_kind = c->fd_kind;
	v->kind = kind;
	v->key = key;
	classes_name(cs, i, v->name, sizeof(v->name));
}

void metrics_view_fold(struct metrics_view *mv, const struct engine *e, const struct classes *cs,
		       const struct policy *p)
{
	struct timespec ts;
	unsigned int i;

	if (!mv)
		return;
	pthread_mutex_lock(&mv->lock);
	for (i = 0; i < ENGINE_ENTRIES; i++)
		if (e->sc[i].fed)
			hist_add(&mv->sc[i], &e->sc[i].delta);
	for (i = 1; i < mv->nr_cells && i < e->nr_cells; i++) {
		struct view_cell *v = &mv->cell[i];

		if (!cs || i >= cs->top || !cs->cell[i].used) {
			v->used = false;
			continue;
		}
		cell_track(v, cs, i);
		if (e->cell[i].fed)
			hist_add(&v->h, &e->cell[i].delta);
	}
	mv->budget.budget = p ? p->budget : 0;
	mv->budget.demand = e->demand;
	/* This thread's own: the controller's CPU, as of its last interval. */
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		mv->cpu_ns = (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	pthread_mutex_unlock(&mv->lock);
}

int metrics_view_read(struct metrics_view *mv, struct latency_series **out, size_t *n,
		      struct metrics_budget *budget, __u64 *cpu_ns)
{
	struct latency_series *s;
	size_t k = 0;
	unsigned int i;

	*out = NULL;
	*n = 0;
	s = calloc(ENGINE_ENTRIES + mv->nr_cells, sizeof(*s));
	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&mv->lock);
	for (i = 0; i < ENGINE_ENTRIES; i++) {
		if (!mv->sc[i].count)
			continue;
		s[k].nr = i;
		s[k++].h = mv->sc[i];
	}
	for (i = 1; i < mv->nr_cells; i++) {
		const struct view_cell *v = &mv->cell[i];

		if (!v->used || !v->h.count)
			continue;
		s[k].nr = v->nr;
		memcpy(s[k].class_name, v->name, sizeof(s[k].class_name));
		s[k++].h = v->h;
	}
	*budget = mv->budget;
	*cpu_ns = mv->cpu_ns;
	pthread_mutex_unlock(&mv->lock);
	*out = s;
	*n = k;
	return 0;
}
