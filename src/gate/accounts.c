/* Shared-state access for one exchange (see accounts.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gate/accounts.h"
#include "llmgate/clock.h"

/* The digest of the host's own key, remembered per thread for the last key seen (a host sends the same
 * key request after request, and hashing it each time costs more than the rest of admission). */
static void host_key_digest(const char *key, char out[LG_DIGEST_HEX])
{
    static __thread char last_key[256];
    static __thread char last_digest[LG_DIGEST_HEX];
    size_t len = strlen(key);
    if (len < sizeof last_key && last_digest[0] && !strcmp(last_key, key)) {
        memcpy(out, last_digest, LG_DIGEST_HEX);
        return;
    }
    lg_key_digest(key, out);
    if (len < sizeof last_key) {
        memcpy(last_key, key, len + 1);
        memcpy(last_digest, out, LG_DIGEST_HEX);
    }
}

/* A fraction in [0, 1) that differs between requests and processes (xorshift, seeded per thread). */
static double request_jitter(void)
{
    static __thread uint64_t x;
    if (!x)
        x = ((uint64_t)lg_mono_ms() << 20) ^ ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&x ^ 1;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (double)(x >> 11) / 9007199254740992.0;
}

bool lg_accounts_init(lg_accounts *a, const lg_gate_request *req)
{
    memset(a, 0, sizeof *a);
    a->req = req;
    a->n = req->prov->n_accounts;
    a->refs = calloc(a->n, sizeof *a->refs);
    a->digests = calloc(a->n, sizeof *a->digests);
    a->snapshot = calloc(a->n, sizeof *a->snapshot);
    if (!a->refs || !a->digests || !a->snapshot) {
        lg_accounts_free(a);
        return false;
    }
    for (size_t i = 0; i < a->n; i++) {
        const lg_account *acct = &req->prov->accounts[i];
        if (acct->key)
            memcpy(a->digests[i], acct->digest, LG_DIGEST_HEX);
        else if (req->host_key)
            host_key_digest(req->host_key, a->digests[i]);
        a->refs[i].name = acct->name;
        a->refs[i].digest = a->digests[i];
    }
    a->jitter = request_jitter();
    const lg_provider *p = req->prov;
    lg_estimate_scan(p->dialect, req->body, req->body ? req->body_len : 0, &a->est);
    a->tokens = lg_charge_admit(p->dialect, &a->est, NULL);
    const char *model = a->est.model;
    a->limits.window_ms = p->limits.window_ms > 0 ? p->limits.window_ms : 60000;
    a->limits.margin_ms = lg_window_margin_ms(a->limits.window_ms);
    a->limits.limit[LG_DIM_REQUESTS] = p->limits.rpm;
    a->limits.limit[LG_DIM_TOKENS] = p->limits.tpm;
    int64_t rpm, tpm;
    if (p->limits.tier[0] && p->dialect == LG_DIALECT_OPENAI && lg_tier_limits(p->limits.tier, model, &rpm, &tpm)) {
        if (!p->limits.rpm)
            a->limits.limit[LG_DIM_REQUESTS] = rpm;
        if (!p->limits.tpm)
            a->limits.limit[LG_DIM_TOKENS] = tpm;
    }
    return true;
}

void lg_accounts_free(lg_accounts *a)
{
    free(a->refs);
    free(a->digests);
    free(a->local);
    free(a->snapshot);
    memset(a, 0, sizeof *a);
}

/* Runs fn under the store lock, or on the local slots when there is no usable store. */
static void with_slots(lg_accounts *a, lg_store_fn fn, void *ctx)
{
    if (a->req->store && lg_store_with(a->req->store, a->req->prov->name, a->refs, a->n, fn, ctx) == 0)
        return;
    if (!a->local && !(a->local = calloc(a->n, sizeof *a->local)))
        return; /* no memory for even local state: nothing is recorded */
    lg_account_slot *ptrs[a->n];
    for (size_t i = 0; i < a->n; i++)
        ptrs[i] = &a->local[i];
    fn(&a->local_prov, ptrs, a->n, ctx);
}

