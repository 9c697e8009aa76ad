// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task classes and their cells: the ids and routes userspace gives, written
 * into the maps with the lanes put right, the requests the BPF side queued,
 * and what it asked or was refused deleted for it to ask again.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "util/compiler.h"
#include "probes_routes.h"
#include "probes_lanes.h"

static bool key_is(__u32 key, __u32 arg)
{
	return key == arg;
}

static bool key_of_id(__u32 key, __u32 id)
{
	return sclat_cell_key_class_id(key) == id;
}

/* Routes that match, off every lane and out of route_of_cell. */
static void routes_forget(struct probes *t, bool (*match)(__u32 key, __u32 arg), __u32 arg)
{
	unsigned int cell;
	int cpu;

	t->floors_stale = true;
	for (cell = 1; cell < t->class_cells; cell++)
		if (t->route_of_cell[cell] && match(t->route_of_cell[cell], arg))
			t->route_of_cell[cell] = 0;
	for (cpu = 0; cpu < t->ncpus; cpu++)
		probes_lane_cells_drop(lane_of(t, cpu), match, arg);
}

void probes_cell_route(struct probes *t, unsigned int slot, unsigned int id, unsigned int fd_kind,
		       unsigned int cell)
{
	int fd = bpf_map__fd(t->skel->maps.cell_routes);
	__u32 key, value = cell;

	if (!slot || slot >= SCLAT_HIST_SLOTS || id >= SCLAT_CLASS_IDS || fd_kind >= SCLAT_FD_KINDS)
		return;
	key = sclat_cell_key(slot, id, fd_kind);
	/* A call that finds the cell finds its slot's floor under the cell's threshold. */
	if (cell && cell < t->class_cells)
		probes_lanes_floor_lower(
			t, slot,
			__atomic_load_n(&t->shared->cell_threshold[cell], __ATOMIC_RELAXED));
	t->floors_stale = true;
	if (cell == SCLAT_CELL_NONE)
		bpf_map_delete_elem(fd, &key);
	else
		bpf_map_update_elem(fd, &key, &value, BPF_ANY);
	routes_forget(t, key_is, key);
	if (cell && cell < t->class_cells)
		t->route_of_cell[cell] = key;
}

/*
 * Deletes the entries of hash map fd (at most max) that match says to; returns
 * how many. Keys first, deletions after: deleting while walking a hash may
 * restart the walk.
 */
static unsigned int
map_delete_matching(int fd, unsigned int max, size_t key_size, size_t value_size,
		    bool (*match)(const void *key, const void *value, void *ctx), void *ctx)
{
	char *keys = calloc(max, key_size), *cur = malloc(key_size), *next = malloc(key_size);
	void *value = malloc(value_size);
	unsigned int n = 0, i, done = 0;
	bool first = true;

	if (!keys || !cur || !next || !value)
		goto out;
	while (n < max && !bpf_map_get_next_key(fd, first ? NULL : cur, next)) {
		first = false;
		memcpy(cur, next, key_size);
		if (!bpf_map_lookup_elem(fd, cur, value) && match(cur, value, ctx))
			memcpy(keys + (size_t)n++ * key_size, cur, key_size);
	}
	for (i = 0; i < n; i++)
		done += !bpf_map_delete_elem(fd, keys + (size_t)i * key_size);
out:
	free(keys);
	free(cur);
	free(next);
	free(value);
	return done;
}

static bool route_of_id(const void *key, const void *value __always_unused, void *ctx)
{
	return key_of_id(*(const __u32 *)key, *(const unsigned int *)ctx);
}

void probes_class_routes_clear(struct probes *t, unsigned int id)
{
	const struct bpf_map *m = t->skel->maps.cell_routes;

	if (!id || id >= SCLAT_CLASS_IDS)
		return;
	map_delete_matching(bpf_map__fd(m), bpf_map__max_entries(m), sizeof(__u32), sizeof(__u32),
			    route_of_id, &id);
	routes_forget(t, key_of_id, id);
}

