/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A reader of traces run in a child process: babeltrace2 2.0 aborts,
 * crashes or allocates without bound on some corrupt data streams, and
 * that must cost the reader one clear line, not a signal death, a core or
 * the machine's memory.
 */
#ifndef SCLAT_TRACE_FENCE_H
#define SCLAT_TRACE_FENCE_H

#include <stddef.h>

/*
 * fn(arg) in a child process that may map, beyond what it starts with (a
 * copy of the caller), what the traces under paths can need: a base plus a
 * multiple of their size on disk. Its return value is the child's exit
 * status. Returns that status; or -1 when the
 * child died of a crash (SIGSEGV, SIGABRT, ...: babeltrace2 on a corrupt
 * trace, or its memory bound), and then why says so ("babeltrace2 crashed
 * reading it (SIGSEGV): ..."). A stop signal (SIGINT, SIGTERM; SIGPIPE) ends the
 * child and then the caller, as it would have without the fence. What
 * babeltrace2 prints as it crashes is dropped; the child's own lines pass.
 */
int trace_fenced(char *const *paths, size_t nr_paths, int (*fn)(void *arg), void *arg, char *why,
		 size_t len);

#endif
