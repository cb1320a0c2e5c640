/* Unit tests of the retry policy, with a fake clock (plain integers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/policy.h"

#define T0 INT64_C(1700000000000)
#define SEC INT64_C(1000)
#define MIN (60 * SEC)

/* The documented defaults (include/llmgate/config.h). */
static lg_backoff_conf backoff_defaults(void)
{
    lg_backoff_conf b = {
        .quota_exhausted_ms = {60 * SEC, 5 * MIN, 30 * MIN, 120 * MIN},
        .n_quota_steps = 4,
        .rate_limit_exceeded_ms = 30 * SEC,
        .model_capacity_exhausted_ms = 15 * SEC,
        .server_error_ms = 20 * SEC,
        .unknown_ms = 60 * SEC,
        .dedup_window_ms = 2 * SEC,
        .reset_after_ms = 120 * SEC,
        .single_account_base_ms = 1 * SEC,
        .single_account_max_ms = 60 * SEC,
        .max_hint_ms = 24 * 60 * MIN,
    };
    return b;
}

static lg_retry_conf retry_defaults(void)
{
    lg_retry_conf r = {
        .switch_on_first_rate_limit = true,
        .max_rate_limit_wait_ms = 300 * SEC,
        .max_attempts = 10,
        .switch_delay_ms = 1 * SEC,
        .same_key_retry_delay_ms = 1 * SEC,
        .switch_after_retry_ms = 5 * SEC,
        .max_server_retries = 2,
    };
    return r;
}

static lg_outcome outcome(lg_state s, lg_reason r, int64_t retry_after_ms)
{
    lg_outcome o;
    memset(&o, 0, sizeof o);
    o.state = s;
    o.reason = r;
    o.retry_after_ms = retry_after_ms;
    o.retry_at_ms = LG_NO_HINT;
    return o;
}

static lg_outcome rate_limit(lg_reason r) { return outcome(LG_STATE_RETRYABLE_RATE_LIMIT, r, LG_NO_HINT); }

static lg_history history(int attempts, int64_t started)
{
    lg_history h = {.attempts = attempts, .started_ms = started, .replayable = true};
    return h;
}

/* ---- lg_policy_exp_backoff ---- */

static void exp_backoff_defaults_double_then_cap(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    const int64_t want[] = {1, 2, 4, 8, 16, 32, 60, 60, 60};
    for (int n = 1; n <= 9; n++)
        assert_int_equal(lg_policy_exp_backoff(&b, n), want[n - 1] * SEC);
    assert_int_equal(lg_policy_exp_backoff(&b, 0), 1 * SEC);
    assert_int_equal(lg_policy_exp_backoff(&b, INT32_MAX), 60 * SEC);
}

static void exp_backoff_small_configured_values(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    b.single_account_base_ms = 10;
    b.single_account_max_ms = 100;
    const int64_t want[] = {10, 20, 40, 80, 100, 100};
    for (int n = 1; n <= 6; n++)
        assert_int_equal(lg_policy_exp_backoff(&b, n), want[n - 1]);
}

/* ---- lg_policy_record ---- */

static void record_success_clears_cooldown_keeps_failures(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {.cooldown_until_ms = T0 + 30 * SEC, .reason = LG_REASON_RATE_LIMIT_EXCEEDED,
                           .failures = 3, .last_event_ms = T0};
    lg_outcome ok = outcome(LG_STATE_SUCCESS, LG_REASON_NONE, LG_NO_HINT);
    lg_policy_record(&b, 2, &st, &ok, T0 + 1 * SEC);
    assert_int_equal(st.cooldown_until_ms, 0);
    assert_int_equal(st.reason, LG_REASON_NONE);
    assert_int_equal(st.failures, 3);
    assert_int_equal(st.last_event_ms, T0);
}

static void record_non_retryable_changes_nothing(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {.cooldown_until_ms = T0 + 5 * SEC, .reason = LG_REASON_RATE_LIMIT_EXCEEDED,
                           .failures = 2, .last_event_ms = T0 - 10 * SEC};
    lg_account_state before = st;
    const lg_reason reasons[] = {LG_REASON_UNKNOWN, LG_REASON_RATE_LIMIT_EXCEEDED, LG_REASON_SERVER_ERROR,
                                 LG_REASON_MODEL_CAPACITY_EXHAUSTED};
    for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++) {
        lg_outcome o = outcome(LG_STATE_NON_RETRYABLE, reasons[i], 50 * SEC);
        lg_policy_record(&b, 2, &st, &o, T0);
        assert_memory_equal(&st, &before, sizeof st);
    }
}

static void record_non_retryable_quota_locks_the_key(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome o = outcome(LG_STATE_NON_RETRYABLE, LG_REASON_QUOTA_EXHAUSTED, LG_NO_HINT);
    lg_policy_record(&b, 2, &st, &o, T0);
    assert_int_equal(st.failures, 1);
    assert_int_equal(st.last_event_ms, T0);
    assert_int_equal(st.reason, LG_REASON_QUOTA_EXHAUSTED);
    assert_int_equal(st.cooldown_until_ms, T0 + 60 * SEC);
}

