// SPDX-License-Identifier: GPL-2.0-only
/*
 * The aggregation's life: begun, fed the outliers one by one (each kept,
 * filtered, grouped, and weighed for the slowest), finished once, freed.
 * The concerns it is made of are in agg_*.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"

/* The order of the slowest: by latency, then the earlier entry. */
static bool slower(const struct outlier *x, const struct outlier *y)
{
	if (x->latency_ns != y->latency_ns)
		return x->latency_ns > y->latency_ns;
	return x->entry_epoch_ns < y->entry_epoch_ns;
}

/* By impact (time beyond the normal), then by latency. */
static bool costlier(const struct outlier *x, const struct outlier *y)
{
	if (x->impact_ns != y->impact_ns)
		return x->impact_ns > y->impact_ns;
	return slower(x, y);
}

/* By surprise (those not known, < 0, last), then by impact. */
static bool more_surprising(const struct outlier *x, const struct outlier *y)
{
	if (x->surprise != y->surprise)
		return x->surprise > y->surprise;
	if (x->surprise_at_least != y->surprise_at_least)
		return x->surprise_at_least;
	return costlier(x, y);
}

/* The order of the top-N's heap: the last in order on top, the first to give way. */
static bool less_slow(const void *x, const void *y)
{
	return slower(y, x);
}

static bool less_costly(const void *x, const void *y)
{
	return costlier(y, x);
}

static bool less_surprising(const void *x, const void *y)
{
	return more_surprising(y, x);
}

static const char *const order_names[] = {
	[AGG_BY_LATENCY] = "latency",
	[AGG_BY_IMPACT] = "impact",
	[AGG_BY_SURPRISE] = "surprise",
};

const char *agg_order_name(enum agg_order o)
{
	return (unsigned int)o < 3 ? order_names[o] : "latency";
}

int agg_order_set(struct agg *a, const char *o)
{
	static bool (*const heap_order[])(const void *, const void *) = {
		[AGG_BY_LATENCY] = less_slow,
		[AGG_BY_IMPACT] = less_costly,
		[AGG_BY_SURPRISE] = less_surprising,
	};
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (strcmp(o, order_names[i]))
			continue;
		a->order = (enum agg_order)i;
		heap_free(&a->slowest);
		heap_init(&a->slowest, sizeof(struct outlier), heap_order[i]);
		return 0;
	}
	return -EINVAL;
}

int agg_init(struct agg *a, const struct group_key *key, const struct agg_filter *f,
	     unsigned int top_n)
{
	memset(a, 0, sizeof(*a));
	a->key = *key;
	a->filter = *f;
	a->top_n = top_n;
	heap_init(&a->slowest, sizeof(struct outlier), less_slow);
	return 0;
}

void agg_free(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->nr_groups; i++) {
		free(a->groups[i].lat);
		free(a->groups[i].ret);
	}
	for (i = 0; i < a->nr_hosts; i++) {
		free(a->hosts[i]->sc);
		free(a->hosts[i]->policy);
		free(a->hosts[i]);
	}
	for (i = 0; i < a->nr_compare; i++)
		free(a->compare[i].hosts);
	free(a->groups);
	free(a->group_index);
	heap_free(&a->slowest);
	free(a->changes);
	free(a->snapshots);
	free(a->hung);
	free(a->hosts);
	free(a->compare);
	agg_strings_free(&a->strings);
	agg_strings_free(&a->folded);
	free(a->folded_lines);
	memset(a, 0, sizeof(*a));
}

/*
 * The copy of an outlier the aggregation keeps (top, groups): its strings
 * interned, to outlive the event they were borrowed from; 0 or -ENOMEM.
 */
static int outlier_keep(struct agg *a, struct outlier *o)
{
	struct outlier_explanation *x = &o->why;
	char *both = NULL;
	int err = 0;

	if (a->fold)
		err = agg_folded_add(a, o);
	if (!err && x->target && *x->target)
		err = agg_strings_add(&a->strings, x->target, 0, &x->target);
	if (!err && x->kernel_stack && *x->kernel_stack)
		err = agg_strings_add(&a->strings, x->kernel_stack, 0, &x->kernel_stack);
	/* The whole stack, the key of --by stack: kernel frames, then the user's. */
	if (!err && x->user_stack && *x->user_stack) {
		if (asprintf(&both, "%s%s%s", x->kernel_stack ? x->kernel_stack : "",
			     x->kernel_stack && *x->kernel_stack ? ";" : "", x->user_stack) < 0)
			return -ENOMEM;
		err = agg_strings_add(&a->strings, x->user_stack, 0, &x->user_stack);
		if (!err)
			err = agg_strings_add(&a->strings, both, 0, &x->stack);
		free(both);
	}
	return err;
}

int agg_add(struct agg *a, struct agg_host *h, const struct outlier *in)
{
	struct outlier copy = *in, *o = &copy;
	struct agg_group *g;
	int err;

	a->seen++;
	if (!h)
		return 0;
	h->seen++;
	if (!agg_filter_pass(&a->filter, o))
		return 0;
	h->matched++;
	o->host = h->name;
	err = outlier_keep(a, o);
	if (err)
		return err;
	agg_hung_returned(a, o);
	g = agg_group_of(a, o);
	if (!g || agg_group_add(g, o))
		return -ENOMEM;
	if (!a->matched || o->entry_epoch_ns < a->first_epoch_ns)
		a->first_epoch_ns = o->entry_epoch_ns;
	if (!a->matched || o->entry_epoch_ns > a->last_epoch_ns)
		a->last_epoch_ns = o->entry_epoch_ns;
	if (!a->matched || o->entry_epoch_ns + (int64_t)o->latency_ns > a->last_exit_epoch_ns)
		a->last_exit_epoch_ns = o->entry_epoch_ns + (int64_t)o->latency_ns;
	a->matched++;
	a->ustack_missing[o->why.user_stack_missing % OUTLIER_USTACK_WHYS]++;
	/* The heap grows with the outliers up to top_n: top_n may be huge ("unlimited"). */
	return heap_keep(&a->slowest, o, a->top_n);
}

static int cmp_top(const void *x, const void *y, void *order)
{
	enum agg_order o = *(const enum agg_order *)order;
	bool (*first)(const struct outlier *, const struct outlier *) =
		o == AGG_BY_IMPACT     ? costlier
		: o == AGG_BY_SURPRISE ? more_surprising
				       : slower;

	return first(x, y) ? -1 : first(y, x) ? 1 : 0;
}

void agg_finish(struct agg *a)
{
	/* By name: the warnings of several hosts come in the order of the report's tables. */
	agg_hosts_sort(a);
	agg_loss_finish(a);
	agg_groups_finish(a);
	/* Sorted, the heap's items are the list. */
	if (a->slowest.nr)
		qsort_r(a->slowest.items, a->slowest.nr, sizeof(struct outlier), cmp_top,
			&a->order);
	a->top = a->slowest.items;
	a->nr_top = a->slowest.nr;
	agg_hung_finish(a);
	agg_compare_hosts(a);
	agg_folded_finish(a);
}

const char *agg_errno_name(int64_t ret)
{
	return ret < 0 && ret >= -4095 ? strerrorname_np((int)-ret) : NULL;
}
