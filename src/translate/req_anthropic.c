/* Requests between OpenAI Chat Completions and Anthropic Messages.
 * Sources: platform.openai.com/docs/api-reference/chat/create (messages, roles system/developer/user/
 * assistant/tool, content parts text/image_url/input_audio/file, tools, tool_choice, stop, n, stream_options);
 * docs.anthropic.com/en/api/messages (top-level system, alternating user/assistant messages, content blocks
 * text/image with base64 or url source/tool_use/tool_result, max_tokens required, stop_sequences,
 * tool_choice auto/any/tool/none with disable_parallel_tool_use, temperature 0..1, metadata.user_id). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate/internal.h"

/* ---- OpenAI -> Anthropic ---- */

static cJSON *text_block(const char *text)
{
    cJSON *b = cJSON_CreateObject();
    tr_add_str(b, "type", "text");
    tr_add_str(b, "text", text);
    return b;
}

/* An image_url part as an image block: a data URL becomes a base64 source, another URL a url source. */
static cJSON *image_block(const cJSON *part, tr_fail *f)
{
    const char *url = tr_str(tr_obj(part, "image_url"), "url");
    if (!url)
        return tr_err(f, LG_TR_MALFORMED, "image_url part without a url");
    cJSON *b = cJSON_CreateObject(), *src = cJSON_AddObjectToObject(b, "source");
    tr_add_str(b, "type", "image");
    char mime[64];
    const char *data;
    if (tr_data_url(url, mime, sizeof mime, &data)) {
        tr_add_str(src, "type", "base64");
        tr_add_str(src, "media_type", mime);
        tr_add_str(src, "data", data);
    } else {
        tr_add_str(src, "type", "url");
        tr_add_str(src, "url", url);
    }
    return b;
}

/* OpenAI message content (string, parts array or null) as Anthropic content blocks. */
static cJSON *content_blocks(const cJSON *content, bool images, tr_fail *f)
{
    cJSON *out = cJSON_CreateArray();
    if (cJSON_IsString(content)) {
        if (content->valuestring[0])
            cJSON_AddItemToArray(out, text_block(content->valuestring));
        return out;
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, content) {
        const char *type = tr_str(p, "type");
        cJSON *b = NULL;
        if (type && !strcmp(type, "text") && tr_str(p, "text"))
            b = text_block(tr_str(p, "text"));
        else if (type && images && !strcmp(type, "image_url"))
            b = image_block(p, f);
        else if (type) {
            char what[96];
            snprintf(what, sizeof what, "content part \"%.48s\" here", type);
            tr_refuse(f, what, LG_TR_ANTHROPIC);
        } else
            tr_err(f, LG_TR_MALFORMED, "content part without a type");
        if (!b) {
            cJSON_Delete(out);
            return NULL;
        }
        cJSON_AddItemToArray(out, b);
    }
    if (content && !cJSON_IsNull(content) && !cJSON_IsArray(content)) {
        cJSON_Delete(out);
        return tr_err(f, LG_TR_MALFORMED, "message content is neither a string nor an array");
    }
    return out;
}

/* An assistant message's tool_calls as tool_use blocks appended to blocks. */
static bool tool_uses(cJSON *blocks, const cJSON *calls, tr_fail *f)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, calls) {
        const cJSON *fn = tr_obj(c, "function");
        const char *id = tr_str(c, "id"), *name = tr_str(fn, "name"), *args = tr_str(fn, "arguments");
        cJSON *input = args ? cJSON_Parse(args) : NULL;
        if (!id || !name || !cJSON_IsObject(input)) {
            cJSON_Delete(input);
            tr_err(f, LG_TR_MALFORMED, "tool call without id, name or JSON object arguments");
            return false;
        }
        cJSON *b = cJSON_CreateObject();
        tr_add_str(b, "type", "tool_use");
        tr_add_str(b, "id", id);
        tr_add_str(b, "name", name);
        cJSON_AddItemToObject(b, "input", input);
        cJSON_AddItemToArray(blocks, b);
    }
    return true;
}

