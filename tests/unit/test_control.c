// SPDX-License-Identifier: GPL-2.0-only
/* The control protocol's request parser: what each line asks, and what it refuses. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "control/control_protocol.h"
#include "unit.h"

static int parse(const char *text, struct control_req *req, char *err, size_t errlen)
{
	static char line[CONTROL_REQUEST_MAX];

	snprintf(line, sizeof(line), "%s", text);
	err[0] = '\0';
	return control_request_parse(line, req, err, errlen);
}

static void test_status(void)
{
	struct control_req req;
	char err[256];

	CHECK_EQ_INT(parse("status", &req, err, sizeof(err)), 0);
	CHECK_EQ_INT(req.verb, CONTROL_STATUS);
	CHECK(req.json, "plain status is JSON");
	CHECK_EQ_INT(parse("status json", &req, err, sizeof(err)), 0);
	CHECK(req.json, "status json is JSON");
	CHECK_EQ_INT(parse("status text", &req, err, sizeof(err)), 0);
	CHECK_EQ_INT(req.verb, CONTROL_STATUS);
	CHECK(!req.json, "status text is a table");
	CHECK_EQ_INT(parse("status xml", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown request \"status xml\"");
}

static void test_policy_show_and_load(void)
{
	struct control_req req;
	char err[256];

	CHECK_EQ_INT(parse("policy show", &req, err, sizeof(err)), 0);
	CHECK_EQ_INT(req.verb, CONTROL_POLICY_SHOW);
	CHECK(!req.learned, "policy show: without learned thresholds");
	CHECK_EQ_INT(parse("policy show learned", &req, err, sizeof(err)), 0);
	CHECK_EQ_INT(req.verb, CONTROL_POLICY_SHOW);
	CHECK(req.learned, "policy show learned: with them");
	CHECK_EQ_INT(parse("policy show learnt", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown request \"policy show learnt\"");
	CHECK_EQ_INT(parse("policy load /etc/sclat/quiet.ini", &req, err, sizeof(err)), 0);
	CHECK_EQ_INT(req.verb, CONTROL_POLICY_LOAD);
	CHECK_STR(req.path, "/etc/sclat/quiet.ini");
	/* The tracer has its own working directory: a relative path means nothing to it. */
	CHECK_EQ_INT(parse("policy load quiet.ini", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "policy load needs an absolute path");
	CHECK_EQ_INT(parse("policy load", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown request \"policy load\"");
	CHECK(!req.replace, "policy load: merged");
	CHECK_EQ_INT(parse("policy replace /etc/sclat/quiet.ini", &req, err, sizeof(err)), 0);
	CHECK_EQ_INT(req.verb, CONTROL_POLICY_LOAD);
	CHECK(req.replace, "policy replace: in place");
	CHECK_STR(req.path, "/etc/sclat/quiet.ini");
	CHECK_EQ_INT(parse("policy replace quiet.ini", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "policy replace needs an absolute path");
}

static void test_policy_set_pairs(void)
{
	struct control_req req;
	char err[256];

	CHECK_EQ_INT(parse("policy set budget=200 --syscall read quantile=0.9999 margin=2 "
			   "--syscall write mode=off",
			   &req, err, sizeof(err)),
		     0);
	CHECK_EQ_INT(req.verb, CONTROL_POLICY_SET);
	if (!CHECK_EQ_INT(req.nr_pairs, 4))
		return;
	CHECK(!req.pairs[0].syscall, "budget goes to [global]/[default]");
	CHECK_STR(req.pairs[0].key, "budget");
	CHECK_STR(req.pairs[0].value, "200");
	CHECK_STR(req.pairs[1].syscall, "read");
	CHECK_STR(req.pairs[1].key, "quantile");
	CHECK_STR(req.pairs[1].value, "0.9999");
	CHECK_STR(req.pairs[2].syscall, "read");
	CHECK_STR(req.pairs[2].key, "margin");
	CHECK_STR(req.pairs[3].syscall, "write");
	CHECK_STR(req.pairs[3].value, "off");
	/* A value may hold '=': only the first one splits. */
	CHECK_EQ_INT(parse("policy set initial=1ms\t\tfloor=2us", &req, err, sizeof(err)), 0);
	CHECK_EQ_INT(req.nr_pairs, 2);
	CHECK_EQ_INT(parse("policy set a=b=c", &req, err, sizeof(err)), 0);
	CHECK_STR(req.pairs[0].value, "b=c");
}

static void test_policy_set_refused(void)
{
	struct control_req req;
	char err[256], line[CONTROL_REQUEST_MAX];
	size_t len;
	int i;

	CHECK_EQ_INT(parse("policy set", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "nothing to set: give KEY=VALUE pairs");
	CHECK_EQ_INT(parse("policy set --syscall read", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "nothing to set: give KEY=VALUE pairs");
	CHECK_EQ_INT(parse("policy set quantile=0.9 --syscall", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--syscall needs a syscall name");
	/* A --syscall no pair follows would leave the pairs before it at [default]. */
	CHECK_EQ_INT(parse("policy set quantile=0.9 --syscall read", &req, err, sizeof(err)),
		     -EINVAL);
	CHECK_STR(err, "--syscall read: no KEY=VALUE after it (pairs apply to the --syscall "
		       "before them)");
	CHECK_EQ_INT(parse("policy set --syscall a --syscall b k=v", &req, err, sizeof(err)),
		     -EINVAL);
	CHECK_STR(err, "--syscall a: no KEY=VALUE after it (pairs apply to the --syscall "
		       "before them)");
	CHECK_EQ_INT(parse("policy set quantile", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "\"quantile\": expected KEY=VALUE");
	CHECK_EQ_INT(parse("policy set =0.9", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "\"=0.9\": expected KEY=VALUE");
	CHECK_EQ_INT(parse("policy setx", &req, err, sizeof(err)), -EINVAL);

	/* One pair more than the limit is refused whole, not cut short. */
	len = snprintf(line, sizeof(line), "policy set");
	for (i = 0; i <= CONTROL_MAX_PAIRS; i++)
		len += snprintf(line + len, sizeof(line) - len, " k%d=v", i);
	CHECK_EQ_INT(parse(line, &req, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "too many settings") != NULL, "err \"%s\"", err);
	len = snprintf(line, sizeof(line), "policy set");
	for (i = 0; i < CONTROL_MAX_PAIRS; i++)
		len += snprintf(line + len, sizeof(line) - len, " k%d=v", i);
	CHECK_EQ_INT(parse(line, &req, err, sizeof(err)), 0);
	CHECK_EQ_INT(req.nr_pairs, CONTROL_MAX_PAIRS);
}

/* Unknown requests are named in the error, cut to a sane length. */
static void test_unknown(void)
{
	struct control_req req;
	char err[256], line[300];

	CHECK_EQ_INT(parse("", &req, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "unknown request \"\"");
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	CHECK_EQ_INT(parse(line, &req, err, sizeof(err)), -EINVAL);
	CHECK(strlen(err) < 100, "error of %zu characters", strlen(err));
}

int main(void)
{
	RUN(test_status);
	RUN(test_policy_show_and_load);
	RUN(test_policy_set_pairs);
	RUN(test_policy_set_refused);
	RUN(test_unknown);
	return unit_done();
}
