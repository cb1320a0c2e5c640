/* Token usage wherever providers put it. Two shapes: totals ({prompt_tokens, completion_tokens}: OpenAI,
 * DeepSeek, Groq, Baidu), replaced by each newer object; and per-field counts ({input_tokens,
 * cache_creation_input_tokens, cache_read_input_tokens, output_tokens}: Anthropic, DashScope native,
 * OpenAI Responses), where each field keeps its latest value because Anthropic streams split them
 * across events and report output_tokens cumulatively. */
#include "classify/dialects.h"

static bool count(const cJSON *o, const char *key, int64_t *v)
{
    return lg_json_int(o, key, v) && *v >= 0;
}

void lg_usage_object(lg_cls *c, const cJSON *u)
{
    if (!cJSON_IsObject(u))
        return;
    int64_t p = -1, q = -1;
    bool hp = count(u, "prompt_tokens", &p), hq = count(u, "completion_tokens", &q);
    if (hp || hq) {
        c->usage = LG_USAGE_TOTALS;
        c->prompt = hp ? p : 0;
        c->completion = hq ? q : 0;
        return;
    }
    bool any = false;
    int64_t v;
    if (count(u, "input_tokens", &v))
        c->u_in = v, any = true;
    if (count(u, "cache_creation_input_tokens", &v))
        c->u_cache_w = v, any = true;
    if (count(u, "cache_read_input_tokens", &v))
        c->u_cache_r = v, any = true;
    if (count(u, "output_tokens", &v))
        c->u_out = v, any = true;
    if (any)
        c->usage = LG_USAGE_FIELDS;
}

void lg_usage_scan(lg_cls *c, const cJSON *doc)
{
    if (!cJSON_IsObject(doc))
        return;
    const cJSON *response = cJSON_GetObjectItemCaseSensitive(doc, "response");
    const cJSON *message = cJSON_GetObjectItemCaseSensitive(doc, "message");
    const cJSON *groq = cJSON_GetObjectItemCaseSensitive(doc, "x_groq");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "usageMetadata");
    if (!cJSON_IsObject(meta) && cJSON_IsObject(response))
        meta = cJSON_GetObjectItemCaseSensitive(response, "usageMetadata");
    if (cJSON_IsObject(meta)) {
        lg_google_usage(c, meta);
        return;
    }
    const cJSON *candidates[] = {
        cJSON_GetObjectItemCaseSensitive(doc, "usage"),
        cJSON_IsObject(message) ? cJSON_GetObjectItemCaseSensitive(message, "usage") : NULL,
        cJSON_IsObject(response) ? cJSON_GetObjectItemCaseSensitive(response, "usage") : NULL,
        cJSON_IsObject(groq) ? cJSON_GetObjectItemCaseSensitive(groq, "usage") : NULL,
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (cJSON_IsObject(candidates[i])) {
            lg_usage_object(c, candidates[i]);
            return;
        }
    /* Moonshot streams put usage inside the finishing choice. */
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(doc, "choices");
    const cJSON *ch;
    cJSON_ArrayForEach(ch, (cJSON_IsArray(choices) ? choices : NULL))
    {
        const cJSON *u = cJSON_IsObject(ch) ? cJSON_GetObjectItemCaseSensitive(ch, "usage") : NULL;
        if (cJSON_IsObject(u)) {
            lg_usage_object(c, u);
            return;
        }
    }
}
