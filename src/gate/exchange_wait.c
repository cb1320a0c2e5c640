/* The exchange engine's admission-wait policy (see exchange_internal.h): one admission round on the
 * provider now tried, and what a wait there becomes: waited (a WAIT step, logged, a long one noticed),
 * given up for the next provider of the chain when it would pass the deadline or retry.fallback_after_ms,
 * or answered locally when no account can admit in time (a 429, a 401 for keys set aside as refused, a
 * 503 for an open circuit breaker). Pure sequencing over the account state (accounts.c) and the policy's
 * rules (policy.c); exchange.c runs the rest of the state machine. */
#include <stdio.h>

#include "gate/exchange_internal.h"
#include "llmgate/limiter.h"
#include "llmgate/log.h"

#define NOTICE_AFTER_MS 3000     /* a wait this long gets a notice on stderr */
#define NOTICE_INTERVAL_MS 10000 /* at most one notice per provider this often, across processes */

/* A synthesized 401 for a request whose every account has its key set aside as refused (idx frees soonest):
 * what the provider answered when it refused the key, without asking it again. */
__attribute__((cold)) static void refuse_key(lg_exchange *x, size_t idx, int64_t now, lg_step *step)
{
    int64_t left_ms = x->a.snapshot[idx].cooldown_until_ms - now;
    const lg_provider *p = x->req.prov;
    lg_gate_result *res = &x->res;
    res->verdict = LG_GATE_REFUSED;
    res->outcome.state = LG_STATE_NON_RETRYABLE;
    res->outcome.reason = LG_REASON_UNKNOWN;
    res->outcome.account_rejected = true;
    res->outcome.retry_after_ms = res->outcome.retry_at_ms = LG_NO_HINT;
    snprintf(res->outcome.message, sizeof res->outcome.message,
             "llmgate: %s refused the key of account %s; it is set aside for %lld min more or until `llmgate reset "
             "%s/%s`", p->name, p->accounts[idx].name, (long long)((left_ms + 59999) / 60000), p->name,
             p->accounts[idx].name);
    res->status = 401;
    res->normalized = true;
    res->retry_after_ms = LG_NO_HINT; /* nothing to wait for */
    res->account = idx;
    lg_accounts_count(&x->a, idx, LG_EV_GIVEN_UP, 0);
    lg_log(LG_LOG_INFO, "[GiveUp] %s: every key set aside as refused, answering 401 locally", p->name);
    res->prov = p;
    set_phase(x, X_DONE, "refused: every key refused");
    step_done(step, res);
}

/* A synthesized rate-limit answer for a request refused without contacting the provider (a 401 when the
 * account that frees soonest is set aside because its key was refused). */
__attribute__((cold)) static void refuse(lg_exchange *x, size_t idx, int64_t wait_ms, int64_t now, lg_step *step)
{
    const lg_account_state *st = &x->a.snapshot[idx];
    if (st->aside == LG_DETAIL_KEY_REFUSED && st->cooldown_until_ms > now) {
        refuse_key(x, idx, now, step);
        return;
    }
    int64_t cool = st->cooldown_until_ms - now;
    if (cool > 0 && cool < wait_ms && wait_ms - cool <= LG_JITTER_MAX_MS)
        wait_ms = cool; /* this request's own wake-up jitter is no part of what the host is told */
    lg_gate_result *res = &x->res;
    res->verdict = LG_GATE_REFUSED;
    res->outcome.state = LG_STATE_RETRYABLE_RATE_LIMIT;
    res->outcome.reason = st->reason != LG_REASON_NONE ? st->reason : LG_REASON_RATE_LIMIT_EXCEEDED;
    res->outcome.retry_after_ms = wait_ms;
    res->outcome.retry_at_ms = LG_NO_HINT;
    snprintf(res->outcome.message, sizeof res->outcome.message,
             "llmgate: every account of %s is rate limited for %llds more (%s)", x->req.prov->name,
             (long long)((wait_ms + 999) / 1000), lg_reason_name(res->outcome.reason));
    res->status = 429;
    res->normalized = true;
    res->retry_after_ms = wait_ms;
    res->account = idx;
    lg_accounts_count(&x->a, idx, LG_EV_GIVEN_UP, 0);
    lg_log(LG_LOG_INFO, "[GiveUp] %s: no account can admit for %lldms, answering 429 locally", x->req.prov->name,
           (long long)wait_ms);
    res->prov = x->req.prov;
    set_phase(x, X_DONE, "refused: no account can admit in time");
    step_done(step, res);
}

