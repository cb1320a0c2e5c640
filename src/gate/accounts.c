/* Shared-state access for one exchange (see accounts.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gate/accounts.h"
#include "llmgate/clock.h"

/* The thread's last host key and its digest (see host_key_digest). */
typedef struct {
    char key[256];
    char digest[LG_DIGEST_HEX];
} last_key;

/* A key other than the last one: its digest into out, remembered in *l when the key fits. Cold: a host
 * sends the same key request after request. */
__attribute__((cold, noinline)) static void host_key_digest_new(last_key *l, const char *key, char out[LG_DIGEST_HEX])
{
    lg_key_digest(key, out);
    size_t len = strlen(key);
    if (len < sizeof l->key) {
        memcpy(l->key, key, len + 1);
        memcpy(l->digest, out, LG_DIGEST_HEX);
    }
}

/* The digest of the host's own key, remembered per thread for the last key seen (a host sends the same
 * key request after request, and hashing it each time costs more than the rest of admission). */
static void host_key_digest(const char *key, char out[LG_DIGEST_HEX])
{
    static __attribute__((tls_model("initial-exec"))) __thread last_key last;
    last_key *l = &last; /* one look-up of the thread's copy */
    if (l->digest[0] && !strcmp(l->key, key)) { /* l->key is shorter than its buffer */
        memcpy(out, l->digest, LG_DIGEST_HEX);
        return;
    }
    host_key_digest_new(l, key, out);
}

/* The thread's last model and its hash (see model_hash). */
typedef struct {
    char model[LG_MODEL_MAX];
    uint32_t hash;
} last_model;

/* A model other than the last one: its hash, remembered in *l when the name fits. Cold: a host calls one
 * model request after request. */
__attribute__((cold, noinline)) static uint32_t model_hash_new(last_model *l, const char *model)
{
    uint32_t h = lg_model_hash(model);
    size_t len = strlen(model);
    if (len < sizeof l->model) {
        memcpy(l->model, model, len + 1);
        l->hash = h;
    }
    return h;
}

/* lg_model_hash(model), remembered per thread for the last model seen (a host calls one model request
 * after request; comparing the name costs a fraction of hashing it). */
static uint32_t model_hash(const char *model)
{
    static __attribute__((tls_model("initial-exec"))) __thread last_model last;
    last_model *l = &last; /* one look-up of the thread's copy */
    if (l->hash && !strcmp(l->model, model))
        return l->hash;
    return model_hash_new(l, model);
}

/* The store's memo of this thread's last exchange (where the store found its accounts' entries), with what
 * it was made for: the config (its generation: one parsed where a freed one was has another), the
 * provider, and the accounts' digests (the host's own key may change). Entries never change names, so the
 * next exchange of the same accounts finds them at once without comparing names. */
static __attribute__((tls_model("initial-exec"))) __thread struct {
    uint64_t generation; /* 0: none */
    const lg_provider *prov;
    size_t n;
    char digests[LG_STORE_MEMO_ACCOUNTS][LG_DIGEST_HEX];
    lg_store_memo memo;
} last_memo;

/* True when the n digests of a and b are the same bytes (fixed-size compares the compiler inlines). */
static bool same_digests(const char (*a)[LG_DIGEST_HEX], const char (*b)[LG_DIGEST_HEX], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(a[i], b[i], LG_DIGEST_HEX) != 0)
            return false;
    return true;
}

/* Starts a's memo from the thread's last one when that was made for the same accounts, else empty. */
static void recall_memo(lg_accounts *a, const lg_gate_request *req)
{
    __typeof__(last_memo) *l = &last_memo; /* one look-up of the thread's copy */
    uint64_t gen = req->cfg ? req->cfg->generation : 0;
    a->memo_kept = gen && l->generation == gen && l->prov == req->prov && l->n == a->n &&
                   a->n <= LG_STORE_MEMO_ACCOUNTS && same_digests(l->digests, a->digests, a->n);
    if (a->memo_kept)
        a->memo = l->memo;
    else
        memset(&a->memo, 0, sizeof a->memo);
}

/* Keeps a's memo, made (or made again: the store moved) during the exchange, for the thread's next one. */
static void remember_memo(const lg_accounts *a)
{
    __typeof__(last_memo) *l = &last_memo;
    if (a->memo_kept && a->memo.map == l->memo.map && a->memo.epoch == l->memo.epoch)
        return; /* the one recalled, still valid */
    uint64_t gen = a->req && a->req->cfg ? a->req->cfg->generation : 0;
    if (!a->memo.map || !gen || a->n > LG_STORE_MEMO_ACCOUNTS)
        return;
    l->generation = gen;
    l->prov = a->req->prov;
    l->n = a->n;
    memcpy(l->digests, a->digests, a->n * LG_DIGEST_HEX);
    l->memo = a->memo;
}

