/* Successful answers per dialect (see success.h). Streams split the text into three deltas. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mock/success.h"

static const char *const PIECES[] = {"你好，", "世界", " — ok"};
#define N_PIECES 3

/* Tokens of completion counted after piece i (cumulative, ends at total). */
static int64_t tokens_after(int64_t total, int i)
{
    return total * (i + 1) / N_PIECES;
}

/* Writes one SSE event: optional "event: NAME" line, the data line, then sep; deletes obj. */
static void sse(FILE *f, const char *event, cJSON *obj, const char *sep)
{
    char *s = cJSON_PrintUnformatted(obj);
    if (event)
        fprintf(f, "event: %s\n", event);
    fprintf(f, "data: %s%s", s ? s : "{}", sep);
    free(s);
    cJSON_Delete(obj);
}

/* Closes the stream f that writes *buf and makes its text r's streamed 200 body. */
static void finish_stream(mock_reply *r, FILE *f, char **buf, const char *content_type)
{
    fclose(f);
    r->status = 200;
    r->stream = true;
    mock_reply_header(r, "Content-Type", "%s", content_type);
    mock_reply_take_body(r, *buf);
}

static cJSON *usage_openai(const mock_request *q)
{
    cJSON *u = cJSON_CreateObject();
    cJSON_AddNumberToObject(u, "prompt_tokens", (double)q->prompt_tokens);
    cJSON_AddNumberToObject(u, "completion_tokens", (double)q->completion_tokens);
    cJSON_AddNumberToObject(u, "total_tokens", (double)(q->prompt_tokens + q->completion_tokens));
    return u;
}

/* The common head of an OpenAI chat or completion object or chunk. */
static cJSON *openai_head(const mock_request *q, int64_t serial, const char *object)
{
    char id[64];
    bool chat = q->endpoint == MOCK_EP_CHAT;
    snprintf(id, sizeof id, "%s-mock-%lld", chat ? "chatcmpl" : "cmpl", (long long)serial);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "object", object);
    cJSON_AddNumberToObject(o, "created", (double)time(NULL));
    cJSON_AddStringToObject(o, "model", q->model);
    cJSON_AddStringToObject(o, "system_fingerprint", "fp_mock");
    return o;
}

/* One choice: a chat message / delta, or a completion text; finish may be NULL. */
static cJSON *openai_choice(const mock_request *q, bool delta, bool role, const char *text, const char *finish)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "index", 0);
    if (q->endpoint == MOCK_EP_CHAT) {
        cJSON *m = cJSON_AddObjectToObject(c, delta ? "delta" : "message");
        if (role)
            cJSON_AddStringToObject(m, "role", "assistant");
        if (text)
            cJSON_AddStringToObject(m, "content", text);
    } else {
        cJSON_AddStringToObject(c, "text", text ? text : "");
    }
    cJSON_AddNullToObject(c, "logprobs");
    if (finish)
        cJSON_AddStringToObject(c, "finish_reason", finish);
    else
        cJSON_AddNullToObject(c, "finish_reason");
    return c;
}

static void openai_chat(mock_reply *r, const mock_request *q, int64_t serial)
{
    bool chat = q->endpoint == MOCK_EP_CHAT;
    const char *obj = chat ? "chat.completion" : "text_completion";
    if (!q->stream) {
        cJSON *o = openai_head(q, serial, obj);
        cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "choices"),
                             openai_choice(q, false, true, MOCK_REPLY_TEXT, "stop"));
        cJSON_AddItemToObject(o, "usage", usage_openai(q));
        cJSON_AddStringToObject(o, "mock_key", q->key);
        mock_reply_json(r, 200, o, 0);
        return;
    }
    const char *cobj = chat ? "chat.completion.chunk" : "text_completion";
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int i = -1; i <= N_PIECES; i++) {
        if (!chat && i < 0)
            continue;
        cJSON *o = openai_head(q, serial, cobj);
        const char *text = i < 0 ? "" : i < N_PIECES ? PIECES[i] : NULL;
        cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "choices"),
                             openai_choice(q, true, i < 0, text, i == N_PIECES ? "stop" : NULL));
        if (q->include_usage)
            cJSON_AddNullToObject(o, "usage");
        if (i == (chat ? -1 : 0))
            cJSON_AddStringToObject(o, "mock_key", q->key);
        sse(f, NULL, o, "\n\n");
    }
    if (q->include_usage) {
        cJSON *o = openai_head(q, serial, cobj);
        cJSON_AddArrayToObject(o, "choices");
        cJSON_AddItemToObject(o, "usage", usage_openai(q));
        sse(f, NULL, o, "\n\n");
    }
    fputs("data: [DONE]\n\n", f);
    finish_stream(r, f, &buf, "text/event-stream; charset=utf-8");
}

