/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct probes, the handle that probes_load() makes and probes_close()
 * frees, as the modules of user/kernel/ share it; not for use outside. Each
 * group of fields says which module writes it.
 */
#ifndef SCLAT_PROBES_HANDLE_H
#define SCLAT_PROBES_HANDLE_H

#include <stdbool.h>
#include <stddef.h>
#include "sclat_abi.h"

/*
 * A CPU's page as kern-bpf/sclat.bpf.c lays it out (struct cpu_page): the
 * lane first; the rest, the CPU's record, is the BPF side's own.
 */
struct cpu_page {
	struct sclat_cpu_lane lane;
	__u8 rest[SCLAT_CPU_PAGE_SIZE - sizeof(struct sclat_cpu_lane)];
};

#include "sclat.skel.h"
#include "probes_load.h"
#include "probes_stats.h"

struct probes {
	/* probes_load.c: the object as loaded. */
	struct sclat_bpf *skel;
	struct sclat_shared *shared; /* the mmap'ed .bss */
	char *cpu_pages;	     /* in the mmap'ed .bss: a page per CPU, lane first */
	int ncpus;
	bool raw_tp;
	bool bounded; /* tp_btf's sys_enter and sys_exit: the *_bounded ones (see probes_load) */
	bool forced;  /* SCLAT_ATTACH: no fallback to another kind */
	int cgroup_fd;
	long page_size;
	unsigned int class_cells;
	__u32 *keys;	  /* batch lookup keys of the slots */
	__u32 *cell_keys; /* ... and of the cells */

	/* probes_ring.c: the outliers' ring buffer. */
	struct ring_buffer *rb;
	size_t ringbuf_bytes;
	const volatile unsigned long *rb_cons, *rb_prod;
	probes_event_fn on_event;
	void *ctx;

	/* probes_hists.c */
	__u32 lanes_next_slot; /* next_slot as probes_lanes_refresh() last synced the lanes */

	/* probes_knobs.c, probes_routes.c and probes_lanes.c: the lanes' knobs. */
	__u32 *route_of_cell; /* the route key of each cell (0: none), as probes_cell_route set */
	__u32 sample;	      /* the lanes' sample_n: 1 (or 0) counts every call */
	bool floors_stale; /* a threshold, a route or a body moved since probes_floors_refresh() */
	/* Each slot's body (probes_body_set), in floor units; SCLAT_LANE_UNIT_MAX: not known. */
	__u16 body[SCLAT_HIST_SLOTS];
	/* Each slot's threshold word, as probes_lanes_sync() set it. */
	__u64 slot_word[SCLAT_HIST_SLOTS];

	/* probes_inflight.c */
	char *iter_buf; /* what the task iterator wrote in its last run */
	size_t iter_cap;

	/* probes_stats.c */
	int stats_fd;		     /* keeps kernel BPF stats on while >= 0 */
	struct probes_mem mem_sized; /* the maps whose size is set at creation, once read */
	bool mem_sized_read;
};

static inline struct sclat_cpu_lane *lane_of(const struct probes *t, int cpu)
{
	return (struct sclat_cpu_lane *)(t->cpu_pages + (size_t)cpu * SCLAT_CPU_PAGE_SIZE);
}

#endif
