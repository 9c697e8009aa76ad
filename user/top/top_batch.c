// SPDX-License-Identifier: GPL-2.0-only
/* sclat top --batch: plain text frames on stdout, for scripts (as top -b). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "top.h"
#include "top_fetch.h"
#include "top_render.h"
#include "util/compiler.h"
#include "util/log.h"

static void line_print(void *ctx, enum top_style style __always_unused, const char *text,
		       int mark __always_unused, int mark_len __always_unused)
{
	fprintf(ctx, "%s\n", text);
}

static bool signalled(void *ctx __always_unused)
{
	return top_signal_caught() != 0;
}

int top_batch_run(const struct top_opts *o)
{
	struct top_view *v = top_view_new();
	struct control_target t = o->target;
	int sig_fd = top_signals_open(), ret = 0;
	struct top_fetch_wait w = { .fds = &sig_fd, .nr_fds = 1, .interrupt = signalled };
	struct top_frame *f;
	long i;

	if (!v || sig_fd < 0) {
		log_err("%s", strerror(ENOMEM));
		ret = 1;
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; !o->iterations || i < o->iterations; i++) {
		struct pollfd pfd = { .fd = sig_fd, .events = POLLIN };

		/* Between frames, only a signal cuts the wait short. */
		if (i && poll(&pfd, 1, o->delay_ms) < 0 && errno != EINTR)
			break;
		if (top_signal_caught())
			break;
		f = top_view_next(v);
		ret = top_fetch(&t, &w, f);
		if (ret == -EINTR) {
			ret = 0;
			break;
		}
		if (ret) {
			ret = 1;
			break;
		}
		/* Later frames go to the tracer that answered first. */
		if (!t.pid && !t.socket)
			t.pid = f->pid;
		top_view_take(v, f);
		if (i)
			printf("\n");
		top_render(v, o->delay_ms, 0, line_print, stdout);
		if (fflush(stdout) || ferror(stdout)) {
			log_err("writing the frames to standard output: %s", strerror(errno));
			ret = 1;
			break;
		}
	}
	if (!ret && top_signal_caught())
		ret = 128 + top_signal_caught();
out:
	top_signals_close();
	top_view_free(v);
	return ret;
}
