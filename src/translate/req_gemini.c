/* Requests between OpenAI Chat Completions and Gemini generateContent.
 * Sources: ai.google.dev/api/generate-content (contents with roles user/model, parts text/inlineData/
 * functionCall/functionResponse, systemInstruction, generationConfig maxOutputTokens/temperature/topP/
 * stopSequences/candidateCount/presencePenalty/frequencyPenalty/seed/responseMimeType/responseSchema),
 * ai.google.dev/api/caching#Tool (functionDeclarations) and #ToolConfig (functionCallingConfig mode
 * AUTO/ANY/NONE, allowedFunctionNames); platform.openai.com/docs/api-reference/chat/create. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate/internal.h"

/* ---- OpenAI -> Gemini ---- */

static cJSON *text_part(const char *text)
{
    cJSON *p = cJSON_CreateObject();
    tr_add_str(p, "text", text);
    return p;
}

/* OpenAI content (string, parts or null) as Gemini parts; images only as data URLs. */
static cJSON *parts_of(const cJSON *content, tr_fail *f)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *p;
    if (cJSON_IsString(content)) {
        if (content->valuestring[0])
            cJSON_AddItemToArray(out, text_part(content->valuestring));
        return out;
    }
    if (content && !cJSON_IsNull(content) && !cJSON_IsArray(content)) {
        cJSON_Delete(out);
        return tr_err(f, LG_TR_MALFORMED, "message content is neither a string nor an array");
    }
    cJSON_ArrayForEach(p, content) {
        const char *type = tr_str(p, "type"), *url = tr_str(tr_obj(p, "image_url"), "url"), *data;
        char mime[64];
        if (type && !strcmp(type, "text") && tr_str(p, "text")) {
            cJSON_AddItemToArray(out, text_part(tr_str(p, "text")));
        } else if (type && !strcmp(type, "image_url") && url && tr_data_url(url, mime, sizeof mime, &data)) {
            cJSON *part = cJSON_CreateObject(), *in = cJSON_AddObjectToObject(part, "inlineData");
            tr_add_str(in, "mimeType", mime);
            tr_add_str(in, "data", data);
            cJSON_AddItemToArray(out, part);
        } else {
            cJSON_Delete(out);
            return tr_refuse(f, type && !strcmp(type, "image_url") ? "an image by URL (not a data URL)"
                                                                    : "a content part other than text or image",
                             LG_TR_GEMINI);
        }
    }
    return out;
}

/* Assistant tool_calls as functionCall parts appended to parts. */
static bool function_calls(cJSON *parts, const cJSON *calls, tr_fail *f)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, calls) {
        const cJSON *fn = tr_obj(c, "function");
        const char *name = tr_str(fn, "name"), *args = tr_str(fn, "arguments");
        cJSON *a = args ? cJSON_Parse(args) : NULL;
        if (!name || !cJSON_IsObject(a)) {
            cJSON_Delete(a);
            tr_err(f, LG_TR_MALFORMED, "tool call without a name or JSON object arguments");
            return false;
        }
        cJSON *p = cJSON_CreateObject(), *call = cJSON_AddObjectToObject(p, "functionCall");
        tr_add_str(call, "name", name);
        cJSON_AddItemToObject(call, "args", a);
        cJSON_AddItemToArray(parts, p);
    }
    return true;
}

/* The function name of the tool call `id` among the earlier assistant messages, or NULL. */
static const char *call_name(const cJSON *msgs, const cJSON *upto, const char *id)
{
    const cJSON *m, *c;
    cJSON_ArrayForEach(m, msgs) {
        if (m == upto)
            break;
        cJSON_ArrayForEach(c, tr_arr(m, "tool_calls"))
            if (tr_str(c, "id") && !strcmp(tr_str(c, "id"), id))
                return tr_str(tr_obj(c, "function"), "name");
    }
    return NULL;
}

