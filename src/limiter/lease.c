/* Leases of a Redis window's buckets (include/llmgate/lease.h): pure bookkeeping on the machine's clock. */
#include <string.h>

#include "llmgate/lease.h"
#include "llmgate/limiter.h"

int64_t lg_lease_bucket_start(const lg_lease *l, int j)
{
    return lg_window_bucket_start(l->epoch + j, l->span_ms) - l->skew_ms;
}

/* When bucket j's requests may go on the machine's clock: from its start plus the skew's error ... */
static int64_t bucket_open(const lg_lease *l, int j)
{
    return lg_lease_bucket_start(l, j) + l->skew_err_ms;
}

/* ... until the next bucket's start less it (not included). */
static int64_t bucket_close(const lg_lease *l, int j)
{
    return lg_lease_bucket_start(l, j + 1) - l->skew_err_ms;
}

/* A bucket of the lease that can hold a request of `tokens` at now_ms (its time not over, a request and the
 * tokens left). */
static bool bucket_fits(const lg_lease *l, int j, int64_t tokens, int64_t now_ms)
{
    int64_t close = bucket_close(l, j);
    return close > now_ms && close > bucket_open(l, j) && l->requests[j] >= 1 &&
           (!l->tokens_limited || l->tokens[j] >= tokens);
}

int64_t lg_lease_room(const lg_lease *l, int64_t tokens, int64_t now_ms, int64_t *at_ms)
{
    int64_t room = 0;
    for (int j = 0; l->id != 0 && j < l->n; j++) {
        if (!bucket_fits(l, j, tokens, now_ms))
            continue;
        if (room == 0) {
            int64_t start = bucket_open(l, j);
            *at_ms = start > now_ms ? start : now_ms;
        }
        room += l->requests[j];
    }
    return room;
}

lg_lease_take_result lg_lease_take(lg_lease *l, int64_t tokens, int64_t now_ms, int64_t deadline_ms,
                                   int64_t *at_ms, int *bucket)
{
    for (int j = 0; l->id != 0 && j < l->n; j++) {
        if (!bucket_fits(l, j, tokens, now_ms))
            continue;
        int64_t start = bucket_open(l, j);
        int64_t at = start > now_ms ? start : now_ms;
        if (at > deadline_ms)
            return LG_LEASE_LATE;
        l->requests[j]--;
        l->tokens[j] -= tokens;
        l->used++;
        *at_ms = at;
        *bucket = j;
        return LG_LEASE_TAKEN;
    }
    return LG_LEASE_EMPTY;
}

void lg_lease_give_back(lg_lease *l, int64_t id, int bucket, int64_t tokens)
{
    if (id == 0 || l->id != id || bucket < 0 || bucket >= l->n)
        return;
    l->requests[bucket]++;
    l->tokens[bucket] += tokens;
    if (l->used > 0)
        l->used--;
}

void lg_lease_settle(lg_lease *l, int64_t id, int bucket, int64_t dk)
{
    if (id != 0 && l->id == id && bucket >= 0 && bucket < l->n)
        l->tokens[bucket] -= dk;
}

bool lg_lease_begin_ask(lg_lease *l, int64_t now_ms, lg_lease_return *ret)
{
    if (l->asking_until_ms > now_ms)
        return false;
    l->asking_until_ms = now_ms + LG_LEASE_ASK_MS;
    memset(ret, 0, sizeof *ret);
    ret->epoch = l->epoch;
    ret->n = l->id != 0 ? l->n : 0;
    for (int j = 0; j < ret->n; j++) {
        ret->requests[j] = l->requests[j];
        ret->tokens[j] = l->tokens[j];
        l->requests[j] = l->tokens[j] = 0;
    }
    memcpy(ret->counters, l->pending, sizeof ret->counters);
    memset(l->pending, 0, sizeof l->pending);
    return true;
}

