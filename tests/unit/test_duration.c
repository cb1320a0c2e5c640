/* Unit tests for the wait-hint and timestamp parsers (include/llmgate/duration.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/duration.h"

typedef bool (*parser)(const char *, size_t, int64_t *);

static int64_t ok(parser p, const char *s)
{
    int64_t v = -42;
    if (!p(s, strlen(s), &v))
        fail_msg("expected '%s' to parse", s);
    return v;
}

static void bad(parser p, const char *s)
{
    int64_t v = -42;
    if (p(s, strlen(s), &v))
        fail_msg("expected '%s' to be rejected, got %lld", s, (long long)v);
    assert_int_equal(v, -42);
}

static void test_go_duration(void **state)
{
    (void)state;
    assert_int_equal(ok(lg_parse_go_duration, "1s"), 1000);
    assert_int_equal(ok(lg_parse_go_duration, "6m0s"), 360000);
    assert_int_equal(ok(lg_parse_go_duration, "7.66s"), 7660);
    assert_int_equal(ok(lg_parse_go_duration, "9m38.016s"), 578016);
    assert_int_equal(ok(lg_parse_go_duration, "644ms"), 644);
    assert_int_equal(ok(lg_parse_go_duration, "1h2m"), 3720000);
    assert_int_equal(ok(lg_parse_go_duration, "12h34m16s"), 45256000);
    assert_int_equal(ok(lg_parse_go_duration, "20us"), 1);           /* ceil */
    assert_int_equal(ok(lg_parse_go_duration, "20\xc2\xb5s"), 1);    /* micro sign */
    assert_int_equal(ok(lg_parse_go_duration, "1500ns"), 1);
    assert_int_equal(ok(lg_parse_go_duration, "0"), 0);
    assert_int_equal(ok(lg_parse_go_duration, "2m59.56s"), 179560);
    assert_int_equal(ok(lg_parse_go_duration, "6.780999999s"), 6781);
    assert_int_equal(ok(lg_parse_go_duration, "1.0000000001s"), 1001); /* below ns precision still rounds up */
    assert_int_equal(ok(lg_parse_go_duration, "1.5h"), 5400000);
    assert_int_equal(ok(lg_parse_go_duration, " 250ms "), 250);
    assert_int_equal(ok(lg_parse_go_duration, "33740.910400305s"), 33740911);
    bad(lg_parse_go_duration, "");
    bad(lg_parse_go_duration, "20");
    bad(lg_parse_go_duration, "s");
    bad(lg_parse_go_duration, "-1s");
    bad(lg_parse_go_duration, "1x");
    bad(lg_parse_go_duration, "1.s.");
    bad(lg_parse_go_duration, ".s");
    bad(lg_parse_go_duration, "99999999999999999999s");
    bad(lg_parse_go_duration, "9223372036854775807h");
}

static void test_go_duration_respects_length(void **state)
{
    (void)state;
    int64_t v;
    assert_true(lg_parse_go_duration("15s9999", 3, &v));
    assert_int_equal(v, 15000);
    assert_true(lg_parse_go_duration("7s\0garbage", 20, &v)); /* stops at the NUL */
    assert_int_equal(v, 7000);
    assert_false(lg_parse_go_duration(NULL, 5, &v));
}

static void test_proto_duration(void **state)
{
    (void)state;
    assert_int_equal(ok(lg_parse_proto_duration, "40s"), 40000);
    assert_int_equal(ok(lg_parse_proto_duration, "33740.910400305s"), 33740911);
    assert_int_equal(ok(lg_parse_proto_duration, "581981.300432511s"), 581981301);
    assert_int_equal(ok(lg_parse_proto_duration, "0.000000001s"), 1);
    assert_int_equal(ok(lg_parse_proto_duration, "0s"), 0);
    bad(lg_parse_proto_duration, "40");
    bad(lg_parse_proto_duration, "1m");
    bad(lg_parse_proto_duration, "1.0000000001s"); /* more than 9 fractional digits */
    bad(lg_parse_proto_duration, "s");
    bad(lg_parse_proto_duration, "-3s");
}

