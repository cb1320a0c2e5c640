/* OpenAI and every OpenAI-compatible API: {"error": {message, type, param, code}} and its relatives:
 * Azure (code "429", "DeploymentNotFound", innererror), DeepSeek, Groq, Mistral ({"object": "error", ...}
 * and bare {"message": ...}), OpenRouter (numeric code mirroring the status, metadata.raw with the
 * upstream's words, metadata.headers with X-RateLimit-Reset, an error inside a choice of a 200),
 * Moonshot, Volcengine Ark, Scaleway and Bailian compatible mode (insufficient_quota with a "#token-limit"
 * anchor is a per-minute limit). */
#include <string.h>
#include <strings.h>

#include "providers/readers.h"

/* A three-digit code such as Azure's "429", read as the status it mirrors. */
static int status_code(const char *s)
{
    if (!s || strlen(s) != 3)
        return 0;
    for (int i = 0; i < 3; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
}

/* Records a code or type name read beside the message msg (see lg_cls_code_beside). */
static void record_code(lg_cls *c, const char *name, const char *msg)
{
    if (!name)
        return;
    if (!strcasecmp(name, "tokens") || !strcasecmp(name, "tokens_usage_based"))
        c->dim = LG_DIM_TOKENS;
    else if (!strcasecmp(name, "requests") || !strcasecmp(name, "requests_usage_based"))
        c->dim = LG_DIM_REQUESTS;
    lg_cls_code_beside(c, name, msg);
}

/* OpenRouter: metadata.raw (upstream text), metadata.headers["X-RateLimit-Reset"] (Unix ms), and
 * provider_error_code, which only names the upstream's family. */
static void openrouter_metadata(lg_cls *c, const cJSON *meta)
{
    if (!cJSON_IsObject(meta))
        return;
    const char *raw = lg_json_str(meta, "raw");
    if (raw)
        lg_cls_text(c, raw, strlen(raw), false);
    const cJSON *headers = cJSON_GetObjectItemCaseSensitive(meta, "headers");
    const cJSON *h;
    cJSON_ArrayForEach(h, (cJSON_IsObject(headers) ? headers : NULL))
    {
        int64_t at;
        if (h->string && !strcasecmp(h->string, "x-ratelimit-reset") && lg_json_int(headers, h->string, &at) &&
            at > 0 && c->reset_at_ms == LG_NO_HINT)
            c->reset_at_ms = at < 100000000000LL ? at * 1000 : at; /* seconds or ms */
    }
    bool specific;
    lg_sig s = lg_code_signal(c->dialect, lg_json_str(meta, "provider_error_code"), &specific);
    lg_cls_evidence(c, LG_EV_GENERIC, s);
}

bool lg_openai_error_object(lg_cls *c, const cJSON *err)
{
    if (cJSON_IsString(err) && err->valuestring && *err->valuestring) {
        c->error = true;
        lg_cls_text(c, err->valuestring, strlen(err->valuestring), true);
        return true;
    }
    if (!cJSON_IsObject(err))
        return false;
    c->error = true;
    const char *msg = lg_json_str(err, "message");
    if (!msg)
        msg = lg_json_str(err, "msg");
    if (msg)
        lg_cls_text(c, msg, strlen(msg), true);
    openrouter_metadata(c, cJSON_GetObjectItemCaseSensitive(err, "metadata"));

    int64_t num;
    const char *code = lg_json_str(err, "code");
    if (lg_json_int(err, "code", &num) && num >= 100 && num <= 599 && c->body_status == 0)
        c->body_status = (int)num;
    else if (status_code(code) && c->body_status == 0)
        c->body_status = status_code(code);
    record_code(c, code, msg);
    record_code(c, lg_json_str(err, "type"), msg);
    const cJSON *inner = cJSON_GetObjectItemCaseSensitive(err, "innererror");
    record_code(c, lg_json_str(inner, "code"), msg);
    if (lg_json_int(err, "status", &num) && num >= 100 && num <= 599 && c->body_status == 0)
        c->body_status = (int)num;
    return true;
}

/* Whether doc is an OpenAI-shaped error document (some bare shapes only when http_error); records what it
 * says into c. */
static bool read_error(lg_cls *c, const cJSON *doc, bool http_error)
{
    if (!cJSON_IsObject(doc))
        return false;
    if (lg_openai_error_object(c, cJSON_GetObjectItemCaseSensitive(doc, "error")))
        return true;
    /* The Responses API's stream ends a failed response with a response.failed event: the response object,
     * status "failed", its error inside. */
    const cJSON *resp = cJSON_GetObjectItemCaseSensitive(doc, "response");
    const char *status = lg_json_str(resp, "status");
    if (status && !strcmp(status, "failed") && lg_openai_error_object(c, cJSON_GetObjectItemCaseSensitive(resp, "error")))
        return true;
    /* OpenRouter ends a completion that failed during generation with the error inside its choice
     * (finish_reason "error", the partial content beside it), on an HTTP 200. */
    const cJSON *choice;
    cJSON_ArrayForEach(choice, cJSON_GetObjectItemCaseSensitive(doc, "choices"))
    {
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(choice, "error");
        if (cJSON_IsObject(err) && lg_openai_error_object(c, err))
            return true;
    }
    const char *object = lg_json_str(doc, "object");
    if (object && !strcmp(object, "error"))
        return lg_openai_error_object(c, doc);
    if (!http_error)
        return false;
    /* Bare shapes seen only with an error status: {"message": ...}, {"detail": "..."}, {"detail": {...}}. */
    if (lg_json_str(doc, "message") || lg_json_str(doc, "type") || lg_json_str(doc, "code"))
        return lg_openai_error_object(c, doc);
    if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "errors"))) { /* {"errors": [...]}: read by nested.c */
        c->error = true;
        return true;
    }
    const cJSON *detail = cJSON_GetObjectItemCaseSensitive(doc, "detail");
    if (cJSON_IsString(detail) || cJSON_IsObject(detail))
        return lg_openai_error_object(c, detail);
    return false;
}

/* This dialect's entry in the readers table (readers.c). */
const lg_dialect_reader lg_openai_reader = {LG_DIALECT_NONE, read_error, NULL};
