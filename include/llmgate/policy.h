/* Retry policy: pure functions of an outcome, the accounts' states and the clock. No I/O, no sleeping. */
#ifndef LLMGATE_POLICY_H
#define LLMGATE_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/config.h"
#include "llmgate/outcome.h"

/* What every process knows about one account (lives in the shared store). */
typedef struct {
    int64_t cooldown_until_ms; /* Unix ms; the account is not used before this; 0 = available */
    lg_reason reason;          /* why it cools down (LG_REASON_NONE when it does not) */
    int32_t failures;          /* consecutive failure events, deduplicated */
    int64_t last_event_ms;     /* Unix ms of the last counted failure event; 0 = none */
    int64_t probe_until_ms;    /* Unix ms: a lone probe request is out on this key until then; 0 = none */
    lg_detail aside;           /* why the account is set aside for its cooldown (LG_DETAIL_BILLING: out of
                                  credit, backoff.billing_ms; LG_DETAIL_KEY_REFUSED: its key refused,
                                  backoff.key_refused_ms), LG_DETAIL_NONE when it only cools down */
} lg_account_state;

/* Per-request history, owned by the attempt loop. Zero-initialise, then set started_ms. */
typedef struct {
    int attempts;         /* attempts made so far, including the one just classified */
    int same_key_retries; /* retries on the current key after a rate limit (switch_on_first=false) */
    int server_retries;   /* retries on the current key after PROVIDER_DOWN */
    int64_t started_ms;   /* Unix ms when the request began */
    int64_t until_ms;     /* > 0: Unix ms no retry may start after, the host's own time limit for the
                             request when it ends before started_ms + max_rate_limit_wait_ms */
    bool replayable;      /* the body can be sent again */
    uint64_t refused;     /* accounts whose credentials the provider refused in this request (bit i: account
                             i, the first 64), never chosen again for it */
} lg_history;

typedef enum {
    LG_ACT_DELIVER = 0, /* hand this response to the host */
    LG_ACT_RETRY,       /* sleep delay_ms, then try again on account `account` */
    LG_ACT_GIVE_UP,     /* stop: deliver this (error) response normalized; waiting would pass the deadline */
} lg_action_kind;

typedef struct {
    lg_action_kind kind;
    size_t account;   /* account for the next attempt (RETRY) */
    int64_t delay_ms; /* sleep before it (RETRY) */
    bool switched;    /* account differs from the current one */
} lg_action;

/* Folds one classified response of account st into its state: dedup window, failure count reset after
 * reset_after_ms, cooldown by reason (quota steps by failures, server hint when longer / when given, clamped to
 * max_hint_ms, a time already past or an absurd hint ignored;
 * a short hint never shortens a quota lock; retry_at_ms honoured). n_accounts == 1 uses the single-account
 * exponential backoff as the cooldown. SUCCESS clears the cooldown (failures reset by time only).
 * NON_RETRYABLE changes nothing, except NON_RETRYABLE + QUOTA_EXHAUSTED, a billing block of this key,
 * which locks it like a quota rate limit. A failure within dedup_window_ms of the last counted one while
 * the key still cools down is the same event (not counted; only a hint or another reason can lengthen the
 * cooldown); one arriving after the cooldown ended is a new event. The cooldown never shortens.
 * A QUOTA_EXHAUSTED outcome with detail LG_DETAIL_BILLING sets the account aside: a cooldown of
 * billing_ms (a longer hint extends it), aside = BILLING; a NON_RETRYABLE outcome whose account was refused
 * (account_rejected: a 401, an invalid key) sets it aside for key_refused_ms, aside = KEY_REFUSED, so no
 * process tries the key again; SUCCESS ends either. Returns true when this outcome began the set-aside
 * (the account was not set aside before): the caller says so, once. */
bool lg_policy_record(const lg_backoff_conf *b, size_t n_accounts, lg_account_state *st, const lg_outcome *o,
                      int64_t now_ms);

#define LG_PROBE_LEASE_MS 10000 /* a probe whose outcome never comes frees the key after this */
#define LG_PROBE_POLL_MS 250     /* requests behind a probe look again this often */
#define LG_JITTER_MIN_MS 50      /* the spread of wake-ups after a cooldown: a tenth of the cooldown, */
#define LG_JITTER_MAX_MS 1000    /* within these bounds */

/* When a request may go on the key, at the earliest (now_ms or later), as far as its state goes: after its
 * cooldown, shifted by jitter (0 <= jitter < 1: the request's own fraction of the spread, so that processes
 * waiting for one cooldown do not all wake at once), and, while another request probes the key after a
 * failure, after the probe's outcome (looked at again every LG_PROBE_POLL_MS). */
int64_t lg_policy_ready_at(const lg_account_state *st, double jitter, int64_t now_ms);

/* A request admitted now on a key that failed and has not succeeded since becomes its probe: the others
 * wait for its outcome (lg_policy_record ends the probe) or for the lease to run out. True when this
 * request took the probe. */
bool lg_policy_claim_probe(lg_account_state *st, int64_t now_ms);

/* An attempt on the key failed in the transport (not the key's fault): a probe it was ends, so that the
 * others need not wait for its lease. */
void lg_policy_record_transport(lg_account_state *st);

/* Makes o's wait hint relative to now_ms and sane: retry_after_ms is the hint (retry_at_ms - now when only
 * a time was given) clamped to b->max_hint_ms, or LG_NO_HINT when there is none or it is a time already
 * past or absurd (over LG_HINT_ABSURD_MS); retry_at_ms becomes LG_NO_HINT. lg_policy_record applies the
 * same rule to an outcome not sanitized. */
