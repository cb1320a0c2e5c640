/* The redis backend's leases (src/store/redis_lease.h; the bookkeeping is src/limiter/lease.c's): each
 * account's lease lives in its slot of the machine's store and is used under that store's lock; a process
 * whose request finds no lease with room asks Redis (script op "lease") for a grant on the eligible accounts
 * whose leases are empty, one call for them all. At exit, the last process of the machine using an account's
 * lease gives its unused part back (lg_redis_lease_exit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llmgate/clock.h"
#include "llmgate/lease.h"
#include "llmgate/limiter.h"
#include "llmgate/policy.h"
#include "store/redis_call.h"
#include "store/owner.h"
#include "store/redis_lease.h"
#include "store/shm.h"

#define LEASE_BUSY_MS 3 /* another process of the machine asks Redis for a grant: ask again after this */
#define ASK_MAX 4       /* accounts one grant call asks for */

typedef enum { LEASE_NO, LEASE_TAKEN, LEASE_KEPT, LEASE_ASK, LEASE_BUSY } lease_step;

/* One step on the scope's leases under the local store's lock. */
typedef struct {
    size_t n;                 /* the scope's accounts */
    const char *eligible;     /* per account '1': usable and ready by the states last seen */
    size_t first;             /* where the round-robin over the accounts starts */
    size_t idx;               /* LEASE_TAKEN: the account; lease_back_fn: the ticket's */
    const lg_store_ticket *held; /* a lease's place the request holds (NULL: none): kept (LEASE_KEPT) unless
                                    a sooner one is found, then given back to its lease */
    bool gave;                /* the place held was given back */
    int64_t tokens, now_ms, deadline_ms, span_ms;
    int64_t cap;              /* the most requests one grant is asked for (ask_cap) */
    int count;                /* the pending counter to count on a request admitted now (-1: none) */
    bool noted;               /* LEASE_TAKEN: this process became a taker of the account's leases */
    lease_step step;          /* result */
    int64_t at_ms, id;        /* LEASE_TAKEN: when it goes, from which lease ... (LEASE_BUSY after a grant
                                 refused as too far ahead: when the soonest place begins) */
    int bucket;               /* ... and bucket */
    int nc;                   /* LEASE_ASK: the accounts asked for ... */
    size_t cand[ASK_MAX];
    int64_t ask[ASK_MAX];     /* ... requests per bucket asked for each ... */
    lg_lease_return ret[ASK_MAX]; /* ... and what the call gives back of each */
    const redisReply *r;      /* grant: Redis's reply (NULL: the call failed) */
    int64_t skew_ms;          /* grant: Redis's clock minus the machine's */
    int64_t skew_err_ms;      /* how far skew_ms may be off: half the call's round trip, the clocks' ms */
    int64_t retry_ms;         /* LEASE_BUSY: ask again after this (0: LEASE_BUSY_MS) */
    bool tokens_limited;
    enum { BACK_NONE, BACK_GIVE, BACK_SETTLE } back; /* lease_back_fn: the place given back (tokens) or
                                                        settled by dk tokens more */
    int64_t dk;
    const int64_t *learn; /* lease_back_fn with count >= 0: the provider's limits a response reported (NULL:
                             none); not counted (count = -1 after) when Redis was not told them yet */
} lease_ctx;

/* The eligible account whose lease has room for this request soonest by the deadline (the most room among
 * equals), from the round-robin start; -1 when none has. */
static long pick(lg_account_slot *const *acc, const lease_ctx *x, int64_t *at_ms)
{
    long best = -1;
    int64_t best_room = 0;
    for (size_t k = 0; k < x->n; k++) {
        size_t i = (x->first + k) % x->n;
        int64_t at = 0, room = x->eligible[i] == '1' ? lg_lease_room(&acc[i]->lease, x->tokens, x->now_ms, &at) : 0;
        if (room == 0 || at > x->deadline_ms)
            continue;
        if (best < 0 || at < *at_ms || (at == *at_ms && room > best_room)) {
            best = (long)i;
            *at_ms = at;
            best_room = room;
        }
    }
    return best;
}

