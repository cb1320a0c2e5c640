/* Names of the outcome vocabulary. */
#include <string.h>

#include "llmgate/outcome.h"

static const char *const state_names[] = {"SUCCESS", "RETRYABLE_RATE_LIMIT", "PROVIDER_DOWN", "NON_RETRYABLE"};
static const char *const reason_names[] = {"NONE",        "QUOTA_EXHAUSTED", "RATE_LIMIT_EXCEEDED",
                                           "MODEL_CAPACITY_EXHAUSTED", "SERVER_ERROR", "UNKNOWN"};

const char *lg_state_name(lg_state s)
{
    return (unsigned)s < sizeof state_names / sizeof *state_names ? state_names[s] : "?";
}

const char *lg_reason_name(lg_reason r)
{
    return (unsigned)r < sizeof reason_names / sizeof *reason_names ? reason_names[r] : "?";
}

bool lg_state_parse(const char *name, lg_state *out)
{
    for (size_t i = 0; name && i < sizeof state_names / sizeof *state_names; i++)
        if (!strcmp(name, state_names[i])) {
            *out = (lg_state)i;
            return true;
        }
    return false;
}

bool lg_reason_parse(const char *name, lg_reason *out)
{
    for (size_t i = 0; name && i < sizeof reason_names / sizeof *reason_names; i++)
        if (!strcmp(name, reason_names[i])) {
            *out = (lg_reason)i;
            return true;
        }
    return false;
}
