/* Unit tests of an account out of credit (issue 34): the classifier's billing detail (src/classify/billing.c),
 * the set-aside it earns in the policy (lg_policy_record, with a fake clock: plain integers), and the rule
 * that sends a request to its fallback instead of waiting (lg_policy_fall_back_now). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/classify.h"
#include "llmgate/policy.h"

#define T0 INT64_C(1700000000000)
#define SEC INT64_C(1000)
#define MIN (60 * SEC)
#define HOUR (60 * MIN)

/* ---- The classifier's billing detail ---- */

typedef struct {
    const char *name;
    lg_dialect d;
    int status;
    const char *body;
    lg_state state;
    lg_reason reason;
    lg_detail detail;
} billing_case;

static const billing_case cases[] = {
    {"openai_insufficient_quota_429", LG_DIALECT_OPENAI, 429,
     "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and billing details.\","
     "\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    {"deepseek_402_insufficient_balance", LG_DIALECT_OPENAI, 402,
     "{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\",\"param\":null,"
     "\"code\":\"invalid_request_error\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    {"balance_insufficient_403", LG_DIALECT_OPENAI, 403,
     "{\"error\":{\"message\":\"Your account balance is insufficient. Please recharge your account.\","
     "\"type\":\"forbidden\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    {"insufficient_balance_500_is_no_outage", LG_DIALECT_ANTHROPIC, 500,
     "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"insufficient balance (1008)\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    {"credit_balance_too_low_400", LG_DIALECT_ANTHROPIC, 400,
     "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"Your credit balance is too low "
     "to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    /* An account that is not active for billing stays so until someone pays (issue 34's new responses). */
    {"openai_billing_not_active_429", LG_DIALECT_OPENAI, 429,
     "{\"error\":{\"message\":\"Your account is not active, please check your billing details on our website.\","
     "\"type\":\"billing_not_active\",\"param\":null,\"code\":null}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    {"moonshot_exceeded_current_quota_403", LG_DIALECT_OPENAI, 403,
     "{\"error\":{\"message\":\"Your account org-x<ak-y> is not active, organization <org-x> exceeded current "
     "quota, please check your plan and billing details\",\"type\":\"exceeded_current_quota_error\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    {"xai_team_without_credits_403", LG_DIALECT_OPENAI, 403,
     "{\"code\":\"The caller does not have permission to execute the specified operation\",\"error\":\"Your newly "
     "created team doesn't have any credits yet. You can purchase credits on https://console.x.ai/team/t.\"}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    /* A paid plan that lapsed, or a free tier that asks for payment information, comes back only when someone
     * pays. */
    {"zhipu_coding_plan_expired_429", LG_DIALECT_OPENAI, 429,
     "{\"error\":{\"code\":\"1309\",\"message\":\"\xe6\x82\xa8\xe7\x9a\x84 GLM Coding Plan "
     "\xe5\xa5\x97\xe9\xa4\x90\xe5\xb7\xb2\xe5\x88\xb0\xe6\x9c\x9f\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    {"subscription_has_expired_403", LG_DIALECT_OPENAI, 403,
     "{\"error\":{\"message\":\"Your subscription has expired. Renew it to continue.\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    {"dashscope_free_tier_only_403", LG_DIALECT_OPENAI, 403,
     "{\"error\":{\"message\":\"The free quota has been exhausted. To continue accessing the model on a paid basis, "
     "please complete your payment information.\",\"type\":\"AllocationQuota.FreeTierOnly\",\"param\":null,"
     "\"code\":\"AllocationQuota.FreeTierOnly\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_BILLING},
    /* A per-minute 429 that links billing documentation is a rate limit, not an empty account. */
    {"per_minute_429_with_billing_link", LG_DIALECT_OPENAI, 429,
     "{\"error\":{\"message\":\"Rate limit reached for model `llama-3.1-8b-instant` on tokens per minute (TPM): "
     "Limit 6000, Used 5800, Requested 400. Please try again in 2s. Need more tokens? Upgrade to Dev Tier today at "
     "https://console.groq.com/settings/billing\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED, LG_DETAIL_NONE},
    /* Gemini words its per-day and per-minute limits as OpenAI's insufficient_quota message: not billing. */
    {"gemini_current_quota_is_no_billing", LG_DIALECT_GOOGLE, 429,
     "{\"error\":{\"code\":429,\"message\":\"You exceeded your current quota, please check your plan and billing "
     "details.\",\"status\":\"RESOURCE_EXHAUSTED\"}}",
     LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED, LG_DETAIL_NONE},
    {"success_mentioning_balance", LG_DIALECT_OPENAI, 200,
     "{\"id\":\"x\",\"choices\":[{\"message\":{\"content\":\"Your insufficient balance question\"}}]}",
     LG_STATE_SUCCESS, LG_REASON_NONE, LG_DETAIL_NONE},
};

static void classify_case(void **state)
{
    const billing_case *c = *state;
    lg_response_view v = {.status = c->status, .body = c->body, .body_len = strlen(c->body)};
    lg_outcome o;
    lg_classify(c->d, &v, &o);
    print_message("%s: %s %s %s\n", c->name, lg_state_name(o.state), lg_reason_name(o.reason),
                  lg_detail_name(o.detail));
    assert_int_equal(o.state, c->state);
    assert_int_equal(o.reason, c->reason);
    assert_int_equal(o.detail, c->detail);
    assert_false(o.account_rejected);
}

/* A 401 whose message says the credit is used up is no refusal of the key: its account is set aside. */
static void credit_401_is_no_key_refusal(void **state)
{
    (void)state;
    const char *body = "{\"error\":{\"message\":\"Insufficient credits. Add more using https://x/settings/credits\","
                       "\"code\":401}}";
    lg_response_view v = {.status = 401, .body = body, .body_len = strlen(body)};
    lg_outcome o;
    lg_classify(LG_DIALECT_OPENAI, &v, &o);
    assert_int_equal(o.reason, LG_REASON_QUOTA_EXHAUSTED);
    assert_int_equal(o.detail, LG_DETAIL_BILLING);
    assert_false(o.account_rejected);
    assert_string_equal(lg_detail_name(o.detail), "billing");
    lg_detail d = LG_DETAIL_NONE;
    assert_true(lg_detail_parse("billing", &d));
    assert_int_equal(d, LG_DETAIL_BILLING);
    assert_false(lg_detail_parse("credit", &d));
}

/* ---- The set-aside in the policy ---- */

static lg_backoff_conf backoff(void)
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
        .max_hint_ms = 24 * HOUR,
        .billing_ms = 4 * HOUR,
        .key_refused_ms = 3 * HOUR,
    };
    return b;
}

static lg_outcome quota(lg_detail detail, int64_t hint_ms)
{
    lg_outcome o;
    memset(&o, 0, sizeof o);
    o.state = LG_STATE_RETRYABLE_RATE_LIMIT;
    o.reason = LG_REASON_QUOTA_EXHAUSTED;
    o.detail = detail;
    o.retry_after_ms = hint_ms;
    o.retry_at_ms = LG_NO_HINT;
    return o;
}

/* Out of credit: billing_ms aside, said once (the record that began it), lengthened by a longer hint, ended
 * by a success; a new one after it ran out is said again. */
static void billing_sets_the_account_aside(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff();
    lg_account_state st = {0};
    lg_outcome dry = quota(LG_DETAIL_BILLING, LG_NO_HINT);
    assert_true(lg_policy_record(&b, 2, &st, &dry, T0));
    assert_int_equal(st.cooldown_until_ms, T0 + 4 * HOUR);
    assert_int_equal(st.reason, LG_REASON_QUOTA_EXHAUSTED);
    assert_int_equal(st.aside, LG_DETAIL_BILLING);
    /* The same answer to a concurrent request, and a later one while aside: not said again. */
    assert_false(lg_policy_record(&b, 2, &st, &dry, T0 + 1 * SEC));
    assert_false(lg_policy_record(&b, 2, &st, &dry, T0 + 1 * HOUR));
    assert_int_equal(st.aside, LG_DETAIL_BILLING);
    /* A plain quota answer does not end the aside, nor shorten it. */
    lg_outcome plain = quota(LG_DETAIL_NONE, LG_NO_HINT);
    assert_false(lg_policy_record(&b, 2, &st, &plain, T0 + 2 * HOUR));
    assert_int_equal(st.aside, LG_DETAIL_BILLING);
    assert_true(st.cooldown_until_ms >= T0 + 4 * HOUR);
    /* A success (the probe after the aside, once credit was bought) ends it. */
    lg_outcome ok = {.state = LG_STATE_SUCCESS, .retry_after_ms = LG_NO_HINT, .retry_at_ms = LG_NO_HINT};
    assert_false(lg_policy_record(&b, 2, &st, &ok, T0 + 5 * HOUR));
    assert_int_equal(st.aside, LG_DETAIL_NONE);
    assert_int_equal(st.cooldown_until_ms, 0);
    /* Dry again after the aside: a new set-aside, said again; a longer server hint is honoured. */
    lg_outcome dry_hint = quota(LG_DETAIL_BILLING, 6 * HOUR);
    assert_true(lg_policy_record(&b, 2, &st, &dry_hint, T0 + 6 * HOUR));
    assert_int_equal(st.cooldown_until_ms, T0 + 12 * HOUR);
    /* The aside ran out without a success: the next billing answer begins a new one. */
    assert_true(lg_policy_record(&b, 2, &st, &dry, T0 + 13 * HOUR));
    assert_int_equal(st.cooldown_until_ms, T0 + 17 * HOUR);
}

/* A refused key (401): key_refused_ms aside whatever hint the refusal names, said once, not said again for
 * a concurrent or later refusal while aside; a success ends it. A NON_RETRYABLE answer that refuses no key
 * (a 400) changes nothing. */
static void refused_key_sets_the_account_aside(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff();
    lg_account_state st = {0};
    lg_outcome bad = {.state = LG_STATE_NON_RETRYABLE, .reason = LG_REASON_UNKNOWN, .retry_after_ms = LG_NO_HINT,
                      .retry_at_ms = LG_NO_HINT};
    assert_false(lg_policy_record(&b, 2, &st, &bad, T0));
    assert_int_equal(st.cooldown_until_ms, 0);
    bad.account_rejected = true;
    bad.retry_after_ms = 5 * SEC;
    assert_true(lg_policy_record(&b, 2, &st, &bad, T0));
    assert_int_equal(st.cooldown_until_ms, T0 + 3 * HOUR);
    assert_int_equal(st.aside, LG_DETAIL_KEY_REFUSED);
    assert_false(lg_policy_record(&b, 2, &st, &bad, T0 + 1 * SEC));
    assert_false(lg_policy_record(&b, 2, &st, &bad, T0 + 1 * HOUR));
    assert_int_equal(st.aside, LG_DETAIL_KEY_REFUSED);
    assert_int_equal(lg_policy_longest_cooldown_ms(&b), 24 * HOUR);
    b.key_refused_ms = 30 * HOUR;
    assert_int_equal(lg_policy_longest_cooldown_ms(&b), 30 * HOUR); /* the clamp keeps it */
    lg_outcome ok = {.state = LG_STATE_SUCCESS, .retry_after_ms = LG_NO_HINT, .retry_at_ms = LG_NO_HINT};
    assert_false(lg_policy_record(&b, 2, &st, &ok, T0 + 5 * HOUR));
    assert_int_equal(st.aside, LG_DETAIL_NONE);
    assert_string_equal(lg_detail_name(LG_DETAIL_KEY_REFUSED), "key-refused");
}

/* A key first locked for a plain quota (60 s), then found out of credit within the dedup window: the lock
 * becomes the aside (the dedup keeps no billing answer from lengthening it). */
static void billing_after_a_quota_lock_lengthens_it(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff();
    lg_account_state st = {0};
    lg_outcome plain = quota(LG_DETAIL_NONE, LG_NO_HINT), dry = quota(LG_DETAIL_BILLING, LG_NO_HINT);
    assert_false(lg_policy_record(&b, 1, &st, &plain, T0));
    assert_int_equal(st.cooldown_until_ms, T0 + 60 * SEC);
    assert_int_equal(st.aside, LG_DETAIL_NONE);
    assert_true(lg_policy_record(&b, 1, &st, &dry, T0 + 500));
    assert_int_equal(st.cooldown_until_ms, T0 + 500 + 4 * HOUR);
    assert_int_equal(st.aside, LG_DETAIL_BILLING);
    /* A plain quota lock after the aside ended is no aside. */
    assert_false(lg_policy_record(&b, 1, &st, &plain, T0 + 5 * HOUR));
    assert_int_equal(st.aside, LG_DETAIL_NONE);
}

/* The clamp of restored cooldowns keeps an aside of billing_ms, longer than max_hint_ms. */
static void aside_outlives_the_clamp(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff();
    b.max_hint_ms = 1 * HOUR;
    assert_int_equal(lg_policy_longest_cooldown_ms(&b), 4 * HOUR);
    lg_account_state st = {0};
    lg_outcome dry = quota(LG_DETAIL_BILLING, LG_NO_HINT);
    lg_policy_record(&b, 1, &st, &dry, T0);
    assert_false(lg_policy_clamp_cooldown(&b, &st, T0 + 1));
    assert_int_equal(st.cooldown_until_ms, T0 + 4 * HOUR);
}

/* After an out-of-credit answer: another account at once, or, with one account, a give-up (its aside runs
 * past the deadline), which is what sends the request to its fallback. */
static void decide_after_billing(void **state)
{
    (void)state;
    lg_backoff_conf b = backoff();
    lg_retry_conf r = {.switch_on_first_rate_limit = true, .max_rate_limit_wait_ms = 300 * SEC, .max_attempts = 10,
                       .switch_delay_ms = 1 * SEC, .max_server_retries = 2, .fallback_after_ms = 1 * SEC};
    lg_outcome dry = quota(LG_DETAIL_BILLING, LG_NO_HINT);
    lg_account_state two[2] = {{0}, {0}};
    lg_policy_record(&b, 2, &two[0], &dry, T0);
    lg_history h = {.attempts = 1, .started_ms = T0, .replayable = true};
    lg_action a = lg_policy_decide(&r, &b, &dry, two, 2, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_RETRY);
    assert_int_equal(a.account, 1);
    assert_int_equal(a.delay_ms, 0);
    lg_account_state one[1] = {{0}};
    lg_policy_record(&b, 1, &one[0], &dry, T0);
    h = (lg_history){.attempts = 1, .started_ms = T0, .replayable = true};
    a = lg_policy_decide(&r, &b, &dry, one, 1, 0, &h, T0);
    assert_int_equal(a.kind, LG_ACT_GIVE_UP);
}

/* ---- The fallback instead of a wait ---- */

static void fall_back_now_rule(void **state)
{
    (void)state;
    lg_retry_conf r = {.fallback_after_ms = 1000};
    assert_false(lg_policy_fall_back_now(&r, false, 0, 60 * SEC)); /* no fallback: today's wait */
    assert_false(lg_policy_fall_back_now(&r, true, 0, 1000));      /* a wait up to the bound is waited */
    assert_true(lg_policy_fall_back_now(&r, true, 0, 1001));
    assert_false(lg_policy_fall_back_now(&r, true, 700, 300));     /* waits on the provider add up */
    assert_true(lg_policy_fall_back_now(&r, true, 750, 251));
    r.fallback_after_ms = 0; /* never wait on a provider with a fallback */
    assert_true(lg_policy_fall_back_now(&r, true, 0, 1));
    assert_false(lg_policy_fall_back_now(&r, true, 0, 0));
}

int main(void)
{
    struct CMUnitTest tests[sizeof cases / sizeof cases[0] + 7];
    size_t n = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        tests[n++] = (struct CMUnitTest){.name = cases[i].name, .test_func = classify_case,
                                         .initial_state = (void *)&cases[i]};
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(credit_401_is_no_key_refusal);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(billing_sets_the_account_aside);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(refused_key_sets_the_account_aside);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(billing_after_a_quota_lock_lengthens_it);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(aside_outlives_the_clamp);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(decide_after_billing);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(fall_back_now_rule);
    return _cmocka_run_group_tests("billing", tests, n, NULL, NULL);
}
