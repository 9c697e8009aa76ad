// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <lttng/lttng.h>
#include "snapshot_trigger.h"
#include "sink.h"
#include "util/compiler.h"
#include "util/log.h"
#include "util/proc_stat.h"

/*
 * Triggers are named after the process that registered them: its pid, when it
 * started and its pid namespace (sclat-snapshot-PID-START-PIDNS).
 */
#define TRIGGER_PREFIX	  "sclat-snapshot-"
#define OUTLIER_EVENT	  "sclat:syscall_outlier"
#define SETTLE_TIMEOUT_MS 10000
#define SETTLE_POLL_MS	  20
#define FILTER_MAX	  128

/* What the trigger captures of an outlier: its key (tid, entry_ts), and what names it. */
enum capture {
	CAPTURE_NR,
	CAPTURE_PID,
	CAPTURE_TID,
	CAPTURE_ENTRY_TS,
	CAPTURE_LATENCY,
	CAPTURE_COMM,
	NR_CAPTURES,
};

static const char *const captured_fields[NR_CAPTURES] = {
	[CAPTURE_NR] = "nr",
	[CAPTURE_PID] = "pid",
	[CAPTURE_TID] = "tid",
	[CAPTURE_ENTRY_TS] = "entry_ts",
	[CAPTURE_LATENCY] = "latency_ns",
	[CAPTURE_COMM] = "comm",
};

struct snapshot_trigger {
	char session[LTTNG_NAME_MAX];
	char name[LTTNG_NAME_MAX];	  /* the trigger's */
	char output_name[LTTNG_NAME_MAX]; /* its snapshots': <output_name>-<date>-<n> */
	char output_dir[PATH_MAX];	  /* where they go; "" when not on this machine */
	/* The session's snapshot output, which the trigger's snapshots go to. */
	char output_url[PATH_MAX], output_data_url[PATH_MAX];
	__u64 output_max_size;
	struct snapshot_trigger_opts opts;
	struct lttng_trigger *trigger;
	struct lttng_notification_channel *channel;
	bool registered, channel_lost;
	__u64 outliers;	      /* fired at or above the minimum latency */
	__u64 reported;	      /* notifications received */
	long long last_index; /* of the latest snapshot handed out; -1: none yet */
	/* The snapshot last handed out: its strings, which live until the next. */
	char taken_path[PATH_MAX + NAME_MAX + 2];
	char taken_comm[64]; /* the event's comm: 16 bytes, NUL included */
	/* Settling, after the last outlier: what is still to come, and until when. */
	bool settling;
	__u64 requested, discarded, settle_deadline_ms;
};

int snapshot_rate_parse(const char *s, struct snapshot_trigger_opts *o)
{
	enum snapshot_rate rate;
	unsigned long long n;
	const char *arg;
	char *end;

	if (!strncmp(s, "every:", 6)) {
		rate = SNAPSHOT_RATE_EVERY;
		arg = s + 6;
	} else if (!strncmp(s, "once-after:", 11)) {
		rate = SNAPSHOT_RATE_ONCE_AFTER;
		arg = s + 11;
	} else {
		return -EINVAL;
	}
	/* strtoull() would take spaces, a sign and wrap a minus around. */
	if (*arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(arg, &end, 10);
	if (errno || *end || n == 0)
		return -EINVAL;
	o->rate = rate;
	o->rate_n = n;
	return 0;
}

/* The inode of this process's pid namespace, in which the pids of trigger names are. */
static unsigned long long pid_namespace(void)
{
	unsigned long long ino = 0;
	char link[64];
	ssize_t n;

	n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		sscanf(link, "pid:[%llu]", &ino);
	}
	return ino;
}

/*
 * A trigger that an sclat process registered and did not remove (it was
 * killed) stays with the session daemon: remove those whose process is gone.
 * A trigger of another pid namespace (a container) is left alone: its pid
 * means nothing here.
 */
