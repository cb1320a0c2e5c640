/* The shared state of every process: account slots (policy state, counters, the admission window with its
 * reservations, learned limits) behind one interface with two backends chosen once at start: "shm", a
 * memory-mapped file (0600) under $XDG_RUNTIME_DIR shared by the processes of one machine, and "redis",
 * shared by a fleet of machines (falling back to the machine's shm store while Redis cannot be reached).
 * The gate never knows which one it talks to. Holds account digests, never keys. */
#ifndef LLMGATE_STORE_H
#define LLMGATE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/config.h"
#include "llmgate/lease.h"
#include "llmgate/limiter.h"
#include "llmgate/outcome.h"
#include "llmgate/policy.h"
#include "llmgate/resilience.h"
#include "llmgate/ungated.h"

typedef struct lg_store lg_store;

/* Counters since the store was created, per account. */
typedef struct {
    uint64_t requests;      /* attempts sent */
    uint64_t immediate;     /* requests admitted without waiting */
    uint64_t waited;        /* requests that had to wait */
    uint64_t rate_limited;  /* 429-class responses received */
    uint64_t retries;
    uint64_t switches;      /* switches away from this account */
    uint64_t given_up;
} lg_account_counters;

typedef struct {
    lg_account_state state;
    lg_account_counters counters;
    lg_window window; /* requests and tokens admitted per window, learned limits */
    lg_lease lease;   /* redis backend: the machine's share of the account's window in Redis */
} lg_account_slot;

/* Per-provider shared record. */
typedef struct {
    uint32_t current; /* index of the account new requests start on */
    int64_t notice_ms; /* Unix ms of the last long-wait notice any process printed for this provider */
    lg_budget budget;   /* the retry budget of every process */
    lg_breaker breaker; /* the circuit breaker of every process */
    uint64_t fell_back; /* requests that went on to a fallback provider from this one */
    uint64_t ungated;   /* connections and requests that went out ungated (lg_ungated) */
    int64_t ungated_notice_ms[LG_UNGATED_ROOM]; /* Unix ms of the last ungated line per cause, any process */
} lg_provider_slot;

/* Identity of an account in the store: account name and key digest ("" = unknown). */
typedef struct {
    const char *name;
    const char *digest;
} lg_account_ref;

/* Where the shm backend found a scope's entries, by index: for a scope of at most LG_STORE_MEMO_ACCOUNTS
 * accounts. Zeroed = nowhere yet. */
#define LG_STORE_MEMO_ACCOUNTS 4
typedef struct {
    const void *map;  /* the mapping the indices are valid in */
    uint64_t epoch;   /* shm stores closed in the process before it was made (a closed store's address may
                         come back as another's mapping) */
    size_t n;         /* the scope's n */
    uint32_t provider, accounts[LG_STORE_MEMO_ACCOUNTS];
} lg_store_memo;

/* One exchange's accounts, as every store operation sees them. */
typedef struct {
    const char *provider;
    const lg_account_ref *refs;
    size_t n;
    const lg_account *accounts;     /* the provider's n accounts (their pools, lg_policy_pool_filter) */
    lg_dialect dialect;             /* the charge model (lg_charge_admit, lg_charge_settle) */
    const lg_estimate *est;         /* what the request body says about its cost */
    uint32_t model_hash;            /* lg_model_hash(est->model), hashed once per request; 0: hashed where
                                       needed */
    lg_window_limits limits;        /* configured (or tier) limits; 0 = the learned one, else unlimited */
    double jitter;                  /* the request's fraction of the wake-up spread (lg_policy_ready_at) */
    const char *pool;               /* the pool the request is pinned to, or NULL */
    const lg_backoff_conf *backoff; /* lg_policy_record, lg_policy_clamp_cooldown */
    const lg_retry_conf *retry;     /* pool_fallback, the retry budget */
    const lg_breaker_conf *breaker; /* the provider's circuit breaker */
    lg_store_memo *memo;            /* the scope's own, kept between its steps (its provider and accounts
                                       never change), which the store fills; NULL: none */
} lg_store_scope;

