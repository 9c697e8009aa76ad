// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control socket's requests, answered: status, top, policy show, set and
 * load (and the reload at SIGHUP). control_server.c owns the connections.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>
#include "control_requests.h"
#include "status_render.h"
#include "top_frame.h"
#include "controller/controller.h"
#include "policy/policy.h"
#include "util/compiler.h"
#include "util/log.h"

/*
 * Publish p through the controller, unless the tracer's kernel maps cannot
 * hold it: then p is freed, the running policy stays and err says why (named
 * by where). A policy that applies within a smaller bound is published with a
 * warning, in warning. 0 or -EINVAL.
 */
static int policy_publish_fitting(const struct control_view *c, struct policy *p, const char *where,
				  char *err, size_t errlen, char *warning, size_t warnlen)
{
	char why[512];
	int fits = controller_policy_publish(c->ctl, p, why, sizeof(why));

	warning[0] = '\0';
	if (fits < 0) {
		snprintf(err, errlen, "%s: %s (the running policy stays)", where, why);
		return -EINVAL;
	}
	if (fits > 0)
		snprintf(warning, warnlen, "sclat: warning: %s: %s", where, why);
	return 0;
}

/*
 * Load path, alone (replace) or merged into the running policy, and publish
 * it; on error the running policy stays. What it turns on and off goes to
 * out (NULL: nowhere). 0 or -EINVAL, msg says.
 */
int control_policy_reload(const struct control_view *c, const char *path, bool replace, FILE *out,
			  char *msg, size_t len)
{
	char err[512], warning[600], *switches = NULL;
	struct policy *cur, *p = NULL, *old = NULL;
	size_t sw_len = 0;
	FILE *sw;

	urcu_memb_read_lock();
	cur = policy_current();
	if (cur && (old = malloc(sizeof(*old))))
		memcpy(old, cur, sizeof(*old));
	urcu_memb_read_unlock();
	if (!old) {
		snprintf(msg, len,
			 "%s: no running policy to compare with (the running policy stays)", path);
		return -EINVAL;
	}
	p = replace ? policy_load(path, err, sizeof(err))
		    : policy_load_over(old, path, err, sizeof(err));
	if (!p) {
		snprintf(msg, len, "%s (the running policy stays)", err);
		free(old);
		return -EINVAL;
	}
	/* Said after the line saying it is loaded, and only if it is: p is published's now. */
	sw = open_memstream(&switches, &sw_len);
	if (sw) {
		policy_write_switches(old, p, sw);
		fclose(sw);
	}
	free(old);
	if (policy_publish_fitting(c, p, path, msg, len, warning, sizeof(warning))) {
		free(switches);
		return -EINVAL;
	}
	snprintf(msg, len, "policy %s %s%s%s", replace ? "loaded from" : "merged from", path,
		 *warning ? "\n" : "", warning);
	if (out)
		fprintf(out, "%s\n%s", msg, switches ? switches : "");
	free(switches);
	return 0;
}

/* policy set: the pairs applied to a copy, published only if all apply. */
static int policy_set(const struct control_view *c, const struct control_req *req, FILE *out,
		      char *err, size_t errlen)
{
	char warning[600];
	struct policy *cur, *p = NULL, *next;
	char reason[512];
	int i;

	urcu_memb_read_lock();
	cur = policy_current();
	if (cur) {
		p = malloc(sizeof(*p));
		if (p)
			memcpy(p, cur, sizeof(*p));
	}
	urcu_memb_read_unlock();
	if (!p) {
		snprintf(err, errlen, cur ? "out of memory" : "no policy is published");
		return -EINVAL;
	}
	for (i = 0; i < req->nr_pairs; i++) {
		const struct control_pair *kv = &req->pairs[i];

		next = policy_with(p, kv->syscall, kv->key, kv->value, reason, sizeof(reason));
		if (!next) {
			if (kv->syscall)
				snprintf(err, errlen, "--syscall %s %s=%s: %s", kv->syscall,
					 kv->key, kv->value, reason);
			else
				snprintf(err, errlen, "%s", reason);
			policy_free(p);
			return -EINVAL;
		}
		policy_free(p);
		p = next;
		fprintf(out, "%s%s%s = %s\n", kv->syscall ? kv->syscall : "",
			kv->syscall ? ": " : "", kv->key, kv->value);
	}
	if (policy_publish_fitting(c, p, "policy set", err, errlen, warning, sizeof(warning)))
		return -EINVAL;
	if (*warning)
		fprintf(out, "%s\n", warning);
	return 0;
}

/* Wait for the controller's first interval and take a status snapshot; 0 or -errno, err says. */
static int status_snapshot(const struct control_view *c, struct controller_status *st, char *err,
			   size_t errlen)
{
	int ret = -ENOENT;

	if (!c->ctl) {
		snprintf(err, errlen, "the controller is not running");
		return ret;
	}
	/* Nothing to show before the controller's first pass: the caller asks again (-EAGAIN). */
	ret = controller_status(c->ctl, st);
	if (ret == -EAGAIN)
		snprintf(err, errlen,
			 "no status yet: the controller has not finished an "
			 "interval; try again");
	else if (ret)
		snprintf(err, errlen, "reading the status: %s", strerror(-ret));
	else if (c->inflight)
		st->nr_inflight = inflight_list(c->inflight, st->inflight, CONTROLLER_INFLIGHT_MAX);
	return ret;
}