/* Takes this request's place from account i's lease (LEASE_TAKEN), counting its counter when it goes now. */
static void take(lg_account_slot *const *acc, size_t i, lease_ctx *x)
{
    lg_lease *l = &acc[i]->lease;
    if (lg_lease_take(l, x->tokens, x->now_ms, x->deadline_ms, &x->at_ms, &x->bucket) != LG_LEASE_TAKEN) {
        x->step = LEASE_NO;
        return;
    }
    x->step = LEASE_TAKEN;
    x->idx = i;
    x->id = l->id;
    x->noted = lg_lease_note_taker(l, lg_owner_self(), lg_owner_alive, NULL);
    if (x->count >= 0 && x->at_ms <= x->now_ms)
        l->pending[x->count]++;
}

/* The request's place: account best's at `at` (best -1: none) when the request holds no place, or holds
 * one that goes later and came from its account's lease still in force (given back to it); else the place
 * held stays (LEASE_KEPT; one of a lease since replaced is never given back: its room would be lost). */
static void take_sooner(lg_account_slot *const *acc, long best, int64_t at, lease_ctx *x)
{
    const lg_store_ticket *h = x->held;
    if (h && (best < 0 || at >= h->at_ms || acc[h->account]->lease.id != h->lease)) {
        x->step = LEASE_KEPT;
        return;
    }
    if (h) {
        lg_lease_give_back(&acc[h->account]->lease, h->lease, (int)h->bucket, h->tokens);
        x->gave = true;
    }
    if (best >= 0)
        take(acc, (size_t)best, x);
    else
        x->step = LEASE_NO;
}

/* Under the lock: a place from a lease with room now; else this process's turn to ask for a grant on the
 * eligible accounts whose leases are empty (up to ASK_MAX; an account Redis granted nothing is not asked
 * for again for a sixteenth of its window); else a place later in a lease, or another process asks already
 * (LEASE_BUSY). */
static void lease_try_fn(lg_provider_slot *p, lg_account_slot *const *acc, size_t n, void *ctx)
{
    (void)p, (void)n;
    lease_ctx *x = ctx;
    int64_t at = 0;
    long best = pick(acc, x, &at);
    if (best >= 0 && at <= x->now_ms) {
        take_sooner(acc, best, at, x);
        return;
    }
    bool busy = false;
    x->nc = 0;
    for (size_t k = 0; k < x->n && x->nc < ASK_MAX; k++) {
        size_t i = (x->first + k) % x->n;
        lg_lease *l = &acc[i]->lease;
        int64_t t;
        if (x->eligible[i] != '1' || lg_lease_room(l, x->tokens, x->now_ms, &t) > 0)
            continue;
        if (!lg_lease_begin_ask(l, x->now_ms, &x->ret[x->nc])) {
            busy = true;
            continue;
        }
        x->ask[x->nc] = lg_lease_ask_size(l, x->cap);
        x->cand[x->nc++] = i;
    }
    if (x->nc > 0)
        x->step = LEASE_ASK;
    else if (best >= 0 || x->held)
        take_sooner(acc, best, at, x);
    else
        x->step = busy ? LEASE_BUSY : LEASE_NO;
}

/* Under the lock: the grant in Redis's reply installed on the account it names (the other accounts asked for
 * gave back what they carried), or, the call failed, what each carried put back; then this request's place
 * from the lease with room soonest. Redis granted nothing because the soonest place is too far ahead: no
 * process of the machine asks before Redis said, and this one waits until then (LEASE_BUSY). */
static void lease_grant_fn(lg_provider_slot *p, lg_account_slot *const *acc, size_t n, void *ctx)
{
    (void)p, (void)n;
    lease_ctx *x = ctx;
    long granted = x->r && lg_redis_int_at(x->r, 2) > 0 ? lg_redis_int_at(x->r, 1) : -1;
    /* Redis's "ask again at" on this clock, the skew's error after it: asked sooner, Redis may refuse again */
    int64_t again = x->r && granted < 0 && lg_redis_int_at(x->r, 3) > 0
                        ? lg_redis_int_at(x->r, 3) - x->skew_ms + x->skew_err_ms
                        : 0;
    for (int c = 0; c < x->nc; c++) {
        lg_lease *l = &acc[x->cand[c]]->lease;
        if (!x->r) {
            lg_lease_ask_failed(l, &x->ret[c]);
        } else if ((long)x->cand[c] != granted) {
            lg_lease_ask_given_back(l, again > x->now_ms ? again : x->now_ms + x->span_ms / 16);
        } else {
            int64_t q[LG_LEASE_BUCKETS], k[LG_LEASE_BUCKETS];
            for (int j = 0; j < LG_LEASE_BUCKETS; j++) {
                q[j] = lg_redis_int_at(x->r, 5 + 2 * (size_t)j);
                k[j] = lg_redis_int_at(x->r, 6 + 2 * (size_t)j);
            }
            lg_lease_grant(l, x->now_ms, x->skew_ms, x->skew_err_ms, lg_redis_int_at(x->r, 4),
                           lg_redis_int_at(x->r, 3), (int)lg_redis_int_at(x->r, 2), q, k, x->tokens_limited);
        }
    }
    int64_t at = 0;
    long best = pick(acc, x, &at);
    if (best >= 0 || x->held) {
        take_sooner(acc, best, at, x);
    } else if (again > x->now_ms) {
        x->step = LEASE_BUSY;
        x->retry_ms = again - x->now_ms;
        x->at_ms = lg_redis_int_at(x->r, 4) - x->skew_ms;
    } else {
        x->step = LEASE_NO;
    }
}

