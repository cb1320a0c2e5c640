/* Built-in knowledge of each provider: its hosts, how its key travels, which error dialect it speaks. */
#ifndef LLMGATE_PRESET_H
#define LLMGATE_PRESET_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    LG_DIALECT_NONE = 0, /* plain host rule: admission only, no classification */
    LG_DIALECT_OPENAI,   /* OpenAI and every OpenAI-compatible API (Azure, DeepSeek, Groq, Mistral, ...) */
    LG_DIALECT_ANTHROPIC,
    LG_DIALECT_GOOGLE,   /* Gemini API, Cloud Code, Vertex: google.rpc.Status errors */
    LG_DIALECT_DASHSCOPE,/* Alibaba DashScope native API */
    LG_DIALECT_BAIDU,    /* Baidu Qianfan / ERNIE (errors inside HTTP 200 bodies) */
} lg_dialect;

typedef enum {
    LG_AUTH_BEARER = 0,     /* Authorization: Bearer KEY */
    LG_AUTH_X_API_KEY,      /* x-api-key: KEY */
    LG_AUTH_X_GOOG_API_KEY, /* x-goog-api-key: KEY */
    LG_AUTH_API_KEY,        /* api-key: KEY (Azure) */
    LG_AUTH_QUERY_KEY,      /* ?key=KEY */
} lg_auth_style;

typedef struct {
    const char *name;
    const char *const *hosts; /* NULL-terminated; "*.suffix" matches any subdomain; empty for a server that
                               * runs anywhere (openai-compatible), whose hosts the config gives */
    lg_auth_style auth;       /* how a key is added when the request carries none */
    lg_dialect dialect;
} lg_preset;

/* The preset with that name (aliases such as "qwen", "moonshot-kimi" accepted), or NULL. */
const lg_preset *lg_preset_find(const char *name);
/* All presets, in a stable order; *n receives the count. */
const lg_preset *lg_preset_all(size_t *n);
/* True when host (no port, any case) matches pattern ("api.openai.com" or "*.openai.azure.com"). */
bool lg_host_matches(const char *pattern, const char *host);

const char *lg_dialect_name(lg_dialect d);
bool lg_dialect_parse(const char *name, lg_dialect *out);

#endif
