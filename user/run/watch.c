// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include "watch.h"
#include "interrupts.h"
#include "run.h"
#include "outputs/snapshot_trigger.h"
#include "outputs/trace_events.h"
#include "outputs/watch_printer.h"
#include "policy/policy.h"
#include "util/log.h"

/* How long this process may take to receive the trigger's event notifier. */
#define EVENT_NOTIFIER_TIMEOUT_MS 5000

/*
 * The trigger matches sclat:syscall_outlier in this process once the session
 * daemon gave it the trigger's event notifier: lttng-ust registers the
 * process with the daemon at its start (or when a daemon appears), and the
 * daemon hands every registered process the triggers it has.
 */
static int outlier_event_wait(const char *session)
{
	struct timespec pause = { 0, 20 * 1000000L };
	int waited;

	for (waited = 0; waited < EVENT_NOTIFIER_TIMEOUT_MS; waited += 20) {
		/* Interrupted: the caller asks run_interrupted(). */
		if (trace_events_outlier_enabled() || run_interrupted())
			return 0;
		nanosleep(&pause, NULL);
	}
	log_err("--snapshot-session %s: this process did not register with "
		"lttng-sessiond within %d ms (is LTTNG_UST_DEBUG or a LTTNG_HOME mismatch in "
		"the way?)",
		session, EVENT_NOTIFIER_TIMEOUT_MS);
	return -ETIMEDOUT;
}

int run_watch(const struct run_opts *o, struct policy *policy, const char *policy_file,
	      struct watch_printer *printer, const struct snapshot_trigger_opts *snapshot)
{
	struct snapshot_trigger *trigger = NULL;
	struct sink sinks[3];
	unsigned int n = 0;
	int status;

	/*
	 * A reader that goes away (| head) is an output that failed: the run ends
	 * as any other, its command included, and says what was not written. So
	 * is a daemon of liblttng-ctl's that goes away: an error, not a death.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (snapshot->session) {
		/* A Ctrl-C from here on leaves no trigger in the session daemon. */
		run_interrupts_hold();
		if (snapshot_trigger_open(&trigger, snapshot) ||
		    outlier_event_wait(snapshot->session) || run_interrupted()) {
			snapshot_trigger_close(trigger);
			policy_free(policy);
			return run_interrupted() ? 128 + run_interrupted() : 1;
		}
		/* The event the trigger matches, fired before the line is printed. */
		trace_events_outlier_sink(&sinks[n++]);
	}
	watch_printer_sink(printer, &sinks[n++]);
	if (trigger)
		snapshot_trigger_sink(trigger, &sinks[n++]);
	status = run_trace(o, policy, policy_file, sinks, n);
	snapshot_trigger_close(trigger);
	return status;
}
