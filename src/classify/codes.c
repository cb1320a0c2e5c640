/* Structured error codes and type names: the lookup over the per-dialect tables, the shared table of
 * OpenAI-compatible APIs, and the code families matched by prefix or suffix. A dialect's own table is
 * consulted first; the others follow because compatible endpoints borrow each other's names (Anthropic's
 * OpenAI-compatible endpoint sends code "rate_limit_error"). An entry ending in '.' matches a dotted
 * family by prefix ("RateLimitExceeded.EndpointTPMExceeded"). */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "classify/dialects.h"

/* OpenAI and every OpenAI-compatible API: OpenAI, Azure, Groq, Mistral, DeepSeek, Moonshot, OpenRouter,
 * Cerebras, Volcengine Ark, Qianfan v2, gateways such as LiteLLM; and AWS Bedrock's x-amzn-ErrorType. */
static const lg_code_entry shared[] = {
    {"insufficient_quota", LG_SIG_QUOTA, true},
    {"budget_exceeded", LG_SIG_QUOTA, true}, /* LiteLLM's spend caps */
    {"billing_hard_limit_reached", LG_SIG_QUOTA, true},
    {"billing_not_active", LG_SIG_QUOTA, true},
    /* OpenAI's insufficient_quota codes (learn.microsoft.com dev-proxy "openai insufficient quota", after
     * OpenAI's error-code guide): prepaid credit used up; the spend limits match by suffix below */
    {"credit_balance_exhausted", LG_SIG_QUOTA, true},
    {"unsupported_country_region_territory", LG_SIG_REJECT, true}, /* 403: region not served */
    {"rate_limit_exceeded", LG_SIG_RATE, false},
    {"tokens", LG_SIG_RATE, false},
    {"requests", LG_SIG_RATE, false},
    {"tokens_usage_based", LG_SIG_RATE, false},
    {"requests_usage_based", LG_SIG_RATE, false},
    {"rate_limited", LG_SIG_RATE, false},
    {"throttling_error", LG_SIG_RATE, false},
    {"too_many_requests_error", LG_SIG_LIMIT, false},
    {"too_many_tokens_error", LG_SIG_LIMIT, false},
    {"request_quota_exceeded", LG_SIG_LIMIT, false}, /* Cerebras: per minute or per day, the text tells */
    {"token_quota_exceeded", LG_SIG_LIMIT, false},
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
    /* Moonshot (platform.moonshot.cn error-code table: error types used as codes) */
    {"resource_not_found_error", LG_SIG_REJECT, true},
    {"rate_limit_reached_error", LG_SIG_RATE, false},
    {"exceeded_current_quota_error", LG_SIG_QUOTA, true},
    /* Qianfan v2 (cloud.baidu.com/doc/qianfan-api/s/Om9b4yj3w, 错误码) */
    {"tokens_too_long", LG_SIG_REJECT, true},     /* the prompt exceeds the model's limit */
    {"characters_too_long", LG_SIG_REJECT, true}, /* the input exceeds the character limit */
    {"rpm_rate_limit_exceeded", LG_SIG_RATE, true},
    {"tpm_rate_limit_exceeded", LG_SIG_RATE, true},
    {"qps_rate_limit_exceeded", LG_SIG_RATE, true},
    /* Volcengine Ark, and names Ark shares with DashScope */
    {"RateLimitExceeded", LG_SIG_RATE, false},
    {"RateLimitExceeded.", LG_SIG_RATE, true},
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
    {"InternalError.", LG_SIG_SERVER, false},
    {"SystemError", LG_SIG_SERVER, false},
    {"RequestTimeOut", LG_SIG_SERVER, false},
    {"SensitiveContentDetected", LG_SIG_REJECT, true},
    {"InputTextSensitiveContentDetected", LG_SIG_REJECT, true},  /* Ark: the input was flagged */
    {"OutputTextSensitiveContentDetected", LG_SIG_REJECT, true}, /* Ark: the output was flagged */
    {"ModelNotOpen", LG_SIG_REJECT, true},                       /* Ark: the model was never activated */
    {"OutofContextError", LG_SIG_REJECT, true},
    {"AuthenticationError", LG_SIG_REJECT, true},
    {"AccessDenied", LG_SIG_REJECT, false},
    {"AccessDenied.", LG_SIG_REJECT, false},
    {"InvalidParameter", LG_SIG_REJECT, false},
    {"InvalidParameter.", LG_SIG_REJECT, false},
    {"InvalidApiKey", LG_SIG_REJECT, true},
    {"InvalidEndpointOrModel", LG_SIG_REJECT, false},
    {"InvalidEndpointOrModel.", LG_SIG_REJECT, false},
    {"BadRequest.", LG_SIG_REJECT, false},
    /* AWS Bedrock (x-amzn-ErrorType; the InvokeModel / Converse error lists of the Bedrock API reference and
     * the common errors of AWS APIs) */
    {"ModelErrorException", LG_SIG_SERVER, false},       /* the model failed while processing */
    {"ModelStreamErrorException", LG_SIG_SERVER, false}, /* the model failed during a stream */
    {"ResourceNotFoundException", LG_SIG_REJECT, true},
    {"UnrecognizedClientException", LG_SIG_REJECT, true}, /* unknown access key */
    {"ExpiredTokenException", LG_SIG_REJECT, true},
    {"IncompleteSignature", LG_SIG_REJECT, true},
    {"ThrottlingException", LG_SIG_RATE, false},
    {"ServiceQuotaExceededException", LG_SIG_LIMIT, false},
    {"ModelNotReadyException", LG_SIG_CAPACITY, true},
    {"ServiceUnavailableException", LG_SIG_SERVER, false},
    {"InternalServerException", LG_SIG_SERVER, false},
    {"ModelTimeoutException", LG_SIG_SERVER, false},
    {"ValidationException", LG_SIG_REJECT, false},
    {"AccessDeniedException", LG_SIG_REJECT, false},
};
static const lg_code_table shared_codes = {shared, sizeof shared / sizeof shared[0]};