/* Under the lock: the place x->id / x->bucket of account x->idx given back or settled (x->back), then the
 * counter x->count counted (>= 0). */
static void lease_back_fn(lg_provider_slot *p, lg_account_slot *const *acc, size_t n, void *ctx)
{
    (void)p, (void)n;
    lease_ctx *x = ctx;
    lg_lease *l = &acc[x->idx]->lease;
    if (x->back == BACK_GIVE)
        lg_lease_give_back(l, x->id, x->bucket, x->tokens);
    else if (x->back == BACK_SETTLE)
        lg_lease_settle(l, x->id, x->bucket, x->dk);
    for (int d = 0; x->count >= 0 && x->learn && d < 2; d++)
        if (x->learn[d] > 0 && x->learn[d] != l->learned[d]) {
            memcpy(l->learned, x->learn, sizeof l->learned); /* the record script tells Redis */
            x->count = -1;
        }
    if (x->count >= 0)
        l->pending[x->count]++;
}

void lg_redis_lease_give_back(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t)
{
    lease_ctx x = {.idx = t->account, .id = t->lease, .bucket = (int)t->bucket, .tokens = t->tokens, .count = -1,
                   .back = BACK_GIVE};
    lg_shm_with_scope(s->local, sc, lease_back_fn, &x);
    t->held = false;
    t->lease = 0;
}

bool lg_redis_leased(const redis_store *s, const lg_store_ticket *t)
{
    return t->held && t->lease != 0 && t->owner == s;
}

/* Asks Redis for a grant on the accounts x->cand (script op "lease"), giving back what each carried (x->ret);
 * NULL when the call failed (the connection is then given back). */
static redisReply *lease_call(redis_store *s, conn *c, const lg_store_scope *sc, const lease_ctx *x, int64_t longest_ms)
{
    lg_redis_args a = {0};
    lg_redis_window_head(s, &a, sc, "lease");
    lg_redis_arg(&a, "%lld", (long long)x->tokens);
    lg_redis_arg(&a, "%.17g", sc->jitter);
    lg_redis_arg(&a, "%lld", (long long)longest_ms);
    lg_redis_arg(&a, "%s", s->machine);
    for (int i = 0; i < x->nc; i++) {
        const lg_lease_return *ret = &x->ret[i];
        char back[LG_LEASE_BUCKETS * 48 + 32] = "none";
        bool any = false; /* a lease used up gives back nothing: "none" */
        for (int j = 0; j < ret->n; j++)
            any = any || ret->requests[j] != 0 || ret->tokens[j] != 0;
        size_t len = any ? (size_t)snprintf(back, sizeof back, "%lld;", (long long)ret->epoch) : 0;
        for (int j = 0; any && j < ret->n && len < sizeof back; j++)
            len += (size_t)snprintf(back + len, sizeof back - len, "%lld,%lld;", (long long)ret->requests[j],
                                    (long long)ret->tokens[j]);
        lg_redis_arg(&a, "%zu", x->cand[i]);
        lg_redis_arg(&a, "%lld", (long long)x->ask[i]);
        lg_redis_arg(&a, "%s", back);
        lg_redis_arg(&a, "%lld,%lld,%lld", (long long)ret->counters[0], (long long)ret->counters[1],
                     (long long)ret->counters[2]);
    }
    return lg_redis_exchange(s, c, &a, 5 + 2 * LG_LEASE_BUCKETS + LG_REDIS_STATE_FIELDS * sc->n);
}

