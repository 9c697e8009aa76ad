/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * The lttng-ust provider "flight" of tests/workloads/flight.c: the events of a
 * user's own application, that a snapshot-mode session records around an outlier.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER flight

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./flight_tp.h"

#if !defined(FLIGHT_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FLIGHT_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

/* clang-format off */

/* Every millisecond, from the ticking thread. */
LTTNG_UST_TRACEPOINT_EVENT(flight, tick,
	LTTNG_UST_TP_ARGS(uint64_t, seq),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, seq, seq)
	)
)

/* Around each injected slow syscall, from the main thread. */
LTTNG_UST_TRACEPOINT_EVENT(flight, slow_begin,
	LTTNG_UST_TP_ARGS(uint32_t, ms),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, ms, ms)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(flight, slow_end,
	LTTNG_UST_TP_ARGS(uint32_t, ms),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, ms, ms)
	)
)

/* clang-format on */

#endif /* FLIGHT_TP_H */

#include <lttng/tracepoint-event.h>
