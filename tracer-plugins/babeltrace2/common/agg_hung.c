// SPDX-License-Identifier: GPL-2.0-only
/* The calls reported in flight (agg_hung.h), one entry per call. */
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"
#include "agg_grow.h"

/* The call of o (its host, tid and entry) among the hung ones, or NULL. */
static struct hung_call *hung_find(struct agg *a, const struct outlier *o)
{
	size_t i;

	for (i = 0; i < a->nr_hung; i++) {
		struct outlier *x = &a->hung[i].outlier;

		if (x->tid == o->tid && x->entry_ts == o->entry_ts && x->host == o->host)
			return &a->hung[i];
	}
	return NULL;
}

int agg_add_hung(struct agg *a, struct agg_host *h, const struct hung_call *c)
{
	struct hung_call *x;

	if (!h || !agg_filter_pass(&a->filter, &c->outlier))
		return 0;
	x = hung_find(a, &(struct outlier){ .tid = c->outlier.tid,
					    .entry_ts = c->outlier.entry_ts,
					    .host = h->name });
	if (!x) {
		if (agg_grow((void **)&a->hung, &a->cap_hung, a->nr_hung, sizeof(*a->hung)))
			return -ENOMEM;
		x = &a->hung[a->nr_hung++];
		*x = *c;
		x->outlier.host = h->name;
		/* Its strings are the event's, gone after it: the hung list shows none of them. */
		memset(&x->outlier.why, 0, sizeof(x->outlier.why));
		x->reports = 0;
	}
	if (x->returned)
		return 0;
	x->reports++;
	if (c->outlier.latency_ns > x->outlier.latency_ns) {
		x->outlier.latency_ns = c->outlier.latency_ns;
		memcpy(x->state, c->state, sizeof(x->state));
	}
	return 0;
}

/* A call that was reported in flight has returned: its latency and return value. */
void agg_hung_returned(struct agg *a, const struct outlier *o)
{
	struct hung_call *x = a->nr_hung ? hung_find(a, o) : NULL;

	if (!x)
		return;
	x->returned = true;
	x->outlier.latency_ns = o->latency_ns;
	x->outlier.ret = o->ret;
}

static int cmp_hung(const void *pa, const void *pb)
{
	const struct hung_call *x = pa, *y = pb;

	if (x->returned != y->returned)
		return x->returned ? 1 : -1;
	if (x->outlier.latency_ns != y->outlier.latency_ns)
		return x->outlier.latency_ns < y->outlier.latency_ns ? 1 : -1;
	return 0;
}

void agg_hung_finish(struct agg *a)
{
	if (a->nr_hung)
		qsort(a->hung, a->nr_hung, sizeof(*a->hung), cmp_hung);
}