/* A place reserved in one account's window, held by one exchange. Zeroed = none. */
typedef struct {
    bool held;
    size_t account;     /* index in the scope */
    int64_t bucket;     /* the window bucket (lg_window_reserve's ticket) */
    int64_t tokens;     /* the tokens reserved there (lg_charge_admit) */
    int64_t lease;      /* redis backend: the lease (lg_lease.id) the place was taken from, bucket its
                           bucket index; 0: none */
    int64_t at_ms;      /* a lease's place: when it may go */
    const void *owner;  /* the state it lives in (a backend, or an exchange's own slots) */
} lg_store_ticket;

/* The answer of one admission round. */
typedef struct {
    size_t idx;       /* the account chosen */
    int64_t at_ms;    /* when the request may go on it (a lower bound when not reserved) */
    bool reserved;    /* its place is reserved (a ticket is held) */
    int64_t retry_ms; /* not reserved: ask again after this long */
    int64_t recheck_ms; /* reserved ahead: a sooner place may come (a lease's); admit again, holding the
                           ticket, after this long (0: never) */
    lg_breaker_verdict breaker; /* the circuit breaker's verdict (ALLOW when not asked); REJECT: nothing else
                                   was done (no account chosen, nothing counted) */
    int64_t breaker_retry_ms;   /* REJECT: when the breaker's next probe may go */
} lg_admission;

#define LG_PREFER_CURRENT ((size_t)-1) /* admit: start from the provider's current account */

/* Counter events of a request that are not classified attempts. */
typedef enum {
    LG_EV_IMMEDIATE,
    LG_EV_WAITED,
    LG_EV_RETRY,
    LG_EV_SWITCH,
    LG_EV_GIVEN_UP,
    LG_EV_SENT,
    LG_EV_FELL_BACK, /* the request went on to a fallback provider (counted on the provider's slot) */
} lg_account_event;

/* The provider-wide bookkeeping an admission round does in the same step (lg_store_admit; NULL: none). */
typedef struct {
    bool breaker;        /* first ask the provider's circuit breaker (lg_breaker_admit); a REJECT ends the round */
    bool count;          /* count ev against the account when it is admitted to go now */
    lg_account_event ev; /* LG_EV_IMMEDIATE or LG_EV_WAITED (the request's first admission) */
} lg_admit_opts;

/* An operation on the provider's own slot (not its accounts'). */
typedef enum {
    LG_PROV_NOTICE,         /* due: no process printed a long-wait notice within interval_ms (then now) */
    LG_PROV_BUDGET_RETRY,   /* ok: lg_budget_try_retry (scope->retry's budget) */
    LG_PROV_BREAKER_ADMIT,  /* verdict, retry_after_ms: lg_breaker_admit (scope->breaker) */
    LG_PROV_ATTEMPT,        /* the provider-wide part of lg_store_record: first, note (see lg_store_attempt) */
    LG_PROV_UNGATED,        /* counts one ungated pass-through; due: no process printed a line for this cause
                               within interval_ms (then now) */
} lg_prov_kind;

typedef struct {
    lg_prov_kind kind;
    int64_t now_ms;
    int64_t interval_ms;  /* LG_PROV_NOTICE, LG_PROV_UNGATED */
    lg_ungated_cause cause; /* LG_PROV_UNGATED */
    bool first;           /* LG_PROV_ATTEMPT */
    lg_breaker_note note; /* LG_PROV_ATTEMPT */
    /* results */
    bool due, ok;
    lg_breaker_verdict verdict;
    int64_t retry_after_ms;
} lg_prov_op;

/* What one attempt came to, as the store records it. */
typedef struct {
    const lg_outcome *outcome;
    const lg_ratelimit_info *info; /* the response's rate-limit headers, or NULL */
    bool transport_failed;         /* nothing to record but the attempt itself */
    bool first;                    /* the request's first attempt on this provider: lg_budget_note_request */
    lg_breaker_note breaker;       /* what the provider's circuit breaker is told (lg_breaker_record) */
    bool *set_aside;               /* out, or NULL: set true when this record set the account aside (it was
                                      not before, in any process: lg_policy_record's return) */
} lg_store_attempt;

/* ---- Opening ---- */