/* A tool message as a functionResponse part: a JSON object result as is, other text as {"content": text}. */
static cJSON *function_response(const cJSON *msgs, const cJSON *m, tr_fail *f)
{
    const char *id = tr_str(m, "tool_call_id"), *name = id ? call_name(msgs, m, id) : NULL;
    if (!name)
        return tr_err(f, LG_TR_MALFORMED, "tool message answers no earlier tool call");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content"), *p;
    char *text = NULL;
    if (cJSON_IsString(content))
        text = strdup(content->valuestring);
    cJSON_ArrayForEach(p, (cJSON_IsArray(content) ? content : NULL))
        if (tr_str(p, "text"))
            tr_append(&text, tr_str(p, "text"), "");
    cJSON *res = text ? cJSON_Parse(text) : NULL;
    if (!cJSON_IsObject(res)) {
        cJSON_Delete(res);
        res = cJSON_CreateObject();
        tr_add_str(res, "content", text ? text : "");
    }
    free(text);
    cJSON *part = cJSON_CreateObject(), *fr = cJSON_AddObjectToObject(part, "functionResponse");
    tr_add_str(fr, "name", name);
    cJSON_AddItemToObject(fr, "response", res);
    return part;
}

static bool contents(cJSON *out, const cJSON *msgs, tr_fail *f)
{
    cJSON *cs = cJSON_AddArrayToObject(out, "contents"), *sys = NULL;
    const cJSON *m;
    cJSON_ArrayForEach(m, msgs) {
        const char *role = tr_str(m, "role");
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
        cJSON *parts = NULL, *p;
        if (!role) {
            tr_err(f, LG_TR_MALFORMED, "message without a role");
        } else if (!strcmp(role, "system") || !strcmp(role, "developer")) {
            if ((parts = parts_of(content, f))) {
                if (!sys)
                    sys = cJSON_AddArrayToObject(cJSON_AddObjectToObject(out, "systemInstruction"), "parts");
                while ((p = cJSON_DetachItemFromArray(parts, 0)))
                    cJSON_AddItemToArray(sys, p);
                cJSON_Delete(parts);
            }
        } else if (!strcmp(role, "user")) {
            if ((parts = parts_of(content, f)))
                tr_push_turn(cs, "user", parts, "parts");
        } else if (!strcmp(role, "assistant")) {
            if (tr_used(m, "audio") || tr_used(m, "refusal"))
                tr_refuse(f, "an assistant audio or refusal message", LG_TR_GEMINI);
            else if ((parts = parts_of(content, f))) {
                if (function_calls(parts, tr_arr(m, "tool_calls"), f))
                    tr_push_turn(cs, "model", parts, "parts");
                else
                    cJSON_Delete(parts);
            }
        } else if (!strcmp(role, "tool")) {
            if ((p = function_response(msgs, m, f))) {
                parts = cJSON_CreateArray();
                cJSON_AddItemToArray(parts, p);
                tr_push_turn(cs, "user", parts, "parts");
            }
        } else {
            tr_refuse(f, "a message role other than system, developer, user, assistant or tool", LG_TR_GEMINI);
        }
        if (f->st != LG_TR_OK)
            return false;
    }
    return true;
}

static bool gemini_tools(cJSON *out, const cJSON *req, tr_fail *f)
{
    const cJSON *t, *choice = cJSON_GetObjectItemCaseSensitive(req, "tool_choice");
    if (tr_arr(req, "tools")) {
        cJSON *decls = cJSON_AddArrayToObject(cJSON_AddObjectToObject(cJSON_AddArrayToObject(out, "tools"), ""),
                                              "functionDeclarations");
        cJSON_ArrayForEach(t, tr_arr(req, "tools")) {
            cJSON *d = tr_declaration(t, LG_TR_GEMINI, "parameters", f);
            if (!d)
                return false;
            cJSON_AddItemToArray(decls, d);
        }
    }
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(req, "parallel_tool_calls")))
        return tr_refuse(f, "parallel_tool_calls false", LG_TR_GEMINI), false;
    if (!choice)
        return true;
    static const char *const modes[] = {"AUTO", "ANY", "NONE", "ANY"};
    const char *name;
    tr_choice c = tr_tool_choice(choice, &name);
    if (c == TR_CHOICE_BAD)
        return tr_err(f, LG_TR_MALFORMED, "tool_choice is not auto, required, none or a function"), false;
    cJSON *cfg = cJSON_AddObjectToObject(cJSON_AddObjectToObject(out, "toolConfig"), "functionCallingConfig");
    tr_add_str(cfg, "mode", modes[c]);
    if (c == TR_CHOICE_NAMED)
        cJSON_AddItemToArray(cJSON_AddArrayToObject(cfg, "allowedFunctionNames"), cJSON_CreateString(name));
    return true;
}

