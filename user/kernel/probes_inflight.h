/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The calls in flight, as the BPF task iterator reports them: when each
 * syscall's calls are old enough to report, and one run of the iterator.
 */
#ifndef SCLAT_PROBES_INFLIGHT_H
#define SCLAT_PROBES_INFLIGHT_H

#include "sclat_abi.h"

struct probes;

/* A call in flight that the task iterator reported (shm/sclat_abi.h), r->size bytes. */
typedef void (*probes_inflight_fn)(void *ctx, const struct sclat_inflight *r);

/* From now on, report a call of syscall nr in flight once it is ns old; 0: never. */
void probes_inflight_after_set(struct probes *t, unsigned int nr, __u64 ns);

/*
 * Run the task iterator once: fn gets every call in flight past its syscall's
 * inflight_after. Returns how many, or a negative errno (-ENOTSUP: the
 * kernel could not attach the iterator; attach said so).
 */
int probes_inflight_scan(struct probes *t, probes_inflight_fn fn, void *ctx);

#endif
