/* Unit tests for the classifier rules, one test per rule with inputs written for it, plus prose-hint
 * parsing, message handling and malformed inputs that must classify without crashing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classify/dialects.h"
#include "llmgate/classify.h"

#define NO LG_NO_HINT
#define OAI LG_DIALECT_OPENAI
#define ANT LG_DIALECT_ANTHROPIC
#define GOO LG_DIALECT_GOOGLE
#define DSC LG_DIALECT_DASHSCOPE
#define BAI LG_DIALECT_BAIDU
#define OK LG_STATE_SUCCESS
#define RL LG_STATE_RETRYABLE_RATE_LIMIT
#define DOWN LG_STATE_PROVIDER_DOWN
#define NR LG_STATE_NON_RETRYABLE
#define NONE LG_REASON_NONE
#define QUOTA LG_REASON_QUOTA_EXHAUSTED
#define RATE LG_REASON_RATE_LIMIT_EXCEEDED
#define CAP LG_REASON_MODEL_CAPACITY_EXHAUSTED
#define SERV LG_REASON_SERVER_ERROR
#define UNK LG_REASON_UNKNOWN

typedef struct {
    const char *name;
    lg_dialect d;
    int status;
    const char *headers; /* "name: value" lines */
    const char *body;
    bool stream;
    lg_state state;
    lg_reason reason;
    int64_t retry_after_ms, retry_at_ms;
    int64_t prompt, completion; /* -1: no usage expected */
} rule_case;

#define RULE(name, d, st, h, body, stream, state, reason, ra, at) {name, d, st, h, body, stream, state, reason, ra, at, -1, -1}
#define USAGE(name, d, h, body, stream, p, c) {name, d, 200, h, body, stream, OK, NONE, NO, NO, p, c}

