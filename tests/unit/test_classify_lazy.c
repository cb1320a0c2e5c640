/* The lazy reading of success bodies: the usage it finds equals the full parse's on bodies written to
 * trip a naive scanner (braces and quotes inside strings, nested usage-like objects, numeric strings,
 * truncation), it hands anything error-like back to the full parse, and classifying a success body
 * allocates nothing through cJSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classify/dialects.h"
#include "llmgate/classify.h"

/* Usage the full parse finds in a document (the reference). */
static lg_cls full(const char *body)
{
    lg_cls c;
    lg_cls_init(&c, LG_DIALECT_OPENAI);
    cJSON *doc = cJSON_Parse(body);
    assert_non_null(doc);
    lg_usage_scan(&c, doc);
    cJSON_Delete(doc);
    return c;
}

static void same_usage(const lg_cls *a, const lg_cls *b)
{
    assert_int_equal(a->usage, b->usage);
    assert_int_equal(a->prompt, b->prompt);
    assert_int_equal(a->completion, b->completion);
    assert_int_equal(a->u_in, b->u_in);
    assert_int_equal(a->u_cache_w, b->u_cache_w);
    assert_int_equal(a->u_cache_r, b->u_cache_r);
    assert_int_equal(a->u_out, b->u_out);
}

/* Bodies the lazy path must read itself, with the full parse's result. */
static const char *const taken[] = {
    "{\"id\":\"a\",\"choices\":[{\"message\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":30,"
    "\"prompt_tokens_details\":{\"cached_tokens\":4},\"completion_tokens_details\":{\"reasoning_tokens\":20}}}",
    "{\"note\":\"} ] { [ \\\" , : tricky\",\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":\"7\",\"output_tokens\":3}}",
    " \n{ \"usage\" : { \"prompt_tokens\" : 5.0 , \"completion_tokens\" : -1 } , \"model\" : \"m\" }\n",
    "{\"usageMetadata\":{\"promptTokenCount\":9,\"candidatesTokenCount\":5,\"thoughtsTokenCount\":4},\"candidates\":[]}",
    "{\"id\":\"no-usage\",\"choices\":[]}",
    "{}",
};

static void test_lazy_equals_full_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        lg_cls lazy;
        lg_cls_init(&lazy, LG_DIALECT_OPENAI);
        assert_true(lg_lazy_success(&lazy, taken[i], strlen(taken[i])));
        lg_cls ref = full(taken[i]);
        same_usage(&lazy, &ref);
    }
}

/* Bodies the lazy path must hand back: error-like members, usage below the top level, malformed text. */
static const char *const handed_back[] = {
    "{\"error\":{\"message\":\"x\"}}",
    "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}",
    "{\"object\":\"error\",\"message\":\"x\"}",
    "{\"error_code\":18,\"error_msg\":\"qps\"}",
    "{\"code\":\"Throttling\",\"message\":\"x\"}",
    "{\"response\":{\"usageMetadata\":{\"promptTokenCount\":1}}}",
    "{\"choices\":[{\"finish_reason\":\"stop\",\"usage\":{\"prompt_tokens\":3}}]}",
    "{\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}",
    "{\"usage\":{\"prompt_tokens\" 1}}",
    "{\"a\":\"unterminated}",
    "[{\"usage\":{}}]",
    "{\"usage\":{\"prompt_tokens\":1e3,\"completion_tokens\":2}}",
    "{\"usage\":{\"prompt_tokens\":12.5}}",
};

static void test_error_like_and_malformed_go_to_full_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof handed_back / sizeof handed_back[0]; i++) {
        lg_cls c;
        lg_cls_init(&c, LG_DIALECT_OPENAI);
        if (lg_lazy_success(&c, handed_back[i], strlen(handed_back[i])))
            fail_msg("lazy path kept: %s", handed_back[i]);
    }
}

/* String and bracket ends, escapes counted: an even run of backslashes before a quote ends the string. */
static void test_string_and_value_ends(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t end;
    } strings[] = {
        {"\"abc\" tail", 5},   {"\"a\\\"b\"x", 6},   {"\"a\\\\\"x", 5}, {"\"\\\\\\\"\"", 6},
        {"\"abc\\\"", 0},    {"\"abc", 0},          {"\"\"", 2},
    };
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        assert_int_equal(lg_json_string_end(strings[i].text, strlen(strings[i].text), 0), strings[i].end);
    const char *v = "{\"a\":\"}\\\"]\",\"b\":[1,{\"c\":\"\\\\\"}]} rest";
    assert_int_equal(lg_json_value_end(v, strlen(v), 0), strlen(v) - 5);
    assert_int_equal(lg_json_value_end(v, strlen(v) - 6, 0), 0); /* cut before its last bracket */
}