/* A synthesized 503 for a request not sent because the provider's circuit breaker is open. */
__attribute__((cold)) static void circuit_open(lg_exchange *x, int64_t wait_ms, lg_step *step)
{
    lg_gate_result *res = &x->res;
    res->verdict = LG_GATE_REFUSED;
    res->outcome.state = LG_STATE_PROVIDER_DOWN;
    res->outcome.reason = LG_REASON_SERVER_ERROR;
    res->outcome.retry_after_ms = wait_ms;
    res->outcome.retry_at_ms = LG_NO_HINT;
    snprintf(res->outcome.message, sizeof res->outcome.message,
             "llmgate: %s is failing; its circuit breaker lets the next request through in %llds", x->req.prov->name,
             (long long)((wait_ms + 999) / 1000));
    res->status = 503;
    res->normalized = true;
    res->retry_after_ms = wait_ms;
    res->why = "circuit_open";
    res->prov = x->req.prov;
    lg_log(LG_LOG_INFO, "[Circuit] %s: open, answering 503 locally (next probe in %lldms)", x->req.prov->name,
           (long long)wait_ms);
    set_phase(x, X_DONE, "refused: circuit open");
    step_done(step, res);
}

/* A WAIT step until at, logged when it is issued; a long one is noticed on stderr, once per request at most,
 * and only when no process noticed one for this provider within NOTICE_INTERVAL_MS. */
__attribute__((cold)) static void wait_until(lg_exchange *x, x_phase phase, int64_t at, const char *why, int64_t now,
                                             lg_step *step)
{
    const lg_provider *p = x->req.prov;
    int64_t ms = at - now;
    lg_log(LG_LOG_INFO, "[Wait] %s: %s, waiting %lldms", p->name, why, (long long)ms);
    if (ms >= NOTICE_AFTER_MS && !x->a.noticed && lg_accounts_notice_due(&x->a, now, NOTICE_INTERVAL_MS))
        lg_notice(&x->a.noticed, p->name, NOTICE_INTERVAL_MS, "%s: %s, waiting %llds", p->name, why,
                  (long long)((ms + 999) / 1000));
    set_phase(x, phase, why);
    x->wait_began = now;
    x->wait_at = at;
    x->wait_why = why;
    step_start(step, LG_STEP_WAIT);
    step->at_ms = at;
    step->why = why;
}

/* True when a wait of wait_ms more on the provider now tried is not waited: the request has a fallback
 * and the whole wait there would pass retry.fallback_after_ms (lg_policy_fall_back_now). */
static bool fall_back_instead(const lg_exchange *x, int64_t wait_ms)
{
    bool has = x->chain_i + 1 < x->n_chain && (x->sent == 0 || x->h.replayable);
    return lg_policy_fall_back_now(&x->req.cfg->retry, has, x->prov_waited_ms, wait_ms);
}

/* One admission round on x->preferred: go now, wait for a reserved place (or to ask again), or, when no
 * account can admit before the deadline, refuse locally (first admission) or deliver the last response. */
void lg_exchange_admit(lg_exchange *x, int64_t now, lg_step *step)
{
    /* One store step: the circuit breaker, the admission, the first admission's counter. */
    lg_admit_opts opts = {.breaker = true, .count = x->first, .ev = x->waited ? LG_EV_WAITED : LG_EV_IMMEDIATE};
    lg_admission ad = lg_accounts_admit(&x->a, x->preferred, now, x->deadline, &opts);
    if (ad.breaker == LG_BREAKER_REJECT) {
        if (lg_exchange_fall_back(x, "circuit open", now, step))
            return;
        if (x->first)
            circuit_open(x, ad.breaker_retry_ms, step);
        else
            lg_exchange_finish(x, now, step);
        return;
    }
    if (ad.reserved && ad.at_ms <= now) {
        lg_exchange_admitted(x, ad.idx, true, now, step);
        return;
    }
    if ((ad.at_ms > x->deadline || fall_back_instead(x, ad.at_ms - now)) &&
        lg_exchange_fall_back(x, ad.at_ms > x->deadline ? "no account can admit in time" : "no account can admit soon", now, step))
        return;
    if (ad.at_ms > x->deadline) {
        if (x->first)
            refuse(x, ad.idx, ad.at_ms - now, now, step);
        else
            lg_exchange_finish(x, now, step);
        return;
    }
    x->waited = true;
    if (!ad.reserved) {
        wait_until(x, X_ADMIT, now + ad.retry_ms, "rate limits full beyond the reservable horizon", now, step);
        return;
    }
    x->idx = ad.idx;
    wait_until(x, X_CONFIRM, ad.at_ms,
               x->a.snapshot[ad.idx].cooldown_until_ms > now ? "all accounts rate limited" : "rate limit window full",
               now, step);
}

/* The policy chose a retry on `account` after delay_ms: wait, then ask for admission there. */
__attribute__((cold)) void lg_exchange_retry_after(lg_exchange *x, size_t account, int64_t delay_ms, const char *why,
                                              int64_t now, lg_step *step)
{
    x->preferred = account;
    if (delay_ms > 0 && fall_back_instead(x, delay_ms) && lg_exchange_fall_back(x, "no account can serve soon", now, step))
        return;
    if (delay_ms > 0)
        wait_until(x, X_BACKOFF, now + delay_ms, why, now, step);
    else
        lg_exchange_admit(x, now, step);
}