static void test_delta_seconds(void **state)
{
    (void)state;
    assert_int_equal(ok(lg_parse_delta_seconds, "20"), 20000);
    assert_int_equal(ok(lg_parse_delta_seconds, "1.5"), 1500);
    assert_int_equal(ok(lg_parse_delta_seconds, "0.0001"), 1);
    assert_int_equal(ok(lg_parse_delta_seconds, " 86400 "), 86400000);
    bad(lg_parse_delta_seconds, "");
    bad(lg_parse_delta_seconds, "abc");
    bad(lg_parse_delta_seconds, "20s");
    bad(lg_parse_delta_seconds, "-5");
    bad(lg_parse_delta_seconds, "1e3");
    bad(lg_parse_delta_seconds, "99999999999999999999999");
}

static void test_http_date(void **state)
{
    (void)state;
    /* 1994-11-06T08:49:37Z = 784111777 */
    assert_int_equal(ok(lg_parse_http_date, "Sun, 06 Nov 1994 08:49:37 GMT"), 784111777000LL);
    assert_int_equal(ok(lg_parse_http_date, "Sunday, 06-Nov-94 08:49:37 GMT"), 784111777000LL);
    assert_int_equal(ok(lg_parse_http_date, "Sun Nov  6 08:49:37 1994"), 784111777000LL);
    assert_int_equal(ok(lg_parse_http_date, "Tue, 26 Mar 2024 19:59:59 GMT"), 1711483199000LL);
    assert_int_equal(ok(lg_parse_http_date, "Thu, 29 Feb 2024 00:00:00 GMT"), 1709164800000LL);
    bad(lg_parse_http_date, "Fri, 30 Feb 2024 00:00:00 GMT");
    bad(lg_parse_http_date, "Sun, 06 Nov 1994 25:49:37 GMT");
    bad(lg_parse_http_date, "Sun, 06 Foo 1994 08:49:37 GMT");
    bad(lg_parse_http_date, "Sun, 06 Nov 1994 08:49:37 PST");
    bad(lg_parse_http_date, "20");
    bad(lg_parse_http_date, "");
    bad(lg_parse_http_date, "Sun,");
}

static void test_rfc3339(void **state)
{
    (void)state;
    assert_int_equal(ok(lg_parse_rfc3339, "2024-03-26T20:00:00Z"), 1711483200000LL);
    assert_int_equal(ok(lg_parse_rfc3339, "2024-03-27T04:00:00+08:00"), 1711483200000LL);
    assert_int_equal(ok(lg_parse_rfc3339, "2024-03-26T15:00:00-05:00"), 1711483200000LL);
    assert_int_equal(ok(lg_parse_rfc3339, "2024-03-26T20:00:00.25Z"), 1711483200250LL);
    assert_int_equal(ok(lg_parse_rfc3339, "2024-03-26T20:00:00.0001Z"), 1711483200001LL);
    assert_int_equal(ok(lg_parse_rfc3339, "2024-03-26t20:00:00z"), 1711483200000LL);
    assert_int_equal(ok(lg_parse_rfc3339, "2026-04-01"), 1775001600000LL);
    assert_int_equal(ok(lg_parse_rfc3339, "1970-01-01T00:00:00Z"), 0);
    bad(lg_parse_rfc3339, "2024-13-01T00:00:00Z");
    bad(lg_parse_rfc3339, "2024-02-30T00:00:00Z");
    bad(lg_parse_rfc3339, "2024-03-26T24:00:00Z");
    bad(lg_parse_rfc3339, "2024-03-26T20:00:00Zjunk");
    bad(lg_parse_rfc3339, "2024-03-26T20:00:00+99:00");
    bad(lg_parse_rfc3339, "24-03-26");
    bad(lg_parse_rfc3339, "");
}

static void test_hint_clamp(void **state)
{
    (void)state;
    assert_int_equal(lg_hint_clamp(0, 1000), 0);
    assert_int_equal(lg_hint_clamp(999, 1000), 999);
    assert_int_equal(lg_hint_clamp(5000, 1000), 1000);
    assert_int_equal(lg_hint_clamp(LG_HINT_ABSURD_MS, INT64_MAX), LG_HINT_ABSURD_MS);
    assert_int_equal(lg_hint_clamp(LG_HINT_ABSURD_MS + 1, INT64_MAX), -1);
    assert_int_equal(lg_hint_clamp(-1, 1000), -1);
    assert_int_equal(lg_hint_clamp(INT64_MAX, 1000), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_go_duration),   cmocka_unit_test(test_go_duration_respects_length),
        cmocka_unit_test(test_proto_duration), cmocka_unit_test(test_delta_seconds),
        cmocka_unit_test(test_http_date),     cmocka_unit_test(test_rfc3339),
        cmocka_unit_test(test_hint_clamp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
