// SPDX-License-Identifier: GPL-2.0-only
/*
 * sclat watch --from. babeltrace2's lttng-live source waits on the relay
 * daemon's socket without a bound: a daemon stopped (SIGSTOP) or a port that
 * accepts and then says nothing would hold the command forever, and its
 * listing of sessions cannot be interrupted at all. So the graphs run on a
 * thread of their own; this one takes SIGINT, SIGTERM and SIGHUP (handlers of
 * its own: a background job starts with SIGINT ignored) and times each call
 * into the daemon. A call past WATCH_FROM_TIMEOUT_S, or one that does not
 * return soon after a stop signal, ends the command here, saying which daemon
 * does not answer: nothing is attached and no session is ours, so nothing is
 * left behind.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "watch_from.h"
#include "trace/trace_graph.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/outlier_line.h"

/* After a stop signal, how long a call into the daemon may still take before we leave it. */
#define STOP_GRACE_NS 2000000000ULL

struct follower {
	struct graph_ctx g;
	const char *url;
	bt_value *params;
	volatile int done; /* the thread's result + 1; 0 while it runs */
};

static void *follow(void *arg)
{
	struct follower *f = arg;
	int ret = graph_live_follow(&f->g, f->url, "outliers", f->params) ? 1 : 0;

	if (ret)
		log_err("%s", f->g.err);
	fflush(stdout);
	__atomic_store_n(&f->done, ret + 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Taken by sigtimedwait(); the handler only overrides an inherited SIG_IGN. */
static void on_signal(int sig __attribute__((unused)))
{
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void signals_take(sigset_t *set)
{
	struct sigaction sa = { .sa_handler = on_signal };
	size_t i;

	sigemptyset(set);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		sigaddset(set, stop_signals[i]);
		sigaction(stop_signals[i], &sa, NULL);
	}
	/* Blocked here before the thread starts: it inherits the mask, this thread takes them. */
	pthread_sigmask(SIG_BLOCK, set, NULL);
}

/* Leave a call that does not return: what was printed stays, the thread goes with us. */
static _Noreturn void give_up(int status)
{
	fflush(stdout);
	fflush(stderr);
	_exit(status);
}

/* Answer signals and time the follower until it ends; its exit status. */
static int supervise(struct follower *f, const sigset_t *set)
{
	struct timespec tick = { 0, 200000000L };
	__u64 busy, now, stop_at = 0;
	int sig, stopped = 0;

	for (;;) {
		if (__atomic_load_n(&f->done, __ATOMIC_ACQUIRE))
			return stopped ? 128 + stopped : f->done - 1;
		sig = sigtimedwait(set, NULL, &tick);
		now = clock_ns(CLOCK_MONOTONIC);
		if (sig > 0 && !stopped) {
			stopped = sig;
			stop_at = now;
			f->g.stop = 1;
		} else if (sig > 0) {
			/* A second one: no more waiting. */
			give_up(128 + stopped);
		}
		busy = f->g.busy_since_ns;
		if (stopped && busy && now - stop_at > STOP_GRACE_NS) {
			log_warn("%s: the relay daemon does not answer; stopping without it",
				 f->url);
			give_up(128 + stopped);
		}
		if (busy && now > busy && now - busy > WATCH_FROM_TIMEOUT_S * 1000000000ULL) {
			log_err("%s: the relay daemon does not answer (no reply in %d s): is it "
				"stopped, overloaded, or not a relay daemon's live port?",
				f->url, WATCH_FROM_TIMEOUT_S);
			give_up(1);
		}
	}
}

int watch_from(const char *url, bool json, double min_surprise)
{
	struct follower f = { .g = { .trace = url }, .url = url };
	pthread_t thread;
	char min[32];
	sigset_t set;
	int ret = 1;

	snprintf(min, sizeof(min), "%.17g", min_surprise);
	f.params = bt_value_map_create();
	if (!f.params ||
	    bt_value_map_insert_string_entry(f.params, "format", json ? "json" : "text") ||
	    bt_value_map_insert_bool_entry(f.params, "header", BT_FALSE) ||
	    (min_surprise >= 0 && bt_value_map_insert_string_entry(f.params, "min-surprise", min)))
		goto out;
	if (!json) {
		outlier_line_header(stdout, true);
		fflush(stdout);
	}
	signals_take(&set);
	errno = pthread_create(&thread, NULL, follow, &f);
	if (errno) {
		log_err("cannot start a thread: %m");
		goto out;
	}
	ret = supervise(&f, &set);
	pthread_join(thread, NULL);
out:
	graph_free(&f.g);
	bt_value_put_ref(f.params);
	return ret;
}
