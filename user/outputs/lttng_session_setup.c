// SPDX-License-Identifier: GPL-2.0-only
/* The session created or joined, kept to this process, with sclat's channel and events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lttng_session.h"
#include "lttng_session_setup.h"
#include "lttng_session_state.h"
#include "lttng_sessiond.h"
#include "relayd_link.h"
#include "trace_dir.h"
#include "util/log.h"
#include "util/proc_stat.h"

int trace_session_find(const char *name, struct lttng_session *out, uint64_t *created)
{
	struct lttng_session *list = NULL;
	int n, i, ret = -ENOENT;

	n = lttng_list_sessions(&list);
	if (n < 0)
		return -EIO;
	for (i = 0; i < n; i++)
		if (!strcmp(list[i].name, name)) {
			if (out)
				*out = list[i];
			/* Its extended part lives in the list: ask before freeing it. */
			if (created &&
			    lttng_session_get_creation_time(&list[i], created) != LTTNG_OK)
				*created = 0;
			ret = 0;
			break;
		}
	free(list);
	return ret;
}

/*
 * Say who owns the session before it exists, locked for as long as this
 * process lives: if it is killed, the next sclat ends what it left.
 */
static void owner_claim(struct trace_session *s)
{
	char dir[PATH_MAX - 32];
	int err;

	s->owner_rec = (struct session_owner_record){
		.pid = getpid(),
		.joined = s->joined,
		.daemon_pid = s->daemon_pid,
		.daemon_start = s->daemon_pid ? process_start_time(s->daemon_pid) : 0,
		.claimed = (uint64_t)time(NULL),
	};
	snprintf(s->owner_rec.session, sizeof(s->owner_rec.session), "%s", s->name);
	/* A session sclat makes gets its creation time once it exists. */
	if (s->joined && trace_session_find(s->name, NULL, &s->owner_rec.created))
		s->owner_rec.created = 0;
	sessiond_rundir(dir, sizeof(dir));
	err = session_owner_claim(&s->owner, dir, &s->owner_rec);
	if (err)
		log_warn("%s/sclat: %s: should sclat be killed, 'lttng destroy %s' ends "
			 "its session",
			 dir, strerror(-err), s->name);
}

int trace_session_create(struct trace_session *s, const struct trace_session_opts *o,
			 const char *date)
{
	struct lttng_session_descriptor *desc;
	const char *what;
	enum lttng_error_code code;
	int err;

	if (o->name)
		snprintf(s->name, sizeof(s->name), "%s", o->name);
	else
		snprintf(s->name, sizeof(s->name), "sclat-%s", date);
	/* Two runs in the same second: the unnamed one takes its pid along. */
	if (!o->name && trace_session_find(s->name, NULL, NULL) == 0)
		snprintf(s->name, sizeof(s->name), "sclat-%s-%d", date, getpid());

	if (o->url || o->live) {
		const char *url = o->url ? o->url : "net://127.0.0.1";

		err = relayd_probe(url, false);
		if (err)
			return err;
		/* The connections the session is about to open are the ones to watch. */
		s->link =
			relayd_link_open(s->daemon_pid ? s->daemon_pid : sessiond_pid_read(), url);

		if (o->live)
			desc = lttng_session_descriptor_live_network_create(
				s->name, url, NULL,
				(o->live_period_ns ? o->live_period_ns : 1000000000ULL) / 1000);
		else
			desc = lttng_session_descriptor_network_create(s->name, url, NULL);
		what = url;
		s->url = url;
	} else {
		err = trace_dir_prepare(o->output_dir, date, s->dir, sizeof(s->dir),
					&s->dir_created);
		if (err)
			return err;
		desc = lttng_session_descriptor_local_create(s->name, s->dir);
		what = s->dir;
	}
	if (!desc) {
		log_err("%s: not a valid %s", what,
			o->url || o->live ? "relayd URL (net://HOST[:CTRL:DATA])" : "output path");
		return -EINVAL;
	}
	owner_claim(s);
	code = lttng_create_session_ext(desc);
	lttng_session_descriptor_destroy(desc);
	switch (code) {
	case LTTNG_OK:
		break;
	case LTTNG_ERR_EXIST_SESS:
		log_err("session name \"%s\" is already in use (choose another "
			"with --name, or add to it with --session)",
			s->name);
		return -EEXIST;
	case LTTNG_ERR_RELAYD_CONNECT_FAIL:
	case LTTNG_ERR_RELAYD_VERSION_FAIL:
		log_err("%s: cannot reach lttng-relayd (%s)", what, lttng_strerror(-code));
		return -ECONNREFUSED;
	default:
		log_err("creating session \"%s\" to %s: %s", s->name, what, lttng_strerror(-code));
		return -EIO;
	}
	s->created = true;
	/* Which session of that name: another may take it once this one is gone. */
	if (!trace_session_find(s->name, NULL, &s->owner_rec.created))
		session_owner_update(s->owner, &s->owner_rec);
	return 0;
}

