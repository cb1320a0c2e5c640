/* Retry policy: folds outcomes into account states and decides the next step. Pure: no I/O, the clock is
 * a parameter. */
#include "llmgate/duration.h"
#include <string.h>

#include "llmgate/policy.h"

/* True when the outcome locks this key for billing/quota, whatever its state said. */
static bool is_quota(const lg_outcome *o)
{
    return o->reason == LG_REASON_QUOTA_EXHAUSTED &&
           (o->state == LG_STATE_RETRYABLE_RATE_LIMIT || o->state == LG_STATE_PROVIDER_DOWN ||
            o->state == LG_STATE_NON_RETRYABLE);
}

/* True when the outcome says the account is out of credit: it is set aside for billing_ms. */
static bool is_billing(const lg_outcome *o) { return is_quota(o) && o->detail == LG_DETAIL_BILLING; }

/* True when the provider refused the account's key: it is set aside for key_refused_ms. */
static bool is_refusal(const lg_outcome *o) { return o->state == LG_STATE_NON_RETRYABLE && o->account_rejected; }

/* Why the outcome sets its account aside: BILLING, KEY_REFUSED, or NONE. */
static lg_detail aside_of(const lg_outcome *o)
{
    return is_billing(o) ? LG_DETAIL_BILLING : is_refusal(o) ? LG_DETAIL_KEY_REFUSED : LG_DETAIL_NONE;
}

/* True when the outcome is a failure event of the key (counted, cools the key down). */
static bool is_failure_event(const lg_outcome *o)
{
    return o->state == LG_STATE_RETRYABLE_RATE_LIMIT || o->state == LG_STATE_PROVIDER_DOWN || is_quota(o) ||
           is_refusal(o);
}

/* True for overloads and server errors: retried on the same key a bounded number of times. */
static bool is_provider_down(const lg_outcome *o)
{
    return o->state == LG_STATE_PROVIDER_DOWN || o->reason == LG_REASON_MODEL_CAPACITY_EXHAUSTED ||
           o->reason == LG_REASON_SERVER_ERROR;
}

/* The server's wait hint in ms relative to now_ms (retry_after_ms, else retry_at_ms - now), clamped to
 * max_hint_ms; -1 when there is none, or it is a time already past or absurd (see lg_hint_clamp). */
static int64_t server_hint_ms(const lg_backoff_conf *b, const lg_outcome *o, int64_t now_ms)
{
    int64_t ms = -1;
    if (o->retry_after_ms >= 0)
        ms = o->retry_after_ms;
    else if (o->retry_at_ms > now_ms)
        ms = o->retry_at_ms - now_ms;
    return lg_hint_clamp(ms, b->max_hint_ms);
}

void lg_policy_sanitize_hint(const lg_backoff_conf *b, lg_outcome *o, int64_t now_ms)
{
    o->retry_after_ms = server_hint_ms(b, o, now_ms);
    o->retry_at_ms = LG_NO_HINT;
}

/* The configured default cooldown of a non-quota reason. */
static int64_t reason_default_ms(const lg_backoff_conf *b, lg_reason r)
{
    switch (r) {
    case LG_REASON_RATE_LIMIT_EXCEEDED:
        return b->rate_limit_exceeded_ms;
    case LG_REASON_MODEL_CAPACITY_EXHAUSTED:
        return b->model_capacity_exhausted_ms;
    case LG_REASON_SERVER_ERROR:
        return b->server_error_ms;
    default:
        return b->unknown_ms;
    }
}

/* The quota lock for the n-th consecutive failure: the configured step, the last step beyond them. */
static int64_t quota_step_ms(const lg_backoff_conf *b, int32_t failures)
{
    size_t steps = b->n_quota_steps < LG_QUOTA_STEPS_MAX ? b->n_quota_steps : LG_QUOTA_STEPS_MAX;
    if (steps == 0)
        return 0;
    size_t i = failures < 1 ? 0 : (size_t)failures - 1;
    return b->quota_exhausted_ms[i < steps ? i : steps - 1];
}

int64_t lg_policy_exp_backoff(const lg_backoff_conf *b, int32_t n)
{
    int64_t d = b->single_account_base_ms;
    for (int32_t i = 1; i < n && d > 0 && d < b->single_account_max_ms; i++)
        d *= 2;
    return d < b->single_account_max_ms ? d : b->single_account_max_ms;
}

/* The cooldown a failure event of outcome o earns, given the (already updated) failure count. */
static int64_t cooldown_ms(const lg_backoff_conf *b, size_t n_accounts, const lg_outcome *o, int32_t failures,
                           int64_t now_ms)
{
    int64_t hint = server_hint_ms(b, o, now_ms);
    if (is_refusal(o))
        return b->key_refused_ms; /* a wait the refusal names is no promise the key will work */
    if (is_billing(o))
        return hint > b->billing_ms ? hint : b->billing_ms;
    if (is_quota(o)) {
        int64_t step = quota_step_ms(b, failures);
        return hint > step ? hint : step;
    }
    if (hint >= 0)
        return hint;
    if (n_accounts == 1)
        return lg_policy_exp_backoff(b, failures);
    return reason_default_ms(b, o->reason);
}

