/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `sclat record`'s run: an LTTng session made (or joined) around a run whose
 * sink writes the sclat:* events into it (outputs/record_sink.c), with the
 * snapshot trigger's sink when --snapshot-session asks for one.
 */
#ifndef SCLAT_RUN_RECORD_H
#define SCLAT_RUN_RECORD_H

struct policy;
struct run_opts;
struct snapshot_trigger_opts;
struct trace_session_opts;

/*
 * The trace is incomplete: it lacks events that it does not count. Above
 * 128 + any signal number, so that no command's status as a shell reports
 * it (its exit code, or 128 + the signal that killed it) means this; it wins
 * over the command's status, which the last line on stderr gives.
 */
#define RECORD_EXIT_INCOMPLETE 200

/*
 * Record a run of o with policy (taken) into the session that session
 * describes, with sclat:session_begin naming scope; snapshot->session NULL:
 * no snapshots. SIGINT and SIGTERM are held (run_interrupts_hold()) by the
 * caller. The trace's location on stdout at the end. Returns sclat's exit
 * status: the run's (run_trace()), 1 when the session could not be made,
 * 128 + a signal that came before the run, RECORD_EXIT_INCOMPLETE.
 */
int run_record(const struct run_opts *o, struct policy *policy, const char *policy_file,
	       const struct snapshot_trigger_opts *snapshot,
	       const struct trace_session_opts *session, const char *scope);

#endif