/* Zhipu GLM (open.bigmodel.cn, api.z.ai): numeric codes as strings in the OpenAI envelope and in its
 * Anthropic-compatible one, from its error-code page (docs.bigmodel.cn/cn/api/api-code,
 * docs.z.ai/api-reference/api-code): every code that bears on limits, billing, refusal or failure. Read
 * after the shared table. Its authentication codes 1000-1003 are left out: MiniMax's codes of the same
 * numbers mean other things (1002 is its RPM limit) and relays pass those on as strings. 1313 ("request
 * frequency limited" under the fair-use policy, lifted on application) is left to its message's words. */
static const lg_code_entry zhipu[] = {
    {"1004", LG_SIG_REJECT, true}, /* token failed verification */
    {"1110", LG_SIG_REJECT, true}, /* account inactive */
    {"1111", LG_SIG_REJECT, true}, /* account does not exist */
    {"1112", LG_SIG_REJECT, true}, /* account locked */
    {"1113", LG_SIG_QUOTA, true},  /* account in arrears: recharge */
    {"1121", LG_SIG_REJECT, true}, /* account locked for irregular activity */
    {"1211", LG_SIG_REJECT, true}, /* model does not exist */
    {"1220", LG_SIG_REJECT, true}, /* no permission for the API */
    {"1221", LG_SIG_REJECT, true}, /* API taken offline */
    {"1234", LG_SIG_SERVER, true}, /* network error */
    {"1261", LG_SIG_REJECT, true}, /* prompt too long */
    {"1301", LG_SIG_REJECT, true}, /* unsafe or sensitive content */
    {"1302", LG_SIG_RATE, true},   /* concurrency too high */
    {"1303", LG_SIG_RATE, true},   /* request frequency too high */
    {"1304", LG_SIG_QUOTA, true},  /* today's call count used up */
    {"1305", LG_SIG_CAPACITY, true}, /* the API's traffic limit triggered (the model is busy) */
    {"1308", LG_SIG_QUOTA, true},  /* the usage cap of N hours reached, reset at a stated time */
    {"1309", LG_SIG_QUOTA, true},  /* the coding plan expired */
    {"1310", LG_SIG_QUOTA, true},  /* the weekly or monthly cap reached */
    {"1311", LG_SIG_REJECT, true}, /* the plan does not include the model */
    {"1312", LG_SIG_CAPACITY, true}, /* the model's traffic is too high: later or another model */
};
static const lg_code_table zhipu_codes = {zhipu, sizeof zhipu / sizeof zhipu[0]};

static bool entry_matches(const char *name, const char *code)
{
    size_t n = strlen(name);
    if (n && name[n - 1] == '.')
        return !strncasecmp(name, code, n);
    return !strcasecmp(name, code);
}

static bool table_lookup(const lg_code_table *t, const char *code, lg_sig *sig, bool *specific)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (entry_matches(t->e[i].name, code)) {
            *sig = t->e[i].sig;
            *specific = t->e[i].specific;
            return true;
        }
    return false;
}

lg_sig lg_code_table_signal(const lg_code_table *t, const char *code, bool *specific)
{
    lg_sig s = LG_SIG_NONE;
    *specific = false;
    return code && table_lookup(t, code, &s, specific) ? s : LG_SIG_NONE;
}

/* The table of d's own reader, else the shared one. */
static const lg_code_table *native_table(lg_dialect d)
{
    const lg_dialect_reader *r = lg_reader_of(d);
    return r && r->codes ? r->codes : &shared_codes;
}

/* Suffix families: "organization_spend_limit_exceeded", "ModelAccountTpmRateLimitExceeded",
 * "Service:RateLimitsExceeded", "insufficient_user_quota", "provider_quota_exceeded" (Dify),
 * "INSUFFICIENT_G1_CREDITS_BALANCE" (Cloud Code); and exceeded_quota's prefix family. */