bool lg_policy_record(const lg_backoff_conf *b, size_t n_accounts, lg_account_state *st, const lg_outcome *o,
                      int64_t now_ms)
{
    st->probe_until_ms = 0;
    if (o->state == LG_STATE_SUCCESS) {
        st->cooldown_until_ms = 0;
        st->reason = LG_REASON_NONE;
        st->aside = LG_DETAIL_NONE;
        return false;
    }
    if (!is_failure_event(o))
        return false;
    bool was_aside = st->aside != LG_DETAIL_NONE && st->cooldown_until_ms > now_ms;
    lg_reason reason = o->reason == LG_REASON_NONE ? LG_REASON_UNKNOWN : o->reason;
    /* A response within the dedup window while the key still cools down is the event already counted
     * (typically concurrent requests); one arriving after the cooldown ended is a new event. */
    bool same_event = st->last_event_ms != 0 && now_ms - st->last_event_ms < b->dedup_window_ms &&
                      now_ms < st->cooldown_until_ms;
    if (same_event) {
        /* Already counted: only a server hint, or a different reason, can still lengthen the cooldown. */
        if (reason == st->reason && (aside_of(o) == st->aside || aside_of(o) == LG_DETAIL_NONE) &&
            server_hint_ms(b, o, now_ms) < 0)
            return false;
    } else {
        if (st->last_event_ms == 0 || now_ms - st->last_event_ms >= b->reset_after_ms || st->failures < 1)
            st->failures = 1;
        else
            st->failures++;
        st->last_event_ms = now_ms;
    }
    int64_t until = now_ms + cooldown_ms(b, n_accounts, o, st->failures, now_ms);
    if (until >= st->cooldown_until_ms || st->reason == LG_REASON_NONE) {
        st->reason = reason;
        if (until > st->cooldown_until_ms)
            st->cooldown_until_ms = until;
    }
    lg_detail aside = aside_of(o);
    if (aside != LG_DETAIL_NONE)
        st->aside = aside;
    else if (!was_aside)
        st->aside = LG_DETAIL_NONE; /* an aside that ended is no reason of a new cooldown */
    return aside != LG_DETAIL_NONE && !was_aside;
}

int64_t lg_policy_longest_cooldown_ms(const lg_backoff_conf *b)
{
    int64_t m = b->max_hint_ms;
    const int64_t d[] = {b->rate_limit_exceeded_ms, b->model_capacity_exhausted_ms, b->server_error_ms,
                         b->unknown_ms, b->single_account_max_ms, b->billing_ms,
                         b->key_refused_ms};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        m = d[i] > m ? d[i] : m;
    for (int32_t k = 1; k <= LG_QUOTA_STEPS_MAX; k++)
        m = quota_step_ms(b, k) > m ? quota_step_ms(b, k) : m;
    return m;
}

bool lg_policy_clamp_cooldown(const lg_backoff_conf *b, lg_account_state *st, int64_t now_ms)
{
    int64_t cap = lg_policy_longest_cooldown_ms(b);
    if (st->cooldown_until_ms <= now_ms || st->cooldown_until_ms - now_ms <= cap)
        return false;
    st->cooldown_until_ms = now_ms + cap;
    return true;
}

int64_t lg_policy_deadline(const lg_retry_conf *r, const lg_history *h)
{
    int64_t d = h->started_ms + r->max_rate_limit_wait_ms;
    return h->until_ms > 0 && h->until_ms < d ? h->until_ms : d;
}

/* True when account i is in the mask of refused accounts (only the first 64 can be). */
static bool refused(uint64_t mask, size_t i) { return i < 64 && (mask >> i & 1); }

/* The first account after `from` (wrapping, `from` itself last), not in the refused mask, that is
 * available at now_ms, or n. */
static size_t next_available(const lg_account_state *s, size_t n, size_t from, uint64_t mask, int64_t now_ms)
{
    for (size_t k = 1; k <= n; k++) {
        size_t i = (from + k) % n;
        if (!refused(mask, i) && s[i].cooldown_until_ms <= now_ms)
            return i;
    }
    return n;
}

/* The account not in the refused mask whose cooldown ends first (ties: first in order after `from`), or n
 * when every account is refused. */
static size_t soonest(const lg_account_state *s, size_t n, size_t from, uint64_t mask)
{
    size_t best = n;
    for (size_t k = 1; k <= n; k++) {
        size_t i = (from + k) % n;
        if (!refused(mask, i) && (best == n || s[i].cooldown_until_ms < s[best].cooldown_until_ms))
            best = i;
    }
    return best;
}

