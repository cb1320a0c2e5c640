/* Anthropic: {"type": "error", "error": {"type": "rate_limit_error" | "overloaded_error" | "api_error" |
 * "authentication_error" | "permission_error" | "not_found_error" | "request_too_large" | "billing_error" |
 * "invalid_request_error" | "timeout_error", "message": ...}, "request_id": ...}, in a body or as the data
 * of a stream's "event: error". The messages carry the quota cases that reuse generic types: "Your credit
 * balance is too low" (400), "You have reached your specified API usage limits. You will regain access on
 * ..." (400), "monthly spend limit" and "Extra usage is required" (429 rate_limit_error). Stream usage
 * (message_start / message_delta) is merged per field by lg_usage_object. */
#include <string.h>

#include "providers/readers.h"

/* error.type names (docs.anthropic.com/en/api/errors). */
static const lg_code_entry codes[] = {
    {"rate_limit_error", LG_SIG_RATE, false},
    {"overloaded_error", LG_SIG_CAPACITY, true},
    {"api_error", LG_SIG_SERVER, true},
    {"timeout_error", LG_SIG_SERVER, true},
    {"billing_error", LG_SIG_QUOTA, true},
    {"request_too_large", LG_SIG_REJECT, true},
    {"enforced_spend_limit_reached", LG_SIG_QUOTA, true},
    {"authentication_error", LG_SIG_REJECT, false},
    {"permission_error", LG_SIG_REJECT, false},
    {"permission_denied_error", LG_SIG_REJECT, false},
    {"not_found_error", LG_SIG_REJECT, false},
};
static const lg_code_table code_table = {codes, sizeof codes / sizeof codes[0]};

/* Whether doc is an Anthropic error document ({"type": "error", "error": {...}}); records what it says into c. */
static bool read_error(lg_cls *c, const cJSON *doc, bool http_error)
{
    const char *type = lg_json_str(doc, "type");
    if (!type || strcmp(type, "error"))
        return false;
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(doc, "error");
    if (lg_openai_error_object(c, err))
        return true;
    c->error = true; /* {"type": "error"} without a usable error object is still an error */
    return true;
}

/* This dialect's entry in the readers table (readers.c). */
const lg_dialect_reader lg_anthropic_reader = {LG_DIALECT_ANTHROPIC, read_error, &code_table};
