/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernelize's output trace: a kernel trace as lttng-modules writes one (its
 * environment, a stream class "channel0" with a cpu_id per packet, the
 * sched_switch, sched_waking/sched_wakeup and statedump event classes), on the
 * input's clock; a syscall_entry_NAME/syscall_exit_NAME pair of classes per
 * syscall name.
 */
#ifndef SCLAT_BT2_KZ_TRACE_H
#define SCLAT_BT2_KZ_TRACE_H

#include <babeltrace2/babeltrace.h>
#include "outlier.h"

struct kz_iter;

struct syscall_classes {
	char name[OUTLIER_NAME_LEN];
	bt_event_class *entry;
	bt_event_class *exit;
	unsigned int nr_args; /* fields of the entry event: its first arguments */
	bool fd_arg;	      /* its first argument is a file descriptor ("fd") */
};

/* The output trace, from the first outlier's message (its clock, its trace's hostname); 0 or -1. */
int kz_trace_create(struct kz_iter *it, const bt_message *first);

/* The classes of syscall name (made on first sight), or NULL (a cause says why, if not memory). */
struct syscall_classes *kz_syscall_classes(struct kz_iter *it, const char *name);

#endif