size_t lg_policy_choose(const lg_account_state *states, size_t n, size_t preferred, int64_t now_ms,
                        int64_t *wait_ms)
{
    *wait_ms = 0;
    if (n == 0)
        return 0;
    preferred %= n;
    if (states[preferred].cooldown_until_ms <= now_ms)
        return preferred;
    size_t i = next_available(states, n, preferred, 0, now_ms);
    if (i < n)
        return i;
    i = soonest(states, n, (preferred + n - 1) % n, 0);
    *wait_ms = states[i].cooldown_until_ms - now_ms;
    return i;
}

/* A retry on another account after `delay` ms, or, when none is available, on the account that frees
 * soonest after its cooldown; never on an account in the refused mask (current is not in it). */
static lg_action switch_account(const lg_account_state *s, size_t n, size_t current, uint64_t mask, int64_t delay,
                                int64_t now_ms)
{
    lg_action a = {.kind = LG_ACT_RETRY, .account = current, .delay_ms = delay};
    size_t i = next_available(s, n, current, mask, now_ms);
    if (i == n || i == current) {
        i = soonest(s, n, current, mask);
        if (i == n) /* every other account refused: this one, after its cooldown */
            i = current;
        a.delay_ms = s[i].cooldown_until_ms > now_ms ? s[i].cooldown_until_ms - now_ms : 0;
    }
    a.account = i;
    return a;
}

/* A retry on the same account after its own cooldown. */
static lg_action wait_cooldown(const lg_account_state *s, size_t current, int64_t now_ms)
{
    int64_t left = s[current].cooldown_until_ms - now_ms;
    return (lg_action){.kind = LG_ACT_RETRY, .account = current, .delay_ms = left > 0 ? left : 0};
}

/* The retry step by case, before the deadline check. Counts same-key retries into h. */
static lg_action retry_step(const lg_retry_conf *r, const lg_backoff_conf *b, const lg_outcome *o,
                            const lg_account_state *s, size_t n, size_t current, lg_history *h, int64_t now_ms)
{
    uint64_t mask = h->refused;
    if (is_quota(o))
        return n > 1 ? switch_account(s, n, current, mask, 0, now_ms) : wait_cooldown(s, current, now_ms);
    if (is_provider_down(o)) {
        if (h->server_retries < r->max_server_retries) {
            int64_t hint = server_hint_ms(b, o, now_ms);
            h->server_retries++;
            return (lg_action){.kind = LG_ACT_RETRY,
                               .account = current,
                               .delay_ms = hint >= 0 ? hint : lg_policy_exp_backoff(b, h->server_retries)};
        }
        return n > 1 ? switch_account(s, n, current, mask, r->switch_delay_ms, now_ms) : wait_cooldown(s, current, now_ms);
    }
    if (n == 1)
        return wait_cooldown(s, current, now_ms);
    if (r->switch_on_first_rate_limit)
        return switch_account(s, n, current, mask, r->switch_delay_ms, now_ms);
    if (h->same_key_retries == 0) {
        h->same_key_retries++;
        return (lg_action){.kind = LG_ACT_RETRY, .account = current, .delay_ms = r->same_key_retry_delay_ms};
    }
    return switch_account(s, n, current, mask, r->switch_after_retry_ms, now_ms);
}

/* After the provider refused the credentials of account `current`: the next account not refused, at once
 * or after its cooldown, within max_attempts and the deadline; else the refusal is delivered as it came
 * (not normalized: it is no rate limit). */
static lg_action after_refusal(const lg_retry_conf *r, const lg_account_state *s, size_t n, size_t current,
                               lg_history *h, int64_t now_ms)
{
    uint64_t mask = h->refused | (current < 64 ? (uint64_t)1 << current : 0);
    lg_action a = switch_account(s, n, current, mask, 0, now_ms); /* current itself when none is left */
    if (a.account == current || h->attempts >= r->max_attempts || now_ms + a.delay_ms > lg_policy_deadline(r, h))
        return (lg_action){.kind = LG_ACT_DELIVER, .account = current};
    h->refused = mask;
    h->same_key_retries = h->server_retries = 0;
    a.switched = true;
    return a;
}

