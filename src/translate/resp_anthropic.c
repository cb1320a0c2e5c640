/* Whole responses between OpenAI (chat.completion) and Anthropic (message).
 * Sources: platform.openai.com/docs/api-reference/chat/object; docs.anthropic.com/en/api/messages
 * (response: id, type "message", role, content blocks text/tool_use, model, stop_reason, stop_sequence,
 * usage). */
#include <stdlib.h>
#include <string.h>

#include "translate/internal.h"

cJSON *tr_resp_anthropic_to_openai(const cJSON *r, const lg_tr_response_opts *o, tr_fail *f)
{
    const cJSON *content = tr_arr(r, "content");
    if (!content || !tr_str(r, "id"))
        return tr_err(f, LG_TR_MALFORMED, "not an Anthropic message (no id or content)");
    cJSON *out = cJSON_CreateObject(), *choices, *choice;
    tr_copy(out, "id", r, "id");
    tr_add_str(out, "object", "chat.completion");
    tr_add_num(out, "created", o ? (double)o->created : 0);
    tr_add_str(out, "model", tr_str(r, "model") ? tr_str(r, "model") : o ? o->model : NULL);
    choices = cJSON_AddArrayToObject(out, "choices");
    cJSON_AddItemToArray(choices, choice = cJSON_CreateObject());
    tr_add_num(choice, "index", 0);
    cJSON_AddItemToObject(choice, "message", tr_anthropic_assistant(content, NULL));
    cJSON_AddNullToObject(choice, "logprobs");
    const char *fin = tr_finish_name(LG_TR_OPENAI, tr_finish_parse(LG_TR_ANTHROPIC, tr_str(r, "stop_reason")));
    if (fin)
        tr_add_str(choice, "finish_reason", fin);
    else
        cJSON_AddNullToObject(choice, "finish_reason");
    tr_usage u = tr_usage_read(LG_TR_ANTHROPIC, tr_obj(r, "usage"));
    if (u.present)
        cJSON_AddItemToObject(out, "usage", tr_usage_make(LG_TR_OPENAI, &u));
    return out;
}

cJSON *tr_resp_openai_to_anthropic(const cJSON *r, tr_fail *f)
{
    const cJSON *choices = tr_arr(r, "choices"), *c;
    if (!choices || cJSON_GetArraySize(choices) != 1)
        return cJSON_GetArraySize(choices) > 1 ? tr_refuse(f, "a response with several choices", LG_TR_ANTHROPIC)
                                               : tr_err(f, LG_TR_MALFORMED, "not a chat.completion (no choice)");
    const cJSON *choice = choices->child, *msg = tr_obj(choice, "message");
    cJSON *out = cJSON_CreateObject(), *content;
    tr_copy(out, "id", r, "id");
    tr_add_str(out, "type", "message");
    tr_add_str(out, "role", "assistant");
    tr_copy(out, "model", r, "model");
    content = cJSON_AddArrayToObject(out, "content");
    if (tr_str(msg, "content") && tr_str(msg, "content")[0]) {
        cJSON *b = cJSON_CreateObject();
        tr_add_str(b, "type", "text");
        tr_copy(b, "text", msg, "content");
        cJSON_AddItemToArray(content, b);
    }
    cJSON_ArrayForEach(c, tr_arr(msg, "tool_calls")) {
        const cJSON *fn = tr_obj(c, "function");
        const char *args = tr_str(fn, "arguments");
        cJSON *input = args ? cJSON_Parse(args) : NULL, *b;
        if (!cJSON_IsObject(input) || !tr_str(c, "id") || !tr_str(fn, "name")) {
            cJSON_Delete(input);
            cJSON_Delete(out);
            return tr_err(f, LG_TR_MALFORMED, "tool call without id, name or JSON object arguments");
        }
        cJSON_AddItemToArray(content, b = cJSON_CreateObject());
        tr_add_str(b, "type", "tool_use");
        tr_copy(b, "id", c, "id");
        tr_copy(b, "name", fn, "name");
        cJSON_AddItemToObject(b, "input", input);
    }
    const char *fin = tr_finish_name(LG_TR_ANTHROPIC, tr_finish_parse(LG_TR_OPENAI, tr_str(choice, "finish_reason")));
    if (fin)
        tr_add_str(out, "stop_reason", fin);
    else
        cJSON_AddNullToObject(out, "stop_reason");
    cJSON_AddNullToObject(out, "stop_sequence");
    tr_usage u = tr_usage_read(LG_TR_OPENAI, tr_obj(r, "usage"));
    cJSON_AddItemToObject(out, "usage", tr_usage_make(LG_TR_ANTHROPIC, &u));
    return out;
}