static int allocations;
static void *counting_malloc(size_t n)
{
    allocations++;
    return malloc(n);
}

static lg_outcome classify(const char *body)
{
    lg_response_view v = {.status = 200, .body = body, .body_len = strlen(body)};
    lg_outcome o;
    lg_classify(LG_DIALECT_OPENAI, &v, &o);
    return o;
}

static void test_success_body_allocates_nothing(void **state)
{
    (void)state;
    cJSON_Hooks hooks = {counting_malloc, free};
    cJSON_InitHooks(&hooks);
    allocations = 0;
    lg_outcome o = classify(taken[0]);
    int on_success = allocations;
    allocations = 0;
    lg_outcome e = classify("{\"error\":{\"message\":\"Rate limit reached\",\"code\":\"rate_limit_exceeded\"}}");
    int on_error = allocations;
    cJSON_InitHooks(NULL);
    assert_int_equal(o.state, LG_STATE_SUCCESS);
    assert_true(o.has_usage);
    assert_int_equal(o.prompt_tokens, 12);
    assert_int_equal(o.completion_tokens, 30);
    assert_int_equal(on_success, 0);
    assert_int_equal(e.state, LG_STATE_RETRYABLE_RATE_LIMIT);
    assert_true(on_error > 0); /* the hook sees the full parse */
}

/* Generated documents (a fixed pseudo-random sequence of members whose values hold quotes, escapes,
 * brackets inside strings, nested arrays, numbers in every spelling and usage objects in any place): the
 * lazy path either hands a document back or finds the full parse's usage, and hands back every cut of
 * one. */
static const char *const gen_keys[] = {"id", "model", "choices", "usage", "usageMetadata", "note", "data", "x"};
static const char *const gen_values[] = {
    "\"plain\"", "\"a \\\"quoted\\\" {brace} [bracket]\"", "\"ends in \\\\\"", "\"h\xc3\xa9 \\u00e9\"", "12", "-3", "1e3", "12.0",
    "null", "true", "[[1,[2,[\"]\"]]],{}]", "{\"a\":{\"b\":[\"}\"]}}", "[{\"usage\":{\"prompt_tokens\":1}}]",
    "{\"prompt_tokens\":12,\"completion_tokens\":\"30\",\"details\":{\"cached_tokens\":4}}",
    "{\"input_tokens\":10,\"cache_read_input_tokens\":7,\"output_tokens\":3}",
    "{\"promptTokenCount\":9,\"candidatesTokenCount\":5}", "\"usage\"", "{\"prompt_tokens\":1.5}",
};

static unsigned gen_next(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

static void test_lazy_agrees_with_full_parse_on_generated_documents(void **state)
{
    (void)state;
    unsigned seed = 12;
    int taken_count = 0;
    for (int doc = 0; doc < 400; doc++) {
        char body[2048] = "{";
        int members = (int)(gen_next(&seed) % 6);
        unsigned used = 0; /* each key once: with duplicates the two readers pick different members */
        for (int m = 0; m < members; m++) {
            unsigned ki = gen_next(&seed) % (sizeof gen_keys / sizeof gen_keys[0]);
            while (used & (1u << ki))
                ki = (ki + 1) % (sizeof gen_keys / sizeof gen_keys[0]);
            used |= 1u << ki;
            const char *k = gen_keys[ki];
            const char *v = gen_values[gen_next(&seed) % (sizeof gen_values / sizeof gen_values[0])];
            snprintf(body + strlen(body), sizeof body - strlen(body), "%s%s\"%s\" : %s", m ? "," : "",
                     gen_next(&seed) % 2 ? " " : "\n", k, v);
        }
        strcat(body, "}");
        lg_cls lazy;
        lg_cls_init(&lazy, LG_DIALECT_OPENAI);
        if (lg_lazy_success(&lazy, body, strlen(body))) {
            lg_cls ref = full(body);
            same_usage(&lazy, &ref);
            taken_count++;
        }
        for (size_t cut = 0; cut + 1 < strlen(body); cut++) {
            lg_cls c;
            lg_cls_init(&c, LG_DIALECT_OPENAI);
            if (lg_lazy_success(&c, body, cut))
                fail_msg("a cut of %s was taken at %zu", body, cut);
        }
    }
    assert_true(taken_count > 50); /* the generator reaches the lazy path */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_equals_full_parse),
        cmocka_unit_test(test_error_like_and_malformed_go_to_full_parse),
        cmocka_unit_test(test_success_body_allocates_nothing),
        cmocka_unit_test(test_string_and_value_ends),
        cmocka_unit_test(test_lazy_agrees_with_full_parse_on_generated_documents),
    };
    return cmocka_run_group_tests_name("classify_lazy", tests, NULL, NULL);
}