void lg_policy_sanitize_hint(const lg_backoff_conf *b, lg_outcome *o, int64_t now_ms);

/* The longest cooldown the policy itself can set: max_hint_ms, or a longer configured quota step or default. */
int64_t lg_policy_longest_cooldown_ms(const lg_backoff_conf *b);

/* Shortens a cooldown running longer than any the policy can set now (max_hint_ms, or a longer configured
 * quota step or default): one restored from disk, or set under another configuration. True when it did. */
bool lg_policy_clamp_cooldown(const lg_backoff_conf *b, lg_account_state *st, int64_t now_ms);

/* Which of a provider's n accounts a request may use (usable[i]): only those of pool `pinned` when it is set
 * (a request pinned to a pool); else, with pool_fallback, those of the first pool (pools ordered by their
 * first account; an account without a pool is in the pool "") that still has an account not out of quota
 * at now_ms; else all. Returns how many are usable. */
size_t lg_policy_pool_filter(const lg_account *accts, const lg_account_state *states, size_t n, const char *pinned,
                             bool pool_fallback, int64_t now_ms, bool *usable);

/* Decides the next step after the attempt on account `current` got outcome o (already recorded into
 * states[current]). SUCCESS, NON_RETRYABLE (but for quota) and non-replayable requests are delivered;
 * h->attempts >= max_attempts gives up. Quota: switch at once to the next available account. 429-class
 * (RATE_LIMIT_EXCEEDED, UNKNOWN): switch after switch_delay_ms, or (switch_on_first_rate_limit false) retry
 * the same key once after same_key_retry_delay_ms, then switch after switch_after_retry_ms. Capacity and
 * server errors: same key up to max_server_retries times (hint, else exponential backoff), then switch
 * after switch_delay_ms. One account: the same key after its cooldown. No account available: the one that
 * frees soonest, after its cooldown. A retry that would start past started_ms + max_rate_limit_wait_ms
 * (or past until_ms, when set and sooner) gives up at once. Updates h only on RETRY (same_key_retries/server_retries counted, reset on switch).
 * An account whose credentials were refused (o->account_rejected) is marked in h->refused; the request
 * goes at once to the next account not refused (after its cooldown, within the deadline and max_attempts),
 * and no switch ever picks a refused account again; when none is left, the refusal is delivered as it came. */
/* The last time (Unix ms) a wait or retry of the request may end: h->started_ms + max_rate_limit_wait_ms,
 * or h->until_ms when set and sooner. */
int64_t lg_policy_deadline(const lg_retry_conf *r, const lg_history *h);

lg_action lg_policy_decide(const lg_retry_conf *r, const lg_backoff_conf *b, const lg_outcome *o,
                           const lg_account_state *states, size_t n, size_t current, lg_history *h,
                           int64_t now_ms);

/* Decides the next step after the attempt on `current` failed in the transport (h->attempts counts it;
 * the failure is not blamed on the key). A retryable failure (reset, refused, truncated) of a replayable
 * request is retried on the same account after the single-account exponential backoff, at most
 * max_server_retries times in a row; a stale connection's is retried at once, not counted as a server
 * retry; both within max_attempts and the request's deadline. llmgate's own attempt timeout (TIMED_OUT) is
 * retried like a retryable failure but at once (the engine moves it to the next account); an attempt the
 * host abandoned (ABANDONED) and anything else give up (the host sees the transport's own error). Updates h
 * only on RETRY (server_retries counted). */
lg_action lg_policy_decide_transport(const lg_retry_conf *r, const lg_backoff_conf *b, lg_transport_failure failure,
                                     size_t current, lg_history *h, int64_t now_ms);

/* Admission's choice between two candidate accounts, walked in order from the preferred one: the candidate
 * (it can go at at_ms; retry_ms > 0: only beyond the reservable horizon, ask again after that) beats the
 * best so far when it is the first one looked at, when it can be reserved and the best cannot, or when
 * both are alike in that and it can go earlier. */
bool lg_policy_admission_better(bool first, int64_t at_ms, int64_t retry_ms, int64_t best_at_ms,
                                int64_t best_retry_ms);

/* Whether the provider's "current" account (where new requests start) moves to the account admission chose:
 * only when the current one cools down at now_ms and the chosen one does not (a merely full account keeps
 * the mark, so requests stay on one key while it has room). */
bool lg_policy_hand_over(const lg_account_state *current, const lg_account_state *chosen, int64_t now_ms);

/* The account a new request starts on: `preferred` if available at now_ms, else the next available one
 * in order after it. When none is available returns the one that frees soonest and sets *wait_ms to the
 * time until then (else *wait_ms = 0). */
size_t lg_policy_choose(const lg_account_state *states, size_t n, size_t preferred, int64_t now_ms,
                        int64_t *wait_ms);

/* Whether a request that would wait wait_ms more on its provider (for admission, a cooldown or a backoff;
 * waited_ms: how long it already waited there) goes to its fallback at once instead: only when it has one
 * (has_fallback) and the whole wait would pass r->fallback_after_ms. */
bool lg_policy_fall_back_now(const lg_retry_conf *r, bool has_fallback, int64_t waited_ms, int64_t wait_ms);

/* The single-account backoff for the n-th consecutive failure: min(base * 2^(n-1), max). */
int64_t lg_policy_exp_backoff(const lg_backoff_conf *b, int32_t n);

#endif
