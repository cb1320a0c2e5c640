/* What the mock provider needs to know about one provider request: dialect, endpoint, key, model,
 * streaming, token estimate. Built from the raw request, independent of the HTTP server library. */
#ifndef MOCK_REQUEST_H
#define MOCK_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/http.h"

typedef enum { MOCK_OPENAI, MOCK_ANTHROPIC, MOCK_GOOGLE, MOCK_DASHSCOPE, MOCK_BAIDU } mock_dialect;

typedef enum {
    MOCK_EP_CHAT,       /* OpenAI chat completions (also Azure, and any unknown path) */
    MOCK_EP_COMPLETION, /* OpenAI legacy completions */
    MOCK_EP_EMBEDDING,  /* OpenAI embeddings */
    MOCK_EP_RESPONSES,  /* OpenAI Responses API */
    MOCK_EP_MESSAGES,   /* Anthropic messages */
    MOCK_EP_GENERATE,   /* Gemini generateContent / streamGenerateContent */
    MOCK_EP_DASHSCOPE,  /* DashScope native generation */
    MOCK_EP_BAIDU,      /* Baidu Qianfan ERNIE chat */
} mock_endpoint;

#define MOCK_MAX_COMPLETION_TOKENS 256
#define MOCK_DEFAULT_COMPLETION_TOKENS 16

typedef struct {
    const char *method;
    char *path;              /* owned: the URI before '?' */
    char *query;             /* owned: the raw query after '?', "" when none */
    const char *host;        /* the Host header, "" when absent */
    char *key;               /* owned: the API key the request carried, "" when none */
    const char *auth_header; /* where the key was: "authorization", "x-api-key", "x-goog-api-key",
                                "api-key", "query:key", "query:access_token", or "" */
    const lg_header *headers;
    size_t n_headers;
    const char *body;
    size_t body_len;
    mock_dialect dialect;
    mock_endpoint endpoint;
    bool cloudcode;     /* Cloud Code (/v1internal:...): Gemini bodies wrapped in {"response": ...} */
    bool stream;        /* the client asked for a streamed (SSE) answer */
    bool google_sse;    /* streamGenerateContent with alt=sse (without it: one JSON array) */
    bool include_usage; /* OpenAI stream_options.include_usage */
    bool bad_json;      /* a non-empty body that is not JSON */
    bool too_large;     /* the body was over the size limit (set by the server; body is then cut) */
    char *invalid;      /* owned: why --strict refuses the body (set by the server), or NULL */
    char model[128];
    /* Default accounting: prompt = ceil(body bytes / 4), completion = the requested output limit capped at
     * 256 (default 16), charge = prompt + completion. OpenAI accounting (mock_request_accounting): prompt by
     * the mock's tokenizer, completion = what the reply text takes (at most MOCK_REPLY_TOKENS), charge =
     * prompt + the requested output limit, uncapped. */
    int64_t prompt_tokens;
    int64_t completion_tokens;
    int64_t charge_tokens;     /* what the request costs in the key's token window */
} mock_request;

#define MOCK_REPLY_TOKENS 8 /* the completion tokens of the reply text under OpenAI accounting */

/* Chooses how requests are counted (see mock_request.charge_tokens): OpenAI's documented accounting when
 * openai is true, else the default. Call before serving. */
void mock_request_accounting(bool openai);

/* Fills r from the request line and headers (borrowed: they must outlive r) and the body.
 * Returns 0, or -1 when out of memory. */
int mock_request_parse(mock_request *r, const char *method, const char *uri, const lg_header *headers,
                       size_t n_headers, const char *body, size_t body_len);
void mock_request_free(mock_request *r);

/* Looks up the query parameter name in a raw query string and returns its percent-decoded value
 * (malloc'ed), or NULL when absent. */
char *mock_query_param(const char *query, const char *name);
const char *mock_dialect_name(mock_dialect d);

#endif