/* generationConfig from the sampling fields and response_format. */
static bool generation(cJSON *out, const cJSON *req, tr_fail *f)
{
    cJSON *g = cJSON_CreateObject();
    const cJSON *mt = tr_num(req, "max_completion_tokens"), *stop = cJSON_GetObjectItemCaseSensitive(req, "stop");
    const cJSON *rf = tr_obj(req, "response_format");
    const char *rft = tr_str(rf, "type");
    tr_copy(g, "maxOutputTokens", req, mt ? "max_completion_tokens" : "max_tokens");
    tr_copy(g, "temperature", req, "temperature");
    tr_copy(g, "topP", req, "top_p");
    if (cJSON_IsString(stop))
        cJSON_AddItemToArray(cJSON_AddArrayToObject(g, "stopSequences"), cJSON_CreateString(stop->valuestring));
    else if (cJSON_IsArray(stop))
        tr_copy(g, "stopSequences", req, "stop");
    if (tr_used(req, "n"))
        tr_copy(g, "candidateCount", req, "n");
    tr_copy(g, "presencePenalty", req, "presence_penalty");
    tr_copy(g, "frequencyPenalty", req, "frequency_penalty");
    tr_copy(g, "seed", req, "seed");
    if (rft && !strcmp(rft, "json_object")) {
        tr_add_str(g, "responseMimeType", "application/json");
    } else if (rft && !strcmp(rft, "json_schema") && tr_obj(tr_obj(rf, "json_schema"), "schema")) {
        tr_add_str(g, "responseMimeType", "application/json");
        tr_copy(g, "responseSchema", tr_obj(rf, "json_schema"), "schema");
    } else if (rft && strcmp(rft, "text")) {
        cJSON_Delete(g);
        return tr_refuse(f, "this response_format", LG_TR_GEMINI), false;
    }
    if (cJSON_GetArraySize(g))
        cJSON_AddItemToObject(out, "generationConfig", g);
    else
        cJSON_Delete(g);
    return true;
}

cJSON *tr_req_openai_to_gemini(const cJSON *req, tr_fail *f)
{
    const cJSON *msgs = tr_arr(req, "messages");
    if (!msgs)
        return tr_err(f, LG_TR_MALFORMED, "no messages array");
    if (!tr_openai_translatable(req, LG_TR_GEMINI, f))
        return NULL;
    /* model and stream go into the path; user (an end-user id for abuse monitoring) has no field */
    cJSON *out = cJSON_CreateObject();
    if (!contents(out, msgs, f) || !gemini_tools(out, req, f) || !generation(out, req, f)) {
        cJSON_Delete(out);
        return NULL;
    }
    return out;
}

/* ---- Gemini -> OpenAI ---- */

/* Tool call ids invented for Gemini's functionCalls ("call_N"), matched to functionResponses by name. */
typedef struct {
    int next;
    cJSON *open; /* [{name, id}] calls not answered yet */
} call_ids;

static cJSON *function_call(const cJSON *fc, call_ids *ids, tr_fail *f)
{
    const char *name = tr_str(fc, "name");
    if (!name)
        return tr_err(f, LG_TR_MALFORMED, "functionCall without a name");
    char id[32];
    if (tr_str(fc, "id"))
        snprintf(id, sizeof id, "%.31s", tr_str(fc, "id"));
    else
        snprintf(id, sizeof id, "call_%d", ids->next++);
    cJSON *c = tr_tool_call(id, name, cJSON_GetObjectItemCaseSensitive(fc, "args")), *o = cJSON_CreateObject();
    tr_add_str(o, "name", name);
    tr_add_str(o, "id", id);
    cJSON_AddItemToArray(ids->open, o);
    return c;
}

