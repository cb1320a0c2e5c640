/* Names of the outcome vocabulary, and the status a host sees for an outcome. */
#include <string.h>

#include "llmgate/outcome.h"

static const char *const state_names[] = {"SUCCESS", "RETRYABLE_RATE_LIMIT", "PROVIDER_DOWN", "NON_RETRYABLE"};
static const char *const reason_names[] = {"NONE",        "QUOTA_EXHAUSTED", "RATE_LIMIT_EXCEEDED",
                                           "MODEL_CAPACITY_EXHAUSTED", "SERVER_ERROR", "UNKNOWN"};
static const char *const detail_names[] = {"", "billing", "key-refused"};
_Static_assert(sizeof detail_names / sizeof *detail_names == LG_DETAIL_COUNT, "one name per detail");

const char *lg_state_name(lg_state s)
{
    return (unsigned)s < sizeof state_names / sizeof *state_names ? state_names[s] : "?";
}

const char *lg_reason_name(lg_reason r)
{
    return (unsigned)r < sizeof reason_names / sizeof *reason_names ? reason_names[r] : "?";
}

const char *lg_detail_name(lg_detail d)
{
    return (unsigned)d < sizeof detail_names / sizeof *detail_names ? detail_names[d] : "?";
}

/* The index of name in the n names, or -1. */
static int name_index(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (!strcmp(name, names[i]))
            return (int)i;
    return -1;
}

#define PARSE(names, type)                                                                                    \
    int i = name_index(names, sizeof names / sizeof *names, name);                                            \
    if (i >= 0)                                                                                               \
        *out = (type)i;                                                                                       \
    return i >= 0

bool lg_state_parse(const char *name, lg_state *out) { PARSE(state_names, lg_state); }

bool lg_reason_parse(const char *name, lg_reason *out) { PARSE(reason_names, lg_reason); }

bool lg_detail_parse(const char *name, lg_detail *out) { PARSE(detail_names, lg_detail); }

int lg_outcome_host_status(const lg_outcome *o, int status)
{
    if (status >= 200 && status < 300) {
        if (o->state == LG_STATE_RETRYABLE_RATE_LIMIT)
            return 429;
        if (o->state == LG_STATE_PROVIDER_DOWN)
            return 503;
    }
    return status;
}