lg_action lg_policy_decide(const lg_retry_conf *r, const lg_backoff_conf *b, const lg_outcome *o,
                           const lg_account_state *states, size_t n, size_t current, lg_history *h,
                           int64_t now_ms)
{
    lg_action deliver = {.kind = LG_ACT_DELIVER, .account = current};
    if (!h->replayable || n == 0 || current >= n)
        return deliver;
    if (o->state == LG_STATE_NON_RETRYABLE && o->account_rejected)
        return after_refusal(r, states, n, current, h, now_ms);
    if (!is_failure_event(o))
        return deliver;
    if (h->attempts >= r->max_attempts)
        return (lg_action){.kind = LG_ACT_GIVE_UP, .account = current};
    lg_history next = *h;
    lg_action a = retry_step(r, b, o, states, n, current, &next, now_ms);
    if (now_ms + a.delay_ms > lg_policy_deadline(r, h))
        return (lg_action){.kind = LG_ACT_GIVE_UP, .account = current};
    a.switched = a.account != current;
    if (a.switched) {
        next.same_key_retries = 0;
        next.server_retries = 0;
    }
    *h = next;
    return a;
}

lg_action lg_policy_decide_transport(const lg_retry_conf *r, const lg_backoff_conf *b, lg_transport_failure failure,
                                     size_t current, lg_history *h, int64_t now_ms)
{
    lg_action give_up = {.kind = LG_ACT_GIVE_UP, .account = current};
    bool stale = failure == LG_ATTEMPT_STALE;
    /* a timed-out attempt has waited long enough already: the next one goes at once */
    int64_t delay = stale || failure == LG_ATTEMPT_TIMED_OUT ? 0 : lg_policy_exp_backoff(b, h->server_retries + 1);
    if (failure == LG_ATTEMPT_FATAL || failure == LG_ATTEMPT_ABANDONED || !h->replayable || (!stale && h->server_retries >= r->max_server_retries) ||
        h->attempts >= r->max_attempts || now_ms + delay > lg_policy_deadline(r, h))
        return give_up;
    if (stale)
        return (lg_action){.kind = LG_ACT_RETRY, .account = current};
    h->server_retries++;
    return (lg_action){.kind = LG_ACT_RETRY, .account = current, .delay_ms = delay};
}

int64_t lg_policy_ready_at(const lg_account_state *st, double jitter, int64_t now_ms)
{
    if (st->cooldown_until_ms > now_ms) {
        int64_t len = st->last_event_ms > 0 ? st->cooldown_until_ms - st->last_event_ms : 0;
        int64_t spread = len / 10 < LG_JITTER_MIN_MS ? LG_JITTER_MIN_MS : len / 10 > LG_JITTER_MAX_MS ? LG_JITTER_MAX_MS : len / 10;
        return st->cooldown_until_ms + (int64_t)(jitter * (double)spread);
    }
    if (st->probe_until_ms > now_ms)
        return st->probe_until_ms - now_ms < LG_PROBE_POLL_MS ? st->probe_until_ms : now_ms + LG_PROBE_POLL_MS;
    return now_ms;
}

bool lg_policy_claim_probe(lg_account_state *st, int64_t now_ms)
{
    if (st->reason == LG_REASON_NONE || st->cooldown_until_ms > now_ms || st->probe_until_ms > now_ms)
        return false;
    st->probe_until_ms = now_ms + LG_PROBE_LEASE_MS;
    return true;
}

void lg_policy_record_transport(lg_account_state *st) { st->probe_until_ms = 0; }

/* True when the account is locked for quota (out of it) at now_ms. */
static bool out_of_quota(const lg_account_state *st, int64_t now_ms)
{
    return st->reason == LG_REASON_QUOTA_EXHAUSTED && st->cooldown_until_ms > now_ms;
}

size_t lg_policy_pool_filter(const lg_account *accts, const lg_account_state *states, size_t n, const char *pinned,
                             bool pool_fallback, int64_t now_ms, bool *usable)
{
    const char *pool = pinned;
    if (!pool && pool_fallback) { /* the first pool, in order of appearance, with an account not out of quota */
        for (size_t i = 0; i < n && !pool; i++) {
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = !strcmp(accts[j].pool, accts[i].pool);
            for (size_t j = i; j < n && !seen && !pool; j++)
                if (!strcmp(accts[j].pool, accts[i].pool) && !out_of_quota(&states[j], now_ms))
                    pool = accts[i].pool;
        }
    }
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        usable[i] = !pool || !strcmp(accts[i].pool, pool);
        count += usable[i];
    }
    return count;
}

bool lg_policy_fall_back_now(const lg_retry_conf *r, bool has_fallback, int64_t waited_ms, int64_t wait_ms)
{
    return has_fallback && waited_ms + wait_ms > r->fallback_after_ms;
}

bool lg_policy_admission_better(bool first, int64_t at_ms, int64_t retry_ms, int64_t best_at_ms,
                                int64_t best_retry_ms)
{
    return first || (retry_ms == 0 && best_retry_ms != 0) || ((retry_ms == 0) == (best_retry_ms == 0) && at_ms < best_at_ms);
}

bool lg_policy_hand_over(const lg_account_state *current, const lg_account_state *chosen, int64_t now_ms)
{
    return current->cooldown_until_ms > now_ms && chosen->cooldown_until_ms <= now_ms;
}