/* The scopes whose leases this process took places from, copied (an exchange's scope is gone by the exit),
 * for lg_redis_lease_exit; claimed without a lock (a fork child inherits them as they are). */
#define EXIT_SCOPES 8
typedef struct {
    bool ready;          /* filled (atomic) */
    redis_store *s;
    lg_store_scope sc;   /* provider, refs (own copies), n and limits */
    int64_t longest_ms;  /* lg_policy_longest_cooldown_ms of its backoff */
} exit_scope;
static exit_scope exit_scopes[EXIT_SCOPES];
static size_t exit_claimed;

/* True when e is the scope sc of store s. */
static bool same_scope(const exit_scope *e, const redis_store *s, const lg_store_scope *sc)
{
    if (!__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) || e->s != s || e->sc.n != sc->n ||
        strcmp(e->sc.provider, sc->provider))
        return false;
    for (size_t i = 0; i < sc->n; i++)
        if (strcmp(e->sc.refs[i].name, sc->refs[i].name) ||
            strcmp(e->sc.refs[i].digest ? e->sc.refs[i].digest : "", sc->refs[i].digest ? sc->refs[i].digest : ""))
            return false;
    return true;
}

/* Remembers sc for the exit (once per scope; nothing when EXIT_SCOPES are taken or memory is short). */
static void note_exit_scope(redis_store *s, const lg_store_scope *sc)
{
    size_t used = __atomic_load_n(&exit_claimed, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < used && i < EXIT_SCOPES; i++)
        if (same_scope(&exit_scopes[i], s, sc))
            return;
    lg_account_ref *refs = calloc(sc->n, sizeof *refs);
    char *provider = strdup(sc->provider);
    bool ok = refs && provider;
    for (size_t i = 0; ok && i < sc->n; i++) {
        refs[i].name = strdup(sc->refs[i].name);
        refs[i].digest = strdup(sc->refs[i].digest ? sc->refs[i].digest : "");
        ok = refs[i].name && refs[i].digest;
    }
    size_t at = ok ? __atomic_fetch_add(&exit_claimed, 1, __ATOMIC_ACQ_REL) : EXIT_SCOPES;
    if (at >= EXIT_SCOPES) {
        for (size_t i = 0; refs && i < sc->n; i++) {
            free((char *)refs[i].name);
            free((char *)refs[i].digest);
        }
        free(refs);
        free(provider);
        return;
    }
    exit_scope *e = &exit_scopes[at];
    e->s = s;
    e->sc = (lg_store_scope){.provider = provider, .refs = refs, .n = sc->n, .limits = sc->limits};
    e->longest_ms = lg_policy_longest_cooldown_ms(sc->backoff);
    __atomic_store_n(&e->ready, true, __ATOMIC_RELEASE);
}

/* Under the lock, at this process's exit: the accounts whose leases it was the last live taker of (up to
 * ASK_MAX) hand their unused part and counters to the call (x->ret), asking for nothing. */
static void lease_exit_fn(lg_provider_slot *p, lg_account_slot *const *acc, size_t n, void *ctx)
{
    (void)p;
    lease_ctx *x = ctx;
    const lg_store_owner *me = lg_owner_self();
    x->nc = 0;
    for (size_t i = 0; i < n; i++) {
        lg_lease *l = &acc[i]->lease;
        if (lg_lease_last_taker(l, me, lg_owner_alive, NULL) && l->id != 0 && x->nc < ASK_MAX &&
            lg_lease_begin_ask(l, x->now_ms, &x->ret[x->nc])) {
            x->ask[x->nc] = 0;
            x->cand[x->nc++] = i;
        }
    }
}

/* Under the lock, after the exit's call: each account's turn ended (what it carried back in its lease when
 * the call failed). */
static void lease_exit_done_fn(lg_provider_slot *p, lg_account_slot *const *acc, size_t n, void *ctx)
{
    (void)p, (void)n;
    lease_ctx *x = ctx;
    for (int c = 0; c < x->nc; c++) {
        lg_lease *l = &acc[x->cand[c]]->lease;
        if (x->r)
            lg_lease_ask_given_back(l, 0);
        else
            lg_lease_ask_failed(l, &x->ret[c]);
    }
}