static cJSON *tool_message(const cJSON *fr, call_ids *ids, tr_fail *f)
{
    const char *name = tr_str(fr, "name");
    cJSON *o;
    int i = 0;
    cJSON_ArrayForEach(o, ids->open) {
        if (name && !strcmp(tr_str(o, "name"), name))
            break;
        i++;
    }
    if (!o)
        return tr_err(f, LG_TR_MALFORMED, "functionResponse answers no earlier functionCall");
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(fr, "response"));
    cJSON *m = cJSON_CreateObject();
    tr_add_str(m, "role", "tool");
    tr_add_str(m, "tool_call_id", tr_str(o, "id"));
    tr_add_str(m, "content", text ? text : "{}");
    free(text);
    cJSON_DeleteItemFromArray(ids->open, i);
    return m;
}

/* One Gemini content as OpenAI messages appended to msgs. */
static bool message_of(cJSON *msgs, const cJSON *c, call_ids *ids, tr_fail *f)
{
    const char *role = tr_str(c, "role");
    bool model = role && !strcmp(role, "model");
    if (role && !model && strcmp(role, "user"))
        return tr_err(f, LG_TR_MALFORMED, "content role is not user or model"), false;
    cJSON *parts = cJSON_CreateArray(), *calls = cJSON_CreateArray();
    const cJSON *p;
    cJSON_ArrayForEach(p, tr_arr(c, "parts")) {
        const cJSON *in = tr_obj(p, "inlineData");
        const char *mime = tr_str(in, "mimeType");
        if (tr_str(p, "text")) {
            cJSON *t = cJSON_CreateObject();
            tr_add_str(t, "type", "text");
            tr_copy(t, "text", p, "text");
            cJSON_AddItemToArray(parts, t);
        } else if (!model && mime && !strncmp(mime, "image/", 6) && tr_str(in, "data")) {
            cJSON *t = tr_image_url_part(mime, tr_str(in, "data"));
            if (!t) {
                tr_err(f, LG_TR_NOMEM, "out of memory");
                break;
            }
            cJSON_AddItemToArray(parts, t);
        } else if (model && tr_obj(p, "functionCall")) {
            cJSON_AddItemToArray(calls, function_call(tr_obj(p, "functionCall"), ids, f));
        } else if (!model && tr_obj(p, "functionResponse")) {
            cJSON_AddItemToArray(msgs, tool_message(tr_obj(p, "functionResponse"), ids, f));
        } else {
            tr_refuse(f, "this part (only text, images, functionCall and functionResponse are translated)",
                      LG_TR_OPENAI);
        }
        if (f->st != LG_TR_OK)
            break;
    }
    if (f->st == LG_TR_OK && (cJSON_GetArraySize(parts) || cJSON_GetArraySize(calls))) {
        cJSON *m = cJSON_CreateObject();
        tr_add_str(m, "role", model ? "assistant" : "user");
        char *text = NULL;
        if (model) { /* assistant content is text only */
            cJSON_ArrayForEach(p, parts)
                tr_append(&text, tr_str(p, "text"), "");
            tr_set_assistant(m, text, calls);
            calls = NULL;
        } else if (cJSON_GetArraySize(parts) == 1 && tr_str(parts->child, "text")) {
            tr_copy(m, "content", parts->child, "text");
        } else {
            cJSON_AddItemToObject(m, "content", cJSON_Duplicate(parts, true));
        }
        cJSON_AddItemToArray(msgs, m);
    }
    cJSON_Delete(parts);
    cJSON_Delete(calls);
    return f->st == LG_TR_OK;
}

static const char *const gemini_known[] = {"contents", "systemInstruction", "generationConfig", "tools",
                                           "toolConfig", NULL};
static const char *const generation_known[] = {"maxOutputTokens", "temperature", "topP", "stopSequences",
                                               "candidateCount", "presencePenalty", "frequencyPenalty", "seed",
                                               "responseMimeType", "responseSchema", NULL};

