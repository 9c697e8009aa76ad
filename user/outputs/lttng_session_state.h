/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct trace_session, which the pieces of the LTTng session share: its
 * set-up (lttng_session_setup.c), its checks (lttng_session_check.c), its
 * end (lttng_session_teardown.c) and its opening (lttng_session.c).
 */
#ifndef SCLAT_LTTNG_SESSION_STATE_H
#define SCLAT_LTTNG_SESSION_STATE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <lttng/lttng.h>
#include "session_owner.h"

struct relayd_link;
struct daemon_watchdog;

struct trace_session {
	char name[LTTNG_NAME_MAX];
	char location[PATH_MAX + 64];
	const char *url; /* the relayd's, for errors */
	bool joined;	 /* the user's session: leave it running */
	bool tracked;	 /* this process added to the joined session's tracker */
	bool created;
	char dir[PATH_MAX]; /* the local trace directory, or "" */
	bool dir_created;   /* by this run: removed if the session fails */
	bool gone;	    /* the daemon or the session went away mid-run */
	bool lost;	    /* events are lost that the trace does not count */
	bool consumer_gone; /* the consumer daemon died */
	pid_t daemon_pid;   /* the daemon sclat started, or 0 */
	struct lttng_domain domain;
	struct relayd_link *link; /* the session's connections to its relayd */
	int link_unknown;	  /* checks that did not find them */
	uint64_t subbuf_size;	  /* of the sclat channel */
	bool disk_warned;	  /* said that the file system is full */
	uint64_t discarded;	  /* LTTng's count of the sclat channel */
	int chan_enabled;	  /* the sclat channel, as last listed; -1: not listed */
	bool end_off;		  /* no enabled event records sclat:session_end, as last listed */
	const char *off;	  /* why the session does not record outliers now, or NULL */
	uint64_t unrecorded;	  /* outliers delivered while it did not */
	struct daemon_watchdog *watchdog; /* bounds each wait for the daemons */
	char who[PATH_MAX + 96];	  /* the daemons waited for, as the user knows them */
	char lost_msg[PATH_MAX + 128];	  /* what a wait given up mid-run loses */
	int incomplete_status;
	struct session_owner *owner; /* this process's claim on the session */
	struct session_owner_record owner_rec;
};

#endif