static void stale_triggers_remove(void)
{
	unsigned long long start, ns, my_ns = pid_namespace();
	struct lttng_triggers *list = NULL;
	unsigned int i, n = 0;
	const char *name;
	int pid, len;

	if (lttng_list_triggers(&list) != LTTNG_OK)
		return;
	lttng_triggers_get_count(list, &n);
	for (i = 0; i < n; i++) {
		const struct lttng_trigger *t = lttng_triggers_get_at_index(list, i);

		if (lttng_trigger_get_name(t, &name) != LTTNG_TRIGGER_STATUS_OK ||
		    sscanf(name, TRIGGER_PREFIX "%d-%llu-%llu%n", &pid, &start, &ns, &len) != 3 ||
		    name[len] || ns != my_ns ||
		    (pid != getpid() && process_start_time(pid) == start))
			continue;
		if (lttng_unregister_trigger(t) == 0)
			log_note("removed trigger %s: the sclat process %d that registered "
				 "it is gone",
				 name, pid);
	}
	lttng_triggers_destroy(list);
}

/* The user's session: there, in snapshot mode, started, with an output sclat can name. */
static int session_check(struct snapshot_trigger *t)
{
	struct lttng_snapshot_output_list *outputs = NULL;
	struct lttng_snapshot_output *out;
	struct lttng_session *list = NULL;
	const char *name = t->session, *why = NULL, *url;
	int n, i, found = -1, ret;

	if (lttng_session_daemon_alive() != 1) {
		log_err("--snapshot-session %s: no lttng session daemon is running", name);
		return -ENOENT;
	}
	n = lttng_list_sessions(&list);
	for (i = 0; i < n; i++)
		if (!strcmp(list[i].name, name))
			found = i;
	if (n < 0)
		why = lttng_strerror(n);
	else if (found < 0)
		why = "no such tracing session ('lttng list' shows them)";
	else if (!list[found].snapshot_mode)
		why = "not a snapshot-mode session (lttng create NAME --snapshot)";
	else if (!list[found].enabled)
		why = "the session is not started: its snapshots would hold nothing new "
		      "(lttng start NAME)";
	free(list);
	if (why) {
		log_err("--snapshot-session %s: %s", name, why);
		return -EINVAL;
	}

	ret = lttng_snapshot_list_output(name, &outputs);
	out = ret < 0 ? NULL : lttng_snapshot_output_list_get_next(outputs);
	if (!out) {
		log_err("--snapshot-session %s: %s", name,
			ret < 0 ? lttng_strerror(ret)
				: "the session has no snapshot output (lttng snapshot add-output)");
		lttng_snapshot_output_list_destroy(outputs);
		return -EINVAL;
	}
	/* A local output is a path, or a file:// URL; a relayd's is net://. */
	url = lttng_snapshot_output_get_ctrl_url(out);
	snprintf(t->output_url, sizeof(t->output_url), "%s", url);
	snprintf(t->output_data_url, sizeof(t->output_data_url), "%s",
		 lttng_snapshot_output_get_data_url(out));
	t->output_max_size = lttng_snapshot_output_get_maxsize(out);
	if (url[0] == '/')
		snprintf(t->output_dir, sizeof(t->output_dir), "%s", url);
	else if (!strncmp(url, "file://", 7))
		snprintf(t->output_dir, sizeof(t->output_dir), "%s", url + 7);
	lttng_snapshot_output_list_destroy(outputs);
	return 0;
}

static struct lttng_rate_policy *rate_policy_create(const struct snapshot_trigger_opts *o)
{
	return o->rate == SNAPSHOT_RATE_ONCE_AFTER
		       ? lttng_rate_policy_once_after_n_create(o->rate_n)
		       : lttng_rate_policy_every_n_create(o->rate_n);
}

/*
 * The condition: this process's sclat:syscall_outlier at or above the
 * minimum latency (the pid keeps apart the triggers of sclat processes
 * running side by side), capturing the outlier's identity.
 */
