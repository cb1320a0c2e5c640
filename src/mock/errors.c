/* Error answers per dialect (see errors.h). Texts follow what each provider really sends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock/errors.h"

int mock_error_parse(const char *name)
{
    static const char *const names[] = {"quota", "rate_limit", "overloaded", "server_error",
                                        "auth",  "bad_request", "too_large"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i]))
            return (int)i;
    return -1;
}

mock_error_kind mock_error_for_status(int status)
{
    if (status == 429)
        return MOCK_ERR_RATE_LIMIT;
    if (status == 503 || status == 529)
        return MOCK_ERR_OVERLOADED;
    if (status >= 500)
        return MOCK_ERR_SERVER;
    if (status == 401 || status == 403)
        return MOCK_ERR_AUTH;
    if (status == 413)
        return MOCK_ERR_TOO_LARGE;
    return MOCK_ERR_BAD_REQUEST;
}

void mock_fmt_go_duration(char *buf, size_t n, int64_t ms)
{
    if (ms < 1000) {
        snprintf(buf, n, "%lldms", (long long)(ms < 0 ? 0 : ms));
        return;
    }
    int64_t h = ms / 3600000, m = ms / 60000 % 60, s = ms / 1000 % 60, frac = ms % 1000;
    char sec[32];
    if (frac) {
        snprintf(sec, sizeof sec, "%lld.%03lld", (long long)s, (long long)frac);
        size_t l = strlen(sec);
        while (sec[l - 1] == '0')
            sec[--l] = '\0';
    } else {
        snprintf(sec, sizeof sec, "%lld", (long long)s);
    }
    if (h)
        snprintf(buf, n, "%lldh%lldm%ss", (long long)h, (long long)m, sec);
    else if (m)
        snprintf(buf, n, "%lldm%ss", (long long)m, sec);
    else
        snprintf(buf, n, "%ss", sec);
}

void mock_fmt_proto_duration(char *buf, size_t n, int64_t ms)
{
    if (ms % 1000)
        snprintf(buf, n, "%lld.%03llds", (long long)(ms / 1000), (long long)(ms % 1000));
    else
        snprintf(buf, n, "%llds", (long long)(ms / 1000));
}

/* The numbers a rate-limit message quotes when the caller gave none. */
static const mock_limit_info DEFAULT_LIMIT = {false, false, 1, 1, 1};

static void openai(mock_reply *r, const mock_request *q, mock_error_kind kind, int64_t retry,
                   const mock_limit_info *li)
{
    char msg[768], wait[64] = "";
    const char *type = "invalid_request_error", *code = NULL;
    int status = 400;
    if (retry >= 0) {
        char d[32];
        mock_fmt_go_duration(d, sizeof d, retry);
        snprintf(wait, sizeof wait, " Please try again in %s.", d);
    }
    switch (kind) {
    case MOCK_ERR_QUOTA:
        status = 429, type = "insufficient_quota", code = "insufficient_quota";
        snprintf(msg, sizeof msg, "You exceeded your current quota, please check your plan and billing details. "
                                  "For more information on this error, read the docs: "
                                  "https://platform.openai.com/docs/guides/error-codes/api-errors.");
        break;
    case MOCK_ERR_RATE_LIMIT:
        status = 429, type = li->tokens ? "tokens" : "requests", code = "rate_limit_exceeded";
        if (li->too_large)
            snprintf(msg, sizeof msg, "Request too large for %s in organization org-mock on tokens per min (TPM): "
                     "Limit %lld, Requested %lld. The input or output tokens must be reduced in order to run "
                     "successfully. Visit https://platform.openai.com/account/rate-limits to learn more.",
                     q->model, (long long)li->limit, (long long)li->requested);
        else
            snprintf(msg, sizeof msg, "Rate limit reached for %s in organization org-mock on %s per min (%s): "
                     "Limit %lld, Used %lld, Requested %lld.%s Visit "
                     "https://platform.openai.com/account/rate-limits to learn more.",
                     q->model, li->tokens ? "tokens" : "requests", li->tokens ? "TPM" : "RPM",
                     (long long)li->limit, (long long)li->used, (long long)li->requested, wait);
        break;
    case MOCK_ERR_OVERLOADED:
        status = 503, type = "server_error";
        snprintf(msg, sizeof msg, "That model is currently overloaded with other requests. You can retry your "
                                  "request, or contact us through our help center at help.openai.com if the error "
                                  "persists.");
        break;
    case MOCK_ERR_SERVER:
        status = 500, type = "server_error";
        snprintf(msg, sizeof msg, "The server had an error while processing your request. Sorry about that!");
        break;
    case MOCK_ERR_AUTH:
        status = 401, code = "invalid_api_key";
        snprintf(msg, sizeof msg, "Incorrect API key provided: %.3s****. You can find your API key at "
                                  "https://platform.openai.com/account/api-keys.", q->key);
        break;
    case MOCK_ERR_BAD_REQUEST:
        snprintf(msg, sizeof msg, "We could not parse the JSON body of your request. (HINT: This likely means "
                                  "you aren't using your HTTP library correctly. The OpenAI API expects a JSON "
                                  "payload, but what was sent was not valid JSON.)");
        break;
    case MOCK_ERR_TOO_LARGE:
        status = 413;
        snprintf(msg, sizeof msg, "Request body too large. The maximum request size is 8 MiB.");
        break;
    }
    cJSON *o = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(o, "error");
    cJSON_AddStringToObject(e, "message", msg);
    cJSON_AddStringToObject(e, "type", type);
    cJSON_AddNullToObject(e, "param");
    if (code)
        cJSON_AddStringToObject(e, "code", code);
    else
        cJSON_AddNullToObject(e, "code");
    mock_reply_json(r, status, o, 4);
}

