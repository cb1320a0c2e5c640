/* The sliding window of one account (see limiter.h): sub-buckets counted conservatively. An admission is
 * placed in the bucket of its time; a window of window+margin ms touches at most B+1 consecutive buckets
 * (B = LG_WINDOW_BUCKETS), so keeping every run of B+1 buckets within the limits keeps every real window
 * within them, whatever the times inside the buckets were. The cost is at most one bucket of delay. */
#include <string.h>

#include "llmgate/config.h"
#include "llmgate/limiter.h"

#define B LG_WINDOW_BUCKETS
#define AHEAD (LG_WINDOW_RING - 2 * B - 1) /* buckets after now's that can hold a reservation */

int64_t lg_window_margin_ms(int64_t window_ms)
{
    int64_t m = window_ms / 50;
    return m < 10 ? 10 : m > 1000 ? 1000 : m;
}

int64_t lg_window_span_ms(const lg_window_limits *l)
{
    int64_t span = l->window_ms + (l->margin_ms > 0 ? l->margin_ms : 0);
    return span > 0 ? span : 1;
}

/* Bucket k covers [ceil(k*span/B), ceil((k+1)*span/B)): B buckets are exactly one span, so any interval of
 * span ms touches at most B+1 of them. floor(t*B/span) for any sign of t. */
static int64_t epoch_of(int64_t t, int64_t span)
{
    int64_t x = t * B;
    int64_t q = x / span;
    return (x % span != 0 && x < 0) ? q - 1 : q;
}

/* The first ms of bucket k. */
static int64_t start_of(int64_t k, int64_t span)
{
    int64_t x = k * span;
    int64_t q = x / B;
    return (x % B != 0 && x > 0) ? q + 1 : q;
}

static int64_t ring_index(int64_t epoch)
{
    int64_t i = epoch % LG_WINDOW_RING;
    return i < 0 ? i + LG_WINDOW_RING : i;
}

/* The bucket of epoch e when the ring holds it, else NULL. */
static const lg_bucket *bucket_at(const lg_window *w, int64_t e)
{
    const lg_bucket *b = &w->ring[ring_index(e)];
    return b->epoch == e ? b : NULL;
}

/* Requests or tokens of bucket e (0 when the ring does not hold it or was filled for another span). */
static int64_t bucket_val(const lg_window *w, bool same_span, int64_t e, int d)
{
    const lg_bucket *b = same_span ? bucket_at(w, e) : NULL;
    return !b ? 0 : d == LG_DIM_REQUESTS ? b->requests : b->tokens;
}

int64_t lg_window_earliest(const lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t now_ms,
                           int64_t not_before_ms, int64_t *retry_ms)
{
    int64_t span = lg_window_span_ms(l);
    int64_t start = not_before_ms > now_ms ? not_before_ms : now_ms;
    int64_t need[2] = {1, tokens > 0 ? tokens : 0};
    if (l->limit[LG_DIM_TOKENS] > 0 && need[1] > l->limit[LG_DIM_TOKENS])
        need[1] = l->limit[LG_DIM_TOKENS];
    for (int d = 0; d < 2; d++) /* a provider cap that cannot cover this request: not before its reset */
        if (w->cap_until_ms[d] > start && w->cap_left[d] < need[d])
            start = w->cap_until_ms[d];
    int64_t k_now = epoch_of(now_ms, span), k_max = k_now + AHEAD;
    int64_t k0 = epoch_of(start, span);
    *retry_ms = 0;
    if (k0 > k_max) {
        *retry_ms = start_of(k0 - AHEAD, span) - now_ms;
        return start;
    }
    if (l->limit[0] <= 0 && l->limit[1] <= 0)
        return start;
    /* Slide over the runs [j, j+B] for j = k0-B ... k_max. Bucket k fits when none of the B+1 runs that
     * contain it (j = k-B ... k) would go over a limit with the request added: when the last run found
     * over a limit started before k-B. */
    bool same_span = w->span_ms == span;
    int64_t sum[2] = {0, 0}, last_bad = k0 - B - 1;
    for (int d = 0; d < 2; d++)
        for (int64_t e = k0 - B; e < k0; e++)
            sum[d] += bucket_val(w, same_span, e, d);
    for (int64_t j = k0 - B; j <= k_max; j++) {
        for (int d = 0; d < 2; d++) { /* sum becomes the run [j, j+B] */
            sum[d] += bucket_val(w, same_span, j + B, d);
            if (j > k0 - B)
                sum[d] -= bucket_val(w, same_span, j - 1, d);
        }
        for (int d = 0; d < 2; d++)
            if (l->limit[d] > 0 && sum[d] + need[d] > l->limit[d])
                last_bad = j;
        if (j >= k0 && last_bad < j - B)
            return j == k0 ? start : start_of(j, span);
    }
    *retry_ms = start_of(k_now + 1, span) - now_ms;
    return start_of(k_max + 1, span);
}

