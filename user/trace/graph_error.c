// SPDX-License-Identifier: GPL-2.0-only
/*
 * A failed graph's error in words (graph_error.h): libbabeltrace2 appends a
 * cause of its own above the plugin's, a dump of addresses and .so paths that
 * tells a user nothing; the plugin's cause says what failed on what input.
 */
#include <stdio.h>
#include <string.h>
#include "graph_error.h"

/* The value of key="..." or key=WORD in msg, into buf; "" when absent. */
static const char *dump_value(const char *msg, const char *key, char *buf, size_t len)
{
	const char *p = msg, *v;
	size_t klen = strlen(key), n;

	buf[0] = '\0';
	for (p = strstr(p, key); p; p = strstr(p + 1, key)) {
		/* A whole key: at the start, or after ", " or ": ". */
		if (p != msg && p[-1] != ' ')
			continue;
		if (p[klen] != '=')
			continue;
		v = p + klen + 1;
		if (*v == '"') {
			v++;
			n = strcspn(v, "\"");
		} else {
			n = strcspn(v, ", ");
		}
		snprintf(buf, len, "%.*s", (int)n, v);
		break;
	}
	return buf;
}

/* The length of msg before the dump of objects (the first "...addr=0x..." and what follows). */
static size_t dump_start(const char *msg)
{
	const char *addr = strstr(msg, "addr=");
	size_t n;

	if (!addr)
		return strcspn(msg, "\n");
	n = addr - msg;
	while (n && msg[n - 1] != ' ')
		n--;
	while (n && (msg[n - 1] == ' ' || msg[n - 1] == ',' || msg[n - 1] == ':'))
		n--;
	return n;
}

void graph_error_words(const char *msg, char *buf, size_t len)
{
	char status[32], comp[64];
	size_t head = dump_start(msg);

	dump_value(msg, "status", status, sizeof(status));
	if (!dump_value(msg, "comp-name", comp, sizeof(comp))[0])
		dump_value(msg, "iter-upstream-comp-name", comp, sizeof(comp));
	if (!strcmp(status, "MEMORY_ERROR"))
		snprintf(buf, len,
			 "babeltrace2's component \"%s\" ran out of memory (%.*s): free memory, or "
			 "read less of the trace at once (--syscall, --pid, --begin/--end)",
			 comp[0] ? comp : "?", (int)head, msg);
	else if (comp[0])
		snprintf(buf, len,
			 "babeltrace2's component \"%s\" failed without saying why (%.*s): "
			 "`babeltrace2 TRACE` may tell more",
			 comp, (int)head, msg);
	else
		snprintf(buf, len, "%.*s (babeltrace2 said no more)", (int)head, msg);
}

const char *graph_error_line(const bt_error *err, char *buf, size_t len)
{
	uint64_t i, n = err ? bt_error_get_cause_count(err) : 0;
	const bt_error_cause *c;

	/* Causes are kept in the order they were appended: the deepest first. */
	for (i = 0; i < n; i++) {
		c = bt_error_borrow_cause_by_index(err, i);
		if (bt_error_cause_get_actor_type(c) != BT_ERROR_CAUSE_ACTOR_TYPE_UNKNOWN) {
			snprintf(buf, len, "%s", bt_error_cause_get_message(c));
			return buf;
		}
	}
	if (n)
		graph_error_words(
			bt_error_cause_get_message(bt_error_borrow_cause_by_index(err, 0)), buf,
			len);
	else
		snprintf(buf, len, "unknown error");
	return buf;
}