/* A fraction in [0, 1) that differs between requests and processes (xorshift, seeded per thread). */
static double request_jitter(void)
{
    static __attribute__((tls_model("initial-exec"))) __thread uint64_t state;
    uint64_t *p = &state, x = *p; /* one look-up of the thread's copy */
    if (!x)
        x = ((uint64_t)lg_mono_ms() << 20) ^ ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)p ^ 1;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *p = x;
    return (double)(x >> 11) / 9007199254740992.0;
}

bool lg_accounts_init(lg_accounts *a, const lg_gate_request *req)
{
    /* Every member before est is set here but these, cleared one by one (cheaper than clearing them all) */
    a->local = NULL;
    a->pool = NULL;
    memset(&a->ticket, 0, sizeof a->ticket);
    a->noticed = a->budget_noted = false;
    a->memo_kept = true; /* nothing for free to remember until recall_memo */
    a->req = req;
    a->n = req->prov->n_accounts;
    bool in = a->n <= LG_ACCOUNTS_INLINE;
    a->refs = in ? a->refs_in : calloc(a->n, sizeof *a->refs);
    a->digests = in ? a->digests_in : calloc(a->n, sizeof *a->digests);
    a->snapshot = in ? a->snapshot_in : calloc(a->n, sizeof *a->snapshot);
    if (!a->refs || !a->digests || !a->snapshot) {
        lg_accounts_free(a);
        return false;
    }
    memset(a->snapshot, 0, a->n * sizeof *a->snapshot);
    for (size_t i = 0; i < a->n; i++) {
        const lg_account *acct = &req->prov->accounts[i];
        if (acct->key)
            memcpy(a->digests[i], acct->digest, LG_DIGEST_HEX);
        else if (req->host_key)
            host_key_digest(req->host_key, a->digests[i]);
        else
            a->digests[i][0] = '\0'; /* unknown (not the previous request's, in a reused inline array) */
        a->refs[i].name = acct->name;
        a->refs[i].digest = a->digests[i];
    }
    recall_memo(a, req);
    a->jitter = request_jitter();
    const lg_provider *p = req->prov;
    size_t len = req->body ? req->body_len : 0;
    if (!a->est.body || a->est.body != req->body || a->est.body_len != len || a->est.dialect != p->dialect)
        lg_estimate_scan(p->dialect, req->body, len, &a->est); /* else made of this body by lg_exchange_read_body */
    a->est.body = NULL; /* taken: a later exchange scans its own body */
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
    a->scope = (lg_store_scope){.provider = p->name,
                                .refs = a->refs,
                                .n = a->n,
                                .accounts = p->accounts,
                                .dialect = p->dialect,
                                .est = &a->est,
                                .model_hash = model_hash(model),
                                .limits = a->limits,
                                .jitter = a->jitter,
                                .backoff = &req->cfg->backoff,
                                .retry = &req->cfg->retry,
                                .breaker = &p->breaker,
                                .memo = &a->memo};
    return true;
}

void lg_accounts_free(lg_accounts *a)
{
    remember_memo(a);
    if (a->refs != a->refs_in)
        free(a->refs);
    if (a->digests != a->digests_in)
        free(a->digests);
    if (a->snapshot != a->snapshot_in)
        free(a->snapshot);
    free(a->local);
    a->local = NULL; /* init clears the rest: clearing it here as well cost more than the frees */
    a->refs = a->refs_in;
    a->digests = a->digests_in;
    a->snapshot = a->snapshot_in;
    a->ticket.held = false;
}

/* What the store needs of this exchange (set up by init), with the pool as it stands now (the engine may
 * pin one after init). */
static const lg_store_scope *scope_of(lg_accounts *a)
{
    a->scope.pool = a->pool;
    return &a->scope;
}

/* The exchange's own slots, for when the store cannot be used: false when there is no memory for them
 * (then nothing is recorded). */
static bool local_slots(lg_accounts *a, lg_account_slot **ptrs, lg_slots *sl)
{
    if (!a->local) {
        if (!(a->local = calloc(a->n ? a->n : 1, sizeof *a->local)))
            return false;
        memset(&a->local_prov, 0, sizeof a->local_prov);
    }
    for (size_t i = 0; i < a->n; i++)
        ptrs[i] = &a->local[i];
    *sl = (lg_slots){.prov = &a->local_prov, .accounts = ptrs, .owner = a};
    return true;
}

