/* Token usage wherever providers put it (Cohere nests its per-field counts in tokens and billed_units, Ollama
 * puts prompt_eval_count and eval_count at the top level). Two shapes: totals ({prompt_tokens, completion_tokens}: OpenAI,
 * DeepSeek, Groq, Baidu; Gemini's usageMetadata: prompt + tool-use prompt, candidates + thoughts), replaced
 * by each newer object (a stream's last one counts); and per-field counts
 * ({input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens}: Anthropic, DashScope
 * native, OpenAI Responses; Bedrock Converse's camelCase inputTokens, cacheReadInputTokens, cacheWriteInputTokens,
 * outputTokens; LM Studio's stats), where each field keeps its latest value because Anthropic streams split them
 * across events and report output_tokens cumulatively. The counts of one usage object are read into an
 * lg_usage_fields first, from a cJSON object or from raw text (lazy.c), and applied here. */
#include <string.h>

#include "classify/dialects.h"

/* Key comparison, length first (name is a literal: sizeof gives its length). */
#define KEY_IS(k, n, name) ((n) == sizeof name - 1 && !memcmp(k, name, sizeof name - 1))

/* The LG_UF_ field a usage key names, or -1 (by length, then by name). */
static int field_of(const char *k, size_t n)
{
    switch (n) {
    case 11: return KEY_IS(k, n, "inputTokens") ? LG_UF_INPUT : -1; /* Bedrock Converse: the uncached part */
    case 12:
        return KEY_IS(k, n, "input_tokens")   ? LG_UF_INPUT
               : KEY_IS(k, n, "total_tokens") ? LG_UF_TOTAL
               : KEY_IS(k, n, "outputTokens") ? LG_UF_OUTPUT
                                              : -1;
    case 13: return KEY_IS(k, n, "prompt_tokens") ? LG_UF_PROMPT : KEY_IS(k, n, "output_tokens") ? LG_UF_OUTPUT : -1;
    case 16: return KEY_IS(k, n, "promptTokenCount") ? LG_UF_G_PROMPT : -1;
    case 17: return KEY_IS(k, n, "completion_tokens") ? LG_UF_COMPLETION : -1;
    case 18: return KEY_IS(k, n, "thoughtsTokenCount") ? LG_UF_G_THOUGHTS : -1;
    case 19: return KEY_IS(k, n, "total_output_tokens") ? LG_UF_OUTPUT : -1; /* LM Studio's stats */
    case 20:
        return KEY_IS(k, n, "candidatesTokenCount")   ? LG_UF_G_CANDIDATES
               : KEY_IS(k, n, "cacheReadInputTokens") ? LG_UF_CACHE_READ
                                                      : -1;
    case 21: return KEY_IS(k, n, "cacheWriteInputTokens") ? LG_UF_CACHE_WRITE : -1;
    case 23:
        return KEY_IS(k, n, "cache_read_input_tokens")   ? LG_UF_CACHE_READ
               : KEY_IS(k, n, "toolUsePromptTokenCount") ? LG_UF_G_TOOL
                                                         : -1;
    case 27: return KEY_IS(k, n, "cache_creation_input_tokens") ? LG_UF_CACHE_WRITE : -1;
    default: return -1;
    }
}

void lg_usage_field(lg_usage_fields *f, const char *key, size_t key_len, int64_t v)
{
    int i = field_of(key, key_len);
    if (i >= 0) {
        f->v[i] = v;
        f->has |= 1u << i;
    }
}

/* The count of field i when present and not negative (only present fields are read: see read_counts in
 * lazy.c, which clears has alone). */
static bool count(const lg_usage_fields *f, int i, int64_t *v)
{
    if (!(f->has & (1u << i)))
        return false;
    *v = f->v[i];
    return *v >= 0;
}

void lg_usage_apply(lg_cls *c, const lg_usage_fields *f)
{
    int64_t p = -1, q = -1, v;
    bool hp = count(f, LG_UF_PROMPT, &p), hq = count(f, LG_UF_COMPLETION, &q);
    if (hp || hq) {
        int64_t t, r;
        c->usage = LG_USAGE_TOTALS;
        c->prompt = hp ? p : 0;
        c->completion = hq ? q : 0;
        /* reasoning left out of completion_tokens (xAI): the total says so */
        if (count(f, LG_UF_TOTAL, &t) && count(f, LG_UF_REASONING, &r) && r > 0 && t == c->prompt + c->completion + r)
            c->completion += r;
        return;
    }
    bool any = false;
    if (count(f, LG_UF_INPUT, &v))
        c->u_in = v, any = true;
    if (count(f, LG_UF_CACHE_WRITE, &v))
        c->u_cache_w = v, any = true;
    if (count(f, LG_UF_CACHE_READ, &v))
        c->u_cache_r = v, any = true;
    if (count(f, LG_UF_OUTPUT, &v))
        c->u_out = v, any = true;
    if (any)
        c->usage = LG_USAGE_FIELDS;
}