/* A tool message as a tool_result block. */
static cJSON *tool_result(const cJSON *m, tr_fail *f)
{
    const char *id = tr_str(m, "tool_call_id");
    if (!id)
        return tr_err(f, LG_TR_MALFORMED, "tool message without tool_call_id");
    cJSON *content = content_blocks(cJSON_GetObjectItemCaseSensitive(m, "content"), false, f);
    if (!content)
        return NULL;
    cJSON *b = cJSON_CreateObject();
    tr_add_str(b, "type", "tool_result");
    tr_add_str(b, "tool_use_id", id);
    cJSON_AddItemToObject(b, "content", content);
    return b;
}

/* Moves system/developer messages to `system` and the rest into alternating messages. */
static bool messages(cJSON *out, const cJSON *in, tr_fail *f)
{
    cJSON *msgs = cJSON_AddArrayToObject(out, "messages");
    char *system = NULL;
    const cJSON *m;
    cJSON_ArrayForEach(m, in) {
        const char *role = tr_str(m, "role");
        const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
        cJSON *blocks = NULL;
        if (!role) {
            tr_err(f, LG_TR_MALFORMED, "message without a role");
        } else if (!strcmp(role, "system") || !strcmp(role, "developer")) {
            cJSON *parts = content_blocks(content, false, f);
            const cJSON *p;
            cJSON_ArrayForEach(p, parts)
                if (!tr_append(&system, tr_str(p, "text"), "\n\n"))
                    tr_err(f, LG_TR_NOMEM, "out of memory");
            cJSON_Delete(parts);
        } else if (!strcmp(role, "user")) {
            if ((blocks = content_blocks(content, true, f)))
                tr_push_turn(msgs, "user", blocks, "content");
        } else if (!strcmp(role, "assistant")) {
            if (tr_used(m, "audio") || tr_used(m, "refusal"))
                tr_refuse(f, "an assistant audio or refusal message", LG_TR_ANTHROPIC);
            else if ((blocks = content_blocks(content, false, f))) {
                if (tool_uses(blocks, tr_arr(m, "tool_calls"), f))
                    tr_push_turn(msgs, "assistant", blocks, "content");
                else
                    cJSON_Delete(blocks);
            }
        } else if (!strcmp(role, "tool")) {
            cJSON *b = tool_result(m, f);
            if (b) {
                blocks = cJSON_CreateArray();
                cJSON_AddItemToArray(blocks, b);
                tr_push_turn(msgs, "user", blocks, "content");
            }
        } else {
            char what[80];
            snprintf(what, sizeof what, "role \"%.40s\"", role);
            tr_refuse(f, what, LG_TR_ANTHROPIC);
        }
        if (f->st != LG_TR_OK)
            break;
    }
    if (system && f->st == LG_TR_OK)
        tr_add_str(out, "system", system);
    free(system);
    return f->st == LG_TR_OK;
}

static bool tools(cJSON *out, const cJSON *req, tr_fail *f)
{
    const cJSON *list = tr_arr(req, "tools"), *t;
    if (list) {
        cJSON *arr = cJSON_AddArrayToObject(out, "tools");
        cJSON_ArrayForEach(t, list) {
            cJSON *d = tr_declaration(t, LG_TR_ANTHROPIC, "input_schema", f);
            if (!d)
                return false;
            if (!tr_obj(d, "input_schema")) /* required by Anthropic: a function without parameters */
                cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "input_schema"), "type", "object");
            cJSON_AddItemToArray(arr, d);
        }
    }
    const cJSON *choice = cJSON_GetObjectItemCaseSensitive(req, "tool_choice");
    bool serial = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(req, "parallel_tool_calls"));
    if (!choice && !serial)
        return true;
    static const char *const types[] = {"auto", "any", "none", "tool"};
    const char *name;
    tr_choice c = tr_tool_choice(choice, &name);
    if (c == TR_CHOICE_BAD)
        return tr_err(f, LG_TR_MALFORMED, "tool_choice is not auto, required, none or a function"), false;
    cJSON *tc = cJSON_AddObjectToObject(out, "tool_choice");
    tr_add_str(tc, "type", types[c]);
    if (c == TR_CHOICE_NAMED)
        tr_add_str(tc, "name", name);
    if (serial)
        cJSON_AddBoolToObject(tc, "disable_parallel_tool_use", true);
    return true;
}

