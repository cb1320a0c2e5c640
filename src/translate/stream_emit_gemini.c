/* Neutral stream events as Gemini streamGenerateContent (alt=sse) chunks: one GenerateContentResponse per
 * text piece, function calls whole once their arguments are complete, finishReason and usageMetadata in
 * the last chunk. Source: ai.google.dev/api/generate-content#method:-models.streamgeneratecontent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate/stream.h"

/* A chunk whose candidate holds parts (taken; NULL for none) and finishReason when finish. */
static cJSON *chunk(const tr_emit_state *es, cJSON *parts, const char *finish)
{
    cJSON *c = cJSON_CreateObject(), *cand = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(c, "candidates"), cand);
    if (parts) {
        cJSON *content = cJSON_AddObjectToObject(cand, "content");
        cJSON_AddItemToObject(content, "parts", parts);
        tr_add_str(content, "role", "model");
    }
    if (finish)
        tr_add_str(cand, "finishReason", finish);
    tr_add_num(cand, "index", 0);
    if (es->model[0])
        tr_add_str(c, "modelVersion", es->model);
    if (es->id[0])
        tr_add_str(c, "responseId", es->id);
    return c;
}

/* Sends the function calls assembled so far, each with its arguments parsed. */
static bool flush_calls(struct lg_tr_stream *s, tr_emit_state *es)
{
    if (!cJSON_GetArraySize(es->calls))
        return true;
    cJSON *parts = cJSON_CreateArray(), *c;
    cJSON_ArrayForEach(c, es->calls) {
        cJSON *p = cJSON_CreateObject(), *fc = cJSON_AddObjectToObject(p, "functionCall");
        const char *args = tr_str(c, "args");
        cJSON *a = cJSON_Parse(args && *args ? args : "{}");
        tr_copy(fc, "name", c, "name");
        cJSON_AddItemToObject(fc, "args", cJSON_IsObject(a) ? a : cJSON_CreateObject());
        if (!cJSON_IsObject(a))
            cJSON_Delete(a);
        cJSON_AddItemToArray(parts, p);
    }
    cJSON_Delete(es->calls);
    es->calls = NULL;
    return tr_stream_send(s, NULL, chunk(es, parts, NULL), NULL);
}

/* Appends a piece of arguments to the call being assembled last. */
static bool add_args(tr_emit_state *es, const char *piece)
{
    cJSON *last = cJSON_GetArrayItem(es->calls, cJSON_GetArraySize(es->calls) - 1);
    if (!last)
        return true;
    char *acc = strdup(tr_str(last, "args") ? tr_str(last, "args") : "");
    if (!acc || !tr_append(&acc, piece, "")) {
        free(acc);
        return false;
    }
    cJSON_ReplaceItemInObjectCaseSensitive(last, "args", cJSON_CreateString(acc));
    free(acc);
    return true;
}

bool tr_emit_gemini(struct lg_tr_stream *s, tr_emit_state *es, const tr_ev *ev)
{
    cJSON *parts, *c;
    switch (ev->kind) {
    case TR_EV_START:
        snprintf(es->id, sizeof es->id, "%s", ev->id ? ev->id : "");
        snprintf(es->model, sizeof es->model, "%s", ev->model ? ev->model : "");
        return true;
    case TR_EV_TEXT:
        if (!flush_calls(s, es))
            return false;
        parts = cJSON_CreateArray();
        cJSON_AddItemToArray(parts, c = cJSON_CreateObject());
        tr_add_str(c, "text", ev->text);
        return tr_stream_send(s, NULL, chunk(es, parts, NULL), NULL);
    case TR_EV_TOOL_START:
        if (!es->calls)
            es->calls = cJSON_CreateArray();
        cJSON_AddItemToArray(es->calls, c = cJSON_CreateObject());
        tr_add_str(c, "name", ev->name);
        tr_add_str(c, "args", "");
        return true;
    case TR_EV_TOOL_ARGS:
        return add_args(es, ev->text);
    case TR_EV_FINISH:
    case TR_EV_USAGE:
        return tr_emit_remember(es, ev);
    case TR_EV_END:
        if (!flush_calls(s, es))
            return false;
        c = chunk(es, NULL, tr_finish_name(LG_TR_GEMINI, es->finish));
        if (es->usage.present)
            cJSON_AddItemToObject(c, "usageMetadata", tr_usage_make(LG_TR_GEMINI, &es->usage));
        return tr_stream_send(s, NULL, c, NULL);
    case TR_EV_ERROR:
        return tr_stream_send(s, NULL, tr_error_make(LG_TR_GEMINI, ev->status, ev->text, false), NULL);
    }
    return true;
}