static const rule_case rules[] = {
    /* Status gives the starting state. */
    RULE("status_200_success", OAI, 200, "", "{\"id\":\"x\",\"choices\":[]}", false, OK, NONE, NO, NO),
    RULE("status_429_empty_body_unknown", OAI, 429, "", "", false, RL, UNK, NO, NO),
    RULE("status_500_empty_server_error", OAI, 500, "", "", false, DOWN, SERV, NO, NO),
    RULE("status_502_html_server_error", OAI, 502, "", "<html><body>Bad Gateway</body></html>", false, DOWN, SERV, NO, NO),
    RULE("status_529_capacity", ANT, 529, "", "", false, DOWN, CAP, NO, NO),
    RULE("status_402_payment_required", OAI, 402, "", "{\"error\":{\"message\":\"Prompt tokens limit exceeded: 1234 > 1000.\","
         "\"code\":\"invalid_request_error\"}}", false, RL, QUOTA, NO, NO),
    RULE("status_404_non_retryable", OAI, 404, "", "{\"error\":{\"message\":\"nope\"}}", false, NR, UNK, NO, NO),
    RULE("status_0_transport_failure", OAI, 0, "", "", false, DOWN, SERV, NO, NO),
    RULE("plain_text_429_hint", OAI, 429, "", "Too Many Requests. Retry after 7 seconds.\n", false, RL, RATE, 7000, NO),
    /* OpenAI and compatibles. */
    RULE("openai_insufficient_quota_ignores_reset_headers", OAI, 429,
         "x-ratelimit-remaining-requests: 10\nx-ratelimit-reset-requests: 6s\n",
         "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and billing details.\","
         "\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}", false, RL, QUOTA, NO, NO),
    RULE("openai_org_spend_limit", OAI, 429, "", "{\"error\":{\"message\":\"x\",\"code\":\"organization_spend_limit_exceeded\"}}",
         false, RL, QUOTA, NO, NO),
    RULE("openai_billing_hard_limit_on_400", OAI, 400, "", "{\"error\":{\"message\":\"Billing hard limit has been reached\","
         "\"type\":\"invalid_request_error\",\"code\":\"billing_hard_limit_reached\"}}", false, RL, QUOTA, NO, NO),
    RULE("openai_rpm_prose_hint", OAI, 429, "", "{\"error\":{\"message\":\"Rate limit reached for gpt-4 on requests per min (RPM): "
         "Limit 3, Used 3, Requested 1. Please try again in 20s.\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}",
         false, RL, RATE, 20000, NO),
    RULE("openai_request_too_large_never_fits", OAI, 429, "", "{\"error\":{\"message\":\"Request too large for gpt-4o on tokens per "
         "min (TPM): Limit 30000, Requested 36821.\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}", false, NR, RATE, NO, NO),
    RULE("groq_413_requested_over_limit", OAI, 413, "", "{\"error\":{\"message\":\"Rate limit reached on tokens per minute (TPM): "
         "Limit 6000, Used 0, Requested 7000.\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}", false, NR, RATE, NO, NO),
    RULE("openai_context_length", OAI, 400, "", "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens.\","
         "\"code\":\"context_length_exceeded\"}}", false, NR, UNK, NO, NO),
    RULE("openai_invalid_api_key", OAI, 401, "", "{\"error\":{\"message\":\"Incorrect API key provided: sk-ab***cd.\","
         "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}", false, NR, UNK, NO, NO),
    RULE("openai_server_error", OAI, 500, "", "{\"error\":{\"message\":\"The server had an error while processing your request.\","
         "\"type\":\"server_error\"}}", false, DOWN, SERV, NO, NO),
    RULE("openai_engine_overloaded_503", OAI, 503, "", "{\"error\":{\"message\":\"The engine is currently overloaded, please try "
         "again later\",\"type\":\"server_error\"}}", false, DOWN, CAP, NO, NO),
    RULE("openai_model_overloaded_429", OAI, 429, "", "{\"error\":{\"message\":\"That model is currently overloaded with other "
         "requests.\",\"type\":\"server_error\"}}", false, RL, CAP, NO, NO),
    RULE("openai_exhausted_dimension_header", OAI, 429,
         "x-ratelimit-remaining-requests: 0\nx-ratelimit-remaining-tokens: 5000\nx-ratelimit-reset-requests: 2m59.56s\n"
         "x-ratelimit-reset-tokens: 7.66s\n", "{\"error\":{\"message\":\"Rate limit reached.\"}}", false, RL, RATE, 179560, NO),
    RULE("retry_after_ms_wins", OAI, 429, "retry-after-ms: 1500.5\nretry-after: 2\nx-ratelimit-reset-tokens: 9s\n",
         "{\"error\":{\"message\":\"Rate limit reached. Please try again in 30s.\"}}", false, RL, RATE, 1501, NO),
    RULE("retry_after_seconds_over_prose", OAI, 429, "Retry-After: 2\n", "{\"error\":{\"message\":\"Rate limited, try again in 30s\"}}",
         false, RL, RATE, 2000, NO),
    RULE("retry_after_http_date_with_date", OAI, 503, "Retry-After: Tue, 26 Mar 2024 20:00:30 GMT\nDate: Tue, 26 Mar 2024 20:00:00 GMT\n",
         "", false, DOWN, SERV, 30000, NO),
    RULE("retry_after_http_date_without_date", OAI, 503, "Retry-After: Tue, 26 Mar 2024 20:00:30 GMT\n", "", false, DOWN, SERV,
         NO, 1711483230000LL),
    /* Absurd hints and times already past are no hints (issue 13: a date in 2999 locked a key). */
    RULE("retry_after_absurd_seconds_ignored", OAI, 429, "Retry-After: 30676070775\n", "", false, RL, UNK, NO, NO),
    RULE("retry_after_date_2999_ignored", OAI, 429, "Retry-After: Tue, 01 Jan 2999 00:00:00 GMT\nDate: Tue, 26 Mar 2024 20:00:00 GMT\n",
         "", false, RL, UNK, NO, NO),
    RULE("retry_after_date_past_ignored", OAI, 503, "Retry-After: Tue, 26 Mar 2024 19:59:00 GMT\nDate: Tue, 26 Mar 2024 20:00:00 GMT\n",
         "", false, DOWN, SERV, NO, NO),
    /* Azure. */
    RULE("azure_reset_tokens_plain_seconds", OAI, 429, "x-rate-limit-reset-tokens: 12\n",
         "{\"error\":{\"code\":\"429\",\"message\":\"Requests have exceeded token rate limit of your current tier.\"}}",
         false, RL, RATE, 12000, NO),
    RULE("azure_deployment_not_found", OAI, 404, "", "{\"error\":{\"code\":\"DeploymentNotFound\",\"message\":\"The API "
         "deployment for this resource does not exist.\"}}", false, NR, UNK, NO, NO),
    RULE("azure_content_filter", OAI, 400, "", "{\"error\":{\"message\":\"filtered\",\"code\":\"content_filter\",\"innererror\":"
         "{\"code\":\"ResponsibleAIPolicyViolation\"}}}", false, NR, UNK, NO, NO),
    /* Anthropic. */
    RULE("anthropic_credit_balance_low", ANT, 400, "", "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
         "\"message\":\"Your credit balance is too low to access the Anthropic API.\"}}", false, RL, QUOTA, NO, NO),
    RULE("anthropic_monthly_spend_limit", ANT, 429, "retry-after: 600\n", "{\"type\":\"error\",\"error\":{\"type\":"
         "\"rate_limit_error\",\"message\":\"This request would exceed your account's monthly spend limit.\"}}", false, RL, QUOTA,
         600000, NO),
    RULE("anthropic_api_error_overloaded_message", ANT, 500, "", "{\"type\":\"error\",\"error\":{\"type\":\"api_error\","
         "\"message\":\"Overloaded\"}}", false, DOWN, SERV, NO, NO),
    RULE("anthropic_billing_error", ANT, 402, "", "{\"type\":\"error\",\"error\":{\"type\":\"billing_error\",\"message\":\"x\"}}",
         false, RL, QUOTA, NO, NO),
    RULE("anthropic_request_too_large", ANT, 413, "", "{\"type\":\"error\",\"error\":{\"type\":\"request_too_large\","
         "\"message\":\"Request exceeds the maximum allowed number of bytes.\"}}", false, NR, UNK, NO, NO),
    RULE("anthropic_authentication_error", ANT, 401, "", "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
         "\"message\":\"invalid x-api-key\"}}", false, NR, UNK, NO, NO),
    RULE("anthropic_stream_overloaded_event", ANT, 200, "", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
         "{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
         "\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", true, DOWN, CAP, NO, NO),
    RULE("anthropic_tokens_reset_header_with_date", ANT, 429,
         "anthropic-ratelimit-requests-remaining: 4\nanthropic-ratelimit-requests-reset: 2024-03-26T20:00:05Z\n"
         "anthropic-ratelimit-tokens-remaining: 0\nanthropic-ratelimit-tokens-reset: 2024-03-26T20:00:20Z\n"
         "date: Tue, 26 Mar 2024 20:00:00 GMT\n", "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":"
         "\"x\"}}", false, RL, RATE, 20000, NO),
    RULE("anthropic_reset_header_without_date", ANT, 429, "anthropic-ratelimit-requests-remaining: 0\n"
         "anthropic-ratelimit-requests-reset: 2024-03-26T20:00:05Z\n", "", false, RL, UNK, NO, 1711483205000LL),
    RULE("anthropic_input_tokens_named", ANT, 429, "anthropic-ratelimit-input-tokens-reset: 2024-03-26T20:00:09Z\n"
         "anthropic-ratelimit-requests-reset: 2024-03-26T20:00:30Z\ndate: Tue, 26 Mar 2024 20:00:00 GMT\n",
         "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed the rate limit for "
         "your organization of 40,000 input tokens per minute.\"}}", false, RL, RATE, 9000, NO),
    RULE("anthropic_unified_reset_epoch", ANT, 429, "anthropic-ratelimit-unified-status: rejected\n"
         "anthropic-ratelimit-unified-reset: 1750000000\ndate: Sun, 15 Jun 2025 15:06:30 GMT\n", "{\"type\":\"error\",\"error\":"
         "{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed your account's rate limit.\"}}", false, RL, RATE,
         10000, NO),
    /* Google. */
    RULE("google_per_day_quota_id_with_retry", GOO, 429, "", "{\"error\":{\"code\":429,\"message\":\"You exceeded your current "
         "quota.\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\","
         "\"violations\":[{\"quotaId\":\"GenerateRequestsPerDayPerProjectPerModel-FreeTier\",\"quotaValue\":\"50\"}]},"
         "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"47s\"}]}}", false, RL, QUOTA, 47000, NO),
    RULE("google_bare_resource_exhausted", GOO, 429, "", "{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted "
         "(e.g. check quota).\",\"status\":\"RESOURCE_EXHAUSTED\"}}", false, RL, UNK, NO, NO),
    RULE("google_error_info_quota_reset_delay", GOO, 429, "", "{\"error\":{\"code\":429,\"message\":\"m\",\"status\":"
         "\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":"
         "\"RATE_LIMIT_EXCEEDED\",\"metadata\":{\"quotaResetDelay\":\"1.5s\"}}]}}", false, RL, RATE, 1500, NO),
    RULE("google_retry_delay_object", GOO, 503, "", "{\"error\":{\"code\":503,\"status\":\"UNAVAILABLE\",\"details\":[{\"@type\":"
         "\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":{\"seconds\":3,\"nanos\":500000000}}]}}", false, DOWN, SERV,
         3500, NO),
    RULE("google_invalid_argument", GOO, 400, "", "{\"error\":{\"code\":400,\"message\":\"API key not valid.\",\"status\":"
         "\"INVALID_ARGUMENT\"}}", false, NR, UNK, NO, NO),
    RULE("google_deadline_exceeded", GOO, 504, "", "{\"error\":{\"code\":504,\"message\":\"Deadline expired\",\"status\":"
         "\"DEADLINE_EXCEEDED\"}}", false, DOWN, SERV, NO, NO),
    RULE("google_legacy_daily_limit", GOO, 403, "", "{\"error\":{\"code\":403,\"message\":\"m\",\"errors\":[{\"domain\":"
         "\"usageLimits\",\"reason\":\"dailyLimitExceeded\"}]}}", false, RL, QUOTA, NO, NO),
    RULE("google_stream_error_chunk", GOO, 200, "", "data: {\"candidates\":[]}\n\ndata: {\"error\":{\"code\":503,\"message\":"
         "\"The service is currently unavailable.\",\"status\":\"UNAVAILABLE\"}}\n\n", true, DOWN, SERV, NO, NO),
    RULE("google_quota_reset_timestamp", GOO, 429, "", "{\"error\":{\"code\":429,\"message\":\"m\",\"status\":"
         "\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":"
         "\"QUOTA_EXHAUSTED\",\"metadata\":{\"quotaResetTimeStamp\":\"2026-09-20T21:03:14Z\"}}]}}", false, RL, QUOTA, NO,
         1789938194000LL),
    /* DashScope. */
    RULE("dashscope_arrearage", DSC, 400, "", "{\"code\":\"Arrearage\",\"message\":\"Access denied, please make sure your "
         "account is in good standing.\",\"request_id\":\"r\"}", false, RL, QUOTA, NO, NO),
    RULE("dashscope_commodity_not_purchased_refused_on_429", DSC, 429, "", "{\"code\":\"CommodityNotPurchased\",\"message\":"
         "\"x\",\"request_id\":\"r\"}", false, NR, UNK, NO, NO),
    RULE("dashscope_unpurchased_refused_on_429", DSC, 429, "", "{\"code\":\"AccessDenied.Unpurchased\",\"message\":\"x\","
         "\"request_id\":\"r\"}", false, NR, UNK, NO, NO),
    /* Round _m: a code's own words, a relay's api_error around a 429, load shedding, a wrapped stream error. */
    RULE("code_words_name_a_daily_cap", OAI, 429, "", "{\"error\":{\"message\":\"x\",\"code\":"
         "\"daily_usd_limit_exceeded\",\"type\":\"rate_limit_error\"}}", false, RL, QUOTA, NO, NO),
    RULE("code_period_decides_beside_a_rate_message", OAI, 429, "", "{\"error\":{\"message\":\"Rate limit exceeded\","
         "\"code\":\"daily_usd_limit_exceeded\"}}", false, RL, QUOTA, NO, NO),
    RULE("code_words_name_a_stream_cap", OAI, 429, "", "{\"error\":{\"code\":\"account_stream_cap\",\"message\":\"x\"}}",
         false, RL, RATE, NO, NO),
    RULE("reason_phrase_status_is_no_code", OAI, 429, "", "{\"error\":{\"message\":\"x\",\"code\":429,\"status\":"
         "\"Too Many Requests\"}}", false, RL, UNK, NO, NO),
    RULE("api_error_type_does_not_outweigh_429", OAI, 429, "", "{\"error\":{\"message\":\"Error from provider(429): x\","
         "\"type\":\"api_error\",\"code\":\"provider_response_error\"}}", false, RL, UNK, NO, NO),
    RULE("load_shedding_is_capacity_whatever_its_limit_metrics", OAI, 503, "", "{\"error\":{\"message\":\"Admission denied: "
         "load_shed_probability=0.85, hard_limit_metric=none\"}}", false, DOWN, CAP, NO, NO),
    RULE("ndjson_line_error_wrapped_in_result_response", OAI, 200, "", "{\"result\":{\"response\":{\"isThinking\":false}}}\n"
         "{\"result\":{\"response\":{\"error\":{\"message\":\"Status { code: ResourceExhausted, message: \\\"Admission "
         "denied: load_shed_probability=0.8\\\" }\",\"severity\":\"STREAM_ERROR_SEVERITY_NORMAL\"}}}}\n", true, DOWN, CAP,
         NO, NO),
    RULE("dashscope_invalid_api_key", DSC, 401, "", "{\"code\":\"InvalidApiKey\",\"message\":\"Invalid API-key provided.\","
         "\"request_id\":\"r\"}", false, NR, UNK, NO, NO),
    RULE("dashscope_internal_error", DSC, 500, "", "{\"code\":\"InternalError\",\"message\":\"An internal error has occured\","
         "\"request_id\":\"r\"}", false, DOWN, SERV, NO, NO),
    RULE("dashscope_allocation_quota_tpm", DSC, 429, "", "{\"code\":\"Throttling.AllocationQuota\",\"message\":\"Allocated quota "
         "exceeded, please increase your quota limit.\",\"request_id\":\"r\"}", false, RL, RATE, NO, NO),
    RULE("bailian_compat_token_limit_anchor", DSC, 429, "", "{\"error\":{\"message\":\"You exceeded your current quota, please "
         "check your plan and billing details. For details, see: https://help.aliyun.com/zh/model-studio/error-code#token-limit\","
         "\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}", false, RL, RATE, NO, NO),
    RULE("dashscope_status_comment_without_error_event", DSC, 200, "", "event:result\n:HTTP_STATUS/429\ndata:{\"code\":"
         "\"Throttling\",\"message\":\"Requests throttling triggered.\"}\n\n", true, RL, RATE, NO, NO),
    /* DeepSeek, Groq, Mistral, OpenRouter, Moonshot, Ark. */
    RULE("deepseek_server_overloaded", OAI, 503, "", "{\"error\":{\"message\":\"Server overloaded, please retry shortly.\","
         "\"type\":\"server_error\"}}", false, DOWN, CAP, NO, NO),
    RULE("groq_requests_per_day", OAI, 429, "", "{\"error\":{\"message\":\"Rate limit reached for model on requests per day "
         "(RPD): Limit 1000, Used 1000, Requested 1. Please try again in 1m26.4s.\",\"type\":\"requests\",\"code\":"
         "\"rate_limit_exceeded\"}}", false, RL, QUOTA, 86400, NO),
    RULE("groq_tpm_reset_tokens_header", OAI, 429, "x-ratelimit-reset-requests: 2m59.56s\nx-ratelimit-reset-tokens: 7.66s\n",
         "{\"error\":{\"message\":\"Rate limit reached on tokens per minute (TPM): Limit 6000, Used 5800, Requested 400.\","
         "\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}", false, RL, RATE, 7660, NO),
    RULE("mistral_detail_unauthorized", OAI, 401, "", "{\"detail\":\"Unauthorized\"}", false, NR, UNK, NO, NO),
    RULE("openrouter_insufficient_credits", OAI, 402, "", "{\"error\":{\"code\":402,\"message\":\"Insufficient credits. Add more "
         "using https://openrouter.ai/credits\"}}", false, RL, QUOTA, NO, NO),
    RULE("openrouter_free_per_day_reset", OAI, 429, "", "{\"error\":{\"message\":\"Rate limit exceeded: free-models-per-day.\","
         "\"code\":429,\"metadata\":{\"headers\":{\"X-RateLimit-Limit\":\"50\",\"X-RateLimit-Remaining\":\"0\","
         "\"X-RateLimit-Reset\":\"1741305600000\"}}}}", false, RL, QUOTA, NO, 1741305600000LL),
    RULE("openrouter_midstream_numeric_502", OAI, 200, "", ": OPENROUTER PROCESSING\n\ndata: {\"error\":{\"code\":502,\"message\":"
         "\"Upstream failed\"},\"choices\":[{\"finish_reason\":\"error\"}]}\n\n", true, DOWN, SERV, NO, NO),
    RULE("moonshot_exceeded_current_quota", OAI, 429, "", "{\"error\":{\"message\":\"Your account is suspended\",\"type\":"
         "\"exceeded_current_quota_error\"}}", false, RL, QUOTA, NO, NO),
    RULE("moonshot_engine_overloaded", OAI, 429, "", "{\"error\":{\"message\":\"The engine is currently overloaded, please try "
         "again later\",\"type\":\"engine_overloaded_error\"}}", false, RL, CAP, NO, NO),
    RULE("ark_endpoint_tpm", OAI, 429, "", "{\"error\":{\"code\":\"RateLimitExceeded.EndpointTPMExceeded\",\"message\":\"m\","
         "\"param\":\"\",\"type\":\"TooManyRequests\"}}", false, RL, RATE, NO, NO),
    RULE("ark_account_overdue", OAI, 403, "", "{\"error\":{\"code\":\"AccountOverdueError\",\"message\":\"The request failed "
         "because your account has an overdue balance.\",\"type\":\"Forbidden\"}}", false, RL, QUOTA, NO, NO),
    RULE("ark_model_account_tpm", OAI, 429, "", "{\"error\":{\"code\":\"ModelAccountTpmRateLimitExceeded\",\"message\":\"m\"}}",
         false, RL, RATE, NO, NO),
    RULE("ark_internal_service_error", OAI, 500, "", "{\"error\":{\"code\":\"InternalServiceError\",\"message\":\"m\"}}", false,
         DOWN, SERV, NO, NO),
    /* Baidu. */
    RULE("baidu_daily_limit_17", BAI, 200, "", "{\"error_code\":17,\"error_msg\":\"Open api daily request limit reached\"}", false,
         RL, QUOTA, NO, NO),
    RULE("baidu_server_high_load", BAI, 200, "", "{\"error_code\":336100,\"error_msg\":\"try again later\"}", false, DOWN, CAP, NO,
         NO),
    RULE("baidu_tpm_336502", BAI, 200, "", "{\"error_code\":336502,\"error_msg\":\"Rate limit reached for TPM\"}", false, RL,
         RATE, NO, NO),
    RULE("baidu_code_msg_variant", BAI, 200, "", "{\"code\":336501,\"msg\":\"Rate limit reached for RPM\"}", false, RL, RATE, NO,
         NO),
    RULE("baidu_v2_tpm", BAI, 429, "", "{\"error\":{\"code\":\"tpm_rate_limit_exceeded\",\"message\":\"m\",\"type\":"
         "\"rate_limit_exceeded\"}}", false, RL, RATE, NO, NO),
    /* Structured codes at any depth of the error object. */
    RULE("nested_details_error_code", OAI, 400, "", "{\"error\":{\"message\":\"failed\",\"details\":{\"error_code\":"
         "\"insufficient_quota\"}}}", false, RL, QUOTA, NO, NO),
    RULE("nested_details_array_entry", OAI, 429, "", "{\"error\":{\"message\":\"failed\",\"details\":[{\"kind\":\"x\"},"
         "{\"code\":\"RateLimitExceeded.EndpointRPMExceeded\"}]}}", false, RL, RATE, NO, NO),
    RULE("nested_top_level_errors_array", OAI, 503, "", "{\"errors\":[{\"code\":\"engine_overloaded\",\"detail\":\"x\"}]}",
         false, DOWN, CAP, NO, NO),
    RULE("nested_json_quoted_in_message", OAI, 429, "", "{\"error\":{\"message\":\"{\\\"error\\\":{\\\"code\\\":"
         "\\\"insufficient_quota\\\",\\\"message\\\":\\\"x\\\"}}\",\"code\":429}}", false, RL, QUOTA, NO, NO),
    RULE("nested_top_level_code_wins_over_deeper", OAI, 429, "", "{\"error\":{\"code\":\"insufficient_quota\",\"details\":"
         "[{\"code\":\"rate_limit_exceeded\"}]}}", false, RL, QUOTA, NO, NO),
    /* AWS names the error class in a header. */
    RULE("amzn_error_type_throttling", OAI, 429, "x-amzn-ErrorType: ThrottlingException:http://internal.example/\n",
         "{\"message\":\"slow down\"}", false, RL, RATE, NO, NO),
    RULE("amzn_error_type_model_not_ready", OAI, 429, "x-amzn-ErrorType: ModelNotReadyException\n", "", false, RL, CAP, NO, NO),
    /* Rate-limit header families: any spelling, window as evidence, -1 as no value. */
    RULE("header_family_day_window_is_quota", OAI, 429, "x-ratelimit-remaining-requests-day: 0\n"
         "x-ratelimit-reset-requests-day: 3600\nx-ratelimit-remaining-tokens-minute: 500\nx-ratelimit-reset-tokens-minute: 4\n",
         "", false, RL, QUOTA, 3600000, NO),
    RULE("header_family_minute_window_is_rate", OAI, 429, "x-ratelimit-remaining-tokens-minute: 0\n"
         "x-ratelimit-reset-tokens-minute: 2.5\nx-ratelimit-remaining-requests-day: 90\nx-ratelimit-reset-requests-day: 900\n",
         "", false, RL, RATE, 2500, NO),
    RULE("header_family_window_first", OAI, 429, "X-RateLimit-Minute-Remaining: 0\nX-RateLimit-Minute-Reset: 7\n", "", false,
         RL, RATE, 7000, NO),
    RULE("header_family_req_abbreviation", OAI, 429, "x-ratelimit-remaining-req-second: 0\nx-ratelimit-limit-req-second: 5\n",
         "", false, RL, RATE, NO, NO),
    RULE("header_family_minus_one_is_no_value", OAI, 429, "x-ratelimit-limit-tokens: -1\nx-ratelimit-remaining-tokens: -1\n"
         "x-ratelimit-reset-tokens: 0\n", "", false, RL, UNK, NO, NO),
    RULE("header_family_unix_seconds_reset", OAI, 429, "X-RateLimit-Remaining: 0\nX-RateLimit-Reset: 1711483230\n"
         "date: Tue, 26 Mar 2024 20:00:00 GMT\n", "", false, RL, UNK, 30000, NO),
    RULE("header_family_hyphenated_rate_limit", OAI, 429, "x-rate-limit-remaining-tokens: 0\nx-rate-limit-reset-tokens: 9\n"
         "x-rate-limit-remaining-requests: 3\nx-rate-limit-reset-requests: 1\n", "", false, RL, UNK, 9000, NO),
    RULE("header_family_unix_ms_reset", OAI, 429, "x-ratelimit-remaining: 0\nx-ratelimit-reset: 1711483230500\n"
         "date: Tue, 26 Mar 2024 20:00:00 GMT\n", "", false, RL, UNK, 30500, NO),
    /* The IETF draft's RateLimit headers: the structured form with its policy's window, draft 6's combined form. */
    RULE("header_ietf_structured_policy_window", OAI, 429, "RateLimit: \"burst\";r=5;t=1, \"hourly\";r=0;t=1800\n"
         "RateLimit-Policy: \"burst\";q=10;w=1, \"hourly\";q=1000;w=3600\n", "", false, RL, QUOTA, 1800000, NO),
    RULE("header_ietf_structured_minute", OAI, 429, "RateLimit: \"api\";r=0;t=12\nRateLimit-Policy: \"api\";q=60;w=60\n",
         "", false, RL, RATE, 12000, NO),
    RULE("header_ietf_draft6_combined", OAI, 429, "RateLimit: limit=20, remaining=0, reset=42\n", "", false, RL, UNK, 42000,
         NO),
    /* Prose: one vocabulary per reason. */
    RULE("prose_long_reset_is_quota", OAI, 429, "", "{\"error\":{\"message\":\"Your quota will reset after 5h0m0s.\"}}", false,
         RL, QUOTA, 18000000, NO),
    RULE("prose_window_beats_billing_link", OAI, 429, "", "{\"error\":{\"message\":\"Throttled: 60 queries per minute. Upgrade "
         "at https://example.com/settings/billing\"}}", false, RL, RATE, NO, NO),
    RULE("prose_current_quota_without_structure", OAI, 429, "", "{\"error\":{\"message\":\"You exceeded your current quota, "
         "please check your plan and billing details.\"}}", false, RL, QUOTA, NO, NO),
    RULE("prose_chinese_request_frequency", OAI, 429, "", "{\"error\":{\"message\":\"\xe8\xaf\xb7\xe6\xb1\x82\xe9\xa2\x91"
         "\xe7\x8e\x87\xe8\xbf\x87\xe9\xab\x98\"}}", false, RL, RATE, NO, NO),
    RULE("prose_weekly_usage_limit", OAI, 429, "", "{\"error\":\"weekly usage limit reached\"}", false, RL, QUOTA, NO, NO),
    RULE("never_fit_413_without_window_is_unknown", OAI, 413, "", "{\"error\":{\"message\":\"Request too large: Limit 10, "
         "Requested 20 megabytes\"}}", false, NR, UNK, NO, NO),
    /* Errors in a status field of a 200 body: MiniMax base_resp, iFlytek Spark header / sid, Tencent Cloud. */
    RULE("status_field_minimax_tpm", OAI, 200, "", "{\"id\":\"\",\"base_resp\":{\"status_code\":1039,\"status_msg\":\"x\"}}",
         false, RL, RATE, NO, NO),
    RULE("status_field_minimax_balance", OAI, 200, "", "{\"base_resp\":{\"status_code\":1008,\"status_msg\":\"x\"}}", false,
         RL, QUOTA, NO, NO),
    RULE("status_field_minimax_zero_is_success", OAI, 200, "", "{\"choices\":[],\"base_resp\":{\"status_code\":0,"
         "\"status_msg\":\"\"}}", false, OK, NONE, NO, NO),
    RULE("status_field_spark_frame_concurrency", OAI, 200, "", "{\"header\":{\"code\":11203,\"message\":\"x\",\"sid\":\"s\","
         "\"status\":2}}", false, RL, RATE, NO, NO),
    RULE("status_field_spark_http_daily", OAI, 200, "", "{\"code\":11201,\"message\":\"x\",\"sid\":\"s\"}", false, RL, QUOTA,
         NO, NO),
    RULE("status_field_spark_success", OAI, 200, "", "{\"code\":0,\"message\":\"Success\",\"sid\":\"s\",\"choices\":[]}", false,
         OK, NONE, NO, NO),
    /* Spark's one-at-a-time refusals are throttles, its busy and short-of-capacity codes the service's capacity
     * (messages that name neither: the code decides). */
    RULE("status_field_spark_one_question_at_a_time", OAI, 200, "", "{\"header\":{\"code\":10007,\"message\":\"x\","
         "\"sid\":\"s\",\"status\":2}}", false, RL, RATE, NO, NO),
    RULE("status_field_spark_one_connection_at_a_time", OAI, 200, "", "{\"code\":10006,\"message\":\"x\",\"sid\":\"s\"}",
         false, RL, RATE, NO, NO),
    RULE("status_field_spark_service_busy_is_capacity", OAI, 200, "", "{\"header\":{\"code\":10110,\"message\":\"x\","
         "\"sid\":\"s\",\"status\":2}}", false, DOWN, CAP, NO, NO),
    RULE("status_field_spark_capacity_short_is_capacity", OAI, 200, "", "{\"code\":10008,\"message\":\"x\",\"sid\":\"s\"}",
         false, DOWN, CAP, NO, NO),
    /* the rest of Spark's documented codes: its engine's failures under HTTP 200 */
    RULE("status_field_spark_engine_internal_error", OAI, 200, "", "{\"header\":{\"code\":10012,\"message\":\"x\","
         "\"sid\":\"s\",\"status\":2}}", false, DOWN, SERV, NO, NO),
    RULE("status_field_spark_engine_network_error", OAI, 200, "", "{\"code\":10222,\"message\":\"x\",\"sid\":\"s\"}",
         false, DOWN, SERV, NO, NO),
    RULE("status_field_minimax_internal_error", OAI, 200, "", "{\"base_resp\":{\"status_code\":1024,\"status_msg\":\"x\"}}",
         false, DOWN, SERV, NO, NO),
    /* round _n: a subscription payment past due is credit, whatever the status */
    RULE("payment_past_due_is_credit", OAI, 403, "", "{\"error\":{\"message\":\"your subscription payment is past due\","
         "\"type\":\"api_error\",\"param\":null,\"code\":null}}", false, RL, QUOTA, NO, NO),
    RULE("status_field_tencent_request_limit", OAI, 200, "", "{\"Response\":{\"Error\":{\"Code\":\"RequestLimitExceeded."
         "UinLimitExceeded\",\"Message\":\"x\"},\"RequestId\":\"r\"}}", false, RL, RATE, NO, NO),
    RULE("status_field_tencent_success", OAI, 200, "", "{\"Response\":{\"Choices\":[],\"RequestId\":\"r\"}}", false, OK,
         NONE, NO, NO),
    /* The Responses API's failed response, and a request too large for a window inside a stream. */
    RULE("responses_failed_event", OAI, 200, "", "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":"
         "{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"x\"}}}\n\n", true, DOWN, SERV, NO, NO),
    RULE("responses_failed_never_fits_window", OAI, 200, "", "data: {\"type\":\"response.failed\",\"response\":{\"status\":"
         "\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"Request too large on tokens per min (TPM): "
         "Limit 10, Requested 20.\"}}}\n\n", true, NR, RATE, NO, NO),
    /* An insufficient_quota code beside a window's anchor is that window, in a flat envelope too. */
    RULE("flat_insufficient_quota_window_anchor", DSC, 429, "", "{\"code\":\"insufficient_quota\",\"message\":\"x, see "
         "https://example.com/error-code#request-limit\"}", false, RL, RATE, NO, NO),
    /* A provider body quoted in a relay's message is read whole: its RetryInfo too. */
    RULE("nested_json_quoted_retry_info", OAI, 429, "", "{\"error\":{\"message\":\"{\\\"error\\\":{\\\"code\\\":429,"
         "\\\"status\\\":\\\"RESOURCE_EXHAUSTED\\\",\\\"details\\\":[{\\\"@type\\\":\\\"type.googleapis.com/google.rpc.RetryInfo\\\","
         "\\\"retryDelay\\\":\\\"3s\\\"}]}}\"}}", false, RL, UNK, 3000, NO),
    /* A retry_after member of the error body is the server's hint (seconds; ms when named so). */
    RULE("body_retry_after_seconds", OAI, 429, "", "{\"detail\":\"slow down\",\"retry_after\":2.5}", false, RL, UNK, 2500, NO),
    RULE("body_retry_after_ms", OAI, 429, "", "{\"error\":{\"message\":\"x\",\"retry_after_ms\":120}}", false, RL, UNK, 120, NO),
    RULE("prose_reset_in_about", OAI, 429, "", "{\"error\":{\"message\":\"Your limit resets in ~12s.\"}}", false, RL, UNK,
         12000, NO),
    /* Windows written as rates: a slash, "per N seconds"; identifiers naming a day or a minute. */
    RULE("prose_slash_month_is_quota", OAI, 429, "", "{\"error\":{\"message\":\"limited to 50 calls / month\"}}", false, RL,
         QUOTA, NO, NO),
    RULE("prose_slash_min_is_window", OAI, 429, "", "{\"error\":{\"message\":\"limited to 50 calls/min\"}}", false, RL, RATE,
         NO, NO),
    RULE("prose_slash_in_url_is_no_window", OAI, 429, "", "{\"error\":{\"message\":\"see https://example.com/day/limits\"}}",
         false, RL, UNK, NO, NO),
    RULE("prose_per_seconds_long_is_quota", OAI, 429, "", "{\"error\":{\"message\":\"Limit of 5 per 43200s\"}}", false, RL,
         QUOTA, NO, NO),
    RULE("prose_per_seconds_short_is_window", OAI, 429, "", "{\"error\":{\"message\":\"Limit of 5 per 10 seconds\"}}", false,
         RL, RATE, NO, NO),
    RULE("prose_identifier_by_day", OAI, 429, "", "{\"error\":{\"message\":\"exceeded for UserByDay\"}}", false, RL, QUOTA,
         NO, NO),
    /* Capacity in other words, Chinese prose. */
    RULE("prose_capacity_temporarily_exceeded", OAI, 429, "", "{\"errors\":[{\"code\":1,\"message\":\"Capacity temporarily "
         "exceeded\"}]}", false, RL, CAP, NO, NO),
    RULE("prose_model_busy", OAI, 503, "", "{\"error\":{\"message\":\"model is busy\"}}", false, DOWN, CAP, NO, NO),
    RULE("prose_chinese_busy", OAI, 429, "", "{\"error\":{\"message\":\"\xe6\x9c\x8d\xe5\x8a\xa1\xe7\xb9\x81\xe5\xbf\x99\"}}",
         false, RL, CAP, NO, NO),
    RULE("prose_chinese_hours_cap", OAI, 429, "", "{\"error\":{\"message\":\"3 \xe5\xb0\x8f\xe6\x97\xb6\xe9\x99\x90\xe9\xa2\x9d"
         "\"}}", false, RL, QUOTA, NO, NO),
    RULE("prose_chinese_per_second", OAI, 429, "", "{\"error\":{\"message\":\"\xe6\xaf\x8f\xe7\xa7\x92\xe8\xaf\xb7\xe6\xb1\x82"
         "\xe8\xbf\x87\xe5\xa4\x9a\"}}", false, RL, RATE, NO, NO),
    /* A clock time without a zone is no hint; with one it is. */
    RULE("prose_time_without_zone_no_hint", OAI, 429, "", "{\"error\":{\"message\":\"usage limit; it will reset at "
         "2026-09-09 05:38:28\"}}", false, RL, QUOTA, NO, NO),
    RULE("prose_time_utc_is_hint", OAI, 429, "", "{\"error\":{\"message\":\"usage limit; it will reset at "
         "2026-04-01 00:00 UTC\"}}", false, RL, QUOTA, NO, 1775001600000LL),
    /* A header naming the limit hit; a status family over hours beats a message naming no window. */
    RULE("header_type_names_day", OAI, 429, "x-ratelimit-type: ProjectByDay\n", "{\"error\":{\"message\":\"x\"}}", false,
         RL, QUOTA, NO, NO),
    RULE("header_type_names_minute", OAI, 429, "X-RateLimit-Type: requests-per-minute\n", "", false, RL, RATE, NO, NO),
    RULE("header_status_hours_beats_vague_message", ANT, 429, "anthropic-ratelimit-unified-7d-status: rejected\n",
         "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"rate limited\"}}", false, RL, QUOTA, NO, NO),
    RULE("header_status_hours_loses_to_window_message", ANT, 429, "anthropic-ratelimit-unified-7d-status: rejected\n",
         "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"50 requests per minute\"}}", false, RL,
         RATE, NO, NO),
    /* Gateways: spend caps called budgets, quota codes and words of relays, windows "within N minutes". */
    RULE("prose_budget_exceeded_is_quota", OAI, 400, "", "{\"error\":{\"message\":\"Team budget exceeded: 12.5 > 12\"}}",
         false, RL, QUOTA, NO, NO),
    RULE("prose_budget_tokens_is_no_quota", ANT, 400, "", "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
         "\"message\":\"thinking.budget_tokens: must be >= 1024\"}}", false, NR, UNK, NO, NO),
    RULE("code_insufficient_family_quota", OAI, 403, "", "{\"error\":{\"message\":\"x\",\"code\":\"insufficient_team_quota\"}}",
         false, RL, QUOTA, NO, NO),
    RULE("prose_quota_not_enough", OAI, 403, "", "{\"error\":{\"message\":\"your quota is not enough\"}}", false, RL, QUOTA,
         NO, NO),
    RULE("prose_chinese_allowance_used_up", OAI, 401, "", "{\"error\":{\"message\":\"\xe8\xb4\xa6\xe6\x88\xb7\xe9\xa2\x9d"
         "\xe5\xba\xa6\xe4\xb8\x8d\xe8\xb6\xb3\"}}", false, RL, QUOTA, NO, NO),
    RULE("prose_chinese_within_minutes", OAI, 429, "", "{\"error\":{\"message\":\"5\xe5\x88\x86\xe9\x92\x9f\xe5\x86\x85"
         "\xe6\x9c\x80\xe5\xa4\x9a 3 \xe6\xac\xa1\"}}", false, RL, RATE, NO, NO),
    RULE("prose_chinese_saturated", OAI, 429, "", "{\"error\":{\"message\":\"\xe9\x80\x9a\xe9\x81\x93\xe5\xb7\xb2\xe9\xa5\xb1"
         "\xe5\x92\x8c\"}}", false, RL, CAP, NO, NO),
    /* An error document no scanner knows is still read at any depth. */
    RULE("unknown_envelope_error_name", OAI, 400, "", "{\"errorCode\":\"X\",\"errorName\":\"Gateway:RateLimitsExceeded\","
         "\"parameters\":{}}", false, RL, RATE, NO, NO),
    /* Wait members of the error document: the reset of the limit hit, relative or as a Unix time. */
    RULE("body_member_resets_in_seconds", OAI, 429, "", "{\"error\":{\"type\":\"x\",\"message\":\"limit reached\","
         "\"resets_in_seconds\":90}}", false, RL, UNK, 90000, NO),
    RULE("body_member_reset_after_seconds_nested", OAI, 429, "", "{\"detail\":{\"limits\":[{\"reset_after_seconds\":"
         "2.5}]}}", false, RL, UNK, 2500, NO),
    RULE("body_member_resets_at_unix_seconds", OAI, 429, "", "{\"error\":{\"message\":\"x\",\"resets_at\":1775001600}}",
         false, RL, UNK, NO, 1775001600000LL),
    RULE("body_member_resets_at_relative_to_date", OAI, 429, "Date: Tue, 31 Mar 2026 23:59:00 GMT\n",
         "{\"error\":{\"message\":\"x\",\"reset_at\":1775001600000}}", false, RL, UNK, 60000, NO),
    RULE("body_member_resets_at_not_a_time", OAI, 429, "", "{\"error\":{\"message\":\"x\",\"resets_at\":42}}", false, RL,
         UNK, NO, NO),
    /* A window only called "a time frame" is a throttle. */
    RULE("prose_time_frame_is_window", OAI, 429, "", "{\"detail\":\"You exceeded the tokens allowed within a given time "
         "frame.\"}", false, RL, RATE, NO, NO),
    /* A 5xx with an exhausted header family whose name gives no window is that limit; a 400 with one is not. */
    RULE("header_unnamed_family_on_503_is_limit", OAI, 503, "X-AI-Quota-RateLimit-Remaining-x: 0\n"
         "X-AI-Quota-RateLimit-Reset-x: 12\n", "<html>503</html>", false, RL, UNK, 12000, NO),
    RULE("header_unnamed_family_on_400_is_no_limit", OAI, 400, "x-ratelimit-remaining: 0\n",
         "{\"error\":{\"message\":\"bad field\"}}", false, NR, UNK, NO, NO),
    RULE("header_unnamed_family_loses_to_529", ANT, 529, "anthropic-ratelimit-requests-remaining: 0\n", "", false, DOWN, CAP,
         NO, NO),
    RULE("header_unnamed_family_loses_to_message", OAI, 503, "x-ratelimit-remaining: 0\n",
         "{\"error\":{\"message\":\"model is overloaded\"}}", false, DOWN, CAP, NO, NO),
    /* Flat {code, message, status} documents (Dify), also as a stream's data event; quota code suffixes. */
    RULE("flat_status_member_is_body_status", DSC, 200, "", "data: {\"event\": \"error\", \"code\": \"invalid_param\", "
         "\"message\": \"query is required\", \"status\": 400}\n\n", true, NR, UNK, NO, NO),
    RULE("code_quota_exceeded_suffix", OAI, 403, "", "{\"code\":\"workspace_quota_exceeded\",\"message\":\"x\","
         "\"status\":403}", false, RL, QUOTA, NO, NO),
    /* Dify's two 429 codes mean opposite things in its own envelope: rate_limit_error is the plan's quota,
     * too_many_requests the app's concurrency; Anthropic's rate_limit_error stays a window. */
    RULE("dify_rate_limit_error_is_plan_quota", OAI, 429, "", "{\"code\":\"rate_limit_error\",\"message\":\"x\","
         "\"status\":429}", false, RL, QUOTA, NO, NO),
    RULE("dify_too_many_requests_is_concurrency", OAI, 429, "", "{\"code\":\"too_many_requests\",\"message\":\"x\","
         "\"status\":429}", false, RL, RATE, NO, NO),
    RULE("anthropic_rate_limit_error_stays_window", ANT, 429, "", "{\"type\":\"error\",\"error\":{\"type\":"
         "\"rate_limit_error\",\"message\":\"x\"}}", false, RL, RATE, NO, NO),
    /* Model Studio's burst protection in compatible mode. */
    RULE("dashscope_limit_burst_rate_is_rate", OAI, 429, "", "{\"error\":{\"message\":\"x\",\"type\":\"limit_burst_rate\","
         "\"param\":null,\"code\":\"limit_burst_rate\"}}", false, RL, RATE, NO, NO),
    /* The tokens of the prompt over a limit: a request that can never fit, not a token rate. */
    RULE("tokens_in_the_prompt_never_fit", OAI, 400, "", "{\"message\":\"too many tokens: total number of tokens in the "
         "prompt cannot exceed 4081 - received 4796.\"}", false, NR, UNK, NO, NO),
    RULE("max_is_got_never_fits", OAI, 400, "", "{\"object\":\"error\",\"message\":\"Too many tokens in batch. Max is "
         "16384 got 17555\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}", false, NR, UNK, NO, NO),
    RULE("max_is_got_within_bound_is_no_size", OAI, 429, "", "{\"message\":\"Too many tokens in batch. Max is 16384 got "
         "100\"}", false, RL, RATE, NO, NO),
    RULE("parallel_request_limit_is_concurrency", OAI, 429, "", "{\"error\":{\"message\":\"Max parallel request limit "
         "reached Hit limit for LiteLLM Virtual Key user_api_key_hash: x\",\"type\":\"None\",\"param\":\"None\",\"code\":"
         "\"429\"}}", false, RL, RATE, NO, NO),
    RULE("maximum_model_length_never_fits_even_on_500", OAI, 500, "", "{\"detail\":\"The decoder prompt (length 66501) is "
         "longer than the maximum model length of 65536.\"}", false, NR, UNK, NO, NO),
    /* A loading model's estimate of the seconds until it is ready is the server's hint. */
    RULE("estimated_time_is_hint", OAI, 503, "", "{\"error\":\"Model m is currently loading\",\"estimated_time\":"
         "176.7188568}", false, DOWN, SERV, 176719, NO),
    /* A count in a span is a window of that span: an hour or longer a quota, seconds a rate. */
    RULE("requests_in_an_hour_is_quota", OAI, 429, "", "{\"detail\":\"Too many requests in 1 hour. Try again later.\"}",
         false, RL, QUOTA, NO, NO),
    RULE("requests_in_the_last_day_is_quota", OAI, 429, "", "{\"error\":{\"message\":\"Too many messages in the last "
         "day.\"}}", false, RL, QUOTA, NO, NO),
    RULE("requests_in_seconds_is_rate", OAI, 429, "", "{\"detail\":\"Too many requests in 10 seconds.\"}", false, RL,
         RATE, NO, NO),
    /* A reset with a +hhmm offset is an instant; the zone's name after it does not matter. */
    RULE("prose_reset_with_compact_offset", OAI, 429, "", "{\"error\":{\"code\":\"x\",\"message\":\"You have exceeded "
         "the monthly usage quota. It will reset at 2026-08-29 23:59:59 +0800 CST.\"}}", false, RL, QUOTA, NO,
         1788019199000LL),
    /* Out of a quota; a reset written as a .NET TimeSpan. */
    RULE("prose_out_of_quota", OAI, 403, "", "{\"statusCode\":403,\"message\":\"Out of token quota.\"}", false, RL, QUOTA,
         NO, NO),
    RULE("prose_out_of_per_minute_quota_is_window", OAI, 429, "", "{\"message\":\"Out of your per-minute quota\"}", false,
         RL, RATE, NO, NO),
    RULE("prose_out_of_memory_is_no_quota", OAI, 500, "", "{\"error\":{\"message\":\"ran out of memory, quota of the GPU "
         "is fine\"}}", false, DOWN, SERV, NO, NO),
    RULE("prose_timespan_replenished", OAI, 403, "", "{\"message\":\"Out of call quota. Quota will be replenished in "
         "1.02:03:04.5.\"}", false, RL, QUOTA, 93784500, NO),
    /* Chinese: frequency too high and too many requests are windows; today and this week are quotas. */
    RULE("prose_chinese_frequency_too_high", OAI, 429, "", "{\"error\":{\"message\":\"\xe8\xb0\x83\xe7\x94\xa8\xe9\xa2\x91"
         "\xe7\x8e\x87\xe8\xbf\x87\xe9\xab\x98\"}}", false, RL, RATE, NO, NO),
    RULE("prose_chinese_too_many_requests", OAI, 503, "", "{\"error\":{\"message\":\"\xe8\xaf\xb7\xe6\xb1\x82\xe8\xbf\x87"
         "\xe5\xa4\x9a\"}}", false, RL, RATE, NO, NO),
    RULE("prose_chinese_today_cap", OAI, 429, "", "{\"error\":{\"message\":\"\xe4\xbb\x8a\xe6\x97\xa5\xe9\xa2\x9d\xe5\xba"
         "\xa6\xe5\xb7\xb2\xe6\xbb\xa1\"}}", false, RL, QUOTA, NO, NO),
    RULE("prose_chinese_this_week_cap", OAI, 429, "", "{\"error\":{\"message\":\"\xe6\x9c\xac\xe5\x91\xa8\xe9\x99\x90\xe9"
         "\xa2\x9d\"}}", false, RL, QUOTA, NO, NO),
    /* A lifetime cap; a request too long for the context even on a 500; a gateway's display_message. */
    RULE("prose_total_limit_is_quota", OAI, 403, "", "{\"error\":{\"message\":\"Total limit of this key reached\"}}", false,
         RL, QUOTA, NO, NO),
    RULE("prose_total_limit_per_minute_is_window", OAI, 429, "", "{\"error\":{\"message\":\"total limit of 60 requests per "
         "minute reached\"}}", false, RL, RATE, NO, NO),
    RULE("prose_context_size_never_fits_on_500", OAI, 500, "", "{\"error\":{\"message\":\"prompt exceeds the context size\"}}",
         false, NR, UNK, NO, NO),
    RULE("display_message_is_read", OAI, 429, "", "{\"error\":{\"message\":\"Hit limit\",\"display_message\":\"You have used "
         "your daily tokens\",\"code\":\"429\"}}", false, RL, QUOTA, NO, NO),
    /* A provider body quoted as a JSON string in any member of a relay's error. */
    RULE("embedded_document_under_any_member", OAI, 429, "", "{\"error\":{\"message\":\"upstream failed\",\"metadata\":"
         "{\"raw\":{\"body\":\"{\\\"error\\\":{\\\"message\\\":\\\"x\\\",\\\"type\\\":\\\"insufficient_quota\\\"}}\"}}}}",
         false, RL, QUOTA, NO, NO),
    /* Tencent Cloud and Hunyuan codes in a 200. */
    RULE("tencent_resource_pack_exhausted", OAI, 200, "", "{\"Response\":{\"Error\":{\"Code\":\"FailedOperation."
         "ResourcePackExhausted\",\"Message\":\"x\"},\"RequestId\":\"r\"}}", false, RL, QUOTA, NO, NO),
    RULE("tencent_engine_server_error", OAI, 200, "", "{\"Response\":{\"Error\":{\"Code\":\"FailedOperation.EngineServerError"
         "\",\"Message\":\"x\"},\"RequestId\":\"r\"}}", false, DOWN, SERV, NO, NO),
    RULE("tencent_limit_exceeded_says_no_window", OAI, 200, "", "{\"Response\":{\"Error\":{\"Code\":\"LimitExceeded\","
         "\"Message\":\"x\"},\"RequestId\":\"r\"}}", false, RL, UNK, NO, NO),
    /* Azure's SDKs read x-ms-retry-after-ms too. */
    RULE("header_x_ms_retry_after_ms", OAI, 429, "x-ms-retry-after-ms: 1500\n", "", false, RL, UNK, 1500, NO),
    /* NDJSON bodies (Ollama): usage of the last object, an error line after content. */
    USAGE("usage_ndjson_final_object", OAI, "", "{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"done\":true,"
          "\"prompt_eval_count\":7,\"eval_count\":4}\n", false, 7, 4),
    RULE("ndjson_error_line_after_content", OAI, 200, "", "{\"response\":\"a\",\"done\":false}\n{\"error\":\"model runner "
         "stopped\"}\n", false, DOWN, SERV, NO, NO),
    RULE("json_pretty_is_no_ndjson", OAI, 200, "", "{\n  \"id\": \"x\",\n  \"choices\": []\n}\n", false, OK, NONE, NO, NO),
    /* Reasoning left out of completion_tokens, as the total shows (xAI); counted in when it is not. */
    USAGE("usage_reasoning_outside_completion", OAI, "", "{\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":"
          "2,\"total_tokens\":42,\"completion_tokens_details\":{\"reasoning_tokens\":30}}}", false, 10, 32),
    USAGE("usage_reasoning_inside_completion", OAI, "", "{\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":"
          "32,\"total_tokens\":42,\"completion_tokens_details\":{\"reasoning_tokens\":30}}}", false, 10, 32),
    /* Usage. */
    USAGE("usage_openai_body", OAI, "", "{\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":30,"
          "\"completion_tokens_details\":{\"reasoning_tokens\":20}}}", false, 12, 30),
    USAGE("usage_anthropic_cache_fields", ANT, "", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":"
          "{\"input_tokens\":10,\"cache_creation_input_tokens\":20,\"cache_read_input_tokens\":30,\"output_tokens\":1}}}\n\n"
          "event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":7}}\n\n", true, 60, 7),
    USAGE("usage_gemini_stream_last_chunk", GOO, "", "data: {\"usageMetadata\":{\"promptTokenCount\":8,\"candidatesTokenCount\":"
          "3}}\r\n\r\ndata:{\"usageMetadata\":{\"promptTokenCount\":9,\"candidatesTokenCount\":5,\"thoughtsTokenCount\":4}}\r\n\r\n",
          true, 9, 9),
    USAGE("usage_gemini_truncated_array_stream", GOO, "", "[{\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":4,"
          "\"candidatesTokenCount\":2}},\n{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"unfinish", false, 4, 2),
    USAGE("usage_cloudcode_response_wrapper", GOO, "", "{\"response\":{\"candidates\":[],\"usageMetadata\":{\"promptTokenCount\":"
          "6,\"candidatesTokenCount\":1}}}", false, 6, 1),
    USAGE("usage_moonshot_choice", OAI, "", "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\",\"usage\":"
          "{\"prompt_tokens\":3,\"completion_tokens\":4}}]}\n\ndata: [DONE]\n\n", true, 3, 4),
    USAGE("usage_openai_responses_api", OAI, "", "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":"
          "{\"usage\":{\"input_tokens\":11,\"output_tokens\":22}}}\n\n", true, 11, 22),
    USAGE("usage_baidu_body", BAI, "", "{\"result\":\"hi\",\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":5}}", false, 2, 5),
    RULE("gateway_success_code_is_not_an_error", OAI, 200, "", "{\"code\":200,\"msg\":\"success\",\"data\":{}}", false, OK,
         NONE, NO, NO),
    RULE("gateway_success_string_code_is_not_an_error", DSC, 200, "", "{\"code\":\"Success\",\"message\":\"ok\"}", false, OK,
         NONE, NO, NO),
    RULE("stream_prefix_keepalives_only", OAI, 200, "", ": keep-alive\n\n: keep-alive\n", true, OK, NONE, NO, NO),
    RULE("stream_prefix_partial_json", OAI, 200, "", "data: {\"choices\":[{\"delta\":{\"content\":\"He", true, OK, NONE, NO, NO),
    /* Issue 34: the period named in a limit decides between quota and rate, whatever code comes with it. */
    RULE("period_day_outweighs_rate_reason", GOO, 429, "", "{\"error\":{\"code\":429,\"message\":\"Quota exceeded for quota "
         "metric 'Pro Requests' and limit 'Pro Requests per day per user'.\",\"errors\":[{\"reason\":\"rateLimitExceeded\"}],"
         "\"status\":\"RESOURCE_EXHAUSTED\"}}", false, RL, QUOTA, NO, NO),
    RULE("period_rpd_outweighs_rate_code", OAI, 429, "", "{\"error\":{\"message\":\"Limit reached on requests (RPD).\","
         "\"code\":\"rpm_rate_limit_exceeded\"}}", false, RL, QUOTA, NO, NO),
    RULE("period_minute_outweighs_quota_code", OAI, 429, "", "{\"error\":{\"code\":\"QuotaExceeded\",\"message\":\"You have "
         "used the 500 requests per minute of this endpoint.\"}}", false, RL, RATE, NO, NO),
    RULE("period_both_named_keeps_the_code", OAI, 429, "", "{\"error\":{\"code\":\"QuotaExceeded\",\"message\":\"Minute "
         "limit: 10 / 10 requests. Day limit: 5 / 100 requests.\"}}", false, RL, QUOTA, NO, NO),
    /* A message that says the balance or credit is insufficient is a quota whatever the status or code; a link
     * to billing documentation beside a window is not. */
    RULE("credit_message_outweighs_server_code", OAI, 500, "", "{\"error\":{\"code\":\"InternalServiceError\",\"message\":"
         "\"Your account balance is insufficient, please recharge.\"}}", false, RL, QUOTA, NO, NO),
    RULE("credit_message_outweighs_named_window", OAI, 429, "", "{\"error\":{\"message\":\"Insufficient credits: your plan "
         "allows 60 requests per minute once topped up.\"}}", false, RL, QUOTA, NO, NO),
    RULE("billing_link_beside_window_is_rate", OAI, 429, "", "{\"error\":{\"message\":\"Rate limit reached on tokens per minute "
         "(TPM): Limit 6000, Used 5000, Requested 900. Upgrade at https://console.example.com/settings/billing\",\"code\":"
         "\"rate_limit_exceeded\"}}", false, RL, RATE, NO, NO),
    RULE("request_frequency_is_rate", OAI, 429, "", "{\"error\":{\"code\":\"1313\",\"message\":\"Your request frequency has "
         "been limited.\"}}", false, RL, RATE, NO, NO),
    /* Issue 34, responses of providers not seen before: a server whose every slot or whose capacity is taken
     * is short of capacity, whatever code comes with it; a token bucket is a rate limiter; a limit of zero is
     * no window that passes, even a per-minute one. */
    RULE("server_busy_is_capacity", OAI, 503, "", "{\"error\":\"server busy, please try again.  maximum pending "
         "requests exceeded\"}", false, DOWN, CAP, NO, NO),
    RULE("no_slots_available_is_capacity", OAI, 500, "", "{\"error\":\"unexpected server status: llm busy - no slots "
         "available\"}", false, DOWN, CAP, NO, NO),
    RULE("no_slot_available_is_capacity", OAI, 503, "", "{\"error\":{\"code\":503,\"message\":\"no slot available\","
         "\"type\":\"unavailable_error\"}}", false, DOWN, CAP, NO, NO),
    RULE("capacity_limits_outweigh_throttling_words", OAI, 500, "", "{\"error\":{\"message\":\"Too many requests. Your "
         "requests are being throttled due to system capacity limits.\",\"code\":\"InternalError.Algo.ModelServing\"}}",
         false, DOWN, CAP, NO, NO),
    RULE("token_bucket_is_rate", OAI, 429, "", "{\"error_code\":\"REQUEST_LIMIT_EXCEEDED\",\"message\":\"RPC token "
         "bucket limit has been exceeded.\"}", false, RL, RATE, NO, NO),
    RULE("zero_limit_outweighs_minute_window", OAI, 429, "", "{\"error\":{\"message\":\"Rate limit exceeded for images per "
         "minute in organization org-x. Limit: 0/1min. Current: 1/1min.\",\"type\":\"requests\",\"code\":"
         "\"rate_limit_exceeded\"}}", false, RL, QUOTA, NO, NO),
    RULE("nonzero_limit_keeps_minute_window", OAI, 429, "", "{\"error\":{\"message\":\"Rate limit exceeded for images per "
         "minute in organization org-x. Limit: 5/1min. Current: 6/1min.\",\"type\":\"requests\",\"code\":"
         "\"rate_limit_exceeded\"}}", false, RL, RATE, NO, NO),
    /* A server error's name beside an HTTP client-error status is a refusal; inside a 200 body it stays down. */
    RULE("server_name_on_client_status_is_refusal", OAI, 404, "", "{\"error\":{\"message\":\"model \\\"m\\\" not found, "
         "try pulling it first\",\"type\":\"api_error\",\"param\":null,\"code\":null}}", false, NR, UNK, NO, NO),
    RULE("server_code_inside_200_body_stays_down", OAI, 200, "", "{\"base_resp\":{\"status_code\":1000,\"status_msg\":"
         "\"unknown error\"}}", false, DOWN, SERV, NO, NO),
    /* An unnamed IETF RateLimit-Policy gives its window to the unnamed RateLimit-Remaining family. */
    RULE("header_ietf_policy_window_joins_remaining", OAI, 429, "RateLimit-Policy: 100;w=60\nRateLimit-Remaining: 0\n", "",
         false, RL, RATE, NO, NO),
    RULE("header_ietf_policy_day_window_is_quota", OAI, 429, "RateLimit-Policy: 1000;w=86400\nRateLimit-Limit: 1000\n"
         "RateLimit-Remaining: 0\n", "", false, RL, QUOTA, NO, NO),
    RULE("header_x_rate_limit_day_spelling", OAI, 429, "X-Rate-Limit-Remaining-Requests-Day: 0\n", "", false, RL, QUOTA, NO, NO),
    /* A relay answering 200 with the upstream's body quoted in a top-level member of its own is read as that
     * body; a quoted object that is no error leaves the success and its usage alone. */
    RULE("relay_200_quoted_frame_is_read", OAI, 200, "", "{\"content\":\"{\\\"header\\\":{\\\"code\\\":11200,"
         "\\\"message\\\":\\\"AppIdNoAuthError: tokens.total\\\",\\\"sid\\\":\\\"cht0\\\",\\\"status\\\":2}}\"}",
         false, RL, QUOTA, NO, NO),
    RULE("relay_200_quoted_error_object_is_read", OAI, 200, "", "{\"id\":\"r1\",\"data\":\"{\\\"error\\\":{\\\"message\\\":"
         "\\\"Rate limit reached for requests per minute\\\",\\\"code\\\":\\\"rate_limit_exceeded\\\"}}\"}", false,
         RL, RATE, NO, NO),
    USAGE("quoted_json_answer_stays_success", OAI, "", "{\"model\":\"m\",\"response\":\"{\\\"answer\\\":\\\"no error\\\"}\","
          "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}", false, 3, 4),
    /* A choice that failed during generation (OpenRouter: finish_reason "error", the error object beside the
     * partial content) is the response's error, on a 200; a choice that only says "error" in its text is not. */
    RULE("choice_error_inside_200_is_read", OAI, 200, "", "{\"id\":\"gen-1\",\"choices\":[{\"index\":0,\"message\":"
         "{\"role\":\"assistant\",\"content\":\"partial\"},\"finish_reason\":\"error\",\"error\":{\"code\":429,\"message\":"
         "\"Rate limit exceeded\",\"metadata\":{\"error_type\":\"rate_limit_exceeded\"}}}],\"usage\":{\"prompt_tokens\":5,"
         "\"completion_tokens\":1,\"total_tokens\":6}}", false, RL, RATE, NO, NO),
    USAGE("choice_saying_error_stays_success", OAI, "", "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
          "\"assistant\",\"content\":\"The word is \\\"error\\\".\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":"
          "7,\"completion_tokens\":5,\"total_tokens\":12}}", false, 7, 5),
    /* Usage under the field names of OpenAI-compatible servers of their own. */
    USAGE("usage_cohere_v2_tokens_over_billed_units", OAI, "", "{\"id\":\"x\",\"finish_reason\":\"COMPLETE\",\"usage\":"
          "{\"billed_units\":{\"input_tokens\":11,\"output_tokens\":3},\"cached_tokens\":448,\"tokens\":{\"input_tokens\":506,"
          "\"output_tokens\":4}}}", false, 506, 4),
    USAGE("usage_cohere_billed_units_only", OAI, "", "{\"id\":\"x\",\"usage\":{\"billed_units\":{\"input_tokens\":11,"
          "\"output_tokens\":3}}}", false, 11, 3),
    USAGE("usage_cohere_v1_meta", OAI, "", "{\"text\":\"hi\",\"meta\":{\"api_version\":{\"version\":\"1\"},\"billed_units\":"
          "{\"input_tokens\":10,\"output_tokens\":26},\"tokens\":{\"input_tokens\":82,\"output_tokens\":26}}}", false, 82, 26),
    USAGE("usage_cohere_v2_stream_message_end", OAI, "", "event: message-end\ndata: {\"type\":\"message-end\",\"delta\":"
          "{\"finish_reason\":\"COMPLETE\",\"usage\":{\"tokens\":{\"input_tokens\":27,\"output_tokens\":55}}}}\n\n", true, 27, 55),
    USAGE("usage_ollama_native_single_object", OAI, "", "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":"
          "\"hi\"},\"done\":true,\"prompt_eval_count\":26,\"eval_count\":298}", false, 26, 298),
    /* Bedrock Converse: camelCase counts, inputTokens without the cache's read and write. */
    USAGE("usage_bedrock_converse_camelcase_cache", OAI, "", "{\"output\":{\"message\":{\"content\":[{\"text\":\"21\"}],"
          "\"role\":\"assistant\"}},\"stopReason\":\"end_turn\",\"usage\":{\"cacheReadInputTokens\":1712,"
          "\"cacheWriteInputTokens\":236,\"inputTokens\":3,\"outputTokens\":121,\"serverToolUsage\":{},"
          "\"totalTokens\":2072}}", false, 1951, 121),
    USAGE("usage_bedrock_converse_plain", OAI, "", "{\"stopReason\":\"end_turn\",\"usage\":{\"inputTokens\":30,"
          "\"outputTokens\":7,\"totalTokens\":37}}", false, 30, 7),
    /* llama.cpp's native /completion: tokens_evaluated (prompt) and tokens_predicted (output) at the top
     * level, cumulative on every chunk of its stream. */
    USAGE("usage_llamacpp_completion_top_level", OAI, "", "{\"index\":0,\"content\":\" Aki\",\"tokens\":[362,6642],"
          "\"id_slot\":0,\"stop\":true,\"model\":\"m\",\"tokens_predicted\":8,\"tokens_evaluated\":5}", false, 5, 8),
    USAGE("usage_llamacpp_completion_stream_last_chunk", OAI, "", "data: {\"content\":\" the\",\"stop\":false,"
          "\"tokens_predicted\":1,\"tokens_evaluated\":16}\n\ndata: {\"content\":\"\",\"stop\":true,\"tokens_predicted\":4,"
          "\"tokens_evaluated\":16}\n\n", true, 16, 4),
    /* LM Studio's native /api/v1/chat: stats, at the top level and in the stream's chat.end result. */
    USAGE("usage_lmstudio_v1_stats", OAI, "", "{\"model_instance_id\":\"m\",\"output\":[{\"type\":\"message\","
          "\"content\":\"red\"}],\"stats\":{\"input_tokens\":17,\"total_output_tokens\":50,\"reasoning_output_tokens\":0,"
          "\"tokens_per_second\":51.0}}", false, 17, 50),
    USAGE("usage_lmstudio_v1_stream_chat_end", OAI, "", "event: chat.start\ndata: {\"type\":\"chat.start\"}\n\n"
          "event: chat.end\ndata: {\"type\":\"chat.end\",\"result\":{\"output\":[],\"stats\":{\"input_tokens\":329,"
          "\"total_output_tokens\":268}}}\n\n", true, 329, 268),
    /* An error event inside a 200 stream states no status: its invalid-request type is the request's fault. */
    RULE("sse_error_event_invalid_request_is_refusal", OAI, 200, "", "event: error\ndata: {\"type\":\"error\",\"error\":"
         "{\"type\":\"invalid_request\",\"message\":\"\\\"model\\\" is required\",\"code\":\"missing_required_parameter\"}}"
         "\n\n", true, NR, UNK, NO, NO),
    /* new-api labels its upstream's saturated load insufficient_quota: the message names capacity. */
    RULE("insufficient_quota_beside_capacity_message", OAI, 429, "", "{\"error\":{\"message\":\"\xe5\xbd\x93\xe5\x89\x8d"
         "\xe5\x88\x86\xe7\xbb\x84\xe4\xb8\x8a\xe6\xb8\xb8\xe8\xb4\x9f\xe8\xbd\xbd\xe5\xb7\xb2\xe9\xa5\xb1\xe5\x92\x8c\","
         "\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}", false, RL, CAP, NO, NO),
    /* A code that begins by saying a quota is exceeded is a quota (Tencent CloudBase's flat
     * EXCEED_TOKEN_QUOTA_LIMIT: the free token allowance used up), whatever spelling; a window the code
     * names is still that window. */
    RULE("code_exceed_token_quota_limit_is_quota", OAI, 429, "", "{\"code\":\"EXCEED_TOKEN_QUOTA_LIMIT\",\"message\":"
         "\"Token usage exceeded quota limit.\"}", false, RL, QUOTA, NO, NO),
    RULE("code_exceeded_quota_camelcase_is_quota", OAI, 403, "", "{\"error\":{\"code\":\"ExceededTokenQuota\","
         "\"message\":\"Request denied.\"}}", false, RL, QUOTA, NO, NO),
    RULE("code_exceed_qps_quota_is_rate", OAI, 429, "", "{\"code\":\"EXCEED_QPS_QUOTA_LIMIT\",\"message\":"
         "\"Request denied.\"}", false, RL, RATE, NO, NO),
    /* A usage cap said to be reached is a quota on any 4xx, a 401 with a bad-key code included (LLMGateway:
     * the key's configured cap is spent, another key serves), unless a window under an hour is named. */
    RULE("usage_cap_reached_on_401_bad_key_code_is_quota", OAI, 401, "", "{\"error\":{\"message\":\"Unauthorized: "
         "LLMGateway API key reached its usage limit.\",\"type\":\"invalid_request_error\",\"param\":null,"
         "\"code\":\"invalid_api_key\"}}", false, RL, QUOTA, NO, NO),
    RULE("usage_cap_reached_the_limit_on_403_is_quota", OAI, 403, "", "{\"error\":{\"message\":\"This key has "
         "reached the usage limit set by its owner\",\"code\":\"invalid_api_key\"}}", false, RL, QUOTA, NO, NO),
    RULE("usage_cap_reached_per_minute_stays_refusal", OAI, 401, "", "{\"error\":{\"message\":\"API key reached "
         "its usage limit of 10 requests per minute\",\"code\":\"invalid_api_key\"}}", false, NR, UNK, NO, NO),
};