static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

/* True when code (an identifier: no space) begins by saying a quota is exceeded: "EXCEED_TOKEN_QUOTA_LIMIT"
 * (Tencent CloudBase: the model's token allowance used up, "purchase a resource package"), the mirror of the
 * "_quota_exceeded" suffix. A window the code names still decides (by_period in classify.c). */
static bool exceeded_quota(const char *code)
{
    return !strncasecmp(code, "exceed", 6) && strcasestr(code, "quota") && !strchr(code, ' ');
}

lg_sig lg_code_signal(lg_dialect d, const char *code, bool *specific)
{
    *specific = false;
    if (!code || !*code)
        return LG_SIG_NONE;
    lg_sig s;
    if (table_lookup(native_table(d), code, &s, specific) || table_lookup(&shared_codes, code, &s, specific) ||
        table_lookup(&zhipu_codes, code, &s, specific))
        return s;
    size_t n;
    const lg_dialect_reader *const *readers = lg_readers(&n);
    for (size_t i = 0; i < n; i++)
        if (table_lookup(readers[i]->codes, code, &s, specific))
            return s;
    *specific = true;
    if (has_suffix(code, "spend_limit_exceeded") || has_suffix(code, "SpendLimitExceeded"))
        return LG_SIG_QUOTA;
    if (has_suffix(code, "RateLimitExceeded") || has_suffix(code, "RateLimitsExceeded") ||
        has_suffix(code, "_rate_limit_exceeded"))
        return LG_SIG_RATE;
    if ((!strncasecmp(code, "insufficient_", 13) && has_suffix(code, "_quota")) || /* insufficient_user_quota */
        has_suffix(code, "_quota_exceeded") || exceeded_quota(code))
        return LG_SIG_QUOTA;
    /* an insufficient balance or credit: Cloud Code's INSUFFICIENT_G1_CREDITS_BALANCE */
    if (!strncasecmp(code, "insufficient_", 13) && (has_suffix(code, "_balance") || has_suffix(code, "_credits")))
        return LG_SIG_QUOTA;
    if (has_suffix(code, "Overloaded") || has_suffix(code, "_overloaded"))
        return LG_SIG_CAPACITY;
    *specific = false;
    return LG_SIG_NONE;
}

/* A code no table knows is read by its words, as a family name: "account_stream_cap" (codex-lb) names a
 * concurrency window, "daily_usd_limit_exceeded" (NanoGPT) a daily cap. The period any code's words name
 * decides between a quota and a rate like a message's (by_period in classify.c). A value with a space is no
 * identifier but prose or an HTTP reason phrase ("status": "Too Many Requests"): it says nothing here. */
static lg_sig code_words(lg_cls *c, const char *code)
{
    if (strchr(code, ' '))
        return LG_SIG_NONE;
    lg_text_info t = lg_text_signal(code, strlen(code));
    if (c->text_period == LG_SIG_NONE)
        c->text_period = t.period;
    return t.sig;
}

bool lg_cls_code(lg_cls *c, const char *code)
{
    bool specific;
    if (!code || !*code)
        return false;
    lg_sig w = code_words(c, code);
    lg_sig s = lg_code_signal(c->dialect, code, &specific);
    if (s == LG_SIG_NONE) {
        lg_cls_evidence(c, LG_EV_GENERIC, w);
        return false;
    }
    lg_cls_evidence(c, specific ? LG_EV_CODE : LG_EV_GENERIC, s);
    return true;
}

/* Bailian links its per-minute limits to an anchor of its error-code page ("...error-code#token-limit"). */
static bool window_anchor(const char *msg)
{
    size_t n = msg ? strlen(msg) : 0;
    return lg_text_find(msg, n, "#token limit") >= 0 || lg_text_find(msg, n, "#request limit") >= 0 ||
           lg_text_find(msg, n, "#rate limit") >= 0;
}

bool lg_cls_code_beside(lg_cls *c, const char *code, const char *msg)
{
    if (code && entry_matches("insufficient_quota", code)) {
        if (window_anchor(msg) || c->ev[LG_EV_MESSAGE] == LG_SIG_RATE) {
            lg_cls_evidence(c, LG_EV_CODE, LG_SIG_RATE);
            return true;
        }
        /* new-api relays label their upstream's saturated load ("上游负载已饱和") insufficient_quota: the
         * message names the capacity the code does not. */
        if (c->ev[LG_EV_MESSAGE] == LG_SIG_CAPACITY) {
            lg_cls_evidence(c, LG_EV_CODE, LG_SIG_CAPACITY);
            return true;
        }
    }
    return lg_cls_code(c, code);
}

lg_sig lg_num_code_signal(const lg_num_code *t, size_t n, int64_t code)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].code == code)
            return t[i].sig;
    return LG_SIG_NONE;
}
