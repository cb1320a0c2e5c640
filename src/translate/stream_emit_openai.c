/* Neutral stream events as OpenAI chat.completion.chunk events, ending in "data: [DONE]"; the usage chunk
 * (empty choices) before it when the host asked for include_usage.
 * Source: platform.openai.com/docs/api-reference/chat-streaming/streaming. */
#include <stdio.h>
#include <string.h>

#include "translate/stream.h"

/* A chunk with one choice whose delta is `delta` (taken), or no choice when delta is NULL. */
static cJSON *chunk(const tr_emit_state *es, const lg_tr_stream_opts *o, cJSON *delta, const char *finish)
{
    cJSON *c = cJSON_CreateObject(), *choices;
    tr_add_str(c, "id", es->id);
    tr_add_str(c, "object", "chat.completion.chunk");
    tr_add_num(c, "created", (double)o->resp.created);
    tr_add_str(c, "model", es->model);
    choices = cJSON_AddArrayToObject(c, "choices");
    if (delta) {
        cJSON *ch = cJSON_CreateObject();
        tr_add_num(ch, "index", 0);
        cJSON_AddItemToObject(ch, "delta", delta);
        cJSON_AddNullToObject(ch, "logprobs");
        if (finish)
            tr_add_str(ch, "finish_reason", finish);
        else
            cJSON_AddNullToObject(ch, "finish_reason");
        cJSON_AddItemToArray(choices, ch);
    }
    if (o->include_usage) /* every chunk but the last carries "usage": null */
        cJSON_AddNullToObject(c, "usage");
    return c;
}

static cJSON *tool_delta(const tr_ev *ev)
{
    cJSON *d = cJSON_CreateObject(), *t = cJSON_CreateObject(), *f;
    cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "tool_calls"), t);
    tr_add_num(t, "index", ev->index);
    if (ev->kind == TR_EV_TOOL_START) {
        tr_add_str(t, "id", ev->id);
        tr_add_str(t, "type", "function");
    }
    f = cJSON_AddObjectToObject(t, "function");
    if (ev->kind == TR_EV_TOOL_START)
        tr_add_str(f, "name", ev->name);
    tr_add_str(f, "arguments", ev->kind == TR_EV_TOOL_ARGS ? ev->text : "");
    return d;
}

bool tr_emit_openai(struct lg_tr_stream *s, tr_emit_state *es, const lg_tr_stream_opts *o, const tr_ev *ev)
{
    cJSON *d;
    switch (ev->kind) {
    case TR_EV_START:
        snprintf(es->id, sizeof es->id, "%s", ev->id ? ev->id : "chatcmpl-stream");
        snprintf(es->model, sizeof es->model, "%s", ev->model ? ev->model : o->resp.model ? o->resp.model : "");
        d = cJSON_CreateObject();
        tr_add_str(d, "role", "assistant");
        tr_add_str(d, "content", "");
        return tr_stream_send(s, NULL, chunk(es, o, d, NULL), NULL);
    case TR_EV_TEXT:
        d = cJSON_CreateObject();
        tr_add_str(d, "content", ev->text);
        return tr_stream_send(s, NULL, chunk(es, o, d, NULL), NULL);
    case TR_EV_TOOL_START:
    case TR_EV_TOOL_ARGS:
        return tr_stream_send(s, NULL, chunk(es, o, tool_delta(ev), NULL), NULL);
    case TR_EV_FINISH:
        return tr_stream_send(s, NULL, chunk(es, o, cJSON_CreateObject(), tr_finish_name(LG_TR_OPENAI, ev->finish)),
                              NULL);
    case TR_EV_USAGE:
        return tr_emit_remember(es, ev);
    case TR_EV_END:
        if (o->include_usage && es->usage.present) {
            cJSON *c = chunk(es, o, NULL, NULL);
            cJSON_ReplaceItemInObjectCaseSensitive(c, "usage", tr_usage_make(LG_TR_OPENAI, &es->usage));
            if (!tr_stream_send(s, NULL, c, NULL))
                return false;
        }
        return tr_stream_send(s, NULL, NULL, "[DONE]");
    case TR_EV_ERROR:
        return tr_stream_send(s, NULL, tr_error_make(LG_TR_OPENAI, ev->status, ev->text, false), NULL);
    }
    return true;
}
