/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Task classes and their cells, as the BPF side sees them: the ids given to
 * classes, the routes of a slot's calls to a cell, and the requests the BPF
 * side queues for both (shm/sclat_abi.h).
 */
#ifndef SCLAT_PROBES_ROUTES_H
#define SCLAT_PROBES_ROUTES_H

#include <stdbool.h>
#include "sclat_abi.h"

struct probes;

/* The cell of slot's calls of class id and fd kind (SCLAT_CELL_*, or a cell). */
void probes_cell_route(struct probes *t, unsigned int slot, unsigned int id, unsigned int fd_kind,
		       unsigned int cell);
/* Every route of class id, in every slot, deleted: the id is free again. */
void probes_class_routes_clear(struct probes *t, unsigned int id);
/*
 * Give a task class its id (SCLAT_CLASS_ID_REFUSED: refused); forget: delete
 * it, -ENOENT if absent.
 */
int probes_class_id_set(struct probes *t, __u32 kind, __u64 key, __u32 id);
int probes_class_id_forget(struct probes *t, __u32 kind, __u64 key);
/* The requests the BPF side queued, at most max; returns how many. */
int probes_class_requests(struct probes *t, struct sclat_class_request *out, int max);
/* The requests the full queue refused, since load (wraps at 2^32). */
__u32 probes_class_requests_lost(const struct probes *t);
/*
 * Have the BPF side ask again for what it asked and was never answered: routes
 * still SCLAT_CELL_ASKED and class ids still 0 deleted. Only after
 * the queue is drained, or a request in it is asked twice (harmless). Returns
 * how many.
 */
unsigned int probes_class_requests_rearm(struct probes *t);
/*
 * Have the BPF side ask again for what was refused, once room is free: class
 * ids SCLAT_CLASS_ID_REFUSED deleted (ids), routes SCLAT_CELL_SHARED deleted
 * (cells). Returns how many.
 */
unsigned int probes_class_refusals_rearm(struct probes *t, bool ids, bool cells);

/*
 * The refused keys of processes that are gone, deleted (a fork storm would
 * otherwise fill the table with them, and no new process could be asked
 * for until ids retired); returns how many.
 */
unsigned int probes_class_refusals_of_gone_forget(struct probes *t);

#endif
