/* Finish reasons and usage counts across dialects.
 * Sources: OpenAI chat object (finish_reason: stop, length, tool_calls, content_filter; usage with
 * prompt_tokens_details.cached_tokens), Anthropic Messages (stop_reason: end_turn, max_tokens,
 * stop_sequence, tool_use, refusal; usage input_tokens excludes cache_read_input_tokens and
 * cache_creation_input_tokens), Gemini GenerateContentResponse (FinishReason: STOP, MAX_TOKENS, SAFETY,
 * RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, ...; usageMetadata promptTokenCount includes
 * cachedContentTokenCount, thoughtsTokenCount is apart from candidatesTokenCount). */
#include <string.h>

#include "translate/internal.h"

/* One row per neutral reason: its name in OpenAI, Anthropic, Gemini (the first row that names a
 * dialect's reason wins when reading; the row gives the name when writing). */
static const struct {
    tr_finish f;
    const char *name[3];
} finishes[] = {
    {TR_FIN_STOP, {"stop", "end_turn", "STOP"}},
    {TR_FIN_LENGTH, {"length", "max_tokens", "MAX_TOKENS"}},
    {TR_FIN_TOOL, {"tool_calls", "tool_use", "STOP"}},
    {TR_FIN_FILTER, {"content_filter", "refusal", "SAFETY"}},
    {TR_FIN_STOP_SEQ, {"stop", "stop_sequence", "STOP"}},
    {TR_FIN_TOOL, {"function_call", "pause_turn", NULL}},
    {TR_FIN_FILTER, {NULL, NULL, "RECITATION"}},
    {TR_FIN_FILTER, {NULL, NULL, "BLOCKLIST"}},
    {TR_FIN_FILTER, {NULL, NULL, "PROHIBITED_CONTENT"}},
    {TR_FIN_FILTER, {NULL, NULL, "SPII"}},
    {TR_FIN_FILTER, {NULL, NULL, "IMAGE_SAFETY"}},
    {TR_FIN_LENGTH, {NULL, "model_context_window_exceeded", NULL}},
};

tr_finish tr_finish_parse(lg_tr_dialect d, const char *name)
{
    for (size_t i = 0; name && i < sizeof finishes / sizeof finishes[0]; i++)
        if (finishes[i].name[d] && !strcmp(finishes[i].name[d], name))
            return finishes[i].f;
    /* Gemini's OTHER, MALFORMED_FUNCTION_CALL, LANGUAGE and unknown reasons: the turn ended */
    return name ? TR_FIN_STOP : TR_FIN_NONE;
}

const char *tr_finish_name(lg_tr_dialect d, tr_finish f)
{
    for (size_t i = 0; i < sizeof finishes / sizeof finishes[0]; i++)
        if (finishes[i].f == f)
            return finishes[i].name[d];
    return NULL;
}

static long count(const cJSON *o, const char *name)
{
    return tr_clamp(tr_num(o, name), 0, 1L << 40, 0); /* an absurd count is no count */
}

tr_usage tr_usage_read(lg_tr_dialect d, const cJSON *u)
{
    tr_usage r = {0};
    if (!cJSON_IsObject(u))
        return r;
    r.present = true;
    if (d == LG_TR_OPENAI) {
        r.prompt = count(u, "prompt_tokens");
        r.completion = count(u, "completion_tokens");
        r.cached = count(tr_obj(u, "prompt_tokens_details"), "cached_tokens");
    } else if (d == LG_TR_ANTHROPIC) {
        r.cached = count(u, "cache_read_input_tokens");
        r.cache_write = count(u, "cache_creation_input_tokens");
        r.prompt = count(u, "input_tokens") + r.cached + r.cache_write;
        r.completion = count(u, "output_tokens");
    } else {
        r.prompt = count(u, "promptTokenCount");
        r.completion = count(u, "candidatesTokenCount") + count(u, "thoughtsTokenCount");
        r.cached = count(u, "cachedContentTokenCount");
    }
    return r;
}

cJSON *tr_usage_make(lg_tr_dialect d, const tr_usage *u)
{
    cJSON *o = cJSON_CreateObject();
    if (d == LG_TR_OPENAI) {
        tr_add_num(o, "prompt_tokens", (double)u->prompt);
        tr_add_num(o, "completion_tokens", (double)u->completion);
        tr_add_num(o, "total_tokens", (double)(u->prompt + u->completion));
        cJSON *det = cJSON_AddObjectToObject(o, "prompt_tokens_details");
        tr_add_num(det, "cached_tokens", (double)u->cached);
    } else if (d == LG_TR_ANTHROPIC) {
        long in = u->prompt - u->cached - u->cache_write;
        tr_add_num(o, "input_tokens", (double)(in > 0 ? in : 0));
        tr_add_num(o, "cache_creation_input_tokens", (double)u->cache_write);
        tr_add_num(o, "cache_read_input_tokens", (double)u->cached);
        tr_add_num(o, "output_tokens", (double)u->completion);
    } else {
        tr_add_num(o, "promptTokenCount", (double)u->prompt);
        tr_add_num(o, "candidatesTokenCount", (double)u->completion);
        tr_add_num(o, "totalTokenCount", (double)(u->prompt + u->completion));
        if (u->cached)
            tr_add_num(o, "cachedContentTokenCount", (double)u->cached);
    }
    return o;
}
