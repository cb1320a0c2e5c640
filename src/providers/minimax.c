/* MiniMax (api.minimax.io, api.minimaxi.com): its native and OpenAI-compatible endpoints answer HTTP 200
 * with {"base_resp": {"status_code": N, "status_msg": "..."}}, where 0 is success and any other code an
 * error (a stream request that fails gets this JSON instead of events). Its Anthropic-compatible endpoint
 * speaks Anthropic's envelope, handled by anthropic.c. */
#include "providers/readers.h"

/* From MiniMax's error-code table (platform.minimax.io/docs/api-reference/errorcode, platform.minimaxi.com
 * 错误码查询). */
static const lg_num_code codes[] = {
    {1000, LG_SIG_SERVER}, /* unknown error */
    {1001, LG_SIG_SERVER}, /* request timeout */
    {1002, LG_SIG_RATE},   /* RPM rate limit */
    {1004, LG_SIG_REJECT}, /* authentication failed */
    {1008, LG_SIG_QUOTA},  /* insufficient balance */
    {1013, LG_SIG_SERVER}, /* internal service error */
    {1024, LG_SIG_SERVER}, /* internal error */
    {1026, LG_SIG_REJECT}, /* input flagged as sensitive */
    {1027, LG_SIG_REJECT}, /* output flagged as sensitive */
    {1033, LG_SIG_SERVER}, /* system or downstream service error */
    {1039, LG_SIG_RATE},   /* TPM rate limit */
    {1041, LG_SIG_RATE},   /* connection limit */
    {2013, LG_SIG_REJECT}, /* invalid parameters */
    {2045, LG_SIG_RATE},   /* request rate growth limit */
    {2049, LG_SIG_REJECT}, /* invalid API key */
    {2056, LG_SIG_QUOTA},  /* plan usage limit */
};

/* Whether doc is a MiniMax document whose base_resp states a failure; records what it says into c. */
static bool read_error(lg_cls *c, const cJSON *doc, bool http_error)
{
    const cJSON *br = cJSON_GetObjectItemCaseSensitive(doc, "base_resp");
    int64_t code;
    if (!cJSON_IsObject(br) || !lg_json_int(br, "status_code", &code) || code == 0)
        return false;
    lg_cls_status_error(c, lg_json_str(br, "status_msg"), LG_EV_CODE,
                        lg_num_code_signal(codes, sizeof codes / sizeof codes[0], code));
    return true;
}

/* This dialect's entry in the readers table (readers.c). */
const lg_dialect_reader lg_minimax_reader = {LG_DIALECT_NONE, read_error, NULL};