/* Builds a view from a rule's header lines and body (copied to an exact-size heap buffer so ASan sees any
 * read past the end) and classifies it. */
static void classify_case(const rule_case *rc, lg_outcome *o)
{
    char hbuf[2048];
    lg_header hs[16];
    size_t nh = 0;
    snprintf(hbuf, sizeof hbuf, "%s", rc->headers);
    for (char *line = strtok(hbuf, "\n"); line && nh < 16; line = strtok(NULL, "\n")) {
        char *colon = strchr(line, ':');
        assert_non_null(colon);
        *colon = '\0';
        hs[nh].name = line;
        hs[nh++].value = colon + 2;
    }
    size_t len = strlen(rc->body);
    char *body = malloc(len ? len : 1);
    memcpy(body, rc->body, len);
    lg_response_view v = {.status = rc->status, .headers = hs, .n_headers = nh, .body = body, .body_len = len,
                          .stream = rc->stream};
    lg_classify(rc->d, &v, o);
    free(body);
}

static void run_rule(void **state)
{
    const rule_case *rc = *state;
    lg_outcome o;
    classify_case(rc, &o);
    if (o.state != rc->state || o.reason != rc->reason)
        fail_msg("%s: got %s/%s, expected %s/%s", rc->name, lg_state_name(o.state), lg_reason_name(o.reason),
                 lg_state_name(rc->state), lg_reason_name(rc->reason));
    assert_int_equal(o.retry_after_ms, rc->retry_after_ms);
    assert_int_equal(o.retry_at_ms, rc->retry_at_ms);
    assert_int_equal(o.has_usage, rc->prompt >= 0);
    if (rc->prompt >= 0) {
        assert_int_equal(o.prompt_tokens, rc->prompt);
        assert_int_equal(o.completion_tokens, rc->completion);
    }
    if (o.state != OK)
        assert_int_equal(o.has_usage, false);
}

