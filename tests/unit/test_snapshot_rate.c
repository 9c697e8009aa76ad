// SPDX-License-Identifier: GPL-2.0-only
/* --snapshot-rate-policy as users type it: LTTng's every:N and once-after:N. */
#include <errno.h>
#include "unit.h"
#include "outputs/snapshot_trigger.h"

static void test_accepted(void)
{
	struct snapshot_trigger_opts o = {};

	CHECK_EQ_INT(snapshot_rate_parse("every:1", &o), 0);
	CHECK(o.rate == SNAPSHOT_RATE_EVERY && o.rate_n == 1, "every:1 -> %d:%llu", o.rate,
	      (unsigned long long)o.rate_n);
	CHECK_EQ_INT(snapshot_rate_parse("once-after:25", &o), 0);
	CHECK(o.rate == SNAPSHOT_RATE_ONCE_AFTER && o.rate_n == 25, "once-after:25 -> %d:%llu",
	      o.rate, (unsigned long long)o.rate_n);
	CHECK_EQ_INT(snapshot_rate_parse("every:18446744073709551615", &o), 0);
	CHECK_EQ_U64(o.rate_n, 18446744073709551615ULL);
}

static void test_refused(void)
{
	const char *bad[] = { "",
			      "every",
			      "every:",
			      "every:0",
			      "every:-1",
			      "every:+2",
			      "every:2x",
			      "every: 2",
			      "Every:2",
			      "once:2",
			      "once-after:0",
			      "once-after",
			      "every:18446744073709551616" };
	struct snapshot_trigger_opts o = { .rate = SNAPSHOT_RATE_EVERY, .rate_n = 7 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(snapshot_rate_parse(bad[i], &o) == -EINVAL, "\"%s\" accepted", bad[i]);
	/* A refused policy leaves the options as they were. */
	CHECK(o.rate == SNAPSHOT_RATE_EVERY && o.rate_n == 7, "changed to %d:%llu", o.rate,
	      (unsigned long long)o.rate_n);
}

int main(void)
{
	RUN(test_accepted);
	RUN(test_refused);
	return unit_done();
}