static struct lttng_condition *condition_create(const struct snapshot_trigger *t)
{
	struct lttng_condition *cond = NULL;
	struct lttng_event_rule *rule;
	struct lttng_event_expr *expr;
	char filter[FILTER_MAX];
	size_t i;

	snprintf(filter, sizeof(filter), "latency_ns >= %llu && $ctx.vpid == %d",
		 (unsigned long long)t->opts.min_latency_ns, getpid());
	rule = lttng_event_rule_user_tracepoint_create();
	if (!rule || lttng_event_rule_user_tracepoint_set_name_pattern(rule, OUTLIER_EVENT) ||
	    lttng_event_rule_user_tracepoint_set_filter(rule, filter))
		goto out;
	cond = lttng_condition_event_rule_matches_create(rule);
	for (i = 0; cond && i < NR_CAPTURES; i++) {
		expr = lttng_event_expr_event_payload_field_create(captured_fields[i]);
		if (!expr ||
		    lttng_condition_event_rule_matches_append_capture_descriptor(cond, expr)) {
			lttng_event_expr_destroy(expr);
			lttng_condition_destroy(cond);
			cond = NULL;
		}
	}
out:
	lttng_event_rule_destroy(rule);
	return cond;
}

/*
 * The actions, in this order: snapshot the session into snapshots named
 * after this process, then notify it. The session daemon runs them one after
 * the other, so the snapshot is written (or has failed) when the
 * notification leaves.
 */
static struct lttng_action *actions_create(const struct snapshot_trigger *t)
{
	struct lttng_action *list = lttng_action_list_create(), *snap = NULL, *notify = NULL;
	struct lttng_rate_policy *rate = rate_policy_create(&t->opts);
	struct lttng_snapshot_output *out = lttng_snapshot_output_create();
	bool ok;

	snap = lttng_action_snapshot_session_create();
	notify = lttng_action_notify_create();
	/* The session's own snapshot output, under a name of this process. */
	ok = list && rate && out && snap && notify &&
	     !lttng_snapshot_output_set_name(t->output_name, out) &&
	     !lttng_snapshot_output_set_ctrl_url(t->output_url, out) &&
	     (!t->output_data_url[0] ||
	      !lttng_snapshot_output_set_data_url(t->output_data_url, out)) &&
	     !lttng_snapshot_output_set_size(t->output_max_size, out) &&
	     !lttng_action_snapshot_session_set_session_name(snap, t->session) &&
	     !lttng_action_snapshot_session_set_output(snap, out) &&
	     !lttng_action_snapshot_session_set_rate_policy(snap, rate) &&
	     !lttng_action_notify_set_rate_policy(notify, rate) &&
	     !lttng_action_list_add_action(list, snap) &&
	     !lttng_action_list_add_action(list, notify);
	if (ok)
		out = NULL; /* the action owns it now */
	lttng_snapshot_output_destroy(out);
	lttng_rate_policy_destroy(rate);
	lttng_action_destroy(snap);
	lttng_action_destroy(notify);
	if (!ok) {
		lttng_action_destroy(list);
		return NULL;
	}
	return list;
}

