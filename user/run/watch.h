/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `sclat watch`'s run: a run whose sink prints its outliers to stdout
 * (outputs/watch_printer.c); with --snapshot-session, the sink that fires
 * them as sclat:syscall_outlier and the trigger's sink, which snapshots on
 * them.
 */
#ifndef SCLAT_RUN_WATCH_H
#define SCLAT_RUN_WATCH_H

struct policy;
struct run_opts;
struct snapshot_trigger_opts;
struct watch_printer;

/*
 * Watch a run of o with policy (taken), printed as printer says;
 * snapshot->session NULL: no snapshots. Returns sclat's exit status: the
 * run's (run_trace()), 1 when the trigger could not be made, 128 + a signal
 * that came before the run.
 */
int run_watch(const struct run_opts *o, struct policy *policy, const char *policy_file,
	      struct watch_printer *printer, const struct snapshot_trigger_opts *snapshot);

#endif