static void take_snapshot(lg_accounts *a, lg_account_slot *const *slots)
{
    for (size_t i = 0; i < a->n; i++)
        a->snapshot[i] = slots[i]->state;
}

/* The limits enforced on window w: the configured ones, the provider's reported ones where none is set. */
static lg_window_limits limits_for(const lg_accounts *a, const lg_window *w)
{
    lg_window_limits l = a->limits;
    for (int d = 0; d < 2; d++)
        if (l.limit[d] <= 0)
            l.limit[d] = w->learned_limit[d];
    return l;
}

/* Gives back the held reservation (one request, the estimated tokens). Under the lock. */
static void drop_ticket(lg_accounts *a, lg_account_slot *const *slots)
{
    if (a->has_ticket && a->ticket_account < a->n)
        lg_window_adjust(&slots[a->ticket_account]->window, a->ticket, -1, -a->tokens);
    a->has_ticket = false;
}

struct admit_ctx {
    lg_accounts *a;
    size_t preferred;
    int64_t now, deadline;
    lg_admission out;
};

static void admit_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct admit_ctx *c = vctx;
    lg_accounts *a = c->a;
    for (size_t i = 0; i < n; i++) /* a cooldown restored from disk or set under another config */
        lg_policy_clamp_cooldown(&a->req->cfg->backoff, &slots[i]->state, c->now);
    take_snapshot(a, slots);
    drop_ticket(a, slots); /* a reservation not used (an earlier round) never stays behind */
    size_t pref = c->preferred < n ? c->preferred : p->current < n ? p->current : 0;
    bool usable[n];
    if (!lg_policy_pool_filter(a->req->prov->accounts, a->snapshot, n, a->pool, a->req->cfg->retry.pool_fallback,
                               c->now, usable))
        memset(usable, 1, sizeof usable); /* a pool without accounts: config checks prevent it */
    while (!usable[pref])
        pref = (pref + 1) % n;
    a->tokens = lg_charge_admit(a->req->prov->dialect, &a->est, &slots[pref]->window);
    size_t best = pref;
    int64_t best_at = 0, best_retry = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = (pref + k) % n;
        if (!usable[i])
            continue;
        lg_window_limits lim = limits_for(a, &slots[i]->window);
        int64_t retry;
        int64_t at = lg_window_earliest(&slots[i]->window, &lim, a->tokens, c->now,
                                        lg_policy_ready_at(&slots[i]->state, a->jitter, c->now), &retry);
        bool better = i == pref || (retry == 0 && best_retry != 0) || ((retry == 0) == (best_retry == 0) && at < best_at);
        if (better) {
            best = i;
            best_at = at;
            best_retry = retry;
        }
        if (retry == 0 && at <= c->now)
            break; /* in order from the preferred one: the first that can go now */
    }
    c->out = (lg_admission){.idx = best, .at_ms = best_at, .reserved = false, .retry_ms = best_retry};
    if (best_retry == 0 && best_at <= c->deadline) {
        lg_window_limits lim = limits_for(a, &slots[best]->window);
        a->ticket = lg_window_reserve(&slots[best]->window, &lim, a->tokens, best_at);
        a->ticket_account = best;
        a->has_ticket = true;
        c->out.reserved = true;
        if (best_at <= c->now)
            lg_policy_claim_probe(&slots[best]->state, c->now);
    }
    if (slots[pref]->state.cooldown_until_ms > c->now && slots[best]->state.cooldown_until_ms <= c->now)
        p->current = (uint32_t)best;
}

lg_admission lg_accounts_admit(lg_accounts *a, size_t preferred, int64_t now_ms, int64_t deadline_ms)
{
    struct admit_ctx c = {.a = a, .preferred = preferred, .now = now_ms, .deadline = deadline_ms};
    with_slots(a, admit_cb, &c);
    return c.out;
}