int snapshot_trigger_open(struct snapshot_trigger **tp, const struct snapshot_trigger_opts *o)
{
	struct lttng_condition *cond = NULL;
	struct lttng_action *actions = NULL;
	struct snapshot_trigger *t;
	enum lttng_error_code code;
	const char *what = NULL;
	int err = -EIO;

	*tp = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->opts = *o;
	t->last_index = -1;
	snprintf(t->session, sizeof(t->session), "%s", o->session);
	snprintf(t->name, sizeof(t->name), TRIGGER_PREFIX "%d-%llu-%llu", getpid(),
		 process_start_time(getpid()), pid_namespace());
	snprintf(t->output_name, sizeof(t->output_name), "sclat-%d", getpid());

	err = session_check(t);
	if (err)
		goto fail;
	stale_triggers_remove();

	cond = condition_create(t);
	actions = actions_create(t);
	t->trigger = cond && actions ? lttng_trigger_create(cond, actions) : NULL;
	if (!t->trigger) {
		what = "building the trigger: out of memory";
		err = -ENOMEM;
		goto fail;
	}
	code = lttng_register_trigger_with_name(t->trigger, t->name);
	if (code != LTTNG_OK) {
		what = lttng_strerror(-code);
		err = -EIO;
		goto fail;
	}
	t->registered = true;

	t->channel = lttng_notification_channel_create(lttng_session_daemon_notification_endpoint);
	if (!t->channel) {
		what = "cannot open a notification channel to the session daemon";
		goto fail;
	}
	if (lttng_notification_channel_subscribe(t->channel, cond) !=
	    LTTNG_NOTIFICATION_CHANNEL_STATUS_OK) {
		what = "the session daemon refused the subscription to the trigger's notifications";
		goto fail;
	}
	lttng_condition_destroy(cond);
	lttng_action_destroy(actions);
	*tp = t;
	return 0;
fail:
	if (what)
		log_err("--snapshot-session %s: trigger %s: %s", t->session, t->name, what);
	lttng_condition_destroy(cond);
	lttng_action_destroy(actions);
	snapshot_trigger_close(t);
	return err;
}

/* This process fired sclat:syscall_outlier with this latency: counted against the reports. */
static void snapshot_trigger_outlier(struct snapshot_trigger *t, __u64 latency_ns)
{
	if (latency_ns >= t->opts.min_latency_ns)
		t->outliers++;
}

static int sink_outlier(void *ctx, const struct sclat_event *e,
			__s64 entry_epoch_ns __always_unused,
			const struct threshold_basis *basis __always_unused,
			const struct explanation *x __always_unused)
{
	snapshot_trigger_outlier(ctx, e->latency_ns);
	return 0;
}

void snapshot_trigger_sink(struct snapshot_trigger *t, struct sink *s)
{
	*s = (struct sink){ .outlier = sink_outlier, .snapshot_trigger = t, .ctx = t };
}

/*
 * The oldest snapshot of this trigger not handed out yet, in path: its
 * directory is <output_name>-<YYYYmmdd>-<HHMMSS>-<index>, and the index grows
 * with every snapshot of the session. None (path untouched) when LTTng
 * failed to take it: the notification follows the snapshot, taken or not.
 */
static bool snapshot_find(struct snapshot_trigger *t, char *path, size_t len)
{
	size_t prefix = strlen(t->output_name);
	long long index, best = -1;
	char best_name[NAME_MAX + 1];
	char date[9], clock[7];
	struct dirent *d;
	DIR *dir;
	int end;

	dir = t->output_dir[0] ? opendir(t->output_dir) : NULL;
	if (!dir)
		return false;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, t->output_name, prefix) || d->d_name[prefix] != '-' ||
		    sscanf(d->d_name + prefix + 1, "%8[0-9]-%6[0-9]-%lld%n", date, clock, &index,
			   &end) != 3 ||
		    d->d_name[prefix + 1 + end] || index <= t->last_index)
			continue;
		if (best < 0 || index < best) {
			best = index;
			snprintf(best_name, sizeof(best_name), "%s", d->d_name);
		}
	}
	closedir(dir);
	if (best < 0)
		return false;
	t->last_index = best;
	snprintf(path, len, "%s/%s", t->output_dir, best_name);
	return true;
}

/* A captured integer, or 0 when the tracer could not capture it. */
static __u64 captured_u64(const struct lttng_event_field_value *values, enum capture i)
{
	const struct lttng_event_field_value *f;
	uint64_t u;
	int64_t s;

	if (!values || lttng_event_field_value_array_get_element_at_index(values, i, &f) !=
			       LTTNG_EVENT_FIELD_VALUE_STATUS_OK)
		return 0;
	if (lttng_event_field_value_unsigned_int_get_value(f, &u) ==
	    LTTNG_EVENT_FIELD_VALUE_STATUS_OK)
		return u;
	if (lttng_event_field_value_signed_int_get_value(f, &s) ==
	    LTTNG_EVENT_FIELD_VALUE_STATUS_OK)
		return (__u64)s;
	return 0;
}