/* Opens the backend the configuration names, once per process: "shm" (cfg->store_path or the default
 * file), or "redis" (cfg->redis_url; its local fallback is the default shm file). NULL with a message in
 * err when not even the local store can be opened (the caller fails open on per-exchange state). */
lg_store *lg_store_open_config(const lg_config *cfg, char *err, size_t errlen);

/* Opens (creating or rebuilding a corrupt/foreign-layout one) the shm store. path NULL = default
 * ($XDG_RUNTIME_DIR/llmgate/state.shm, else /tmp/llmgate-UID/state.shm). O_CLOEXEC, 0600.
 * NULL with a message in err on failure (the caller fails open). */
lg_store *lg_store_open(const char *path, char *err, size_t errlen);
void lg_store_close(lg_store *s);

/* What the store does at the process's exit (the redis backend: the leases this process was the last on
 * the machine to use go back to Redis), bounded by store.timeout_ms per call. errno is kept. */
void lg_store_at_exit(lg_store *s);

/* "shm" or "redis". */
const char *lg_store_backend(const lg_store *s);

/* The state file lg_store_open(path, ...) uses: path itself when non-NULL, else the default location
 * (the $XDG_RUNTIME_DIR one when that variable names a directory of ours, else the /tmp one).
 * Creates nothing. Returns false when the result does not fit in out. */
bool lg_store_resolve_path(const char *path, char *out, size_t outlen);

/* ---- Operations of one exchange. Each returns 0, or -1 when the store cannot be used now (nothing done:
 * the caller keeps per-exchange state). snap (scope->n entries) receives the accounts' states as seen;
 * the caller keeps it between calls, and lg_store_record folds the attempt into snap[idx] when a backend
 * computes the policy beside the store rather than in it (redis). ---- */

/* Chooses the account for the next attempt and, when it can go by deadline_ms, reserves its place in t:
 * the preferred account (LG_PREFER_CURRENT: the provider's current one) when it can go now, else the first
 * in order after it that can, else the one that can go soonest (cooldowns and windows both counted). An
 * account cooling down hands the provider's "current" mark to the chosen one; a merely full one keeps it.
 * A reservation still held in t is given back first. In the same step, per opts (NULL: none): the circuit
 * breaker asked first (a REJECT does nothing else), the event counted on an account admitted to go now. */
int lg_store_admit(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred, int64_t now_ms,
                   int64_t deadline_ms, const lg_admit_opts *opts, lg_account_state *snap, lg_admission *out);

/* *ok: account idx may still be used at now_ms; when it started cooling down the reservation is given
 * back and *ok is false. */
int lg_store_confirm(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, int64_t now_ms,
                     lg_account_state *snap, bool *ok);

/* Gives back a reservation that will not be used. */
int lg_store_release(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t);

/* Folds attempt a on account idx into the shared state: policy state (lg_policy_record), the window (a
 * refused request leaves it, real token usage replaces the estimate), the reported rate limits, the
 * attempt counter, and in the same step the provider's retry budget (a->first) and circuit breaker
 * (a->breaker). Long cooldowns (LG_PERSIST_MIN_MS) also outlive the store (see below). */
int lg_store_record(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                    const lg_store_attempt *a, int64_t now_ms, lg_account_state *snap);

/* Counts ev against account idx; LG_EV_SWITCH also makes `to` the provider's current account; LG_EV_SENT
 * counts a request sent without a classified outcome and consumes the ticket. */
int lg_store_count(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, lg_account_event ev,
                   size_t to);

/* Runs op on the provider's slot (see lg_prov_kind). */
int lg_store_provider(lg_store *s, const lg_store_scope *sc, lg_prov_op *op);

/* Visits every account slot (for `llmgate status`). Returns 0, or -1 when the store could not be read
 * (fn not called). */
typedef void (*lg_store_visit_fn)(const char *provider, const char *account, const char *digest,
                                  const lg_account_slot *slot, void *ctx);
int lg_store_visit(lg_store *s, lg_store_visit_fn fn, void *ctx);

/* Visits every provider's shared slot (for `llmgate status`: the breaker, the fallbacks counted).
 * Returns 0, or -1 when the store could not be read (fn not called). */
