/* Unit tests for routing rules: parsing and validation of "routes", and which rule a request takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "llmgate/route.h"

#define RULES                                                                                                  \
    "\"routes\": ["                                                                                            \
    " {\"match\": {\"model\": \"gpt-4o\", \"max_prompt_tokens\": 800}, \"set\": {\"model\": \"gpt-4o-mini\"}}," \
    " {\"match\": {\"header\": \"X-Team\", \"program\": \"batch-*\"}, \"refuse\": \"no batch jobs\"},"         \
    " {\"match\": {\"model\": \"claude-*\"}, \"to\": \"anthropic\"},"                                          \
    " {\"match\": {\"program\": \"nightly\"}, \"to\": \"anthropic\", \"set\": {\"model\": \"claude-x\"}}]"

static lg_config *parse(const char *json, char **err)
{
    lg_errors errs = {0};
    lg_config *c = lg_config_parse(json, strlen(json), "t", false, &errs);
    *err = errs.n ? strdup(errs.items[0]) : NULL;
    lg_errors_free(&errs);
    return c;
}

static lg_config *rules(void)
{
    setenv("LGT_RK", "sk-route", 1);
    char *err;
    lg_config *c = parse("{\"providers\": {\"anthropic\": {\"accounts\": [{\"key\": \"env:LGT_RK\"}]}}, " RULES "}", &err);
    if (!c)
        fail_msg("%s", err);
    return c;
}

static bool headers_of(const void *ctx, const char *name)
{
    for (const char *const *h = ctx; *h; h++)
        if (!strcasecmp(*h, name))
            return true;
    return false;
}

static int find(const lg_config *c, const char *model, int64_t tokens, const char *program, const char *const *hdrs)
{
    lg_route_input in = {.model = model, .prompt_tokens = tokens, .program = program,
                         .has_header = hdrs ? headers_of : NULL, .ctx = hdrs};
    return lg_route_find(c, &in);
}

static void test_parsed(void **state)
{
    lg_config *c = rules();
    assert_int_equal(c->n_routes, 4);
    assert_string_equal(c->routes[0].model, "gpt-4o");
    assert_int_equal(c->routes[0].max_prompt_tokens, 800);
    assert_string_equal(c->routes[0].set_model, "gpt-4o-mini");
    assert_null(c->routes[0].to);
    assert_int_equal(c->routes[1].max_prompt_tokens, -1);
    assert_string_equal(c->routes[1].refuse, "no batch jobs");
    assert_string_equal(c->routes[3].to, "anthropic");
    assert_string_equal(c->routes[3].set_model, "claude-x");
    char *out = lg_config_render(c);
    assert_non_null(strstr(out, "\"max_prompt_tokens\": 800"));
    assert_non_null(strstr(out, "\"refuse\": \"no batch jobs\""));
    free(out);
    lg_config_free(c);
}

static void test_first_match_wins(void **state)
{
    lg_config *c = rules();
    static const char *const team[] = {"x-team", NULL}, *const none[] = {NULL};
    assert_int_equal(find(c, "gpt-4o", 800, "curl", NULL), 0);       /* at the bound */
    assert_int_equal(find(c, "gpt-4o", 801, "curl", NULL), -1);      /* a larger prompt: no rule */
    assert_int_equal(find(c, "gpt-4o-mini", 10, "curl", NULL), -1);  /* exact name, not a prefix */
    assert_int_equal(find(c, "claude-3-5", 10, "batch-1", team), 1); /* header (any case) and program glob */
    assert_int_equal(find(c, "claude-3-5", 10, "batch-1", none), 2); /* no header: the next rule */
    assert_int_equal(find(c, "claude-3-5", 10, "other", team), 2);   /* program does not match */
    assert_int_equal(find(c, "gpt-4o", 5, "batch-1", team), 0);      /* the earlier rule wins */
    assert_int_equal(find(c, "", 5, "nightly", NULL), 3);
    assert_int_equal(find(c, "", 5, "", NULL), -1);
    lg_config_free(c);
}

static void test_empty_match_matches_all(void **state)
{
    char *err;
    lg_config *c = parse("{\"routes\": [{\"match\": {}, \"refuse\": \"closed\"}]}", &err);
    assert_non_null(c);
    assert_int_equal(find(c, "anything", 1000000, "p", NULL), 0);
    lg_config_free(c);
}

static void test_errors(void **state)
{
    setenv("LGT_RK", "sk-route", 1);
    static const struct {
        const char *json, *error;
    } cases[] = {
        {"{\"routes\": {}}", "t: routes: expected an array of at most 64 rules, got an object"},
        {"{\"routes\": [{\"match\": {\"model\": \"a\"}}]}", "t: routes[0]: expected an action: \"set\", \"to\" or \"refuse\""},
        {"{\"routes\": [{\"refuse\": \"no\", \"set\": {\"model\": \"m\"}}]}", "t: routes[0]: \"refuse\" answers the request locally"},
        {"{\"routes\": [{\"match\": {\"size\": 1}, \"refuse\": \"no\"}]}", "t: routes[0].match.size: unknown key"},
        {"{\"routes\": [{\"match\": {\"max_prompt_tokens\": -1}, \"refuse\": \"no\"}]}",
         "t: routes[0].match.max_prompt_tokens: expected a non-negative integer"},
        {"{\"routes\": [{\"match\": {\"header\": \"a b\"}, \"refuse\": \"no\"}]}", "t: routes[0].match.header: expected a header name"},
        {"{\"routes\": [{\"set\": {\"model\": \"a b\"}}]}", "t: routes[0].set.model: expected a model name"},
        {"{\"routes\": [{\"set\": {}}]}", "t: routes[0].set: expected \"model\""},
        {"{\"routes\": [{\"to\": \"nowhere\"}]}", "t: routes[0].to: no provider named \"nowhere\""},
        {"{\"routes\": [{\"to\": \"anthropic\"}]}", "t: routes[0].to: \"anthropic\" has an account (\"host\") using the key"},
        {"{\"providers\": {\"dashscope\": {\"accounts\": [{\"key\": \"env:LGT_RK\"}]}}, \"routes\": [{\"to\": \"dashscope\"}]}",
         "t: routes[0].to: \"dashscope\" speaks the dashscope dialect"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err = NULL;
        lg_config *c = parse(cases[i].json, &err);
        if (c || !err || strncmp(err, cases[i].error, strlen(cases[i].error)))
            fail_msg("case %zu: got %s", i, err ? err : "(accepted)");
        free(err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parsed),
        cmocka_unit_test(test_first_match_wins),
        cmocka_unit_test(test_empty_match_matches_all),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
