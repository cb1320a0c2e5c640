/* Google (Gemini API, Cloud Code, Vertex AI): google.rpc.Status errors {"error": {code, message, status,
 * details[], errors[]}}, also wrapped in a JSON array. details: ErrorInfo (reason RATE_LIMIT_EXCEEDED,
 * QUOTA_EXHAUSTED, MODEL_CAPACITY_EXHAUSTED...; metadata quotaResetDelay, quotaResetTimeStamp,
 * quota_limit), QuotaFailure (violations[].quotaId: PerDay vs PerMinute; quotaValue "0"), RetryInfo
 * (retryDelay). Legacy errors[].reason: rateLimitExceeded, dailyLimitExceeded, quotaExceeded...
 * Its usageMetadata is read with the other usage shapes (src/classify/usage.c). */
#include <string.h>

#include "providers/readers.h"
#include "llmgate/duration.h"

/* google.rpc.Code names (error.status), ErrorInfo.reason values and legacy errors[].reason values. */
static const lg_code_entry codes[] = {
    {"RESOURCE_EXHAUSTED", LG_SIG_LIMIT, false},
    {"UNAVAILABLE", LG_SIG_SERVER, false},
    {"INTERNAL", LG_SIG_SERVER, false},
    {"DEADLINE_EXCEEDED", LG_SIG_SERVER, false},
    {"UNKNOWN", LG_SIG_SERVER, false},
    {"INVALID_ARGUMENT", LG_SIG_REJECT, false},
    {"FAILED_PRECONDITION", LG_SIG_REJECT, false},
    {"OUT_OF_RANGE", LG_SIG_REJECT, false},
    {"PERMISSION_DENIED", LG_SIG_REJECT, false},
    {"UNAUTHENTICATED", LG_SIG_REJECT, false},
    {"NOT_FOUND", LG_SIG_REJECT, false},
    {"ALREADY_EXISTS", LG_SIG_REJECT, false},
    {"ABORTED", LG_SIG_SERVER, false},
    {"UNIMPLEMENTED", LG_SIG_REJECT, false},
    {"CANCELLED", LG_SIG_SERVER, false},
    {"RATE_LIMIT_EXCEEDED", LG_SIG_RATE, false}, /* a family: QuotaFailure tells the window */
    {"QUOTA_EXHAUSTED", LG_SIG_QUOTA, true},
    {"MODEL_CAPACITY_EXHAUSTED", LG_SIG_CAPACITY, true},
    {"BILLING_DISABLED", LG_SIG_QUOTA, true},
    {"API_KEY_INVALID", LG_SIG_REJECT, true},
    {"API_KEY_SERVICE_BLOCKED", LG_SIG_REJECT, true},
    {"SERVICE_DISABLED", LG_SIG_REJECT, true},
    {"CONSUMER_SUSPENDED", LG_SIG_REJECT, true},
    {"ACCESS_TOKEN_SCOPE_INSUFFICIENT", LG_SIG_REJECT, true},
    /* the rest of google.api.ErrorReason (googleapis google/api/error_reason.proto) that bears on us */
    {"RESOURCE_QUOTA_EXCEEDED", LG_SIG_LIMIT, false}, /* a quota limit: QuotaFailure tells its period */
    {"OVERLOADED_CREDENTIALS", LG_SIG_REJECT, true},  /* an API key sent together with other credentials */
    {"API_KEY_HTTP_REFERRER_BLOCKED", LG_SIG_REJECT, true},
    {"API_KEY_IP_ADDRESS_BLOCKED", LG_SIG_REJECT, true},
    {"API_KEY_ANDROID_APP_BLOCKED", LG_SIG_REJECT, true},
    {"API_KEY_IOS_APP_BLOCKED", LG_SIG_REJECT, true},
    {"USER_PROJECT_DENIED", LG_SIG_REJECT, true},
    {"CONSUMER_INVALID", LG_SIG_REJECT, true},
    {"RESOURCE_PROJECT_INVALID", LG_SIG_REJECT, true},
    {"ACCESS_TOKEN_EXPIRED", LG_SIG_REJECT, true},
    {"ACCESS_TOKEN_TYPE_UNSUPPORTED", LG_SIG_REJECT, true},
    {"CREDENTIALS_MISSING", LG_SIG_REJECT, true},
    {"ACCOUNT_STATE_INVALID", LG_SIG_REJECT, true},
    {"GCP_SUSPENDED", LG_SIG_REJECT, true},
    {"SECURITY_POLICY_VIOLATED", LG_SIG_REJECT, true},
    {"ORG_RESTRICTION_VIOLATION", LG_SIG_REJECT, true},
    {"LOCATION_POLICY_VIOLATED", LG_SIG_REJECT, true},
    {"RESOURCE_USAGE_RESTRICTION_VIOLATED", LG_SIG_REJECT, true},
    {"SERVICE_NOT_VISIBLE", LG_SIG_REJECT, true},
    {"rateLimitExceeded", LG_SIG_RATE, true},
    {"userRateLimitExceeded", LG_SIG_RATE, true},
    {"rateLimitExceededUnreg", LG_SIG_RATE, true},
    {"userRateLimitExceededUnreg", LG_SIG_RATE, true},
    {"dailyLimitExceeded", LG_SIG_QUOTA, true},
    {"dailyLimitExceededUnreg", LG_SIG_QUOTA, true},
    {"quotaExceeded", LG_SIG_QUOTA, true},
    {"backendError", LG_SIG_SERVER, true},
    {"keyInvalid", LG_SIG_REJECT, true},
    {"keyExpired", LG_SIG_REJECT, true},
};
static const lg_code_table code_table = {codes, sizeof codes / sizeof codes[0]};

