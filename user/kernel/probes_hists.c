// SPDX-License-Identifier: GPL-2.0-only
/*
 * The histograms read, with one batch lookup each time: the slots' and the
 * cells' on every CPU, the calls still pending on the CPUs' lanes added so
 * that no count runs ahead; and the counters of the BPF side.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "probes_hists.h"
#include "probes_lanes.h"

/* Every syscall on the lanes as its slot, threshold and classes say. */
static void lanes_sync_all(struct probes *t)
{
	unsigned int nr;

	t->lanes_next_slot = __atomic_load_n(&t->shared->next_slot, __ATOMIC_ACQUIRE);
	for (nr = 0; nr < SCLAT_MAX_SYSCALLS; nr++)
		probes_lanes_sync(t, nr);
}

bool probes_lanes_refresh(struct probes *t)
{
	if (__atomic_load_n(&t->shared->next_slot, __ATOMIC_ACQUIRE) == t->lanes_next_slot)
		return false;
	lanes_sync_all(t);
	return true;
}

/* Each CPU's flush sequence now, before its histograms are read; NULL on no memory. */
static __u32 *flush_seqs(const struct probes *t)
{
	__u32 *seq = calloc(t->ncpus, sizeof(*seq));
	int cpu;

	for (cpu = 0; seq && cpu < t->ncpus; cpu++)
		seq[cpu] = __atomic_load_n(&lane_of(t, cpu)->flush_seq, __ATOMIC_ACQUIRE);
	return seq;
}

/*
 * Adds each CPU's pending calls (struct sclat_cpu_lane) of histograms first
 * .. first + n - 1 to those in buf (buf[(index - first) * ncpus + cpu]), read
 * since seq[cpu] was taken. A CPU that moved its pending calls into its
 * histograms in between is skipped: its calls so moved are then in neither,
 * never in both, so the counts read never run ahead; the reader's deltas
 * skip a count that runs behind (engine.c).
 */
static void pending_add(struct probes *t, struct sclat_hist *buf, __u32 first, __u32 n,
			const __u32 *seq)
{
	__u64 pend[SCLAT_PENDING_MAX];
	__u32 i, count, index, hist;
	const struct sclat_cpu_lane *lane;
	int cpu;

	for (cpu = 0; cpu < t->ncpus; cpu++) {
		lane = lane_of(t, cpu);
		if (seq[cpu] & 1)
			continue;
		count = __atomic_load_n(&lane->pend_n, __ATOMIC_ACQUIRE);
		if (count > SCLAT_PENDING_MAX)
			continue;
		memcpy(pend, lane->pend, count * sizeof(pend[0]));
		/* A flush in between: the copy may hold calls the histograms have too. */
		if (__atomic_load_n(&lane->flush_seq, __ATOMIC_ACQUIRE) != seq[cpu])
			continue;
		for (i = 0; i < count; i++) {
			hist = sclat_pend_hist(pend[i]);
			index = hist - first;
			if (hist >= first && index < n)
				buf[index * t->ncpus + cpu]
					.bucket[sclat_hist_bucket(sclat_pend_ns(pend[i]))] +=
					sclat_pend_weight(pend[i]);
		}
	}
}

int probes_hists_read(struct probes *t, struct sclat_hist *buf, bool all)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int fd = bpf_map__fd(t->skel->maps.hists);
	__u32 out_batch, n, count, *seq, slot;
	int err, cpu;

	/* A syscall whose slot came after probes_lanes_refresh() looked joins it now. */
	lanes_sync_all(t);
	if (t->class_cells)
		probes_lane_cells_check(t);
	seq = flush_seqs(t);
	if (!seq)
		return -ENOMEM;
	/* Slots 1..next_slot are handed out (in that order); the rest are untouched. */
	n = __atomic_load_n(&t->shared->next_slot, __ATOMIC_ACQUIRE);
	n = n < SCLAT_HIST_SLOTS - 1 && !all ? n + 1 : SCLAT_HIST_SLOTS;
	count = n;
	err = bpf_map_lookup_batch(fd, NULL, &out_batch, t->keys, buf, &count, &opts);
	if (err && errno != ENOENT) {
		err = -errno;
		free(seq);
		return err;
	}
	if (count != n) {
		free(seq);
		return -EIO;
	}
	pending_add(t, buf, 0, n, seq);
	free(seq);
	for (slot = 0; slot < n; slot++)
		for (cpu = 0; cpu < t->ncpus; cpu++)
			buf[slot * t->ncpus + cpu].calls = __atomic_load_n(
				&lane_of(t, cpu)->slot[slot].calls, __ATOMIC_RELAXED);
	return n;
}

/* Cells first .. first + n - 1 (n > 0) into buf, their pending calls added; how many. */
static int cells_read(struct probes *t, struct sclat_hist *buf, unsigned int first, unsigned int n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	int fd = bpf_map__fd(t->skel->maps.hists);
	__u32 in = SCLAT_HIST_SLOTS + first - 1, out, count = n, *seq;
	int err = 0;

	seq = flush_seqs(t);
	if (!seq)
		return -ENOMEM;
	/* An array's batch starts after in: cell first is SCLAT_HIST_SLOTS + first. */
	if (bpf_map_lookup_batch(fd, &in, &out, t->cell_keys, buf, &count, &opts) &&
	    errno != ENOENT)
		err = -errno;
	else if (count != n)
		err = -EIO;
	else
		pending_add(t, buf, SCLAT_HIST_SLOTS + first, count, seq);
	free(seq);
	return err ? err : (int)count;
}

int probes_cells_read(struct probes *t, struct sclat_hist *buf, unsigned int n)
{
	if (n > t->class_cells)
		n = t->class_cells;
	if (n <= 1)
		return 0;
	return cells_read(t, buf, 1, n - 1);
}

int probes_cell_read(struct probes *t, unsigned int cell, struct sclat_hist *buf)
{
	int n;

	if (!cell || cell >= t->class_cells)
		return -EINVAL;
	n = cells_read(t, buf, cell, 1);
	return n < 0 ? n : 0;
}

void probes_kstacks(const struct probes *t, __u64 *taken, __u64 *skipped, __u64 *wakers_lost,
		    __u64 *backs_unseen)
{
	*taken = __atomic_load_n(&t->skel->bss->kstacks_taken, __ATOMIC_RELAXED);
	*skipped = __atomic_load_n(&t->skel->bss->kstacks_skipped, __ATOMIC_RELAXED);
	*wakers_lost = __atomic_load_n(&t->skel->bss->wakers_lost, __ATOMIC_RELAXED);
	*backs_unseen = __atomic_load_n(&t->skel->bss->backs_unseen, __ATOMIC_RELAXED);
}

__u64 probes_children_not_followed(const struct probes *t)
{
	return __atomic_load_n(&t->skel->bss->children_not_followed, __ATOMIC_RELAXED);
}
