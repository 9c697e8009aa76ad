// SPDX-License-Identifier: GPL-2.0-only
/* What each host's traces hold (agg_hosts.h), added event by event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/compiler.h"
#include "aggregate.h"
#include "agg_grow.h"

/* Hosts are few (a site's machines): a linear scan is enough. */
int agg_host_find(struct agg *a, const char *name, struct agg_host **hp)
{
	struct agg_host *h;
	size_t i;

	*hp = NULL;
	if (a->filter.host && strcmp(a->filter.host, name))
		return 0;
	for (i = 0; i < a->nr_hosts; i++)
		if (!strcmp(a->hosts[i]->name, name)) {
			*hp = a->hosts[i];
			return 0;
		}
	if (agg_grow((void **)&a->hosts, &a->cap_hosts, a->nr_hosts, sizeof(*a->hosts)))
		return -ENOMEM;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	snprintf(h->name, sizeof(h->name), "%s", name);
	a->hosts[a->nr_hosts++] = h;
	*hp = h;
	return 0;
}

void agg_host_saw(struct agg_host *h, int64_t ns)
{
	if (!h)
		return;
	if (!h->timed || ns < h->first_ns)
		h->first_ns = ns;
	if (!h->timed || ns > h->last_ns)
		h->last_ns = ns;
	h->timed = true;
}

/* The syscall's entry of host h (added on first sight); 0 or -ENOMEM. */
static int host_syscall_get(struct agg_host *h, const char *syscall, struct agg_host_syscall **out)
{
	struct agg_host_syscall *sc;
	size_t i;

	for (i = 0; i < h->nr_sc; i++)
		if (!strcmp(h->sc[i].syscall, syscall)) {
			*out = &h->sc[i];
			return 0;
		}
	if (agg_grow((void **)&h->sc, &h->cap_sc, h->nr_sc, sizeof(*h->sc)))
		return -ENOMEM;
	sc = &h->sc[h->nr_sc++];
	memset(sc, 0, sizeof(*sc));
	snprintf(sc->syscall, sizeof(sc->syscall), "%s", syscall);
	*out = sc;
	return 0;
}

int agg_add_change(struct agg *a, struct agg_host *h, const struct threshold_change *t)
{
	struct agg_host_syscall *sc;
	int err;

	/*
	 * A class's threshold is not its syscall's (its calls are counted in the
	 * syscall's): what the syscall learned, and its changes, are its own updates.
	 */
	if (!h || t->class_name[0])
		return 0;
	/* The last update says whether the threshold is learned (a later static one is not). */
	err = host_syscall_get(h, t->syscall, &sc);
	if (err)
		return err;
	sc->learned = t->estimate_ns != 0;
	if (sc->learned)
		sc->last_learned = *t;
	if (a->filter.syscall && strcmp(a->filter.syscall, t->syscall))
		return 0;
	if (t->epoch_ns < a->filter.begin_ns || t->epoch_ns > a->filter.end_ns)
		return 0;
	if (agg_grow((void **)&a->changes, &a->cap_changes, a->nr_changes, sizeof(*a->changes)))
		return -ENOMEM;
	a->changes[a->nr_changes++] = *t;
	return 0;
}

int agg_add_stats(struct agg *a __always_unused, struct agg_host *h, const struct syscall_stats *s)
{
	struct agg_host_syscall *sc;
	int err;

	if (!h)
		return 0;
	err = host_syscall_get(h, s->syscall, &sc);
	if (err)
		return err;
	sc->calls += s->calls;
	sc->outliers += s->outliers;
	h->runs.stats_outliers += s->outliers;
	sc->threshold_ns = s->threshold_ns;
	sc->p99_ns = s->p99_ns;
	return 0;
}

int agg_host_set_policy(struct agg_host *h, const char *policy)
{
	if (!h)
		return 0;
	free(h->policy);
	h->policy = strdup(policy);
	return h->policy ? 0 : -ENOMEM;
}

void agg_add_loss(struct agg_host *h, const struct lost_count *l)
{
	if (!h)
		return;
	h->loss.drops += l->drops;
	h->loss.throttled += l->throttled;
	h->loss.braked += l->braked;
	if (l->total_braked > h->loss.total_braked)
		h->loss.total_braked = l->total_braked;
	if (l->total_drops > h->loss.total_drops)
		h->loss.total_drops = l->total_drops;
	if (l->total_throttled > h->loss.total_throttled)
		h->loss.total_throttled = l->total_throttled;
}

void agg_add_discarded(struct agg_host *h, uint64_t count, bool known)
{
	if (!h)
		return;
	if (known)
		h->loss.discarded += count;
	else
		h->loss.discarded_unknown = true;
}

void agg_add_discarded_packets(struct agg_host *h, uint64_t count)
{
	if (h)
		h->loss.discarded_packets += count;
}

void agg_add_run_begin(struct agg_host *h, uint32_t version)
{
	if (!h)
		return;
	if (!h->runs.version || version < h->runs.version)
		h->runs.version = version;
	h->runs.begun++;
}

void agg_run_end_add(struct run_end *sum, const struct run_end *e)
{
	sum->syscalls += e->syscalls;
	sum->outliers += e->outliers;
	sum->drops += e->drops;
	sum->throttled += e->throttled;
	sum->braked += e->braked;
	sum->kernel_stacks_skipped += e->kernel_stacks_skipped;
	sum->wakers_lost += e->wakers_lost;
	sum->class_ids_refused += e->class_ids_refused;
	sum->class_requests_lost += e->class_requests_lost;
	sum->children_not_followed += e->children_not_followed;
}

void agg_add_run_end(struct agg_host *h, const struct run_end *e)
{
	if (!h)
		return;
	h->runs.ended++;
	agg_run_end_add(&h->runs.totals, e);
}

static int cmp_host(const void *x, const void *y)
{
	return strcmp((*(struct agg_host *const *)x)->name, (*(struct agg_host *const *)y)->name);
}

void agg_hosts_sort(struct agg *a)
{
	if (a->nr_hosts)
		qsort(a->hosts, a->nr_hosts, sizeof(*a->hosts), cmp_host);
}
