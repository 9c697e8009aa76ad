/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The outliers' ring buffer: consume the records the BPF side wrote, each
 * handed to probes_opts.on_event, and how full the buffer is.
 */
#ifndef SCLAT_PROBES_RING_H
#define SCLAT_PROBES_RING_H

#include "sclat_abi.h"

struct probes;

/* Consume outliers for up to timeout_ms; returns how many or a negative errno. */
int probes_poll(struct probes *t, int timeout_ms);

/* Consume what is in the ring buffer now, without waiting. */
int probes_drain(struct probes *t);

/* Bytes written to the ring buffer and not consumed yet, and its size. */
__u64 probes_ringbuf_used(const struct probes *t);
__u64 probes_ringbuf_size(const struct probes *t);

/* probes_load()'s and probes_close()'s: the loaded object's buffer opened and closed. */
int probes_ring_open(struct probes *t);
void probes_ring_close(struct probes *t);

#endif
