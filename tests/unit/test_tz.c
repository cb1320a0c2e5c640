/* Unit tests for the time zones of spend (src/util/tz.c) with fixed instants: Europe/Berlin across its
 * 2026 DST changes (a 23-hour and a 25-hour day), the budget periods of a zone (day, month, and the hour of
 * a half-hour zone), the reader against libc's own reading of the same file (in this test process only:
 * TZ is never set in a preloaded host), and malformed files and names refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "llmgate/small_file.h"
#include "llmgate/spend.h"
#include "llmgate/tz.h"

#define HOUR INT64_C(3600000)
#define DAY (24 * HOUR)
#define SPRING INT64_C(1774746000000) /* 2026-03-29T01:00:00Z: Berlin goes from +1 to +2 */
#define AUTUMN INT64_C(1792890000000) /* 2026-10-25T01:00:00Z: and back */

static lg_tz *load(const char *name)
{
    char why[256];
    lg_tz *tz = lg_tz_load(name, why, sizeof why);
    if (!tz)
        fail_msg("%s", why);
    return tz;
}

static void berlin_across_dst(void **state)
{
    (void)state;
    lg_tz *tz = load("Europe/Berlin");
    assert_int_equal(lg_tz_offset(tz, SPRING / 1000 - 1), 3600);
    assert_int_equal(lg_tz_offset(tz, SPRING / 1000), 7200);
    assert_int_equal(lg_tz_offset(tz, AUTUMN / 1000 - 1), 7200);
    assert_int_equal(lg_tz_offset(tz, AUTUMN / 1000), 3600);
    /* 2026-03-29 (day 20541) starts at 23:00Z the day before and lasts 23 hours */
    assert_int_equal(lg_tz_day_start(tz, 20541), INT64_C(1774738800000));
    assert_int_equal(lg_tz_day_start(tz, 20542), INT64_C(1774821600000));
    assert_int_equal(lg_tz_day(tz, INT64_C(1774738800000) - 1), 20540);
    assert_int_equal(lg_tz_day(tz, INT64_C(1774738800000)), 20541);
    assert_int_equal(lg_tz_day(tz, INT64_C(1774821600000) - 1), 20541);
    /* 2026-10-25 (day 20751) lasts 25 hours: 22:00Z the day before to 23:00Z */
    assert_int_equal(lg_tz_day_start(tz, 20751), INT64_C(1792879200000));
    assert_int_equal(lg_tz_day_start(tz, 20752), INT64_C(1792969200000));
    assert_int_equal(lg_tz_day(tz, INT64_C(1792969200000) - 1), 20751);
    /* UTC (NULL) keeps whole days */
    assert_int_equal(lg_tz_day(NULL, SPRING), 20541);
    assert_int_equal(lg_tz_day_start(NULL, 20541), 20541 * DAY);
    assert_int_equal(lg_tz_day(NULL, -1), -1);
    lg_tz_free(tz);
}

static void budget_periods_in_a_zone(void **state)
{
    (void)state;
    lg_tz *tz = load("Europe/Berlin");
    /* the spring day: its budget resets at local midnight, 23 hours later */
    assert_int_equal(lg_budget_period_start(LG_PER_DAY, tz, SPRING), INT64_C(1774738800000));
    assert_int_equal(lg_budget_period_end(LG_PER_DAY, tz, SPRING), INT64_C(1774821600000));
    /* October in Berlin: 2026-09-30T22:00Z to 2026-10-31T23:00Z (the clocks went back in between) */
    assert_int_equal(lg_budget_period_start(LG_PER_MONTH, tz, AUTUMN), INT64_C(1790805600000));
    assert_int_equal(lg_budget_period_end(LG_PER_MONTH, tz, AUTUMN), INT64_C(1793487600000));
    /* 2026-10-31T23:30Z is already November there */
    assert_int_equal(lg_budget_period_start(LG_PER_MONTH, tz, INT64_C(1793487600000) + 30 * 60000),
                     INT64_C(1793487600000));
    lg_tz_free(tz);
    /* a half-hour zone's hours: 2026-01-01T00:10Z is 05:40 in Kolkata, its hour began at 23:30Z */
    tz = load("Asia/Kolkata");
    assert_int_equal(lg_budget_period_start(LG_PER_HOUR, tz, INT64_C(1767226200000)), INT64_C(1767223800000));
    assert_int_equal(lg_budget_period_end(LG_PER_HOUR, tz, INT64_C(1767226200000)), INT64_C(1767223800000) + HOUR);
    /* a budget of the zone rolls over at its midnight, not UTC's */
    lg_tz_free(tz);
    tz = load("Europe/Berlin");
    lg_budget_conf b = {.name = "z", .per = LG_PER_DAY, .usd = 1, .tz = tz};
    lg_budget_slot s = {0};
    assert_true(lg_budget_allows(&s, &b, INT64_C(1774738800000) - 10 * 60000)); /* 23:50 local, the 28th */
    s.spent_nusd = 2 * (int64_t)LG_NUSD_PER_USD;
    assert_false(lg_budget_allows(&s, &b, INT64_C(1774738800000) - 1));
    assert_true(lg_budget_allows(&s, &b, INT64_C(1774738800000))); /* local midnight: 23:00Z */
    lg_tz_free(tz);
}

/* The reader agrees with libc's reading of the same files, every 30 minutes of 2026. */
static void agrees_with_libc(void **state)
{
    (void)state;
    const char *zones[] = {"Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"};
    for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
        lg_tz *tz = load(zones[z]);
        setenv("TZ", zones[z], 1);
        tzset();
        for (time_t t = 1767225600; t < 1767225600 + 366 * 86400; t += 1800) {
            struct tm tm;
            localtime_r(&t, &tm);
            if (lg_tz_offset(tz, t) != tm.tm_gmtoff)
                fail_msg("%s at %lld: %d, libc %ld", zones[z], (long long)t, lg_tz_offset(tz, t), tm.tm_gmtoff);
        }
        lg_tz_free(tz);
    }
    unsetenv("TZ");
}

static void malformed_refused(void **state)
{
    (void)state;
    char why[256];
    assert_null(lg_tz_load("../etc/passwd", why, sizeof why));
    assert_non_null(strstr(why, "not a time zone name"));
    assert_null(lg_tz_load("/etc/localtime", why, sizeof why));
    assert_null(lg_tz_load("Nowhere/Atlantis", why, sizeof why));
    assert_non_null(strstr(why, "unknown time zone"));
    lg_small_file f;
    assert_true(lg_small_file_read("/usr/share/zoneinfo/Europe/Berlin", 0, 1 << 20, 0, &f));
    const unsigned char *d = (const unsigned char *)f.data;
    assert_null(lg_tz_parse(d, 10));          /* shorter than a header */
    assert_null(lg_tz_parse(d, f.len / 2));   /* cut */
    assert_null(lg_tz_parse((const unsigned char *)"TZjf2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 47));
    unsigned char *bad = malloc(f.len);
    memcpy(bad, d, f.len);
    unsigned char *v2 = memmem(bad + 4, f.len - 4, "TZif", 4); /* the 64-bit part */
    assert_non_null(v2);
    memset(v2 + 44, 0x7f, 16); /* its first two transitions at the same instant */
    assert_null(lg_tz_parse(bad, f.len));
    lg_tz *tz = lg_tz_parse(d, f.len);
    assert_non_null(tz);
    lg_tz_free(tz);
    free(bad);
    lg_small_file_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(berlin_across_dst),
        cmocka_unit_test(budget_periods_in_a_zone),
        cmocka_unit_test(agrees_with_libc),
        cmocka_unit_test(malformed_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
