/* The attempt loop of one exchange (see gate.h). */
#include <stdio.h>
#include <string.h>

#include "gate/accounts.h"
#include "llmgate/classify.h"
#include "llmgate/clock.h"
#include "llmgate/gate.h"
#include "llmgate/log.h"

#define NOTICE_AFTER_MS 3000     /* a wait this long gets a notice on stderr */
#define NOTICE_INTERVAL_MS 10000 /* at most one notice per provider this often, across processes */

/* Sleeps before the next attempt, telling the user when the wait is long: once per request at most, and
 * only when no process told it for this provider within NOTICE_INTERVAL_MS. */
static void wait_for(lg_accounts *a, int64_t ms, const char *why)
{
    const lg_provider *p = a->req->prov;
    if (ms <= 0)
        return;
    lg_log(LG_LOG_INFO, "[Wait] %s: %s, waiting %lldms", p->name, why, (long long)ms);
    if (ms >= NOTICE_AFTER_MS && !a->noticed && lg_accounts_notice_due(a, lg_now_ms(), NOTICE_INTERVAL_MS))
        lg_notice(&a->noticed, p->name, NOTICE_INTERVAL_MS, "%s: %s, waiting %llds", p->name, why,
                  (long long)((ms + 999) / 1000));
    lg_sleep_ms(ms);
}

/* The status the host should see for a final outcome: errors hidden in a 2xx become real statuses. */
static int host_status(const lg_outcome *o, int status)
{
    if (status >= 200 && status < 300) {
        if (o->state == LG_STATE_RETRYABLE_RATE_LIMIT)
            return 429;
        if (o->state == LG_STATE_PROVIDER_DOWN)
            return 503;
    }
    return status;
}

static bool is_failure(const lg_outcome *o)
{
    return o->state == LG_STATE_RETRYABLE_RATE_LIMIT || o->state == LG_STATE_PROVIDER_DOWN;
}

/* Fills a synthesized rate-limit outcome for a request refused without contacting the provider. */
static void refusal(lg_gate_result *res, const lg_accounts *a, size_t idx, int64_t wait_ms)
{
    const lg_account_state *st = &a->snapshot[idx];
    res->verdict = LG_GATE_REFUSED;
    res->outcome.state = LG_STATE_RETRYABLE_RATE_LIMIT;
    res->outcome.reason = st->reason != LG_REASON_NONE ? st->reason : LG_REASON_RATE_LIMIT_EXCEEDED;
    res->outcome.retry_after_ms = wait_ms;
    res->outcome.retry_at_ms = LG_NO_HINT;
    snprintf(res->outcome.message, sizeof res->outcome.message,
             "llmgate: every account of %s is rate limited for %llds more (%s)", a->req->prov->name,
             (long long)((wait_ms + 999) / 1000), lg_reason_name(res->outcome.reason));
    res->status = 429;
    res->normalized = true;
    res->retry_after_ms = wait_ms;
    res->account = idx;
}

/* Waits for admission (preferred account first, see lg_accounts_admit): a place is reserved in an account's
 * window, then slept for without any lock. False, with a refusal in res, when no account can admit before
 * the deadline. *waited is set when it slept. */
static bool admit(lg_accounts *a, const lg_gate_request *req, size_t preferred, int64_t deadline, size_t *idx,
                  bool *waited, lg_gate_result *res)
{
    for (;;) {
        int64_t now = lg_now_ms();
        lg_admission ad = lg_accounts_admit(a, preferred, now, deadline);
        if (ad.reserved && ad.at_ms <= now) {
            *idx = ad.idx;
            return true;
        }
        if (ad.at_ms > deadline) {
            refusal(res, a, ad.idx, ad.at_ms - now);
            lg_accounts_count(a, ad.idx, LG_EV_GIVEN_UP, 0);
            lg_log(LG_LOG_INFO, "[GiveUp] %s: no account can admit for %lldms, answering 429 locally",
                   req->prov->name, (long long)(ad.at_ms - now));
            return false;
        }
        *waited = true;
        if (!ad.reserved) {
            wait_for(a, ad.retry_ms, "rate limits full beyond the reservable horizon");
            continue;
        }
        wait_for(a, ad.at_ms - now,
                 a->snapshot[ad.idx].cooldown_until_ms > now ? "all accounts rate limited" : "rate limit window full");
        if (lg_accounts_confirm(a, ad.idx, lg_now_ms())) {
            *idx = ad.idx;
            return true;
        }
    }
}

/* The first admission of a request: counted as immediate or waited. */
static bool admit_first(lg_accounts *a, const lg_gate_request *req, int64_t deadline, size_t *idx,
                        lg_gate_result *res)
{
    bool waited = false;
    if (!admit(a, req, LG_PREFER_CURRENT, deadline, idx, &waited, res))
        return false;
    lg_accounts_count(a, *idx, waited ? LG_EV_WAITED : LG_EV_IMMEDIATE, 0);
    return true;
}

static void log_failure(const lg_provider *p, const lg_account *acct, int status, const lg_outcome *o)
{
    lg_log(LG_LOG_INFO, "[%s] %d provider=%s account=%s reason=%s retry_after_ms=%lld",
           o->state == LG_STATE_PROVIDER_DOWN ? "Down" : "RateLimit", status, p->name, acct->name,
           lg_reason_name(o->reason), (long long)o->retry_after_ms);
}

/* Admission before a retry on `preferred`; false when no account can admit before the deadline (the last
 * response is then delivered, normalized, as when the policy gives up). */