static void record_reason_defaults(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    struct {
        lg_state s;
        lg_reason r;
        int64_t want;
    } cases[] = {
        {LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, 30 * SEC},
        {LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_MODEL_CAPACITY_EXHAUSTED, 15 * SEC},
        {LG_STATE_PROVIDER_DOWN, LG_REASON_MODEL_CAPACITY_EXHAUSTED, 15 * SEC},
        {LG_STATE_PROVIDER_DOWN, LG_REASON_SERVER_ERROR, 20 * SEC},
        {LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_UNKNOWN, 60 * SEC},
        {LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, 60 * SEC},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lg_account_state st = {0};
        lg_outcome o = outcome(cases[i].s, cases[i].r, LG_NO_HINT);
        lg_policy_record(&b, 3, &st, &o, T0);
        assert_int_equal(st.cooldown_until_ms, T0 + cases[i].want);
        assert_int_equal(st.reason, cases[i].r);
        assert_int_equal(st.failures, 1);
    }
}

static void record_small_configured_defaults(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    b.rate_limit_exceeded_ms = 7;
    b.model_capacity_exhausted_ms = 11;
    b.server_error_ms = 13;
    b.unknown_ms = 17;
    const lg_reason reasons[] = {LG_REASON_RATE_LIMIT_EXCEEDED, LG_REASON_MODEL_CAPACITY_EXHAUSTED,
                                 LG_REASON_SERVER_ERROR, LG_REASON_UNKNOWN};
    const int64_t want[] = {7, 11, 13, 17};
    for (size_t i = 0; i < 4; i++) {
        lg_account_state st = {0};
        lg_outcome o = rate_limit(reasons[i]);
        lg_policy_record(&b, 2, &st, &o, 500);
        assert_int_equal(st.cooldown_until_ms, 500 + want[i]);
    }
}

static void record_server_hint_replaces_default(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome o = outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, 20 * SEC);
    lg_policy_record(&b, 2, &st, &o, T0);
    assert_int_equal(st.cooldown_until_ms, T0 + 20 * SEC);

    lg_account_state st2 = {0};
    o.retry_after_ms = 90 * SEC;
    lg_policy_record(&b, 2, &st2, &o, T0);
    assert_int_equal(st2.cooldown_until_ms, T0 + 90 * SEC);

    lg_account_state st3 = {0};
    lg_outcome down = outcome(LG_STATE_PROVIDER_DOWN, LG_REASON_MODEL_CAPACITY_EXHAUSTED, 40 * SEC);
    lg_policy_record(&b, 2, &st3, &down, T0);
    assert_int_equal(st3.cooldown_until_ms, T0 + 40 * SEC);
}

static void record_retry_at_is_relative_to_now(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    o.retry_at_ms = T0 + 45 * SEC;
    lg_policy_record(&b, 2, &st, &o, T0);
    assert_int_equal(st.cooldown_until_ms, T0 + 45 * SEC);

    lg_account_state q = {0};
    lg_outcome quota = rate_limit(LG_REASON_QUOTA_EXHAUSTED);
    quota.retry_at_ms = T0 + 5 * 60 * MIN;
    lg_policy_record(&b, 2, &q, &quota, T0);
    assert_int_equal(q.cooldown_until_ms, T0 + 5 * 60 * MIN);

    /* A resume time already past is no hint: the reason's default applies. */
    lg_account_state past = {0};
    o.retry_at_ms = T0 - 10 * SEC;
    lg_policy_record(&b, 2, &past, &o, T0);
    assert_int_equal(past.cooldown_until_ms, T0 + 30 * SEC);

    /* retry_after_ms wins over retry_at_ms. */
    lg_account_state both = {0};
    o.retry_after_ms = 3 * SEC;
    o.retry_at_ms = T0 + 99 * SEC;
    lg_policy_record(&b, 2, &both, &o, T0);
    assert_int_equal(both.cooldown_until_ms, T0 + 3 * SEC);
}

/* Every server hint is clamped to max_hint_ms; an absurd one (a date in 2999) is ignored. */
static void record_hint_clamped_absurd_ignored(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    o.retry_after_ms = 3 * 24 * 60 * MIN;
    lg_policy_record(&b, 2, &st, &o, T0);
    assert_int_equal(st.cooldown_until_ms, T0 + 24 * 60 * MIN);

    const int64_t y2999 = INT64_C(32472144000000); /* 2999-01-01T00:00:00Z */
    lg_account_state q = {0};
    lg_outcome quota = rate_limit(LG_REASON_QUOTA_EXHAUSTED);
    quota.retry_at_ms = y2999;
    lg_policy_record(&b, 2, &q, &quota, T0);
    assert_int_equal(q.cooldown_until_ms, T0 + 60 * SEC); /* the first quota step, not the year 2999 */

    lg_account_state r = {0};
    o.retry_after_ms = LG_NO_HINT;
    o.retry_at_ms = y2999;
    lg_policy_record(&b, 2, &r, &o, T0);
    assert_int_equal(r.cooldown_until_ms, T0 + 30 * SEC);

    b.max_hint_ms = 10 * SEC;
    lg_account_state s = {0};
    o.retry_after_ms = 45 * SEC;
    lg_policy_record(&b, 2, &s, &o, T0);
    assert_int_equal(s.cooldown_until_ms, T0 + 10 * SEC);
}

/* lg_policy_sanitize_hint: one relative, clamped hint, or none. */
static void sanitize_hint_relative_clamped(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    o.retry_at_ms = T0 + 45 * SEC;
    lg_policy_sanitize_hint(&b, &o, T0);
    assert_int_equal(o.retry_after_ms, 45 * SEC);
    assert_int_equal(o.retry_at_ms, LG_NO_HINT);
    o.retry_after_ms = LG_NO_HINT;
    o.retry_at_ms = T0 - 1;
    lg_policy_sanitize_hint(&b, &o, T0);
    assert_int_equal(o.retry_after_ms, LG_NO_HINT);
    o.retry_after_ms = 30676070775LL * 1000;
    lg_policy_sanitize_hint(&b, &o, T0);
    assert_int_equal(o.retry_after_ms, LG_NO_HINT);
    o.retry_after_ms = 2 * 24 * 60 * MIN;
    lg_policy_sanitize_hint(&b, &o, T0);
    assert_int_equal(o.retry_after_ms, 24 * 60 * MIN);
    o.retry_after_ms = 0;
    lg_policy_sanitize_hint(&b, &o, T0);
    assert_int_equal(o.retry_after_ms, 0);
}