static int status_answer(const struct control_view *c, bool json, FILE *out, char *err,
			 size_t errlen)
{
	struct controller_status *st;
	char source[sizeof(((struct policy *)0)->source)] = "";
	struct policy *p;
	int ret;

	st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = status_snapshot(c, st, err, errlen);
	if (ret) {
		free(st);
		return ret;
	}
	urcu_memb_read_lock();
	p = policy_current();
	if (p)
		memcpy(source, p->source, sizeof(source));
	if (json)
		status_write_json(st, p, source, out);
	else
		status_write_text(st, p, source, out);
	urcu_memb_read_unlock();
	free(st);
	return 0;
}

/* A frame of sclat top: the status, the latest outliers, the time lost. */
static int top_answer(const struct control_view *c, FILE *out, char *err, size_t errlen)
{
	struct controller_status *st = calloc(1, sizeof(*st));
	struct recent_outlier *recent = calloc(RECENT_OUTLIERS_KEPT, sizeof(*recent));
	struct recent_lost *lost = calloc(1, sizeof(*lost));
	unsigned int n = 0;
	int ret = -ENOMEM;

	if (!st || !recent || !lost) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ret = status_snapshot(c, st, err, errlen);
	if (ret)
		goto out;
	if (c->recent) {
		n = recent_outliers_list(c->recent, recent, RECENT_OUTLIERS_KEPT);
		recent_outliers_lost(c->recent, lost);
	}
	urcu_memb_read_lock();
	top_frame_write(out, st, policy_current(), recent, n, c->recent ? lost : NULL);
	urcu_memb_read_unlock();
out:
	free(lost);
	free(recent);
	free(st);
	return ret;
}

/* "the tracer 4242 on db1 at 2025-01-01 12:00:00 UTC": where learned thresholds come from. */
static void learned_origin(char *buf, size_t len)
{
	char host[HOST_NAME_MAX + 1] = "?", when[32] = "?";
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "the tracer %d on %s at %s UTC", getpid(), host, when);
}

/*
 * policy show learned: the running policy, with the threshold of every
 * adaptive syscall past min_samples as its initial value.
 */
static int policy_show_learned(const struct control_view *c, FILE *out, char *err, size_t errlen)
{
	struct controller_status *st = calloc(1, sizeof(*st));
	struct policy_learned *l = calloc(SCLAT_MAX_SYSCALLS, sizeof(*l));
	char origin[HOST_NAME_MAX + 128];
	struct policy *p;
	unsigned int i;
	size_t n = 0;
	int ret;

	if (!st || !l) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = status_snapshot(c, st, err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < st->nr_syscalls; i++) {
		const struct syscall_status *ss = &st->syscalls[i];

		/* Only an estimate past min_samples is learned: the rest is the policy's. */
		if (ss->nr >= SCLAT_MAX_SYSCALLS || !ss->armed || !ss->basis.estimate_ns ||
		    ss->threshold_ns == SCLAT_THRESHOLD_NEVER)
			continue;
		l[n++] = (struct policy_learned){
			.nr = ss->nr,
			/* What it learnt: min_latency is the policy's, written on its own. */
			.threshold_ns = ss->learned_ns,
			.estimate_ns = ss->basis.estimate_ns,
			.quantile = ss->basis.quantile,
			.samples = ss->basis.samples,
		};
	}
	learned_origin(origin, sizeof(origin));
	urcu_memb_read_lock();
	p = policy_current();
	if (p)
		ret = policy_write_learned(p, l, n, origin, out);
	urcu_memb_read_unlock();
	if (!p) {
		snprintf(err, errlen, "no policy is published");
		ret = -ENOENT;
	} else if (ret) {
		snprintf(err, errlen, "writing the policy: %s", strerror(-ret));
	}
out:
	free(l);
	free(st);
	return ret;
}

/* Run one request; the body goes to out, a failure's reason to err; -EAGAIN: ask again. */
int control_request_answer(const struct control_view *c, const struct control_req *req, FILE *out,
			   char *err, size_t errlen)
{
	struct policy *p;

	switch (req->verb) {
	case CONTROL_STATUS:
		return status_answer(c, req->json, out, err, errlen);
	case CONTROL_POLICY_SHOW:
		if (req->learned)
			return policy_show_learned(c, out, err, errlen);
		urcu_memb_read_lock();
		p = policy_current();
		if (p)
			policy_write_ini(p, out);
		urcu_memb_read_unlock();
		if (!p)
			snprintf(err, errlen, "no policy is published");
		return p ? 0 : -ENOENT;
	case CONTROL_POLICY_SET:
		return policy_set(c, req, out, err, errlen);
	case CONTROL_TOP:
		return top_answer(c, out, err, errlen);
	case CONTROL_POLICY_LOAD:
		if (control_policy_reload(c, req->path, req->replace, out, err, errlen))
			return -EINVAL;
		err[0] = '\0';
		return 0;
	}
	snprintf(err, errlen, "unknown request");
	return -EINVAL;
}
