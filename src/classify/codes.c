/* The structured error codes and type names of every provider, and what each one says.
 * One shared table: the names do not collide between providers, and OpenAI-compatible endpoints of one
 * provider often carry another's names (Anthropic's compat endpoint sends code "rate_limit_error"). */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "classify/dialects.h"

typedef struct {
    const char *name;
    lg_sig sig;
    bool specific; /* names the exact condition (LG_EV_CODE) rather than a family (LG_EV_GENERIC) */
} code_entry;

static const code_entry codes[] = {
    /* OpenAI and OpenAI-compatible */
    {"insufficient_quota", LG_SIG_QUOTA, true},
    {"billing_hard_limit_reached", LG_SIG_QUOTA, true},
    {"billing_not_active", LG_SIG_QUOTA, true},
    {"rate_limit_exceeded", LG_SIG_RATE, false},
    {"tokens", LG_SIG_RATE, false},
    {"requests", LG_SIG_RATE, false},
    {"tokens_usage_based", LG_SIG_RATE, false},
    {"requests_usage_based", LG_SIG_RATE, false},
    {"rate_limited", LG_SIG_RATE, false},
    {"server_error", LG_SIG_SERVER, false},
    {"internal_server_error", LG_SIG_SERVER, false},
    {"service_unavailable", LG_SIG_SERVER, false},
    {"service_unavailable_error", LG_SIG_SERVER, false},
    {"engine_overloaded", LG_SIG_CAPACITY, true},
    {"engine_overloaded_error", LG_SIG_CAPACITY, true},
    {"model_overloaded", LG_SIG_CAPACITY, true},
    {"overloaded", LG_SIG_CAPACITY, true},
    {"service_tier_capacity_exceeded", LG_SIG_CAPACITY, true},
    {"context_length_exceeded", LG_SIG_REJECT, true},
    {"string_above_max_length", LG_SIG_REJECT, true},
    {"invalid_api_key", LG_SIG_REJECT, true},
    {"invalid_authentication", LG_SIG_REJECT, true},
    {"invalid_authentication_error", LG_SIG_REJECT, true},
    {"account_deactivated", LG_SIG_REJECT, true},
    {"access_terminated", LG_SIG_REJECT, true},
    {"content_filter", LG_SIG_REJECT, true},
    {"content_policy_violation", LG_SIG_REJECT, true},
    {"model_not_found", LG_SIG_REJECT, true},
    {"DeploymentNotFound", LG_SIG_REJECT, true},
    {"invalid_request_error", LG_SIG_REJECT, false},
    {"invalid_request", LG_SIG_REJECT, false},
    {"authentication_error", LG_SIG_REJECT, false},
    {"permission_error", LG_SIG_REJECT, false},
    {"permission_denied_error", LG_SIG_REJECT, false},
    {"not_found_error", LG_SIG_REJECT, false},
    /* Moonshot */
    {"rate_limit_reached_error", LG_SIG_RATE, false},
    {"exceeded_current_quota_error", LG_SIG_QUOTA, true},
    /* Anthropic */
    {"rate_limit_error", LG_SIG_RATE, false},
    {"overloaded_error", LG_SIG_CAPACITY, true},
    {"api_error", LG_SIG_SERVER, true},
    {"timeout_error", LG_SIG_SERVER, true},
    {"billing_error", LG_SIG_QUOTA, true},
    {"request_too_large", LG_SIG_REJECT, true},
    {"enforced_spend_limit_reached", LG_SIG_QUOTA, true},
    /* Baidu Qianfan v2 */
    {"rpm_rate_limit_exceeded", LG_SIG_RATE, true},
    {"tpm_rate_limit_exceeded", LG_SIG_RATE, true},
    {"qps_rate_limit_exceeded", LG_SIG_RATE, true},
    /* Volcengine Ark */
    {"RateLimitExceeded", LG_SIG_RATE, false},
    {"TooManyRequests", LG_SIG_LIMIT, false},
    {"ServerOverloaded", LG_SIG_CAPACITY, true},
    {"ModelLoadingError", LG_SIG_CAPACITY, true},
    {"AccountOverdueError", LG_SIG_QUOTA, true},
    {"AccountOverdue", LG_SIG_QUOTA, true},
    {"QuotaExceeded", LG_SIG_QUOTA, true},
    {"SetLimitExceeded", LG_SIG_QUOTA, true},
    {"InsufficientBalance", LG_SIG_QUOTA, true},
    {"InternalServiceError", LG_SIG_SERVER, true},
    {"ServiceUnavailable", LG_SIG_SERVER, false},
    {"InternalError", LG_SIG_SERVER, false},
    {"SystemError", LG_SIG_SERVER, false},
    {"RequestTimeOut", LG_SIG_SERVER, false},
    {"SensitiveContentDetected", LG_SIG_REJECT, true},
    {"OutofContextError", LG_SIG_REJECT, true},
    {"AuthenticationError", LG_SIG_REJECT, true},
    {"AccessDenied", LG_SIG_REJECT, false},
    {"InvalidParameter", LG_SIG_REJECT, false},
    {"InvalidApiKey", LG_SIG_REJECT, true},
    {"InvalidEndpointOrModel", LG_SIG_REJECT, false},
    /* Alibaba DashScope (native and compatible mode) */
    {"Throttling", LG_SIG_RATE, false},
    {"Throttling.RateQuota", LG_SIG_RATE, true},
    {"Throttling.BurstRate", LG_SIG_RATE, true},
    {"Throttling.User", LG_SIG_RATE, true},
    {"Throttling.AllocationQuota", LG_SIG_RATE, false},
    {"Throttling.Concurrency", LG_SIG_RATE, true},
    {"Arrearage", LG_SIG_QUOTA, true},
    {"AllocationQuota.FreeTierOnly", LG_SIG_QUOTA, true},
    {"DataInspectionFailed", LG_SIG_REJECT, true},
    {"data_inspection_failed", LG_SIG_REJECT, true},
    {"limit_requests", LG_SIG_RATE, false},
    {"ModelUnavailable", LG_SIG_SERVER, false},
    {"ModelServingError", LG_SIG_SERVER, false},
    /* Google: google.rpc.Status status names */
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
    /* Google: ErrorInfo.reason */
    {"RATE_LIMIT_EXCEEDED", LG_SIG_RATE, true},
    {"QUOTA_EXHAUSTED", LG_SIG_QUOTA, true},
    {"MODEL_CAPACITY_EXHAUSTED", LG_SIG_CAPACITY, true},
    {"BILLING_DISABLED", LG_SIG_QUOTA, true},
    {"API_KEY_INVALID", LG_SIG_REJECT, true},
    {"API_KEY_SERVICE_BLOCKED", LG_SIG_REJECT, true},
    {"SERVICE_DISABLED", LG_SIG_REJECT, true},
    {"CONSUMER_SUSPENDED", LG_SIG_REJECT, true},
    {"ACCESS_TOKEN_SCOPE_INSUFFICIENT", LG_SIG_REJECT, true},
    /* Google: legacy errors[].reason */
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

/* Dotted-code families ("RateLimitExceeded.EndpointTPMExceeded"), matched by prefix. */
static const code_entry prefixes[] = {
    {"RateLimitExceeded.", LG_SIG_RATE, true},   {"Throttling.", LG_SIG_RATE, false},
    {"InternalError.", LG_SIG_SERVER, false},    {"InvalidParameter.", LG_SIG_REJECT, false},
    {"AccessDenied.", LG_SIG_REJECT, false},     {"InvalidEndpointOrModel.", LG_SIG_REJECT, false},
    {"DataInspectionFailed.", LG_SIG_REJECT, true}, {"BadRequest.", LG_SIG_REJECT, false},
};

/* Suffix families: "organization_spend_limit_exceeded", "ModelAccountTpmRateLimitExceeded". */
static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

lg_sig lg_code_signal(const char *code, bool *specific)
{
    *specific = false;
    if (!code || !*code)
        return LG_SIG_NONE;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (!strcasecmp(codes[i].name, code)) {
            *specific = codes[i].specific;
            return codes[i].sig;
        }
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncasecmp(prefixes[i].name, code, strlen(prefixes[i].name))) {
            *specific = prefixes[i].specific;
            return prefixes[i].sig;
        }
    *specific = true;
    if (has_suffix(code, "spend_limit_exceeded") || has_suffix(code, "SpendLimitExceeded"))
        return LG_SIG_QUOTA;
    if (has_suffix(code, "RateLimitExceeded") || has_suffix(code, "_rate_limit_exceeded"))
        return LG_SIG_RATE;
    if (has_suffix(code, "Overloaded") || has_suffix(code, "_overloaded"))
        return LG_SIG_CAPACITY;
    *specific = false;
    return LG_SIG_NONE;
}

bool lg_cls_code(lg_cls *c, const char *code)
{
    bool specific;
    lg_sig s = lg_code_signal(code, &specific);
    if (s == LG_SIG_NONE)
        return false;
    lg_cls_evidence(c, specific ? LG_EV_CODE : LG_EV_GENERIC, s);
    return true;
}
