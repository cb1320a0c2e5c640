/* The exchange engine's state machine (see engine.h). Decisions come from the pure policy (policy.c);
 * this file sequences them: admission rounds, attempts, backoffs, the final answer. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate/body_model.h"
#include "gate/exchange_internal.h"
#include "llmgate/classify.h"
#include "llmgate/engine.h"
#include "llmgate/limiter.h"
#include "llmgate/log.h"
#include "llmgate/translate.h"

#define NOTICE_AFTER_MS 3000     /* a wait this long gets a notice on stderr */
#define NOTICE_INTERVAL_MS 10000 /* at most one notice per provider this often, across processes */

/* The one writer of x->phase (the shape of libcurl's mstate()): moves x to phase, traced at debug level;
 * when debugging is off, one predictable branch. */
static inline void set_phase(lg_exchange *x, x_phase phase, const char *why)
{
    if (LG_UNLIKELY(lg_log_debugging))
        lg_exchange_trace_phase(x, phase, why);
    if (phase == X_DONE)
        lg_exchange_spend_end(x);
    x->phase = phase;
}

static bool is_failure(const lg_outcome *o)
{
    return o->state == LG_STATE_RETRYABLE_RATE_LIMIT || o->state == LG_STATE_PROVIDER_DOWN;
}

_Static_assert(offsetof(lg_step, result) + sizeof(lg_gate_result) == sizeof(lg_step), "result is the last member");

/* Starts *step as one of kind with every member before `result` cleared: result is read in a DONE step
 * only (engine.h), and clearing its 600 bytes at every step cost more than the rest of a step. */
static void step_start(lg_step *step, lg_step_kind kind)
{
    memset(step, 0, offsetof(lg_step, result));
    step->kind = kind;
}

/* The DONE step that delivers res: its message copied up to its end, not its whole buffer (most of the
 * result's bytes, which made this copy cost more than the rest of finishing). */
static void step_done(lg_step *step, const lg_gate_result *res)
{
    step_start(step, LG_STEP_DONE);
    lg_gate_result *to = &step->result;
    size_t head = offsetof(lg_gate_result, outcome.message);
    size_t tail = offsetof(lg_gate_result, outcome) + sizeof res->outcome;
    size_t len = strnlen(res->outcome.message, sizeof res->outcome.message - 1);
    memcpy(to, res, head);
    memcpy(to->outcome.message, res->outcome.message, len);
    to->outcome.message[len] = '\0';
    memcpy((char *)to + tail, (const char *)res + tail, sizeof *to - tail);
}

/* Ends the exchange with res as it stands; a failure to deliver is normalized (real status, Retry-After
 * from the server's hint or the soonest account, X-Llmgate-Reason). */
static void finish(lg_exchange *x, int64_t now, lg_step *step)
{
    lg_gate_result *res = &x->res;
    if (res->verdict == LG_GATE_DELIVER && !x->bare && is_failure(&res->outcome)) {
        res->normalized = true;
        res->status = lg_outcome_host_status(&res->outcome, res->status);
        int64_t soonest = lg_accounts_soonest_ms(&x->a, now);
        res->retry_after_ms = res->outcome.retry_after_ms > 0 ? res->outcome.retry_after_ms : soonest;
    }
    res->prov = x->req.prov;
    set_phase(x, X_DONE, "finished");
    step_done(step, res);
}