/* A cooldown longer than any the policy can set (restored from disk) is cut to the longest it can. */
static void clamp_cooldown_cuts_restored_ones(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {.cooldown_until_ms = T0 + 1000 * 24 * 60 * MIN, .reason = LG_REASON_QUOTA_EXHAUSTED};
    assert_true(lg_policy_clamp_cooldown(&b, &st, T0));
    assert_int_equal(st.cooldown_until_ms, T0 + 24 * 60 * MIN);
    assert_false(lg_policy_clamp_cooldown(&b, &st, T0));
    lg_account_state ok = {.cooldown_until_ms = T0 + 60 * MIN};
    assert_false(lg_policy_clamp_cooldown(&b, &ok, T0));
    assert_int_equal(ok.cooldown_until_ms, T0 + 60 * MIN);
    /* A configured quota step longer than the clamp still stands. */
    b.max_hint_ms = 1 * MIN;
    lg_account_state q = {.cooldown_until_ms = T0 + 24 * 60 * MIN};
    assert_true(lg_policy_clamp_cooldown(&b, &q, T0));
    assert_int_equal(q.cooldown_until_ms, T0 + 120 * MIN);
}

static void record_dedup_window_counts_one_event(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_policy_record(&b, 2, &st, &o, T0);
    assert_int_equal(st.failures, 1);
    assert_int_equal(st.cooldown_until_ms, T0 + 30 * SEC);

    /* Same event: no count, no change without a hint. */
    lg_policy_record(&b, 2, &st, &o, T0 + 1999);
    assert_int_equal(st.failures, 1);
    assert_int_equal(st.last_event_ms, T0);
    assert_int_equal(st.cooldown_until_ms, T0 + 30 * SEC);

    /* Same event with a longer hint: the cooldown is extended, the count is not. */
    lg_outcome hinted = outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, 50 * SEC);
    lg_policy_record(&b, 2, &st, &hinted, T0 + 1500);
    assert_int_equal(st.failures, 1);
    assert_int_equal(st.cooldown_until_ms, T0 + 1500 + 50 * SEC);

    /* Same event with a shorter hint: never shortened. */
    hinted.retry_after_ms = 1 * SEC;
    lg_policy_record(&b, 2, &st, &hinted, T0 + 1600);
    assert_int_equal(st.cooldown_until_ms, T0 + 1500 + 50 * SEC);

    /* Outside the window: a new event. */
    lg_policy_record(&b, 2, &st, &o, T0 + 2 * SEC);
    assert_int_equal(st.failures, 2);
    assert_int_equal(st.last_event_ms, T0 + 2 * SEC);
}

static void record_dedup_small_window(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    b.dedup_window_ms = 10;
    b.reset_after_ms = 100;
    lg_account_state st = {0};
    lg_outcome o = rate_limit(LG_REASON_UNKNOWN);
    lg_policy_record(&b, 2, &st, &o, 1000);
    lg_policy_record(&b, 2, &st, &o, 1009);
    assert_int_equal(st.failures, 1);
    lg_policy_record(&b, 2, &st, &o, 1010);
    assert_int_equal(st.failures, 2);
    lg_policy_record(&b, 2, &st, &o, 1109);
    assert_int_equal(st.failures, 3);
    lg_policy_record(&b, 2, &st, &o, 1209);
    assert_int_equal(st.failures, 1);
}

static void record_failures_reset_after_quiet_period(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_policy_record(&b, 2, &st, &o, T0);
    lg_policy_record(&b, 2, &st, &o, T0 + 10 * SEC);
    assert_int_equal(st.failures, 2);
    lg_policy_record(&b, 2, &st, &o, T0 + 10 * SEC + 120 * SEC - 1);
    assert_int_equal(st.failures, 3);
    int64_t last = st.last_event_ms;
    lg_policy_record(&b, 2, &st, &o, last + 120 * SEC);
    assert_int_equal(st.failures, 1);
    assert_int_equal(st.last_event_ms, last + 120 * SEC);
}

static void record_quota_steps_by_consecutive_failures(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome o = rate_limit(LG_REASON_QUOTA_EXHAUSTED);
    const int64_t want[] = {60 * SEC, 5 * MIN, 30 * MIN, 120 * MIN, 120 * MIN};
    for (int i = 0; i < 5; i++) {
        int64_t now = T0 + i * 3 * SEC;
        st.cooldown_until_ms = 0; /* look at each step alone */
        lg_policy_record(&b, 2, &st, &o, now);
        assert_int_equal(st.failures, i + 1);
        assert_int_equal(st.cooldown_until_ms, now + want[i]);
        assert_int_equal(st.reason, LG_REASON_QUOTA_EXHAUSTED);
    }
}