static void openai_embedding(mock_reply *r, const mock_request *q)
{
    static const double vec[] = {0.0023064255, -0.009327292, 0.015797347, -0.0077780345};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "object", "list");
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "object", "embedding");
    cJSON_AddNumberToObject(d, "index", 0);
    cJSON_AddItemToObject(d, "embedding", cJSON_CreateDoubleArray(vec, 4));
    cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "data"), d);
    cJSON_AddStringToObject(o, "model", q->model);
    cJSON *u = cJSON_AddObjectToObject(o, "usage");
    cJSON_AddNumberToObject(u, "prompt_tokens", (double)q->prompt_tokens);
    cJSON_AddNumberToObject(u, "total_tokens", (double)q->prompt_tokens);
    cJSON_AddStringToObject(o, "mock_key", q->key);
    mock_reply_json(r, 200, o, 0);
}

/* A Responses API response object; complete or in progress (no output, no usage). */
static cJSON *response_object(const mock_request *q, int64_t serial, bool complete)
{
    char id[64];
    cJSON *o = cJSON_CreateObject();
    snprintf(id, sizeof id, "resp_mock-%lld", (long long)serial);
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "object", "response");
    cJSON_AddNumberToObject(o, "created_at", (double)time(NULL));
    cJSON_AddStringToObject(o, "status", complete ? "completed" : "in_progress");
    cJSON_AddStringToObject(o, "model", q->model);
    cJSON *out = cJSON_AddArrayToObject(o, "output");
    if (!complete) {
        cJSON_AddNullToObject(o, "usage");
        return o;
    }
    cJSON *m = cJSON_CreateObject();
    snprintf(id, sizeof id, "msg_mock-%lld", (long long)serial);
    cJSON_AddStringToObject(m, "type", "message");
    cJSON_AddStringToObject(m, "id", id);
    cJSON_AddStringToObject(m, "status", "completed");
    cJSON_AddStringToObject(m, "role", "assistant");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", "output_text");
    cJSON_AddStringToObject(c, "text", MOCK_REPLY_TEXT);
    cJSON_AddArrayToObject(c, "annotations");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(m, "content"), c);
    cJSON_AddItemToArray(out, m);
    cJSON *u = cJSON_AddObjectToObject(o, "usage");
    cJSON_AddNumberToObject(u, "input_tokens", (double)q->prompt_tokens);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(u, "input_tokens_details"), "cached_tokens", 0);
    cJSON_AddNumberToObject(u, "output_tokens", (double)q->completion_tokens);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(u, "output_tokens_details"), "reasoning_tokens", 0);
    cJSON_AddNumberToObject(u, "total_tokens", (double)(q->prompt_tokens + q->completion_tokens));
    cJSON_AddStringToObject(o, "mock_key", q->key);
    return o;
}

static void openai_responses(mock_reply *r, const mock_request *q, int64_t serial)
{
    if (!q->stream) {
        mock_reply_json(r, 200, response_object(q, serial, true), 0);
        return;
    }
    char *buf = NULL, item[64];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    snprintf(item, sizeof item, "msg_mock-%lld", (long long)serial);
    int seq = 0;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "type", "response.created");
    cJSON_AddNumberToObject(e, "sequence_number", seq++);
    cJSON_AddItemToObject(e, "response", response_object(q, serial, false));
    sse(f, "response.created", e, "\n\n");
    for (int i = 0; i < N_PIECES; i++) {
        e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "type", "response.output_text.delta");
        cJSON_AddNumberToObject(e, "sequence_number", seq++);
        cJSON_AddStringToObject(e, "item_id", item);
        cJSON_AddNumberToObject(e, "output_index", 0);
        cJSON_AddNumberToObject(e, "content_index", 0);
        cJSON_AddStringToObject(e, "delta", PIECES[i]);
        sse(f, "response.output_text.delta", e, "\n\n");
    }
    e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "type", "response.completed");
    cJSON_AddNumberToObject(e, "sequence_number", seq);
    cJSON_AddItemToObject(e, "response", response_object(q, serial, true));
    sse(f, "response.completed", e, "\n\n");
    finish_stream(r, f, &buf, "text/event-stream; charset=utf-8");
}

