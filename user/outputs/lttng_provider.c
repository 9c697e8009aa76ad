// SPDX-License-Identifier: (LGPL-2.1 OR MIT)
/* Creates the probes of the sclat lttng-ust provider; nothing else. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "outputs/lttng_provider.h"
