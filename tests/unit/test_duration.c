// SPDX-License-Identifier: GPL-2.0-only
/* Durations as users type them (--threshold 500us, policy files) and sizes. */
#include <errno.h>
#include "unit.h"
#include "util/duration.h"
#include "util/size.h"

static __u64 parsed(const char *s)
{
	__u64 ns = 12345;

	return duration_parse(s, &ns) ? ~0ULL : ns;
}

static void test_units(void)
{
	CHECK_EQ_U64(parsed("250ns"), 250);
	CHECK_EQ_U64(parsed("500us"), 500000);
	CHECK_EQ_U64(parsed("2ms"), 2000000);
	CHECK_EQ_U64(parsed("1s"), 1000000000);
	CHECK_EQ_U64(parsed("0ns"), 0);
}

static void test_fractions(void)
{
	CHECK_EQ_U64(parsed("1.5ms"), 1500000);
	CHECK_EQ_U64(parsed("0.25s"), 250000000);
	CHECK_EQ_U64(parsed(".5us"), 500);
	CHECK_EQ_U64(parsed("2.us"), 2000);
}

static void test_refused(void)
{
	const char *bad[] = { "",     "5",	"ms",	 "-1ms", "+1ms", " 1ms",
			      "1ms ", "1 ms",	"1m",	 "1h",	 "1MS",	 "inf",
			      "nans", "0x10ns", "1e3ns", ".",	 ".ms",	 "1..2ms" };
	__u64 ns;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(duration_parse(bad[i], &ns) == -EINVAL, "\"%s\" accepted", bad[i]);
	CHECK(duration_parse(NULL, &ns) == -EINVAL, "NULL accepted");
}

static void test_range(void)
{
	__u64 ns;

	CHECK_EQ_INT(duration_parse("9223372036s", &ns), 0);
	CHECK_EQ_INT(duration_parse("9223372037s", &ns), -ERANGE);
	CHECK_EQ_INT(duration_parse("9223372036854775807ns", &ns), -ERANGE); /* rounds to 2^63 */
	CHECK_EQ_INT(duration_parse("18446744073s", &ns), -ERANGE);
	CHECK_EQ_INT(duration_parse("99999999999999999999999s", &ns), -ERANGE);
}

static void test_format(void)
{
	char buf[32];

	CHECK_STR(duration_format(999, buf, sizeof(buf)), "999ns");
	CHECK_STR(duration_format(1500, buf, sizeof(buf)), "1.5us");
	CHECK_STR(duration_format(2000000, buf, sizeof(buf)), "2ms");
	CHECK_STR(duration_format(1250000000, buf, sizeof(buf)), "1.25s");
	/* Long ones without an exponent, and readable back. */
	CHECK_STR(duration_format(86400000000000ULL, buf, sizeof(buf)), "86400s");
	CHECK_STR(duration_format(9999000000000ULL, buf, sizeof(buf)), "9999s");
	/* What it prints, it parses back to within the printed precision. */
	CHECK_NEAR((double)parsed(duration_format(123456789, buf, sizeof(buf))), 123456789.0,
		   0.005);
}

static void test_sizes(void)
{
	size_t b = 0;

	CHECK(size_parse("4096", &b) == 0 && b == 4096, "4096 -> %zu", b);
	CHECK(size_parse("64K", &b) == 0 && b == 65536, "64K -> %zu", b);
	CHECK(size_parse("4M", &b) == 0 && b == 4194304, "4M -> %zu", b);
	CHECK(size_parse("1g", &b) == 0 && b == 1073741824, "1g -> %zu", b);
	CHECK_EQ_INT(size_parse("4MB", &b), -EINVAL);
	CHECK_EQ_INT(size_parse("-1", &b), -EINVAL);
	CHECK_EQ_INT(size_parse("", &b), -EINVAL);
	CHECK_EQ_INT(size_parse("99999999999999G", &b), -ERANGE);
}

int main(void)
{
	RUN(test_units);
	RUN(test_fractions);
	RUN(test_refused);
	RUN(test_range);
	RUN(test_format);
	RUN(test_sizes);
	return unit_done();
}
