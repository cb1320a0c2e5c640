/* The built-in provider presets, their aliases, host pattern matching and dialect names. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "llmgate/preset.h"

static const char *const openai_hosts[] = {"api.openai.com", NULL};
static const char *const azure_hosts[] = {"*.openai.azure.com", "*.cognitiveservices.azure.com",
                                          "*.services.ai.azure.com", NULL};
static const char *const anthropic_hosts[] = {"api.anthropic.com", NULL};
static const char *const gemini_hosts[] = {"generativelanguage.googleapis.com", NULL};
static const char *const cloudcode_hosts[] = {"cloudcode-pa.googleapis.com",
                                              "daily-cloudcode-pa.googleapis.com", NULL};
static const char *const dashscope_hosts[] = {"dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com", NULL};
static const char *const deepseek_hosts[] = {"api.deepseek.com", NULL};
static const char *const ark_hosts[] = {"ark.cn-beijing.volces.com", "ark.ap-southeast.bytepluses.com", NULL};
static const char *const baidu_hosts[] = {"aip.baidubce.com", "qianfan.baidubce.com", NULL};
static const char *const mistral_hosts[] = {"api.mistral.ai", "codestral.mistral.ai", NULL};
static const char *const groq_hosts[] = {"api.groq.com", NULL};
static const char *const openrouter_hosts[] = {"openrouter.ai", NULL};
static const char *const moonshot_hosts[] = {"api.moonshot.cn", "api.moonshot.ai", NULL};
static const char *const xai_hosts[] = {"api.x.ai", NULL};
static const char *const together_hosts[] = {"api.together.xyz", "api.together.ai", NULL};
static const char *const fireworks_hosts[] = {"api.fireworks.ai", NULL};
static const char *const cerebras_hosts[] = {"api.cerebras.ai", NULL};
static const char *const perplexity_hosts[] = {"api.perplexity.ai", NULL};
static const char *const zhipu_hosts[] = {"open.bigmodel.cn", "api.z.ai", NULL};
static const char *const minimax_hosts[] = {"api.minimax.io", "api.minimaxi.com", "api.minimax.chat", NULL};
static const char *const siliconflow_hosts[] = {"api.siliconflow.cn", "api.siliconflow.com", NULL};
static const char *const no_hosts[] = {NULL}; /* a server that runs anywhere: the config names its hosts */

static const lg_preset presets[] = {
    {"openai", openai_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"azure-openai", azure_hosts, LG_AUTH_API_KEY, LG_DIALECT_OPENAI},
    {"anthropic", anthropic_hosts, LG_AUTH_X_API_KEY, LG_DIALECT_ANTHROPIC},
    {"gemini", gemini_hosts, LG_AUTH_X_GOOG_API_KEY, LG_DIALECT_GOOGLE},
    {"google-cloudcode", cloudcode_hosts, LG_AUTH_BEARER, LG_DIALECT_GOOGLE},
    {"dashscope", dashscope_hosts, LG_AUTH_BEARER, LG_DIALECT_DASHSCOPE},
    {"deepseek", deepseek_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"volcengine-ark", ark_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"baidu-qianfan", baidu_hosts, LG_AUTH_BEARER, LG_DIALECT_BAIDU},
    {"mistral", mistral_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"groq", groq_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"openrouter", openrouter_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"moonshot", moonshot_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"xai", xai_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"together", together_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"fireworks", fireworks_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"cerebras", cerebras_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"perplexity", perplexity_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"zhipu", zhipu_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"minimax", minimax_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI}, /* base_resp errors: providers/minimax.c */
    {"siliconflow", siliconflow_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI},
    {"openai-compatible", no_hosts, LG_AUTH_BEARER, LG_DIALECT_OPENAI}, /* Ollama, vLLM, llama.cpp, LM Studio */
};

#define N_PRESETS (sizeof presets / sizeof presets[0])

static const struct {
    const char *alias;
    const char *name;
} aliases[] = {
    {"qwen", "dashscope"},         {"bailian", "dashscope"},      {"ark", "volcengine-ark"},
    {"doubao", "volcengine-ark"},  {"baidu", "baidu-qianfan"},    {"qianfan", "baidu-qianfan"},
    {"ernie", "baidu-qianfan"},    {"moonshot-kimi", "moonshot"}, {"kimi", "moonshot"},
    {"grok", "xai"},               {"together-ai", "together"},   {"glm", "zhipu"},
    {"bigmodel", "zhipu"},         {"z-ai", "zhipu"},             {"ollama", "openai-compatible"},
    {"vllm", "openai-compatible"}, {"llama-cpp", "openai-compatible"}, {"lm-studio", "openai-compatible"},
};

static const char *const dialect_names[] = {"none", "openai", "anthropic", "google", "dashscope", "baidu"};

/* The preset with exactly this canonical name (any case), or NULL. */
static const lg_preset *find_canonical(const char *name)
{
    for (size_t i = 0; i < N_PRESETS; i++)
        if (!strcasecmp(presets[i].name, name))
            return &presets[i];
    return NULL;
}

const lg_preset *lg_preset_find(const char *name)
{
    if (!name)
        return NULL;
    const lg_preset *p = find_canonical(name);
    if (p)
        return p;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcasecmp(aliases[i].alias, name))
            return find_canonical(aliases[i].name);
    return NULL;
}

const lg_preset *lg_preset_all(size_t *n)
{
    if (n)
        *n = N_PRESETS;
    return presets;
}

bool lg_host_matches(const char *pattern, const char *host)
{
    if (!pattern || !host || !*host)
        return false;
    if (pattern[0] == '*' && pattern[1] == '.') {
        const char *suffix = pattern + 1; /* ".openai.azure.com" */
        size_t hl = strlen(host), sl = strlen(suffix);
        /* Needs at least one label before the suffix: "x.openai.azure.com", never "openai.azure.com". */
        return hl > sl && host[hl - sl - 1] != '.' && !strcasecmp(host + hl - sl, suffix);
    }
    return !strcasecmp(pattern, host);
}

const char *lg_dialect_name(lg_dialect d)
{
    if ((unsigned)d < sizeof dialect_names / sizeof dialect_names[0])
        return dialect_names[d];
    return "none";
}

bool lg_dialect_parse(const char *name, lg_dialect *out)
{
    if (!name)
        return false;
    for (size_t i = 0; i < sizeof dialect_names / sizeof dialect_names[0]; i++)
        if (!strcasecmp(dialect_names[i], name)) {
            if (out)
                *out = (lg_dialect)i;
            return true;
        }
    return false;
}