static void anthropic(mock_reply *r, const mock_request *q, mock_error_kind kind, const mock_limit_info *li)
{
    char msg[512];
    const char *type = "invalid_request_error";
    int status = 400;
    switch (kind) {
    case MOCK_ERR_QUOTA:
        snprintf(msg, sizeof msg, "Your credit balance is too low to access the Anthropic API. Please go to "
                                  "Plans & Billing to upgrade or purchase credits.");
        break;
    case MOCK_ERR_RATE_LIMIT:
        status = 429, type = "rate_limit_error";
        snprintf(msg, sizeof msg, "This request would exceed the rate limit for your organization (mock) of "
                 "%lld %s per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can "
                 "see the response headers for current usage. Please reduce the prompt length or the maximum "
                 "tokens requested, or try again later.",
                 (long long)li->limit, li->tokens ? "input tokens" : "requests");
        break;
    case MOCK_ERR_OVERLOADED:
        status = 529, type = "overloaded_error";
        snprintf(msg, sizeof msg, "Overloaded");
        break;
    case MOCK_ERR_SERVER:
        status = 500, type = "api_error";
        snprintf(msg, sizeof msg, "Internal server error");
        break;
    case MOCK_ERR_AUTH:
        status = 401, type = "authentication_error";
        snprintf(msg, sizeof msg, "invalid x-api-key");
        break;
    case MOCK_ERR_BAD_REQUEST:
        snprintf(msg, sizeof msg, "There was an issue with the request body: it is not valid JSON.");
        break;
    case MOCK_ERR_TOO_LARGE:
        status = 413, type = "request_too_large";
        snprintf(msg, sizeof msg, "Request exceeds the maximum allowed number of bytes.");
        break;
    }
    cJSON *o = cJSON_CreateObject(), *e;
    cJSON_AddStringToObject(o, "type", "error");
    e = cJSON_AddObjectToObject(o, "error");
    cJSON_AddStringToObject(e, "type", type);
    cJSON_AddStringToObject(e, "message", msg);
    mock_reply_json(r, status, o, 0);
}

/* google.rpc.QuotaFailure with one violation. */
static cJSON *quota_failure(const mock_request *q, const char *metric, const char *id, int64_t value)
{
    cJSON *d = cJSON_CreateObject(), *v = cJSON_CreateObject(), *dims;
    char val[32];
    cJSON_AddStringToObject(d, "@type", "type.googleapis.com/google.rpc.QuotaFailure");
    cJSON_AddStringToObject(v, "quotaMetric", metric);
    cJSON_AddStringToObject(v, "quotaId", id);
    dims = cJSON_AddObjectToObject(v, "quotaDimensions");
    cJSON_AddStringToObject(dims, "location", "global");
    cJSON_AddStringToObject(dims, "model", q->model);
    snprintf(val, sizeof val, "%lld", (long long)value);
    cJSON_AddStringToObject(v, "quotaValue", val);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "violations"), v);
    return d;
}