static void record_quota_hint_extends_but_never_shortens(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome shorter = outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, 43 * SEC);
    lg_policy_record(&b, 2, &st, &shorter, T0);
    assert_int_equal(st.cooldown_until_ms, T0 + 60 * SEC);

    lg_account_state st2 = {0};
    lg_outcome longer = outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, 3 * 60 * MIN);
    lg_policy_record(&b, 2, &st2, &longer, T0);
    assert_int_equal(st2.cooldown_until_ms, T0 + 3 * 60 * MIN);

    /* A later, shorter rate limit never shortens an existing quota lock. */
    lg_outcome rl = outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, 5 * SEC);
    lg_policy_record(&b, 2, &st2, &rl, T0 + 10 * SEC);
    assert_int_equal(st2.cooldown_until_ms, T0 + 3 * 60 * MIN);
    assert_int_equal(st2.reason, LG_REASON_QUOTA_EXHAUSTED);
    assert_int_equal(st2.failures, 2);
}

static void record_single_account_exponential(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    const int64_t want[] = {1, 2, 4, 8, 16, 32, 60, 60};
    int64_t now = T0;
    for (int i = 0; i < 8; i++) {
        lg_policy_record(&b, 1, &st, &o, now);
        assert_int_equal(st.failures, i + 1);
        assert_int_equal(st.cooldown_until_ms, now + want[i] * SEC);
        now = st.cooldown_until_ms; /* the next attempt happens when the cooldown ends */
    }
    /* A server hint wins over the exponential backoff. */
    lg_outcome hinted = outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, 7 * SEC);
    lg_account_state st2 = {0};
    lg_policy_record(&b, 1, &st2, &hinted, T0);
    assert_int_equal(st2.cooldown_until_ms, T0 + 7 * SEC);
    /* Quota keeps its steps even with one account. */
    lg_account_state st3 = {0};
    lg_outcome quota = rate_limit(LG_REASON_QUOTA_EXHAUSTED);
    lg_policy_record(&b, 1, &st3, &quota, T0);
    assert_int_equal(st3.cooldown_until_ms, T0 + 60 * SEC);
}

/* ---- lg_policy_decide ---- */

static void decide_delivers_success_and_non_retryable(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[2] = {{0}};
    lg_history h = history(1, T0);
    lg_outcome ok = outcome(LG_STATE_SUCCESS, LG_REASON_NONE, LG_NO_HINT);
    assert_int_equal(lg_policy_decide(&r, &b, &ok, s, 2, 0, &h, T0).kind, LG_ACT_DELIVER);
    lg_outcome bad = outcome(LG_STATE_NON_RETRYABLE, LG_REASON_UNKNOWN, 5 * SEC);
    assert_int_equal(lg_policy_decide(&r, &b, &bad, s, 2, 0, &h, T0).kind, LG_ACT_DELIVER);
    /* Even past max_attempts a success is delivered. */
    h.attempts = 99;
    assert_int_equal(lg_policy_decide(&r, &b, &ok, s, 2, 0, &h, T0).kind, LG_ACT_DELIVER);
}

static void decide_non_replayable_delivers_first_response(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[2] = {{0}};
    lg_history h = history(1, T0);
    h.replayable = false;
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_action a = lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_DELIVER);
    assert_int_equal(a.account, 0);
}

static void decide_max_attempts_gives_up(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    r.max_attempts = 3;
    lg_account_state s[2] = {{0}};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_history h = history(2, T0);
    assert_int_equal(lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0).kind, LG_ACT_RETRY);
    h = history(3, T0);
    assert_int_equal(lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0).kind, LG_ACT_GIVE_UP);
}

static void decide_quota_switches_at_once(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[3] = {{0}};
    lg_outcome o = rate_limit(LG_REASON_QUOTA_EXHAUSTED);
    lg_policy_record(&b, 3, &s[0], &o, T0);
    lg_history h = history(1, T0);
    lg_action a = lg_policy_decide(&r, &b, &o, s, 3, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 0);
    assert_true(a.switched);

    /* The next account is cooling: skip to the one after it. */
    s[1].cooldown_until_ms = T0 + 10 * SEC;
    h = history(1, T0);
    a = lg_policy_decide(&r, &b, &o, s, 3, 0, &h, T0);
    assert_int_equal(a.account, 2);
    assert_int_equal(a.delay_ms, 0);

    /* Wrapping: from the last account to the first available one. */
    s[0].cooldown_until_ms = 0;
    s[2].cooldown_until_ms = T0 + 60 * SEC;
    h = history(1, T0);
    a = lg_policy_decide(&r, &b, &o, s, 3, 2, &h, T0);
    assert_int_equal(a.account, 0);

    /* NON_RETRYABLE + QUOTA_EXHAUSTED rotates the same way. */
    lg_outcome nr = outcome(LG_STATE_NON_RETRYABLE, LG_REASON_QUOTA_EXHAUSTED, LG_NO_HINT);
    h = history(1, T0);
    a = lg_policy_decide(&r, &b, &nr, s, 3, 2, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 0);
    assert_int_equal(a.delay_ms, 0);
    /* ...but not when the body cannot be sent again. */
    h.replayable = false;
    assert_int_equal(lg_policy_decide(&r, &b, &nr, s, 3, 2, &h, T0).kind, LG_ACT_DELIVER);
}

/* The host's own limit (until_ms) ends the request's waits when it comes before the configured maximum. */
static void decide_host_limit_bounds_waits(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[1] = {{0}};
    lg_outcome o = outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, 20 * SEC);
    lg_policy_record(&b, 1, &s[0], &o, T0);
    lg_history h = history(1, T0);
    assert_int_equal(lg_policy_deadline(&r, &h), T0 + 300 * SEC);
    assert_int_equal(lg_policy_decide(&r, &b, &o, s, 1, 0, &h, T0).kind, LG_ACT_RETRY);
    h = history(1, T0);
    h.until_ms = T0 + 2 * SEC;
    assert_int_equal(lg_policy_deadline(&r, &h), T0 + 2 * SEC);
    assert_int_equal(lg_policy_decide(&r, &b, &o, s, 1, 0, &h, T0).kind, LG_ACT_GIVE_UP);
    h.until_ms = T0 + 30 * SEC; /* long enough for the 20 s hint */
    assert_int_equal(lg_policy_decide(&r, &b, &o, s, 1, 0, &h, T0).kind, LG_ACT_RETRY);
    h = history(1, T0);
    h.until_ms = T0 + 900 * SEC; /* later than the configured maximum: the maximum holds */
    assert_int_equal(lg_policy_deadline(&r, &h), T0 + 300 * SEC);
}

