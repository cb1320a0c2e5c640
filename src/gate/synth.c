/* Provider-format error bodies for responses llmgate synthesizes (see synth.h). */
#include <cjson/cJSON.h>
#include <stdio.h>

#include "llmgate/synth.h"

/* True for an outage (overload, server error): not a rate limit of the host's. */
static bool is_down(const lg_outcome *o) { return o->state == LG_STATE_PROVIDER_DOWN; }

/* OpenAI and compatible: {"error":{"message","type","param","code"}}. */
static void openai_body(cJSON *root, const lg_outcome *o)
{
    cJSON *e = cJSON_AddObjectToObject(root, "error");
    cJSON_AddStringToObject(e, "message", o->message);
    bool quota = o->reason == LG_REASON_QUOTA_EXHAUSTED;
    cJSON_AddStringToObject(e, "type", is_down(o) ? "server_error" : quota ? "insufficient_quota" : "requests");
    cJSON_AddNullToObject(e, "param");
    if (is_down(o))
        cJSON_AddNullToObject(e, "code");
    else
        cJSON_AddStringToObject(e, "code", quota ? "insufficient_quota" : "rate_limit_exceeded");
}

static void anthropic_body(cJSON *root, const lg_outcome *o)
{
    cJSON_AddStringToObject(root, "type", "error");
    cJSON *e = cJSON_AddObjectToObject(root, "error");
    cJSON_AddStringToObject(e, "type", !is_down(o)                                          ? "rate_limit_error"
                                       : o->reason == LG_REASON_MODEL_CAPACITY_EXHAUSTED ? "overloaded_error"
                                                                                          : "api_error");
    cJSON_AddStringToObject(e, "message", o->message);
}

/* google.rpc.Status with ErrorInfo and RetryInfo. */
static void google_body(cJSON *root, int status, const lg_outcome *o, int64_t retry_after_ms)
{
    cJSON *e = cJSON_AddObjectToObject(root, "error");
    cJSON_AddNumberToObject(e, "code", status);
    cJSON_AddStringToObject(e, "message", o->message);
    cJSON_AddStringToObject(e, "status", is_down(o) ? "UNAVAILABLE" : "RESOURCE_EXHAUSTED");
    cJSON *details = cJSON_AddArrayToObject(e, "details");
    cJSON *info = cJSON_CreateObject();
    cJSON_AddStringToObject(info, "@type", "type.googleapis.com/google.rpc.ErrorInfo");
    cJSON_AddStringToObject(info, "reason", lg_reason_name(o->reason));
    cJSON_AddStringToObject(info, "domain", "llmgate");
    cJSON_AddItemToArray(details, info);
    if (retry_after_ms >= 0) {
        char delay[32];
        snprintf(delay, sizeof delay, "%lld.%03llds", (long long)(retry_after_ms / 1000),
                 (long long)(retry_after_ms % 1000));
        cJSON *retry = cJSON_CreateObject();
        cJSON_AddStringToObject(retry, "@type", "type.googleapis.com/google.rpc.RetryInfo");
        cJSON_AddStringToObject(retry, "retryDelay", delay);
        cJSON_AddItemToArray(details, retry);
    }
}

/* A request refused locally for good (a routing rule, a translation the target cannot take): an
 * invalid-request error in dialect d; every key set aside as refused (o->account_rejected): an
 * authentication error. */
static void refusal_body(cJSON *root, lg_dialect d, int status, const lg_outcome *o)
{
    cJSON *e;
    switch (d) {
    case LG_DIALECT_ANTHROPIC:
        cJSON_AddStringToObject(root, "type", "error");
        e = cJSON_AddObjectToObject(root, "error");
        cJSON_AddStringToObject(e, "type", o->account_rejected ? "authentication_error"
                                           : status == 403   ? "permission_error"
                                                             : "invalid_request_error");
        cJSON_AddStringToObject(e, "message", o->message);
        break;
    case LG_DIALECT_GOOGLE:
        e = cJSON_AddObjectToObject(root, "error");
        cJSON_AddNumberToObject(e, "code", status);
        cJSON_AddStringToObject(e, "message", o->message);
        cJSON_AddStringToObject(e, "status", o->account_rejected ? "UNAUTHENTICATED"
                                             : status == 403   ? "PERMISSION_DENIED"
                                                               : "INVALID_ARGUMENT");
        break;
    default:
        e = cJSON_AddObjectToObject(root, "error");
        cJSON_AddStringToObject(e, "message", o->message);
        cJSON_AddStringToObject(e, "type", "invalid_request_error");
        cJSON_AddNullToObject(e, "param");
        cJSON_AddStringToObject(e, "code", o->account_rejected ? "invalid_api_key" : "llmgate_route_refused");
        break;
    }
}

char *lg_synth_error_body(lg_dialect d, int status, const lg_outcome *o, int64_t retry_after_ms)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    if (o->state == LG_STATE_NON_RETRYABLE)
        refusal_body(root, d, status, o);
    else switch (d) {
    case LG_DIALECT_ANTHROPIC:
        anthropic_body(root, o);
        break;
    case LG_DIALECT_GOOGLE:
        google_body(root, status, o, retry_after_ms);
        break;
    case LG_DIALECT_DASHSCOPE:
        cJSON_AddStringToObject(root, "code",
                                o->reason == LG_REASON_QUOTA_EXHAUSTED ? "Arrearage" : "Throttling.RateQuota");
        cJSON_AddStringToObject(root, "message", o->message);
        cJSON_AddStringToObject(root, "request_id", "llmgate");
        break;
    case LG_DIALECT_BAIDU:
        cJSON_AddNumberToObject(root, "error_code", o->reason == LG_REASON_QUOTA_EXHAUSTED ? 17 : 18);
        cJSON_AddStringToObject(root, "error_msg", o->message);
        break;
    default:
        openai_body(root, o);
        break;
    }
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return out;
}
