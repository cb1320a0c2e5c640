/* Unit tests of the token estimate at admission (src/gate/estimate.c): prompt from the body size, output
 * from each dialect's limit field, the default when absent, the model, and any input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/limiter.h"

static int64_t est(lg_dialect d, const char *body, char model[LG_MODEL_MAX])
{
    return lg_estimate_tokens(d, body, strlen(body), model);
}

/* ceil(bytes / 4) for the prompt. */
static int64_t prompt_of(const char *body)
{
    return (int64_t)((strlen(body) + 3) / 4);
}

static void output_limit_per_dialect(void **state)
{
    (void)state;
    char model[LG_MODEL_MAX];
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
        /* the current OpenAI name wins over the older one when both are present */
        {LG_DIALECT_OPENAI, "{\"max_tokens\":10,\"max_completion_tokens\":20}", 20, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = est(cases[i].d, cases[i].body, model);
        assert_int_equal(got, prompt_of(cases[i].body) + cases[i].output);
        assert_string_equal(model, cases[i].model);
    }
}

static void default_output_when_absent_or_invalid(void **state)
{
    (void)state;
    char model[LG_MODEL_MAX];
    const char *bodies[] = {
        "{\"model\":\"gpt-4o\",\"messages\":[]}",
        "{\"max_tokens\":-5}",
        "{\"max_tokens\":\"many\"}",
        "{\"generationConfig\":7}",
        "not json at all",
        "{\"max_tokens\":12",
        "",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++)
        assert_int_equal(est(LG_DIALECT_OPENAI, bodies[i], model), prompt_of(bodies[i]) + LG_ESTIMATE_DEFAULT_OUTPUT);
}

static void plain_hosts_count_the_body_only(void **state)
{
    (void)state;
    char model[LG_MODEL_MAX];
    const char *body = "{\"max_tokens\":300,\"text\":\"hello\"}";
    assert_int_equal(est(LG_DIALECT_NONE, body, model), prompt_of(body));
    assert_int_equal(lg_estimate_tokens(LG_DIALECT_OPENAI, NULL, 0, model), LG_ESTIMATE_DEFAULT_OUTPUT);
}

static void model_too_long_or_not_a_string_is_empty(void **state)
{
    (void)state;
    char model[LG_MODEL_MAX];
    char body[300];
    char longname[120];
    memset(longname, 'm', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    snprintf(body, sizeof body, "{\"model\":\"%s\",\"max_tokens\":1}", longname);
    est(LG_DIALECT_OPENAI, body, model);
    assert_string_equal(model, "");
    est(LG_DIALECT_OPENAI, "{\"model\":42}", model);
    assert_string_equal(model, "");
}

/* A body that is not NUL-terminated is read only up to its length. */
static void reads_only_len_bytes(void **state)
{
    (void)state;
    char model[LG_MODEL_MAX];
    const char buf[] = "{\"max_tokens\":8}XXXXXXXX";
    assert_int_equal(lg_estimate_tokens(LG_DIALECT_OPENAI, buf, 16, model), 4 + 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_limit_per_dialect),
        cmocka_unit_test(default_output_when_absent_or_invalid),
        cmocka_unit_test(plain_hosts_count_the_body_only),
        cmocka_unit_test(model_too_long_or_not_a_string_is_empty),
        cmocka_unit_test(reads_only_len_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
