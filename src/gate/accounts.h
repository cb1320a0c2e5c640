/* Shared-state access for one exchange: the accounts of one provider, read and updated through the store
 * (whichever backend it is), or in the exchange's own slots when the store cannot be used. Admission
 * reserves the request's place in the chosen account's window; the outcome of the attempt settles it. */
#ifndef LLMGATE_GATE_ACCOUNTS_H
#define LLMGATE_GATE_ACCOUNTS_H

#include "llmgate/gate.h"
#include "llmgate/limiter.h"
#include "llmgate/policy.h"
#include "llmgate/resilience.h"
#include "llmgate/store.h"

#define LG_ACCOUNTS_INLINE 4 /* a provider with this many accounts or fewer needs no allocation per request */

typedef struct {
    const lg_gate_request *req;
    size_t n;
    lg_account_ref *refs;            /* n of them: refs_in, or allocated for more than LG_ACCOUNTS_INLINE */
    char (*digests)[LG_DIGEST_HEX];  /* likewise */
    lg_account_slot *local;      /* allocated on first use when the store cannot be used */
    lg_account_state *snapshot;  /* states as last seen in the store (snapshot_in, or allocated) */
    lg_window_limits limits;     /* configured (or tier) limits; 0 = take the learned one, else unlimited */
    int64_t tokens;              /* the tokens reserved (or to reserve) for the request (lg_charge_admit) */
    double jitter;               /* this request's fraction of the wake-up spread after a cooldown, [0, 1) */
    const char *pool;            /* the pool the request is pinned to, or NULL (lg_policy_pool_filter) */
    lg_store_ticket ticket;      /* the place reserved for the next (or current) attempt */
    bool noticed;                /* this request already printed its long-wait notice */
    bool budget_noted;           /* the request counted toward the provider's retry budget (its first record) */
    lg_store_memo memo;          /* where the store found the accounts (scope.memo) */
    bool memo_kept;              /* memo is the thread's last exchange's (remember_memo: nothing to save) */
    /* From here on, members that init and local use fill before reading them (not cleared per request). */
    lg_estimate est;             /* what the body says about its cost */
    lg_store_scope scope;        /* what the store needs of the exchange (its pool: see pool) */
    lg_provider_slot local_prov; /* cleared when local is allocated */
    lg_account_ref refs_in[LG_ACCOUNTS_INLINE];
    char digests_in[LG_ACCOUNTS_INLINE][LG_DIGEST_HEX];
    lg_account_state snapshot_in[LG_ACCOUNTS_INLINE];
} lg_accounts;

/* Sets up the references of every account (the host's own key is identified by its digest), the limits
 * (configured, else the provider's tier preset for the body's model) and the token estimate of the body.
 * Returns false on allocation failure. */
bool lg_accounts_init(lg_accounts *a, const lg_gate_request *req);
void lg_accounts_free(lg_accounts *a);

/* Chooses the account for the next attempt and, when it can go by deadline_ms, reserves its place: the
 * preferred account (LG_PREFER_CURRENT: the provider's current one) when it can go now, else the first in
 * order after it that can, else the one that can go soonest (cooldowns and windows both counted). An
 * account cooling down hands the provider's "current" mark to the chosen one; a merely full one keeps it.
 * An account is ready per lg_policy_ready_at (cooldown with this request's jitter, a probe out); a request
 * admitted at once on a key that failed and has not succeeded since takes its probe. In the same store
 * step, per opts (NULL: none): the provider's circuit breaker asked first (out.breaker; a REJECT does
 * nothing else), opts->ev counted on an account admitted to go now. */
lg_admission lg_accounts_admit(lg_accounts *a, size_t preferred, int64_t now_ms, int64_t deadline_ms,
                               const lg_admit_opts *opts);

/* After sleeping until a reserved time: true when the account may still be used (taking its probe when it
 * needs one); false (the reservation released) when it started cooling down or another request probes it. */
bool lg_accounts_confirm(lg_accounts *a, size_t idx, int64_t now_ms);

/* Gives back a reservation that will not be used. */
void lg_accounts_release(lg_accounts *a);

/* Folds the outcome of an attempt on account idx into the shared state and counters, in one store step:
 * policy state, the window (settled to what the provider counted, lg_charge_settle), the calibration of
 * the prompt estimate (every account of the provider), what the response's rate-limit headers say (resp
 * may be NULL), the request counted toward the provider's retry budget (on its first record), the circuit
 * breaker told the outcome (lg_breaker_note_of); refreshes the snapshot (the store keeps long cooldowns
 * beyond its own life). failure, when not 0, says how the attempt failed in the transport (outcome.h):
 * nothing to record but the attempt itself (a probe it was ends), and the breaker told of a failure
 * unless the connection was only stale. True when the record set the account aside (out of credit; it
 * was not before, in any process: see lg_policy_record). */
bool lg_accounts_record(lg_accounts *a, size_t idx, const lg_outcome *o, const lg_response_view *resp,
                        int failure, int64_t now_ms);

/* Counts ev against account idx; LG_EV_SWITCH also makes `to` the provider's current account; LG_EV_SENT
 * counts a request sent without a classified outcome (plain host rules) and consumes the ticket;
 * LG_EV_FELL_BACK counts on the provider's slot. */
void lg_accounts_count(lg_accounts *a, size_t idx, lg_account_event ev, size_t to);

/* True (and the provider's shared notice time set to now_ms) when no process printed a long-wait notice for
 * this provider within interval_ms: the caller prints one. */
bool lg_accounts_notice_due(lg_accounts *a, int64_t now_ms, int64_t interval_ms);


/* Takes one retry from the provider's retry budget in the shared store (false when it has none left:
 * lg_budget_try_retry). */
bool lg_accounts_budget_retry(lg_accounts *a, int64_t now_ms);

/* Milliseconds until the soonest account is available (0 when one is now). From the snapshot. */
int64_t lg_accounts_soonest_ms(const lg_accounts *a, int64_t now_ms);

#endif
