/* Unit tests of the retry budget and the circuit breaker (src/limiter/budget.c, breaker.c), with a fake clock
 * (plain integers), at every boundary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/resilience.h"

#define T0 INT64_C(1700000000000)

static lg_breaker_conf conf(void)
{
    return (lg_breaker_conf){.failure_ratio = 0.5, .min_requests = 10, .window_ms = 30000,
                             .consecutive_failures = 5, .open_ms = 30000, .open_max_ms = 300000};
}

/* Retries allowed in a row at time t. */
static int drain(lg_budget *b, double ratio, double min_per_s, int64_t t)
{
    int n = 0;
    while (n < 1000 && lg_budget_try_retry(b, ratio, min_per_s, t))
        n++;
    return n;
}

static void budget_floor_lets_a_lone_request_retry(void **state)
{
    lg_budget b;
    memset(&b, 0, sizeof b);
    lg_budget_note_request(&b, T0);
    assert_int_equal(drain(&b, 0.2, 0.5, T0), 5); /* 0.5/s over 10 s */
}

static void budget_is_a_share_of_recent_requests(void **state)
{
    lg_budget b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 100; i++)
        lg_budget_note_request(&b, T0 + i * 50); /* 100 requests in 5 s */
    assert_int_equal(drain(&b, 0.2, 0.5, T0 + 5000), 20);
    assert_false(lg_budget_try_retry(&b, 0.2, 0.5, T0 + 9999)); /* still inside the ten seconds */
}

static void budget_forgets_after_ten_seconds(void **state)
{
    lg_budget b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 100; i++)
        lg_budget_note_request(&b, T0);
    assert_int_equal(drain(&b, 0.2, 0, T0), 20);
    /* ten seconds later neither the requests nor the retries count: only the floor is left */
    assert_int_equal(drain(&b, 0.2, 0.3, T0 + 10000), 3);
    assert_int_equal(drain(&b, 0.2, 0, T0 + 20000), 0);
}

static void budget_window_boundary(void **state)
{
    lg_budget b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 50; i++)
        lg_budget_note_request(&b, T0); /* the second T0 / 1000 */
    assert_int_equal(drain(&b, 0.2, 0, T0 + 9000), 10); /* 9 s later: still within */
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 50; i++)
        lg_budget_note_request(&b, T0);
    assert_int_equal(drain(&b, 0.2, 0, T0 + 10000), 0); /* 10 s later: gone */
}

/* Records n outcomes (failures first) at t. */
static void record(lg_breaker *b, const lg_breaker_conf *c, int failures, int successes, int64_t t)
{
    for (int i = 0; i < failures; i++)
        lg_breaker_record(b, c, true, t);
    for (int i = 0; i < successes; i++)
        lg_breaker_record(b, c, false, t);
}

static void breaker_opens_at_the_failure_ratio_over_min_requests(void **state)
{
    lg_breaker_conf c = conf();
    c.consecutive_failures = 0;
    lg_breaker b;
    memset(&b, 0, sizeof b);
    int64_t wait;
    record(&b, &c, 0, 5, T0);
    for (int i = 0; i < 4; i++)
        lg_breaker_record(&b, &c, true, T0 + 1);
    assert_int_equal(b.state, LG_BREAKER_CLOSED); /* 4 of 9: too few requests, too few failures */
    lg_breaker_record(&b, &c, true, T0 + 2);      /* 5 of 10 = 0.5 */
    assert_int_equal(b.state, LG_BREAKER_OPEN);
    assert_int_equal(lg_breaker_admit(&b, &c, T0 + 3, &wait), LG_BREAKER_REJECT);
    assert_int_equal(wait, 30000 - 1);
}

static void breaker_stays_closed_below_the_ratio(void **state)
{
    lg_breaker_conf c = conf();
    c.consecutive_failures = 0;
    lg_breaker b;
    memset(&b, 0, sizeof b);
    record(&b, &c, 0, 6, T0);
    record(&b, &c, 4, 0, T0); /* 4 of 10 */
    assert_int_equal(b.state, LG_BREAKER_CLOSED);
}

static void breaker_opens_on_consecutive_failures(void **state)
{
    lg_breaker_conf c = conf();
    lg_breaker b;
    memset(&b, 0, sizeof b);
    record(&b, &c, 0, 100, T0);
    record(&b, &c, 4, 0, T0 + 1);
    assert_int_equal(b.state, LG_BREAKER_CLOSED);
    lg_breaker_record(&b, &c, false, T0 + 2); /* a success ends the run */
    record(&b, &c, 4, 0, T0 + 3);
    assert_int_equal(b.state, LG_BREAKER_CLOSED);
    lg_breaker_record(&b, &c, true, T0 + 4);
    assert_int_equal(b.state, LG_BREAKER_OPEN);
}

static void breaker_window_forgets_old_failures(void **state)
{
    lg_breaker_conf c = conf();
    c.consecutive_failures = 0;
    lg_breaker b;
    memset(&b, 0, sizeof b);
    record(&b, &c, 9, 0, T0);
    record(&b, &c, 0, 10, T0 + 30000); /* the failures left the 30 s window */
    lg_breaker_record(&b, &c, true, T0 + 30000);
    assert_int_equal(b.state, LG_BREAKER_CLOSED); /* 1 of 11 */
}