static bool openai_generation(cJSON *out, const cJSON *g, tr_fail *f)
{
    const char *mime = tr_str(g, "responseMimeType");
    if (g && !tr_only_known(g, generation_known, LG_TR_OPENAI, f))
        return false;
    tr_copy(out, "max_tokens", g, "maxOutputTokens");
    tr_copy(out, "temperature", g, "temperature");
    tr_copy(out, "top_p", g, "topP");
    tr_copy(out, "stop", g, "stopSequences");
    tr_copy(out, "n", g, "candidateCount");
    tr_copy(out, "presence_penalty", g, "presencePenalty");
    tr_copy(out, "frequency_penalty", g, "frequencyPenalty");
    tr_copy(out, "seed", g, "seed");
    if (mime && !strcmp(mime, "application/json")) {
        cJSON *rf = cJSON_AddObjectToObject(out, "response_format");
        if (tr_obj(g, "responseSchema")) {
            tr_add_str(rf, "type", "json_schema");
            cJSON *js = cJSON_AddObjectToObject(rf, "json_schema");
            tr_add_str(js, "name", "response");
            tr_copy(js, "schema", g, "responseSchema");
        } else {
            tr_add_str(rf, "type", "json_object");
        }
    } else if (mime && strcmp(mime, "text/plain")) {
        return tr_refuse(f, "this responseMimeType", LG_TR_OPENAI), false;
    }
    return true;
}

static bool openai_tools(cJSON *out, const cJSON *req, tr_fail *f)
{
    const cJSON *t, *d;
    cJSON *arr = NULL;
    cJSON_ArrayForEach(t, tr_arr(req, "tools")) {
        if (cJSON_GetArraySize(t) != 1 || !tr_arr(t, "functionDeclarations"))
            return tr_refuse(f, "a tool other than functionDeclarations", LG_TR_OPENAI), false;
        if (!arr)
            arr = cJSON_AddArrayToObject(out, "tools");
        cJSON_ArrayForEach(d, tr_arr(t, "functionDeclarations")) {
            cJSON_AddItemToArray(arr, tr_function_tool(d, "parameters"));
        }
    }
    const cJSON *cfg = tr_obj(tr_obj(req, "toolConfig"), "functionCallingConfig");
    const char *mode = tr_str(cfg, "mode");
    const cJSON *allowed = tr_arr(cfg, "allowedFunctionNames");
    if (!cfg)
        return true;
    if (allowed && cJSON_GetArraySize(allowed) == 1 && cJSON_IsString(allowed->child)) {
        cJSON *c = cJSON_AddObjectToObject(out, "tool_choice");
        tr_add_str(c, "type", "function");
        tr_add_str(cJSON_AddObjectToObject(c, "function"), "name", allowed->child->valuestring);
    } else if (allowed && cJSON_GetArraySize(allowed) > 1) {
        return tr_refuse(f, "several allowedFunctionNames", LG_TR_OPENAI), false;
    } else if (mode && !strcmp(mode, "ANY")) {
        tr_add_str(out, "tool_choice", "required");
    } else if (mode && !strcmp(mode, "NONE")) {
        tr_add_str(out, "tool_choice", "none");
    } else {
        tr_add_str(out, "tool_choice", "auto");
    }
    return true;
}

cJSON *tr_req_gemini_to_openai(const cJSON *req, bool stream, tr_fail *f)
{
    const cJSON *cs = tr_arr(req, "contents"), *c;
    if (!cs)
        return tr_err(f, LG_TR_MALFORMED, "no contents array");
    if (!tr_only_known(req, gemini_known, LG_TR_OPENAI, f))
        return NULL;
    cJSON *out = cJSON_CreateObject(), *msgs = cJSON_AddArrayToObject(out, "messages");
    call_ids ids = {0, cJSON_CreateArray()};
    const cJSON *sys = tr_obj(req, "systemInstruction"), *p;
    char *text = NULL;
    cJSON_ArrayForEach(p, tr_arr(sys, "parts")) {
        if (!tr_str(p, "text")) {
            tr_refuse(f, "a non-text systemInstruction part", LG_TR_OPENAI);
            break;
        }
        tr_append(&text, tr_str(p, "text"), "\n\n");
    }
    tr_add_message(msgs, "system", text);
    cJSON_ArrayForEach(c, cs)
        if (f->st != LG_TR_OK || !message_of(msgs, c, &ids, f))
            break;
    cJSON_Delete(ids.open);
    if (f->st != LG_TR_OK || !openai_generation(out, tr_obj(req, "generationConfig"), f) ||
        !openai_tools(out, req, f)) {
        cJSON_Delete(out);
        return NULL;
    }
    if (stream) {
        cJSON_AddBoolToObject(out, "stream", true);
        cJSON_AddBoolToObject(cJSON_AddObjectToObject(out, "stream_options"), "include_usage", true);
    }
    return out;
}
