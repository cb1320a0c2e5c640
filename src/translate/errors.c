/* Error bodies in the host's dialect, with the target's message and the same HTTP status.
 * Sources: platform.openai.com/docs/guides/error-codes ({"error": {message, type, param, code}});
 * docs.anthropic.com/en/api/errors ({"type": "error", "error": {type, message}}: invalid_request_error,
 * authentication_error, permission_error, not_found_error, request_too_large, rate_limit_error, api_error,
 * overloaded_error); ai.google.dev/gemini-api/docs/troubleshooting ({"error": {code, message, status}}:
 * INVALID_ARGUMENT, PERMISSION_DENIED, NOT_FOUND, RESOURCE_EXHAUSTED, INTERNAL, UNAVAILABLE). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "translate/internal.h"

/* The error type of each dialect for an HTTP status (the first row whose status matches, 0 = any). */
static const struct {
    int status;
    const char *name[3];
} kinds[] = {
    {400, {"invalid_request_error", "invalid_request_error", "INVALID_ARGUMENT"}},
    {401, {"invalid_request_error", "authentication_error", "UNAUTHENTICATED"}},
    {403, {"invalid_request_error", "permission_error", "PERMISSION_DENIED"}},
    {404, {"invalid_request_error", "not_found_error", "NOT_FOUND"}},
    {413, {"invalid_request_error", "request_too_large", "INVALID_ARGUMENT"}},
    {429, {"requests", "rate_limit_error", "RESOURCE_EXHAUSTED"}},
    {503, {"server_error", "overloaded_error", "UNAVAILABLE"}},
    {529, {"server_error", "overloaded_error", "UNAVAILABLE"}},
    {0, {"server_error", "api_error", "INTERNAL"}},
};

static const char *kind(lg_tr_dialect d, int status)
{
    size_t i = 0;
    while (kinds[i].status && kinds[i].status != status)
        i++;
    if (!kinds[i].status && status >= 400 && status < 500)
        i = 0; /* another client error */
    return kinds[i].name[d];
}

/* The message of any dialect's error body: error.message, message, or the body's own text. */
static void message_of(const cJSON *e, const char *body, size_t len, char *msg, size_t cap)
{
    const char *m = tr_str(tr_obj(e, "error"), "message");
    if (!m)
        m = tr_str(e, "message");
    if (!m && cJSON_IsArray(e)) /* Gemini streams errors as a one-element array */
        m = tr_str(tr_obj(e->child, "error"), "message");
    if (m)
        snprintf(msg, cap, "%s", m);
    else
        snprintf(msg, cap, "%.*s", (int)(len < cap - 1 ? len : cap - 1), body ? body : "");
}

/* The target said the quota (not the rate) ran out: OpenAI hosts tell the two apart by type. */
static bool quota(const cJSON *e, const char *msg)
{
    const cJSON *err = tr_obj(e, "error");
    const char *fields[] = {tr_str(err, "type"), tr_str(err, "code"), tr_str(err, "status"), msg};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i] && (strcasestr(fields[i], "quota") || strcasestr(fields[i], "credit balance")))
            return true;
    return false;
}

cJSON *tr_error_make(lg_tr_dialect host, int status, const char *msg, bool quota_out)
{
    cJSON *out = cJSON_CreateObject(), *err;
    if (host == LG_TR_ANTHROPIC) {
        tr_add_str(out, "type", "error");
        err = cJSON_AddObjectToObject(out, "error");
        tr_add_str(err, "type", kind(host, status));
        tr_add_str(err, "message", msg);
    } else if (host == LG_TR_GEMINI) {
        err = cJSON_AddObjectToObject(out, "error");
        tr_add_num(err, "code", status);
        tr_add_str(err, "message", msg);
        tr_add_str(err, "status", kind(host, status));
    } else {
        bool q = status == 429 && quota_out;
        err = cJSON_AddObjectToObject(out, "error");
        tr_add_str(err, "message", msg);
        tr_add_str(err, "type", q ? "insufficient_quota" : kind(host, status));
        cJSON_AddNullToObject(err, "param");
        if (status == 429)
            tr_add_str(err, "code", q ? "insufficient_quota" : "rate_limit_exceeded");
        else
            cJSON_AddNullToObject(err, "code");
    }
    return out;
}

cJSON *tr_error_body(lg_tr_dialect host, int status, const char *body, size_t len)
{
    char msg[1024];
    cJSON *e = body ? cJSON_ParseWithLength(body, len) : NULL;
    message_of(e, body, len, msg, sizeof msg);
    cJSON *out = tr_error_make(host, status, msg, quota(e, msg));
    cJSON_Delete(e);
    return out;
}
