/* Alibaba DashScope native API: a flat {"code": "Throttling.RateQuota", "message": ..., "request_id": ...}
 * error envelope (429 Throttling*, 400 Arrearage, 401 InvalidApiKey, 400 DataInspectionFailed, 500
 * InternalError...), in a body or as the data of a stream's "event:error" whose real status sits in a
 * ":HTTP_STATUS/429" comment (read by sse.c). The SDK's dumps add "status_code". Compatible mode speaks
 * the OpenAI envelope, handled by openai.c. Usage {input_tokens, output_tokens} is per-field. Other APIs
 * share the flat envelope: Dify's {code, message, status}, also as a stream's data event in a 200. */
#include <string.h>
#include <strings.h>

#include "providers/readers.h"

/* Codes of the Model Studio / DashScope error-code page (help.aliyun.com/zh/model-studio/error-code; native
 * API and compatible mode) that bear on limits, billing, refusal or failure. */
static const lg_code_entry codes[] = {
    {"Throttling", LG_SIG_RATE, false},
    {"Throttling.RateQuota", LG_SIG_RATE, true},
    {"Throttling.BurstRate", LG_SIG_RATE, true},
    {"Throttling.User", LG_SIG_RATE, true},
    {"Throttling.AllocationQuota", LG_SIG_RATE, false},
    {"Throttling.Concurrency", LG_SIG_RATE, true},
    {"Throttling.", LG_SIG_RATE, false},
    {"Arrearage", LG_SIG_QUOTA, true},
    {"PrepaidBillOverdue", LG_SIG_QUOTA, true},  /* 429: the workspace's prepaid bill is due */
    {"PostpaidBillOverdue", LG_SIG_QUOTA, true}, /* 429: the model inference commodity lapsed */
    {"AllocationQuota.FreeTierOnly", LG_SIG_QUOTA, true},
    {"DataInspectionFailed", LG_SIG_REJECT, true},
    {"DataInspectionFailed.", LG_SIG_REJECT, true},
    {"data_inspection_failed", LG_SIG_REJECT, true},
    {"limit_requests", LG_SIG_RATE, false},
    {"limit_burst_rate", LG_SIG_RATE, true}, /* compatible mode: the request rate rose too fast (burst protection) */
    {"LimitRequests", LG_SIG_RATE, false},
    /* a service the account never bought (a commodity not purchased, a model not subscribed): no wait or key of
     * the same account helps, whatever the status (Model Studio sends CommodityNotPurchased as a 429) */
    {"CommodityNotPurchased", LG_SIG_REJECT, true},
    {"AccessDenied.Unpurchased", LG_SIG_REJECT, true},
    {"ModelUnavailable", LG_SIG_SERVER, false},
    {"ModelServingError", LG_SIG_SERVER, false},
};
static const lg_code_table code_table = {codes, sizeof codes / sizeof codes[0]};

/* Dify's own codes, read before any other table in its envelope (a numeric "status" beside code and message,
 * where DashScope's SDK writes "status_code"): its two 429 codes mean opposite things (docs.dify.ai, API
 * errors). rate_limit_error is Dify Cloud's plan quota (workflow runs), back only with the quota period or a
 * plan change, whereas Anthropic's rate_limit_error is a window; too_many_requests is the app's concurrency
 * cap. */
static const lg_code_entry dify_codes[] = {
    {"rate_limit_error", LG_SIG_QUOTA, true},
    {"too_many_requests", LG_SIG_RATE, true},
};
static const lg_code_table dify_table = {dify_codes, sizeof dify_codes / sizeof dify_codes[0]};

/* Codes some gateways put on successful responses: "0", "200", "success", "ok". */
static bool success_code(const char *code)
{
    return !strcmp(code, "0") || !strcmp(code, "200") || !strcasecmp(code, "success") || !strcasecmp(code, "ok");
}

/* Whether doc is a DashScope native error document; records what it says into c. */
static bool read_error(lg_cls *c, const cJSON *doc, bool http_error)
{
    const char *code = lg_json_str(doc, "code");
    const char *msg = lg_json_str(doc, "message");
    if (!code || !msg || success_code(code) || cJSON_GetObjectItemCaseSensitive(doc, "error"))
        return false;
    c->error = true;
    int64_t st = 0;
    bool sdk = lg_json_int(doc, "status_code", &st);
    bool dify = !sdk && lg_json_int(doc, "status", &st);
    if ((sdk || dify) && st >= 100 && st <= 599 && c->body_status == 0)
        c->body_status = (int)st;
    lg_cls_text(c, msg, strlen(msg), true);
    bool specific;
    lg_sig s = dify ? lg_code_table_signal(&dify_table, code, &specific) : LG_SIG_NONE;
    if (s != LG_SIG_NONE)
        lg_cls_evidence(c, specific ? LG_EV_CODE : LG_EV_GENERIC, s);
    else
        lg_cls_code_beside(c, code, msg);
    return true;
}

/* This dialect's entry in the readers table (readers.c). */
const lg_dialect_reader lg_dashscope_reader = {LG_DIALECT_DASHSCOPE, read_error, &code_table};
