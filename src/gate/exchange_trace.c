/* The engine's debug lines: a phase change of an exchange, and the one line of a request's end (see
 * set_phase in exchange.c, the only caller, behind lg_log_debugging); and its notice that an account was
 * set aside. */
#include "gate/exchange_internal.h"
#include "llmgate/classify.h"
#include "llmgate/log.h"

/* The phases' names in trace lines, the one table of them. */
static const char *const phase_names[] = {
    [X_ADMIT] = "ADMIT", [X_CONFIRM] = "CONFIRM", [X_BACKOFF] = "BACKOFF", [X_SENT] = "SENT", [X_DONE] = "DONE",
};
_Static_assert(sizeof phase_names / sizeof *phase_names == X_DONE + 1, "a name for each phase");

/* The outcome word of a finished request's line: the last response's classification when the host gets
 * it, else what llmgate did instead. */
static const char *request_outcome(const lg_gate_result *res)
{
    switch (res->verdict) {
    case LG_GATE_DELIVER:
    case LG_GATE_DELIVERED:
        return lg_state_name(res->outcome.state);
    case LG_GATE_REFUSED:
        return "REFUSED";
    case LG_GATE_TRANSPORT:
        return "TRANSPORT_ERROR";
    case LG_GATE_PASS:
        return "PASS";
    case LG_GATE_WITHDRAWN:
        return "WITHDRAWN";
    }
    return "UNKNOWN";
}

/* The one debug line of a request's end: its provider, the name of the account that carried it ("-": none,
 * or the host's own credentials), the status the host sees (0: none), outcome, the attempts sent and the
 * time it waited. Never a key or a URL (a URL may carry a key). */
__attribute__((cold)) static void trace_request(const lg_exchange *x, const char *outcome)
{
    const lg_gate_result *res = &x->res;
    const lg_provider *p = x->req.prov;
    size_t idx = res->verdict == LG_GATE_PASS ? x->idx : res->account;
    bool carried = !x->bare && (res->attempts > 0 || res->verdict == LG_GATE_PASS) && idx < p->n_accounts;
    lg_log(LG_LOG_DEBUG, "[Request] %s account=%s status=%d outcome=%s attempts=%d waited_ms=%lld", p->name,
           carried ? p->accounts[idx].name : "-", res->status, outcome, res->attempts,
           (long long)x->waited_ms);
}

/* The debug lines of x's move to phase, for why (none when x already stands there): the move, and the
 * request's line when it ends there. */
void lg_exchange_trace_phase(const lg_exchange *x, x_phase phase, const char *why)
{
    if (x->phase == phase)
        return;
    lg_log(LG_LOG_DEBUG, "[Phase] %s %p: %s -> %s (%s)", x->req.prov->name, (const void *)x, phase_names[x->phase],
           phase_names[phase], why);
    if (phase == X_DONE)
        trace_request(x, request_outcome(&x->res));
}

/* The request's line for x freed before its end (the host closed its connection or removed its handle
 * while llmgate waited, or before an attempt's answer was read to its end): CANCELLED, the attempt out
 * counted. */
void lg_exchange_trace_cancelled(lg_exchange *x)
{
    if (x->phase == X_SENT) {
        x->res.attempts = x->sent + 1;
        x->res.account = x->idx;
    }
    x->res.status = 0;
    trace_request(x, "CANCELLED");
}

void lg_exchange_notice_aside(const lg_exchange *x, size_t idx)
{
    const lg_provider *p = x->req.prov;
    const lg_account_state *st = &x->a.snapshot[idx];
    int64_t min = (st->cooldown_until_ms - st->last_event_ms + 59999) / 60000;
    bool once = false; /* the store's record made this process the one to say it */
    const char *what = st->aside == LG_DETAIL_KEY_REFUSED ? "has its key refused by the provider" : "is out of credit";
    lg_notice(&once, "aside", 0, "%s: account %s %s (%s), set aside for %lld min or until `llmgate reset %s/%s`",
              p->name, p->accounts[idx].name, what, lg_detail_name(st->aside), (long long)(min > 0 ? min : 0),
              p->name, p->accounts[idx].name);
}
