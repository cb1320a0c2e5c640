/* The circuit breaker (see resilience.h). */
#include <string.h>

#include "llmgate/resilience.h"

/* The open period now in force. */
static int64_t period(const lg_breaker *b, const lg_breaker_conf *c) { return b->open_ms > 0 ? b->open_ms : c->open_ms; }

/* Forgets the window's counts. */
static void clear_window(lg_breaker *b)
{
    memset(b->epoch, 0, sizeof b->epoch);
    memset(b->total, 0, sizeof b->total);
    memset(b->failed, 0, sizeof b->failed);
    b->consecutive = 0;
}

static void open_for(lg_breaker *b, int64_t ms, int64_t now_ms)
{
    b->state = LG_BREAKER_OPEN;
    b->open_ms = ms;
    b->open_until_ms = now_ms + ms;
    b->opened++;
    clear_window(b);
}

lg_breaker_verdict lg_breaker_admit(lg_breaker *b, const lg_breaker_conf *c, int64_t now_ms, int64_t *retry_after_ms)
{
    *retry_after_ms = 0;
    if (b->state == LG_BREAKER_CLOSED)
        return LG_BREAKER_ALLOW;
    if (now_ms < b->open_until_ms) {
        *retry_after_ms = b->open_until_ms - now_ms;
        return LG_BREAKER_REJECT;
    }
    b->state = LG_BREAKER_HALF_OPEN; /* open period over, or the last probe's lease ran out */
    b->open_until_ms = now_ms + period(b, c);
    return LG_BREAKER_PROBE;
}

void lg_breaker_record(lg_breaker *b, const lg_breaker_conf *c, bool failure, int64_t now_ms)
{
    if (b->state == LG_BREAKER_OPEN)
        return; /* an answer to a request sent before it opened */
    if (b->state == LG_BREAKER_HALF_OPEN) {
        if (failure) {
            int64_t next = 2 * period(b, c);
            open_for(b, next < c->open_max_ms ? next : c->open_max_ms, now_ms);
        } else {
            b->state = LG_BREAKER_CLOSED;
            b->open_ms = 0;
            b->open_until_ms = 0;
            clear_window(b);
        }
        return;
    }
    int64_t span = c->window_ms / LG_BREAKER_BUCKETS > 0 ? c->window_ms / LG_BREAKER_BUCKETS : 1;
    int64_t k = now_ms / span;
    int i = (int)(k % LG_BREAKER_BUCKETS);
    if (b->epoch[i] != k) {
        b->epoch[i] = k;
        b->total[i] = b->failed[i] = 0;
    }
    b->total[i]++;
    b->failed[i] += failure;
    b->consecutive = failure ? b->consecutive + 1 : 0;
    if (!failure)
        return; /* a success never opens it: the window is summed for failures only */
    double total = 0, failed = 0;
    for (int j = 0; j < LG_BREAKER_BUCKETS; j++)
        if (b->epoch[j] > k - LG_BREAKER_BUCKETS && b->epoch[j] <= k) {
            total += b->total[j];
            failed += b->failed[j];
        }
    bool by_ratio = c->min_requests > 0 && total >= c->min_requests && failed >= c->failure_ratio * total;
    bool by_run = c->consecutive_failures > 0 && b->consecutive >= c->consecutive_failures;
    if (by_ratio || by_run)
        open_for(b, c->open_ms, now_ms);
}

lg_breaker_note lg_breaker_note_of(const lg_outcome *o)
{
    if (o->state == LG_STATE_RETRYABLE_RATE_LIMIT)
        return LG_BREAKER_NOTE_NONE;
    return o->state == LG_STATE_PROVIDER_DOWN ? LG_BREAKER_NOTE_FAILURE : LG_BREAKER_NOTE_SUCCESS;
}
