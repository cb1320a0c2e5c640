/* Neutral stream events as Anthropic's event sequence: message_start, content_block_start / _delta /
 * _stop for each text or tool_use block, message_delta (stop_reason, usage), message_stop.
 * Source: docs.anthropic.com/en/docs/build-with-claude/streaming. */
#include <stdio.h>
#include <string.h>

#include "translate/stream.h"

static cJSON *typed(const char *type)
{
    cJSON *o = cJSON_CreateObject();
    tr_add_str(o, "type", type);
    return o;
}

static bool close_block(struct lg_tr_stream *s, tr_emit_state *es)
{
    if (es->block < 0)
        return true;
    cJSON *e = typed("content_block_stop");
    tr_add_num(e, "index", es->block);
    es->block = -1;
    return tr_stream_send(s, "content_block_stop", e, NULL);
}

/* Opens block number es->blocks with content_block (taken). */
static bool open_block(struct lg_tr_stream *s, tr_emit_state *es, cJSON *content_block, bool text)
{
    if (!close_block(s, es)) {
        cJSON_Delete(content_block);
        return false;
    }
    es->block = es->blocks++;
    es->block_is_text = text;
    cJSON *e = typed("content_block_start");
    tr_add_num(e, "index", es->block);
    cJSON_AddItemToObject(e, "content_block", content_block);
    return tr_stream_send(s, "content_block_start", e, NULL);
}

static bool delta(struct lg_tr_stream *s, tr_emit_state *es, const char *type, const char *field, const char *v)
{
    cJSON *e = typed("content_block_delta"), *d = typed(type);
    tr_add_num(e, "index", es->block);
    tr_add_str(d, field, v);
    cJSON_AddItemToObject(e, "delta", d);
    return tr_stream_send(s, "content_block_delta", e, NULL);
}

bool tr_emit_anthropic(struct lg_tr_stream *s, tr_emit_state *es, const tr_ev *ev)
{
    cJSON *e, *m, *b;
    switch (ev->kind) {
    case TR_EV_START:
        e = typed("message_start");
        m = cJSON_AddObjectToObject(e, "message");
        tr_add_str(m, "id", ev->id ? ev->id : "msg_stream");
        tr_add_str(m, "type", "message");
        tr_add_str(m, "role", "assistant");
        tr_add_str(m, "model", ev->model);
        cJSON_AddArrayToObject(m, "content");
        cJSON_AddNullToObject(m, "stop_reason");
        cJSON_AddNullToObject(m, "stop_sequence");
        cJSON_AddItemToObject(m, "usage", tr_usage_make(LG_TR_ANTHROPIC, &(tr_usage){0}));
        return tr_stream_send(s, "message_start", e, NULL);
    case TR_EV_TEXT:
        if (es->block < 0 || !es->block_is_text) {
            b = typed("text");
            tr_add_str(b, "text", "");
            if (!open_block(s, es, b, true))
                return false;
        }
        return delta(s, es, "text_delta", "text", ev->text);
    case TR_EV_TOOL_START:
        b = typed("tool_use");
        tr_add_str(b, "id", ev->id);
        tr_add_str(b, "name", ev->name);
        cJSON_AddObjectToObject(b, "input");
        return open_block(s, es, b, false);
    case TR_EV_TOOL_ARGS:
        return es->block < 0 || es->block_is_text || delta(s, es, "input_json_delta", "partial_json", ev->text);
    case TR_EV_FINISH:
    case TR_EV_USAGE:
        return tr_emit_remember(es, ev);
    case TR_EV_END:
        if (!close_block(s, es))
            return false;
        e = typed("message_delta");
        m = cJSON_AddObjectToObject(e, "delta");
        if (tr_finish_name(LG_TR_ANTHROPIC, es->finish))
            tr_add_str(m, "stop_reason", tr_finish_name(LG_TR_ANTHROPIC, es->finish));
        else
            cJSON_AddNullToObject(m, "stop_reason");
        cJSON_AddNullToObject(m, "stop_sequence");
        cJSON_AddItemToObject(e, "usage", tr_usage_make(LG_TR_ANTHROPIC, &es->usage));
        return tr_stream_send(s, "message_delta", e, NULL) && tr_stream_send(s, "message_stop", typed("message_stop"), NULL);
    case TR_EV_ERROR:
        return tr_stream_send(s, "error", tr_error_make(LG_TR_ANTHROPIC, ev->status, ev->text, false), NULL);
    }
    return true;
}