static int64_t wait_of(const char *s)
{
    int64_t ms = -42;
    return lg_prose_wait(s, strlen(s), &ms) ? ms : -1;
}

static void test_prose_waits(void **state)
{
    (void)state;
    assert_int_equal(wait_of("Please try again in 644ms."), 644);
    assert_int_equal(wait_of("Please try again in 18.642s."), 18642);
    assert_int_equal(wait_of("Please try again in 9m38.016s. Need more"), 578016);
    assert_int_equal(wait_of("Please retry after 45 seconds."), 45000);
    assert_int_equal(wait_of("Try again in 50 seconds"), 50000);
    assert_int_equal(wait_of("Please retry in 43.71576202s."), 43716);
    assert_int_equal(wait_of("Your quota will reset after 12h34m16s."), 45256000);
    assert_int_equal(wait_of("please try again after 1 seconds"), 1000);
    assert_int_equal(wait_of("Please wait 2 minutes"), 120000);
    assert_int_equal(wait_of("retry after 250 milliseconds"), 250);
    assert_int_equal(wait_of("Quota will be replenished in 07:01:20."), 25280000);
    assert_int_equal(wait_of("Quota will be replenished in 20.09:58:55."), 1763935000);
    assert_int_equal(wait_of("try again in 00:00:01.0001"), 1001);
    assert_int_equal(wait_of("replenished in 2 days"), 172800000);
    assert_int_equal(wait_of("Please try again later."), -1);
    assert_int_equal(wait_of("try again in a few moments"), -1);
    assert_int_equal(wait_of("retry in 5 parsecs"), -1);
    assert_int_equal(wait_of("retry in 99999999999999999999 hours"), -1);
    assert_int_equal(wait_of(""), -1);
}

