/* Tencent Cloud API 3.0 (Hunyuan's native API, hunyuan.tencentcloudapi.com): every answer is HTTP 200,
 * an error is {"Response": {"Error": {"Code": "...", "Message": "..."}, "RequestId": "..."}}. Its
 * OpenAI-compatible endpoint speaks the OpenAI envelope, handled by openai.c. */
#include <string.h>

#include "classify/dialects.h"

/* Tencent Cloud's common error codes (the dotted families by prefix). */
static const lg_code_entry codes[] = {
    {"RequestLimitExceeded", LG_SIG_RATE, true},
    {"RequestLimitExceeded.", LG_SIG_RATE, true},
    {"ResourceUnavailable.InArrears", LG_SIG_QUOTA, true},
    {"ResourceUnavailable.LowBalance", LG_SIG_QUOTA, true},
    {"AuthFailure.", LG_SIG_REJECT, true},
    {"UnauthorizedOperation", LG_SIG_REJECT, true},
};
const lg_code_table lg_tencent_codes = {codes, sizeof codes / sizeof codes[0]};

bool lg_tencent_error(lg_cls *c, const cJSON *doc)
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
