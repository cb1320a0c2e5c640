/* Translation between provider dialects: OpenAI Chat Completions (and the OpenAI-compatible dialects:
 * DeepSeek, Groq, Mistral, DashScope compatible mode, OpenRouter, Moonshot, Ark), Anthropic Messages and
 * Gemini generateContent. Pure functions on bytes: requests, whole responses, error bodies and an
 * incremental stream translator. A request that cannot be translated faithfully is refused with a reason,
 * never translated lossily. OpenAI's form is the hub: other pairs go through it (src/translate/). */
#ifndef LLMGATE_TRANSLATE_H
#define LLMGATE_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/preset.h"

typedef enum { LG_TR_OPENAI, LG_TR_ANTHROPIC, LG_TR_GEMINI } lg_tr_dialect;

typedef enum {
    LG_TR_OK = 0,
    LG_TR_REFUSED,   /* well-formed, but the target lacks a feature the request uses (reason says which) */
    LG_TR_MALFORMED, /* not a request/response of the source dialect (reason says what is wrong) */
    LG_TR_NOMEM,
} lg_tr_status;

#define LG_TR_REASON_MAX 256

/* Default max_tokens sent to Anthropic when the host gave none (Anthropic requires it). */
#define LG_TR_DEFAULT_MAX_TOKENS 4096

typedef struct {
    const char *model;       /* the target's model name; NULL keeps the request's own */
    int default_max_tokens;  /* for Anthropic when the request has none; <= 0 means LG_TR_DEFAULT_MAX_TOKENS */
    bool stream;             /* a Gemini source request streams (Gemini says it in the path, not the body) */
} lg_tr_request_opts;

typedef struct {
    char *body;          /* the translated request JSON (malloc'd; NULL unless LG_TR_OK) */
    bool stream;         /* the request asks for a stream */
    bool include_usage;  /* an OpenAI host asked for a final usage chunk (stream_options.include_usage) */
    char reason[LG_TR_REASON_MAX];
} lg_tr_request;

/* Translates a request body from the host's dialect to the target's. On LG_TR_OK out->body holds the new
 * body (free it with free()); otherwise out->reason says why, and nothing is allocated. from == to copies
 * the body, with the model replaced when opts->model is set. */
lg_tr_status lg_tr_request_translate(lg_tr_dialect from, lg_tr_dialect to, const char *body, size_t len,
                                     const lg_tr_request_opts *opts, lg_tr_request *out);

/* Writes the target's path for a chat request into buf (cap bytes): /v1/chat/completions,
 * /v1/messages, /v1beta/models/{model}:generateContent or :streamGenerateContent?alt=sse. False when
 * it does not fit or a Gemini model name would break the path ('/', '?', '#', ':' or space in it). */
bool lg_tr_path(lg_tr_dialect to, const char *model, bool stream, char *buf, size_t cap);

/* What a Gemini request's URL (or path and query) says that its body does not: the model (into model, cap
 * bytes), whether it streams (:streamGenerateContent) and whether that stream is SSE (alt=sse; without it
 * Gemini streams one JSON array). False when the URL is not a .../models/{model}:generateContent or
 * :streamGenerateContent call, or the model does not fit. */
bool lg_tr_gemini_call(const char *url, char *model, size_t cap, bool *stream, bool *sse);

/* The authentication header lines ("Name: value", no CRLF) for key in the target's dialect:
 * Authorization: Bearer (OpenAI), x-api-key + anthropic-version: 2023-06-01 (Anthropic),
 * x-goog-api-key (Gemini). Writes up to two lines into lines; returns how many, or 0 when one does not
 * fit or the key holds a CR or LF. The key is copied only into lines. */
int lg_tr_auth_headers(lg_tr_dialect to, const char *key, char lines[2][512]);

typedef struct {
    const char *model;  /* model reported to the host when the target's response names none; may be NULL */
    int64_t created;    /* Unix seconds for OpenAI's "created" (the caller's clock: this code reads none) */
} lg_tr_response_opts;

/* Translates a whole (non-streamed) response body of the target's dialect with HTTP status `status` into
 * the host's dialect: a success (content, tool calls, finish reason, usage, id, model) when status is
 * 2xx, an error body in the host's error format otherwise (the status stays the same). On LG_TR_OK
 * *out is malloc'd JSON; otherwise reason says why. */
lg_tr_status lg_tr_response_translate(lg_tr_dialect target, lg_tr_dialect host, int status, const char *body,
                                      size_t len, const lg_tr_response_opts *opts, char **out,
                                      char reason[LG_TR_REASON_MAX]);

/* Incremental stream translator: fed the target's SSE bytes in pieces of any size, it emits the host
 * dialect's SSE events as soon as each is complete (whole events only: output never splits a UTF-8
 * character). An OpenAI host gets chat.completion.chunk events ending in "data: [DONE]" (and a usage
 * chunk first when include_usage), an Anthropic host message_start .. message_stop, a Gemini host
 * GenerateContentResponse chunks. */
typedef struct lg_tr_stream lg_tr_stream;

typedef struct {
    lg_tr_response_opts resp;
    bool include_usage;  /* OpenAI host: send the final usage chunk */
} lg_tr_stream_opts;

/* Receives translated bytes; returns false to stop (the host refused them). */
typedef bool (*lg_tr_emit_fn)(void *ctx, const char *p, size_t len);

/* A translator from target to host; NULL when out of memory. */
lg_tr_stream *lg_tr_stream_new(lg_tr_dialect target, lg_tr_dialect host, const lg_tr_stream_opts *opts);
/* Feeds len bytes of the target's stream; emits what became complete. False when emit refused or the
 * stream is malformed beyond use (lg_tr_stream_error says why); later calls then do nothing. */
bool lg_tr_stream_feed(lg_tr_stream *s, const char *p, size_t len, lg_tr_emit_fn emit, void *ctx);
/* The target's stream ended: translates a last unterminated event. True when the stream was complete
 * (the host got its whole ending); false when it was cut short or broken. */
bool lg_tr_stream_finish(lg_tr_stream *s, lg_tr_emit_fn emit, void *ctx);
/* Why the stream failed, or "" */
const char *lg_tr_stream_error(const lg_tr_stream *s);
void lg_tr_stream_free(lg_tr_stream *s);

/* The dialect's name ("openai", "anthropic", "gemini"), and back; false for an unknown name. */
const char *lg_tr_dialect_name(lg_tr_dialect d);
bool lg_tr_dialect_parse(const char *name, lg_tr_dialect *out);
/* The translation dialect of a provider dialect (openai, anthropic, google); false for the others (none,
 * dashscope, baidu), which are not translated. */
bool lg_tr_dialect_of(lg_dialect d, lg_tr_dialect *out);

/* The request header an Anthropic target needs besides its key. */
#define LG_TR_ANTHROPIC_VERSION "anthropic-version: 2023-06-01"

#endif
