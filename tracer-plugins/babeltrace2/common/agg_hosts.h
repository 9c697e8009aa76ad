/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hosts whose traces are read together: per host, its span, its
 * syscalls' statistics and learned thresholds, its losses, its runs of sclat
 * record and the policy they began with.
 */
#ifndef SCLAT_BT2_AGG_HOSTS_H
#define SCLAT_BT2_AGG_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "agg_loss.h"
#include "outlier.h"

struct agg;

/* One syscall on one host, from its sclat:stats (the last interval's threshold and p99). */
struct agg_host_syscall {
	char syscall[OUTLIER_NAME_LEN];
	uint64_t calls, outliers; /* over every interval */
	uint64_t threshold_ns;	  /* the last interval's */
	uint64_t p99_ns;	  /* the last interval's, over the decayed window */
	bool learned;		  /* its last threshold_update had an estimate behind it */
	struct threshold_change last_learned; /* that update, when learned */
};

/* One host: what its traces hold. */
struct agg_host {
	char name[OUTLIER_HOST_LEN];
	uint64_t seen, matched; /* its outliers, and those that passed the filter */
	struct agg_loss loss;
	struct agg_runs runs;
	int64_t first_ns, last_ns; /* its first and last event, ns since the epoch */
	bool timed;		   /* first_ns and last_ns are set */
	struct agg_host_syscall *sc;
	size_t nr_sc, cap_sc;
	char *policy; /* its sclat:session_begin's policy (INI), when seen */
};

/*
 * The host named name (added on first sight) in *h, or NULL when the host
 * filter leaves it out. 0 or -ENOMEM.
 */
int agg_host_find(struct agg *a, const char *name, struct agg_host **h);

/* An event of host h at ns since the epoch: its trace's span. */
void agg_host_saw(struct agg_host *h, int64_t ns);

/*
 * A threshold change: a syscall's own (kept when it passes the syscall filter)
 * or a class's (ignored: not its syscall's threshold); 0 or -ENOMEM.
 */
int agg_add_change(struct agg *a, struct agg_host *h, const struct threshold_change *t);

/* One sclat:stats of host h; 0 or -ENOMEM. */
int agg_add_stats(struct agg *a, struct agg_host *h, const struct syscall_stats *s);

/* The policy host h's tracer began with (sclat:session_begin); 0 or -ENOMEM. */
int agg_host_set_policy(struct agg_host *h, const char *policy);

/* One sclat:lost of host h. */
void agg_add_loss(struct agg_host *h, const struct lost_count *l);

/* Events LTTng discarded on host h: count, or an unknown number when !known. */
void agg_add_discarded(struct agg_host *h, uint64_t count, bool known);

/* Packets missing from host h's trace (gaps in their sequence numbers). */
void agg_add_discarded_packets(struct agg_host *h, uint64_t count);

/* One sclat:session_begin of host h (its trace version), or one sclat:session_end. */
void agg_add_run_begin(struct agg_host *h, uint32_t version);
void agg_add_run_end(struct agg_host *h, const struct run_end *e);
/* sum += e, field by field. */
void agg_run_end_add(struct run_end *sum, const struct run_end *e);

/* For agg_finish(): the hosts by name. */
void agg_hosts_sort(struct agg *a);

#endif
