/* Reading a provider request: dialect from the path, key from the auth header or query, the
 * request's model, streaming flag and token estimate from its JSON body. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "mock/request.h"

const char *mock_dialect_name(mock_dialect d)
{
    static const char *const names[] = {"openai", "anthropic", "google", "dashscope", "baidu"};
    return names[d];
}

static bool starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

char *mock_query_param(const char *query, const char *name)
{
    size_t nlen = strlen(name);
    for (const char *p = query; p && *p;) {
        const char *end = strchr(p, '&');
        size_t plen = end ? (size_t)(end - p) : strlen(p);
        if (plen >= nlen && !strncmp(p, name, nlen) && (plen == nlen || p[nlen] == '=')) {
            const char *v = plen > nlen ? p + nlen + 1 : p + plen;
            size_t vlen = (size_t)(p + plen - v);
            char *out = malloc(vlen + 1), *o = out;
            if (!out)
                return NULL;
            for (size_t i = 0; i < vlen; i++) {
                if (v[i] == '%' && i + 2 < vlen && hexval(v[i + 1]) >= 0 && hexval(v[i + 2]) >= 0) {
                    *o++ = (char)(hexval(v[i + 1]) * 16 + hexval(v[i + 2]));
                    i += 2;
                } else {
                    *o++ = v[i] == '+' ? ' ' : v[i];
                }
            }
            *o = '\0';
            return out;
        }
        p = end ? end + 1 : NULL;
    }
    return NULL;
}

/* Sets dialect, endpoint and the path-given streaming flags from the path. */
static void classify_path(mock_request *r)
{
    const char *p = r->path;
    if (starts_with(p, "/v1/messages")) {
        r->dialect = MOCK_ANTHROPIC;
        r->endpoint = MOCK_EP_MESSAGES;
    } else if (starts_with(p, "/v1beta/models/") || starts_with(p, "/v1/models/") ||
               starts_with(p, "/v1internal:") || strstr(p, ":generateContent") ||
               strstr(p, ":streamGenerateContent")) {
        r->dialect = MOCK_GOOGLE;
        r->endpoint = MOCK_EP_GENERATE;
        r->cloudcode = starts_with(p, "/v1internal:");
        r->stream = strstr(p, ":streamGenerateContent") != NULL;
    } else if (starts_with(p, "/api/v1/services/aigc/")) {
        r->dialect = MOCK_DASHSCOPE;
        r->endpoint = MOCK_EP_DASHSCOPE;
    } else if (starts_with(p, "/rpc/2.0/ai_custom/")) {
        r->dialect = MOCK_BAIDU;
        r->endpoint = MOCK_EP_BAIDU;
    } else {
        r->dialect = MOCK_OPENAI;
        r->endpoint = ends_with(p, "/chat/completions") ? MOCK_EP_CHAT
                      : ends_with(p, "/completions")    ? MOCK_EP_COMPLETION
                      : ends_with(p, "/embeddings")     ? MOCK_EP_EMBEDDING
                      : ends_with(p, "/responses")      ? MOCK_EP_RESPONSES
                                                        : MOCK_EP_CHAT;
    }
}

/* Finds the key in the usual auth headers, then in the key= / access_token= query parameters. */
static int find_key(mock_request *r)
{
    static const char *const headers[] = {"authorization", "x-api-key", "x-goog-api-key", "api-key"};
    for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
        const char *v = lg_header_get(r->headers, r->n_headers, headers[i]);
        if (!v)
            continue;
        if (i == 0 && !strncasecmp(v, "Bearer ", 7))
            v += 7;
        while (*v == ' ')
            v++;
        r->auth_header = headers[i];
        r->key = strdup(v);
        return r->key ? 0 : -1;
    }
    static const char *const params[] = {"key", "access_token"};
    static const char *const names[] = {"query:key", "query:access_token"};
    for (size_t i = 0; i < 2; i++) {
        char *v = mock_query_param(r->query, params[i]);
        if (v) {
            r->auth_header = names[i];
            r->key = v;
            return 0;
        }
    }
    r->auth_header = "";
    r->key = strdup("");
    return r->key ? 0 : -1;
}

/* The first positive number among the body's known max-token fields, or 0. */
static int64_t requested_max_tokens(const cJSON *body)
{
    static const char *const top[] = {"max_tokens", "max_completion_tokens", "max_output_tokens"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(body, top[i]);
        if (cJSON_IsNumber(v))
            return (int64_t)v->valuedouble;
    }
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(body, "request"); /* Cloud Code envelope */
    const cJSON *gc = cJSON_GetObjectItemCaseSensitive(body, "generationConfig");
    if (!gc)
        gc = cJSON_GetObjectItemCaseSensitive(req, "generationConfig");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(gc, "maxOutputTokens");
    if (cJSON_IsNumber(v))
        return (int64_t)v->valuedouble;
    v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(body, "parameters"), "max_tokens");
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

