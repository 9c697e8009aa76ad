/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --metrics ADDR:PORT: the running tracer's metrics (metrics_render.h) served
 * on /metrics over HTTP by libmicrohttpd, from its own thread. Read-only: it
 * copies what the controller already has, under the controller's locks, and
 * never touches the BPF maps. Bound to a loopback address unless the user
 * says otherwise (--metrics-bind-any): the page names processes and cgroups.
 */
#ifndef SCLAT_METRICS_SERVER_H
#define SCLAT_METRICS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct controller;
struct inflight;
struct metrics_server;

/* --metrics and --metrics-bind-any. */
struct metrics_opts {
	const char *addr; /* NULL: no endpoint */
	bool bind_any;	  /* a non-loopback address is allowed */
};

/*
 * arg as an address to listen on: PORT (127.0.0.1), IPV4:PORT,
 * [IPV6]:PORT or localhost:PORT. A non-loopback address only when any.
 * 0, or -EINVAL with why in err (without the option's name).
 */
int metrics_addr_parse(const char *arg, bool any, struct sockaddr_storage *sa, socklen_t *len,
		       char *err, size_t errlen);

/*
 * Listen on o->addr and serve from a thread; until attached, /metrics
 * answers 503. Says why and returns -errno when it cannot listen.
 */
int metrics_server_open(struct metrics_server **msp, const struct metrics_opts *o);

/* Serve what ctl and the run's in-flight table (NULL: none) show, from now on. */
void metrics_server_attach(struct metrics_server *ms, struct controller *ctl,
			   struct inflight *inflight);

/* Stop reading ctl (before it is freed); a request under way finishes first. ms may be NULL. */
void metrics_server_detach(struct metrics_server *ms);

/* Stop serving and close; ms may be NULL. */
void metrics_server_close(struct metrics_server *ms);

#endif
