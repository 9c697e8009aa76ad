/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What kernelize takes from its input: the sclat:syscall_outlier events,
 * checked for what the output is made of (an untrusted trace), on a clock
 * that counts nanoseconds.
 */
#ifndef SCLAT_BT2_KZ_INPUT_H
#define SCLAT_BT2_KZ_INPUT_H

#include <stdint.h>
#include <babeltrace2/babeltrace.h>
#include "outlier.h"

struct kz_iter;

/* 1 with the outlier and its event's time if msg is one, 0 if not, -1 on error. */
int kz_outlier_of(struct kz_iter *it, const bt_message *msg, struct outlier *o, uint64_t *ts);

#endif