typedef void (*lg_store_provider_visit_fn)(const char *provider, const lg_provider_slot *slot, void *ctx);
int lg_store_visit_providers(lg_store *s, lg_store_provider_visit_fn fn, void *ctx);

/* ---- Counters a fleet shares through Redis (src/store/redis_counters.c; for spend's batches, never per
 * request). Keys are the caller's; the shm backend has none of these (-1). ---- */
typedef struct {
    const char *key, *field;
    int64_t delta;
} lg_store_hincr;

/* Adds every ops[i].delta to its hash field in one MULTI/EXEC round trip, each key then set to expire in
 * ttl_s seconds (a key's ops kept together); the fields' new values into out[i] (out may be NULL). Returns 0, or -1 when s is not a
 * redis store or Redis cannot be used now (then nothing is known to have been added; a failed batch
 * does not mark Redis down for the other operations). */
int lg_store_hincr_batch(lg_store *s, const lg_store_hincr *ops, size_t n, int64_t ttl_s, int64_t *out);
/* Calls fn for every field of the hash key (HGETALL) whose value is an integer. 0, or -1 as above. */
typedef void (*lg_store_hfield_fn)(const char *field, int64_t value, void *ctx);
int lg_store_hvisit(lg_store *s, const char *key, lg_store_hfield_fn fn, void *ctx);

/* ---- The same operations on slots the caller holds (under a backend's lock, or an exchange's own):
 * what every backend implements. owner identifies the slots; a ticket of another owner is forgotten. ---- */
typedef struct {
    lg_provider_slot *prov;
    lg_account_slot *const *accounts; /* scope->n of them */
    const void *owner;
} lg_slots;

/* Admission (as lg_store_admit): every account's cooldown clamped (lg_policy_clamp_cooldown), the usable
 * accounts per the pool filter, each ready per lg_policy_ready_at with the scope's jitter, the tokens the
 * dialect charges (lg_charge_admit, calibrated on the preferred account's window) reserved; an account
 * admitted to go now takes its probe (lg_policy_claim_probe). */
lg_admission lg_slots_admit(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred,
                            int64_t now_ms, int64_t deadline_ms, const lg_admit_opts *opts);
/* True (taking the probe when the key needs one) when account idx is ready at now_ms; else the
 * reservation is given back. */
bool lg_slots_confirm(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                      int64_t now_ms);
void lg_slots_release(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t);
/* Folds the attempt in (policy state, charge settlement and learned charge, calibration of every account,
 * learned limits; a transport failure ends a probe; the provider's budget and breaker per a->first and
 * a->breaker). Returns true when a long cooldown started, changed or ended (to be saved). */
bool lg_slots_record(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                     const lg_store_attempt *a, int64_t now_ms);
void lg_slots_count(const lg_slots *sl, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                    lg_account_event ev, size_t to);
void lg_slots_provider(const lg_slots *sl, const lg_store_scope *sc, lg_prov_op *op);
/* Copies the accounts' states into snap (may be NULL: nothing). Inline: every store step ends with it. */
static inline void lg_slots_snapshot(const lg_slots *sl, size_t n, lg_account_state *snap)
{
    if (snap)
        for (size_t i = 0; i < n; i++)
            snap[i] = sl->accounts[i]->state;
}

/* ---- Long cooldowns ---- */

#define LG_PERSIST_MIN_MS 60000 /* cooldowns longer than this also go to the state file */

/* Writes every cooldown of the shm store with more than LG_PERSIST_MIN_MS left to
 * $XDG_STATE_HOME/llmgate/cooldowns (else ~/.local/state/llmgate/; directory 0700, file 0600, written
 * beside and renamed into place, digests and names only). A store created fresh (after a reboot, or when
 * its file was removed or rebuilt) restores the cooldowns still running from it. Returns 0, or -1 when it
 * could not be written. Preserves errno. */
int lg_store_save_cooldowns(lg_store *s);

/* True when lg_store_save_cooldowns left cooldowns on disk, which a store created now would restore. */
bool lg_store_has_saved_cooldowns(void);

#endif
