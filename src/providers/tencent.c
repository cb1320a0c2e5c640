/* Tencent Cloud API 3.0 (Hunyuan's native API, hunyuan.tencentcloudapi.com): every answer is HTTP 200,
 * an error is {"Response": {"Error": {"Code": "...", "Message": "..."}, "RequestId": "..."}}. Its
 * OpenAI-compatible endpoint speaks the OpenAI envelope, handled by openai.c. */
#include <string.h>

#include "providers/readers.h"

/* Tencent Cloud's common error codes (the dotted families by prefix) and Hunyuan's own, all of them that
 * bear on limits, billing, refusal or failure (tencentcloud-sdk hunyuan/v20230901/errors.go, the same list
 * as HunyuanErrorCode.java; cloud.tencent.com/document/product/1729/101847). */
static const lg_code_entry codes[] = {
    {"RequestLimitExceeded", LG_SIG_RATE, true},
    {"RequestLimitExceeded.", LG_SIG_RATE, true},
    {"LimitExceeded", LG_SIG_LIMIT, false}, /* "exceeds the quota limit": which one, the code does not say */
    {"ResourceUnavailable.InArrears", LG_SIG_QUOTA, true},
    {"ResourceUnavailable.LowBalance", LG_SIG_QUOTA, true},
    {"ResourceInsufficient.ChargeResourceExhaust", LG_SIG_QUOTA, true},
    {"FailedOperation.EngineServerLimitExceeded", LG_SIG_RATE, true}, /* engine-level request limit; retry later */
    {"FailedOperation.FreeResourcePackExhausted", LG_SIG_QUOTA, true},
    {"FailedOperation.ResourcePackExhausted", LG_SIG_QUOTA, true},
    {"FailedOperation.ServiceStopArrears", LG_SIG_QUOTA, true},
    {"FailedOperation.EngineServerError", LG_SIG_SERVER, true},
    {"FailedOperation.EngineRequestTimeout", LG_SIG_SERVER, true},
    {"FailedOperation.ServiceNotActivated", LG_SIG_REJECT, true}, /* the service was never activated */
    {"FailedOperation.ServiceStop", LG_SIG_REJECT, true},         /* the user stopped the service */
    {"UnsupportedOperation.NonWhitelistAccount", LG_SIG_REJECT, true},
    {"AuthFailure.", LG_SIG_REJECT, true},
    {"UnauthorizedOperation", LG_SIG_REJECT, true},
};
static const lg_code_table code_table = {codes, sizeof codes / sizeof codes[0]};

/* Whether doc is a Tencent Cloud error document (Response.Error); records what it says into c. */
static bool read_error(lg_cls *c, const cJSON *doc, bool http_error)
{
    const cJSON *resp = cJSON_GetObjectItemCaseSensitive(doc, "Response");
    const cJSON *err = cJSON_IsObject(resp) ? cJSON_GetObjectItemCaseSensitive(resp, "Error") : NULL;
    const char *code = lg_json_str(err, "Code");
    if (!code)
        return false;
    c->error = true;
    const char *msg = lg_json_str(err, "Message");
    if (msg)
        lg_cls_text(c, msg, strlen(msg), true);
    lg_cls_code(c, code);
    return true;
}

/* This dialect's entry in the readers table (readers.c). */
const lg_dialect_reader lg_tencent_reader = {LG_DIALECT_NONE, read_error, &code_table};