static int64_t time_of(const char *s)
{
    int64_t at = -42;
    return lg_prose_time(s, strlen(s), &at) ? at : -1;
}

static void test_prose_times(void **state)
{
    (void)state;
    assert_int_equal(time_of("You will regain access on 2026-04-01 at 00:00 UTC."), 1775001600000LL);
    assert_int_equal(time_of("Limit resets at 2026-04-01T08:00:00+08:00."), 1775001600000LL);
    assert_int_equal(time_of("available again on 2026-04-01."), 1775001600000LL);
    assert_int_equal(time_of("It will reset at 2026-08-29 23:59:59 +0800 CST."), 1788019199000LL);
    assert_int_equal(time_of("resets at 2026-04-01 08:00 -0130"), 1775035800000LL);
    assert_int_equal(time_of("resets at 2026-08-29 23:59:59 CST"), -1); /* a zone's name alone is ambiguous */
    assert_int_equal(time_of("resets at 2026-08-29 23:59:59 +08001"), -1);
    assert_int_equal(time_of("API version 2023-05-15. Please retry."), -1);
    assert_int_equal(time_of("on 2026-13-45 at 99:99"), -1);
    assert_int_equal(time_of("on 2026-04"), -1);
    assert_int_equal(time_of("Claude AI usage limit reached|1753387200"), 1753387200000LL);
    assert_int_equal(time_of("limit reached|12"), -1);
}