/* A captured string, or "" when the tracer could not capture it. */
static const char *captured_string(const struct lttng_event_field_value *values, enum capture i)
{
	const struct lttng_event_field_value *f;
	const char *v;

	if (!values ||
	    lttng_event_field_value_array_get_element_at_index(values, i, &f) !=
		    LTTNG_EVENT_FIELD_VALUE_STATUS_OK ||
	    lttng_event_field_value_string_get_value(f, &v) != LTTNG_EVENT_FIELD_VALUE_STATUS_OK)
		return "";
	return v;
}

/* The snapshot notification n reported, in *s: its strings in t, until the next. */
static void notification_handle(struct snapshot_trigger *t, struct lttng_notification *n,
				struct snapshot_taken *s)
{
	const struct lttng_evaluation *ev = lttng_notification_get_evaluation(n);
	const struct lttng_event_field_value *values = NULL;

	t->reported++;
	if (lttng_evaluation_event_rule_matches_get_captured_values(ev, &values) !=
	    LTTNG_EVALUATION_EVENT_RULE_MATCHES_STATUS_OK)
		values = NULL;
	t->taken_path[0] = '\0';
	snprintf(t->taken_comm, sizeof(t->taken_comm), "%s", captured_string(values, CAPTURE_COMM));
	*s = (struct snapshot_taken){
		.session = t->session,
		.path = t->taken_path,
		.nr = (__u32)captured_u64(values, CAPTURE_NR),
		.pid = (__s32)captured_u64(values, CAPTURE_PID),
		.tid = (__s32)captured_u64(values, CAPTURE_TID),
		.comm = t->taken_comm,
		.entry_ns = captured_u64(values, CAPTURE_ENTRY_TS),
		.latency_ns = captured_u64(values, CAPTURE_LATENCY),
	};
	if (!t->output_dir[0])
		/* On a relayd: the snapshot is there, under the output's name. */
		snprintf(t->taken_path, sizeof(t->taken_path), "%s/%s-*", t->output_url,
			 t->output_name);
	else
		snapshot_find(t, t->taken_path, sizeof(t->taken_path));
}

bool snapshot_trigger_next(struct snapshot_trigger *t, struct snapshot_taken *s)
{
	enum lttng_notification_channel_status st;
	struct lttng_notification *n;
	bool pending;

	while (t->channel && !t->channel_lost) {
		st = lttng_notification_channel_has_pending_notification(t->channel, &pending);
		if (st == LTTNG_NOTIFICATION_CHANNEL_STATUS_OK && !pending)
			return false;
		if (st == LTTNG_NOTIFICATION_CHANNEL_STATUS_OK)
			st = lttng_notification_channel_get_next_notification(t->channel, &n);
		switch (st) {
		case LTTNG_NOTIFICATION_CHANNEL_STATUS_OK:
			notification_handle(t, n, s);
			lttng_notification_destroy(n);
			return true;
		case LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED:
		case LTTNG_NOTIFICATION_CHANNEL_STATUS_INTERRUPTED:
			/* What LTTng dropped is counted at the end: asked for, never reported. */
			break;
		default:
			log_warn("--snapshot-session %s: the session daemon closed the "
				 "notification channel; snapshots are no longer reported",
				 t->session);
			t->channel_lost = true;
			return false;
		}
	}
	return false;
}

