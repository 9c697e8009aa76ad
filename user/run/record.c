// SPDX-License-Identifier: GPL-2.0-only
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include "record.h"
#include "interrupts.h"
#include "run.h"
#include "kernel/probes_load.h"
#include "outputs/lttng_session.h"
#include "outputs/record_sink.h"
#include "outputs/snapshot_trigger.h"
#include "outputs/trace_events.h"
#include "policy/policy.h"
#include "util/log.h"

/* The session closed: its location on stdout, and the exit status the trace's state gives. */
static int session_end(struct trace_session *ts, int status, bool command)
{
	char location[PATH_MAX + 64];
	int err;

	snprintf(location, sizeof(location), "%s", trace_session_location(ts));
	err = trace_session_close(ts);
	if (err == TRACE_SESSION_INCOMPLETE) {
		char instead[64] = "";

		/* What is there is still worth reading: the report says what it lacks. */
		printf("%s\n", location);
		if (command)
			snprintf(instead, sizeof(instead), " instead of %d, the command's", status);
		log_err("%s: the trace is incomplete: events are missing that it does not count "
			"(exit status %d%s)",
			location, RECORD_EXIT_INCOMPLETE, instead);
		return RECORD_EXIT_INCOMPLETE;
	}
	if (err)
		return status ? status : 1;
	printf("%s\n", location);
	return status;
}

int run_record(const struct run_opts *o, struct policy *policy, const char *policy_file,
	       const struct snapshot_trigger_opts *snapshot,
	       const struct trace_session_opts *session, const char *scope)
{
	struct trace_session_opts bounded = *session;
	struct snapshot_trigger *trigger = NULL;
	struct record_sink record;
	struct sink sinks[2];
	struct trace_session *ts;
	unsigned int n = 0;
	int status;

	/* Without the privilege, the session would be made only to be taken down again. */
	if (probes_check_privilege()) {
		policy_free(policy);
		return 1;
	}
	/* The user's snapshot session is checked before ours is made. */
	if (snapshot->session && snapshot_trigger_open(&trigger, snapshot)) {
		policy_free(policy);
		return 1;
	}
	/* The session runs before the programs attach and after they detach: nothing is missed. */
	/* A daemon that stops answering holds sclat until Ctrl-C or a bound, not for ever. */
	bounded.stops = run_stops;
	bounded.incomplete_status = RECORD_EXIT_INCOMPLETE;
	if (trace_session_open(&ts, &bounded)) {
		snapshot_trigger_close(trigger);
		policy_free(policy);
		return 1;
	}
	if (run_interrupted()) {
		snapshot_trigger_close(trigger);
		policy_free(policy);
		trace_session_close(ts);
		return 128 + run_interrupted();
	}
	log_note("recording to %s (session %s)", trace_session_location(ts),
		 trace_session_name(ts));
	trace_events_session_begin(scope, policy);

	record_sink_init(&record, ts, isatty(STDERR_FILENO), &sinks[n++]);
	if (trigger)
		snapshot_trigger_sink(trigger, &sinks[n++]);
	/* A Ctrl-C from here to the end stops the run, and the session is still closed. */
	status = run_trace(o, policy, policy_file, sinks, n);
	record_sink_status_clear(&record);
	/* No snapshot after the last outlier, nor a trigger left behind. */
	snapshot_trigger_close(trigger);
	return session_end(ts, status, o->command != NULL);
}
