// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "metrics_render.h"
#include "metrics_server.h"
#include "controller/controller.h"
#include "controller/inflight.h"
#include "controller/metrics_view.h"
#include "util/log.h"
#include "util/version.h"

/* Scrapers at once, and how long one may hold a connection: a scrape is one short request. */
#define METRICS_CONNECTIONS 8
#define METRICS_TIMEOUT_S   5
#define METRICS_CONTENT	    "text/plain; version=0.0.4; charset=utf-8"

struct metrics_server {
	struct MHD_Daemon *daemon;
	int fd, family;
	char addr[64];
	pthread_mutex_t lock; /* ctl and inflight, and a page being made from them */
	struct controller *ctl;
	struct inflight *inflight;
	struct controller_status *st; /* the page's copy (one request at a time: one thread) */
	bool thread_named;
};

static int port_parse(const char *s, in_port_t *port)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *s == '+' || !v || v > 65535)
		return -EINVAL;
	*port = htons((in_port_t)v);
	return 0;
}

int metrics_addr_parse(const char *arg, bool any, struct sockaddr_storage *sa, socklen_t *len,
		       char *err, size_t errlen)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
	const char *colon = strrchr(arg, ':');
	char host[INET6_ADDRSTRLEN + 2];
	bool loopback;
	in_port_t port;

	memset(sa, 0, sizeof(*sa));
	if (!colon) {
		snprintf(host, sizeof(host), "127.0.0.1");
		colon = arg - 1;
	} else if ((size_t)(colon - arg) >= sizeof(host)) {
		goto bad;
	} else {
		snprintf(host, sizeof(host), "%.*s", (int)(colon - arg), arg);
	}
	if (port_parse(colon + 1, &port)) {
		snprintf(err, errlen, "not a port from 1 to 65535 after the address");
		return -EINVAL;
	}
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		host[strlen(host) - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
			goto bad;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = port;
		*len = sizeof(*in6);
		loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	} else if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = port;
		*len = sizeof(*in4);
		loopback = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
	} else {
		goto bad;
	}
	if (!loopback && !any) {
		snprintf(err, errlen,
			 "not a loopback address: whoever reaches it reads the names of the "
			 "traced processes and cgroups; add --metrics-bind-any to serve it there");
		return -EINVAL;
	}
	return 0;
bad:
	snprintf(err, errlen,
		 "not PORT, IPV4:PORT, [IPV6]:PORT or localhost:PORT (a numeric address)");
	return -EINVAL;
}

static __u64 process_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (__u64)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (__u64)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

/* The page, in *body (malloc'd); 0, -EAGAIN before the controller's first interval, -errno. */
static int page_make(struct metrics_server *ms, char **body, size_t *len)
{
	struct metrics_snapshot snap = { .st = ms->st,
					 .version = SCLAT_VERSION,
					 .abi = SCLAT_ABI_VERSION };
	struct latency_series *series = NULL;
	FILE *f;
	int err;

	pthread_mutex_lock(&ms->lock);
	err = ms->ctl ? controller_status(ms->ctl, ms->st) : -EAGAIN;
	if (!err) {
		ms->st->nr_inflight = ms->inflight ? inflight_list(ms->inflight, ms->st->inflight,
								   CONTROLLER_INFLIGHT_MAX)
						   : 0;
		err = metrics_view_read(controller_metrics_view(ms->ctl), &series, &snap.nr_series,
					&snap.budget, &snap.controller_cpu_ns);
	}
	pthread_mutex_unlock(&ms->lock);
	if (err)
		return err;
	snap.series = series;
	snap.process_cpu_ns = process_cpu_ns();
	f = open_memstream(body, len);
	if (!f) {
		free(series);
		return -ENOMEM;
	}
	err = metrics_render(&snap, f);
	if (fclose(f) && !err)
		err = -ENOMEM;
	free(series);
	if (err) {
		free(*body);
		*body = NULL;
	}
	return err;
}

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned int code, char *body,
			      size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, MHD_HTTP_METHOD_GET);
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result answer_text(struct MHD_Connection *conn, unsigned int code, const char *text)
{
	char *body = strdup(text);

	return body ? answer(conn, code, body, strlen(body), "text/plain; charset=utf-8") : MHD_NO;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req)
{
	struct metrics_server *ms = cls;
	char *body = NULL;
	size_t len = 0;
	int err;

	(void)version;
	(void)upload;
	(void)upload_size;
	/* libmicrohttpd's thread, named as sclat's others are (top, scripts/metrics-cost). */
	if (!ms->thread_named) {
		pthread_setname_np(pthread_self(), "sclat-metrics");
		ms->thread_named = true;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return answer_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n");
	if (strcmp(url, "/metrics"))
		return answer_text(conn, MHD_HTTP_NOT_FOUND, "not found: sclat serves /metrics\n");
	/* Answered at once, from the headers alone: a body a GET came with is never read. */
	(void)req;
	err = page_make(ms, &body, &len);
	if (err == -EAGAIN)
		return answer_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "no metrics yet: the controller has not finished an interval\n");
	if (err)
		return answer_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return answer(conn, MHD_HTTP_OK, body, len, METRICS_CONTENT);
}