/* --session: the user's session must exist; sclat follows its buffer scheme. */
int trace_session_join(struct trace_session *s, const char *name)
{
	struct lttng_domain *doms = NULL;
	int n, i;

	snprintf(s->name, sizeof(s->name), "%s", name);
	if (trace_session_find(name, NULL, NULL)) {
		log_err("--session %s: no such tracing session ('lttng list' "
			"shows them)",
			name);
		return -ENOENT;
	}
	n = lttng_list_domains(name, &doms);
	for (i = 0; i < n; i++)
		if (doms[i].type == LTTNG_DOMAIN_UST)
			s->domain.buf_type = doms[i].buf_type;
	free(doms);
	s->joined = true;
	/* The user's session stays; what a killed sclat left in it is its pid in the tracker. */
	owner_claim(s);
	return 0;
}

/*
 * A user-space session records every registered application of the UID: keep
 * sclat's own session to this process, so that another sclat (or another
 * lttng-ust application) running meanwhile does not write into it. A joined
 * session that tracks a set of processes gets this one added to the set.
 */
int trace_session_track_self(struct trace_session *s)
{
	struct lttng_process_attr_tracker_handle *th = NULL;
	enum lttng_process_attr_tracker_handle_status st =
		LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK;
	enum lttng_tracking_policy policy = LTTNG_TRACKING_POLICY_INCLUDE_SET;
	enum lttng_error_code code;

	code = lttng_session_get_tracker_handle(s->name, LTTNG_DOMAIN_UST,
						LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &th);
	if (code != LTTNG_OK) {
		log_err("session \"%s\": process tracker: %s", s->name, lttng_strerror(-code));
		return -EIO;
	}
	if (s->joined)
		st = lttng_process_attr_tracker_handle_get_tracking_policy(th, &policy);
	if (st == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK &&
	    policy != LTTNG_TRACKING_POLICY_INCLUDE_ALL) {
		st = lttng_process_attr_tracker_handle_set_tracking_policy(
			th, LTTNG_TRACKING_POLICY_INCLUDE_SET);
		if (st == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK)
			st = lttng_process_attr_virtual_process_id_tracker_handle_add_pid(th,
											  getpid());
		/* Taken out again when sclat leaves; a pid the user tracked stays. */
		s->tracked = s->joined && st == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK;
	}
	lttng_process_attr_tracker_handle_destroy(th);
	if (st != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK &&
	    st != LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_EXISTS) {
		log_err("session \"%s\": cannot track this process (status %d)", s->name, (int)st);
		return -EIO;
	}
	return 0;
}

/* Give sclat:* a channel of its own in the session; reuse one already there. */
int trace_session_events_enable(struct trace_session *s, const struct trace_session_opts *o)
{
	struct lttng_channel *chans = NULL, *chan = NULL;
	struct lttng_event *ev = NULL;
	struct lttng_handle *h;
	bool have_chan = false;
	int n, i, ret;

	h = lttng_create_handle(s->name, &s->domain);
	if (!h)
		return -ENOMEM;
	n = lttng_list_channels(h, &chans);
	for (i = 0; i < n; i++)
		have_chan |= !strcmp(chans[i].name, TRACE_SESSION_CHANNEL);
	free(chans);

	if (!have_chan) {
		chan = lttng_channel_create(&s->domain);
		if (!chan) {
			ret = -ENOMEM;
			goto out;
		}
		snprintf(chan->name, sizeof(chan->name), "%s", TRACE_SESSION_CHANNEL);
		chan->attr.overwrite = 0; /* discard: the packet headers count what is lost */
		chan->attr.subbuf_size =
			o->subbuf_size ? o->subbuf_size : TRACE_SESSION_SUBBUF_SIZE;
		chan->attr.num_subbuf = o->num_subbuf ? o->num_subbuf : TRACE_SESSION_NUM_SUBBUF;
		chan->attr.output = LTTNG_EVENT_MMAP;
		ret = lttng_enable_channel(h, chan);
		if (ret < 0) {
			if (ret == -LTTNG_ERR_RELAYD_CONNECT_FAIL && s->url)
				log_err("%s: cannot reach lttng-relayd (%s)", s->url,
					lttng_strerror(ret));
			else if (ret == -LTTNG_ERR_TRACE_ALREADY_STARTED)
				log_err("session \"%s\" has been started before: "
					"channels can only be added before the first start "
					"(lttng enable-channel -u %s, then retry)",
					s->name, TRACE_SESSION_CHANNEL);
			else
				log_err("session \"%s\": adding channel %s: %s", s->name,
					TRACE_SESSION_CHANNEL, lttng_strerror(ret));
			ret = -EIO;
			goto out;
		}
	}

	ev = lttng_event_create();
	if (!ev) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(ev->name, sizeof(ev->name), "sclat:*");
	ev->type = LTTNG_EVENT_TRACEPOINT;
	ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	ev->loglevel = -1;
	ret = lttng_enable_event_with_exclusions(h, ev, TRACE_SESSION_CHANNEL, NULL, 0, NULL);
	if (ret < 0 && ret != -LTTNG_ERR_UST_EVENT_ENABLED && ret != -LTTNG_ERR_UST_EVENT_EXIST) {
		log_err("session \"%s\": enabling sclat:*: %s", s->name, lttng_strerror(ret));
		ret = -EIO;
		goto out;
	}
	ret = 0;
out:
	lttng_event_destroy(ev);
	lttng_channel_destroy(chan);
	lttng_destroy_handle(h);
	return ret;
}