static void google(mock_reply *r, const mock_request *q, mock_error_kind kind, int64_t retry,
                   const mock_limit_info *li)
{
    char msg[512], d[32] = "";
    const char *st = "INVALID_ARGUMENT";
    int status = 400;
    cJSON *details = cJSON_CreateArray();
    if (retry >= 0)
        mock_fmt_proto_duration(d, sizeof d, retry);
    switch (kind) {
    case MOCK_ERR_QUOTA:
    case MOCK_ERR_RATE_LIMIT: {
        bool day = kind == MOCK_ERR_QUOTA;
        status = 429, st = "RESOURCE_EXHAUSTED";
        snprintf(msg, sizeof msg, "You exceeded your current quota, please check your plan and billing details. "
                 "For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.%s%s%s",
                 d[0] ? " Please retry in " : "", d, d[0] ? "." : "");
        const char *metric = li->tokens ? "generativelanguage.googleapis.com/generate_content_input_token_count"
                                        : "generativelanguage.googleapis.com/generate_requests_per_model";
        const char *id = day ? "GenerateRequestsPerDayPerProjectPerModel"
                         : li->tokens ? "GenerateContentInputTokensPerModelPerMinute"
                                      : "GenerateRequestsPerMinutePerProjectPerModel";
        cJSON_AddItemToArray(details, quota_failure(q, metric, id, li->limit));
        break;
    }
    case MOCK_ERR_OVERLOADED:
        status = 503, st = "UNAVAILABLE";
        snprintf(msg, sizeof msg, "The model is overloaded. Please try again later.");
        break;
    case MOCK_ERR_SERVER:
        status = 500, st = "INTERNAL";
        snprintf(msg, sizeof msg, "An internal error has occurred. Please retry or report in "
                                  "https://developers.generativeai.google/guide/troubleshooting");
        break;
    case MOCK_ERR_AUTH: {
        snprintf(msg, sizeof msg, "API key not valid. Please pass a valid API key.");
        cJSON *info = cJSON_CreateObject();
        cJSON_AddStringToObject(info, "@type", "type.googleapis.com/google.rpc.ErrorInfo");
        cJSON_AddStringToObject(info, "reason", "API_KEY_INVALID");
        cJSON_AddStringToObject(info, "domain", "googleapis.com");
        cJSON_AddItemToArray(details, info);
        break;
    }
    case MOCK_ERR_BAD_REQUEST:
        snprintf(msg, sizeof msg, "Invalid JSON payload received. Unexpected token.");
        break;
    case MOCK_ERR_TOO_LARGE:
        snprintf(msg, sizeof msg, "Request payload size exceeds the limit: 8388608 bytes.");
        break;
    }
    if (d[0] && kind != MOCK_ERR_QUOTA) {
        cJSON *ri = cJSON_CreateObject();
        cJSON_AddStringToObject(ri, "@type", "type.googleapis.com/google.rpc.RetryInfo");
        cJSON_AddStringToObject(ri, "retryDelay", d);
        cJSON_AddItemToArray(details, ri);
    }
    cJSON *o = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(o, "error");
    cJSON_AddNumberToObject(e, "code", status);
    cJSON_AddStringToObject(e, "message", msg);
    cJSON_AddStringToObject(e, "status", st);
    if (cJSON_GetArraySize(details))
        cJSON_AddItemToObject(e, "details", details);
    else
        cJSON_Delete(details);
    mock_reply_json(r, status, o, 2);
}

static void dashscope(mock_reply *r, mock_error_kind kind, int64_t serial)
{
    static const struct { int status; const char *code, *msg; } t[] = {
        [MOCK_ERR_QUOTA] = {400, "Arrearage", "Access denied, please make sure your account is in good standing."},
        [MOCK_ERR_RATE_LIMIT] = {429, "Throttling.RateQuota", "Requests rate limit exceeded, please try again later."},
        [MOCK_ERR_OVERLOADED] = {503, "ServiceUnavailable", "The model is overloaded, please try again later."},
        [MOCK_ERR_SERVER] = {500, "InternalError", "An internal error has occured, please try again later or "
                                                   "contact service support."},
        [MOCK_ERR_AUTH] = {401, "InvalidApiKey", "Invalid API-key provided."},
        [MOCK_ERR_BAD_REQUEST] = {400, "InvalidParameter", "The request body is not valid JSON."},
        [MOCK_ERR_TOO_LARGE] = {400, "InvalidParameter", "The request body is too large."},
    };
    char id[64];
    snprintf(id, sizeof id, "mock-%lld", (long long)serial);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "code", t[kind].code);
    cJSON_AddStringToObject(o, "message", t[kind].msg);
    cJSON_AddStringToObject(o, "request_id", id);
    mock_reply_json(r, t[kind].status, o, 0);
}

