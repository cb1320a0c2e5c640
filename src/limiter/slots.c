/* The store operations on slots the caller holds (see store.h): account choice, reservation, outcome
 * recording, counters and the provider's own slot. Every backend applies these under its own lock, and an
 * exchange without a store applies them to its own slots. Pure: the clock is a parameter. */
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

/* Gives back the held reservation (one request, the tokens reserved). */
static void drop_ticket(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t)
{
    if (t->held && t->account < sc->n)
        lg_window_adjust(&sl->accounts[t->account]->window, t->bucket, -1, -t->tokens);
    t->held = false;
}

/* The provider-wide part of an attempt's record: the request counted toward the retry budget, the
 * breaker told the outcome. */
static void note_attempt(lg_provider_slot *p, const lg_store_scope *sc, bool first, lg_breaker_note note,
                         int64_t now_ms)
{
    if (first)
        lg_budget_note_request(&p->budget, now_ms);
    if (note != LG_BREAKER_NOTE_NONE)
        lg_breaker_record(&p->breaker, sc->breaker, note == LG_BREAKER_NOTE_FAILURE, now_ms);
}

/* lg_slots_count on a ticket already owned by sl (inline in the admission, which counts there). */
static inline __attribute__((always_inline)) void count(const lg_slots *sl, const lg_store_scope *sc,
                                                        lg_store_ticket *t, size_t idx, lg_account_event ev,
                                                        size_t to)
{
    if (ev == LG_EV_FELL_BACK) {
        sl->prov->fell_back++;
        return;
    }
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
    case LG_EV_FELL_BACK: break;
    }
}

lg_admission lg_slots_admit(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred,
                            int64_t now_ms, int64_t deadline_ms, const lg_admit_opts *opts)
{
    own(sl, t);
    lg_account_slot *const *slots = sl->accounts;
    size_t n = sc->n;
    lg_admission out = {0};
    if (opts && opts->breaker) {
        out.breaker = lg_breaker_admit(&sl->prov->breaker, sc->breaker, now_ms, &out.breaker_retry_ms);
        if (out.breaker == LG_BREAKER_REJECT)
            return out;
    }
    if (n == 0)
        return out;
    for (size_t i = 0; i < n; i++) /* a cooldown restored from disk or set under another config */
        lg_policy_clamp_cooldown(sc->backoff, &slots[i]->state, now_ms);
    drop_ticket(sl, sc, t); /* a reservation not used (an earlier round) never stays behind */
    uint32_t cur = sl->prov->current;
    size_t pref = preferred < n ? preferred : cur < n ? cur : 0;
    bool usable[n];
    /* One account is usable whatever the pools say (none of a pool's: all are), without filtering. */
    bool all = n == 1 || !sc->accounts;
    if (!all) {
        lg_account_state states[n];
        lg_slots_snapshot(sl, n, states);
        all = !lg_policy_pool_filter(sc->accounts, states, n, sc->pool, sc->retry && sc->retry->pool_fallback,
                                     now_ms, usable); /* a pool without accounts: config checks prevent it */
    }
    while (!all && !usable[pref])
        pref = (pref + 1) % n;
    int64_t tokens = lg_charge_admit_as(sc->dialect, sc->est, sc->model_hash, &slots[pref]->window);
    t->tokens = tokens; /* what a reservation made now holds (none is held at this point) */
    size_t best = pref;
    int64_t best_at = 0, best_retry = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = (pref + k) % n;
        if (!all && !usable[i])
            continue;
        lg_window_limits lim = limits_for(sc, &slots[i]->window);
        int64_t retry;
        int64_t at = lg_window_earliest(&slots[i]->window, &lim, tokens, now_ms,
                                        lg_policy_ready_at(&slots[i]->state, sc->jitter, now_ms), &retry);
        if (lg_policy_admission_better(i == pref, at, retry, best_at, best_retry)) {
            best = i;
            best_at = at;
            best_retry = retry;
        }
        if (retry == 0 && at <= now_ms)
            break; /* in order from the preferred one: the first that can go now */
    }
    out.idx = best;
    out.at_ms = best_at;
    out.retry_ms = best_retry;
    if (best_retry == 0 && best_at <= deadline_ms) {
        lg_window_limits lim = limits_for(sc, &slots[best]->window);
        t->bucket = lg_window_reserve(&slots[best]->window, &lim, tokens, best_at);
        t->account = best;
        t->held = true;
        out.reserved = true;
        if (best_at <= now_ms) {
            lg_policy_claim_probe(&slots[best]->state, now_ms);
            if (opts && opts->count)
                count(sl, sc, t, best, opts->ev, 0);
        }
    }
    if (lg_policy_hand_over(&slots[pref]->state, &slots[best]->state, now_ms))
        sl->prov->current = (uint32_t)best;
    return out;
}