void lg_redis_lease_exit(redis_store *s)
{
    size_t used = __atomic_load_n(&exit_claimed, __ATOMIC_ACQUIRE);
    for (size_t i = 0; s->local && i < used && i < EXIT_SCOPES; i++) {
        exit_scope *e = &exit_scopes[i];
        if (!__atomic_load_n(&e->ready, __ATOMIC_ACQUIRE) || e->s != s)
            continue;
        lease_ctx x = {.n = e->sc.n, .now_ms = lg_now_ms()};
        if (lg_shm_with_scope(s->local, &e->sc, lease_exit_fn, &x) != 0 || x.nc == 0)
            continue;
        conn *c = lg_redis_get_conn(s);
        redisReply *r = c ? lease_call(s, c, &e->sc, &x, e->longest_ms) : NULL;
        x.r = r;
        lg_shm_with_scope(s->local, &e->sc, lease_exit_done_fn, &x);
        if (r) {
            s->api->free_reply(r);
            lg_redis_put_conn(s, c, true, NULL);
        }
    }
}

/* The most requests a grant is asked for: a quarter of the window's requests (twice the share Redis grants
 * before a machine's fair share is counted), or of the requests its tokens allow when only tokens are
 * configured; when neither is (learned limits, which Redis knows), as many as Redis grants. At least 1. */
static int64_t ask_cap(const lg_window_limits *lim, int64_t tokens)
{
    int64_t most = lim->limit[0] > 0   ? lim->limit[0]
                   : lim->limit[1] > 0 ? lim->limit[1] / (tokens > 0 ? tokens : 1)
                                       : INT32_MAX;
    return most / 4 > 0 ? most / 4 : 1;
}

/* lg_redis_lease_admit but for the place the ticket may hold, which is kept, swapped or given back here only
 * on a decision (LEASE_KEPT, a sooner place). */
static bool lease_admit(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t, int64_t now_ms,
                        int64_t deadline_ms, const lg_admit_opts *rest, lg_account_state *snap, lg_admission *out)
{
    if (!s->leases || !s->local || !snap || sc->n == 0 || sc->n > LG_STORE_ACCOUNTS)
        return false;
    char eligible[sc->n + 1];
    lg_redis_pool_mask(sc, snap, now_ms, eligible);
    bool any = false;
    for (size_t i = 0; i < sc->n; i++) {
        if (lg_policy_ready_at(&snap[i], sc->jitter, now_ms) > now_ms || snap[i].reason != LG_REASON_NONE)
            eligible[i] = '0';
        any = any || eligible[i] == '1';
    }
    if (!any)
        return false;
    int64_t tokens = lg_charge_admit(sc->dialect, sc->est, NULL);
    lease_ctx x = {.n = sc->n, .eligible = eligible, .first = (size_t)getpid() % sc->n, .tokens = tokens,
                   .held = lg_redis_leased(s, t) ? t : NULL,
                   .now_ms = now_ms, .deadline_ms = deadline_ms, .span_ms = lg_window_span_ms(&sc->limits),
                   .cap = ask_cap(&sc->limits, tokens),
                   .count = rest->count ? (rest->ev == LG_EV_WAITED ? 1 : 0) : -1,
                   .tokens_limited = sc->limits.limit[1] > 0};
    bool locked = lg_shm_with_scope(s->local, sc, lease_try_fn, &x) == 0;
    if (locked && x.step == LEASE_ASK) {
        conn *c = lg_redis_get_conn(s);
        int64_t t0 = lg_now_ms();
        redisReply *r = c ? lease_call(s, c, sc, &x, lg_policy_longest_cooldown_ms(sc->backoff)) : NULL;
        int64_t t1 = lg_now_ms();
        x.r = r;
        /* Redis read its clock during the call: against the middle of the call, not the admission's now
         * (which may be a lock and a connection earlier), the lease's buckets are placed on this clock to
         * within half the round trip (and a ms each clock truncates); the lease keeps the best measure. */
        x.skew_ms = r ? lg_redis_int_at(r, 0) - (t0 + t1) / 2 : 0;
        x.skew_err_ms = (t1 - t0 + 1) / 2 + 1;
        lg_shm_with_scope(s->local, sc, lease_grant_fn, &x);
        if (r) {
            lg_redis_read_states(r, 5 + 2 * LG_LEASE_BUCKETS, sc->n, x.skew_ms, snap);
            s->api->free_reply(r);
            lg_redis_put_conn(s, c, true, NULL);
        }
    }
    if (x.gave) /* the held place went back to its lease (take_sooner) */
        t->held = false, t->lease = 0;
    if (!locked || x.step == LEASE_NO)
        return false;
    if (x.step == LEASE_BUSY) {
        *out = (lg_admission){.idx = x.first, .at_ms = x.retry_ms ? x.at_ms : now_ms,
                              .retry_ms = x.retry_ms ? x.retry_ms : LEASE_BUSY_MS, .breaker = out->breaker};
        return true;
    }
    /* a place more than a bucket ahead is looked at again every bucket for a sooner one */
    int64_t bucket_ms = x.span_ms / LG_WINDOW_BUCKETS, at = x.step == LEASE_KEPT ? t->at_ms : x.at_ms;
    int64_t recheck_ms = at - now_ms > bucket_ms ? bucket_ms : 0;
    if (x.step == LEASE_KEPT) {
        *out = (lg_admission){.idx = t->account, .at_ms = at > now_ms ? at : now_ms, .reserved = true,
                              .breaker = out->breaker, .recheck_ms = recheck_ms};
        return true;
    }
    if (x.step != LEASE_TAKEN)
        return false;
    if (x.noted)
        note_exit_scope(s, sc);
    *out = (lg_admission){.idx = x.idx, .at_ms = x.at_ms, .reserved = true, .breaker = out->breaker,
                          .recheck_ms = recheck_ms};
    *t = (lg_store_ticket){.held = true, .account = x.idx, .bucket = x.bucket, .tokens = tokens, .lease = x.id,
                           .at_ms = x.at_ms, .owner = s};
    return true;
}