/* Ends x with the answer it made itself (exchange_local.c filled x->res; why: the phase's trace). */
__attribute__((cold)) static void end_locally(lg_exchange *x, const char *why, lg_step *step)
{
    set_phase(x, X_DONE, why);
    step_done(step, &x->res);
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

static bool fall_back(lg_exchange *x, const char *why, int64_t now, lg_step *step);

/* True when a wait of wait_ms more on the provider now tried is not waited: the request has a fallback
 * and the whole wait there would pass retry.fallback_after_ms (lg_policy_fall_back_now). */
static bool fall_back_instead(const lg_exchange *x, int64_t wait_ms)
{
    bool has = x->chain_i + 1 < x->n_chain && (x->sent == 0 || x->h.replayable);
    return lg_policy_fall_back_now(&x->req.cfg->retry, has, x->prov_waited_ms, wait_ms);
}

/* The SEND step of the attempt about to go out on x->idx. */
static void send_step(const lg_exchange *x, lg_step *step)
{
    step_start(step, LG_STEP_SEND);
    step->prov = x->req.prov;
    step->account = x->idx;
    step->key = x->bare ? NULL : x->req.prov->accounts[x->idx].key;
    step->resend = x->sent > 0;
    step->body = x->send_body;
    step->body_len = x->send_body_len;
    step->tr = x->translated ? &x->tr : NULL;
}

/* Admitted on account idx: the next attempt goes out (or, for a plain host rule, the host's own request),
 * unless the request's first attempt on this provider (its own, or a fallback) would start past a budget
 * (refused locally, its place given back).
 * counted: the admission already counted the request's first admission. */
static void admitted(lg_exchange *x, size_t idx, bool counted, int64_t now, lg_step *step)
{
    if (LG_UNLIKELY(x->req.cfg->n_budgets) && lg_exchange_spend_due(x) && !lg_exchange_spend_admit(x, idx, now)) {
        lg_accounts_release(&x->a);
        set_phase(x, X_DONE, "refused: a budget is spent");
        step_done(step, &x->res);
        return;
    }
    if (x->first && !counted)
        lg_accounts_count(&x->a, idx, x->waited ? LG_EV_WAITED : LG_EV_IMMEDIATE, 0);
    x->first = false;
    x->idx = idx;
    if (x->req.prov->dialect == LG_DIALECT_NONE) {
        lg_accounts_count(&x->a, idx, LG_EV_SENT, 0);
        x->res.verdict = LG_GATE_PASS;
        set_phase(x, X_DONE, "admitted: the host's own request");
        step_done(step, &x->res);
        return;
    }
    set_phase(x, X_SENT, "admitted");
    send_step(x, step);
}

/* One admission round on x->preferred: go now, wait for a reserved place (or to ask again), or, when no
 * account can admit before the deadline, refuse locally (first admission) or deliver the last response. */
static void admit(lg_exchange *x, int64_t now, lg_step *step)
{
    /* One store step: the circuit breaker, the admission, the first admission's counter. */
    lg_admit_opts opts = {.breaker = true, .count = x->first, .ev = x->waited ? LG_EV_WAITED : LG_EV_IMMEDIATE};
    lg_admission ad = lg_accounts_admit(&x->a, x->preferred, now, x->deadline, &opts);
    if (ad.breaker == LG_BREAKER_REJECT) {
        if (fall_back(x, "circuit open", now, step))
            return;
        if (x->first)
            end_locally(x, lg_exchange_answer_circuit_open(x, ad.breaker_retry_ms), step);
        else
            finish(x, now, step);
        return;
    }
    if (ad.reserved && ad.at_ms <= now) {
        admitted(x, ad.idx, true, now, step);
        return;
    }
    if ((ad.at_ms > x->deadline || fall_back_instead(x, ad.at_ms - now)) &&
        fall_back(x, ad.at_ms > x->deadline ? "no account can admit in time" : "no account can admit soon", now, step))
        return;
    if (ad.at_ms > x->deadline) {
        if (x->first)
            end_locally(x, lg_exchange_answer_limited(x, ad.idx, ad.at_ms - now, now), step);
        else
            finish(x, now, step);
        return;
    }
    x->waited = true;
    if (!ad.reserved) {
        wait_until(x, X_ADMIT, now + ad.retry_ms, "rate limits full beyond the reservable horizon", now, step);
        return;
    }
    x->idx = ad.idx;
    if (x->phase != X_CONFIRM || !x->recheck) /* else a look for a sooner place: the wait goes on, unlogged */
        wait_until(x, X_CONFIRM, ad.at_ms,
                   x->a.snapshot[ad.idx].cooldown_until_ms > now ? "all accounts rate limited" : "rate limit window full",
                   now, step);
    x->recheck = ad.recheck_ms > 0 && now + ad.recheck_ms < ad.at_ms;
    step_start(step, LG_STEP_WAIT);
    x->wait_began = now;
    x->wait_at = ad.at_ms;
    step->at_ms = x->recheck ? now + ad.recheck_ms : ad.at_ms;
    step->why = x->wait_why;
}

/* The policy chose a retry on `account` after delay_ms: wait, then ask for admission there. */
__attribute__((cold)) static void retry_after(lg_exchange *x, size_t account, int64_t delay_ms, const char *why,
                                              int64_t now, lg_step *step)
{
    x->preferred = account;
    if (delay_ms > 0 && fall_back_instead(x, delay_ms) && fall_back(x, "no account can serve soon", now, step))
        return;
    if (delay_ms > 0)
        wait_until(x, X_BACKOFF, now + delay_ms, why, now, step);
    else
        admit(x, now, step);
}

/* Sets up the account state for chain[chain_i], which is sent body (owned from now on, NULL: the host's);
 * false when it cannot (no memory). */
static bool enter_provider(lg_exchange *x, char *body, size_t len, bool translated, int64_t now)
{
    x->req.prov = x->chain[x->chain_i];
    free(x->send_body);
    x->send_body = body;
    x->send_body_len = len;
    x->translated = translated;
    x->req.body = body ? body : x->body;
    x->req.body_len = body ? len : x->body_len;
    bool ok = lg_accounts_init(&x->a, &x->req);
    x->req.body = NULL;
    x->req.body_len = 0;
    x->a.pool = x->pool[0] ? x->pool : NULL;
    x->h = (lg_history){.started_ms = now, .until_ms = x->h.until_ms, .replayable = x->h.replayable};
    x->deadline = lg_policy_deadline(&x->req.cfg->retry, &x->h);
    x->first = true;
    x->waited = false;
    x->prov_waited_ms = 0;
    x->preferred = LG_PREFER_CURRENT;
    return ok;
}

/* Goes on to the next provider of the chain (its own accounts, limits and policy), when there is one and
 * the request can be sent again. False when it cannot: the caller ends as it would without fallbacks. */
__attribute__((cold)) static bool fall_back(lg_exchange *x, const char *why, int64_t now, lg_step *step)
{
    if (x->sent > 0 && !x->h.replayable)
        return false;
    size_t next = x->chain_i + 1;
    char *body = NULL;
    size_t len = 0;
    bool translated = false;
    lg_translation tr;
    char path[sizeof x->tr_path], reason[LG_TR_REASON_MAX];
    while (next < x->n_chain &&
           !lg_exchange_body_for(x, x->chain[next], &body, &len, &tr, path, sizeof path, &translated, reason))
        next++; /* a request that cannot be translated faithfully is not sent there */
    if (next >= x->n_chain)
        return false;
    lg_exchange_keep_before(x, now); /* what the host gets if no fallback answers */
    const lg_provider *from = x->req.prov;
    lg_accounts_count(&x->a, x->idx < x->a.n ? x->idx : 0, LG_EV_FELL_BACK, 0);
    lg_accounts_release(&x->a);
    lg_accounts_free(&x->a);
    x->chain_i = next;
    lg_log(LG_LOG_INFO, "[Fallback] %s -> %s (%s%s)", from->name, x->chain[x->chain_i]->name, why,
           translated ? ", translated" : "");
    if (translated) {
        memcpy(x->tr_path, path, sizeof path);
        x->tr = tr;
        x->tr.path = x->tr_path;
    }
    if (!enter_provider(x, body, len, translated, now)) {
        x->bare = true;
        finish(x, now, step);
        return true;
    }
    admit(x, now, step);
    return true;
}

/* Resets r to no result yet (no hint): every member cleared but the message's bytes past its first. */
static void clear_result(lg_gate_result *r)
{
    size_t tail = offsetof(lg_gate_result, outcome) + sizeof r->outcome;
    memset(r, 0, offsetof(lg_gate_result, outcome.message));
    r->outcome.message[0] = '\0';
    memset((char *)r + tail, 0, sizeof *r - tail);
    r->retry_after_ms = LG_NO_HINT;
}

/* The last exchange freed, kept for the next one: an exchange is larger than what malloc caches per
 * thread, and allocating it anew cost more than the rest of lg_exchange_begin. Taken and put back
 * atomically (any thread); at most one is kept. */
static lg_exchange *spare;

lg_exchange *lg_exchange_begin(const lg_gate_request *req, int64_t now_ms, lg_step *step)
{
    lg_exchange *x = __atomic_exchange_n(&spare, NULL, __ATOMIC_ACQUIRE);
    if (LG_LIKELY(x)) /* req is copied below, chain[0] set and no later link read past n_chain; from model on, the rest
            * is set before it is read */
        memset(&x->n_chain, 0, offsetof(lg_exchange, model) - offsetof(lg_exchange, n_chain));
    else if (!(x = calloc(1, sizeof *x)))
        return NULL;
    x->model[0] = x->url_model[0] = x->pool[0] = '\0';
    x->a.est.body = NULL; /* no estimate made of this request's body yet (lg_exchange_read_body) */
    clear_result(&x->res);
    x->req = *req;
    x->req.pin = NULL;
    x->h.replayable = req->replayable;
    x->h.until_ms = req->max_wait_ms > 0 ? now_ms + req->max_wait_ms : 0; /* kept across fallbacks */
    x->chain[0] = req->prov;
    x->n_chain = 1;
    x->host_dialect = req->prov->dialect;
    if (req->reroutes) {
        lg_exchange_build_chain(x, req);
        lg_exchange_read_body(x, req);
    }
    if (req->prov->dialect != LG_DIALECT_NONE)
        lg_exchange_apply_pin(x, req);
    char refusal[LG_MESSAGE_MAX];
    if (LG_UNLIKELY(req->reroutes && lg_exchange_apply_routes(x, req, refusal))) {
        x->bare = true; /* no account state was set up */
        end_locally(x, lg_exchange_answer_refused(x, 403, refusal), step);
        return x;
    }
    if (!x->body) { /* nothing to rewrite or fall back with: the host's body as it is */
        x->req.body = req->body;
        x->req.body_len = req->body_len;
    }
    x->req.prov = x->chain[0];
    bool ok;
    if (LG_UNLIKELY(x->body)) {
        char *body, reason[LG_TR_REASON_MAX], msg[LG_MESSAGE_MAX];
        size_t len;
        bool translated;
        if (!lg_exchange_body_for(x, x->chain[0], &body, &len, &x->tr, x->tr_path, sizeof x->tr_path, &translated, reason)) {
            snprintf(msg, sizeof msg, "llmgate: the request cannot be sent to %s: %s", x->chain[0]->name, reason);
            x->bare = true;
            end_locally(x, lg_exchange_answer_refused(x, 400, msg), step);
            return x;
        }
        ok = enter_provider(x, body, len, translated, now_ms);
    } else {
        ok = lg_accounts_init(&x->a, &x->req);
        x->a.pool = x->pool[0] ? x->pool : NULL;
        x->h.started_ms = now_ms;
        x->deadline = lg_policy_deadline(&req->cfg->retry, &x->h);
        x->first = true;
        x->preferred = LG_PREFER_CURRENT;
    }
    x->bare = !ok;
    if (LG_UNLIKELY(x->bare && x->chain[0] != req->prov)) { /* the host's credentials never go to another provider */
        end_locally(x, lg_exchange_answer_refused(x, 503, "llmgate: out of memory for routing this request"), step);
        return x;
    }
    x->req.host_key = NULL;
    x->req.body = NULL;
    x->req.body_len = 0;
    if (!x->bare) {
        admit(x, now_ms, step);
        return x;
    }
    if (req->prov->dialect == LG_DIALECT_NONE) { /* fail open: pace nothing */
        x->res.verdict = LG_GATE_PASS;
        set_phase(x, X_DONE, "no account state: the host's own request");
        step_done(step, &x->res);
        return x;
    }
    set_phase(x, X_SENT, "no account state: the host's credentials");
    send_step(x, step);
    return x;
}

/* Counts the attempt whose outcome just came (its record counts the first on a provider toward the
 * provider's budget: lg_accounts_record). */
static void count_attempt(lg_exchange *x)
{
    x->h.attempts++;
    x->sent++;
    x->res.attempts = x->sent;
    x->res.account = x->idx;
}

/* True when the provider's retry budget lets this request retry (taking one retry from it). */
__attribute__((cold)) static bool within_budget(lg_exchange *x, int64_t now)
{
    if (lg_accounts_budget_retry(&x->a, now))
        return true;
    lg_log(LG_LOG_INFO, "[Budget] %s: retry budget spent, not retrying", x->req.prov->name);
    return false;
}

/* What a retry after outcome o waits for, in words (the wait's log line and notice). */
__attribute__((cold)) static const char *backoff_why(const lg_outcome *o)
{
    switch (o->reason) {
    case LG_REASON_SERVER_ERROR:
        return "server error, backing off";
    case LG_REASON_MODEL_CAPACITY_EXHAUSTED:
        return "provider overloaded, backing off";
    case LG_REASON_QUOTA_EXHAUSTED:
        return "quota exhausted, backing off";
    default:
        return o->state == LG_STATE_PROVIDER_DOWN ? "provider failing, backing off" : "rate limited, backing off";
    }
}

/* Logs a failed attempt. */
__attribute__((cold)) static void log_failure(const lg_exchange *x, int status, const lg_outcome *o)
{
    lg_log(LG_LOG_INFO, "[%s] %d provider=%s account=%s reason=%s retry_after_ms=%lld",
           o->state == LG_STATE_PROVIDER_DOWN ? "Down" : "RateLimit", status, x->req.prov->name,
           x->req.prov->accounts[x->idx].name, lg_reason_name(o->reason), (long long)o->retry_after_ms);
}

/* The step the exchange already stands at (an event that does not belong to its phase changes nothing). */
__attribute__((cold)) static void repeat(const lg_exchange *x, lg_step *step)
{
    if (x->phase == X_DONE) {
        step_done(step, &x->res);
    } else if (x->phase == X_SENT) {
        send_step(x, step);
    } else {
        step_start(step, LG_STEP_WAIT);
        step->at_ms = x->wait_at;
        step->why = x->wait_why;
    }
}

void lg_exchange_on_response(lg_exchange *x, const lg_response_view *resp, int64_t now_ms, lg_step *step)
{
    if (x->phase != X_SENT) {
        repeat(x, step);
        return;
    }
    lg_gate_result *res = &x->res;
    count_attempt(x);
    res->status = resp->status;
    res->verdict = resp->delivered ? LG_GATE_DELIVERED : LG_GATE_DELIVER;
    if (x->bare) {
        finish(x, now_ms, step);
        return;
    }
    const lg_provider *p = x->req.prov;
    lg_classify(p->dialect, resp, &res->outcome);
    x->limited += res->outcome.state == LG_STATE_RETRYABLE_RATE_LIMIT;
    x->answer_bytes = (int64_t)resp->body_len;
    x->answer_stream = resp->stream;
    lg_policy_sanitize_hint(&x->req.cfg->backoff, &res->outcome, now_ms);
    if (lg_accounts_record(&x->a, x->idx, &res->outcome, resp, 0, now_ms)) /* budget and breaker too */
        lg_exchange_notice_aside(x, x->idx);
    if (is_failure(&res->outcome))
        log_failure(x, resp->status, &res->outcome);
    if (resp->delivered) {
        finish(x, now_ms, step);
        return;
    }
    const lg_config *cfg = x->req.cfg;
    lg_action act = lg_policy_decide(&cfg->retry, &cfg->backoff, &res->outcome, x->a.snapshot, x->a.n, x->idx,
                                     &x->h, now_ms);
    /* Rate-limit retries are paced by cooldowns, probes and the limiter; the budget bounds the others. */
    if (act.kind == LG_ACT_RETRY && res->outcome.state == LG_STATE_PROVIDER_DOWN && !within_budget(x, now_ms))
        act.kind = LG_ACT_GIVE_UP;
    if (act.kind == LG_ACT_RETRY) {
        lg_accounts_count(&x->a, x->idx, LG_EV_RETRY, 0);
        if (act.switched) {
            lg_accounts_count(&x->a, x->idx, LG_EV_SWITCH, act.account);
            lg_log(LG_LOG_INFO, "[Account] %s: %s -> %s (%s)", p->name, p->accounts[x->idx].name,
                   p->accounts[act.account].name,
                   res->outcome.account_rejected ? "credentials refused" : lg_reason_name(res->outcome.reason));
        }
        retry_after(x, act.account, act.delay_ms, act.switched ? "switching account" : backoff_why(&res->outcome),
                    now_ms, step);
        return;
    }
    if (act.kind == LG_ACT_GIVE_UP) {
        lg_accounts_count(&x->a, x->idx, LG_EV_GIVEN_UP, 0);
        lg_log(LG_LOG_INFO, "[GiveUp] %s: %s after %d attempts", p->name, lg_reason_name(res->outcome.reason),
               x->h.attempts);
        if (fall_back(x, "retries spent", now_ms, step))
            return;
    } else if (res->outcome.account_rejected && fall_back(x, "every key refused", now_ms, step)) {
        return; /* the provider refused every account it had for the request: the next provider's turn */
    }
    finish(x, now_ms, step);
}

void lg_exchange_on_transport_error(lg_exchange *x, lg_transport_failure failure, int64_t now_ms, lg_step *step)
{
    if (x->phase != X_SENT) {
        repeat(x, step);
        return;
    }
    lg_gate_result *res = &x->res;
    count_attempt(x);
    res->status = 0;
    res->verdict = LG_GATE_TRANSPORT;
    memset(&res->outcome, 0, sizeof res->outcome);
    res->outcome.state = LG_STATE_PROVIDER_DOWN;
    res->outcome.reason = LG_REASON_SERVER_ERROR;
    res->outcome.retry_after_ms = res->outcome.retry_at_ms = LG_NO_HINT;
    if (x->bare) {
        finish(x, now_ms, step);
        return;
    }
    bool stale = failure == LG_ATTEMPT_STALE;
    lg_accounts_record(&x->a, x->idx, &res->outcome, NULL, (int)failure, now_ms); /* the breaker too */
    const lg_config *cfg = x->req.cfg;
    lg_action act = lg_policy_decide_transport(&cfg->retry, &cfg->backoff, failure, x->idx, &x->h, now_ms);
    if (act.kind != LG_ACT_RETRY || !within_budget(x, now_ms)) {
        if (failure != LG_ATTEMPT_FATAL && failure != LG_ATTEMPT_ABANDONED &&
            fall_back(x, "transport failures", now_ms, step))
            return;
        if (x->has_before && failure != LG_ATTEMPT_ABANDONED) /* no fallback answered: the answer before */
            end_locally(x, lg_exchange_answer_before(x), step);
        else
            finish(x, now_ms, step);
        return;
    }
    if (failure == LG_ATTEMPT_TIMED_OUT && x->a.n > 1)
        act.account = (x->idx + 1) % x->a.n; /* a hung account: the next one */
    lg_log(LG_LOG_INFO, "[Retry] %s: %s on account=%s, retrying in %lldms", x->req.prov->name,
           stale ? "kept-alive connection closed before an answer"
           : failure == LG_ATTEMPT_TIMED_OUT ? "attempt timed out (retry.attempt_timeout_ms, idle_timeout_ms)"
                                             : "transport failure",
           x->req.prov->accounts[x->idx].name, (long long)act.delay_ms);
    lg_accounts_count(&x->a, x->idx, LG_EV_RETRY, 0);
    retry_after(x, act.account, act.delay_ms, "transport failure, backing off", now_ms, step);
}

void lg_exchange_on_timer(lg_exchange *x, int64_t now_ms, lg_step *step)
{
    bool early = now_ms < x->wait_at, recheck = x->phase == X_CONFIRM && x->recheck;
    if (x->phase == X_DONE || x->phase == X_SENT || (early && !recheck)) {
        repeat(x, step);
        return;
    }
    x->waited_ms += now_ms - x->wait_began;
    x->prov_waited_ms += now_ms - x->wait_began;
    if (x->phase == X_CONFIRM && !early && lg_accounts_confirm(&x->a, x->idx, now_ms)) {
        admitted(x, x->idx, false, now_ms, step);
        return;
    }
    admit(x, now_ms, step);
}

void lg_exchange_withdraw(lg_exchange *x, lg_step *step)
{
    if (x->phase != X_ADMIT && x->phase != X_CONFIRM && x->phase != X_BACKOFF) {
        repeat(x, step);
        return;
    }
    lg_gate_result *res = &x->res;
    res->verdict = LG_GATE_WITHDRAWN;
    res->normalized = false;
    res->status = 0;
    res->prov = x->req.prov;
    lg_log(LG_LOG_INFO, "[Withdrawn] %s: the host gave the request up while it waited", x->req.prov->name);
    set_phase(x, X_DONE, "withdrawn");
    step_done(step, res);
}

void lg_exchange_cannot_resend(lg_exchange *x, int64_t now_ms, lg_step *step)
{
    if (x->phase != X_SENT || x->sent == 0) {
        repeat(x, step);
        return;
    }
    lg_accounts_release(&x->a);
    finish(x, now_ms, step);
}

void lg_exchange_free(lg_exchange *x)
{
    if (!x)
        return;
    if (LG_UNLIKELY(lg_log_debugging) && x->phase != X_DONE)
        lg_exchange_trace_cancelled(x);
    if (x->phase != X_DONE)
        lg_exchange_spend_end(x);
    if (!x->bare) {
        if (x->phase == X_SENT)
            x->a.ticket.held = false; /* the attempt went out: the provider may have counted it */
        lg_accounts_release(&x->a);
        lg_accounts_free(&x->a);
    }
    if (x->body) /* most exchanges hold neither, nor find a spare kept: no call for nothing */
        free(x->body);
    if (x->send_body)
        free(x->send_body);
    lg_exchange *old = __atomic_exchange_n(&spare, x, __ATOMIC_ACQ_REL);
    if (old)
        free(old);
}
