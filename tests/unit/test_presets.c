/* Unit tests for the provider presets: lookup with aliases, host matching, dialect names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "llmgate/preset.h"

static void test_every_preset_by_name(void **state)
{
    static const struct {
        const char *name, *host;
        lg_auth_style auth;
        lg_dialect dialect;
    } want[] = {
        {"openai", "api.openai.com", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"azure-openai", "*.openai.azure.com", LG_AUTH_API_KEY, LG_DIALECT_OPENAI},
        {"anthropic", "api.anthropic.com", LG_AUTH_X_API_KEY, LG_DIALECT_ANTHROPIC},
        {"gemini", "generativelanguage.googleapis.com", LG_AUTH_X_GOOG_API_KEY, LG_DIALECT_GOOGLE},
        {"google-cloudcode", "cloudcode-pa.googleapis.com", LG_AUTH_BEARER, LG_DIALECT_GOOGLE},
        {"dashscope", "dashscope.aliyuncs.com", LG_AUTH_BEARER, LG_DIALECT_DASHSCOPE},
        {"deepseek", "api.deepseek.com", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"volcengine-ark", "ark.cn-beijing.volces.com", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"baidu-qianfan", "aip.baidubce.com", LG_AUTH_BEARER, LG_DIALECT_BAIDU},
        {"mistral", "api.mistral.ai", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"groq", "api.groq.com", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"openrouter", "openrouter.ai", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"moonshot", "api.moonshot.cn", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"xai", "api.x.ai", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"together", "api.together.xyz", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"fireworks", "api.fireworks.ai", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"cerebras", "api.cerebras.ai", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"perplexity", "api.perplexity.ai", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"zhipu", "open.bigmodel.cn", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"minimax", "api.minimax.io", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"siliconflow", "api.siliconflow.cn", LG_AUTH_BEARER, LG_DIALECT_OPENAI},
        {"openai-compatible", NULL, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    };
    size_t n = 0;
    const lg_preset *all = lg_preset_all(&n);
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++) {
        const lg_preset *p = lg_preset_find(want[i].name);
        assert_non_null(p);
        assert_ptr_equal(p, &all[i]);
        assert_string_equal(p->name, want[i].name);
        if (want[i].host)
            assert_string_equal(p->hosts[0], want[i].host);
        else
            assert_null(p->hosts[0]); /* runs anywhere: the config names its hosts */
        assert_int_equal(p->auth, want[i].auth);
        assert_int_equal(p->dialect, want[i].dialect);
    }
}

static void test_aliases_and_case(void **state)
{
    static const char *const pairs[][2] = {
        {"qwen", "dashscope"},          {"bailian", "dashscope"},     {"ark", "volcengine-ark"},
        {"doubao", "volcengine-ark"},   {"baidu", "baidu-qianfan"},   {"qianfan", "baidu-qianfan"},
        {"ernie", "baidu-qianfan"},     {"moonshot-kimi", "moonshot"}, {"kimi", "moonshot"},
        {"OpenAI", "openai"},           {"QWEN", "dashscope"},
        {"grok", "xai"},                {"together-ai", "together"},  {"glm", "zhipu"},
        {"bigmodel", "zhipu"},          {"z-ai", "zhipu"},            {"ollama", "openai-compatible"},
        {"vllm", "openai-compatible"},  {"llama-cpp", "openai-compatible"}, {"lm-studio", "openai-compatible"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const lg_preset *p = lg_preset_find(pairs[i][0]);
        assert_non_null(p);
        assert_string_equal(p->name, pairs[i][1]);
    }
    assert_null(lg_preset_find("fooo"));
    assert_null(lg_preset_find(""));
    assert_null(lg_preset_find(NULL));
    assert_null(lg_preset_find("openai "));
}

static void test_all_hosts_listed(void **state)
{
    const lg_preset *az = lg_preset_find("azure-openai");
    assert_string_equal(az->hosts[1], "*.cognitiveservices.azure.com");
    assert_string_equal(az->hosts[2], "*.services.ai.azure.com");
    assert_null(az->hosts[3]);
    assert_string_equal(lg_preset_find("google-cloudcode")->hosts[1], "daily-cloudcode-pa.googleapis.com");
    assert_string_equal(lg_preset_find("dashscope")->hosts[1], "dashscope-intl.aliyuncs.com");
    assert_string_equal(lg_preset_find("volcengine-ark")->hosts[1], "ark.ap-southeast.bytepluses.com");
    assert_string_equal(lg_preset_find("baidu-qianfan")->hosts[1], "qianfan.baidubce.com");
    assert_string_equal(lg_preset_find("mistral")->hosts[1], "codestral.mistral.ai");
    assert_string_equal(lg_preset_find("moonshot")->hosts[1], "api.moonshot.ai");
    assert_string_equal(lg_preset_find("together")->hosts[1], "api.together.ai");
    assert_string_equal(lg_preset_find("zhipu")->hosts[1], "api.z.ai");
    assert_string_equal(lg_preset_find("minimax")->hosts[1], "api.minimaxi.com");
    assert_string_equal(lg_preset_find("minimax")->hosts[2], "api.minimax.chat");
    assert_string_equal(lg_preset_find("siliconflow")->hosts[1], "api.siliconflow.com");
}

static void test_host_matching(void **state)
{
    assert_true(lg_host_matches("api.openai.com", "api.openai.com"));
    assert_true(lg_host_matches("api.openai.com", "API.OpenAI.com"));
    assert_false(lg_host_matches("api.openai.com", "api.openai.com.evil.net"));
    assert_false(lg_host_matches("api.openai.com", "xapi.openai.com"));
    assert_false(lg_host_matches("api.openai.com", ""));
    assert_true(lg_host_matches("*.openai.azure.com", "myres.openai.azure.com"));
    assert_true(lg_host_matches("*.openai.azure.com", "a.b.OPENAI.azure.com"));
    assert_false(lg_host_matches("*.openai.azure.com", "openai.azure.com"));
    assert_false(lg_host_matches("*.openai.azure.com", "evilopenai.azure.com"));
    assert_false(lg_host_matches("*.openai.azure.com", ".openai.azure.com"));
    assert_false(lg_host_matches("*.openai.azure.com", "x.openai.azure.com.evil.net"));
    assert_false(lg_host_matches(NULL, "api.openai.com"));
    assert_false(lg_host_matches("api.openai.com", NULL));
}

static void test_dialect_names(void **state)
{
    static const char *const names[] = {"none", "openai", "anthropic", "google", "dashscope", "baidu"};
    for (int i = 0; i < 6; i++) {
        lg_dialect d;
        assert_string_equal(lg_dialect_name((lg_dialect)i), names[i]);
        assert_true(lg_dialect_parse(names[i], &d));
        assert_int_equal(d, i);
    }
    lg_dialect d = LG_DIALECT_OPENAI;
    assert_false(lg_dialect_parse("klingon", &d));
    assert_false(lg_dialect_parse(NULL, &d));
    assert_int_equal(d, LG_DIALECT_OPENAI);
    assert_string_equal(lg_dialect_name((lg_dialect)99), "none");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_preset_by_name), cmocka_unit_test(test_aliases_and_case),
        cmocka_unit_test(test_all_hosts_listed),     cmocka_unit_test(test_host_matching),
        cmocka_unit_test(test_dialect_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