/* What a quota name says about its window: "GenerateRequestsPerDayPerProjectPerModel-FreeTier". */
static lg_sig quota_period(const char *name)
{
    if (!name)
        return LG_SIG_NONE;
    size_t n = strlen(name);
    static const char *const long_windows[] = {"perday", "per day", "daily", "permonth", "per month",
                                               "perweek", "per week", "perhour", "per hour", "peryear"};
    static const char *const short_windows[] = {"perminute", "per minute", "persecond", "per second",
                                                "concurren"};
    for (size_t i = 0; i < sizeof long_windows / sizeof long_windows[0]; i++)
        if (lg_text_find(name, n, long_windows[i]) >= 0)
            return LG_SIG_QUOTA;
    for (size_t i = 0; i < sizeof short_windows / sizeof short_windows[0]; i++)
        if (lg_text_find(name, n, short_windows[i]) >= 0)
            return LG_SIG_RATE;
    return LG_SIG_NONE;
}

/* Folds one window signal into the running verdict: any exhausted long window makes it a quota. */
static lg_sig fold_period(lg_sig acc, lg_sig s)
{
    return acc == LG_SIG_QUOTA || s == LG_SIG_QUOTA ? LG_SIG_QUOTA : (s != LG_SIG_NONE ? s : acc);
}

static bool zero_value(const cJSON *o, const char *key)
{
    int64_t v;
    return lg_json_int(o, key, &v) && v == 0;
}

static void quota_failure(lg_cls *c, const cJSON *detail)
{
    const cJSON *violations = cJSON_GetObjectItemCaseSensitive(detail, "violations");
    const cJSON *v;
    lg_sig acc = LG_SIG_NONE;
    cJSON_ArrayForEach(v, (cJSON_IsArray(violations) ? violations : NULL))
    {
        if (!cJSON_IsObject(v))
            continue;
        lg_sig s = quota_period(lg_json_str(v, "quotaId"));
        if (s == LG_SIG_NONE)
            s = quota_period(lg_json_str(v, "description"));
        if (s == LG_SIG_NONE)
            s = quota_period(lg_json_str(v, "quotaMetric"));
        if (zero_value(v, "quotaValue"))
            s = LG_SIG_QUOTA;
        acc = fold_period(acc, s);
    }
    lg_cls_evidence(c, LG_EV_QUOTA_ID, acc);
}