lg_admission lg_accounts_admit(lg_accounts *a, size_t preferred, int64_t now_ms, int64_t deadline_ms,
                               const lg_admit_opts *opts)
{
    const lg_store_scope *sc = scope_of(a);
    lg_admission out = {0};
    if (lg_store_admit(a->req->store, sc, &a->ticket, preferred, now_ms, deadline_ms, opts, a->snapshot, &out) != 0) {
        lg_account_slot *ptrs[a->n + 1]; /* only here: the store's way sets none up */
        lg_slots sl;
        if (local_slots(a, ptrs, &sl)) {
            out = lg_slots_admit(&sl, sc, &a->ticket, preferred, now_ms, deadline_ms, opts);
            lg_slots_snapshot(&sl, a->n, a->snapshot);
        }
    }
    a->tokens = a->ticket.tokens;
    return out;
}

bool lg_accounts_confirm(lg_accounts *a, size_t idx, int64_t now_ms)
{
    const lg_store_scope *sc = scope_of(a);
    bool ok = false;
    if (lg_store_confirm(a->req->store, sc, &a->ticket, idx, now_ms, a->snapshot, &ok) == 0)
        return ok;
    lg_account_slot *ptrs[a->n + 1];
    lg_slots sl;
    if (local_slots(a, ptrs, &sl)) {
        ok = lg_slots_confirm(&sl, sc, &a->ticket, idx, now_ms);
        lg_slots_snapshot(&sl, a->n, a->snapshot);
    }
    return ok;
}

void lg_accounts_release(lg_accounts *a)
{
    if (!a->ticket.held)
        return;
    const lg_store_scope *sc = scope_of(a);
    if (lg_store_release(a->req->store, sc, &a->ticket) == 0)
        return;
    lg_account_slot *ptrs[a->n + 1];
    lg_slots sl;
    if (local_slots(a, ptrs, &sl))
        lg_slots_release(&sl, sc, &a->ticket);
}

bool lg_accounts_record(lg_accounts *a, size_t idx, const lg_outcome *o, const lg_response_view *resp,
                        int failure, int64_t now_ms)
{
    bool aside = false;
    const lg_store_scope *sc = scope_of(a);
    bool transport_failed = failure != 0;
    lg_breaker_note note = !transport_failed               ? lg_breaker_note_of(o)
                           : failure == LG_ATTEMPT_STALE || failure == LG_ATTEMPT_ABANDONED
                               ? LG_BREAKER_NOTE_NONE /* says nothing of the provider */
                                                         : LG_BREAKER_NOTE_FAILURE;
    lg_ratelimit_info info;
    bool learned = !transport_failed && resp && lg_ratelimit_parse(resp->headers, resp->n_headers, now_ms, &info);
    lg_store_attempt at = {.outcome = o,
                           .info = learned ? &info : NULL,
                           .transport_failed = transport_failed,
                           .first = !a->budget_noted,
                           .breaker = note,
                           .set_aside = &aside};
    a->budget_noted = true;
    if (lg_store_record(a->req->store, sc, &a->ticket, idx, &at, now_ms, a->snapshot) == 0)
        return aside;
    lg_account_slot *ptrs[a->n + 1]; /* declared after the store's way: it sets none up */
    lg_slots sl;
    if (local_slots(a, ptrs, &sl)) {
        lg_slots_record(&sl, sc, &a->ticket, idx, &at, now_ms);
        lg_slots_snapshot(&sl, a->n, a->snapshot);
    }
    return aside;
}

void lg_accounts_count(lg_accounts *a, size_t idx, lg_account_event ev, size_t to)
{
    const lg_store_scope *sc = scope_of(a);
    if (lg_store_count(a->req->store, sc, &a->ticket, idx, ev, to) == 0)
        return;
    lg_account_slot *ptrs[a->n + 1];
    lg_slots sl;
    if (local_slots(a, ptrs, &sl))
        lg_slots_count(&sl, sc, &a->ticket, idx, ev, to);
}

/* Runs op on the provider's slot in the store, else on the exchange's own. */
static void provider_op(lg_accounts *a, lg_prov_op *op)
{
    const lg_store_scope *sc = scope_of(a);
    if (lg_store_provider(a->req->store, sc, op) == 0)
        return;
    lg_account_slot *ptrs[a->n + 1];
    lg_slots sl;
    if (local_slots(a, ptrs, &sl))
        lg_slots_provider(&sl, sc, op);
}

bool lg_accounts_notice_due(lg_accounts *a, int64_t now_ms, int64_t interval_ms)
{
    lg_prov_op op = {.kind = LG_PROV_NOTICE, .now_ms = now_ms, .interval_ms = interval_ms};
    provider_op(a, &op);
    return op.due;
}

bool lg_accounts_budget_retry(lg_accounts *a, int64_t now_ms)
{
    lg_prov_op op = {.kind = LG_PROV_BUDGET_RETRY, .now_ms = now_ms};
    provider_op(a, &op);
    return op.ok;
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