static int listen_on(struct metrics_server *ms, const struct metrics_opts *o)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char why[256];
	int one = 1, err;

	if (metrics_addr_parse(o->addr, o->bind_any, &sa, &len, why, sizeof(why))) {
		log_err("--metrics %s: %s", o->addr, why);
		return -EINVAL;
	}
	ms->family = sa.ss_family;
	ms->fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (ms->fd < 0 || setsockopt(ms->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ms->fd, (struct sockaddr *)&sa, len) || listen(ms->fd, 16)) {
		err = -errno;
		log_err("--metrics %s: cannot listen there: %s", o->addr, strerror(errno));
		return err;
	}
	return 0;
}

int metrics_server_open(struct metrics_server **msp, const struct metrics_opts *o)
{
	struct metrics_server *ms = calloc(1, sizeof(*ms));
	sigset_t all, old;
	int err;

	*msp = NULL;
	if (!ms || !(ms->st = calloc(1, sizeof(*ms->st)))) {
		free(ms);
		log_err("--metrics %s: %s", o->addr, strerror(ENOMEM));
		return -ENOMEM;
	}
	ms->fd = -1;
	pthread_mutex_init(&ms->lock, NULL);
	snprintf(ms->addr, sizeof(ms->addr), "%s", o->addr);
	err = listen_on(ms, o);
	if (err)
		goto fail;
	/* Signals are the run's: the server's thread starts with them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ms->daemon = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
			(ms->family == AF_INET6 ? MHD_USE_IPv6 : 0),
		0, NULL, NULL, on_request, ms, MHD_OPTION_LISTEN_SOCKET, ms->fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_TIMEOUT_S, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ms->daemon) {
		log_err("--metrics %s: libmicrohttpd could not start its server", o->addr);
		err = -EIO;
		goto fail;
	}
	/* The daemon's now: MHD_stop_daemon() closes it. */
	ms->fd = -1;
	log_note("metrics on http://%s/metrics", o->addr);
	*msp = ms;
	return 0;
fail:
	metrics_server_close(ms);
	return err;
}

void metrics_server_attach(struct metrics_server *ms, struct controller *ctl,
			   struct inflight *inflight)
{
	if (!ms)
		return;
	pthread_mutex_lock(&ms->lock);
	ms->ctl = ctl;
	ms->inflight = inflight;
	pthread_mutex_unlock(&ms->lock);
}

void metrics_server_detach(struct metrics_server *ms)
{
	metrics_server_attach(ms, NULL, NULL);
}

void metrics_server_close(struct metrics_server *ms)
{
	if (!ms)
		return;
	if (ms->daemon)
		MHD_stop_daemon(ms->daemon);
	if (ms->fd >= 0)
		close(ms->fd);
	pthread_mutex_destroy(&ms->lock);
	free(ms->st);
	free(ms);
}