/* A protobuf Duration as JSON: "40s", or {"seconds": 40, "nanos": 5e8} in some renderings. */
static bool proto_duration(const cJSON *v, int64_t *ms)
{
    if (cJSON_IsString(v) && v->valuestring)
        return lg_parse_proto_duration(v->valuestring, strlen(v->valuestring), ms) ||
               lg_parse_go_duration(v->valuestring, strlen(v->valuestring), ms);
    int64_t s = 0, ns = 0;
    if (!cJSON_IsObject(v) || !(lg_json_int(v, "seconds", &s) | lg_json_int(v, "nanos", &ns)))
        return false;
    if (s < 0 || ns < 0 || ns > 999999999 || s > 1000000000000LL)
        return false;
    *ms = s * 1000 + ns / 1000000 + (ns % 1000000 != 0);
    return true;
}

static void error_info(lg_cls *c, const cJSON *detail)
{
    lg_cls_code(c, lg_json_str(detail, "reason"));
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(detail, "metadata");
    if (!cJSON_IsObject(meta))
        return;
    const char *delay = lg_json_str(meta, "quotaResetDelay");
    int64_t v;
    if (delay && c->quota_delay_ms == LG_NO_HINT &&
        (lg_parse_go_duration(delay, strlen(delay), &v) || lg_parse_proto_duration(delay, strlen(delay), &v)))
        c->quota_delay_ms = v;
    const char *stamp = lg_json_str(meta, "quotaResetTimeStamp");
    if (stamp && c->reset_at_ms == LG_NO_HINT && lg_parse_rfc3339(stamp, strlen(stamp), &v))
        c->reset_at_ms = v;
    lg_sig s = quota_period(lg_json_str(meta, "quota_limit"));
    if (zero_value(meta, "quota_limit_value"))
        s = LG_SIG_QUOTA;
    lg_cls_evidence(c, LG_EV_QUOTA_ID, s);
}

static void details(lg_cls *c, const cJSON *list)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, (cJSON_IsArray(list) ? list : NULL))
    {
        const char *type = lg_json_str(d, "@type");
        if (!type)
            continue;
        int64_t ms;
        if (strstr(type, "google.rpc.ErrorInfo"))
            error_info(c, d);
        else if (strstr(type, "google.rpc.QuotaFailure"))
            quota_failure(c, d);
        else if (strstr(type, "google.rpc.RetryInfo") && c->retry_info_ms == LG_NO_HINT &&
                 proto_duration(cJSON_GetObjectItemCaseSensitive(d, "retryDelay"), &ms))
            c->retry_info_ms = ms;
    }
}

/* Whether doc is a google.rpc.Status error document; records what it says into c. */
static bool read_error(lg_cls *c, const cJSON *doc, bool http_error)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(doc, "error");
    if (!cJSON_IsObject(err))
        return false;
    const char *status = lg_json_str(err, "status");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(err, "details");
    const cJSON *errors = cJSON_GetObjectItemCaseSensitive(err, "errors");
    if (!status && !cJSON_IsArray(list) && !cJSON_IsArray(errors))
        return false;
    c->error = true;
    int64_t code;
    if (lg_json_int(err, "code", &code) && code >= 100 && code <= 599 && c->body_status == 0)
        c->body_status = (int)code;
    const char *msg = lg_json_str(err, "message");
    if (msg)
        lg_cls_text(c, msg, strlen(msg), true);
    details(c, list);
    const cJSON *e;
    cJSON_ArrayForEach(e, (cJSON_IsArray(errors) ? errors : NULL))
    {
        lg_cls_code(c, lg_json_str(e, "reason"));
        const char *m = lg_json_str(e, "message");
        if (m)
            lg_cls_text(c, m, strlen(m), true);
    }
    lg_cls_code(c, status);
    return true;
}

/* This dialect's entry in the readers table (readers.c). */
const lg_dialect_reader lg_google_reader = {LG_DIALECT_GOOGLE, read_error, &code_table};
