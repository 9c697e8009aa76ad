/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The events kernelize makes of pending ones, as lttng-modules would have
 * written them: the sched_switch that makes a thread current (after its
 * statedump, the first time), its switches out and wake-ups, and its
 * syscall's entry and exit.
 */
#ifndef SCLAT_BT2_KZ_EMIT_H
#define SCLAT_BT2_KZ_EMIT_H

#include <stddef.h>

struct kz_iter;
struct pending;

/*
 * Release the n events of one nanosecond (batch, in their order) with the
 * switches that place their threads; 0 or -1.
 */
int kz_release(struct kz_iter *it, const struct pending *batch, size_t n);

#endif
