/* The one vocabulary every provider response is classified into. */
#ifndef LLMGATE_OUTCOME_H
#define LLMGATE_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    LG_STATE_SUCCESS = 0,
    LG_STATE_RETRYABLE_RATE_LIMIT,
    LG_STATE_PROVIDER_DOWN,
    LG_STATE_NON_RETRYABLE,
} lg_state;

typedef enum {
    LG_REASON_NONE = 0, /* only with LG_STATE_SUCCESS */
    LG_REASON_QUOTA_EXHAUSTED,
    LG_REASON_RATE_LIMIT_EXCEEDED,
    LG_REASON_MODEL_CAPACITY_EXHAUSTED,
    LG_REASON_SERVER_ERROR,
    LG_REASON_UNKNOWN,
} lg_reason;

#define LG_REASON_COUNT 6

/* A case of a reason that calls for more than its reason's cooldown: the account is set aside. The same
 * vocabulary names why an account is set aside (lg_account_state.aside). */
typedef enum {
    LG_DETAIL_NONE = 0,
    LG_DETAIL_BILLING, /* QUOTA_EXHAUSTED: the account is out of credit (no balance, unpaid, spend limit) */
    LG_DETAIL_KEY_REFUSED, /* the provider refused the account's key (lg_outcome.account_rejected); only an
                              account's set-aside reason, never a classification's detail */
} lg_detail;

#define LG_DETAIL_COUNT 3
#define LG_NO_HINT (-1)
#define LG_MESSAGE_MAX 512

/* The classification of one response. */
typedef struct {
    lg_state state;
    lg_reason reason;
    lg_detail detail;       /* LG_DETAIL_BILLING: out of credit (reason QUOTA_EXHAUSTED) */
    int64_t retry_after_ms; /* server's relative wait hint, LG_NO_HINT if none */
    int64_t retry_at_ms;    /* absolute resume time (Unix ms) when only a wall-clock time was given, else LG_NO_HINT */
    bool account_rejected;  /* NON_RETRYABLE only: the provider refused this account's credentials (a 401, or
                               a 400/403 saying the API key is invalid, expired or suspended), not the request:
                               another account may serve it */
    bool has_usage;         /* token usage found (SUCCESS only) */
    int64_t prompt_tokens;
    int64_t completion_tokens;
    int64_t cached_tokens;  /* of prompt_tokens, those read from the provider's cache (Anthropic) */
    char message[LG_MESSAGE_MAX]; /* the provider's own error message, "" if none */
} lg_outcome;

/* Upper-case names as in the fixtures ("RETRYABLE_RATE_LIMIT"); NULL-safe, never NULL. */
const char *lg_state_name(lg_state s);
const char *lg_reason_name(lg_reason r);
/* The status the host should see for a final outcome: errors hidden in a 2xx become real statuses. */
int lg_outcome_host_status(const lg_outcome *o, int status);
/* Lower-case name of a detail ("billing"; "" for none); NULL-safe, never NULL. */
const char *lg_detail_name(lg_detail d);
/* Parses a name back; returns false for unknown names. */
bool lg_state_parse(const char *name, lg_state *out);
bool lg_reason_parse(const char *name, lg_reason *out);
bool lg_detail_parse(const char *name, lg_detail *out);

/* How an attempt failed in the transport, with no response to classify. */
typedef enum {
    LG_ATTEMPT_FATAL = 1,  /* the host must see it at once: timeout, TLS failure, aborted by the host */
    LG_ATTEMPT_RETRYABLE,  /* refused, reset, truncated: worth a bounded retry after a backoff */
    LG_ATTEMPT_STALE,      /* a kept-alive connection turned out closed before any answer: sent again at
                            * once on another connection (what libcurl itself would do), blamed on nobody */
    LG_ATTEMPT_TIMED_OUT,  /* llmgate's own attempt timeout (retry.attempt_timeout_ms, idle_timeout_ms): the
                            * provider's failure, retried at once on another account when there is one */
    LG_ATTEMPT_ABANDONED,  /* the host gave the attempt up (its own timeout, its callback aborted): shown to it
                            * at once like a fatal failure, but blamed on nobody (a slow answer is not a
                            * failing provider; llmgate's own attempt timeout is RETRYABLE, the provider's) */
} lg_transport_failure;

#endif
