/* Provider-wide protections, shared by every process through the provider's slot in the store: a retry
 * budget (retries may add only a share to the requests of the last ten seconds: Envoy retry budgets, gRPC
 * retry throttling, Google SRE client-side throttling) and a circuit breaker (Hystrix/Envoy style: closed,
 * open, half-open with one probe). Pure: the clock is a parameter, nothing here does I/O. */
#ifndef LLMGATE_RESILIENCE_H
#define LLMGATE_RESILIENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "llmgate/config.h"
#include "llmgate/outcome.h"

#define LG_BUDGET_BUCKETS 10    /* the budget's window: ten buckets ... */
#define LG_BUDGET_BUCKET_MS 1000 /* ... of one second */
#define LG_BREAKER_BUCKETS 10   /* the breaker's window in ten buckets of window_ms / 10 */

typedef struct {
    int64_t epoch[LG_BUDGET_BUCKETS]; /* which second each bucket counts (a stale one counts nothing) */
    uint32_t requests[LG_BUDGET_BUCKETS];
    uint32_t retries[LG_BUDGET_BUCKETS];
} lg_budget;

/* Counts a new request (its first attempt) at now_ms. */
void lg_budget_note_request(lg_budget *b, int64_t now_ms);

/* True, counting the retry, when one more retry fits the budget at now_ms: the retries of the last ten
 * seconds stay within max(ratio × requests of the last ten seconds, min_per_s × 10). */
bool lg_budget_try_retry(lg_budget *b, double ratio, double min_per_s, int64_t now_ms);

typedef enum { LG_BREAKER_CLOSED = 0, LG_BREAKER_OPEN, LG_BREAKER_HALF_OPEN } lg_breaker_state;

typedef struct {
    int32_t state;          /* lg_breaker_state */
    int32_t consecutive;    /* failures in a row */
    int64_t open_until_ms;  /* OPEN: no request before this; HALF_OPEN: the probe's lease ends then */
    int64_t open_ms;        /* the current open period (doubles while probes fail); 0 = the configured one */
    int64_t opened;         /* times it opened (for status) */
    int64_t epoch[LG_BREAKER_BUCKETS];
    uint32_t total[LG_BREAKER_BUCKETS];
    uint32_t failed[LG_BREAKER_BUCKETS];
} lg_breaker;

typedef enum {
    LG_BREAKER_ALLOW = 0, /* send */
    LG_BREAKER_PROBE,     /* send: this request is the half-open probe */
    LG_BREAKER_REJECT,    /* do not send; *retry_after_ms says when the next probe may go */
} lg_breaker_verdict;

/* May a request go at now_ms? Closed: yes. Open: no, until open_until_ms, when the breaker turns half-open
 * and the first request to ask is the probe (its lease lasts open_ms; the others are rejected until its
 * outcome or the lease's end). */
lg_breaker_verdict lg_breaker_admit(lg_breaker *b, const lg_breaker_conf *c, int64_t now_ms, int64_t *retry_after_ms);

/* Folds an outcome into the breaker: failure (PROVIDER_DOWN or a transport failure) or success (anything
 * else that counts; rate limits are not passed here at all). Closed: opens when the window holds at least
 * min_requests with failures ≥ failure_ratio, or after consecutive_failures in a row. Half-open: a probe's
 * success closes it (the window starts afresh), a failure opens it again for twice as long (at most
 * open_max_ms). */
void lg_breaker_record(lg_breaker *b, const lg_breaker_conf *c, bool failure, int64_t now_ms);

/* What the breaker is told of an attempt (LG_BREAKER_NOTE_NONE: nothing). */
typedef enum { LG_BREAKER_NOTE_NONE = 0, LG_BREAKER_NOTE_SUCCESS, LG_BREAKER_NOTE_FAILURE } lg_breaker_note;

/* The note of a classified answer: PROVIDER_DOWN is a failure, a rate limit is no note (the limiter's
 * business), anything else a success. */
lg_breaker_note lg_breaker_note_of(const lg_outcome *o);

#endif
