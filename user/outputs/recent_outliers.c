// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latest outliers and the time lost beyond thresholds (recent_outliers.h):
 * a ring of lines and a table of sums, both bounded, behind one mutex that the
 * drain holds for a copy and the control thread for a read.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "recent_outliers.h"
#include "watch_printer.h"
#include "util/outlier_line.h"

struct recent_outliers {
	pthread_mutex_t lock;
	struct recent_outlier ring[RECENT_OUTLIERS_KEPT];
	unsigned int head, count; /* head: where the next goes */
	__u64 seq;
	struct recent_lost lost;
};

struct recent_outliers *recent_outliers_new(void)
{
	struct recent_outliers *ro = calloc(1, sizeof(*ro));

	if (ro)
		pthread_mutex_init(&ro->lock, NULL);
	return ro;
}

void recent_outliers_free(struct recent_outliers *ro)
{
	if (!ro)
		return;
	pthread_mutex_destroy(&ro->lock);
	free(ro);
}

/* text into dst of len bytes, cut before a character that does not fit whole. */
static void line_copy(char *dst, size_t len, const char *text, size_t n)
{
	while (n && text[n - 1] == '\n')
		n--;
	if (n >= len) {
		n = len - 1;
		/* Back to the first byte of the character cut. */
		while (n && ((unsigned char)text[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, text, n);
	dst[n] = '\0';
}

/* The class cell of nr named name (new, or the one summed least lately replaced); lock held. */
static struct recent_class_lost *class_of(struct recent_lost *l, unsigned int nr, const char *name)
{
	struct recent_class_lost *oldest = NULL, *c;
	unsigned int i;

	for (i = 0; i < l->nr_classes; i++) {
		c = &l->classes[i];
		if (c->nr == nr && !strncmp(c->name, name, sizeof(c->name)))
			return c;
		if (!oldest || c->seq < oldest->seq)
			oldest = c;
	}
	c = l->nr_classes < RECENT_CLASSES_MAX ? &l->classes[l->nr_classes++] : oldest;
	memset(c, 0, sizeof(*c));
	c->nr = nr;
	snprintf(c->name, sizeof(c->name), "%s", name);
	return c;
}

static int recent_outlier(void *ctx, const struct sclat_event *e, __s64 entry_epoch_ns,
			  const struct threshold_basis *basis, const struct explanation *x)
{
	struct recent_outliers *ro = ctx;
	char name[32], stack[EXPLAIN_WHY_TEXT_LEN], *text = NULL;
	__u64 beyond = e->latency_ns > e->threshold_ns ? e->latency_ns - e->threshold_ns : 0;
	struct outlier_why why;
	struct outlier_line line;
	struct recent_outlier *r;
	size_t len = 0;
	FILE *f;

	watch_line_of(&line, e, entry_epoch_ns, x, &why, stack, sizeof(stack), name, sizeof(name));
	line.estimate_ns = basis->estimate_ns;
	line.samples = basis->samples;
	line.class_name = basis->class_name;
	line.storage_stall = basis->storage_stall;
	/* Formatted before the lock: the control thread never waits for it. */
	f = open_memstream(&text, &len);
	if (f) {
		outlier_line_text(f, &line);
		if (fclose(f))
			len = 0;
	}
	pthread_mutex_lock(&ro->lock);
	ro->seq++;
	if (e->nr < SCLAT_MAX_SYSCALLS)
		ro->lost.by_nr[e->nr] += beyond;
	if (e->nr < SCLAT_MAX_SYSCALLS && basis->class_name[0]) {
		struct recent_class_lost *c = class_of(&ro->lost, e->nr, basis->class_name);

		c->lost_ns += beyond;
		c->seq = ro->seq;
	}
	r = &ro->ring[ro->head];
	*r = (struct recent_outlier){
		.entry_epoch_ns = entry_epoch_ns,
		.nr = e->nr,
		.latency_ns = e->latency_ns,
		.threshold_ns = e->threshold_ns,
	};
	line_copy(r->line, sizeof(r->line), text ? text : "", text ? len : 0);
	ro->head = (ro->head + 1) % RECENT_OUTLIERS_KEPT;
	if (ro->count < RECENT_OUTLIERS_KEPT)
		ro->count++;
	pthread_mutex_unlock(&ro->lock);
	free(text);
	return 0;
}

void recent_outliers_sink(struct recent_outliers *ro, struct sink *s)
{
	*s = (struct sink){
		.outlier = recent_outlier,
		.ctx = ro,
	};
}

unsigned int recent_outliers_list(struct recent_outliers *ro, struct recent_outlier *out,
				  unsigned int max)
{
	unsigned int i, n;

	pthread_mutex_lock(&ro->lock);
	n = ro->count < max ? ro->count : max;
	for (i = 0; i < n; i++)
		out[i] = ro->ring[(ro->head + RECENT_OUTLIERS_KEPT - 1 - i) % RECENT_OUTLIERS_KEPT];
	pthread_mutex_unlock(&ro->lock);
	return n;
}

void recent_outliers_lost(struct recent_outliers *ro, struct recent_lost *out)
{
	pthread_mutex_lock(&ro->lock);
	memcpy(out->by_nr, ro->lost.by_nr, sizeof(out->by_nr));
	out->nr_classes = ro->lost.nr_classes;
	memcpy(out->classes, ro->lost.classes, ro->lost.nr_classes * sizeof(out->classes[0]));
	pthread_mutex_unlock(&ro->lock);
}

long long recent_lost_class(const struct recent_lost *l, unsigned int nr, const char *name)
{
	unsigned int i;

	for (i = 0; i < l->nr_classes; i++)
		if (l->classes[i].nr == nr &&
		    !strncmp(l->classes[i].name, name, sizeof(l->classes[i].name)))
			return (long long)l->classes[i].lost_ns;
	return -1;
}
