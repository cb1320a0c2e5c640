/* Unit tests of the token estimate at admission (src/limiter/estimate.c): one scan of the body counting the
 * text the provider tokenizes (not the JSON envelope), the output limit per dialect times the number of
 * choices, the default when absent, the model, and any input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/limiter.h"

static lg_estimate scan(lg_dialect d, const char *body)
{
    lg_estimate e;
    lg_estimate_scan(d, body, strlen(body), &e);
    return e;
}

/* ceil(bytes / 4) for the envelope. */
static int64_t envelope_of(const char *body)
{
    return (int64_t)((strlen(body) + 3) / 4);
}

static void output_limit_per_dialect(void **state)
{
    (void)state;
    const struct {
        lg_dialect d;
        const char *body;
        int64_t output;
        const char *model;
    } cases[] = {
        {LG_DIALECT_OPENAI, "{\"model\":\"gpt-4o\",\"max_tokens\":300,\"messages\":[]}", 300, "gpt-4o"},
        {LG_DIALECT_OPENAI, "{\"model\":\"o1-mini\",\"max_completion_tokens\":5000}", 5000, "o1-mini"},
        {LG_DIALECT_OPENAI, "{\"model\":\"gpt-4.1\",\"input\":\"hi\",\"max_output_tokens\":77}", 77, "gpt-4.1"},
        {LG_DIALECT_ANTHROPIC, "{\"model\":\"claude-3-5-haiku\",\"max_tokens\":1024,\"messages\":[]}", 1024,
         "claude-3-5-haiku"},
        {LG_DIALECT_GOOGLE, "{\"contents\":[],\"generationConfig\":{\"maxOutputTokens\":64}}", 64, ""},
        {LG_DIALECT_GOOGLE, "{\"model\":\"gemini-2.5-pro\",\"request\":{\"generationConfig\":{\"maxOutputTokens\":99}}}",
         99, "gemini-2.5-pro"},
        {LG_DIALECT_DASHSCOPE, "{\"model\":\"qwen-max\",\"input\":{},\"parameters\":{\"max_tokens\":12}}", 12,
         "qwen-max"},
        {LG_DIALECT_BAIDU, "{\"messages\":[],\"max_output_tokens\":2048}", 2048, ""},
        /* the current OpenAI name wins over the older one, whatever the order */
        {LG_DIALECT_OPENAI, "{\"max_tokens\":10,\"max_completion_tokens\":20}", 20, ""},
        /* n choices of max_tokens each; Gemini's candidateCount */
        {LG_DIALECT_OPENAI, "{\"n\":3,\"max_tokens\":100}", 300, ""},
        {LG_DIALECT_GOOGLE, "{\"generationConfig\":{\"candidateCount\":2,\"maxOutputTokens\":50}}", 100, ""},
        /* a nested max_tokens (inside a message) is not the request's */
        {LG_DIALECT_OPENAI, "{\"messages\":[{\"max_tokens\":9}],\"max_tokens\":40}", 40, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lg_estimate e = scan(cases[i].d, cases[i].body);
        assert_int_equal(e.output, cases[i].output);
        assert_string_equal(e.model, cases[i].model);
        assert_int_equal(e.envelope, envelope_of(cases[i].body));
    }
}

/* The text the provider tokenizes: 3 + per counted string ceil(bytes / 4) + 1. Roles, types, the model,
 * ids, base64 data and data: URLs are envelope; tool schemas count whole, keys included. */
static void text_counts_what_the_provider_tokenizes(void **state)
{
    (void)state;
    const struct {
        const char *body;
        int64_t text;
    } cases[] = {
        {"{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", 3 + 2},
        {"{\"messages\":[{\"role\":\"system\",\"content\":\"12345678\"},{\"role\":\"user\",\"content\":\"abcde\"}]}",
         3 + 3 + 3},
        /* content parts: the text counts, the type and the inline image do not */
        {"{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"abcd\"},"
         "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AAAAAAAAAAAAAAAA\"}}]}]}",
         3 + 2},
        /* Anthropic system and an image source */
        {"{\"system\":\"be brief\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":"
         "{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"QUFBQUFBQUFBQUFBQUFB\"}}]}]}",
         3 + 3},
        /* Gemini parts */
        {"{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hello world\"}]}]}", 3 + 4},
        /* a tool schema: every key and string under tools counts */
        {"{\"tools\":[{\"type\":\"function\"}]}", 3 + (2 + 3)},
        /* numbers and literals are not text */
        {"{\"temperature\":0.5,\"stream\":true,\"stop\":null}", 3},
        /* escapes are counted by their raw bytes */
        {"{\"input\":\"a\\\"b\"}", 3 + 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(scan(LG_DIALECT_OPENAI, cases[i].body).text, cases[i].text);
}

static void no_output_and_envelope_when_absent_or_invalid(void **state)
{
    (void)state;
    const char *bodies[] = {
        "{\"model\":\"gpt-4o\",\"messages\":[]}",
        "{\"max_tokens\":-5}",
        "{\"max_tokens\":\"many\"}",
        "{\"generationConfig\":7}",
        "not json at all",
        "{\"max_tokens\":12",
        "{\"messages\":[{\"content\":\"unterminated}]}",
        "[1,2]",
        "",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        lg_estimate e = scan(LG_DIALECT_OPENAI, bodies[i]);
        assert_int_equal(e.output, -1);
        assert_int_equal(e.envelope, envelope_of(bodies[i]));
    }
    /* a body that does not scan falls back to the envelope as its text */
    lg_estimate e = scan(LG_DIALECT_OPENAI, "{\"max_tokens\":12");
    assert_int_equal(e.text, e.envelope);
}

static void plain_hosts_count_the_body_only(void **state)
{
    (void)state;
    const char *body = "{\"max_tokens\":300,\"text\":\"hello\"}";
    lg_estimate e = scan(LG_DIALECT_NONE, body);
    assert_int_equal(e.output, -1);
    assert_int_equal(e.text, envelope_of(body));
    lg_estimate_scan(LG_DIALECT_OPENAI, NULL, 10, &e);
    assert_int_equal(e.envelope, 0);
    assert_int_equal(e.output, -1);
}

static void model_too_long_escaped_or_not_a_string_is_empty(void **state)
{
    (void)state;
    char body[300];
    char longname[120];
    memset(longname, 'm', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    snprintf(body, sizeof body, "{\"model\":\"%s\",\"max_tokens\":1}", longname);
    assert_string_equal(scan(LG_DIALECT_OPENAI, body).model, "");
    assert_string_equal(scan(LG_DIALECT_OPENAI, "{\"model\":42}").model, "");
    assert_string_equal(scan(LG_DIALECT_OPENAI, "{\"model\":\"a\\\"b\"}").model, "");
    /* only the top-level model names the request's */
    assert_string_equal(scan(LG_DIALECT_OPENAI, "{\"x\":{\"model\":\"inner\"},\"model\":\"outer\"}").model, "outer");
}

/* A body that is not NUL-terminated is read only up to its length; deep nesting is refused, not recursed. */
static void reads_only_len_bytes_and_bounded_depth(void **state)
{
    (void)state;
    lg_estimate e;
    const char buf[] = "{\"max_tokens\":8}XXXXXXXX";
    lg_estimate_scan(LG_DIALECT_OPENAI, buf, 16, &e);
    assert_int_equal(e.output, 8);
    assert_int_equal(e.envelope, 4);
    char deep[2100];
    size_t n = 0;
    n += (size_t)snprintf(deep, sizeof deep, "{\"max_tokens\":5,\"a\":");
    for (int i = 0; i < 1000; i++)
        deep[n++] = '[';
    for (int i = 0; i < 1000; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    deep[n] = '\0';
    e = scan(LG_DIALECT_OPENAI, deep);
    assert_int_equal(e.output, -1);
    assert_int_equal(e.text, e.envelope);
}

/* Bodies written to trip a byte scanner: quotes, braces and brackets inside strings, escapes before a
 * closing quote, multi-byte text, number spellings read by value, truncation. text = 3 + per counted
 * string ceil(raw bytes / 4) + 1. */
static void tricky_bodies_read_by_value(void **state)
{
    (void)state;
    const struct {
        const char *body;
        int64_t text, output;
        const char *model;
    } cases[] = {
        /* content a\"b{c}: 7 raw bytes -> 3 */
        {"{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\\\"b{c}\"}]}", 6, -1, "m"},
        /* text [[\"x\"]]: 9 raw bytes -> 4; n = 3 choices */
        {"{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[[\\\"x\\\"]]\"}]}],"
         "\"max_tokens\":100,\"n\":3}",
         7, 300, ""},
        /* h\u00e9llo w\u00f6rld in UTF-8: 13 bytes -> 5; two candidates */
        {"{\"contents\":[{\"parts\":[{\"text\":\"h\xc3\xa9llo w\xc3\xb6rld\"}]}],"
         "\"generationConfig\":{\"maxOutputTokens\":50,\"candidateCount\":2}}",
         8, 100, ""},
        /* an even run of backslashes ends the string: abc\\ is 5 raw bytes -> 3 */
        {"{\"messages\":\"abc\\\\\",\"max_tokens\":0012}", 6, 12, ""},
        {"{\"max_tokens\":1e3}", 3, 1000, ""},
        {"{\"max_tokens\":12.9}", 3, 12, ""},
        {"{\"max_tokens\":1000000000000}", 3, 1000000000000, ""},
        {"{\"max_tokens\":1000000000001,\"max_output_tokens\":5}", 3, 5, ""},
        {"{\"max_tokens\":99999999999999}", 3, -1, ""},
        {"{\"max_tokens\":-4}", 3, -1, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lg_estimate e = scan(LG_DIALECT_OPENAI, cases[i].body);
        if (e.text != cases[i].text || e.output != cases[i].output || strcmp(e.model, cases[i].model))
            fail_msg("case %zu: text %lld output %lld model %s", i, (long long)e.text, (long long)e.output, e.model);
    }
    /* every cut of a body is not an object: the envelope, no output, no model */
    const char *whole = cases[0].body;
    for (size_t cut = 0; cut < strlen(whole); cut++) {
        lg_estimate e;
        lg_estimate_scan(LG_DIALECT_OPENAI, whole, cut, &e);
        assert_int_equal(e.text, (int64_t)((cut + 3) / 4));
        assert_int_equal(e.output, -1);
        assert_string_equal(e.model, "");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_limit_per_dialect),
        cmocka_unit_test(text_counts_what_the_provider_tokenizes),
        cmocka_unit_test(no_output_and_envelope_when_absent_or_invalid),
        cmocka_unit_test(plain_hosts_count_the_body_only),
        cmocka_unit_test(model_too_long_escaped_or_not_a_string_is_empty),
        cmocka_unit_test(reads_only_len_bytes_and_bounded_depth),
        cmocka_unit_test(tricky_bodies_read_by_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
