// SPDX-License-Identifier: GPL-2.0-only
/* The watchdog of daemon_watchdog.h: one thread, a wait at a time. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "daemon_watchdog.h"
#include "util/clock.h"
#include "util/log.h"

#define TICK_MS	      100
/* How long a wait lasts before a stop signal may end it. */
#define USER_GRACE_NS 1000000000ULL

struct daemon_watchdog {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t tick;
	int (*stops)(void);
	bool end;
	/* The wait in progress, if since_ns: */
	__u64 since_ns;
	int stops_before; /* stop signals taken before it began */
	bool noted;
	const char *what, *who, *lost;
	int status;
};

static int stops_now(const struct daemon_watchdog *w)
{
	return w->stops ? w->stops() : 0;
}

/* A wait past its bound, or interrupted by the user: the process ends here. */
static _Noreturn void give_up(const struct daemon_watchdog *w, bool by_user, __u64 waited_s)
{
	if (by_user)
		log_err("%s: %s does not answer; stopped waiting at your request after %llu s%s%s",
			w->what, w->who, (unsigned long long)waited_s, w->lost ? ": " : "",
			w->lost ? w->lost : "");
	else
		log_err("%s: %s does not answer; stopped waiting after %d s%s%s", w->what, w->who,
			DAEMON_WATCHDOG_GIVE_UP_S, w->lost ? ": " : "", w->lost ? w->lost : "");
	fflush(stdout);
	fflush(stderr);
	_exit(w->status);
}

static void watch_one(struct daemon_watchdog *w)
{
	__u64 waited_ns = clock_ns(CLOCK_MONOTONIC) - w->since_ns,
	      waited = waited_ns / 1000000000ULL;

	/* A Ctrl-C as a wait of a moment begins is not about that wait: the next one may be. */
	if (stops_now(w) > w->stops_before && waited_ns >= USER_GRACE_NS)
		give_up(w, true, waited);
	if (waited >= DAEMON_WATCHDOG_GIVE_UP_S)
		give_up(w, false, waited);
	if (waited >= DAEMON_WATCHDOG_NOTE_S && !w->noted) {
		w->noted = true;
		log_warn("%s: %s has not answered for %d s; waiting up to %d s (Ctrl-C stops "
			 "waiting)",
			 w->what, w->who, DAEMON_WATCHDOG_NOTE_S, DAEMON_WATCHDOG_GIVE_UP_S);
	}
}

static void *watch(void *arg)
{
	struct daemon_watchdog *w = arg;
	struct timespec at;

	pthread_mutex_lock(&w->lock);
	while (!w->end) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_nsec += TICK_MS * 1000000L;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->tick, &w->lock, &at);
		if (w->since_ns && !w->end)
			watch_one(w);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct daemon_watchdog *daemon_watchdog_start(int (*stops)(void))
{
	struct daemon_watchdog *w = calloc(1, sizeof(*w));
	pthread_condattr_t attr;

	if (!w)
		return NULL;
	w->stops = stops;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->tick, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&w->thread, NULL, watch, w)) {
		log_warn("cannot start a thread to bound the waits for LTTng's daemons: "
			 "a daemon that stops answering will hold sclat");
		pthread_cond_destroy(&w->tick);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

void daemon_watchdog_wait(struct daemon_watchdog *w, const char *what, const char *who,
			  const char *lost, int status)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->what = what;
	w->who = who;
	w->lost = lost;
	w->status = status;
	w->noted = false;
	w->stops_before = stops_now(w);
	w->since_ns = clock_ns(CLOCK_MONOTONIC);
	pthread_mutex_unlock(&w->lock);
}

void daemon_watchdog_done(struct daemon_watchdog *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	if (w->noted)
		log_note("%s: %s answered", w->what, w->who);
	w->since_ns = 0;
	pthread_mutex_unlock(&w->lock);
}

void daemon_watchdog_stop(struct daemon_watchdog *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->end = true;
	pthread_cond_signal(&w->tick);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->tick);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