int probes_class_id_set(struct probes *t, __u32 kind, __u64 key, __u32 id)
{
	struct sclat_class_key k = { .key = key, .kind = kind };

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.class_ids), &k, &id, BPF_ANY))
		return -errno;
	/* A CPU may have noted the class as asked for, without an id. */
	probes_class_epoch_move(t);
	return 0;
}

int probes_class_id_forget(struct probes *t, __u32 kind, __u64 key)
{
	struct sclat_class_key k = { .key = key, .kind = kind };

	if (bpf_map_delete_elem(bpf_map__fd(t->skel->maps.class_ids), &k))
		return -errno;
	/* After the deletion: a CPU that noted the id since looks it up again, and misses. */
	probes_class_epoch_move(t);
	return 0;
}

int probes_class_requests(struct probes *t, struct sclat_class_request *out, int max)
{
	int fd = bpf_map__fd(t->skel->maps.class_requests), n = 0;

	while (n < max && !bpf_map_lookup_and_delete_elem(fd, NULL, &out[n]))
		n++;
	return n;
}

__u32 probes_class_requests_lost(const struct probes *t)
{
	return __atomic_load_n(&t->shared->class_requests_lost, __ATOMIC_ACQUIRE);
}

static bool value_is(const void *key __always_unused, const void *value, void *ctx)
{
	return *(const __u32 *)value == *(const __u32 *)ctx;
}

/* Class ids whose value is still what (0: asked; refused) deleted: the next call asks again. */
static unsigned int class_ids_rearm(struct probes *t, __u32 what)
{
	const struct bpf_map *m = t->skel->maps.class_ids;

	return map_delete_matching(bpf_map__fd(m), bpf_map__max_entries(m),
				   sizeof(struct sclat_class_key), sizeof(__u32), value_is, &what);
}

/* Routes still what (asked; shared: refused) deleted: the next call asks again. */
static unsigned int routes_rearm(struct probes *t, __u32 what)
{
	const struct bpf_map *m = t->skel->maps.cell_routes;

	return map_delete_matching(bpf_map__fd(m), bpf_map__max_entries(m), sizeof(__u32),
				   sizeof(__u32), value_is, &what);
}

/*
 * After routes (n_routes) and class ids (n_ids) were deleted for the BPF side
 * to ask again: what the CPUs noted of them goes, off the lanes, looked up again.
 */
static unsigned int rearmed(struct probes *t, unsigned int n_routes, unsigned int n_ids)
{
	if (n_routes)
		probes_lane_cells_check(t);
	if (n_ids)
		probes_class_epoch_move(t);
	return n_routes + n_ids;
}

unsigned int probes_class_requests_rearm(struct probes *t)
{
	return rearmed(t, routes_rearm(t, SCLAT_CELL_ASKED), class_ids_rearm(t, 0));
}

/* A process key refused an id, of a process that is gone. */
static bool refused_gone(const void *key, const void *value, void *ctx __always_unused)
{
	const struct sclat_class_key *k = key;

	if (*(const __u32 *)value != SCLAT_CLASS_ID_REFUSED || k->kind != SCLAT_CLASS_PROCESS)
		return false;
	return kill((pid_t)k->key, 0) && errno == ESRCH;
}

unsigned int probes_class_refusals_of_gone_forget(struct probes *t)
{
	const struct bpf_map *m = t->skel->maps.class_ids;

	/* No CPU notes a task that is gone: nothing to look up again. */
	return map_delete_matching(bpf_map__fd(m), bpf_map__max_entries(m),
				   sizeof(struct sclat_class_key), sizeof(__u32), refused_gone,
				   NULL);
}

unsigned int probes_class_refusals_rearm(struct probes *t, bool ids, bool cells)
{
	return rearmed(t, cells ? routes_rearm(t, SCLAT_CELL_SHARED) : 0,
		       ids ? class_ids_rearm(t, SCLAT_CLASS_ID_REFUSED) : 0);
}
