// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/compiler.h"
#include "util/escape.h"
#include "util/heap.h"
#include "aggregate.h"

void agg_filter_init(struct agg_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->pid = -1;
	f->tid = -1;
	f->begin_ns = INT64_MIN;
	f->end_ns = INT64_MAX;
}

/* The top-N is a min-heap on latency until agg_finish() sorts it. */
static bool slower(const struct outlier *x, const struct outlier *y)
{
	if (x->latency_ns != y->latency_ns)
		return x->latency_ns > y->latency_ns;
	return x->entry_epoch_ns < y->entry_epoch_ns;
}

/* The order of the top-N's heap: the least slow on top, the first to give way. */
static bool less_slow(const void *x, const void *y)
{
	return slower(y, x);
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

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *k = data;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ k[i]) * 0x100000001b3ULL;
	return h;
}

#define FNV1A_BASIS 0xcbf29ce484222325ULL

static void strings_free(struct agg_strings *t)
{
	size_t i;

	for (i = 0; i < t->size; i++)
		free(t->slots[i].s);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* The slot of s: where it is, or the empty one where it goes. */
static struct agg_string *strings_slot(struct agg_string *slots, size_t size, const char *s)
{
	size_t mask = size - 1, i = fnv1a(FNV1A_BASIS, s, strlen(s)) & mask;

	while (slots[i].s && strcmp(slots[i].s, s))
		i = (i + 1) & mask;
	return &slots[i];
}

/* Twice the slots, every string placed again. */
static int strings_grow(struct agg_strings *t)
{
	size_t size = t->size ? 2 * t->size : 64, i;
	struct agg_string *slots = calloc(size, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->size; i++)
		if (t->slots[i].s)
			*strings_slot(slots, size, t->slots[i].s) = t->slots[i];
	free(t->slots);
	t->slots = slots;
	t->size = size;
	return 0;
}

/* s's one copy in *out (added on first sight), value added to its number; 0 or -ENOMEM. */
static int strings_add(struct agg_strings *t, const char *s, uint64_t value, const char **out)
{
	struct agg_string *slot;

	if (2 * (t->nr + 1) > t->size && strings_grow(t))
		return -ENOMEM;
	slot = strings_slot(t->slots, t->size, s);
	if (!slot->s) {
		slot->s = strdup(s);
		if (!slot->s)
			return -ENOMEM;
		t->nr++;
	}
	slot->value += value;
	*out = slot->s;
	return 0;
}

void agg_fold(struct agg *a)
{
	a->fold = true;
}

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

/*
 * Append s (n bytes) to buf at *used as one frame: a ';' or a blank would
 * split it, and a trace is anyone's file: those and every character that
 * cannot be printed (escape.h) become '_'. 0, or -ENOSPC.
 */
static int folded_append(char *buf, size_t len, size_t *used, const char *s, size_t n)
{
	unsigned int cp;
	size_t i, c;

	if (*used + n + 2 > len)
		return -ENOSPC;
	if (*used)
		buf[(*used)++] = ';';
	for (i = 0; i < n && s[i]; i += c) {
		if (text_next(s + i, n - i, &c, &cp) && cp != ';' && cp != ' ') {
			memcpy(buf + *used, s + i, c);
			*used += c;
		} else {
			buf[(*used)++] = '_';
			c = 1;
		}
	}
	buf[*used] = '\0';
	return 0;
}

/* The functions of a stack's frames (innermost first, ';'-joined), outermost first. */
static int folded_frames(char *buf, size_t len, size_t *used, const char *stack)
{
	const char *end = stack + strlen(stack), *start;
	size_t n;

	while (end > stack) {
		start = end;
		while (start > stack && start[-1] != ';')
			start--;
		/* The function, without its offset, module, binary or source line. */
		n = strcspn(start, "+ ;");
		if (n && folded_append(buf, len, used, start, n))
			return -ENOSPC;
		end = start > stack ? start - 1 : stack;
	}
	return 0;
}

int agg_folded_line(const struct outlier *o, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	/* comm, the user frames from main down, the syscall, the kernel frames down. */
	if (folded_append(buf, len, &used, o->comm, strnlen(o->comm, sizeof(o->comm))) ||
	    folded_frames(buf, len, &used, o->why.user_stack ? o->why.user_stack : "") ||
	    folded_append(buf, len, &used, o->syscall, strnlen(o->syscall, sizeof(o->syscall))) ||
	    folded_frames(buf, len, &used, o->why.kernel_stack ? o->why.kernel_stack : ""))
		return -ENOSPC;
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
	strings_free(&a->strings);
	strings_free(&a->folded);
	free(a->folded_lines);
	memset(a, 0, sizeof(*a));
}

/* Grow an array of *cap elements of size to hold one more; 0 or -ENOMEM. */
static int grow(void **arr, size_t *cap, size_t nr, size_t size)
{
	size_t n = *cap ? 2 * *cap : 16;
	void *p;

	if (nr < *cap)
		return 0;
	p = realloc(*arr, n * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

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
	if (grow((void **)&a->hosts, &a->cap_hosts, a->nr_hosts, sizeof(*a->hosts)))
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

static bool agg_filter_pass(const struct agg_filter *f, const struct outlier *o)
{
	if (f->syscall && strcmp(f->syscall, o->syscall))
		return false;
	if (f->comm && strcmp(f->comm, o->comm))
		return false;
	if (f->pid >= 0 && f->pid != o->pid)
		return false;
	if (f->tid >= 0 && f->tid != o->tid)
		return false;
	return o->latency_ns >= f->min_latency_ns && o->entry_epoch_ns >= f->begin_ns &&
	       o->entry_epoch_ns <= f->end_ns;
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

static struct agg_group *group_get(struct agg *a, const struct outlier *o)
{
	struct agg_group *g;
	size_t slot;

	if (2 * (a->nr_groups + 1) > a->index_size && index_grow(a))
		return NULL;
	slot = group_slot(a, o);
	if (a->group_index[slot])
		return &a->groups[a->group_index[slot] - 1];
	if (grow((void **)&a->groups, &a->cap_groups, a->nr_groups, sizeof(*a->groups)))
		return NULL;
	g = &a->groups[a->nr_groups++];
	memset(g, 0, sizeof(*g));
	group_key_set(&a->key, g, o);
	a->group_index[slot] = a->nr_groups;
	return g;
}

/*
 * The folded line of o, its weight its latency; 0 or -ENOMEM. The line holds
 * the functions of both stacks, each frame no longer than it is in its stack.
 */
static int fold_add(struct agg *a, const struct outlier *o)
{
	const char *k = o->why.kernel_stack ? o->why.kernel_stack : "";
	const char *u = o->why.user_stack ? o->why.user_stack : "";
	size_t len = sizeof(o->comm) + sizeof(o->syscall) + strlen(k) + strlen(u) + 4;
	const char *kept;
	char *line = malloc(len);
	int err;

	if (!line)
		return -ENOMEM;
	err = agg_folded_line(o, line, len) ? -ENOMEM
					    : strings_add(&a->folded, line, o->latency_ns, &kept);
	free(line);
	return err;
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
		err = fold_add(a, o);
	if (!err && x->target && *x->target)
		err = strings_add(&a->strings, x->target, 0, &x->target);
	if (!err && x->kernel_stack && *x->kernel_stack)
		err = strings_add(&a->strings, x->kernel_stack, 0, &x->kernel_stack);
	/* The whole stack, the key of --by stack: kernel frames, then the user's. */
	if (!err && x->user_stack && *x->user_stack) {
		if (asprintf(&both, "%s%s%s", x->kernel_stack ? x->kernel_stack : "",
			     x->kernel_stack && *x->kernel_stack ? ";" : "", x->user_stack) < 0)
			return -ENOMEM;
		err = strings_add(&a->strings, x->user_stack, 0, &x->user_stack);
		if (!err)
			err = strings_add(&a->strings, both, 0, &x->stack);
		free(both);
	}
	return err;
}

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
		if (grow((void **)&a->hung, &a->cap_hung, a->nr_hung, sizeof(*a->hung)))
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
static void hung_returned(struct agg *a, const struct outlier *o)
{
	struct hung_call *x = a->nr_hung ? hung_find(a, o) : NULL;

	if (!x)
		return;
	x->returned = true;
	x->outlier.latency_ns = o->latency_ns;
	x->outlier.ret = o->ret;
}

/* Still in flight first, then the longest. */
static int cmp_hung(const void *pa, const void *pb)
{
	const struct hung_call *x = pa, *y = pb;

	if (x->returned != y->returned)
		return x->returned ? 1 : -1;
	if (x->outlier.latency_ns != y->outlier.latency_ns)
		return x->outlier.latency_ns < y->outlier.latency_ns ? 1 : -1;
	return 0;
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
	hung_returned(a, o);
	g = group_get(a, o);
	if (!g)
		return -ENOMEM;
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
	if (!a->matched || o->entry_epoch_ns < a->first_epoch_ns)
		a->first_epoch_ns = o->entry_epoch_ns;
	if (!a->matched || o->entry_epoch_ns > a->last_epoch_ns)
		a->last_epoch_ns = o->entry_epoch_ns;
	if (!a->matched || o->entry_epoch_ns + (int64_t)o->latency_ns > a->last_exit_epoch_ns)
		a->last_exit_epoch_ns = o->entry_epoch_ns + (int64_t)o->latency_ns;
	a->matched++;
	/* The heap grows with the outliers up to top_n: top_n may be huge ("unlimited"). */
	return heap_keep(&a->slowest, o, a->top_n);
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
	if (grow((void **)&h->sc, &h->cap_sc, h->nr_sc, sizeof(*h->sc)))
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
	if (a->nr_changes == a->cap_changes) {
		size_t cap = a->cap_changes ? 2 * a->cap_changes : 64;
		struct threshold_change *c = realloc(a->changes, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		a->changes = c;
		a->cap_changes = cap;
	}
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

int agg_add_snapshot(struct agg *a, const struct snapshot_ref *s)
{
	if (!agg_filter_pass(&a->filter, &s->outlier))
		return 0;
	if (a->nr_snapshots == a->cap_snapshots) {
		size_t cap = a->cap_snapshots ? 2 * a->cap_snapshots : 16;
		struct snapshot_ref *r = realloc(a->snapshots, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		a->snapshots = r;
		a->cap_snapshots = cap;
	}
	a->snapshots[a->nr_snapshots++] = *s;
	return 0;
}

void agg_add_snapshot_count(struct agg *a, const struct snapshot_count *c)
{
	/* One per run; a trace of several runs (one session, --session) holds several. */
	a->snapshot_count.outliers += c->outliers;
	a->snapshot_count.discarded += c->discarded;
	a->snapshot_count.requested += c->requested;
	a->snapshot_count.taken += c->taken;
	a->snapshot_count.failed += c->failed;
	a->snapshot_count.unreported += c->unreported;
	a->snapshot_counted = true;
}

const struct snapshot_ref *agg_snapshot_of(const struct agg *a, const struct outlier *o)
{
	size_t i;

	/* Snapshots are few: the rate policy and the minimum latency keep them so. */
	for (i = 0; i < a->nr_snapshots; i++)
		if (a->snapshots[i].outlier.tid == o->tid &&
		    a->snapshots[i].outlier.entry_ts == o->entry_ts)
			return &a->snapshots[i];
	return NULL;
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
		default:
			c = 0;
		}
		if (c)
			return c;
	}
	return 0;
}

static int cmp_top(const void *x, const void *y)
{
	return slower(x, y) ? -1 : slower(y, x) ? 1 : 0;
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

static int cmp_host(const void *x, const void *y)
{
	return strcmp((*(struct agg_host *const *)x)->name, (*(struct agg_host *const *)y)->name);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* A host's losses: an sclat:lost that LTTng discarded still shows in the next one's totals. */
static void host_loss_finish(struct agg_loss *l)
{
	if (l->total_drops > l->drops)
		l->drops = l->total_drops;
	if (l->total_throttled > l->throttled)
		l->throttled = l->total_throttled;
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
static void compare_hosts(struct agg *a)
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

/* Why a trace is incomplete; of which host, when the traces are of several. */
static void __attribute__((format(printf, 3, 4)))
warn(struct agg *a, const struct agg_host *h, const char *fmt, ...)
{
	char *w = a->warnings[a->nr_warnings];
	va_list ap;
	int n = 0;

	if (a->nr_warnings == AGG_MAX_WARNINGS)
		return;
	a->nr_warnings++;
	if (a->nr_hosts > 1)
		n = snprintf(w, AGG_WARNING_LEN, "host %s: ", h->name);
	va_start(ap, fmt);
	vsnprintf(w + n, AGG_WARNING_LEN - n, fmt, ap);
	va_end(ap);
}

/*
 * What sclat wrote (sclat:session_end) against what host h's trace holds and
 * what LTTng counts as discarded. LTTng counts discarded events of every
 * kind, so outliers are missing only when even all the discards cannot
 * explain them. Returns whether the trace's completeness can be told.
 */
static bool completeness_check(struct agg *a, struct agg_host *h)
{
	const struct agg_runs *r = &h->runs;
	struct agg_loss *l = &h->loss;
	uint64_t wrote = r->totals.outliers;
	bool ended = r->ended && r->ended >= r->begun, known = true;

	if (r->begun && !r->ended && r->version < 2)
		known = false;
	else if (!ended)
		warn(a, h,
		     "no end-of-run accounting (sclat:session_end): sclat record did not finish "
		     "this trace (killed, or its output failed); what it wrote after the last "
		     "event here is lost and not counted");
	/*
	 * Without it (version 1, or cut short), the statistics still count what
	 * the kernel emitted in the intervals that reached the trace.
	 */
	if (!ended && h->seen + l->discarded < r->stats_outliers && !l->discarded_unknown)
		warn(a, h,
		     "%llu of the %llu outliers that the trace's sclat:stats count are neither in "
		     "the trace nor counted as discarded by LTTng",
		     (unsigned long long)(r->stats_outliers - h->seen - l->discarded),
		     (unsigned long long)r->stats_outliers);
	if (ended) {
		if (r->begun < r->ended)
			warn(a, h, "no sclat:session_begin: the start of the trace is missing");
		if (h->seen > wrote)
			warn(a, h,
			     "the trace holds %llu outliers, more than the %llu sclat wrote into "
			     "it: its counts do not add up",
			     (unsigned long long)h->seen, (unsigned long long)wrote);
		else if (h->seen + l->discarded < wrote && !l->discarded_unknown)
			warn(a, h,
			     "%llu of the %llu outliers sclat wrote are neither in the trace nor "
			     "counted as discarded by LTTng",
			     (unsigned long long)(wrote - h->seen - l->discarded),
			     (unsigned long long)wrote);
		if (r->totals.children_not_followed)
			warn(a, h,
			     "%llu new processes of the traced command or pids were not followed (the "
			     "scope's table was full): their syscalls are not in the trace",
			     (unsigned long long)r->totals.children_not_followed);
		/* The kernel's final counts, even when LTTng discarded the last sclat:lost. */
		if (r->totals.drops > l->drops)
			l->drops = r->totals.drops;
		if (r->totals.throttled > l->throttled)
			l->throttled = r->totals.throttled;
	}
	if (l->discarded_packets)
		warn(a, h,
		     "packets missing from the trace: %llu (gaps in their sequence numbers); the "
		     "events they held are lost and not counted",
		     (unsigned long long)l->discarded_packets);
	return known;
}

static int cmp_folded(const void *x, const void *y)
{
	return strcmp(((const struct agg_folded *)x)->line, ((const struct agg_folded *)y)->line);
}

/* The folded lines in order: the same trace folds the same way every time. */
static void folded_finish(struct agg *a)
{
	size_t i;

	if (!a->folded.nr)
		return;
	a->folded_lines = calloc(a->folded.nr, sizeof(*a->folded_lines));
	if (!a->folded_lines)
		return;
	for (i = 0; i < a->folded.size; i++)
		if (a->folded.slots[i].s)
			a->folded_lines[a->nr_folded_lines++] =
				(struct agg_folded){ a->folded.slots[i].s,
						     a->folded.slots[i].value };
	qsort(a->folded_lines, a->nr_folded_lines, sizeof(*a->folded_lines), cmp_folded);
}

void agg_finish(struct agg *a)
{
	bool known = true;
	size_t i;

	memset(&a->loss, 0, sizeof(a->loss));
	/* By name: the warnings of several hosts come in the order of the report's tables. */
	if (a->nr_hosts)
		qsort(a->hosts, a->nr_hosts, sizeof(*a->hosts), cmp_host);
	for (i = 0; i < a->nr_hosts; i++) {
		struct agg_loss *l = &a->hosts[i]->loss;

		host_loss_finish(l);
		known &= completeness_check(a, a->hosts[i]);
		a->loss.drops += l->drops;
		a->loss.throttled += l->throttled;
		a->loss.discarded += l->discarded;
		a->loss.discarded_unknown |= l->discarded_unknown;
		a->loss.discarded_packets += l->discarded_packets;
		agg_run_end_add(&a->ended, &a->hosts[i]->runs.totals);
	}
	a->complete = a->nr_warnings ? AGG_INCOMPLETE : known ? AGG_COMPLETE : AGG_UNKNOWN;
	for (i = 0; i < a->nr_groups; i++)
		group_finish(&a->groups[i]);
	/* Nothing matched: no array to sort, and qsort must not see NULL. */
	if (a->nr_groups)
		qsort_r(a->groups, a->nr_groups, sizeof(*a->groups), cmp_group, &a->key);
	/* Sorted, the heap's items are the list. */
	if (a->slowest.nr)
		qsort(a->slowest.items, a->slowest.nr, sizeof(struct outlier), cmp_top);
	a->top = a->slowest.items;
	a->nr_top = a->slowest.nr;
	if (a->nr_hung)
		qsort(a->hung, a->nr_hung, sizeof(*a->hung), cmp_hung);
	compare_hosts(a);
	folded_finish(a);
}

bool agg_loss_counted(const struct agg_loss *l)
{
	return l->drops || l->throttled || l->discarded || l->discarded_unknown;
}

bool agg_loss_any(const struct agg *a)
{
	return agg_loss_counted(&a->loss) || a->complete == AGG_INCOMPLETE;
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

const char *agg_errno_name(int64_t ret)
{
	return ret < 0 && ret >= -4095 ? strerrorname_np((int)-ret) : NULL;
}
