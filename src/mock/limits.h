/* Exact sliding windows: every admitted request is remembered with its time and token count until it
 * leaves the window, so "requests in the last window_ms" is counted exactly, not approximated. */
#ifndef MOCK_LIMITS_H
#define MOCK_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t rpm;       /* requests per window; 0 = unlimited */
    int64_t tpm;       /* tokens per window; 0 = unlimited */
    int64_t window_ms; /* window length, > 0 */
} mock_limits;

typedef struct {
    int64_t at_ms;
    int64_t tokens;
} mock_admission;

typedef struct {
    mock_admission *items; /* live admissions are items[head .. head+len) */
    size_t cap, head, len;
    int64_t tokens;        /* sum of the live admissions' tokens */
    int64_t max_in_window; /* largest len seen right after an admission */
} mock_window;

typedef enum {
    MOCK_ADMITTED,
    MOCK_OVER_REQUESTS, /* the request limit is reached */
    MOCK_OVER_TOKENS,   /* the request's tokens do not fit in what is left of the token limit */
    MOCK_TOO_LARGE,     /* the request alone has more tokens than the token limit */
} mock_verdict_kind;

typedef struct {
    mock_verdict_kind kind;
    int64_t used_requests, used_tokens; /* in the window, not counting this request */
    int64_t requested_tokens;
    int64_t remaining_requests;         /* after this request (when admitted); -1 when unlimited */
    int64_t remaining_tokens;           /* same for tokens */
    int64_t reset_requests_ms;          /* time until the window next frees a request slot (0: none taken) */
    int64_t reset_tokens_ms;            /* time until the window next frees tokens, or, when rejected for
                                           tokens, until this request would fit */
    int64_t retry_after_ms;             /* rejected: time until the request would be admitted; -1 never */
} mock_verdict;

void mock_window_init(mock_window *w);
void mock_window_free(mock_window *w);
/* Forgets every admission and the maximum. */
void mock_window_clear(mock_window *w);

/* Decides at time now whether a request of `tokens` tokens fits in lim, and records it when it is
 * admitted. With force, the request is recorded whatever the limits say (the verdict still tells
 * whether it would have fit). Fills v. */
void mock_window_admit(mock_window *w, const mock_limits *lim, int64_t now, int64_t tokens, bool force,
                       mock_verdict *v);

#endif