struct confirm_ctx {
    lg_accounts *a;
    size_t idx;
    int64_t now;
    bool ok;
};

static void confirm_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct confirm_ctx *c = vctx;
    take_snapshot(c->a, slots);
    lg_account_state *st = &slots[c->idx]->state;
    c->ok = lg_policy_ready_at(st, c->a->jitter, c->now) <= c->now;
    if (c->ok)
        lg_policy_claim_probe(st, c->now);
    else
        drop_ticket(c->a, slots);
}

bool lg_accounts_confirm(lg_accounts *a, size_t idx, int64_t now_ms)
{
    struct confirm_ctx c = {.a = a, .idx = idx, .now = now_ms};
    with_slots(a, confirm_cb, &c);
    return c.ok;
}

static void release_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    drop_ticket(vctx, slots);
}

void lg_accounts_release(lg_accounts *a)
{
    if (a->has_ticket)
        with_slots(a, release_cb, a);
}

struct record_ctx {
    lg_accounts *a;
    size_t idx;
    const lg_outcome *o;
    const lg_response_view *resp;
    bool transport_failed;
    int64_t now;
    bool save; /* a long cooldown started, changed or ended */
};

/* Settles the reservation of the attempt on account idx to what the provider counted (the dialect's charge
 * model, raised to the charge its headers revealed, learned >= 0). */
static void reconcile(lg_accounts *a, lg_window *w, const lg_outcome *o, int64_t learned)
{
    bool keep;
    int64_t counted = lg_charge_settle(a->req->prov->dialect, &a->est, a->tokens, o, learned, &keep);
    lg_window_adjust(w, a->ticket, keep ? 0 : -1, counted - a->tokens);
    a->has_ticket = false;
}

static void record_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct record_ctx *c = vctx;
    lg_accounts *a = c->a;
    lg_account_slot *s = slots[c->idx];
    s->counters.requests++;
    if (!c->transport_failed) {
        int64_t before = s->state.cooldown_until_ms;
        lg_policy_record(&a->req->cfg->backoff, n, &s->state, c->o, c->now);
        int64_t after = s->state.cooldown_until_ms;
        c->save = after != before && (after - c->now > LG_PERSIST_MIN_MS || before - c->now > LG_PERSIST_MIN_MS);
        if (c->o->state == LG_STATE_RETRYABLE_RATE_LIMIT)
            s->counters.rate_limited++;
        lg_ratelimit_info info;
        bool rl = c->resp && lg_ratelimit_parse(c->resp->headers, c->resp->n_headers, c->now, &info);
        int64_t learned = rl ? lg_window_learn_charge(&s->window, &info, c->now) : -1;
        if (a->has_ticket && a->ticket_account == c->idx)
            reconcile(a, &s->window, c->o, learned);
        if (c->o->state == LG_STATE_SUCCESS && c->o->has_usage)
            for (size_t i = 0; i < n; i++)
                lg_charge_calibrate(&slots[i]->window, &a->est, c->o->prompt_tokens);
        if (rl)
            lg_window_learn(&s->window, &info, c->now);
    } else {
        lg_policy_record_transport(&s->state);
    }
    if (a->ticket_account == c->idx)
        a->has_ticket = false; /* a transport failure keeps its place: the provider may have counted it */
    take_snapshot(a, slots);
}

void lg_accounts_record(lg_accounts *a, size_t idx, const lg_outcome *o, const lg_response_view *resp,
                        bool transport_failed, int64_t now_ms)
{
    struct record_ctx c = {
        .a = a, .idx = idx, .o = o, .resp = resp, .transport_failed = transport_failed, .now = now_ms};
    with_slots(a, record_cb, &c);
    if (c.save && a->req->store)
        lg_store_save_cooldowns(a->req->store);
}

struct count_ctx {
    lg_accounts *a;
    size_t idx, to;
    lg_account_event ev;
};

