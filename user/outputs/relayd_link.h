/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TCP connections that carry a session's trace to lttng-relayd, seen in
 * /proc from the consumer daemon's side. When the relayd dies (or dies and
 * comes back), LTTng drops the session's streams without a word to its
 * clients; the connections tell: they leave the ESTABLISHED state. And,
 * before there are any, whether a relayd answers at all.
 */
#ifndef SCLAT_RELAYD_LINK_H
#define SCLAT_RELAYD_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct relayd_link;

/* lttng's defaults for the relayd's control and data ports. */
#define RELAYD_CONTROL_PORT 5342
#define RELAYD_DATA_PORT    5343

/*
 * The host and ports of a relayd URL, net://HOST[:CTRL[:DATA]] (IPv6 hosts
 * in brackets): 0, or -EINVAL when there is no host.
 */
int relayd_url_parse(const char *url, char *host, size_t len, unsigned int *ctrl,
		     unsigned int *data);

/*
 * Whether a relayd listens at the URL's control port: 0, or a negative errno
 * after one line on stderr (none when quiet). Asked before creating a
 * session, whose own failure would come late, and not always as one error.
 */
int relayd_probe(const char *url, bool quiet);

/*
 * Before the session exists: note the connections that the consumer daemons
 * of session daemon sessiond already have to the relayd of url
 * (net://HOST[:CTRL:DATA]), so that the session's own are told apart.
 * NULL when out of memory.
 */
struct relayd_link *relayd_link_open(pid_t sessiond, const char *url);

enum relayd_link_state {
	RELAYD_LINK_UP,
	RELAYD_LINK_LOST,    /* a connection of the session left ESTABLISHED */
	RELAYD_LINK_UNKNOWN, /* none of the session's connections found (yet) */
};

/* Where the session's connections are: found on the first call that sees them. */
enum relayd_link_state relayd_link_check(struct relayd_link *l);

void relayd_link_close(struct relayd_link *l);

#endif