cJSON *tr_req_openai_to_anthropic(const cJSON *req, const lg_tr_request_opts *o, tr_fail *f)
{
    const cJSON *msgs = tr_arr(req, "messages"), *t = tr_num(req, "temperature");
    const char *rf = tr_str(tr_obj(req, "response_format"), "type");
    if (!msgs)
        return tr_err(f, LG_TR_MALFORMED, "no messages array");
    if (!tr_openai_translatable(req, LG_TR_ANTHROPIC, f))
        return NULL;
    if (tr_used(req, "presence_penalty") || tr_used(req, "frequency_penalty"))
        return tr_refuse(f, "presence_penalty or frequency_penalty", LG_TR_ANTHROPIC);
    if (tr_used(req, "seed"))
        return tr_refuse(f, "seed", LG_TR_ANTHROPIC);
    if (rf && strcmp(rf, "text"))
        return tr_refuse(f, "response_format JSON", LG_TR_ANTHROPIC);
    if (t && t->valuedouble > 1)
        return tr_refuse(f, "temperature above 1", LG_TR_ANTHROPIC);
    cJSON *out = cJSON_CreateObject();
    if (o && o->model)
        tr_add_str(out, "model", o->model);
    else
        tr_copy(out, "model", req, "model");
    const cJSON *mt = tr_num(req, "max_completion_tokens");
    if (!mt)
        mt = tr_num(req, "max_tokens");
    tr_add_num(out, "max_tokens", mt ? mt->valuedouble
                                     : (o && o->default_max_tokens > 0 ? o->default_max_tokens : LG_TR_DEFAULT_MAX_TOKENS));
    if (!messages(out, msgs, f) || !tools(out, req, f)) {
        cJSON_Delete(out);
        return NULL;
    }
    tr_copy(out, "temperature", req, "temperature");
    tr_copy(out, "top_p", req, "top_p");
    const cJSON *stop = cJSON_GetObjectItemCaseSensitive(req, "stop");
    if (cJSON_IsString(stop)) {
        cJSON *a = cJSON_AddArrayToObject(out, "stop_sequences");
        cJSON_AddItemToArray(a, cJSON_CreateString(stop->valuestring));
    } else if (cJSON_IsArray(stop)) {
        tr_copy(out, "stop_sequences", req, "stop");
    }
    if (tr_str(req, "user"))
        tr_copy(cJSON_AddObjectToObject(out, "metadata"), "user_id", req, "user");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "stream")))
        cJSON_AddBoolToObject(out, "stream", true);
    return out;
}

/* ---- Anthropic -> OpenAI ---- */

/* The text of a string or an array of text blocks (other blocks refused); malloc'd, "" for none. */
static char *block_text(const cJSON *c, const char *where, tr_fail *f)
{
    char *s = NULL;
    if (cJSON_IsString(c))
        return strdup(c->valuestring);
    const cJSON *b;
    cJSON_ArrayForEach(b, c) {
        const char *type = tr_str(b, "type"), *text = tr_str(b, "text");
        if (!type || strcmp(type, "text") || !text) {
            free(s);
            char what[96];
            snprintf(what, sizeof what, "a non-text block in %s", where);
            return tr_refuse(f, what, LG_TR_OPENAI);
        }
        if (!tr_append(&s, text, "\n\n")) {
            free(s);
            return tr_err(f, LG_TR_NOMEM, "out of memory");
        }
    }
    return s ? s : strdup("");
}

