/* Unit tests for the provider-format error bodies llmgate writes itself (src/gate/synth.c): a rate limit,
 * quota, an outage (overload, server error) and a refusal for good, in each dialect's own shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "llmgate/synth.h"

/* The body of dialect d for an outcome of state s and reason r, parsed (caller deletes). */
static cJSON *body_of(lg_dialect d, int status, lg_state s, lg_reason r)
{
    lg_outcome o;
    memset(&o, 0, sizeof o);
    o.state = s;
    o.reason = r;
    strcpy(o.message, "the provider's words");
    char *text = lg_synth_error_body(d, status, &o, 1500);
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    assert_non_null(doc);
    return doc;
}

/* The string at the path of members under doc ("" when absent or not a string). */
static const char *str_at(const cJSON *doc, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, a);
    if (b)
        v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void test_openai_kinds(void **state)
{
    (void)state;
    cJSON *d = body_of(LG_DIALECT_OPENAI, 429, LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED);
    assert_string_equal(str_at(d, "error", "code"), "rate_limit_exceeded");
    assert_string_equal(str_at(d, "error", "message"), "the provider's words");
    cJSON_Delete(d);
    d = body_of(LG_DIALECT_OPENAI, 429, LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_QUOTA_EXHAUSTED);
    assert_string_equal(str_at(d, "error", "code"), "insufficient_quota");
    cJSON_Delete(d);
    d = body_of(LG_DIALECT_OPENAI, 503, LG_STATE_PROVIDER_DOWN, LG_REASON_SERVER_ERROR);
    assert_string_equal(str_at(d, "error", "type"), "server_error");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "error"), "code")));
    cJSON_Delete(d);
    d = body_of(LG_DIALECT_OPENAI, 400, LG_STATE_NON_RETRYABLE, LG_REASON_UNKNOWN);
    assert_string_equal(str_at(d, "error", "type"), "invalid_request_error");
    cJSON_Delete(d);
}

static void test_anthropic_and_google_outages(void **state)
{
    (void)state;
    cJSON *d = body_of(LG_DIALECT_ANTHROPIC, 429, LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED);
    assert_string_equal(str_at(d, "error", "type"), "rate_limit_error");
    cJSON_Delete(d);
    d = body_of(LG_DIALECT_ANTHROPIC, 529, LG_STATE_PROVIDER_DOWN, LG_REASON_MODEL_CAPACITY_EXHAUSTED);
    assert_string_equal(str_at(d, "error", "type"), "overloaded_error");
    cJSON_Delete(d);
    d = body_of(LG_DIALECT_ANTHROPIC, 500, LG_STATE_PROVIDER_DOWN, LG_REASON_SERVER_ERROR);
    assert_string_equal(str_at(d, "error", "type"), "api_error");
    cJSON_Delete(d);
    d = body_of(LG_DIALECT_GOOGLE, 429, LG_STATE_RETRYABLE_RATE_LIMIT, LG_REASON_RATE_LIMIT_EXCEEDED);
    assert_string_equal(str_at(d, "error", "status"), "RESOURCE_EXHAUSTED");
    cJSON_Delete(d);
    d = body_of(LG_DIALECT_GOOGLE, 503, LG_STATE_PROVIDER_DOWN, LG_REASON_MODEL_CAPACITY_EXHAUSTED);
    assert_string_equal(str_at(d, "error", "status"), "UNAVAILABLE");
    cJSON_Delete(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_openai_kinds),
        cmocka_unit_test(test_anthropic_and_google_outages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