/* The counter named name of an error query on the trigger, or 0 when it cannot say. */
static __u64 error_count(const struct lttng_error_query *q, const char *name)
{
	struct lttng_error_query_results *results = NULL;
	const struct lttng_error_query_result *r;
	unsigned int i, n = 0;
	const char *rname;
	uint64_t v, found = 0;

	if (!q || lttng_error_query_execute(q, lttng_session_daemon_command_endpoint, &results) !=
			  LTTNG_OK)
		return 0;
	lttng_error_query_results_get_count(results, &n);
	for (i = 0; i < n; i++)
		if (lttng_error_query_results_get_result(results, &r, i) ==
			    LTTNG_ERROR_QUERY_RESULTS_STATUS_OK &&
		    lttng_error_query_result_get_name(r, &rname) ==
			    LTTNG_ERROR_QUERY_RESULT_STATUS_OK &&
		    !strcmp(rname, name) &&
		    lttng_error_query_result_counter_get_value(r, &v) ==
			    LTTNG_ERROR_QUERY_RESULT_STATUS_OK)
			found = v;
	lttng_error_query_results_destroy(results);
	return found;
}

/* What the session daemon counted: messages lost on their way, and failed snapshots. */
static void errors_read(struct snapshot_trigger *t, __u64 *discarded, __u64 *failed)
{
	const uint64_t snapshot_action = 0; /* first in the list */
	struct lttng_action_path *path = lttng_action_path_create(&snapshot_action, 1);
	struct lttng_error_query *q;

	q = lttng_error_query_condition_create(t->trigger);
	*discarded = error_count(q, "discarded tracer messages");
	lttng_error_query_destroy(q);
	q = path ? lttng_error_query_action_create(t->trigger, path) : NULL;
	*failed = error_count(q, "total execution failures");
	lttng_error_query_destroy(q);
	lttng_action_path_destroy(path);
}

static __u64 requested_of(const struct snapshot_trigger_opts *o, __u64 matches)
{
	if (o->rate == SNAPSHOT_RATE_ONCE_AFTER)
		return matches >= o->rate_n ? 1 : 0;
	return matches / o->rate_n;
}

static __u64 mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The first time: what the outliers asked for, less what never reached the daemon. */
static void settle_start(struct snapshot_trigger *t)
{
	__u64 failed;

	t->settling = true;
	t->settle_deadline_ms = mono_ms() + SETTLE_TIMEOUT_MS;
	/* What the tracer could not hand to the daemon never reaches the rate policy. */
	errors_read(t, &t->discarded, &failed);
	t->requested =
		requested_of(&t->opts, t->outliers > t->discarded ? t->outliers - t->discarded : 0);
}

bool snapshot_trigger_settle_next(struct snapshot_trigger *t, struct snapshot_taken *s)
{
	struct timespec pause = { 0, SETTLE_POLL_MS * 1000000L };

	if (!t->settling)
		settle_start(t);
	for (;;) {
		if (snapshot_trigger_next(t, s))
			return true;
		if (t->reported >= t->requested || t->channel_lost ||
		    mono_ms() >= t->settle_deadline_ms)
			return false;
		nanosleep(&pause, NULL);
	}
}

void snapshot_trigger_totals(struct snapshot_trigger *t, struct snapshot_totals *totals)
{
	__u64 discarded, failed;

	errors_read(t, &discarded, &failed);
	*totals = (struct snapshot_totals){
		.session = t->session,
		.trigger = t->name,
		.outliers = t->outliers,
		.discarded = t->discarded,
		.requested = t->requested,
		.taken = t->reported > failed ? t->reported - failed : 0,
		.failed = failed,
		.unreported = t->requested > t->reported ? t->requested - t->reported : 0,
	};
}

void snapshot_trigger_close(struct snapshot_trigger *t)
{
	int err;

	if (!t)
		return;
	if (t->channel)
		lttng_notification_channel_destroy(t->channel);
	if (t->registered) {
		err = lttng_unregister_trigger(t->trigger);
		/* A daemon that went away took its triggers along. */
		if (err < 0 && err != -LTTNG_ERR_TRIGGER_NOT_FOUND &&
		    lttng_session_daemon_alive() == 1)
			log_warn("cannot remove trigger %s (%s): 'lttng remove-trigger %s' "
				 "does it",
				 t->name, lttng_strerror(err), t->name);
	}
	lttng_trigger_destroy(t->trigger);
	free(t);
}
