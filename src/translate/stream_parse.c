/* Target stream events as neutral events (first choice only).
 * Sources: platform.openai.com/docs/api-reference/chat-streaming (chat.completion.chunk: delta.role/content/
 * tool_calls[index, id, function.name/arguments], finish_reason, a last chunk with usage and empty choices
 * when stream_options.include_usage, "data: [DONE]"); docs.anthropic.com/en/docs/build-with-claude/streaming
 * (message_start, content_block_start/delta/stop with text_delta and input_json_delta, message_delta with
 * stop_reason and cumulative usage, message_stop, ping, error); ai.google.dev/api/generate-content
 * #method:-models.streamgeneratecontent (alt=sse: each event one GenerateContentResponse, the last with
 * finishReason and usageMetadata). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate/stream.h"

typedef bool (*ev_fn)(struct lg_tr_stream *, const tr_ev *);

static bool send_ev(struct lg_tr_stream *s, ev_fn fn, tr_ev ev)
{
    return fn(s, &ev);
}

static bool error_ev(struct lg_tr_stream *s, ev_fn fn, const cJSON *e, int status)
{
    const cJSON *err = tr_obj(e, "error");
    const char *m = tr_str(err, "message");
    const cJSON *code = tr_num(err, "code");
    const char *type = tr_str(err, "type");
    if (!status)
        status = code ? (int)tr_clamp(code, 100, 599, 500)
                 : type && (strstr(type, "overloaded")) ? 529
                 : type && (strstr(type, "rate_limit")) ? 429 : 500;
    return send_ev(s, fn, (tr_ev){.kind = TR_EV_ERROR, .text = m ? m : "stream error", .status = status});
}

static bool start(struct lg_tr_stream *s, ev_fn fn, tr_parse_state *ps, const char *id, const char *model)
{
    if (ps->started)
        return true;
    ps->started = true;
    return send_ev(s, fn, (tr_ev){.kind = TR_EV_START, .id = id, .model = model});
}

static bool openai_event(const cJSON *c, tr_parse_state *ps, struct lg_tr_stream *s, ev_fn fn)
{
    if (tr_obj(c, "error"))
        return error_ev(s, fn, c, 0);
    if (!tr_arr(c, "choices"))
        return false;
    bool ok = start(s, fn, ps, tr_str(c, "id"), tr_str(c, "model"));
    const cJSON *ch = tr_arr(c, "choices")->child, *delta = tr_obj(ch, "delta"), *t;
    const char *text = tr_str(delta, "content"), *fin = tr_str(ch, "finish_reason");
    if (ok && text && *text)
        ok = send_ev(s, fn, (tr_ev){.kind = TR_EV_TEXT, .text = text});
    cJSON_ArrayForEach(t, tr_arr(delta, "tool_calls")) {
        const cJSON *ix = tr_num(t, "index"), *f = tr_obj(t, "function");
        int index = (int)tr_clamp(ix, 0, 1 << 20, 0);
        const char *args = tr_str(f, "arguments");
        if (ok && tr_str(t, "id"))
            ok = send_ev(s, fn, (tr_ev){.kind = TR_EV_TOOL_START, .id = tr_str(t, "id"), .name = tr_str(f, "name"),
                                        .index = index});
        if (ok && args && *args)
            ok = send_ev(s, fn, (tr_ev){.kind = TR_EV_TOOL_ARGS, .text = args, .index = index});
    }
    if (ok && fin)
        ok = send_ev(s, fn, (tr_ev){.kind = TR_EV_FINISH, .finish = tr_finish_parse(LG_TR_OPENAI, fin)});
    if (ok && tr_obj(c, "usage"))
        ok = send_ev(s, fn, (tr_ev){.kind = TR_EV_USAGE, .usage = tr_usage_read(LG_TR_OPENAI, tr_obj(c, "usage"))});
    return ok;
}

/* Adds the non-zero counts of an Anthropic usage object to ps->usage (message_delta's are cumulative). */
static void anthropic_usage(tr_parse_state *ps, const cJSON *u)
{
    tr_usage n = tr_usage_read(LG_TR_ANTHROPIC, u);
    if (!n.present)
        return;
    if (tr_num(u, "input_tokens") || tr_num(u, "cache_read_input_tokens"))
        ps->usage.prompt = n.prompt, ps->usage.cached = n.cached, ps->usage.cache_write = n.cache_write;
    if (tr_num(u, "output_tokens"))
        ps->usage.completion = n.completion;
    ps->usage.present = true;
}

