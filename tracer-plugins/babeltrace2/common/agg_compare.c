// SPDX-License-Identifier: GPL-2.0-only
/* The hosts compared per syscall (agg_compare.h): spreads, medians and stand-outs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double host_value(const struct agg_host *h, const struct agg_host_syscall *sc,
			 enum agg_metric m)
{
	double secs = h->timed ? (h->last_ns - h->first_ns) / 1e9 : 0;

	switch (m) {
	case AGG_METRIC_THRESHOLD:
		return (double)sc->threshold_ns;
	case AGG_METRIC_P99:
		return (double)sc->p99_ns;
	case AGG_METRIC_RATE:
		return secs > 0 ? sc->outliers / secs : 0;
	case AGG_NR_METRICS:
		break;
	}
	return 0;
}

static int cmp_compare_host(const void *x, const void *y)
{
	const struct agg_compare_host *a = x, *b = y;

	if (a->value[AGG_METRIC_P99] != b->value[AGG_METRIC_P99])
		return a->value[AGG_METRIC_P99] > b->value[AGG_METRIC_P99] ? -1 : 1;
	return strcmp(a->host->name, b->host->name);
}

/*
 * Spread and stand-outs of one syscall over the hosts that have it, kept when
 * it is on two hosts or more and one of them had outliers of it or stands
 * out; 0 or -ENOMEM.
 */
static int compare_one(struct agg *a, const char *syscall)
{
	struct agg_compare *c = &a->compare[a->nr_compare];
	double v[a->nr_hosts ? a->nr_hosts : 1];
	size_t i, j, n = 0;
	unsigned int m;

	memset(c, 0, sizeof(*c));
	snprintf(c->syscall, sizeof(c->syscall), "%s", syscall);
	c->hosts = calloc(a->nr_hosts, sizeof(*c->hosts));
	if (!c->hosts)
		return -ENOMEM;
	for (i = 0; i < a->nr_hosts; i++) {
		const struct agg_host *h = a->hosts[i];

		for (j = 0; j < h->nr_sc; j++) {
			/* A syscall that is off has no threshold to compare. */
			if (strcmp(h->sc[j].syscall, syscall) ||
			    h->sc[j].threshold_ns == UINT64_MAX)
				continue;
			c->hosts[n].host = h;
			c->hosts[n].sc = &h->sc[j];
			for (m = 0; m < AGG_NR_METRICS; m++)
				c->hosts[n].value[m] = host_value(h, &h->sc[j], m);
			n++;
		}
	}
	c->nr_hosts = n;
	for (i = 0, j = 0; i < n; i++)
		j += c->hosts[i].sc->outliers;
	/* What no host emitted an outlier of is shown only when a host stands out. */
	if (n < 2) {
		free(c->hosts);
		c->hosts = NULL;
		return 0;
	}
	for (m = 0; m < AGG_NR_METRICS; m++) {
		for (i = 0; i < n; i++)
			v[i] = c->hosts[i].value[m];
		qsort(v, n, sizeof(v[0]), cmp_double);
		c->spread[m] = (struct agg_spread){ v[0], v[(n - 1) / 2], v[n - 1] };
	}
	for (i = 0; i < n; i++) {
		bool any = false;

		for (m = 0; m < AGG_NR_METRICS; m++) {
			struct agg_compare_host *ch = &c->hosts[i];

			ch->ratio[m] =
				c->spread[m].median > 0 ? ch->value[m] / c->spread[m].median : 0;
			ch->stands_out[m] = ch->ratio[m] >= AGG_STAND_OUT_FACTOR;
			any = any || ch->stands_out[m];
		}
		c->nr_stand_out += any;
	}
	if (!j && !c->nr_stand_out) {
		free(c->hosts);
		c->hosts = NULL;
		return 0;
	}
	qsort(c->hosts, n, sizeof(*c->hosts), cmp_compare_host);
	a->nr_compare++;
	return 0;
}

static int cmp_compare(const void *x, const void *y)
{
	const struct agg_compare *a = x, *b = y;

	if (!a->nr_stand_out != !b->nr_stand_out)
		return a->nr_stand_out ? -1 : 1;
	return strcmp(a->syscall, b->syscall);
}

/* Every syscall that two hosts or more have stats of (and the syscall filter passes). */
void agg_compare_hosts(struct agg *a)
{
	size_t i, j, k, cap = 0;
	bool done;

	/* One entry per syscall compared: at most every host's syscalls. */
	if (a->nr_hosts < 2)
		return;
	for (i = 0; i < a->nr_hosts; i++)
		cap += a->hosts[i]->nr_sc;
	a->compare = calloc(cap ? cap : 1, sizeof(*a->compare));
	if (!a->compare)
		return;
	for (i = 0; i < a->nr_hosts; i++) {
		for (j = 0; j < a->hosts[i]->nr_sc; j++) {
			const char *name = a->hosts[i]->sc[j].syscall;

			if (a->filter.syscall && strcmp(a->filter.syscall, name))
				continue;
			done = false;
			for (k = 0; k < a->nr_compare && !done; k++)
				done = !strcmp(a->compare[k].syscall, name);
			if (!done && compare_one(a, name))
				return;
		}
	}
	if (a->nr_compare)
		qsort(a->compare, a->nr_compare, sizeof(*a->compare), cmp_compare);
}

static const char *const metric_names[AGG_NR_METRICS] = {
	[AGG_METRIC_THRESHOLD] = "threshold",
	[AGG_METRIC_P99] = "p99",
	[AGG_METRIC_RATE] = "outlier rate",
};

const char *agg_metric_name(enum agg_metric m)
{
	return metric_names[m];
}