static cJSON *image_part(const cJSON *b, tr_fail *f)
{
    const cJSON *src = tr_obj(b, "source");
    const char *type = tr_str(src, "type");
    cJSON *p = NULL;
    if (type && !strcmp(type, "base64") && tr_str(src, "media_type") && tr_str(src, "data")) {
        p = tr_image_url_part(tr_str(src, "media_type"), tr_str(src, "data"));
    } else if (type && !strcmp(type, "url") && tr_str(src, "url")) {
        p = cJSON_CreateObject();
        tr_add_str(p, "type", "image_url");
        tr_copy(cJSON_AddObjectToObject(p, "image_url"), "url", src, "url");
    } else {
        return tr_refuse(f, "an image source other than base64 or url", LG_TR_OPENAI);
    }
    return p ? p : tr_err(f, LG_TR_NOMEM, "out of memory");
}

static cJSON *tool_msg(const cJSON *b, tr_fail *f)
{
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "is_error")))
        return tr_refuse(f, "a tool_result marked is_error", LG_TR_OPENAI);
    if (!tr_str(b, "tool_use_id"))
        return tr_err(f, LG_TR_MALFORMED, "tool_result without tool_use_id");
    char *text = block_text(cJSON_GetObjectItemCaseSensitive(b, "content"), "a tool_result", f);
    if (!text)
        return NULL;
    cJSON *m = cJSON_CreateObject();
    tr_add_str(m, "role", "tool");
    tr_copy(m, "tool_call_id", b, "tool_use_id");
    tr_add_str(m, "content", text);
    free(text);
    return m;
}

/* One user message: tool results become tool messages (first, in order), the rest one user message. */
static bool user_msg(cJSON *out, const cJSON *content, tr_fail *f)
{
    if (cJSON_IsString(content)) {
        cJSON *m = cJSON_CreateObject();
        tr_add_str(m, "role", "user");
        tr_add_str(m, "content", content->valuestring);
        cJSON_AddItemToArray(out, m);
        return true;
    }
    cJSON *parts = cJSON_CreateArray();
    const cJSON *b;
    cJSON_ArrayForEach(b, content) {
        const char *type = tr_str(b, "type");
        cJSON *item = NULL;
        if (tr_obj(b, "cache_control"))
            tr_refuse(f, "cache_control", LG_TR_OPENAI);
        else if (type && !strcmp(type, "tool_result"))
            cJSON_AddItemToArray(out, tool_msg(b, f));
        else if (type && !strcmp(type, "text") && tr_str(b, "text")) {
            item = cJSON_CreateObject();
            tr_add_str(item, "type", "text");
            tr_copy(item, "text", b, "text");
        } else if (type && !strcmp(type, "image"))
            item = image_part(b, f);
        else
            tr_refuse(f, type ? "a user block other than text, image or tool_result" : "an untyped block",
                      LG_TR_OPENAI);
        if (item)
            cJSON_AddItemToArray(parts, item);
        if (f->st != LG_TR_OK)
            break;
    }
    if (f->st != LG_TR_OK || cJSON_GetArraySize(parts) == 0) {
        cJSON_Delete(parts);
        return f->st == LG_TR_OK;
    }
    cJSON *m = cJSON_CreateObject();
    tr_add_str(m, "role", "user");
    cJSON_AddItemToObject(m, "content", parts);
    cJSON_AddItemToArray(out, m);
    return true;
}

cJSON *tr_anthropic_assistant(const cJSON *content, tr_fail *f)
{
    cJSON *m = cJSON_CreateObject(), *calls = cJSON_CreateArray();
    char *text = NULL;
    const cJSON *b;
    if (cJSON_IsString(content))
        text = strdup(content->valuestring);
    cJSON_ArrayForEach(b, (cJSON_IsArray(content) ? content : NULL)) {
        const char *type = tr_str(b, "type");
        if (type && !strcmp(type, "text") && tr_str(b, "text")) {
            tr_append(&text, tr_str(b, "text"), "");
        } else if (type && !strcmp(type, "tool_use") && tr_str(b, "id") && tr_str(b, "name")) {
            cJSON_AddItemToArray(calls, tr_tool_call(tr_str(b, "id"), tr_str(b, "name"),
                                                     cJSON_GetObjectItemCaseSensitive(b, "input")));
        } else if (f) {
            tr_refuse(f, "an assistant block other than text or tool_use", LG_TR_OPENAI);
            break;
        } /* without f: thinking blocks are reasoning, not content; OpenAI shows none */
    }
    tr_add_str(m, "role", "assistant");
    tr_set_assistant(m, text, calls);
    return m;
}