/* A refused account (401): the next account not refused at once, never a refused one again; none left: the
 * refusal delivered as it came; one account, or a body that cannot be sent again: delivered. */
static void decide_refused_account_moves_on(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[3] = {{0}};
    lg_outcome no = outcome(LG_STATE_NON_RETRYABLE, LG_REASON_UNKNOWN, LG_NO_HINT);
    no.account_rejected = true;
    lg_history h = history(1, T0);
    lg_action a = lg_policy_decide(&r, &b, &no, s, 3, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 0);
    assert_true(a.switched);
    assert_int_equal(h.refused, 1);
    /* account 1 cools down for 10 s: account 2, at once */
    s[1].cooldown_until_ms = T0 + 10 * SEC;
    h = history(1, T0);
    a = lg_policy_decide(&r, &b, &no, s, 3, 0, &h, T0);
    assert_int_equal(a.account, 2);
    assert_int_equal(a.delay_ms, 0);
    /* account 2 refused too: account 1 after its cooldown */
    h.attempts = 2;
    a = lg_policy_decide(&r, &b, &no, s, 3, 2, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 10 * SEC);
    assert_int_equal(h.refused, 5);
    /* a rate limit on account 1 then never switches back to a refused one: it waits for its own cooldown */
    lg_outcome rl = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_policy_record(&b, 3, &s[1], &rl, T0 + 10 * SEC);
    h.attempts = 3;
    a = lg_policy_decide(&r, &b, &rl, s, 3, 1, &h, T0 + 10 * SEC);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 30 * SEC);
    /* account 1 refused as well: nothing left, the refusal is delivered (not given up on, not normalized) */
    h.attempts = 4;
    a = lg_policy_decide(&r, &b, &no, s, 3, 1, &h, T0 + 40 * SEC);
    assert_int_equal(a.kind, LG_ACT_DELIVER);
    /* the only other account frees after the deadline: delivered */
    lg_account_state t[2] = {{0}};
    t[1].cooldown_until_ms = T0 + 400 * SEC;
    h = history(1, T0);
    assert_int_equal(lg_policy_decide(&r, &b, &no, t, 2, 0, &h, T0).kind, LG_ACT_DELIVER);
    /* one account; a body that cannot be sent again; max_attempts reached: delivered */
    h = history(1, T0);
    assert_int_equal(lg_policy_decide(&r, &b, &no, s, 1, 0, &h, T0).kind, LG_ACT_DELIVER);
    h.replayable = false;
    assert_int_equal(lg_policy_decide(&r, &b, &no, s, 3, 0, &h, T0).kind, LG_ACT_DELIVER);
    h = history(10, T0);
    assert_int_equal(lg_policy_decide(&r, &b, &no, s, 3, 0, &h, T0).kind, LG_ACT_DELIVER);
    /* the same NON_RETRYABLE without the refusal is delivered as before, nothing recorded into h */
    h = history(1, T0);
    no.account_rejected = false;
    assert_int_equal(lg_policy_decide(&r, &b, &no, s, 3, 0, &h, T0).kind, LG_ACT_DELIVER);
    assert_int_equal(h.refused, 0);
}

static void decide_rate_limit_switches_after_switch_delay(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[2] = {{0}};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_policy_record(&b, 2, &s[0], &o, T0);
    lg_history h = history(1, T0);
    h.same_key_retries = 1;
    h.server_retries = 1;
    lg_action a = lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 1 * SEC);
    assert_true(a.switched);
    assert_int_equal(h.same_key_retries, 0);
    assert_int_equal(h.server_retries, 0);

    /* UNKNOWN is 429-class too; a small configured delay. */
    r.switch_delay_ms = 25;
    lg_outcome u = rate_limit(LG_REASON_UNKNOWN);
    h = history(1, T0);
    a = lg_policy_decide(&r, &b, &u, s, 2, 0, &h, T0);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 25);
}

static void decide_switch_on_first_false_retries_same_key_once(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    r.switch_on_first_rate_limit = false;
    lg_account_state s[2] = {{0}};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_history h = history(1, T0);

    lg_policy_record(&b, 2, &s[0], &o, T0);
    lg_action a = lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 0);
    assert_int_equal(a.delay_ms, 1 * SEC);
    assert_false(a.switched);
    assert_int_equal(h.same_key_retries, 1);

    int64_t now = T0 + a.delay_ms;
    h.attempts++;
    lg_policy_record(&b, 2, &s[0], &o, now);
    a = lg_policy_decide(&r, &b, &o, s, 2, 0, &h, now);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 5 * SEC);
    assert_true(a.switched);
    assert_int_equal(h.same_key_retries, 0);

    /* The new key gets its own single same-key retry. */
    now += a.delay_ms;
    h.attempts++;
    lg_policy_record(&b, 2, &s[1], &o, now);
    a = lg_policy_decide(&r, &b, &o, s, 2, 1, &h, now);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 1 * SEC);
}

