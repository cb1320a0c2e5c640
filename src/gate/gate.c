/* The blocking driver of the exchange engine (see gate.h). */
#include <string.h>

#include "llmgate/clock.h"
#include "llmgate/engine.h"
#include "llmgate/gate.h"

/* Sleeps until the engine's WAIT step is due; when the host can give the request up (req->withdrawn), in
 * slices of LG_GATE_ASK_MS, asking it after each. False when the host gave it up. */
static bool sleep_until(const lg_gate_request *req, int64_t at_ms)
{
    for (int64_t ms; (ms = at_ms - lg_now_ms()) > 0;) {
        if (!req->withdrawn) {
            lg_sleep_ms(ms);
            return true;
        }
        lg_sleep_ms(ms < LG_GATE_ASK_MS ? ms : LG_GATE_ASK_MS);
        if (req->withdrawn(req->withdrawn_ctx))
            return false;
    }
    return true;
}

lg_gate_result lg_gate_run(const lg_gate_request *req, const lg_transport *t, void *ctx)
{
    lg_step step;
    lg_exchange *x = lg_exchange_begin(req, lg_now_ms(), &step);
    if (!x) { /* no memory for the exchange: the host's request as it is */
        lg_response_view resp = {0};
        lg_gate_result res = {.retry_after_ms = LG_NO_HINT, .attempts = 1};
        lg_attempt as_is = {.prov = req->prov};
        res.verdict = t->attempt(ctx, &as_is, &resp) == 0 ? LG_GATE_DELIVER : LG_GATE_TRANSPORT;
        res.status = resp.status;
        return res;
    }
    while (step.kind != LG_STEP_DONE) {
        if (step.kind == LG_STEP_WAIT) {
            if (sleep_until(req, step.at_ms))
                lg_exchange_on_timer(x, lg_now_ms(), &step);
            else
                lg_exchange_withdraw(x, &step);
            continue;
        }
        if (step.resend && t->rewind && !t->rewind(ctx)) {
            lg_exchange_cannot_resend(x, lg_now_ms(), &step);
            continue;
        }
        lg_response_view resp;
        memset(&resp, 0, sizeof resp);
        lg_attempt at = {.prov = step.prov, .key = step.key, .body = step.body, .body_len = step.body_len,
                         .tr = step.tr};
        int rc = t->attempt(ctx, &at, &resp);
        if (rc == 0)
            lg_exchange_on_response(x, &resp, lg_now_ms(), &step);
        else
            lg_exchange_on_transport_error(x, (lg_transport_failure)rc, lg_now_ms(), &step);
    }
    lg_exchange_free(x);
    return step.result;
}

const char *lg_gate_reason(const lg_gate_result *r) { return r->why ? r->why : lg_reason_name(r->outcome.reason); }

bool lg_gate_admit(const lg_gate_request *req, lg_gate_result *res)
{
    lg_step step;
    lg_exchange *x = lg_exchange_begin(req, lg_now_ms(), &step);
    memset(res, 0, sizeof *res);
    res->retry_after_ms = LG_NO_HINT;
    if (!x)
        return true; /* fail open */
    while (step.kind == LG_STEP_WAIT) {
        if (sleep_until(req, step.at_ms))
            lg_exchange_on_timer(x, lg_now_ms(), &step);
        else
            lg_exchange_withdraw(x, &step);
    }
    bool ok = step.kind != LG_STEP_DONE || (step.result.verdict != LG_GATE_REFUSED && step.result.verdict != LG_GATE_WITHDRAWN);
    if (!ok)
        *res = step.result;
    lg_exchange_free(x);
    return ok;
}
