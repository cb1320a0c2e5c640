/* The gate's side of spend (see spend.h): a request's budgets before its admission, its usage and cost
 * at its end. One lock of the spend file each, when configured; nothing else on the request's path. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gate/exchange_internal.h"
#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "llmgate/translate.h"

/* The model x's provider is asked for: a Gemini call's (its URL), else the body's. */
static const char *model_of(lg_exchange *x)
{
    if (x->req.prov->dialect == LG_DIALECT_GOOGLE && !x->url_model[0] && x->req.url) {
        bool stream, sse;
        if (!lg_tr_gemini_call(x->req.url, x->url_model, sizeof x->url_model, &stream, &sse))
            x->url_model[0] = '\0';
    }
    if (x->url_model[0])
        return x->url_model;
    return x->bare ? x->model : x->a.est.model;
}

static lg_spend_key key_of(lg_exchange *x)
{
    const lg_provider *p = x->req.prov;
    size_t i = x->res.account < p->n_accounts ? x->res.account : 0;
    return (lg_spend_key){p->name, x->bare ? "host" : p->accounts[i].name, model_of(x),
                          x->req.program ? x->req.program : ""};
}

bool lg_exchange_spend_due(const lg_exchange *x)
{
    return !x->spend.ended && x->spend_prov != x->req.prov;
}

bool lg_exchange_spend_admit(lg_exchange *x, size_t idx, int64_t now_ms)
{
    const lg_config *cfg = x->req.cfg;
    if (x->spend_prov) /* a fallback: what the previous provider's budgets held is given back */
        lg_spend_settle(lg_spend_shared(cfg), cfg, &x->spend, &(lg_spend_key){0}, 0, NULL, now_ms);
    x->spend_prov = x->req.prov;
    x->res.account = idx; /* the account the budgets see */
    lg_spend_key k = key_of(x);
    bool listed;
    const lg_price *pr = lg_price_for(cfg, x->req.prov, k.model, &listed);
    int64_t out = x->a.est.output >= 0 ? x->a.est.output : LG_ESTIMATE_DEFAULT_OUTPUT;
    /* the conservative prompt estimate (the body's bytes / 4) and the output it may ask for: at most what
     * the request may spend, so that requests admitted at once cannot cross a budget together */
    lg_tokens u = {.input = x->a.est.text > x->a.est.envelope ? x->a.est.text : x->a.est.envelope, .output = out};
    int64_t reserve = pr ? lg_price_cost_nusd(pr, &u) : 0;
    lg_spend_refusal r = {0};
    if (lg_spend_admit(lg_spend_shared(cfg), cfg, &k, reserve, now_ms, &x->spend, &r))
        return true;
    char reset[32];
    time_t t = (time_t)(r.reset_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(reset, sizeof reset, "%Y-%m-%dT%H:%M:%SZ", &tm);
    lg_gate_result *res = &x->res;
    res->verdict = LG_GATE_REFUSED;
    res->outcome.state = LG_STATE_RETRYABLE_RATE_LIMIT;
    res->outcome.reason = LG_REASON_QUOTA_EXHAUSTED;
    res->outcome.retry_after_ms = r.reset_ms - now_ms;
    res->outcome.retry_at_ms = LG_NO_HINT;
    snprintf(res->outcome.message, sizeof res->outcome.message,
             "llmgate: budget \"%s\" (%g USD per %s) is spent; it resets at %s", r.budget->name, r.budget->usd,
             r.budget->per == LG_PER_HOUR ? "hour" : r.budget->per == LG_PER_MONTH ? "month" : "day", reset);
    res->status = 429;
    res->normalized = true;
    res->retry_after_ms = r.reset_ms - now_ms;
    res->why = "budget";
    res->account = idx;
    res->prov = x->req.prov;
    lg_log(LG_LOG_INFO, "[Budget] %s: budget %s spent, answering 429 locally", x->req.prov->name, r.budget->name);
    if (r.notice) {
        bool once = false;
        lg_notice(&once, r.budget->name, 0, "budget %s spent (%g USD per %s); requests refused until %s",
                  r.budget->name, r.budget->usd,
                  r.budget->per == LG_PER_HOUR ? "hour" : r.budget->per == LG_PER_MONTH ? "month" : "day", reset);
    }
    return false;
}

/* What x used: the provider's usage, else an estimate from the request and the answer when one came. */
static bool usage_of(const lg_exchange *x, lg_tokens *u)
{
    const lg_outcome *o = &x->res.outcome;
    memset(u, 0, sizeof *u);
    if (o->has_usage) {
        *u = (lg_tokens){o->prompt_tokens, o->cached_tokens, o->completion_tokens, false};
        return true;
    }
    if (x->sent == 0 || x->res.status < 200 || x->res.status >= 300 || x->answer_bytes <= 0)
        return false;
    /* no usage reported (a stream without its usage chunk): the prompt as estimated, the answer's text
     * at a token per 4 bytes (an event stream's framing counted out at a quarter of its bytes) */
    int64_t text = x->answer_bytes;
    if (x->answer_stream)
        text /= 4;
    *u = (lg_tokens){x->bare ? 0 : (x->a.est.text > 0 ? x->a.est.text : x->a.est.envelope), 0, (text + 3) / 4, true};
    return true;
}

void lg_exchange_spend_end(lg_exchange *x)
{
    const lg_provider *p = x->req.prov;
    if (x->spend.ended || !p || p->dialect == LG_DIALECT_NONE)
        return;
    x->spend.ended = true;
    const lg_config *cfg = x->req.cfg;
    bool counted = x->spend.n || x->sent > 0;
    if (!counted && !cfg->ledger_path)
        return;
    lg_spend_key k = key_of(x);
    lg_spend_counts d = {0};
    lg_tokens u = {0};
    int64_t budget_nusd = 0;
    bool listed = false;
    if (x->sent > 0) {
        d.requests = 1;
        d.waited_ms = (uint64_t)(x->waited_ms > 0 ? x->waited_ms : 0);
        int absorbed = x->limited - (x->res.outcome.state == LG_STATE_RETRYABLE_RATE_LIMIT ? 1 : 0);
        d.limited = (uint64_t)(absorbed > 0 ? absorbed : 0);
        if (usage_of(x, &u)) {
            d.input = (uint64_t)u.input;
            d.cached = (uint64_t)u.cached;
            d.output = (uint64_t)u.output;
            d.estimated = u.estimated;
            const lg_price *pr = lg_price_for(cfg, p, k.model, &listed);
            int64_t cost = pr ? lg_price_cost_nusd(pr, &u) : 0;
            d.cost_nusd = listed ? cost : 0;
            d.unpriced = !listed;
            budget_nusd = cost;
        }
    }
    int64_t now = lg_now_ms();
    if (counted) {
        lg_spend_settle(lg_spend_shared(cfg), cfg, &x->spend, &k, budget_nusd, x->sent > 0 ? &d : NULL, now);
        lg_spend_fleet_tick(lg_spend_shared(cfg), x->req.store, cfg, now);
    }
    if (cfg->ledger_path) {
        lg_ledger_entry e = {.at_ms = now, .pid = (long)getpid(), .key = k,
                             .status = x->res.status,
                             .reason = lg_gate_reason(&x->res), .attempts = x->sent,
                             .waited_ms = x->waited_ms, .tokens = u, .priced = listed, .cost_nusd = d.cost_nusd};
        lg_ledger_append(cfg->ledger_path, cfg->ledger_keep_days, &e);
    }
}
