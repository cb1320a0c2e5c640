/* The OpenAI hub's side of request translation: which OpenAI request members the translators know and
 * which OpenAI features no target has. Both from-hub halves (req_anthropic.c, req_gemini.c) check a hub
 * request here before they translate it. */
#include <string.h>

#include "translate/internal.h"

/* The OpenAI request members the translators know (each is translated or refused when in use). */
static const char *const openai_known[] = {
    "model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "stop", "stream",
    "stream_options", "tools", "tool_choice", "parallel_tool_calls", "user", "n", "response_format", "logprobs",
    "top_logprobs", "presence_penalty", "frequency_penalty", "logit_bias", "seed", "store", "modalities", NULL};

/* Features of an OpenAI request that the target lacks, whatever it is (logprobs, logit_bias, store,
 * audio output, n > 1 for Anthropic); false with f set when one is used. */
static bool openai_refusals(const cJSON *req, lg_tr_dialect to, tr_fail *f)
{
    const cJSON *n = tr_num(req, "n"), *mod = tr_arr(req, "modalities"), *m;
    if (tr_used(req, "logprobs") || tr_used(req, "top_logprobs"))
        return tr_refuse(f, "logprobs", to), false;
    if (tr_used(req, "logit_bias"))
        return tr_refuse(f, "logit_bias", to), false;
    if (tr_used(req, "store"))
        return tr_refuse(f, "store", to), false;
    cJSON_ArrayForEach(m, mod)
        if (!cJSON_IsString(m) || strcmp(m->valuestring, "text"))
            return tr_refuse(f, "an output modality other than text", to), false;
    if (to == LG_TR_ANTHROPIC && n && n->valuedouble != 1)
        return tr_refuse(f, "n other than 1", to), false;
    return true;
}

bool tr_openai_translatable(const cJSON *req, lg_tr_dialect to, tr_fail *f)
{
    return tr_only_known(req, openai_known, to, f) && openai_refusals(req, to, f);
}
