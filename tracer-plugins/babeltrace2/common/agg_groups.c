// SPDX-License-Identifier: GPL-2.0-only
/* The groups of outliers (agg_groups.h): a hash of their keys, their statistics and order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"
#include "agg_grow.h"
#include "fnv1a.h"

static const char *const time_part_names[AGG_NR_TIME_PARTS] = {
	[AGG_ON_CPU] = "on_cpu",
	[AGG_RUNQUEUE] = "runqueue",
	[AGG_SLEEP] = "sleep",
	[AGG_IO_WAIT] = "io_wait",
};

const char *agg_time_part_name(enum agg_time_part p)
{
	return time_part_names[p];
}

/*
 * An outlier's stack as --by stack groups it. A user stack, when the trace
 * carries one, goes before the kernel's here.
 */
static const char *stack_of(const struct outlier *o)
{
	if (o->why.stack)
		return o->why.stack;
	return o->why.kernel_stack ? o->why.kernel_stack : "";
}

/* Key parts of outliers without a target or stack: their own addresses are their identity. */
static const char key_none[] = GROUP_NONE;
static const char key_not_recorded[] = GROUP_NOT_RECORDED;

/* The target and stack parts of o's key: interned strings (agg_add()), or the above. */
static const char *target_key(const struct outlier *o)
{
	if (!o->why.present)
		return key_not_recorded;
	return o->why.target && *o->why.target ? o->why.target : key_none;
}

static const char *stack_key(const struct outlier *o)
{
	if (!o->why.present)
		return key_not_recorded;
	return *stack_of(o) ? stack_of(o) : key_none;
}

static bool part_matches(enum group_part p, const struct agg_group *g, const struct outlier *o)
{
	switch (p) {
	case GROUP_PART_SYSCALL:
		return !strcmp(g->syscall, o->syscall);
	case GROUP_PART_PROCESS:
		return g->pid == o->pid;
	case GROUP_PART_THREAD:
		return g->tid == o->tid && g->pid == o->pid;
	case GROUP_PART_HOST:
		return g->host == o->host; /* interned: one string per host */
	case GROUP_PART_TARGET:
		return g->target == target_key(o); /* interned by agg_add() */
	case GROUP_PART_STACK:
		return g->stack == stack_key(o);
		break;
	case GROUP_PART_CLASS:
		return !strcmp(g->class_name, o->class_name);
	case GROUP_PART_TITLE:
		return !strcmp(g->title, o->title);
	case GROUP_NR_PARTS:
		break;
	}
	return false;
}

static bool group_matches(const struct group_key *k, const struct agg_group *g,
			  const struct outlier *o)
{
	unsigned int i;

	for (i = 0; i < k->nr; i++)
		if (!part_matches(k->parts[i], g, o))
			return false;
	return true;
}

static void group_key_set(const struct group_key *k, struct agg_group *g, const struct outlier *o)
{
	unsigned int i;

	g->pid = g->tid = -1;
	for (i = 0; i < k->nr; i++) {
		switch (k->parts[i]) {
		case GROUP_PART_SYSCALL:
			snprintf(g->syscall, sizeof(g->syscall), "%s", o->syscall);
			break;
		case GROUP_PART_THREAD:
		case GROUP_PART_PROCESS:
			/* A thread is of a process. */
			if (k->parts[i] == GROUP_PART_THREAD)
				g->tid = o->tid;
			g->pid = o->pid;
			snprintf(g->comm, sizeof(g->comm), "%s", o->comm);
			break;
		case GROUP_PART_HOST:
			g->host = o->host;
			break;
		case GROUP_PART_TARGET:
			g->target = target_key(o);
			break;
		case GROUP_PART_STACK:
			g->stack = stack_key(o);
			break;
		case GROUP_PART_CLASS:
			snprintf(g->class_name, sizeof(g->class_name), "%s", o->class_name);
			break;
		case GROUP_PART_TITLE:
			snprintf(g->title, sizeof(g->title), "%s", o->title);
			break;
		case GROUP_NR_PARTS:
			break;
		}
	}
}

/*
 * FNV-1a of a group's key, from the parts of an outlier or a group (whichever
 * is not NULL): a trace may hold any number of processes and threads.
 */