static void decide_provider_down_bounded_retries_then_rotate(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[3] = {{0}};
    lg_outcome o = outcome(LG_STATE_PROVIDER_DOWN, LG_REASON_SERVER_ERROR, LG_NO_HINT);
    lg_history h = history(1, T0);
    int64_t now = T0;

    lg_action a = lg_policy_decide(&r, &b, &o, s, 3, 0, &h, now);
    assert_int_equal(a.account, 0);
    assert_int_equal(a.delay_ms, 1 * SEC);
    assert_int_equal(h.server_retries, 1);

    now += a.delay_ms;
    h.attempts++;
    a = lg_policy_decide(&r, &b, &o, s, 3, 0, &h, now);
    assert_int_equal(a.account, 0);
    assert_int_equal(a.delay_ms, 2 * SEC);
    assert_int_equal(h.server_retries, 2);

    now += a.delay_ms;
    h.attempts++;
    lg_policy_record(&b, 3, &s[0], &o, now);
    a = lg_policy_decide(&r, &b, &o, s, 3, 0, &h, now);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 1 * SEC);
    assert_true(a.switched);
    assert_int_equal(h.server_retries, 0);

    /* A server hint is the delay of a same-key retry; capacity on a 429 takes this path too. */
    lg_outcome cap = outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_MODEL_CAPACITY_EXHAUSTED, 40 * SEC);
    h = history(1, T0);
    a = lg_policy_decide(&r, &b, &cap, s, 3, 2, &h, T0);
    assert_int_equal(a.account, 2);
    assert_int_equal(a.delay_ms, 40 * SEC);
    assert_int_equal(h.server_retries, 1);

    /* max_server_retries = 0: rotate at once. */
    r.max_server_retries = 0;
    h = history(1, T0);
    a = lg_policy_decide(&r, &b, &o, s, 3, 1, &h, T0 + 5 * SEC);
    assert_int_equal(a.account, 2);
    assert_true(a.switched);
}

static void decide_single_account_waits_its_cooldown(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[1] = {{0}};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_history h = history(1, T0);
    int64_t now = T0;
    const int64_t want[] = {1, 2, 4, 8, 16, 32, 60};
    for (int i = 0; i < 7; i++) {
        lg_policy_record(&b, 1, &s[0], &o, now);
        lg_action a = lg_policy_decide(&r, &b, &o, s, 1, 0, &h, now);
        assert_int_equal(a.kind, LG_ACT_RETRY);
        assert_int_equal(a.account, 0);
        assert_false(a.switched);
        assert_int_equal(a.delay_ms, want[i] * SEC);
        now += a.delay_ms;
        h.attempts++;
    }
    /* 1+2+4+8+16+32+60 = 123 s spent: two more 60 s waits fit in 300 s, a third would not. */
    r.max_attempts = 100;
    lg_action a;
    for (;;) {
        lg_policy_record(&b, 1, &s[0], &o, now);
        a = lg_policy_decide(&r, &b, &o, s, 1, 0, &h, now);
        if (a.kind != LG_ACT_RETRY)
            break;
        assert_int_equal(a.delay_ms, 60 * SEC);
        now += a.delay_ms;
        h.attempts++;
    }
    assert_int_equal(a.kind, LG_ACT_GIVE_UP);
    assert_int_equal(now, T0 + 243 * SEC);
}

/* A retry that waited out a short cooldown is a new event even inside the dedup window. */
static void record_after_cooldown_is_a_new_event(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_account_state st = {0};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_policy_record(&b, 1, &st, &o, T0);
    assert_int_equal(st.cooldown_until_ms, T0 + 1 * SEC);
    lg_policy_record(&b, 1, &st, &o, T0 + 1 * SEC);
    assert_int_equal(st.failures, 2);
    assert_int_equal(st.cooldown_until_ms, T0 + 3 * SEC);
}

static void decide_all_limited_waits_for_the_soonest(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[3] = {{.cooldown_until_ms = T0 + 30 * SEC},
                             {.cooldown_until_ms = T0 + 50 * SEC},
                             {.cooldown_until_ms = T0 + 20 * SEC}};
    lg_outcome o = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    lg_history h = history(1, T0);
    lg_action a = lg_policy_decide(&r, &b, &o, s, 3, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 2);
    assert_int_equal(a.delay_ms, 20 * SEC);
    assert_true(a.switched);

    /* The quota case waits for the soonest too. */
    lg_outcome q = rate_limit(LG_REASON_QUOTA_EXHAUSTED);
    h = history(1, T0);
    a = lg_policy_decide(&r, &b, &q, s, 3, 0, &h, T0);
    assert_int_equal(a.account, 2);
    assert_int_equal(a.delay_ms, 20 * SEC);

    /* The current account may be the soonest: same account, not a switch. */
    s[0].cooldown_until_ms = T0 + 10 * SEC;
    h = history(1, T0);
    a = lg_policy_decide(&r, &b, &o, s, 3, 0, &h, T0);
    assert_int_equal(a.account, 0);
    assert_int_equal(a.delay_ms, 10 * SEC);
    assert_false(a.switched);
}

