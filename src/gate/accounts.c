/* Shared-state access for one exchange (see accounts.h). */
#include <stdlib.h>
#include <string.h>

#include "gate/accounts.h"

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
    const lg_provider *p = req->prov;
    char model[LG_MODEL_MAX];
    lg_store_scope *sc = &a->scope;
    sc->provider = p->name;
    sc->refs = a->refs;
    sc->n = a->n;
    sc->backoff = &req->cfg->backoff;
    sc->tokens = lg_estimate_tokens(p->dialect, req->body, req->body ? req->body_len : 0, model);
    sc->limits.window_ms = p->limits.window_ms > 0 ? p->limits.window_ms : 60000;
    sc->limits.margin_ms = lg_window_margin_ms(sc->limits.window_ms);
    sc->limits.limit[LG_DIM_REQUESTS] = p->limits.rpm;
    sc->limits.limit[LG_DIM_TOKENS] = p->limits.tpm;
    int64_t rpm, tpm;
    if (p->limits.tier[0] && p->dialect == LG_DIALECT_OPENAI && lg_tier_limits(p->limits.tier, model, &rpm, &tpm)) {
        if (!p->limits.rpm)
            sc->limits.limit[LG_DIM_REQUESTS] = rpm;
        if (!p->limits.tpm)
            sc->limits.limit[LG_DIM_TOKENS] = tpm;
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

/* The exchange's own slots, for when the store cannot be used: false when there is no memory for them
 * (then nothing is recorded). */
static bool local_slots(lg_accounts *a, lg_account_slot **ptrs, lg_slots *sl)
{
    if (!a->local && !(a->local = calloc(a->n ? a->n : 1, sizeof *a->local)))
        return false;
    for (size_t i = 0; i < a->n; i++)
        ptrs[i] = &a->local[i];
    *sl = (lg_slots){.prov = &a->local_prov, .accounts = ptrs, .owner = a};
    return true;
}

lg_admission lg_accounts_admit(lg_accounts *a, size_t preferred, int64_t now_ms, int64_t deadline_ms)
{
    lg_admission out = {0};
    if (lg_store_admit(a->req->store, &a->scope, &a->ticket, preferred, now_ms, deadline_ms, a->snapshot, &out) == 0)
        return out;
    lg_account_slot *ptrs[a->n + 1];
    lg_slots sl;
    if (local_slots(a, ptrs, &sl)) {
        out = lg_slots_admit(&sl, &a->scope, &a->ticket, preferred, now_ms, deadline_ms);
        lg_slots_snapshot(&sl, a->n, a->snapshot);
    }
    return out;
}

bool lg_accounts_confirm(lg_accounts *a, size_t idx, int64_t now_ms)
{
    bool ok = false;
    if (lg_store_confirm(a->req->store, &a->scope, &a->ticket, idx, now_ms, a->snapshot, &ok) == 0)
        return ok;
    lg_account_slot *ptrs[a->n + 1];
    lg_slots sl;
    if (local_slots(a, ptrs, &sl)) {
        ok = lg_slots_confirm(&sl, &a->scope, &a->ticket, idx, now_ms);
        lg_slots_snapshot(&sl, a->n, a->snapshot);
    }
    return ok;
}

void lg_accounts_release(lg_accounts *a)
{
    if (!a->ticket.held || lg_store_release(a->req->store, &a->scope, &a->ticket) == 0)
        return;
    lg_account_slot *ptrs[a->n + 1];
    lg_slots sl;
    if (local_slots(a, ptrs, &sl))
        lg_slots_release(&sl, &a->scope, &a->ticket);
}

void lg_accounts_record(lg_accounts *a, size_t idx, const lg_outcome *o, const lg_response_view *resp,
                        bool transport_failed, int64_t now_ms)
{
    lg_ratelimit_info info;
    bool learned = !transport_failed && resp && lg_ratelimit_parse(resp->headers, resp->n_headers, now_ms, &info);
    lg_store_attempt at = {.outcome = o, .info = learned ? &info : NULL, .transport_failed = transport_failed};
    if (lg_store_record(a->req->store, &a->scope, &a->ticket, idx, &at, now_ms, a->snapshot) == 0)
        return;
    lg_account_slot *ptrs[a->n + 1];
    lg_slots sl;
    if (local_slots(a, ptrs, &sl)) {
        lg_slots_record(&sl, &a->scope, &a->ticket, idx, &at, now_ms);
        lg_slots_snapshot(&sl, a->n, a->snapshot);
    }
}

void lg_accounts_count(lg_accounts *a, size_t idx, lg_account_event ev, size_t to)
{
    if (lg_store_count(a->req->store, &a->scope, &a->ticket, idx, ev, to) == 0)
        return;
    lg_account_slot *ptrs[a->n + 1];
    lg_slots sl;
    if (local_slots(a, ptrs, &sl))
        lg_slots_count(&sl, &a->scope, &a->ticket, idx, ev, to);
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
