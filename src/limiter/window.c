/* The sliding window of one account (see limiter.h): sub-buckets counted conservatively. An admission is
 * placed in the bucket of its time; a window of window+margin ms touches at most B+1 consecutive buckets
 * (B = LG_WINDOW_BUCKETS), so keeping every run of B+1 buckets within the limits keeps every real window
 * within them, whatever the times inside the buckets were. The cost is at most one bucket of delay, less
 * where times are known exactly: a place reserved ahead is at its bucket's first ms, and a bucket holding
 * only such places is marked (at_start), so that a place a span later (B buckets on) need not count it, nor
 * the bucket a span after a place at its own start. The window keeps the sums of one run and the highest
 * bucket used, so that an admission that fits is decided without sliding over every run
 * (lg_window_earliest), exactly as the scan decides. */
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

int64_t lg_window_bucket_start(int64_t k, int64_t span)
{
    int64_t x = k * span;
    int64_t q = x / B;
    return (x % B != 0 && x > 0) ? q + 1 : q;
}

static int64_t start_of(int64_t k, int64_t span) { return lg_window_bucket_start(k, span); }

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

/* Whether every place of bucket e is at its first ms (false when the ring does not hold it or was filled for
 * another span). */
static bool starts_only(const lg_window *w, bool same_span, int64_t e)
{
    int64_t i = ring_index(e);
    return same_span && w->ring[i].epoch == e && (w->at_start[i / 64] >> (i % 64) & 1);
}

/* Marks (or unmarks) ring slot of bucket e as holding places at its first ms only. */
static void mark_starts(lg_window *w, int64_t e, bool on)
{
    int64_t i = ring_index(e);
    uint64_t bit = UINT64_C(1) << (i % 64);
    w->at_start[i / 64] = on ? w->at_start[i / 64] | bit : w->at_start[i / 64] & ~bit;
}

/* Requests or tokens of bucket e (0 when the ring does not hold it or was filled for another span). */
static int64_t bucket_val(const lg_window *w, bool same_span, int64_t e, int d)
{
    const lg_bucket *b = same_span ? bucket_at(w, e) : NULL;
    return !b ? 0 : d == LG_DIM_REQUESTS ? b->requests : b->tokens;
}

/* Adds bucket e's requests and tokens, times sign, to s. */
static void add_bucket(const lg_window *w, int64_t e, int64_t sign, int64_t s[2])
{
    const lg_bucket *b = bucket_at(w, e);
    if (b) {
        s[0] += sign * b->requests;
        s[1] += sign * b->tokens;
    }
}

/* Requests and tokens of the run [k - B, k] as the ring holds it, from the running sums: slid a bucket at a
 * time when k lies within B buckets of their run, else summed afresh (once after a pause). */
static void run_sums(const lg_window *w, int64_t k, int64_t s[2])
{
    int64_t e = w->run_end;
    s[0] = w->run_sum[0];
    s[1] = w->run_sum[1];
    if (LG_UNLIKELY(k - e > B || e - k > B)) {
        s[0] = s[1] = 0;
        for (int64_t x = k - B; x <= k; x++)
            add_bucket(w, x, 1, s);
        return;
    }
    for (; e < k; e++) {
        add_bucket(w, e + 1, 1, s);
        add_bucket(w, e - B, -1, s);
    }
    for (; e > k; e--) {
        add_bucket(w, e, -1, s);
        add_bucket(w, e - B - 1, 1, s);
    }
}

/* Counts a change of bucket e by (dr, dt) in the running sums when e lies in their run. */
static void run_note(lg_window *w, int64_t e, int64_t dr, int64_t dt)
{
    if (e <= w->run_end && e >= w->run_end - B) {
        w->run_sum[0] += dr;
        w->run_sum[1] += dt;
    }
}

/* What both forms of lg_window_earliest start from: the start (caps applied), the need, the buckets. */
typedef struct {
    int64_t span, start, need[2], k_now, k_max, k0;
} lg_ask;

/* Fills a; true when the answer is known without the buckets (beyond the horizon, or no limit): *at. */
static inline bool ask_of(const lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t now_ms,
                          int64_t not_before_ms, lg_ask *a, int64_t *at, int64_t *retry_ms)
{
    a->span = lg_window_span_ms(l);
    a->start = not_before_ms > now_ms ? not_before_ms : now_ms;
    a->need[0] = 1;
    a->need[1] = tokens > 0 ? tokens : 0;
    if (l->limit[LG_DIM_TOKENS] > 0 && a->need[1] > l->limit[LG_DIM_TOKENS])
        a->need[1] = l->limit[LG_DIM_TOKENS];
    for (int d = 0; d < 2; d++) /* a provider cap that cannot cover this request: not before its reset */
        if (w->cap_until_ms[d] > a->start && w->cap_left[d] < a->need[d])
            a->start = w->cap_until_ms[d];
    a->k_now = epoch_of(now_ms, a->span);
    a->k_max = a->k_now + AHEAD;
    a->k0 = epoch_of(a->start, a->span);
    *retry_ms = 0;
    *at = a->start;
    if (a->k0 > a->k_max) {
        *retry_ms = start_of(a->k0 - AHEAD, a->span) - now_ms;
        return true;
    }
    return l->limit[0] <= 0 && l->limit[1] <= 0;
}

/* The scan: slides over the runs [j, j+B] for j = k0-B ... k_max. Bucket k fits at t (the start for k0, else
 * k's first ms) when none of the B+1 runs that contain it (j = k-B ... k) would go over a limit with the
 * request added, except run k-B when bucket k-B holds places at its first ms only (a span or more before t:
 * no window through t holds them) and run k when t is k's first ms (its last bucket begins a span after t).
 * last_bad: the last run found over a limit so far; before: the last among the runs before j. */