static void test_message_is_truncated_valid_utf8(void **state)
{
    (void)state;
    char body[4096];
    size_t n = (size_t)snprintf(body, sizeof body, "{\"error\":{\"message\":\"bad \xff\xfe bytes ");
    while (n < 3000) /* 3-byte characters, so the cut falls inside one */
        n += (size_t)snprintf(body + n, sizeof body - n, "\xe4\xbd\x99");
    snprintf(body + n, sizeof body - n, "\"}}");
    lg_response_view v = {.status = 400, .body = body, .body_len = strlen(body)};
    lg_outcome o;
    lg_classify(OAI, &v, &o);
    size_t len = strlen(o.message);
    assert_true(len < LG_MESSAGE_MAX);
    assert_true(len > LG_MESSAGE_MAX - 8);
    assert_memory_equal(o.message, "bad ?? bytes ", 13);
    for (size_t i = 13; i < len; i += 3)
        assert_memory_equal(o.message + i, "\xe4\xbd\x99", 3);
    assert_int_equal((len - 13) % 3, 0);
}

/* Classifies bytes from an exact-size heap copy; the checks are that nothing crashes (ASan/UBSan) and that
 * the outcome is well-formed. */
static lg_outcome robust(int status, const char *bytes, size_t len, bool stream)
{
    char *copy = malloc(len ? len : 1);
    memcpy(copy, bytes, len);
    lg_response_view v = {.status = status, .body = copy, .body_len = len, .stream = stream};
    lg_outcome o;
    lg_classify(OAI, &v, &o);
    free(copy);
    assert_true(o.state <= LG_STATE_NON_RETRYABLE);
    assert_true(o.reason < LG_REASON_COUNT);
    assert_true((o.state == OK) == (o.reason == NONE));
    assert_true(memchr(o.message, '\0', sizeof o.message) != NULL);
    return o;
}