void lg_usage_metadata_apply(lg_cls *c, const lg_usage_fields *f)
{
    int64_t x[LG_UF_COUNT] = {0};
    for (int i = LG_UF_G_PROMPT; i <= LG_UF_G_THOUGHTS; i++) {
        if (f->has & (1u << i))
            x[i] = f->v[i];
        if (x[i] < 0)
            return;
    }
    if (!(f->has & (1u << LG_UF_G_PROMPT | 1u << LG_UF_G_CANDIDATES)))
        return;
    c->usage = LG_USAGE_TOTALS;
    c->prompt = x[LG_UF_G_PROMPT] + x[LG_UF_G_TOOL];
    c->completion = x[LG_UF_G_CANDIDATES] + x[LG_UF_G_THOUGHTS];
}

bool lg_usage_adds_up(const lg_usage_fields *f)
{
    int64_t t, p = 0, q = 0;
    if (!count(f, LG_UF_TOTAL, &t))
        return true;
    count(f, LG_UF_PROMPT, &p);
    count(f, LG_UF_COMPLETION, &q);
    return t == p + q || !(f->has & (1u << LG_UF_PROMPT | 1u << LG_UF_COMPLETION));
}

void lg_usage_fields_of(const cJSON *u, lg_usage_fields *f)
{
    memset(f, 0, sizeof *f);
    const cJSON *m;
    cJSON_ArrayForEach(m, u)
    {
        int64_t v;
        if (m->string && lg_json_int(u, m->string, &v))
            lg_usage_field(f, m->string, strlen(m->string), v);
    }
    const cJSON *details = cJSON_GetObjectItemCaseSensitive(u, "completion_tokens_details");
    int64_t r;
    if (lg_json_int(details, "reasoning_tokens", &r)) {
        f->v[LG_UF_REASONING] = r;
        f->has |= 1u << LG_UF_REASONING;
    }
}

void lg_usage_object(lg_cls *c, const cJSON *u)
{
    if (!cJSON_IsObject(u))
        return;
    lg_usage_fields f;
    lg_usage_fields_of(u, &f);
    if (!f.has) { /* Cohere nests its counts: tokens (every token processed), else billed_units */
        const cJSON *inner = cJSON_GetObjectItemCaseSensitive(u, "tokens");
        if (!cJSON_IsObject(inner))
            inner = cJSON_GetObjectItemCaseSensitive(u, "billed_units");
        if (cJSON_IsObject(inner))
            lg_usage_fields_of(inner, &f);
    }
    lg_usage_apply(c, &f);
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
        lg_usage_fields f;
        lg_usage_fields_of(meta, &f);
        lg_usage_metadata_apply(c, &f);
        return;
    }
    const cJSON *delta = cJSON_GetObjectItemCaseSensitive(doc, "delta");
    const cJSON *candidates[] = {
        cJSON_GetObjectItemCaseSensitive(doc, "usage"),
        cJSON_IsObject(message) ? cJSON_GetObjectItemCaseSensitive(message, "usage") : NULL,
        cJSON_IsObject(response) ? cJSON_GetObjectItemCaseSensitive(response, "usage") : NULL,
        cJSON_IsObject(groq) ? cJSON_GetObjectItemCaseSensitive(groq, "usage") : NULL,
        cJSON_IsObject(delta) ? cJSON_GetObjectItemCaseSensitive(delta, "usage") : NULL, /* Cohere v2 message-end */
        cJSON_GetObjectItemCaseSensitive(doc, "meta"), /* Cohere v1: meta.tokens, meta.billed_units */
        cJSON_IsObject(response) ? cJSON_GetObjectItemCaseSensitive(response, "meta") : NULL, /* its stream-end */
    };
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (cJSON_IsObject(candidates[i])) {
            lg_usage_object(c, candidates[i]);
            return;
        }
    /* Native APIs of local servers count the prompt and the output at the top level: Ollama's final object,
     * llama.cpp's /completion (every chunk of its stream, cumulatively; timings.prompt_n leaves the cached
     * prompt out, tokens_evaluated does not). */
    static const char *const top_counts[][2] = {{"prompt_eval_count", "eval_count"},
                                                {"tokens_evaluated", "tokens_predicted"}};
    for (size_t i = 0; i < sizeof top_counts / sizeof top_counts[0]; i++) {
        int64_t pe, ev;
        bool has_pe = lg_json_int(doc, top_counts[i][0], &pe), has_ev = lg_json_int(doc, top_counts[i][1], &ev);
        if (has_pe || has_ev) {
            c->usage = LG_USAGE_TOTALS;
            c->prompt = has_pe && pe > 0 ? pe : 0;
            c->completion = has_ev && ev > 0 ? ev : 0;
            return;
        }
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
    /* LM Studio's native /api/v1/chat: stats {input_tokens, total_output_tokens}, at the top level of an
     * answer and in the result of its stream's chat.end event. */
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(doc, "result");
    const cJSON *stats = cJSON_GetObjectItemCaseSensitive(cJSON_IsObject(result) ? result : doc, "stats");
    lg_usage_object(c, stats);
}