static void count_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct count_ctx *c = vctx;
    lg_account_counters *k = &slots[c->idx]->counters;
    switch (c->ev) {
    case LG_EV_IMMEDIATE: k->immediate++; break;
    case LG_EV_WAITED: k->waited++; break;
    case LG_EV_RETRY: k->retries++; break;
    case LG_EV_GIVEN_UP: k->given_up++; break;
    case LG_EV_SENT:
        k->requests++;
        c->a->has_ticket = false;
        break;
    case LG_EV_FELL_BACK:
        p->fell_back++;
        break;
    case LG_EV_SWITCH:
        k->switches++;
        if (c->to < n)
            p->current = (uint32_t)c->to;
        break;
    }
}

void lg_accounts_count(lg_accounts *a, size_t idx, lg_account_event ev, size_t to)
{
    struct count_ctx c = {.a = a, .idx = idx, .to = to, .ev = ev};
    with_slots(a, count_cb, &c);
}

int64_t lg_accounts_soonest_ms(const lg_accounts *a, int64_t now_ms)
{
    int64_t best = -1;
    for (size_t i = 0; i < a->n; i++) {
        int64_t left = a->snapshot[i].cooldown_until_ms - now_ms;
        if (left < 0)
            left = 0;
        if (best < 0 || left < best)
            best = left;
    }
    return best < 0 ? 0 : best;
}

struct notice_ctx {
    int64_t now, interval;
    bool due;
};

static void notice_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct notice_ctx *c = vctx;
    /* A time far ahead of now (a clock set back) does not silence notices forever; one a little ahead is
     * another process's notice taken after our `now` was read. */
    c->due = c->now - p->notice_ms >= c->interval || p->notice_ms > c->now + c->interval;
    if (c->due)
        p->notice_ms = c->now;
}

bool lg_accounts_notice_due(lg_accounts *a, int64_t now_ms, int64_t interval_ms)
{
    struct notice_ctx c = {.now = now_ms, .interval = interval_ms};
    with_slots(a, notice_cb, &c);
    return c.due;
}

struct breaker_ctx {
    const lg_breaker_conf *conf;
    int64_t now, retry_after;
    bool failure;
    lg_breaker_verdict verdict;
};

static void breaker_admit_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct breaker_ctx *c = vctx;
    c->verdict = lg_breaker_admit(&p->breaker, c->conf, c->now, &c->retry_after);
}

lg_breaker_verdict lg_accounts_breaker_admit(lg_accounts *a, int64_t now_ms, int64_t *retry_after_ms)
{
    struct breaker_ctx c = {.conf = &a->req->prov->breaker, .now = now_ms};
    with_slots(a, breaker_admit_cb, &c);
    *retry_after_ms = c.retry_after;
    return c.verdict;
}

static void breaker_record_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct breaker_ctx *c = vctx;
    lg_breaker_record(&p->breaker, c->conf, c->failure, c->now);
}

void lg_accounts_breaker_record(lg_accounts *a, bool failure, int64_t now_ms)
{
    struct breaker_ctx c = {.conf = &a->req->prov->breaker, .now = now_ms, .failure = failure};
    with_slots(a, breaker_record_cb, &c);
}

struct budget_ctx {
    const lg_retry_conf *conf;
    int64_t now;
    bool retry, ok;
};

static void budget_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct budget_ctx *c = vctx;
    if (c->retry)
        c->ok = lg_budget_try_retry(&p->budget, c->conf->budget_ratio, c->conf->budget_min_per_s, c->now);
    else
        lg_budget_note_request(&p->budget, c->now);
}

void lg_accounts_budget_request(lg_accounts *a, int64_t now_ms)
{
    struct budget_ctx c = {.conf = &a->req->cfg->retry, .now = now_ms};
    with_slots(a, budget_cb, &c);
}

bool lg_accounts_budget_retry(lg_accounts *a, int64_t now_ms)
{
    struct budget_ctx c = {.conf = &a->req->cfg->retry, .now = now_ms, .retry = true};
    with_slots(a, budget_cb, &c);
    return c.ok;
}
