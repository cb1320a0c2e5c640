/* The store operations on slots the caller holds (see store.h): account choice, reservation, outcome
 * recording and counters. Every backend applies these under its own lock, and an exchange without a store
 * applies them to its own slots. Pure: the clock is a parameter. */
#include <string.h>

#include "llmgate/store.h"

/* Forgets a ticket that lives in other slots than sl's (the store changed under the exchange). */
static void own(const lg_slots *sl, lg_store_ticket *t)
{
    if (t->held && t->owner != sl->owner)
        t->held = false;
    t->owner = sl->owner;
}

/* The limits enforced on window w: the configured ones, the provider's reported ones where none is set. */
static lg_window_limits limits_for(const lg_store_scope *sc, const lg_window *w)
{
    lg_window_limits l = sc->limits;
    for (int d = 0; d < 2; d++)
        if (l.limit[d] <= 0)
            l.limit[d] = w->learned_limit[d];
    return l;
}

/* Gives back the held reservation (one request, the estimated tokens). */
static void drop_ticket(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t)
{
    if (t->held && t->account < sc->n)
        lg_window_adjust(&sl->accounts[t->account]->window, t->bucket, -1, -sc->tokens);
    t->held = false;
}

lg_admission lg_slots_admit(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred,
                            int64_t now_ms, int64_t deadline_ms)
{
    own(sl, t);
    drop_ticket(sl, sc, t); /* a reservation not used (an earlier round) never stays behind */
    lg_account_slot *const *slots = sl->accounts;
    size_t n = sc->n;
    uint32_t cur = sl->prov->current;
    size_t pref = preferred < n ? preferred : cur < n ? cur : 0;
    size_t best = pref;
    int64_t best_at = 0, best_retry = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = (pref + k) % n;
        lg_window_limits lim = limits_for(sc, &slots[i]->window);
        int64_t retry;
        int64_t at = lg_window_earliest(&slots[i]->window, &lim, sc->tokens, now_ms,
                                        slots[i]->state.cooldown_until_ms, &retry);
        bool better = k == 0 || (retry == 0 && best_retry != 0) || ((retry == 0) == (best_retry == 0) && at < best_at);
        if (better) {
            best = i;
            best_at = at;
            best_retry = retry;
        }
        if (retry == 0 && at <= now_ms)
            break; /* in order from the preferred one: the first that can go now */
    }
    lg_admission out = {.idx = best, .at_ms = best_at, .reserved = false, .retry_ms = best_retry};
    if (n == 0)
        return out;
    if (best_retry == 0 && best_at <= deadline_ms) {
        lg_window_limits lim = limits_for(sc, &slots[best]->window);
        t->bucket = lg_window_reserve(&slots[best]->window, &lim, sc->tokens, best_at);
        t->account = best;
        t->held = true;
        out.reserved = true;
    }
    if (slots[pref]->state.cooldown_until_ms > now_ms && slots[best]->state.cooldown_until_ms <= now_ms)
        sl->prov->current = (uint32_t)best;
    return out;
}

bool lg_slots_confirm(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                      int64_t now_ms)
{
    own(sl, t);
    bool ok = idx < sc->n && sl->accounts[idx]->state.cooldown_until_ms <= now_ms;
    if (!ok)
        drop_ticket(sl, sc, t);
    return ok;
}

void lg_slots_release(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t)
{
    own(sl, t);
    drop_ticket(sl, sc, t);
}

void lg_slots_settle(const lg_store_scope *sc, const lg_outcome *o, int64_t *d_requests, int64_t *d_tokens)
{
    *d_requests = *d_tokens = 0;
    if (o->state == LG_STATE_RETRYABLE_RATE_LIMIT) {
        *d_requests = -1; /* refused: it never entered the provider's window */
        *d_tokens = -sc->tokens;
    } else if (o->state == LG_STATE_SUCCESS && o->has_usage)
        *d_tokens = o->prompt_tokens + o->completion_tokens - sc->tokens;
    else if (o->state != LG_STATE_SUCCESS)
        *d_tokens = -sc->tokens; /* an error generates no tokens */
}

bool lg_slots_record(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                     const lg_store_attempt *a, int64_t now_ms)
{
    own(sl, t);
    if (idx >= sc->n)
        return false;
    lg_account_slot *s = sl->accounts[idx];
    bool save = false;
    s->counters.requests++;
    if (!a->transport_failed) {
        int64_t before = s->state.cooldown_until_ms;
        lg_policy_record(sc->backoff, sc->n, &s->state, a->outcome, now_ms);
        int64_t after = s->state.cooldown_until_ms;
        save = after != before && (after - now_ms > LG_PERSIST_MIN_MS || before - now_ms > LG_PERSIST_MIN_MS);
        if (a->outcome->state == LG_STATE_RETRYABLE_RATE_LIMIT)
            s->counters.rate_limited++;
        if (t->held && t->account == idx) {
            int64_t dq, dk;
            lg_slots_settle(sc, a->outcome, &dq, &dk);
            lg_window_adjust(&s->window, t->bucket, dq, dk);
        }
        if (a->info)
            lg_window_learn(&s->window, a->info, now_ms);
    }
    if (t->account == idx)
        t->held = false; /* a transport failure keeps its place: the provider may have counted it */
    return save;
}

void lg_slots_count(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                    lg_account_event ev, size_t to)
{
    own(sl, t);
    if (idx >= sc->n)
        return;
    lg_account_counters *k = &sl->accounts[idx]->counters;
    switch (ev) {
    case LG_EV_IMMEDIATE: k->immediate++; break;
    case LG_EV_WAITED: k->waited++; break;
    case LG_EV_RETRY: k->retries++; break;
    case LG_EV_GIVEN_UP: k->given_up++; break;
    case LG_EV_SENT:
        k->requests++;
        t->held = false;
        break;
    case LG_EV_SWITCH:
        k->switches++;
        if (to < sc->n)
            sl->prov->current = (uint32_t)to;
        break;
    }
}

void lg_slots_snapshot(const lg_slots *sl, size_t n, lg_account_state *snap)
{
    if (snap)
        for (size_t i = 0; i < n; i++)
            snap[i] = sl->accounts[i]->state;
}
