/* Baidu Qianfan / ERNIE v1: errors inside HTTP 200 bodies as {"error_code": N, "error_msg": ...} (also
 * {"code": N, "msg": ...}). The v2 API speaks the OpenAI envelope (code "rpm_rate_limit_exceeded"...),
 * handled by openai.c. Usage is the {prompt_tokens, completion_tokens} totals shape. */
#include <string.h>

#include "providers/readers.h"

/* From the Qianfan error-code table and the SDK's APIErrorCode constants. */
static const lg_num_code codes[] = {
    {1, LG_SIG_SERVER},       /* Unknown error */
    {2, LG_SIG_SERVER},       /* Service temporarily unavailable */
    {3, LG_SIG_REJECT},       /* Unsupported openapi method */
    {4, LG_SIG_QUOTA},        /* Open api request limit reached */
    {6, LG_SIG_REJECT},       /* No permission to access data */
    {13, LG_SIG_REJECT},      /* Get service token failed */
    {14, LG_SIG_REJECT},      /* IAM Certification failed */
    {15, LG_SIG_REJECT},      /* app not exists or create failed */
    {17, LG_SIG_QUOTA},       /* Open api daily request limit reached */
    {18, LG_SIG_RATE},        /* Open api qps request limit reached */
    {19, LG_SIG_QUOTA},       /* Open api total request limit reached */
    {100, LG_SIG_REJECT},     /* Invalid parameter */
    {110, LG_SIG_REJECT},     /* Access token invalid or no longer valid */
    {111, LG_SIG_REJECT},     /* Access token expired */
    {336000, LG_SIG_SERVER},  /* Internal error */
    {336001, LG_SIG_REJECT},  /* Invalid argument */
    {336002, LG_SIG_REJECT},  /* Invalid JSON */
    {336003, LG_SIG_REJECT},  /* Invalid parameter */
    {336004, LG_SIG_REJECT},  /* Permission error */
    {336005, LG_SIG_REJECT},  /* API name not exist */
    {336100, LG_SIG_CAPACITY},/* Server high load */
    {336101, LG_SIG_REJECT},  /* Invalid HTTP method */
    {336104, LG_SIG_REJECT},  /* Invalid argument (system) */
    {336105, LG_SIG_REJECT},  /* Invalid argument (user setting) */
};

static lg_sig code_signal(int64_t code)
{
    lg_sig s = lg_num_code_signal(codes, sizeof codes / sizeof codes[0], code);
    if (s != LG_SIG_NONE)
        return s;
    if (code >= 336500 && code <= 336599) /* 336501 RPM, 336502 TPM and their siblings */
        return LG_SIG_RATE;
    return LG_SIG_NONE;
}

/* Whether doc is a Baidu error document (error_code, also inside HTTP 200); records what it says into c. */
static bool read_error(lg_cls *c, const cJSON *doc, bool http_error)
{
    int64_t code;
    const char *msg = lg_json_str(doc, "error_msg");
    if (!lg_json_int(doc, "error_code", &code)) {
        msg = lg_json_str(doc, "msg");
        if (!msg || !lg_json_int(doc, "code", &code))
            return false;
    }
    if (code == 0 || (code >= 200 && code <= 299)) /* {"code": 0 | 200, "msg": "success"} */
        return false;
    lg_cls_status_error(c, msg, LG_EV_CODE, code_signal(code));
    return true;
}

/* This dialect's entry in the readers table (readers.c). */
const lg_dialect_reader lg_baidu_reader = {LG_DIALECT_BAIDU, read_error, NULL};