static const char *const anthropic_known[] = {"model", "messages", "system", "max_tokens", "temperature", "top_p",
                                              "stop_sequences", "stream", "tools", "tool_choice", "metadata", NULL};

static bool openai_tools(cJSON *out, const cJSON *req, tr_fail *f)
{
    const cJSON *t, *tc = tr_obj(req, "tool_choice");
    if (tr_arr(req, "tools")) {
        cJSON *arr = cJSON_AddArrayToObject(out, "tools");
        cJSON_ArrayForEach(t, tr_arr(req, "tools")) {
            const char *type = tr_str(t, "type");
            if ((type && strcmp(type, "custom")) || !tr_str(t, "name"))
                return tr_refuse(f, "a server tool", LG_TR_OPENAI), false;
            if (tr_obj(t, "cache_control"))
                return tr_refuse(f, "cache_control", LG_TR_OPENAI), false;
            cJSON_AddItemToArray(arr, tr_function_tool(t, "input_schema"));
        }
    }
    if (!tc)
        return true;
    const char *type = tr_str(tc, "type");
    if (type && !strcmp(type, "auto"))
        tr_add_str(out, "tool_choice", "auto");
    else if (type && !strcmp(type, "any"))
        tr_add_str(out, "tool_choice", "required");
    else if (type && !strcmp(type, "none"))
        tr_add_str(out, "tool_choice", "none");
    else if (type && !strcmp(type, "tool") && tr_str(tc, "name")) {
        cJSON *c = cJSON_AddObjectToObject(out, "tool_choice");
        tr_add_str(c, "type", "function");
        tr_copy(cJSON_AddObjectToObject(c, "function"), "name", tc, "name");
    } else
        return tr_err(f, LG_TR_MALFORMED, "tool_choice type is not auto, any, tool or none"), false;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tc, "disable_parallel_tool_use")))
        cJSON_AddBoolToObject(out, "parallel_tool_calls", false);
    return true;
}

cJSON *tr_req_anthropic_to_openai(const cJSON *req, tr_fail *f)
{
    const cJSON *in = tr_arr(req, "messages"), *m, *sys = cJSON_GetObjectItemCaseSensitive(req, "system");
    if (!in)
        return tr_err(f, LG_TR_MALFORMED, "no messages array");
    if (!tr_only_known(req, anthropic_known, LG_TR_OPENAI, f))
        return NULL;
    cJSON *out = cJSON_CreateObject(), *msgs;
    tr_copy(out, "model", req, "model");
    msgs = cJSON_AddArrayToObject(out, "messages");
    if (sys)
        tr_add_message(msgs, "system", block_text(sys, "system", f));
    cJSON_ArrayForEach(m, in) {
        if (f->st != LG_TR_OK)
            break;
        const char *role = tr_str(m, "role");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "content");
        if (role && !strcmp(role, "user"))
            user_msg(msgs, c, f);
        else if (role && !strcmp(role, "assistant"))
            cJSON_AddItemToArray(msgs, tr_anthropic_assistant(c, f));
        else
            tr_err(f, LG_TR_MALFORMED, "message role is not user or assistant");
    }
    if (f->st == LG_TR_OK)
        openai_tools(out, req, f);
    if (f->st != LG_TR_OK) {
        cJSON_Delete(out);
        return NULL;
    }
    tr_copy(out, "max_tokens", req, "max_tokens");
    tr_copy(out, "temperature", req, "temperature");
    tr_copy(out, "top_p", req, "top_p");
    tr_copy(out, "stop", req, "stop_sequences");
    tr_copy(out, "user", tr_obj(req, "metadata"), "user_id");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "stream"))) {
        cJSON_AddBoolToObject(out, "stream", true);
        cJSON_AddBoolToObject(cJSON_AddObjectToObject(out, "stream_options"), "include_usage", true);
    }
    return out;
}
