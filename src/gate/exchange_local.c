/* The answers the exchange makes itself, without asking the provider (see exchange_internal.h): every
 * account's key refused, no account able to admit in time, the circuit breaker open, a request refused
 * before anything is sent. Each fills x->res as the host will see it (status, outcome, message, the
 * account counted) and says why, for the phase's trace; exchange.c ends the exchange with it. */
#include <stdio.h>
#include <string.h>

#include "gate/exchange_internal.h"
#include "llmgate/classify.h"
#include "llmgate/log.h"

/* A synthesized 401 for a request whose every account has its key set aside as refused (idx frees soonest):
 * what the provider answered when it refused the key, without asking it again. */
static const char *key_refused(lg_exchange *x, size_t idx, int64_t now)
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
    return "refused: every key refused";
}

const char *lg_exchange_answer_limited(lg_exchange *x, size_t idx, int64_t wait_ms, int64_t now)
{
    const lg_account_state *st = &x->a.snapshot[idx];
    if (st->aside == LG_DETAIL_KEY_REFUSED && st->cooldown_until_ms > now)
        return key_refused(x, idx, now);
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
    return "refused: no account can admit in time";
}

const char *lg_exchange_answer_circuit_open(lg_exchange *x, int64_t wait_ms)
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
    return "refused: circuit open";
}

void lg_exchange_keep_before(lg_exchange *x, int64_t now)
{
    const lg_gate_result *r = &x->res;
    if (x->bare || !(r->verdict == LG_GATE_REFUSED || (r->verdict == LG_GATE_DELIVER && r->outcome.state != LG_STATE_SUCCESS)))
        return;
    x->before = *r;
    x->before.prov = x->req.prov;
    x->before.retry_after_ms = r->outcome.retry_after_ms > 0 ? r->outcome.retry_after_ms : lg_accounts_soonest_ms(&x->a, now);
    x->has_before = true;
}

const char *lg_exchange_answer_before(lg_exchange *x)
{
    const lg_provider *unreached = x->req.prov;
    lg_gate_result *res = &x->res;
    *res = x->before;
    res->verdict = LG_GATE_REFUSED;
    res->normalized = true;
    if (res->status < 400) /* an error a 2xx carried, or a local answer's: a status that says it */
        res->status = res->outcome.state == LG_STATE_PROVIDER_DOWN ? 503
                      : res->outcome.reason == LG_REASON_QUOTA_EXHAUSTED ||
                              res->outcome.state == LG_STATE_RETRYABLE_RATE_LIMIT
                          ? 429
                          : 502;
    size_t used = strnlen(res->outcome.message, sizeof res->outcome.message);
    snprintf(res->outcome.message + used, sizeof res->outcome.message - used, "%s(llmgate: its fallback %s gave no answer)",
             used ? " " : "", unreached->name);
    lg_log(LG_LOG_INFO, "[GiveUp] %s: fallback %s gave no answer, answering %d as %s answered",
           res->prov->name, unreached->name, res->status, res->prov->name);
    return "no answer from the fallback: the answer before it";
}

const char *lg_exchange_answer_refused(lg_exchange *x, int status, const char *msg)
{
    lg_gate_result *res = &x->res;
    res->verdict = LG_GATE_REFUSED;
    res->outcome.state = LG_STATE_NON_RETRYABLE;
    res->outcome.reason = LG_REASON_UNKNOWN;
    res->outcome.retry_after_ms = res->outcome.retry_at_ms = LG_NO_HINT;
    snprintf(res->outcome.message, sizeof res->outcome.message, "%s", msg);
    res->status = status;
    res->normalized = true;
    res->retry_after_ms = LG_NO_HINT;
    res->why = "route_refused";
    res->prov = x->req.prov;
    x->req.host_key = NULL;
    return "refused locally";
}