static bool anthropic_event(const cJSON *c, tr_parse_state *ps, struct lg_tr_stream *s, ev_fn fn)
{
    const char *type = tr_str(c, "type");
    const cJSON *ix = tr_num(c, "index");
    int block = ix && ix->valuedouble >= 0 && ix->valuedouble < TR_MAX_BLOCKS ? (int)ix->valuedouble : -1;
    if (!type)
        return false;
    if (!strcmp(type, "error"))
        return error_ev(s, fn, c, 0);
    if (!strcmp(type, "message_start")) {
        const cJSON *m = tr_obj(c, "message");
        anthropic_usage(ps, tr_obj(m, "usage"));
        return start(s, fn, ps, tr_str(m, "id"), tr_str(m, "model"));
    }
    if (!strcmp(type, "content_block_start")) {
        const cJSON *b = tr_obj(c, "content_block");
        const char *bt = tr_str(b, "type");
        if (block < 0 || !bt)
            return false;
        if (!strcmp(bt, "tool_use")) {
            ps->block_tool[block] = ++ps->tools;
            return send_ev(s, fn, (tr_ev){.kind = TR_EV_TOOL_START, .id = tr_str(b, "id"), .name = tr_str(b, "name"),
                                          .index = ps->tools - 1});
        }
        if (!strcmp(bt, "text") && tr_str(b, "text") && *tr_str(b, "text"))
            return send_ev(s, fn, (tr_ev){.kind = TR_EV_TEXT, .text = tr_str(b, "text")});
        return true; /* thinking blocks are reasoning, not content */
    }
    if (!strcmp(type, "content_block_delta")) {
        const cJSON *d = tr_obj(c, "delta");
        const char *dt = tr_str(d, "type");
        if (block < 0 || !dt)
            return false;
        if (!strcmp(dt, "text_delta") && tr_str(d, "text"))
            return send_ev(s, fn, (tr_ev){.kind = TR_EV_TEXT, .text = tr_str(d, "text")});
        if (!strcmp(dt, "input_json_delta") && tr_str(d, "partial_json") && ps->block_tool[block]) {
            if (!*tr_str(d, "partial_json"))
                return true;
            return send_ev(s, fn, (tr_ev){.kind = TR_EV_TOOL_ARGS, .text = tr_str(d, "partial_json"),
                                          .index = ps->block_tool[block] - 1});
        }
        return true; /* thinking_delta, signature_delta, citations */
    }
    if (!strcmp(type, "message_delta")) {
        anthropic_usage(ps, tr_obj(c, "usage"));
        const char *stop = tr_str(tr_obj(c, "delta"), "stop_reason");
        bool ok = !stop || send_ev(s, fn, (tr_ev){.kind = TR_EV_FINISH, .finish = tr_finish_parse(LG_TR_ANTHROPIC, stop)});
        return ok && send_ev(s, fn, (tr_ev){.kind = TR_EV_USAGE, .usage = ps->usage});
    }
    if (!strcmp(type, "message_stop"))
        return send_ev(s, fn, (tr_ev){.kind = TR_EV_END});
    return true; /* ping, content_block_stop, and event types added later */
}

static bool gemini_event(const cJSON *c, tr_parse_state *ps, struct lg_tr_stream *s, ev_fn fn)
{
    if (tr_obj(c, "error"))
        return error_ev(s, fn, c, 0);
    const cJSON *cands = tr_arr(c, "candidates"), *cand = cands ? cands->child : NULL, *p;
    const char *blocked = tr_str(tr_obj(c, "promptFeedback"), "blockReason");
    if (!cands && !blocked && !tr_obj(c, "usageMetadata"))
        return false;
    bool ok = start(s, fn, ps, tr_str(c, "responseId"), tr_str(c, "modelVersion"));
    cJSON_ArrayForEach(p, tr_arr(tr_obj(cand, "content"), "parts")) {
        const cJSON *fc = tr_obj(p, "functionCall");
        if (!ok)
            break;
        if (tr_str(p, "text") && *tr_str(p, "text") && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "thought"))) {
            ok = send_ev(s, fn, (tr_ev){.kind = TR_EV_TEXT, .text = tr_str(p, "text")});
        } else if (fc && tr_str(fc, "name")) {
            char id[48], *args = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(fc, "args"));
            if (tr_str(fc, "id"))
                snprintf(id, sizeof id, "%.47s", tr_str(fc, "id"));
            else
                snprintf(id, sizeof id, "call_0_%d", ps->tools);
            int index = ps->tools++;
            ok = send_ev(s, fn, (tr_ev){.kind = TR_EV_TOOL_START, .id = id, .name = tr_str(fc, "name"), .index = index}) &&
                 send_ev(s, fn, (tr_ev){.kind = TR_EV_TOOL_ARGS, .text = args ? args : "{}", .index = index});
            free(args);
        }
    }
    if (tr_obj(c, "usageMetadata"))
        ps->usage = tr_usage_read(LG_TR_GEMINI, tr_obj(c, "usageMetadata"));
    const char *fin = tr_str(cand, "finishReason");
    if (ok && (fin || blocked)) {
        tr_finish f = blocked ? TR_FIN_FILTER : tr_finish_parse(LG_TR_GEMINI, fin);
        if (f == TR_FIN_STOP && ps->tools)
            f = TR_FIN_TOOL;
        ok = send_ev(s, fn, (tr_ev){.kind = TR_EV_FINISH, .finish = f});
        if (ok && ps->usage.present)
            ok = send_ev(s, fn, (tr_ev){.kind = TR_EV_USAGE, .usage = ps->usage});
        ok = ok && send_ev(s, fn, (tr_ev){.kind = TR_EV_END});
    }
    return ok;
}

bool tr_parse_event(lg_tr_dialect target, tr_parse_state *ps, const char *data, struct lg_tr_stream *s, ev_fn fn)
{
    if (target == LG_TR_OPENAI && !strcmp(data, "[DONE]"))
        return send_ev(s, fn, (tr_ev){.kind = TR_EV_END});
    cJSON *c = cJSON_Parse(data);
    bool ok;
    if (cJSON_IsArray(c) && target == LG_TR_GEMINI && tr_obj(c->child, "error")) /* an error as a JSON array */
        ok = error_ev(s, fn, c->child, 0);
    else if (!cJSON_IsObject(c))
        ok = false;
    else if (target == LG_TR_ANTHROPIC)
        ok = anthropic_event(c, ps, s, fn);
    else if (target == LG_TR_GEMINI)
        ok = gemini_event(c, ps, s, fn);
    else
        ok = openai_event(c, ps, s, fn);
    cJSON_Delete(c);
    return ok;
}