static void anthropic(mock_reply *r, const mock_request *q, int64_t serial)
{
    char id[64];
    snprintf(id, sizeof id, "msg_mock-%lld", (long long)serial);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "id", id);
    cJSON_AddStringToObject(m, "type", "message");
    cJSON_AddStringToObject(m, "role", "assistant");
    cJSON_AddStringToObject(m, "model", q->model);
    cJSON *content = cJSON_AddArrayToObject(m, "content");
    cJSON *u = cJSON_CreateObject();
    cJSON_AddNumberToObject(u, "input_tokens", (double)q->prompt_tokens);
    cJSON_AddNumberToObject(u, "cache_creation_input_tokens", 0);
    /* a test's X-Mock-Cache-Read header: that many prompt tokens read from the cache (prices differ) */
    const char *cache_read = lg_header_get(q->headers, q->n_headers, "x-mock-cache-read");
    cJSON_AddNumberToObject(u, "cache_read_input_tokens", cache_read ? atof(cache_read) : 0);
    cJSON_AddStringToObject(m, "mock_key", q->key);
    if (!q->stream) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "type", "text");
        cJSON_AddStringToObject(t, "text", MOCK_REPLY_TEXT);
        cJSON_AddItemToArray(content, t);
        cJSON_AddStringToObject(m, "stop_reason", "end_turn");
        cJSON_AddNullToObject(m, "stop_sequence");
        cJSON_AddNumberToObject(u, "output_tokens", (double)q->completion_tokens);
        cJSON_AddItemToObject(m, "usage", u);
        mock_reply_json(r, 200, m, 0);
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cJSON_AddNullToObject(m, "stop_reason");
    cJSON_AddNullToObject(m, "stop_sequence");
    cJSON_AddNumberToObject(u, "output_tokens", 1);
    cJSON_AddItemToObject(m, "usage", u);
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "type", "message_start");
    cJSON_AddItemToObject(e, "message", m);
    sse(f, "message_start", e, "\n\n");
    fputs("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
          "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
          "event: ping\ndata: {\"type\":\"ping\"}\n\n", f);
    for (int i = 0; i < N_PIECES; i++) {
        e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "type", "content_block_delta");
        cJSON_AddNumberToObject(e, "index", 0);
        cJSON *d = cJSON_AddObjectToObject(e, "delta");
        cJSON_AddStringToObject(d, "type", "text_delta");
        cJSON_AddStringToObject(d, "text", PIECES[i]);
        sse(f, "content_block_delta", e, "\n\n");
    }
    fputs("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n", f);
    fprintf(f, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
               "\"stop_sequence\":null},\"usage\":{\"output_tokens\":%lld}}\n\n"
               "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
            (long long)q->completion_tokens);
    finish_stream(r, f, &buf, "text/event-stream; charset=utf-8");
}

/* One Gemini GenerateContentResponse carrying text, with usage after `completion` output tokens;
 * wrapped in {"response": ...} for Cloud Code. */
static cJSON *gemini_chunk(const mock_request *q, int64_t serial, const char *text, bool last,
                           int64_t completion)
{
    char id[64];
    snprintf(id, sizeof id, "mock-%lld", (long long)serial);
    cJSON *o = cJSON_CreateObject();
    cJSON *cand = cJSON_CreateObject();
    cJSON *content = cJSON_AddObjectToObject(cand, "content");
    cJSON *part = cJSON_CreateObject();
    cJSON_AddStringToObject(part, "text", text);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(content, "parts"), part);
    cJSON_AddStringToObject(content, "role", "model");
    if (last)
        cJSON_AddStringToObject(cand, "finishReason", "STOP");
    cJSON_AddNumberToObject(cand, "index", 0);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "candidates"), cand);
    cJSON *u = cJSON_AddObjectToObject(o, "usageMetadata");
    cJSON_AddNumberToObject(u, "promptTokenCount", (double)q->prompt_tokens);
    cJSON_AddNumberToObject(u, "candidatesTokenCount", (double)completion);
    cJSON_AddNumberToObject(u, "totalTokenCount", (double)(q->prompt_tokens + completion));
    cJSON_AddStringToObject(o, "modelVersion", q->model);
    cJSON_AddStringToObject(o, "responseId", id);
    cJSON_AddStringToObject(o, "mock_key", q->key);
    if (!q->cloudcode)
        return o;
    cJSON *w = cJSON_CreateObject();
    cJSON_AddItemToObject(w, "response", o);
    cJSON_AddStringToObject(w, "traceId", id);
    return w;
}

static void gemini(mock_reply *r, const mock_request *q, int64_t serial)
{
    if (!q->stream) {
        mock_reply_json(r, 200, gemini_chunk(q, serial, MOCK_REPLY_TEXT, true, q->completion_tokens), 2);
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!q->google_sse)
        fputc('[', f);
    for (int i = 0; i < N_PIECES; i++) {
        cJSON *c = gemini_chunk(q, serial, PIECES[i], i == N_PIECES - 1, tokens_after(q->completion_tokens, i));
        if (q->google_sse) {
            sse(f, NULL, c, "\r\n\r\n");
            continue;
        }
        char *s = mock_json_print(c, 2);
        fprintf(f, "%s%s", i ? ",\r\n" : "", s ? s : "{}");
        free(s);
        cJSON_Delete(c);
    }
    if (q->google_sse) {
        finish_stream(r, f, &buf, "text/event-stream");
        return;
    }
    fputc(']', f);
    finish_stream(r, f, &buf, "application/json; charset=UTF-8");
}