int64_t lg_window_reserve(lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t at_ms)
{
    int64_t span = lg_window_span_ms(l);
    if (w->span_ms != span) {
        memset(w->ring, 0, sizeof w->ring);
        w->span_ms = span;
    }
    int64_t e = epoch_of(at_ms, span);
    lg_bucket *b = &w->ring[ring_index(e)];
    if (b->epoch != e) {
        b->epoch = e;
        b->requests = b->tokens = 0;
    }
    int64_t need[2] = {1, tokens > 0 ? tokens : 0};
    b->requests += need[0];
    b->tokens += need[1];
    for (int d = 0; d < 2; d++) {
        if (LG_UNLIKELY(w->cap_until_ms[d] > at_ms)) /* a provider's cap in force: rare */
            w->cap_left[d] = w->cap_left[d] > need[d] ? w->cap_left[d] - need[d] : 0;
        w->limit[d] = l->limit[d];
    }
    w->window_ms = l->window_ms;
    return e;
}

void lg_window_adjust(lg_window *w, int64_t ticket, int64_t d_requests, int64_t d_tokens)
{
    lg_bucket *b = &w->ring[ring_index(ticket)];
    if (w->span_ms <= 0 || b->epoch != ticket)
        return;
    b->requests = b->requests + d_requests > 0 ? b->requests + d_requests : 0;
    b->tokens = b->tokens + d_tokens > 0 ? b->tokens + d_tokens : 0;
}

void lg_window_usage(const lg_window *w, int64_t now_ms, int64_t *requests, int64_t *tokens,
                     int64_t *reserved_requests)
{
    int64_t r = 0, t = 0, ahead = 0;
    if (w->span_ms > 0 && w->window_ms > 0) {
        int64_t k_now = epoch_of(now_ms, w->span_ms);
        for (int64_t e = epoch_of(now_ms - w->window_ms + 1, w->span_ms); e <= k_now; e++) {
            const lg_bucket *b = bucket_at(w, e);
            if (b) {
                r += b->requests;
                t += b->tokens;
            }
        }
        for (int64_t e = k_now + 1; e <= k_now + AHEAD; e++) {
            const lg_bucket *b = bucket_at(w, e);
            if (b)
                ahead += b->requests;
        }
    }
    if (requests)
        *requests = r;
    if (tokens)
        *tokens = t;
    if (reserved_requests)
        *reserved_requests = ahead;
}

void lg_window_learn(lg_window *w, const lg_ratelimit_info *info, int64_t now_ms)
{
    for (int d = 0; d < 2; d++) {
        if (info->limit[d] > 0)
            w->learned_limit[d] = info->limit[d];
        if (info->remaining[d] >= 0 && info->reset_ms[d] > 0) {
            w->cap_left[d] = info->remaining[d];
            w->cap_until_ms[d] = now_ms + info->reset_ms[d];
        }
    }
}