static int64_t scan(const lg_window *w, const lg_window_limits *l, const lg_ask *a, int64_t now_ms,
                    int64_t *retry_ms)
{
    int64_t k0 = a->k0, span = a->span;
    bool same_span = w->span_ms == span;
    int64_t sum[2] = {0, 0}, last_bad = k0 - B - 1;
    for (int d = 0; d < 2; d++)
        for (int64_t e = k0 - B; e < k0; e++)
            sum[d] += bucket_val(w, same_span, e, d);
    for (int64_t j = k0 - B; j <= a->k_max; j++) {
        int64_t before = last_bad; /* the last run over a limit among those before j */
        for (int d = 0; d < 2; d++) { /* sum becomes the run [j, j+B] */
            sum[d] += bucket_val(w, same_span, j + B, d);
            if (j > k0 - B)
                sum[d] -= bucket_val(w, same_span, j - 1, d);
        }
        for (int d = 0; d < 2; d++)
            if (l->limit[d] > 0 && sum[d] + a->need[d] > l->limit[d])
                last_bad = j;
        if (j < k0)
            continue;
        int64_t t = j == k0 ? a->start : start_of(j, span);
        if ((before < j - B || (before == j - B && starts_only(w, same_span, j - B))) &&
            (last_bad != j || t == start_of(j, span)))
            return t;
    }
    *retry_ms = start_of(a->k_now + 1, span) - now_ms;
    return start_of(a->k_max + 1, span);
}

int64_t lg_window_earliest_scan(const lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t now_ms,
                                int64_t not_before_ms, int64_t *retry_ms)
{
    lg_ask a;
    int64_t at;
    return ask_of(w, l, tokens, now_ms, not_before_ms, &a, &at, retry_ms) ? at : scan(w, l, &a, now_ms, retry_ms);
}

/* The common case without a scan: nothing lies after the start's bucket k0 (w->top <= k0), so of the runs
 * that contain k0 the fullest is [k0 - B, k0], whose sums the running sums give (less bucket k0 - B when it
 * holds places at its first ms only: then the fullest that counts is [k0 - B + 1, k0]); when the request
 * fits in it, it fits in them all and the scan would answer the start too. Otherwise the scan decides. */
int64_t lg_window_earliest(const lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t now_ms,
                           int64_t not_before_ms, int64_t *retry_ms)
{
    lg_ask a;
    int64_t at;
    if (ask_of(w, l, tokens, now_ms, not_before_ms, &a, &at, retry_ms))
        return at;
    if (LG_LIKELY(w->span_ms == a.span && w->top <= a.k0)) {
        int64_t s[2];
        run_sums(w, a.k0, s);
        if (starts_only(w, true, a.k0 - B))
            add_bucket(w, a.k0 - B, -1, s);
        if ((l->limit[0] <= 0 || s[0] + a.need[0] <= l->limit[0]) &&
            (l->limit[1] <= 0 || s[1] + a.need[1] <= l->limit[1]))
            return a.start;
    }
    return scan(w, l, &a, now_ms, retry_ms);
}

/* The slot of bucket e, emptied (and its old bucket taken out of the running sums, its mark dropped) when it
 * held another. */
static lg_bucket *bucket_for(lg_window *w, int64_t e)
{
    lg_bucket *b = &w->ring[ring_index(e)];
    if (b->epoch != e) {
        run_note(w, b->epoch, -b->requests, -b->tokens);
        *b = (lg_bucket){.epoch = e};
        mark_starts(w, e, false);
    }
    return b;
}

int64_t lg_window_reserve(lg_window *w, const lg_window_limits *l, int64_t tokens, int64_t at_ms)
{
    int64_t span = lg_window_span_ms(l);
    if (w->span_ms != span) {
        memset(w->ring, 0, sizeof w->ring);
        memset(w->at_start, 0, sizeof w->at_start);
        w->span_ms = span;
        w->run_end = w->top = 0; /* an empty ring: any run sums to zero */
        w->run_sum[0] = w->run_sum[1] = 0;
    }
    int64_t e = epoch_of(at_ms, span);
    if (e > w->run_end) { /* the sums follow the latest bucket used */
        run_sums(w, e, w->run_sum);
        w->run_end = e;
    }
    lg_bucket *b = bucket_for(w, e);
    /* a place at the bucket's first ms keeps it marked (an empty bucket counts as marked); any other, never */
    mark_starts(w, e, at_ms == start_of(e, span) && ((!b->requests && !b->tokens) || starts_only(w, true, e)));
    int64_t need[2] = {1, tokens > 0 ? tokens : 0};
    b->requests += need[0];
    b->tokens += need[1];
    run_note(w, e, need[0], need[1]);
    if (e > w->top)
        w->top = e;
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
    int64_t r = b->requests + d_requests > 0 ? b->requests + d_requests : 0;
    int64_t t = b->tokens + d_tokens > 0 ? b->tokens + d_tokens : 0;
    run_note(w, ticket, r - b->requests, t - b->tokens);
    b->requests = r;
    b->tokens = t;
}

void lg_window_set_bucket(lg_window *w, int64_t epoch, int dim, int64_t v)
{
    lg_bucket *b = &w->ring[ring_index(epoch)];
    if (b->epoch != epoch && b->epoch > epoch && (b->requests || b->tokens))
        return; /* a newer bucket holds this place */
    b = bucket_for(w, epoch);
    mark_starts(w, epoch, false); /* the other store's times are not known */
    int64_t *x = dim == LG_DIM_REQUESTS ? &b->requests : &b->tokens;
    run_note(w, epoch, dim == LG_DIM_REQUESTS ? v - *x : 0, dim == LG_DIM_REQUESTS ? 0 : v - *x);
    *x = v;
    if (epoch > w->top)
        w->top = epoch;
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
