/* Whole responses between OpenAI (chat.completion) and Gemini (GenerateContentResponse).
 * Sources: platform.openai.com/docs/api-reference/chat/object; ai.google.dev/api/generate-content#v1beta.
 * GenerateContentResponse (candidates[].content.parts, finishReason, index; promptFeedback.blockReason;
 * usageMetadata; modelVersion; responseId). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate/internal.h"

/* One candidate as an OpenAI choice; tool call ids are call_<candidate>_<n> unless Gemini gave one. */
static cJSON *choice_of(const cJSON *cand, int index)
{
    cJSON *choice = cJSON_CreateObject(), *msg, *calls = cJSON_CreateArray();
    const cJSON *p, *ix = tr_num(cand, "index");
    char *text = NULL;
    int n = 0;
    tr_add_num(choice, "index", ix ? ix->valuedouble : index);
    msg = cJSON_AddObjectToObject(choice, "message");
    tr_add_str(msg, "role", "assistant");
    cJSON_ArrayForEach(p, tr_arr(tr_obj(cand, "content"), "parts")) {
        const cJSON *fc = tr_obj(p, "functionCall");
        if (tr_str(p, "text") && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "thought"))) {
            tr_append(&text, tr_str(p, "text"), "");
        } else if (fc && tr_str(fc, "name")) {
            char id[48];
            if (tr_str(fc, "id"))
                snprintf(id, sizeof id, "%.47s", tr_str(fc, "id"));
            else
                snprintf(id, sizeof id, "call_%d_%d", index, n);
            n++;
            cJSON_AddItemToArray(calls, tr_tool_call(id, tr_str(fc, "name"), cJSON_GetObjectItemCaseSensitive(fc, "args")));
        }
    }
    tr_set_assistant(msg, text, calls);
    tr_finish fin = tr_finish_parse(LG_TR_GEMINI, tr_str(cand, "finishReason"));
    if (n && fin == TR_FIN_STOP)
        fin = TR_FIN_TOOL;
    cJSON_AddNullToObject(choice, "logprobs");
    if (fin != TR_FIN_NONE)
        tr_add_str(choice, "finish_reason", tr_finish_name(LG_TR_OPENAI, fin));
    else
        cJSON_AddNullToObject(choice, "finish_reason");
    return choice;
}

cJSON *tr_resp_gemini_to_openai(const cJSON *r, const lg_tr_response_opts *o, tr_fail *f)
{
    const cJSON *cands = tr_arr(r, "candidates"), *c;
    const char *blocked = tr_str(tr_obj(r, "promptFeedback"), "blockReason");
    if (!cands && !blocked)
        return tr_err(f, LG_TR_MALFORMED, "not a GenerateContentResponse (no candidates)");
    cJSON *out = cJSON_CreateObject(), *choices;
    tr_add_str(out, "id", tr_str(r, "responseId") ? tr_str(r, "responseId") : "chatcmpl-gemini");
    tr_add_str(out, "object", "chat.completion");
    tr_add_num(out, "created", o ? (double)o->created : 0);
    tr_add_str(out, "model", tr_str(r, "modelVersion") ? tr_str(r, "modelVersion") : o ? o->model : NULL);
    choices = cJSON_AddArrayToObject(out, "choices");
    int i = 0;
    cJSON_ArrayForEach(c, cands)
        cJSON_AddItemToArray(choices, choice_of(c, i++));
    if (!cands) { /* the prompt was blocked: an empty answer stopped by the content filter */
        cJSON *choice = cJSON_CreateObject(), *msg = cJSON_AddObjectToObject(choice, "message");
        tr_add_num(choice, "index", 0);
        tr_add_str(msg, "role", "assistant");
        cJSON_AddNullToObject(msg, "content");
        cJSON_AddNullToObject(choice, "logprobs");
        tr_add_str(choice, "finish_reason", "content_filter");
        cJSON_AddItemToArray(choices, choice);
    }
    tr_usage u = tr_usage_read(LG_TR_GEMINI, tr_obj(r, "usageMetadata"));
    if (u.present)
        cJSON_AddItemToObject(out, "usage", tr_usage_make(LG_TR_OPENAI, &u));
    return out;
}

cJSON *tr_resp_openai_to_gemini(const cJSON *r, tr_fail *f)
{
    const cJSON *choices = tr_arr(r, "choices"), *ch, *c;
    if (!choices)
        return tr_err(f, LG_TR_MALFORMED, "not a chat.completion (no choices)");
    cJSON *out = cJSON_CreateObject(), *cands = cJSON_AddArrayToObject(out, "candidates");
    cJSON_ArrayForEach(ch, choices) {
        const cJSON *msg = tr_obj(ch, "message");
        cJSON *cand = cJSON_CreateObject(), *content = cJSON_AddObjectToObject(cand, "content"), *parts;
        parts = cJSON_AddArrayToObject(content, "parts");
        tr_add_str(content, "role", "model");
        if (tr_str(msg, "content") && tr_str(msg, "content")[0]) {
            cJSON *p = cJSON_CreateObject();
            tr_copy(p, "text", msg, "content");
            cJSON_AddItemToArray(parts, p);
        }
        cJSON_ArrayForEach(c, tr_arr(msg, "tool_calls")) {
            const char *args = tr_str(tr_obj(c, "function"), "arguments");
            cJSON *a = args ? cJSON_Parse(args) : NULL, *p, *fc;
            if (!cJSON_IsObject(a) || !tr_str(tr_obj(c, "function"), "name")) {
                cJSON_Delete(a);
                cJSON_Delete(cand);
                cJSON_Delete(out);
                return tr_err(f, LG_TR_MALFORMED, "tool call without a name or JSON object arguments");
            }
            cJSON_AddItemToArray(parts, p = cJSON_CreateObject());
            fc = cJSON_AddObjectToObject(p, "functionCall");
            tr_copy(fc, "name", tr_obj(c, "function"), "name");
            cJSON_AddItemToObject(fc, "args", a);
        }
        const char *fin = tr_finish_name(LG_TR_GEMINI, tr_finish_parse(LG_TR_OPENAI, tr_str(ch, "finish_reason")));
        if (fin)
            tr_add_str(cand, "finishReason", fin);
        tr_copy(cand, "index", ch, "index");
        cJSON_AddItemToArray(cands, cand);
    }
    tr_usage u = tr_usage_read(LG_TR_OPENAI, tr_obj(r, "usage"));
    if (u.present)
        cJSON_AddItemToObject(out, "usageMetadata", tr_usage_make(LG_TR_GEMINI, &u));
    tr_copy(out, "modelVersion", r, "model");
    tr_copy(out, "responseId", r, "id");
    return out;
}