static void decide_gives_up_at_once_beyond_max_wait(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[2] = {{.cooldown_until_ms = T0 + 30 * MIN}, {.cooldown_until_ms = T0 + 2 * 60 * MIN}};
    lg_outcome o = rate_limit(LG_REASON_QUOTA_EXHAUSTED);
    lg_history h = history(1, T0);
    lg_action a = lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_GIVE_UP);
    assert_int_equal(h.attempts, 1);

    /* Exactly at the limit is still allowed; one ms more is not. */
    s[0].cooldown_until_ms = T0 + 300 * SEC;
    a = lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.delay_ms, 300 * SEC);
    s[0].cooldown_until_ms = T0 + 300 * SEC + 1;
    a = lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_GIVE_UP);

    /* The deadline counts from the start of the request. */
    s[0].cooldown_until_ms = T0 + 300 * SEC;
    s[1].cooldown_until_ms = T0 + 300 * SEC;
    h = history(4, T0);
    a = lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0 + 290 * SEC);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.delay_ms, 10 * SEC);
    h = history(4, T0 - 1);
    a = lg_policy_decide(&r, &b, &o, s, 2, 0, &h, T0 + 290 * SEC);
    assert_int_equal(a.kind, LG_ACT_GIVE_UP);

    /* Small configured maximum: even the switch delay can pass it. */
    r.max_rate_limit_wait_ms = 500;
    lg_account_state free2[2] = {{0}};
    lg_outcome rl = rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED);
    h = history(1, T0);
    assert_int_equal(lg_policy_decide(&r, &b, &rl, free2, 2, 0, &h, T0).kind, LG_ACT_GIVE_UP);
    r.switch_delay_ms = 100;
    assert_int_equal(lg_policy_decide(&r, &b, &rl, free2, 2, 0, &h, T0).kind, LG_ACT_RETRY);
}

static void decide_single_account_beyond_max_wait_gives_up(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    lg_account_state s[1] = {{0}};
    lg_outcome o = outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, 400 * SEC);
    lg_policy_record(&b, 1, &s[0], &o, T0);
    lg_history h = history(1, T0);
    assert_int_equal(lg_policy_decide(&r, &b, &o, s, 1, 0, &h, T0).kind, LG_ACT_GIVE_UP);
}

/* ---- lg_policy_choose ---- */

static void choose_preferred_next_or_soonest(void **state)
{
    (void)state;
    int64_t wait = -1;
    lg_account_state s[3] = {{0}, {0}, {0}};
    assert_int_equal(lg_policy_choose(s, 3, 1, T0, &wait), 1);
    assert_int_equal(wait, 0);

    s[1].cooldown_until_ms = T0 + 5 * SEC;
    assert_int_equal(lg_policy_choose(s, 3, 1, T0, &wait), 2);
    assert_int_equal(wait, 0);

    s[2].cooldown_until_ms = T0 + 9 * SEC;
    assert_int_equal(lg_policy_choose(s, 3, 1, T0, &wait), 0);

    s[0].cooldown_until_ms = T0 + 7 * SEC;
    assert_int_equal(lg_policy_choose(s, 3, 1, T0, &wait), 1);
    assert_int_equal(wait, 5 * SEC);

    /* A cooldown ending exactly now is available. */
    assert_int_equal(lg_policy_choose(s, 3, 2, T0 + 9 * SEC, &wait), 2);
    assert_int_equal(wait, 0);
}

/* ---- nothing loops forever ---- */

/* Drives decide+record against a provider that always answers o; returns the attempts made and checks
 * the request ended within max_attempts and the deadline. */
static int simulate(const lg_retry_conf *r, const lg_backoff_conf *b, lg_outcome o, size_t n)
{
    lg_account_state s[4] = {{0}};
    lg_history h = history(0, T0);
    int64_t now = T0;
    size_t current = 0;
    for (int step = 0; step < 10000; step++) {
        h.attempts++;
        lg_policy_record(b, n, &s[current], &o, now);
        lg_action a = lg_policy_decide(r, b, &o, s, n, current, &h, now);
        if (a.kind != LG_ACT_RETRY) {
            assert_int_equal(a.kind, LG_ACT_GIVE_UP);
            assert_true(h.attempts <= r->max_attempts);
            assert_true(now <= T0 + r->max_rate_limit_wait_ms);
            return h.attempts;
        }
        assert_true(a.delay_ms >= 0);
        assert_true(a.account < n);
        now += a.delay_ms;
        assert_true(now <= T0 + r->max_rate_limit_wait_ms);
        current = a.account;
    }
    fail_msg("the policy never gave up");
    return -1;
}

static void simulation_always_limited_terminates(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff_defaults();
    lg_retry_conf r = retry_defaults();
    const lg_outcome outcomes[] = {
        rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED),
        rate_limit(LG_REASON_UNKNOWN),
        rate_limit(LG_REASON_QUOTA_EXHAUSTED),
        outcome(LG_STATE_NON_RETRYABLE, LG_REASON_QUOTA_EXHAUSTED, LG_NO_HINT),
        outcome(LG_STATE_PROVIDER_DOWN, LG_REASON_SERVER_ERROR, LG_NO_HINT),
        outcome(LG_STATE_PROVIDER_DOWN, LG_REASON_MODEL_CAPACITY_EXHAUSTED, 0),
        outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, 0),
        outcome(LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, 100 * SEC),
    };
    for (int sw = 0; sw < 2; sw++) {
        r.switch_on_first_rate_limit = sw == 0;
        for (size_t n = 1; n <= 4; n++)
            for (size_t i = 0; i < sizeof outcomes / sizeof *outcomes; i++)
                simulate(&r, &b, outcomes[i], n);
    }
    /* Always-429 on two accounts with the defaults: both keys cool for 30 s, so the request rotates,
     * waits for the soonest reset and gives up only at max_attempts. */
    assert_int_equal(simulate(&r, &b, rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED), 2), 10);
    r.max_attempts = 3;
    assert_int_equal(simulate(&r, &b, rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED), 2), 3);
    /* A zero max wait still terminates (at once, on the first delayed retry). */
    r.max_attempts = 1000;
    r.max_rate_limit_wait_ms = 0;
    assert_int_equal(simulate(&r, &b, rate_limit(LG_REASON_RATE_LIMIT_EXCEEDED), 3), 1);
}