static bool readmit(lg_accounts *a, const lg_gate_request *req, size_t preferred, int64_t deadline, size_t *idx)
{
    bool waited = false;
    lg_gate_result scratch;
    memset(&scratch, 0, sizeof scratch);
    return admit(a, req, preferred, deadline, idx, &waited, &scratch);
}

lg_gate_result lg_gate_run(const lg_gate_request *req, const lg_transport *t, void *ctx)
{
    lg_gate_result res;
    memset(&res, 0, sizeof res);
    res.retry_after_ms = LG_NO_HINT;
    const lg_provider *p = req->prov;
    lg_accounts a;
    if (!lg_accounts_init(&a, req)) {
        lg_response_view resp = {0};
        res.verdict = t->attempt(ctx, NULL, &resp) == 0 ? LG_GATE_DELIVER : LG_GATE_TRANSPORT;
        res.status = resp.status;
        res.attempts = 1;
        return res;
    }
    lg_history h = {.started_ms = lg_now_ms(), .replayable = req->replayable};
    int64_t deadline = h.started_ms + req->cfg->retry.max_rate_limit_wait_ms;
    size_t idx;
    if (!admit_first(&a, req, deadline, &idx, &res)) {
        lg_accounts_free(&a);
        return res;
    }
    for (;;) {
        lg_response_view resp;
        memset(&resp, 0, sizeof resp);
        if (h.attempts > 0 && t->rewind && !t->rewind(ctx)) {
            lg_accounts_release(&a);
            break; /* cannot resend: deliver what we have */
        }
        int rc = t->attempt(ctx, p->accounts[idx].key, &resp);
        bool failed = rc != 0;
        h.attempts++;
        res.attempts = h.attempts;
        res.account = idx;
        res.status = resp.status;
        int64_t now = lg_now_ms();
        if (failed) {
            memset(&res.outcome, 0, sizeof res.outcome);
            res.outcome.state = LG_STATE_PROVIDER_DOWN;
            res.outcome.reason = LG_REASON_SERVER_ERROR;
            res.outcome.retry_after_ms = res.outcome.retry_at_ms = LG_NO_HINT;
            res.verdict = LG_GATE_TRANSPORT;
            lg_accounts_record(&a, idx, &res.outcome, NULL, true, now);
            int64_t delay = lg_policy_exp_backoff(&req->cfg->backoff, h.server_retries + 1);
            if (rc == LG_ATTEMPT_FATAL || !h.replayable || h.server_retries >= req->cfg->retry.max_server_retries ||
                h.attempts >= req->cfg->retry.max_attempts || now + delay > deadline)
                break;
            h.server_retries++;
            lg_log(LG_LOG_INFO, "[Retry] %s: transport failure on account=%s, retrying in %lldms", p->name,
                   p->accounts[idx].name, (long long)delay);
            lg_accounts_count(&a, idx, LG_EV_RETRY, 0);
            lg_sleep_ms(delay);
            if (!readmit(&a, req, idx, deadline, &idx))
                break;
            continue;
        }
        res.verdict = LG_GATE_DELIVER;
        lg_classify(p->dialect, &resp, &res.outcome);
        lg_policy_sanitize_hint(&req->cfg->backoff, &res.outcome, now);
        lg_accounts_record(&a, idx, &res.outcome, &resp, false, now);
        if (is_failure(&res.outcome))
            log_failure(p, &p->accounts[idx], resp.status, &res.outcome);
        if (resp.delivered) {
            res.verdict = LG_GATE_DELIVERED;
            break;
        }
        lg_action act = lg_policy_decide(&req->cfg->retry, &req->cfg->backoff, &res.outcome, a.snapshot, a.n,
                                         idx, &h, now);
        if (act.kind == LG_ACT_RETRY) {
            lg_accounts_count(&a, idx, LG_EV_RETRY, 0);
            if (act.switched) {
                lg_accounts_count(&a, idx, LG_EV_SWITCH, act.account);
                lg_log(LG_LOG_INFO, "[Account] %s: %s -> %s (%s)", p->name, p->accounts[idx].name,
                       p->accounts[act.account].name, lg_reason_name(res.outcome.reason));
            }
            wait_for(&a, act.delay_ms, act.switched ? "switching account" : "rate limited, backing off");
            if (!readmit(&a, req, act.account, deadline, &idx))
                break;
            continue;
        }
        if (act.kind == LG_ACT_GIVE_UP) {
            lg_accounts_count(&a, idx, LG_EV_GIVEN_UP, 0);
            lg_log(LG_LOG_INFO, "[GiveUp] %s: %s after %d attempts", p->name, lg_reason_name(res.outcome.reason),
                   h.attempts);
        }
        break;
    }
    if (res.verdict == LG_GATE_DELIVER && is_failure(&res.outcome)) {
        res.normalized = true;
        res.status = host_status(&res.outcome, res.status);
        int64_t soonest = lg_accounts_soonest_ms(&a, lg_now_ms());
        res.retry_after_ms = res.outcome.retry_after_ms > 0 ? res.outcome.retry_after_ms : soonest;
    }
    lg_accounts_free(&a);
    return res;
}

bool lg_gate_admit(const lg_gate_request *req, lg_gate_result *res)
{
    memset(res, 0, sizeof *res);
    res->retry_after_ms = LG_NO_HINT;
    lg_accounts a;
    if (!lg_accounts_init(&a, req))
        return true; /* fail open */
    size_t idx;
    bool ok = admit_first(&a, req, lg_now_ms() + req->cfg->retry.max_rate_limit_wait_ms, &idx, res);
    if (ok)
        lg_accounts_count(&a, idx, LG_EV_SENT, 0);
    lg_accounts_free(&a);
    return ok;
}
