// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calls in flight: each syscall's age past which the task iterator
 * reports a call, and one run of the iterator read whole and walked.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "probes_inflight.h"
#include "probes_handle.h"

void probes_inflight_after_set(struct probes *t, unsigned int nr, __u64 ns)
{
	if (nr < SCLAT_MAX_SYSCALLS)
		__atomic_store_n(&t->skel->bss->inflight_after_ns[nr], ns, __ATOMIC_RELAXED);
}

/* All the iterator writes in one run: a few records, each under 2 KiB. */
static ssize_t iter_read_all(int fd, char **buf, size_t *cap)
{
	size_t len = 0;
	ssize_t n;
	char *p;

	for (;;) {
		if (*cap - len < 4096) {
			p = realloc(*buf, *cap ? *cap * 2 : 16384);
			if (!p)
				return -ENOMEM;
			*buf = p;
			*cap = *cap ? *cap * 2 : 16384;
		}
		n = read(fd, *buf + len, *cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return len;
		len += n;
	}
}

int probes_inflight_scan(struct probes *t, probes_inflight_fn fn, void *ctx)
{
	const struct sclat_inflight *r;
	ssize_t len, off;
	int fd, n = 0;

	if (!t->skel->links.sclat_inflight)
		return -ENOTSUP;
	fd = bpf_iter_create(bpf_link__fd(t->skel->links.sclat_inflight));
	if (fd < 0)
		return -errno;
	len = iter_read_all(fd, &t->iter_buf, &t->iter_cap);
	close(fd);
	if (len < 0)
		return len;
	for (off = 0; len - off >= (ssize_t)sizeof(*r); off += r->size) {
		r = (const void *)(t->iter_buf + off);
		if (r->size < sizeof(*r) || r->size > len - off || r->size % SCLAT_PART_ALIGN)
			return -EBADMSG;
		fn(ctx, r);
		n++;
	}
	return n;
}