static void admission_prefers_reservable_then_earlier(void **state)
{
    assert_true(lg_policy_admission_better(true, T0 + 9 * SEC, 5 * SEC, 0, 0)); /* the first looked at */
    assert_true(lg_policy_admission_better(false, T0 + 9 * SEC, 0, T0, 5 * SEC)); /* reservable beats not */
    assert_false(lg_policy_admission_better(false, T0, 5 * SEC, T0 + 9 * SEC, 0));
    assert_true(lg_policy_admission_better(false, T0 + 1, 0, T0 + 2, 0));  /* earlier */
    assert_false(lg_policy_admission_better(false, T0 + 2, 0, T0 + 2, 0)); /* a tie keeps the first in order */
    assert_false(lg_policy_admission_better(false, T0 + 3, 0, T0 + 2, 0));
}

static void hand_over_only_from_a_cooling_account(void **state)
{
    lg_account_state cooling = {.cooldown_until_ms = T0 + SEC, .reason = LG_REASON_QUOTA_EXHAUSTED};
    lg_account_state fine = {0};
    assert_true(lg_policy_hand_over(&cooling, &fine, T0));
    assert_false(lg_policy_hand_over(&fine, &fine, T0));       /* merely full: the mark stays */
    assert_false(lg_policy_hand_over(&cooling, &cooling, T0)); /* to another cooling one: no */
    assert_false(lg_policy_hand_over(&cooling, &fine, T0 + SEC)); /* its cooldown is over */
}

/* ---- lg_policy_decide_transport: the host's own timeout, llmgate's attempt timeout ---- */

static void transport_abandoned_by_host_gives_up(void **state)
{
    (void)state;
    lg_retry_conf r = retry_defaults();
    lg_backoff_conf b = backoff_defaults();
    lg_history h = history(1, T0);
    lg_action a = lg_policy_decide_transport(&r, &b, LG_ATTEMPT_ABANDONED, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_GIVE_UP); /* the host decided: no retry behind its back */
    assert_int_equal(h.server_retries, 0);
}

static void transport_timed_out_retries_at_once(void **state)
{
    (void)state;
    lg_retry_conf r = retry_defaults();
    lg_backoff_conf b = backoff_defaults();
    lg_history h = history(1, T0);
    lg_action a = lg_policy_decide_transport(&r, &b, LG_ATTEMPT_TIMED_OUT, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.delay_ms, 0); /* it waited long enough already */
    assert_int_equal(h.server_retries, 1);
    h.replayable = false; /* a body that could not be held: never sent again */
    a = lg_policy_decide_transport(&r, &b, LG_ATTEMPT_TIMED_OUT, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_GIVE_UP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(transport_abandoned_by_host_gives_up),
        cmocka_unit_test(transport_timed_out_retries_at_once),
        cmocka_unit_test(exp_backoff_defaults_double_then_cap),
        cmocka_unit_test(exp_backoff_small_configured_values),
        cmocka_unit_test(record_success_clears_cooldown_keeps_failures),
        cmocka_unit_test(record_non_retryable_changes_nothing),
        cmocka_unit_test(record_non_retryable_quota_locks_the_key),
        cmocka_unit_test(record_reason_defaults),
        cmocka_unit_test(record_small_configured_defaults),
        cmocka_unit_test(record_server_hint_replaces_default),
        cmocka_unit_test(record_retry_at_is_relative_to_now),
        cmocka_unit_test(record_hint_clamped_absurd_ignored),
        cmocka_unit_test(sanitize_hint_relative_clamped),
        cmocka_unit_test(clamp_cooldown_cuts_restored_ones),
        cmocka_unit_test(record_dedup_window_counts_one_event),
        cmocka_unit_test(record_dedup_small_window),
        cmocka_unit_test(record_failures_reset_after_quiet_period),
        cmocka_unit_test(record_quota_steps_by_consecutive_failures),
        cmocka_unit_test(record_quota_hint_extends_but_never_shortens),
        cmocka_unit_test(record_single_account_exponential),
        cmocka_unit_test(record_after_cooldown_is_a_new_event),
        cmocka_unit_test(decide_delivers_success_and_non_retryable),
        cmocka_unit_test(decide_non_replayable_delivers_first_response),
        cmocka_unit_test(decide_max_attempts_gives_up),
        cmocka_unit_test(decide_quota_switches_at_once),
        cmocka_unit_test(decide_rate_limit_switches_after_switch_delay),
        cmocka_unit_test(decide_switch_on_first_false_retries_same_key_once),
        cmocka_unit_test(decide_provider_down_bounded_retries_then_rotate),
        cmocka_unit_test(decide_single_account_waits_its_cooldown),
        cmocka_unit_test(decide_all_limited_waits_for_the_soonest),
        cmocka_unit_test(decide_gives_up_at_once_beyond_max_wait),
        cmocka_unit_test(decide_single_account_beyond_max_wait_gives_up),
        cmocka_unit_test(choose_preferred_next_or_soonest),
        cmocka_unit_test(decide_refused_account_moves_on),
        cmocka_unit_test(decide_host_limit_bounds_waits),
        cmocka_unit_test(simulation_always_limited_terminates),
        cmocka_unit_test(admission_prefers_reservable_then_earlier),
        cmocka_unit_test(hand_over_only_from_a_cooling_account),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
