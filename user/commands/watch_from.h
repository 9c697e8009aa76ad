/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sclat watch --from: the outliers of every host streaming live to a relay
 * daemon, read on a thread of their own while this one answers signals and
 * bounds every wait on the daemon.
 */
#ifndef SCLAT_WATCH_FROM_H
#define SCLAT_WATCH_FROM_H

#include <stdbool.h>

/* A call into the relay daemon that has not returned after this long: it does not answer. */
#define WATCH_FROM_TIMEOUT_S 10

/*
 * Print the outliers the relay daemon at url (net://HOST[:PORT]) serves live, as JSON
 * lines or text columns, until every session has ended, Ctrl-C or SIGTERM; with
 * min_surprise >= 0, only the outliers at least that surprising. The exit status: 0, 1
 * (the daemon failed or does not answer), or 128 + the signal that ended it.
 */
int watch_from(const char *url, bool json, double min_surprise);

#endif
