/* Shared-state access for one exchange (see accounts.h). */
#include <stdlib.h>
#include <string.h>

#include "gate/accounts.h"

bool lg_accounts_init(lg_accounts *a, const lg_gate_request *req)
{
    memset(a, 0, sizeof *a);
    a->req = req;
    a->n = req->prov->n_accounts;
    a->refs = calloc(a->n, sizeof *a->refs);
    a->digests = calloc(a->n, sizeof *a->digests);
    a->local = calloc(a->n, sizeof *a->local);
    a->snapshot = calloc(a->n, sizeof *a->snapshot);
    if (!a->refs || !a->digests || !a->local || !a->snapshot) {
        lg_accounts_free(a);
        return false;
    }
    for (size_t i = 0; i < a->n; i++) {
        const lg_account *acct = &req->prov->accounts[i];
        if (acct->key)
            memcpy(a->digests[i], acct->digest, LG_DIGEST_HEX);
        else if (req->host_key)
            lg_key_digest(req->host_key, a->digests[i]);
        a->refs[i].name = acct->name;
        a->refs[i].digest = a->digests[i];
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

struct choose_ctx {
    lg_accounts *a;
    int64_t now;
    size_t idx;
    int64_t wait;
};

static void choose_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct choose_ctx *c = vctx;
    take_snapshot(c->a, slots);
    size_t preferred = p->current < n ? p->current : 0;
    c->idx = lg_policy_choose(c->a->snapshot, n, preferred, c->now, &c->wait);
    if (c->wait == 0)
        p->current = (uint32_t)c->idx;
}

size_t lg_accounts_choose(lg_accounts *a, int64_t now_ms, int64_t *wait_ms)
{
    struct choose_ctx c = {.a = a, .now = now_ms};
    with_slots(a, choose_cb, &c);
    *wait_ms = c.wait;
    return c.idx;
}

struct record_ctx {
    lg_accounts *a;
    size_t idx;
    const lg_outcome *o;
    bool transport_failed;
    int64_t now;
};

static void record_cb(lg_provider_slot *p, lg_account_slot *const *slots, size_t n, void *vctx)
{
    struct record_ctx *c = vctx;
    lg_account_slot *s = slots[c->idx];
    s->counters.requests++;
    if (!c->transport_failed) {
        lg_policy_record(&c->a->req->cfg->backoff, n, &s->state, c->o, c->now);
        if (c->o->state == LG_STATE_RETRYABLE_RATE_LIMIT)
            s->counters.rate_limited++;
    }
    take_snapshot(c->a, slots);
}

void lg_accounts_record(lg_accounts *a, size_t idx, const lg_outcome *o, bool transport_failed, int64_t now_ms)
{
    struct record_ctx c = {.a = a, .idx = idx, .o = o, .transport_failed = transport_failed, .now = now_ms};
    with_slots(a, record_cb, &c);
}

struct count_ctx {
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
    case LG_EV_SWITCH:
        k->switches++;
        if (c->to < n)
            p->current = (uint32_t)c->to;
        break;
    }
}

void lg_accounts_count(lg_accounts *a, size_t idx, lg_account_event ev, size_t to)
{
    struct count_ctx c = {.idx = idx, .to = to, .ev = ev};
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
