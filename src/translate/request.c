/* Request translation: dispatch through the OpenAI hub (what the hub refuses: req_openai.c), target paths
 * and authentication headers.
 * Sources: docs.anthropic.com/en/api/messages and /en/api/versioning (POST /v1/messages, x-api-key,
 * anthropic-version: 2023-06-01); ai.google.dev/api/generate-content (POST
 * /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse) and ai.google.dev/gemini-api/docs/
 * api-key (x-goog-api-key); platform.openai.com/docs/api-reference (POST /v1/chat/completions, Authorization:
 * Bearer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate/internal.h"

/* The request as an OpenAI tree (the hub), or NULL with f set. */
static cJSON *to_hub(lg_tr_dialect from, const cJSON *req, const lg_tr_request_opts *o, tr_fail *f)
{
    if (from == LG_TR_ANTHROPIC)
        return tr_req_anthropic_to_openai(req, f);
    if (from == LG_TR_GEMINI)
        return tr_req_gemini_to_openai(req, o && o->stream, f);
    return cJSON_Duplicate(req, true);
}

static cJSON *from_hub(lg_tr_dialect to, const cJSON *hub, const lg_tr_request_opts *o, tr_fail *f)
{
    if (to == LG_TR_ANTHROPIC)
        return tr_req_openai_to_anthropic(hub, o, f);
    if (to == LG_TR_GEMINI)
        return tr_req_openai_to_gemini(hub, f);
    cJSON *r = cJSON_Duplicate(hub, true);
    if (o && o->model && r) {
        cJSON_DeleteItemFromObjectCaseSensitive(r, "model");
        cJSON_AddStringToObject(r, "model", o->model);
    }
    /* a stream translated for a non-OpenAI host needs the final usage chunk */
    if (r && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "stream")) && !tr_obj(r, "stream_options"))
        cJSON_AddBoolToObject(cJSON_AddObjectToObject(r, "stream_options"), "include_usage", true);
    return r;
}

lg_tr_status lg_tr_request_translate(lg_tr_dialect from, lg_tr_dialect to, const char *body, size_t len,
                                     const lg_tr_request_opts *opts, lg_tr_request *out)
{
    memset(out, 0, sizeof *out);
    tr_fail f = {LG_TR_OK, out->reason};
    cJSON *req = body ? cJSON_ParseWithLength(body, len) : NULL;
    if (!cJSON_IsObject(req)) {
        cJSON_Delete(req);
        tr_err(&f, LG_TR_MALFORMED, "the request body is not a JSON object");
        return f.st;
    }
    if (from == to) {
        cJSON *r = cJSON_Duplicate(req, true);
        if (r && opts && opts->model && to != LG_TR_GEMINI) {
            cJSON_DeleteItemFromObjectCaseSensitive(r, "model");
            cJSON_AddStringToObject(r, "model", opts->model);
        }
        cJSON_Delete(req);
        req = r;
        out->body = r ? cJSON_PrintUnformatted(r) : NULL;
    } else {
        cJSON *hub = to_hub(from, req, opts, &f), *n = (cJSON *)tr_num(hub, "n");
        /* the stream translators carry the first choice only */
        if (n && n->valuedouble != 1 && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hub, "stream")))
            tr_refuse(&f, "a stream of several choices", to);
        cJSON *r = hub && f.st == LG_TR_OK ? from_hub(to, hub, opts, &f) : NULL;
        out->body = r ? cJSON_PrintUnformatted(r) : NULL;
        cJSON_Delete(r);
        cJSON_Delete(req);
        req = hub;
    }
    if (f.st == LG_TR_OK && !out->body)
        tr_err(&f, LG_TR_NOMEM, "out of memory");
    const cJSON *so = tr_obj(req, "stream_options");
    out->stream = from == LG_TR_GEMINI && from == to ? opts && opts->stream
                                                     : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "stream"));
    out->include_usage = from == LG_TR_OPENAI && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(so, "include_usage"));
    cJSON_Delete(req);
    if (f.st != LG_TR_OK) {
        free(out->body);
        out->body = NULL;
    }
    return f.st;
}

bool lg_tr_path(lg_tr_dialect to, const char *model, bool stream, char *buf, size_t cap)
{
    int n;
    if (to == LG_TR_ANTHROPIC)
        n = snprintf(buf, cap, "/v1/messages");
    else if (to == LG_TR_OPENAI)
        n = snprintf(buf, cap, "/v1/chat/completions");
    else if (!model || !*model || strpbrk(model, "/?#: \t\r\n%"))
        return false;
    else
        n = snprintf(buf, cap, "/v1beta/models/%s:%s", model,
                     stream ? "streamGenerateContent?alt=sse" : "generateContent");
    return n >= 0 && (size_t)n < cap;
}

bool lg_tr_gemini_call(const char *url, char *model, size_t cap, bool *stream, bool *sse)
{
    size_t path_len = strcspn(url, "?#");
    const char *m = NULL;
    for (const char *p = url; (p = strstr(p, "/models/")) && (size_t)(p - url) < path_len; p++)
        m = p + 8;
    if (!m)
        return false;
    size_t n = strcspn(m, ":/?#");
    const char *verb = m + n;
    size_t verb_len = (size_t)(url + path_len - verb);
    if (n == 0 || n >= cap || *verb != ':')
        return false;
    if (verb_len == 16 && !strncmp(verb, ":generateContent", 16))
        *stream = false;
    else if (verb_len == 22 && !strncmp(verb, ":streamGenerateContent", 22))
        *stream = true;
    else
        return false;
    memcpy(model, m, n);
    model[n] = '\0';
    *sse = false;
    for (const char *q = url + path_len; *q == '?' || *q == '&'; q += 1 + strcspn(q + 1, "&#"))
        if (!strncmp(q + 1, "alt=sse", 7) && (q[8] == '&' || q[8] == '#' || q[8] == '\0'))
            *sse = true;
    return true;
}

int lg_tr_auth_headers(lg_tr_dialect to, const char *key, char lines[2][512])
{
    int n;
    if (!key || strpbrk(key, "\r\n"))
        return 0;
    if (to == LG_TR_ANTHROPIC) {
        n = snprintf(lines[0], 512, "x-api-key: %s", key);
        snprintf(lines[1], 512, "%s", LG_TR_ANTHROPIC_VERSION);
        return n > 0 && n < 512 ? 2 : 0;
    }
    n = snprintf(lines[0], 512, to == LG_TR_GEMINI ? "x-goog-api-key: %s" : "Authorization: Bearer %s", key);
    return n > 0 && n < 512 ? 1 : 0;
}
