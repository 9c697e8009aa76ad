/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The line a failed babeltrace2 graph leaves for the user: the message of the
 * plugin that failed (its own words), not libbabeltrace2's dump of its objects.
 */
#ifndef SCLAT_GRAPH_ERROR_H
#define SCLAT_GRAPH_ERROR_H

#include <stddef.h>
#include <babeltrace2/babeltrace.h>

/*
 * What err says, in one line of buf: the first cause a component (or its
 * class, or its iterator) appended, the deepest; when none did, the library's
 * own cause in words (graph_error_words). buf is returned.
 */
const char *graph_error_line(const bt_error *err, char *buf, size_t len);

/*
 * A libbabeltrace2 message (`Component's "consume" method failed:
 * status=MEMORY_ERROR, comp-addr=0x..., comp-name="report", ...`) in words:
 * which component, what went wrong and what to do, without its addresses.
 */
void graph_error_words(const char *msg, char *buf, size_t len);

#endif
