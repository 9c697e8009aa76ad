// SPDX-License-Identifier: GPL-2.0-only
/* A frame of `sclat top` from the tracer's control socket (top_fetch.h). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "top_fetch.h"
#include "control/control_protocol.h"
#include "util/clock.h"
#include "util/log.h"

/* Read the answer until the tracer closes; 0, -EINTR, or -errno (-ETIMEDOUT, -EFBIG). */
static int answer_read(int fd, const struct top_fetch_wait *w, char **buf, size_t *len)
{
	__u64 deadline = clock_ns(CLOCK_MONOTONIC) + TOP_FETCH_TIMEOUT_MS * 1000000ULL, now;
	struct pollfd pfd[8];
	size_t cap = 0;
	int i, n;
	ssize_t got;

	*buf = NULL;
	*len = 0;
	for (;;) {
		now = clock_ns(CLOCK_MONOTONIC);
		if (now >= deadline)
			return -ETIMEDOUT;
		pfd[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
		for (n = 1; w && n - 1 < w->nr_fds && n < 8; n++)
			pfd[n] = (struct pollfd){ .fd = w->fds[n - 1], .events = POLLIN };
		if (poll(pfd, n, (int)((deadline - now) / 1000000 + 1)) < 0) {
			if (errno != EINTR)
				return -errno;
			if (w && w->interrupt(w->ctx))
				return -EINTR;
			continue;
		}
		for (i = 1; i < n; i++)
			if (pfd[i].revents && w->interrupt(w->ctx))
				return -EINTR;
		if (!pfd[0].revents)
			continue;
		if (cap - *len < 65536) {
			char *more;

			if (cap >= TOP_FRAME_MAX + 64)
				return -EFBIG;
			cap = cap ? cap * 2 : 262144;
			more = realloc(*buf, cap + 1);
			if (!more)
				return -ENOMEM;
			*buf = more;
		}
		got = recv(fd, *buf + *len, cap - *len, MSG_DONTWAIT);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got < 0)
			return -errno;
		if (!got)
			return 0;
		*len += got;
	}
}

/* "ok LENGTH\n" and the body, or "error: REASON": the body's start and length. */
static int answer_check(char *buf, size_t len, char **body, size_t *body_len)
{
	char *nl = buf ? memchr(buf, '\n', len) : NULL;
	size_t expected;
	char extra;

	if (!nl) {
		log_err("the tracer closed the connection without answering");
		return -EIO;
	}
	*nl = '\0';
	if (!strncmp(buf, "error: ", 7)) {
		if (!strncmp(buf + 7, "unknown request", 15))
			log_err("this tracer does not know sclat top (it is older than this "
				"sclat): %s",
				buf + 7);
		else
			log_err("%s", buf + 7);
		return -EPROTO;
	}
	if (sscanf(buf, "ok %zu%c", &expected, &extra) != 1) {
		log_err("unexpected answer from the tracer");
		return -EPROTO;
	}
	*body = nl + 1;
	*body_len = len - (size_t)(nl + 1 - buf);
	if (*body_len != expected) {
		log_err("the tracer's answer was cut short (%zu of %zu bytes)", *body_len,
			expected);
		return -EIO;
	}
	return 0;
}

int top_fetch(const struct control_target *t, const struct top_fetch_wait *w, struct top_frame *fr)
{
	char *buf = NULL, *body, err[256];
	size_t len = 0, body_len;
	int fd, ret;

	fd = control_connect(t);
	if (fd < 0)
		return fd;
	ret = control_send(fd, "top\n", 4);
	/* On a failed send, the tracer may still have said why: read on. */
	if (!ret || ret == -EPIPE || ret == -ECONNRESET)
		ret = answer_read(fd, w, &buf, &len);
	close(fd);
	if (ret == -ETIMEDOUT)
		log_err("the tracer did not answer within %d s", TOP_FETCH_TIMEOUT_MS / 1000);
	else if (ret && ret != -EINTR)
		log_err("reading the tracer's answer: %s", strerror(-ret));
	if (!ret)
		ret = answer_check(buf, len, &body, &body_len);
	if (!ret) {
		ret = top_frame_parse(body, body_len, fr, err, sizeof(err));
		fr->fetched_ns = clock_ns(CLOCK_MONOTONIC);
		if (ret)
			log_err("the tracer's frame: %s", err);
	}
	free(buf);
	return ret;
}