static void half_open_lets_one_probe_through(void **state)
{
    lg_breaker_conf c = conf();
    lg_breaker b;
    memset(&b, 0, sizeof b);
    int64_t wait;
    record(&b, &c, 5, 0, T0);
    assert_int_equal(lg_breaker_admit(&b, &c, T0 + 29999, &wait), LG_BREAKER_REJECT);
    assert_int_equal(wait, 1);
    assert_int_equal(lg_breaker_admit(&b, &c, T0 + 30000, &wait), LG_BREAKER_PROBE);
    assert_int_equal(lg_breaker_admit(&b, &c, T0 + 30001, &wait), LG_BREAKER_REJECT); /* probe out */
    lg_breaker_record(&b, &c, false, T0 + 30500);                                      /* it worked */
    assert_int_equal(b.state, LG_BREAKER_CLOSED);
    assert_int_equal(lg_breaker_admit(&b, &c, T0 + 30501, &wait), LG_BREAKER_ALLOW);
    record(&b, &c, 4, 0, T0 + 30600); /* the window started afresh: 4 in a row do not open it */
    assert_int_equal(b.state, LG_BREAKER_CLOSED);
}

static void failed_probes_double_the_open_period_up_to_the_maximum(void **state)
{
    lg_breaker_conf c = conf();
    lg_breaker b;
    memset(&b, 0, sizeof b);
    int64_t wait, t = T0, expect = 30000;
    record(&b, &c, 5, 0, t);
    for (int i = 0; i < 6; i++) {
        t += expect;
        assert_int_equal(lg_breaker_admit(&b, &c, t, &wait), LG_BREAKER_PROBE);
        lg_breaker_record(&b, &c, true, t);
        expect = expect * 2 < 300000 ? expect * 2 : 300000;
        assert_int_equal(lg_breaker_admit(&b, &c, t, &wait), LG_BREAKER_REJECT);
        assert_int_equal(wait, expect);
    }
    assert_int_equal(b.opened, 7);
}

static void a_lost_probe_is_replaced_after_its_lease(void **state)
{
    lg_breaker_conf c = conf();
    lg_breaker b;
    memset(&b, 0, sizeof b);
    int64_t wait;
    record(&b, &c, 5, 0, T0);
    assert_int_equal(lg_breaker_admit(&b, &c, T0 + 30000, &wait), LG_BREAKER_PROBE);
    assert_int_equal(lg_breaker_admit(&b, &c, T0 + 59999, &wait), LG_BREAKER_REJECT);
    assert_int_equal(lg_breaker_admit(&b, &c, T0 + 60000, &wait), LG_BREAKER_PROBE);
}

static void answers_to_requests_sent_before_it_opened_change_nothing(void **state)
{
    lg_breaker_conf c = conf();
    lg_breaker b;
    memset(&b, 0, sizeof b);
    int64_t wait;
    record(&b, &c, 5, 0, T0);
    record(&b, &c, 0, 3, T0 + 10); /* late successes while open */
    assert_int_equal(b.state, LG_BREAKER_OPEN);
    assert_int_equal(lg_breaker_admit(&b, &c, T0 + 20, &wait), LG_BREAKER_REJECT);
}

/* What the breaker is told of each classified state: rate limits are the limiter's, not the breaker's. */
static void breaker_note_of_each_state(void **state)
{
    lg_outcome o = {.state = LG_STATE_PROVIDER_DOWN};
    assert_int_equal(lg_breaker_note_of(&o), LG_BREAKER_NOTE_FAILURE);
    o.state = LG_STATE_RETRYABLE_RATE_LIMIT;
    assert_int_equal(lg_breaker_note_of(&o), LG_BREAKER_NOTE_NONE);
    o.state = LG_STATE_SUCCESS;
    assert_int_equal(lg_breaker_note_of(&o), LG_BREAKER_NOTE_SUCCESS);
    o.state = LG_STATE_NON_RETRYABLE;
    assert_int_equal(lg_breaker_note_of(&o), LG_BREAKER_NOTE_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(budget_floor_lets_a_lone_request_retry),
        cmocka_unit_test(budget_is_a_share_of_recent_requests),
        cmocka_unit_test(budget_forgets_after_ten_seconds),
        cmocka_unit_test(budget_window_boundary),
        cmocka_unit_test(breaker_opens_at_the_failure_ratio_over_min_requests),
        cmocka_unit_test(breaker_stays_closed_below_the_ratio),
        cmocka_unit_test(breaker_opens_on_consecutive_failures),
        cmocka_unit_test(breaker_window_forgets_old_failures),
        cmocka_unit_test(half_open_lets_one_probe_through),
        cmocka_unit_test(failed_probes_double_the_open_period_up_to_the_maximum),
        cmocka_unit_test(a_lost_probe_is_replaced_after_its_lease),
        cmocka_unit_test(answers_to_requests_sent_before_it_opened_change_nothing),
        cmocka_unit_test(breaker_note_of_each_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
