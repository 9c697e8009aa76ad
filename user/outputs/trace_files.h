/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Whether the files LTTng wrote for a local trace hold every packet of a
 * channel up to the end of the run: what a full disk or a write error
 * takes away, and LTTng does not report.
 */
#ifndef SCLAT_TRACE_FILES_H
#define SCLAT_TRACE_FILES_H

#include <linux/types.h>

/*
 * Check the per-user trace under dir (ust/uid/UID/64-bit) once the session
 * is destroyed: the metadata is whole, and each CPU's stream CHANNEL_CPU has,
 * from its index, packets that follow one another from the first, all in
 * the file, the last ending at or after end_ns (monotonic), when the stop
 * flushed it. 0, or -1 after one line on stderr saying what is missing.
 */
int trace_files_check(const char *dir, const char *channel, __u64 end_ns);

#endif