void lg_lease_ask_failed(lg_lease *l, const lg_lease_return *ret)
{
    l->asking_until_ms = 0;
    for (int i = 0; i < 3; i++)
        l->pending[i] += ret->counters[i];
    if (l->id == 0 || l->epoch != ret->epoch || l->n != ret->n)
        return;
    for (int j = 0; j < ret->n; j++) {
        l->requests[j] += ret->requests[j];
        l->tokens[j] += ret->tokens[j];
    }
}

void lg_lease_ask_given_back(lg_lease *l, int64_t not_before_ms)
{
    l->asking_until_ms = not_before_ms;
}

int64_t lg_lease_ask_size(const lg_lease *l, int64_t cap)
{
    int64_t want = l->id != 0 ? 2 * l->used : cap;
    if (want > cap)
        want = cap;
    return want > 0 ? want : 1;
}

void lg_lease_grant(lg_lease *l, int64_t now_ms, int64_t skew_ms, int64_t skew_err_ms, int64_t span_ms,
                    int64_t epoch, int n, const int64_t *requests, const int64_t *tokens, bool tokens_limited)
{
    int64_t pending[3], learned[2], id = l->id + 1;
    lg_store_owner takers[LG_LEASE_TAKERS];
    if (l->id != 0) {
        int64_t since = now_ms > l->granted_ms ? now_ms - l->granted_ms : 0;
        int64_t aged = (since + LG_LEASE_DRIFT_MS - 1) / LG_LEASE_DRIFT_MS;
        if (l->skew_err_ms + aged < skew_err_ms)
            skew_ms = l->skew_ms, skew_err_ms = l->skew_err_ms + aged;
    }
    memcpy(pending, l->pending, sizeof pending);
    memcpy(learned, l->learned, sizeof learned);
    memcpy(takers, l->takers, sizeof takers);
    memset(l, 0, sizeof *l);
    l->id = id;
    l->epoch = epoch;
    l->span_ms = span_ms > 0 ? span_ms : 1;
    l->skew_ms = skew_ms;
    l->skew_err_ms = skew_err_ms > 0 ? skew_err_ms : 0;
    l->granted_ms = now_ms;
    l->n = n < 0 ? 0 : n > LG_LEASE_BUCKETS ? LG_LEASE_BUCKETS : n;
    l->tokens_limited = tokens_limited;
    for (int j = 0; j < l->n; j++) {
        l->requests[j] = requests[j];
        l->tokens[j] = tokens[j];
    }
    memcpy(l->pending, pending, sizeof pending);
    memcpy(l->learned, learned, sizeof learned);
    memcpy(l->takers, takers, sizeof takers);
}

/* True when a and b are the same process (a pid reused by a later process is another one). */
static bool same_owner(const lg_store_owner *a, const lg_store_owner *b)
{
    return a->pid == b->pid && a->start == b->start;
}

bool lg_lease_note_taker(lg_lease *l, const lg_store_owner *me, lg_owner_alive_fn alive, void *ctx)
{
    int free_at = -1;
    for (int i = 0; i < LG_LEASE_TAKERS; i++) {
        if (same_owner(&l->takers[i], me))
            return false;
        if (free_at < 0 && l->takers[i].pid == 0)
            free_at = i;
    }
    for (int i = 0; free_at < 0 && i < LG_LEASE_TAKERS; i++)
        if (!alive(&l->takers[i], ctx))
            free_at = i;
    if (free_at < 0)
        return false;
    l->takers[free_at] = *me;
    return true;
}

bool lg_lease_last_taker(lg_lease *l, const lg_store_owner *me, lg_owner_alive_fn alive, void *ctx)
{
    bool was = false, others = false;
    for (int i = 0; i < LG_LEASE_TAKERS; i++) {
        if (same_owner(&l->takers[i], me)) {
            l->takers[i] = (lg_store_owner){0};
            was = true;
        } else if (l->takers[i].pid != 0 && !others) {
            others = alive(&l->takers[i], ctx);
        }
    }
    return was && !others;
}
