/* Error answers in each provider dialect's real wire format (status, body, wait headers). */
#ifndef MOCK_ERRORS_H
#define MOCK_ERRORS_H

#include <stddef.h>
#include <stdint.h>

#include "mock/reply.h"
#include "mock/request.h"

typedef enum {
    MOCK_ERR_QUOTA,       /* out of credit / daily quota */
    MOCK_ERR_RATE_LIMIT,  /* per-minute window exceeded */
    MOCK_ERR_OVERLOADED,  /* the provider lacks capacity */
    MOCK_ERR_SERVER,      /* generic internal error */
    MOCK_ERR_AUTH,        /* bad key */
    MOCK_ERR_BAD_REQUEST, /* the body is not valid JSON */
    MOCK_ERR_TOO_LARGE,   /* the body is over the size limit */
} mock_error_kind;

/* The window state a rate-limit error reports. */
typedef struct {
    bool tokens;       /* the token limit was hit (else the request limit) */
    bool too_large;    /* the request alone exceeds the token limit */
    int64_t limit, used, requested;
} mock_limit_info;

/* Parses a scenario error name ("quota", "rate_limit", "overloaded", "server_error", "auth",
 * "bad_request", "too_large"); returns -1 when unknown. */
int mock_error_parse(const char *name);
/* The error kind a provider would send with this HTTP status (for random errors). */
mock_error_kind mock_error_for_status(int status);

/* Fills r with the error `kind` for q's dialect. retry_after_ms >= 0 adds the dialect's wait hints
 * (retry-after header, message text, RetryInfo); li (may be NULL) gives the numbers a rate-limit
 * message quotes. serial numbers the response. */
void mock_error(mock_reply *r, const mock_request *q, mock_error_kind kind, int64_t retry_after_ms,
                const mock_limit_info *li, int64_t serial);
/* Fills r with an HTTP 200 that carries a rate-limit error: Baidu error_code 18, else a stream whose
 * first event is content and whose last event is the dialect's error event. */
void mock_error_in_200(mock_reply *r, const mock_request *q, int64_t serial);

/* Formats ms as a Go duration ("644ms", "1.234s", "6m0s"). */
void mock_fmt_go_duration(char *buf, size_t n, int64_t ms);
/* Formats ms as a protobuf JSON duration ("26s", "1.234s"). */
void mock_fmt_proto_duration(char *buf, size_t n, int64_t ms);

#endif
