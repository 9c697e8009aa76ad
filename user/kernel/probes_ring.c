// SPDX-License-Identifier: GPL-2.0-only
/*
 * The outliers' ring buffer: libbpf's consumer hands each record to
 * probes_opts.on_event; a read-only view of the positions says how full it is.
 */
#include <errno.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>
#include "probes_ring.h"
#include "probes_handle.h"

static int on_ringbuf_sample(void *ctx, void *data, size_t size)
{
	struct probes *t = ctx;

	if (size < sizeof(struct sclat_event))
		return 0;
	return t->on_event ? t->on_event(t->ctx, data, size) : 0;
}

int probes_ring_open(struct probes *t)
{
	int fd = bpf_map__fd(t->skel->maps.events);

	t->rb = ring_buffer__new(fd, on_ringbuf_sample, t, NULL);
	if (!t->rb)
		return -errno;
	/* Our own read-only view of the positions, for the occupancy. */
	t->rb_cons = mmap(NULL, t->page_size, PROT_READ, MAP_SHARED, fd, 0);
	t->rb_prod = mmap(NULL, t->page_size, PROT_READ, MAP_SHARED, fd, t->page_size);
	if (t->rb_cons == MAP_FAILED || t->rb_prod == MAP_FAILED) {
		t->rb_cons = t->rb_prod = NULL;
		return -errno;
	}
	return 0;
}

void probes_ring_close(struct probes *t)
{
	ring_buffer__free(t->rb);
	t->rb = NULL;
	if (t->rb_cons)
		munmap((void *)t->rb_cons, t->page_size);
	if (t->rb_prod)
		munmap((void *)t->rb_prod, t->page_size);
	t->rb_cons = t->rb_prod = NULL;
}

int probes_poll(struct probes *t, int timeout_ms)
{
	int n = ring_buffer__poll(t->rb, timeout_ms), m;

	/*
	 * The kernel wakes this reader only past an eighth of the buffer
	 * (outlier_emit): what came in since the last wake-up is read here, at
	 * the end of each wait.
	 */
	m = ring_buffer__consume(t->rb);
	if (n < 0)
		return n;
	return m < 0 ? m : n + m;
}

int probes_drain(struct probes *t)
{
	return ring_buffer__consume(t->rb);
}

__u64 probes_ringbuf_used(const struct probes *t)
{
	if (!t->rb_cons)
		return 0;
	return __atomic_load_n(t->rb_prod, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(t->rb_cons, __ATOMIC_ACQUIRE);
}

__u64 probes_ringbuf_size(const struct probes *t)
{
	return t->ringbuf_bytes;
}