bool lg_redis_lease_admit(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t, int64_t now_ms,
                          int64_t deadline_ms, const lg_admit_opts *rest, lg_account_state *snap, lg_admission *out)
{
    if (lease_admit(s, sc, t, now_ms, deadline_ms, rest, snap, out))
        return true;
    if (lg_redis_leased(s, t))
        lg_redis_lease_give_back(s, sc, t);
    return false;
}

bool lg_redis_lease_record(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                           const lg_store_attempt *at, int64_t now_ms, const lg_account_state *snap)
{
    lease_ctx x = {.idx = t->account, .id = t->lease, .bucket = (int)t->bucket, .count = -1};
    if (!at->transport_failed && idx == t->account) {
        bool keep;
        x.dk = lg_charge_settle(sc->dialect, sc->est, t->tokens, at->outcome, -1, &keep) - t->tokens;
        x.back = keep ? BACK_SETTLE : BACK_GIVE;
        x.tokens = -x.dk;
    }
    t->held = false;
    t->lease = 0;
    bool done = !at->transport_failed && snap && idx < sc->n && at->outcome->state == LG_STATE_SUCCESS;
    if (done) {
        lg_account_state next = snap[idx];
        done = !lg_policy_record(sc->backoff, sc->n, &next, at->outcome, now_ms) &&
               next.cooldown_until_ms == snap[idx].cooldown_until_ms && next.reason == snap[idx].reason &&
               next.failures == snap[idx].failures && next.last_event_ms == snap[idx].last_event_ms &&
               snap[idx].probe_until_ms == 0;
    }
    if (done) {
        x.count = 2; /* n_requests */
        x.learn = at->info ? at->info->limit : NULL;
    }
    if ((x.back != BACK_NONE || done) && lg_shm_with_scope(s->local, sc, lease_back_fn, &x) == 0)
        done = done && x.count >= 0;
    if (done && (at->first || at->breaker != LG_BREAKER_NOTE_NONE)) {
        lg_prov_op op = {.kind = LG_PROV_ATTEMPT, .now_ms = now_ms, .first = at->first, .note = at->breaker};
        s->local->ops->provider(s->local, sc, &op);
    }
    return done;
}

bool lg_redis_lease_count(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                          lg_account_event ev)
{
    if (!lg_redis_leased(s, t) || idx != t->account ||
        (ev != LG_EV_IMMEDIATE && ev != LG_EV_WAITED && ev != LG_EV_SENT))
        return false;
    lease_ctx x = {.idx = idx, .count = ev == LG_EV_IMMEDIATE ? 0 : ev == LG_EV_WAITED ? 1 : 2};
    lg_shm_with_scope(s->local, sc, lease_back_fn, &x); /* told to Redis with the next grant */
    if (ev == LG_EV_SENT) {
        t->held = false;
        t->lease = 0;
    }
    return true;
}