/* One DashScope native output: text, finish reason, usage after `completion` output tokens. */
static cJSON *dashscope_output(const mock_request *q, int64_t serial, const char *text, const char *finish,
                               int64_t completion)
{
    char id[64];
    snprintf(id, sizeof id, "mock-%lld", (long long)serial);
    cJSON *o = cJSON_CreateObject();
    cJSON *choice = cJSON_CreateObject();
    cJSON_AddStringToObject(choice, "finish_reason", finish);
    cJSON *m = cJSON_AddObjectToObject(choice, "message");
    cJSON_AddStringToObject(m, "role", "assistant");
    cJSON_AddStringToObject(m, "content", text);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(cJSON_AddObjectToObject(o, "output"), "choices"), choice);
    cJSON *u = cJSON_AddObjectToObject(o, "usage");
    cJSON_AddNumberToObject(u, "total_tokens", (double)(q->prompt_tokens + completion));
    cJSON_AddNumberToObject(u, "input_tokens", (double)q->prompt_tokens);
    cJSON_AddNumberToObject(u, "output_tokens", (double)completion);
    cJSON_AddStringToObject(o, "request_id", id);
    cJSON_AddStringToObject(o, "mock_key", q->key);
    return o;
}

static void dashscope(mock_reply *r, const mock_request *q, int64_t serial)
{
    if (!q->stream) {
        mock_reply_json(r, 200, dashscope_output(q, serial, MOCK_REPLY_TEXT, "stop", q->completion_tokens), 0);
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int i = 0; i < N_PIECES; i++) {
        bool last = i == N_PIECES - 1;
        cJSON *o = dashscope_output(q, serial, PIECES[i], last ? "stop" : "null", tokens_after(q->completion_tokens, i));
        char *s = cJSON_PrintUnformatted(o);
        fprintf(f, "id:%d\nevent:result\n:HTTP_STATUS/200\ndata:%s\n\n", i + 1, s ? s : "{}");
        free(s);
        cJSON_Delete(o);
    }
    finish_stream(r, f, &buf, "text/event-stream;charset=UTF-8");
}

/* One ERNIE chat result (whole answer, or one sentence of a stream). */
static cJSON *baidu_result(const mock_request *q, int64_t serial, int sentence, const char *text, bool end,
                           int64_t completion)
{
    char id[64];
    snprintf(id, sizeof id, "as-mock-%lld", (long long)serial);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "object", "chat.completion");
    cJSON_AddNumberToObject(o, "created", (double)time(NULL));
    if (sentence >= 0) {
        cJSON_AddNumberToObject(o, "sentence_id", sentence);
        cJSON_AddBoolToObject(o, "is_end", end);
    }
    cJSON_AddBoolToObject(o, "is_truncated", false);
    cJSON_AddStringToObject(o, "result", text);
    cJSON_AddBoolToObject(o, "need_clear_history", false);
    cJSON_AddStringToObject(o, "finish_reason", end ? "normal" : "");
    cJSON *u = cJSON_AddObjectToObject(o, "usage");
    cJSON_AddNumberToObject(u, "prompt_tokens", (double)q->prompt_tokens);
    cJSON_AddNumberToObject(u, "completion_tokens", (double)completion);
    cJSON_AddNumberToObject(u, "total_tokens", (double)(q->prompt_tokens + completion));
    cJSON_AddStringToObject(o, "mock_key", q->key);
    return o;
}

static void baidu(mock_reply *r, const mock_request *q, int64_t serial)
{
    if (!q->stream) {
        mock_reply_json(r, 200, baidu_result(q, serial, -1, MOCK_REPLY_TEXT, true, q->completion_tokens), 0);
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int i = 0; i < N_PIECES; i++)
        sse(f, NULL, baidu_result(q, serial, i, PIECES[i], i == N_PIECES - 1, tokens_after(q->completion_tokens, i)),
            "\n\n");
    finish_stream(r, f, &buf, "text/event-stream");
}

void mock_success(mock_reply *r, const mock_request *req, int64_t serial)
{
    switch (req->endpoint) {
    case MOCK_EP_CHAT:
    case MOCK_EP_COMPLETION: openai_chat(r, req, serial); break;
    case MOCK_EP_EMBEDDING: openai_embedding(r, req); break;
    case MOCK_EP_RESPONSES: openai_responses(r, req, serial); break;
    case MOCK_EP_MESSAGES: anthropic(r, req, serial); break;
    case MOCK_EP_GENERATE: gemini(r, req, serial); break;
    case MOCK_EP_DASHSCOPE: dashscope(r, req, serial); break;
    case MOCK_EP_BAIDU: baidu(r, req, serial); break;
    }
}
