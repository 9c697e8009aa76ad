/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The latest outliers of a run, for `sclat top`: a sink that keeps the last
 * RECENT_OUTLIERS_KEPT lines as `sclat watch` prints them, and sums the time
 * each syscall (and class) lost beyond its threshold. The drain thread fills
 * it; the control thread reads it, under a lock of its own.
 */
#ifndef SCLAT_RECENT_OUTLIERS_H
#define SCLAT_RECENT_OUTLIERS_H

#include "sink.h"

/* The lines kept, and the bytes of each (a longer one is cut at a character). */
#define RECENT_OUTLIERS_KEPT 32
#define RECENT_OUTLIER_LINE  1024
/* The classes whose time lost is summed; past them, the one summed least lately goes. */
#define RECENT_CLASSES_MAX   1024

struct recent_outliers;

struct recent_outlier {
	__s64 entry_epoch_ns;
	__u32 nr;
	__u64 latency_ns, threshold_ns;
	char line[RECENT_OUTLIER_LINE]; /* watch's line, escaped, without its newline */
};

/* One class's time lost; name is the class's, as its basis has it. */
struct recent_class_lost {
	__u32 nr;
	char name[BASIS_CLASS_MAX];
	__u64 lost_ns;
	__u64 seq; /* the outlier that added last: the least lately is replaced */
};

/*
 * The time the outliers delivered so far spent beyond the threshold they
 * crossed (latency - threshold), summed per syscall and per class.
 */
struct recent_lost {
	__u64 by_nr[SCLAT_MAX_SYSCALLS];
	unsigned int nr_classes;
	struct recent_class_lost classes[RECENT_CLASSES_MAX];
};

struct recent_outliers *recent_outliers_new(void);
void recent_outliers_free(struct recent_outliers *ro);

/* The sink that fills ro. */
void recent_outliers_sink(struct recent_outliers *ro, struct sink *s);

/* Up to max of the latest outliers, newest first; returns how many. Any thread. */
unsigned int recent_outliers_list(struct recent_outliers *ro, struct recent_outlier *out,
				  unsigned int max);

/* A copy of the time lost so far. Any thread. */
void recent_outliers_lost(struct recent_outliers *ro, struct recent_lost *out);

/* The time lost by nr's class name in l; -1: not summed (its class was replaced). */
long long recent_lost_class(const struct recent_lost *l, unsigned int nr, const char *name);

#endif