bool lg_slots_confirm(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                      int64_t now_ms)
{
    own(sl, t);
    lg_account_state *st = idx < sc->n ? &sl->accounts[idx]->state : NULL;
    bool ok = st && lg_policy_ready_at(st, sc->jitter, now_ms) <= now_ms;
    if (ok)
        lg_policy_claim_probe(st, now_ms);
    else
        drop_ticket(sl, sc, t);
    return ok;
}

void lg_slots_release(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t)
{
    own(sl, t);
    drop_ticket(sl, sc, t);
}

/* Settles the reservation of the attempt to what the provider counted (the dialect's charge model, raised
 * to the charge its headers revealed, learned >= 0). */
static void settle(const lg_store_scope *sc, lg_window *w, const lg_store_ticket *t, const lg_outcome *o,
                   int64_t learned)
{
    bool keep;
    int64_t counted = lg_charge_settle(sc->dialect, sc->est, t->tokens, o, learned, &keep);
    lg_window_adjust(w, t->bucket, keep ? 0 : -1, counted - t->tokens);
}

bool lg_slots_record(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                     const lg_store_attempt *a, int64_t now_ms)
{
    own(sl, t);
    note_attempt(sl->prov, sc, a->first, a->breaker, now_ms);
    if (idx >= sc->n)
        return false;
    lg_account_slot *s = sl->accounts[idx];
    bool save = false;
    s->counters.requests++;
    if (!a->transport_failed) {
        const lg_outcome *o = a->outcome;
        int64_t before = s->state.cooldown_until_ms;
        if (lg_policy_record(sc->backoff, sc->n, &s->state, o, now_ms) && a->set_aside)
            *a->set_aside = true;
        int64_t after = s->state.cooldown_until_ms;
        save = after != before && (after - now_ms > LG_PERSIST_MIN_MS || before - now_ms > LG_PERSIST_MIN_MS);
        if (o->state == LG_STATE_RETRYABLE_RATE_LIMIT)
            s->counters.rate_limited++;
        int64_t learned = a->info ? lg_window_learn_charge(&s->window, a->info, now_ms) : -1;
        if (t->held && t->account == idx)
            settle(sc, &s->window, t, o, learned);
        if (o->state == LG_STATE_SUCCESS && o->has_usage && sc->est) {
            uint32_t h = sc->model_hash ? sc->model_hash : lg_model_hash(sc->est->model); /* once for all */
            for (size_t i = 0; i < sc->n; i++)
                lg_charge_calibrate_as(&sl->accounts[i]->window, sc->est, h, o->prompt_tokens);
        }
        if (a->info)
            lg_window_learn(&s->window, a->info, now_ms);
    } else {
        lg_policy_record_transport(&s->state);
    }
    if (t->account == idx)
        t->held = false; /* a transport failure keeps its place: the provider may have counted it */
    return save;
}

void lg_slots_count(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                    lg_account_event ev, size_t to)
{
    own(sl, t);
    count(sl, sc, t, idx, ev, to);
}

/* True (and *last set to now) when the notice last printed at *last is op->interval_ms old. A time far ahead of
 * now (a clock set back) does not silence notices forever; one a little ahead is another process's notice
 * taken after our `now` was read. */
static bool notice_due(int64_t *last, const lg_prov_op *op)
{
    bool due = op->now_ms - *last >= op->interval_ms || *last > op->now_ms + op->interval_ms;
    if (due)
        *last = op->now_ms;
    return due;
}

void lg_slots_provider(const lg_slots *sl, const lg_store_scope *sc, lg_prov_op *op)
{
    lg_provider_slot *p = sl->prov;
    switch (op->kind) {
    case LG_PROV_NOTICE: op->due = notice_due(&p->notice_ms, op); break;
    case LG_PROV_UNGATED:
        p->ungated++;
        op->due = op->cause < LG_UNGATED_CAUSES && notice_due(&p->ungated_notice_ms[op->cause], op);
        break;
    case LG_PROV_BUDGET_RETRY:
        op->ok = lg_budget_try_retry(&p->budget, sc->retry->budget_ratio, sc->retry->budget_min_per_s, op->now_ms);
        break;
    case LG_PROV_BREAKER_ADMIT:
        op->verdict = lg_breaker_admit(&p->breaker, sc->breaker, op->now_ms, &op->retry_after_ms);
        break;
    case LG_PROV_ATTEMPT: note_attempt(p, sc, op->first, op->note, op->now_ms); break;
    }
}
