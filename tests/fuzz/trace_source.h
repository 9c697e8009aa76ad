/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A babeltrace2 source of sclat events made of fuzzer bytes, laid out as
 * sclat's lttng-ust provider lays them out (user/outputs/lttng_provider.h):
 * what the plugin's readers take from a trace, without a trace on disk.
 *
 * The input is a 24-byte header, then one 48-byte record per event
 * (tests/fuzz/seed-corpus writes both from a real trace; it is the reference):
 *
 *   header  0 flags: bits 0-1 format (text, json, lami), 2-3 by (syscall,
 *             process, thread, target+stack), 4 kernelize horizon, 5 report
 *             filters, 6 folded stacks (only them, on stdout)
 *           1 top
 *           2 clock: bit 0 counts us (not ns), 1 no epoch origin,
 *             2 cpu field mistyped (a string), 3 no explanation fields (a
 *             trace of version 1 or 2), 4 stretches off the CPU (off_cpu_*,
 *             a trace of version 7; with the explanation fields only)
 *           4 u64 clock offset, ns;  12 u64 first time;  20 u32 horizon, us
 *   record  0 kind % 4: 0, 1 outlier, 2 threshold_update, 3 lost
 *           1 syscall name: an index in a table, 0xff: the comm bytes
 *           2 latency shift;  3 cpu: 0 small (raw % 4), else raw
 *           4 u32 cpu;  8 u32 time since the previous event;  12 u32 entry,
 *           before the event;  16 u32 latency (<< shift);  20 s32 tid;
 *           24 s32 pid;  28 s64 ret;  36 comm, 12 bytes
 *
 * An outlier's explanation (on_cpu_ns ... kernel_stack) is made of the same
 * bytes: on_cpu the entry offset, runqueue and sleep a quarter and the rest
 * of the latency, io_wait ret's low 16 bits, switches the shift; the comm is
 * its target, its waker's comm when kind bit 2 is set, its kernel stack when
 * kind bit 3 is. Its stretches off the CPU (clock bit 4): kind bits 4-7 % 18
 * of them, a chain of links from the entry split by an xorshift of its bytes
 * 0-7 and 28-35, some out of order or of a kind no trace has.
 *
 * All little-endian. What is left after the last whole record is ignored.
 */
#ifndef SCLAT_FUZZ_TRACE_SOURCE_H
#define SCLAT_FUZZ_TRACE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

#define FUZZ_HEADER 24
#define FUZZ_RECORD 48

struct fuzz_header {
	unsigned int format; /* 0 text, 1 json, 2 lami */
	unsigned int by;     /* 0 syscall, 1 process, 2 thread, 3 target,stack */
	int horizon_set, filters, folded;
	unsigned int top;
	uint64_t horizon_ns;
};

/* The header's choices for the sinks; 0, or -1 when data is shorter than a header. */
int fuzz_header_read(const uint8_t *data, size_t size, struct fuzz_header *h);

/* Outlier records in data: what a conversion must turn into entry/exit pairs. */
size_t fuzz_outlier_count(const uint8_t *data, size_t size);

/* Add the source, named "src", over data (kept, not copied, until the graph goes). */
int fuzz_source_add(bt_graph *graph, const uint8_t *data, size_t size,
		    const bt_component_source **src);

#endif