/* Model name: the body's "model", else the Gemini path segment or Azure deployment, else "mock-model". */
static void find_model(mock_request *r, const cJSON *body)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(body, "model");
    const char *src = cJSON_IsString(m) ? m->valuestring : NULL;
    size_t len = src ? strlen(src) : 0;
    const char *seg = strstr(r->path, "/models/");
    const char *dep = strstr(r->path, "/deployments/");
    if (!src && seg) {
        src = seg + 8;
        len = strcspn(src, ":/");
    } else if (!src && dep) {
        src = dep + 13;
        len = strcspn(src, "/");
    }
    if (!src || !len) {
        src = "mock-model";
        len = strlen(src);
    }
    if (len >= sizeof r->model)
        len = sizeof r->model - 1;
    memcpy(r->model, src, len);
    r->model[len] = '\0';
}

static bool openai_accounting;

void mock_request_accounting(bool openai)
{
    openai_accounting = openai;
}

/* The mock's own tokenizer for --accounting openai, deliberately unlike llmgate's estimate: the bytes of
 * the strings a provider tokenizes (under content, text, system, prompt, input), a third of a token each,
 * plus 4 tokens per message (an object with a role), plus the compact JSON of the tool schemas. */
static void text_bytes(const cJSON *n, bool text, size_t *bytes, int64_t *messages)
{
    if (cJSON_IsString(n) && text) {
        *bytes += strlen(n->valuestring);
        return;
    }
    if (cJSON_IsObject(n) && cJSON_GetObjectItemCaseSensitive(n, "role"))
        (*messages)++;
    const cJSON *c;
    cJSON_ArrayForEach(c, n)
    {
        const char *k = cJSON_IsObject(n) ? c->string : NULL;
        if (k && (!strcmp(k, "tools") || !strcmp(k, "functions"))) {
            char *json = cJSON_PrintUnformatted(c);
            *bytes += json ? strlen(json) : 0;
            free(json);
            continue;
        }
        bool t = k ? !strcmp(k, "content") || !strcmp(k, "text") || !strcmp(k, "system") || !strcmp(k, "prompt") ||
                         !strcmp(k, "input")
                   : text;
        text_bytes(c, t, bytes, messages);
    }
}

/* Prompt tokens by the mock's tokenizer (see text_bytes): 3 + 4 per message + ceil(text bytes / 3). */
static int64_t tokenize(const cJSON *body)
{
    size_t bytes = 0;
    int64_t messages = 0;
    text_bytes(body, false, &bytes, &messages);
    return 3 + 4 * messages + (int64_t)((bytes + 2) / 3);
}

/* Reads the JSON body: bad_json, stream flags, model and the tokens (see mock_request). */
static void read_body(mock_request *r)
{
    cJSON *body = r->body_len ? cJSON_ParseWithLength(r->body, r->body_len) : NULL;
    r->bad_json = r->body_len && !body;
    if (r->dialect != MOCK_GOOGLE && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(body, "stream")))
        r->stream = true;
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(body, "stream_options");
    r->include_usage = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(so, "include_usage"));
    find_model(r, body);
    int64_t max = requested_max_tokens(body);
    int64_t requested = r->endpoint == MOCK_EP_EMBEDDING ? 0 : max > 0 ? max : MOCK_DEFAULT_COMPLETION_TOKENS;
    r->prompt_tokens = r->body_len ? (int64_t)((r->body_len + 3) / 4) : 1;
    if (openai_accounting && body) {
        r->prompt_tokens = tokenize(body);
        r->completion_tokens = requested < MOCK_REPLY_TOKENS ? requested : MOCK_REPLY_TOKENS;
        r->charge_tokens = r->prompt_tokens + requested;
    } else {
        r->completion_tokens = requested < MOCK_MAX_COMPLETION_TOKENS ? requested : MOCK_MAX_COMPLETION_TOKENS;
        r->charge_tokens = r->prompt_tokens + r->completion_tokens;
    }
    cJSON_Delete(body);
}

int mock_request_parse(mock_request *r, const char *method, const char *uri, const lg_header *headers,
                       size_t n_headers, const char *body, size_t body_len)
{
    memset(r, 0, sizeof *r);
    r->method = method;
    r->headers = headers;
    r->n_headers = n_headers;
    r->body = body;
    r->body_len = body_len;
    const char *q = strchr(uri, '?');
    r->path = q ? strndup(uri, (size_t)(q - uri)) : strdup(uri);
    r->query = strdup(q ? q + 1 : "");
    const char *host = lg_header_get(headers, n_headers, "host");
    r->host = host ? host : "";
    if (!r->path || !r->query || find_key(r) < 0) {
        mock_request_free(r);
        return -1;
    }
    classify_path(r);
    if (r->dialect == MOCK_GOOGLE) {
        char *alt = mock_query_param(r->query, "alt");
        r->google_sse = alt && !strcmp(alt, "sse");
        free(alt);
    }
    if (r->dialect == MOCK_DASHSCOPE) {
        const char *sse = lg_header_get(headers, n_headers, "x-dashscope-sse");
        r->stream = sse && !strcasecmp(sse, "enable");
    }
    read_body(r);
    return 0;
}

void mock_request_free(mock_request *r)
{
    free(r->path);
    free(r->query);
    free(r->key);
    free(r->invalid);
    r->path = r->query = r->key = r->invalid = NULL;
}