static void baidu(mock_reply *r, mock_error_kind kind, const mock_limit_info *li)
{
    static const struct { int status, code; const char *msg; } t[] = {
        [MOCK_ERR_QUOTA] = {200, 17, "Open api daily request limit reached"},
        [MOCK_ERR_RATE_LIMIT] = {200, 18, "Open api qps request limit reached"},
        [MOCK_ERR_OVERLOADED] = {200, 336100, "try again later"},
        [MOCK_ERR_SERVER] = {200, 336000, "Internal error"},
        [MOCK_ERR_AUTH] = {200, 110, "Access token invalid or no longer valid"},
        [MOCK_ERR_BAD_REQUEST] = {400, 336002, "Invalid JSON"},
        [MOCK_ERR_TOO_LARGE] = {400, 336003, "Request body too large"},
    };
    bool tpm = kind == MOCK_ERR_RATE_LIMIT && li->tokens;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "error_code", tpm ? 336502 : t[kind].code);
    cJSON_AddStringToObject(o, "error_msg", tpm ? "Rate limit reached for TPM" : t[kind].msg);
    mock_reply_json(r, t[kind].status, o, 0);
}

void mock_error(mock_reply *r, const mock_request *q, mock_error_kind kind, int64_t retry_after_ms,
                const mock_limit_info *li, int64_t serial)
{
    if (!li)
        li = &DEFAULT_LIMIT;
    switch (q->dialect) {
    case MOCK_OPENAI: openai(r, q, kind, retry_after_ms, li); break;
    case MOCK_ANTHROPIC: anthropic(r, q, kind, li); break;
    case MOCK_GOOGLE: google(r, q, kind, retry_after_ms, li); break;
    case MOCK_DASHSCOPE: dashscope(r, kind, serial); break;
    case MOCK_BAIDU: baidu(r, kind, li); return;
    }
    if (retry_after_ms >= 0)
        mock_reply_header(r, "retry-after", "%lld", (long long)((retry_after_ms + 999) / 1000));
}

void mock_error_in_200(mock_reply *r, const mock_request *q, int64_t serial)
{
    if (q->dialect == MOCK_BAIDU) {
        baidu(r, MOCK_ERR_RATE_LIMIT, &DEFAULT_LIMIT);
        return;
    }
    char *buf = NULL, id[64];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    snprintf(id, sizeof id, "mock-%lld", (long long)serial);
    switch (q->dialect) {
    case MOCK_OPENAI:
        fprintf(f, "data: {\"id\":\"chatcmpl-%s\",\"object\":\"chat.completion.chunk\",\"model\":\"mock-model\","
                   "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"你好\"},"
                   "\"finish_reason\":null}]}\n\n"
                   "data: {\"error\":{\"message\":\"Rate limit reached for requests. Please try again in 1s.\","
                   "\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}\n\n",
                id);
        break;
    case MOCK_ANTHROPIC:
        fprintf(f, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_%s\","
                   "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"mock-model\","
                   "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"
                   "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                   "\"message\":\"Rate limit exceeded during the stream.\"}}\n\n", id);
        break;
    case MOCK_GOOGLE:
        fputs("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"你好\"}],\"role\":\"model\"},\"index\":0}]}"
              "\r\n\r\ndata: {\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\","
              "\"status\":\"RESOURCE_EXHAUSTED\"}}\r\n\r\n", f);
        break;
    case MOCK_DASHSCOPE:
        fprintf(f, "id:1\nevent:result\n:HTTP_STATUS/200\ndata:{\"output\":{\"choices\":[{\"message\":{\"content\":"
                   "\"你好\",\"role\":\"assistant\"},\"finish_reason\":\"null\"}]},\"usage\":{\"total_tokens\":2,"
                   "\"input_tokens\":1,\"output_tokens\":1},\"request_id\":\"%s\"}\n\n"
                   "id:2\nevent:error\n:HTTP_STATUS/429\ndata:{\"code\":\"Throttling.RateQuota\",\"message\":"
                   "\"Requests rate limit exceeded, please try again later.\",\"request_id\":\"%s\"}\n\n", id, id);
        break;
    case MOCK_BAIDU:
        break;
    }
    fclose(f);
    r->status = 200;
    r->stream = true;
    mock_reply_header(r, "Content-Type", "text/event-stream; charset=utf-8");
    mock_reply_take_body(r, buf);
}
