/* Token estimates at admission (see limiter.h): about 4 bytes of body per prompt token, plus the output
 * limit the request asks for. */
#include <string.h>

#include <cjson/cJSON.h>

#include "llmgate/limiter.h"

#define PARSE_MAX (8u << 20) /* bodies larger than this are not parsed: the default output is assumed */

/* Where each dialect's requests name their output limit, most specific first. Every path is tried for
 * every dialect, since OpenAI-compatible gateways accept each other's names. */
static const char *const output_paths[][3] = {
    {"max_completion_tokens", NULL, NULL},                         /* OpenAI chat (current name) */
    {"max_tokens", NULL, NULL},                                    /* OpenAI chat, Anthropic, compatibles */
    {"max_output_tokens", NULL, NULL},                             /* OpenAI Responses, Baidu ERNIE */
    {"generationConfig", "maxOutputTokens", NULL},                 /* Gemini */
    {"request", "generationConfig", "maxOutputTokens"},            /* Cloud Code */
    {"parameters", "max_tokens", NULL},                            /* DashScope native */
};

/* The non-negative integer at path in doc, or -1. */
static int64_t int_at(const cJSON *doc, const char *const path[3])
{
    const cJSON *v = doc;
    for (int i = 0; i < 3 && path[i] && v; i++)
        v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, path[i]) : NULL;
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e12)
        return -1;
    return (int64_t)v->valuedouble;
}

int64_t lg_estimate_tokens(lg_dialect d, const char *body, size_t len, char model[LG_MODEL_MAX])
{
    model[0] = '\0';
    int64_t prompt = (int64_t)((len + 3) / 4);
    if (d == LG_DIALECT_NONE)
        return prompt;
    int64_t output = -1;
    size_t i = 0;
    while (body && i < len && (body[i] == ' ' || body[i] == '\t' || body[i] == '\r' || body[i] == '\n'))
        i++;
    cJSON *doc = body && i < len && body[i] == '{' && len <= PARSE_MAX ? cJSON_ParseWithLength(body, len) : NULL;
    if (doc) {
        for (size_t p = 0; output < 0 && p < sizeof output_paths / sizeof output_paths[0]; p++)
            output = int_at(doc, output_paths[p]);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "model");
        if (cJSON_IsString(m) && strlen(m->valuestring) < LG_MODEL_MAX)
            strcpy(model, m->valuestring);
        cJSON_Delete(doc);
    }
    return prompt + (output >= 0 ? output : LG_ESTIMATE_DEFAULT_OUTPUT);
}