static uint64_t group_hash(const struct group_key *k, const struct agg_group *g,
			   const struct outlier *o)
{
	uint64_t h = FNV1A_BASIS;
	const char *host, *str;
	int32_t id;
	unsigned int i;

	for (i = 0; i < k->nr; i++) {
		switch (k->parts[i]) {
		case GROUP_PART_SYSCALL:
			h = fnv1a(h, g ? g->syscall : o->syscall,
				  strlen(g ? g->syscall : o->syscall));
			break;
		case GROUP_PART_THREAD:
			id = g ? g->tid : o->tid;
			h = fnv1a(h, &id, sizeof(id));
			/* A thread is of a process: its pid too. */
			__attribute__((fallthrough));
		case GROUP_PART_PROCESS:
			id = g ? g->pid : o->pid;
			h = fnv1a(h, &id, sizeof(id));
			break;
		case GROUP_PART_HOST:
			/* Interned: one string per host, its address is its identity. */
			host = g ? g->host : o->host;
			h = fnv1a(h, &host, sizeof(host));
			break;
		case GROUP_PART_TARGET:
		case GROUP_PART_STACK:
			/* Interned too (agg_add()). */
			str = k->parts[i] == GROUP_PART_TARGET ? (g ? g->target : target_key(o))
							       : (g ? g->stack : stack_key(o));
			h = fnv1a(h, &str, sizeof(str));
			break;
		case GROUP_PART_CLASS:
			h = fnv1a(h, g ? g->class_name : o->class_name,
				  strlen(g ? g->class_name : o->class_name));
			break;
		case GROUP_PART_TITLE:
			h = fnv1a(h, g ? g->title : o->title, strlen(g ? g->title : o->title));
			break;
		case GROUP_NR_PARTS:
			break;
		}
	}
	return h;
}

/* The slot of o's group in the index: where it is, or the empty one where it goes. */
static size_t group_slot(const struct agg *a, const struct outlier *o)
{
	size_t mask = a->index_size - 1, i = group_hash(&a->key, NULL, o) & mask;

	while (a->group_index[i] && !group_matches(&a->key, &a->groups[a->group_index[i] - 1], o))
		i = (i + 1) & mask;
	return i;
}

/* Twice the slots, every group placed again. */
static int index_grow(struct agg *a)
{
	size_t size = a->index_size ? 2 * a->index_size : 64, i, j, mask = size - 1;
	uint32_t *index = calloc(size, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (i = 0; i < a->nr_groups; i++) {
		j = group_hash(&a->key, &a->groups[i], NULL) & mask;
		while (index[j])
			j = (j + 1) & mask;
		index[j] = i + 1;
	}
	free(a->group_index);
	a->group_index = index;
	a->index_size = size;
	return 0;
}

struct agg_group *agg_group_of(struct agg *a, const struct outlier *o)
{
	struct agg_group *g;
	size_t slot;

	if (2 * (a->nr_groups + 1) > a->index_size && index_grow(a))
		return NULL;
	slot = group_slot(a, o);
	if (a->group_index[slot])
		return &a->groups[a->group_index[slot] - 1];
	if (agg_grow((void **)&a->groups, &a->cap_groups, a->nr_groups, sizeof(*a->groups)))
		return NULL;
	g = &a->groups[a->nr_groups++];
	memset(g, 0, sizeof(*g));
	group_key_set(&a->key, g, o);
	a->group_index[slot] = a->nr_groups;
	return g;
}

int agg_group_add(struct agg_group *g, const struct outlier *o)
{
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
	if (o->why.present) {
		g->explained++;
		g->time_ns[AGG_ON_CPU] += o->why.on_cpu_ns;
		g->time_ns[AGG_RUNQUEUE] += o->why.runqueue_ns;
		g->time_ns[AGG_SLEEP] += o->why.sleep_ns;
		g->time_ns[AGG_IO_WAIT] += o->why.io_wait_ns;
	}
	return 0;
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

static int cmp_group(const void *x, const void *y, void *key)
{
	const struct group_key *k = key;
	const struct agg_group *a = x, *b = y;
	unsigned int i;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	for (i = 0; i < k->nr; i++) {
		switch (k->parts[i]) {
		case GROUP_PART_SYSCALL:
			c = strcmp(a->syscall, b->syscall);
			break;
		case GROUP_PART_THREAD:
			c = a->pid != b->pid ? (a->pid < b->pid ? -1 : 1)
					     : (a->tid > b->tid) - (a->tid < b->tid);
			break;
		case GROUP_PART_PROCESS:
			c = (a->pid > b->pid) - (a->pid < b->pid);
			break;
		case GROUP_PART_HOST:
			c = strcmp(a->host, b->host);
			break;
		case GROUP_PART_TARGET:
			c = strcmp(a->target, b->target);
			break;
		case GROUP_PART_STACK:
			c = strcmp(a->stack, b->stack);
			break;
		case GROUP_PART_CLASS:
			c = strcmp(a->class_name, b->class_name);
			break;
		case GROUP_PART_TITLE:
			c = strcmp(a->title, b->title);
			break;
		default:
			c = 0;
		}
		if (c)
			return c;
	}
	return 0;
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

void agg_groups_finish(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->nr_groups; i++)
		group_finish(&a->groups[i]);
	/* Nothing matched: no array to sort, and qsort must not see NULL. */
	if (a->nr_groups)
		qsort_r(a->groups, a->nr_groups, sizeof(*a->groups), cmp_group, &a->key);
}