#define ROBUST(st, s, stream) robust(st, s, sizeof(s) - 1, stream)

static void test_malformed_inputs_never_crash(void **state)
{
    (void)state;
    assert_int_equal(ROBUST(429, "{\"error\":{\"message\":\"Rate limit reached. Please try again in 2", false).state, RL);
    assert_int_equal(ROBUST(200, "{\"error\":123}", false).state, OK); /* not an error object */
    ROBUST(500, "{\"error\":{\"message\":5,\"code\":[1],\"type\":{},\"metadata\":[]}}", false);
    ROBUST(429, "{\"error\":{\"status\":7,\"details\":{\"a\":1},\"errors\":\"x\"}}", false);
    ROBUST(429, "{\"error\":{\"code\":1e300,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"google.rpc.RetryInfo\","
                "\"retryDelay\":\"99999999999999999999s\"},{\"@type\":\"google.rpc.RetryInfo\",\"retryDelay\":{\"seconds\":1e300}}]}}",
           false);
    lg_outcome big = ROBUST(200, "{\"usage\":{\"prompt_tokens\":1e300,\"completion_tokens\":-5}}", false);
    assert_int_equal(big.state, OK);
    ROBUST(200, "{\"error_code\":1e300,\"error_msg\":[]}", false);
    ROBUST(429, "retry-after", false);
    assert_int_equal(ROBUST(200, "", false).state, OK);
    assert_int_equal(ROBUST(429, "", true).state, RL);
    ROBUST(400, "\xff\xfe\x00\x01garbage\x80\x80", false);
    ROBUST(200, "data: {\"error\":{\"message\":\"\xc3\x28\xe2\x82\"}}\n\n", true);
    ROBUST(200, "event: error\ndata: not json at all\n\n", true);
    ROBUST(200, "event: error\n", true);
    ROBUST(200, ":HTTP_STATUS/9x9\n:HTTP_STATUS/\ndata:\n\n", true);
    ROBUST(200, "\r\r\r\n\n\ndata\ndata:\r\nevent:\n:\n", true);

    char *deep = malloc(300002);
    memset(deep, '[', 150000);
    memset(deep + 150000, ']', 150000);
    robust(429, deep, 300000, false);
    robust(200, deep, 150000, false);
    memset(deep, '{', 100000);
    robust(500, deep, 100000, false);
    for (int i = 0; i < 100000; i++)
        memcpy(deep + 3 * i, "{\"a", 3);
    robust(500, deep, 300000, false);
    free(deep);

    char *huge = malloc(3u << 20); /* one event larger than the per-event cap */
    memcpy(huge, "data: ", 6);
    memset(huge + 6, 'x', (3u << 20) - 6);
    robust(200, huge, 3u << 20, true);
    free(huge);

    static const char alphabet[] = "{}[]\":,0123456789.-eE \n\rdata:event:error\\ux\xff";
    unsigned seed = 12345;
    char noise[512];
    for (int round = 0; round < 2000; round++) {
        for (size_t i = 0; i < sizeof noise; i++) {
            seed = seed * 1103515245u + 12345u;
            noise[i] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        robust(round % 2 ? 200 : 429, noise, (size_t)(seed % sizeof noise), round % 3 == 0);
    }
}

/* account_rejected: the account's credentials refused (any 401; a 400 or 403 saying the key is invalid,
 * expired, suspended or without permission), against refusals of the request itself. */
static void test_account_refusals(void **state)
{
    (void)state;
    static const struct {
        lg_dialect d;
        int status;
        const char *body;
        bool refused;
    } cases[] = {
        {OAI, 401, "{\"error\":{\"message\":\"Incorrect API key provided: sk-****. You can find your API key at "
                   "https://platform.openai.com/account/api-keys.\",\"type\":\"invalid_request_error\",\"param\":null,"
                   "\"code\":\"invalid_api_key\"}}", true},
        {ANT, 401, "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}", true},
        {OAI, 401, "", true},
        {GOO, 400, "{\"error\":{\"code\":400,\"message\":\"API key not valid. Please pass a valid API key.\",\"status\":"
                   "\"INVALID_ARGUMENT\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":"
                   "\"API_KEY_INVALID\",\"domain\":\"googleapis.com\"}]}}", true},
        {GOO, 400, "{\"error\":{\"code\":400,\"message\":\"API key expired. Please renew the API key.\",\"status\":"
                   "\"INVALID_ARGUMENT\"}}", true},
        {GOO, 403, "{\"error\":{\"code\":403,\"message\":\"Your API key was reported as leaked. Please use another API "
                   "key.\",\"status\":\"PERMISSION_DENIED\"}}", true},
        {ANT, 403, "{\"type\":\"error\",\"error\":{\"type\":\"permission_error\",\"message\":\"Your API key does not "
                   "have permission to use the specified resource.\"}}", true},
        /* the request refused, whatever the key */
        {OAI, 400, "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens.\",\"type\":"
                   "\"invalid_request_error\",\"code\":\"context_length_exceeded\"}}", false},
        {OAI, 403, "{\"error\":{\"code\":\"unsupported_country_region_territory\",\"message\":\"Country, region, or "
                   "territory not supported\",\"type\":\"request_forbidden\"}}", false},
        {GOO, 400, "{\"error\":{\"code\":400,\"message\":\"* GenerateContentRequest.contents: contents is not specified\","
                   "\"status\":\"INVALID_ARGUMENT\"}}", false},
        {OAI, 404, "{\"error\":{\"message\":\"The model `gpt-9` does not exist or you do not have access to it.\",\"type\":"
                   "\"invalid_request_error\",\"code\":\"model_not_found\"}}", false},
        /* not a refusal at all */
        {OAI, 429, "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}", false},
        /* a key whose usage cap is spent is a good key set aside (LLMGateway's 401) */
        {OAI, 401, "{\"error\":{\"message\":\"Unauthorized: LLMGateway API key reached its usage limit.\",\"type\":"
                   "\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}", false},
        {OAI, 200, "{\"choices\":[]}", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = strlen(cases[i].body);
        lg_response_view v = {.status = cases[i].status, .body = cases[i].body, .body_len = len};
        lg_outcome o;
        lg_classify(cases[i].d, &v, &o);
        if (o.account_rejected != cases[i].refused)
            fail_msg("case %zu (%d): account_rejected %d, expected %d", i, cases[i].status, o.account_rejected,
                     cases[i].refused);
        if (cases[i].refused)
            assert_int_equal(o.state, NR);
    }
}

/* Codes from the providers' own published error-code lists, a sample per table (their meaning is in the
 * tables' comments): each table's entries must be read as documented. */
static void test_documented_codes(void **state)
{
    (void)state;
    static const struct {
        lg_dialect d;
        const char *code;
        lg_sig sig;
    } cases[] = {
        /* Zhipu GLM (docs.bigmodel.cn/cn/api/api-code) */
        {OAI, "1113", LG_SIG_QUOTA}, {OAI, "1302", LG_SIG_RATE}, {OAI, "1304", LG_SIG_QUOTA},
        {OAI, "1305", LG_SIG_CAPACITY}, {OAI, "1310", LG_SIG_QUOTA}, {OAI, "1312", LG_SIG_CAPACITY},
        {OAI, "1261", LG_SIG_REJECT}, {ANT, "1308", LG_SIG_QUOTA},
        /* google.api.ErrorReason */
        {GOO, "RESOURCE_QUOTA_EXCEEDED", LG_SIG_LIMIT}, {GOO, "API_KEY_IP_ADDRESS_BLOCKED", LG_SIG_REJECT},
        {GOO, "OVERLOADED_CREDENTIALS", LG_SIG_REJECT}, {GOO, "ACCESS_TOKEN_EXPIRED", LG_SIG_REJECT},
        /* Tencent Hunyuan */
        {OAI, "FailedOperation.ServiceNotActivated", LG_SIG_REJECT}, {OAI, "FailedOperation.ServiceStop", LG_SIG_REJECT},
        /* Model Studio / DashScope */
        {DSC, "PrepaidBillOverdue", LG_SIG_QUOTA}, {OAI, "PostpaidBillOverdue", LG_SIG_QUOTA},
        /* OpenAI, Moonshot, Volcengine Ark, AWS Bedrock (the shared table) */
        {OAI, "credit_balance_exhausted", LG_SIG_QUOTA}, {OAI, "resource_not_found_error", LG_SIG_REJECT},
        {OAI, "ModelNotOpen", LG_SIG_REJECT}, {OAI, "InputTextSensitiveContentDetected", LG_SIG_REJECT},
        {OAI, "tokens_too_long", LG_SIG_REJECT}, {OAI, "ModelErrorException", LG_SIG_SERVER}, {OAI, "UnrecognizedClientException", LG_SIG_REJECT},
        /* families: an insufficient balance or credit (Cloud Code's ErrorInfo reason) */
        {GOO, "INSUFFICIENT_G1_CREDITS_BALANCE", LG_SIG_QUOTA}, {OAI, "insufficient_credits", LG_SIG_QUOTA},
        /* a quota said exceeded at the code's start (CloudBase); prose with a space is no code */
        {OAI, "EXCEED_TOKEN_QUOTA_LIMIT", LG_SIG_QUOTA}, {OAI, "Exceeded quota", LG_SIG_NONE},
        /* MiniMax's 1002 (its RPM limit) is no Zhipu authentication code */
        {OAI, "1002", LG_SIG_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool specific;
        lg_sig s = lg_code_signal(cases[i].d, cases[i].code, &specific);
        if (s != cases[i].sig)
            fail_msg("%s: signal %d, expected %d", cases[i].code, (int)s, (int)cases[i].sig);
    }
}

static void test_null_and_errno(void **state)
{
    (void)state;
    lg_outcome o;
    lg_classify(OAI, NULL, &o);
    assert_int_equal(o.state, DOWN);
    lg_response_view v = {.status = 429, .n_headers = 3, .body_len = 10}; /* NULL headers and body with sizes */
    errno = EAGAIN;
    lg_classify(GOO, &v, &o);
    assert_int_equal(errno, EAGAIN);
    assert_int_equal(o.state, RL);
    lg_classify(LG_DIALECT_NONE, &v, &o);
    assert_int_equal(o.state, RL);
}

int main(void)
{
    static struct CMUnitTest tests[sizeof rules / sizeof rules[0] + 8];
    size_t n = 0;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        tests[n++] = (struct CMUnitTest){rules[i].name, run_rule, NULL, NULL, (void *)&rules[i]};
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_prose_waits);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_prose_times);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_message_is_truncated_valid_utf8);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_malformed_inputs_never_crash);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_null_and_errno);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_account_refusals);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_documented_codes);
    return _cmocka_run_group_tests("classify_rules", tests, n, NULL, NULL);
}
