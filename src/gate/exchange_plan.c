/* How a request's way is planned before the engine admits it (see exchange_internal.h): its chain of
 * providers, its pins, its routing rule, and the body each provider is sent (a model mapped, a pin
 * stripped, a translation). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate/body_model.h"
#include "gate/exchange_internal.h"
#include "llmgate/log.h"
#include "llmgate/route.h"

/* The body for provider p (malloc'd into *body, NULL: the host's as it is) and, when p speaks another
 * dialect than the host, the translation (into *tr and path). False when the request cannot go to p: a
 * translation refused (logged), or no memory for it. */
bool lg_exchange_body_for(const lg_exchange *x, const lg_provider *p, char **body, size_t *len, lg_translation *tr,
                     char *path, size_t path_cap, bool *translated, char reason[LG_TR_REASON_MAX])
{
    *body = NULL;
    *len = 0;
    *translated = false;
    if (!x->body && p->dialect != x->host_dialect) { /* a body not held (too large, or read by a callback) */
        snprintf(reason, LG_TR_REASON_MAX, "the request body is not held, so it cannot be translated");
        lg_log(LG_LOG_DEBUG, "[Translate] %s -> %s: not sent there (%s)", lg_dialect_name(x->host_dialect),
               p->name, reason);
        return false;
    }
    if (!x->body)
        return true;
    const char *as = x->model[0] ? lg_provider_map_model(p, x->model) : NULL;
    lg_tr_dialect from, to;
    if (p->dialect != x->host_dialect) {
        lg_tr_request out = {0};
        if (!as && x->url_model[0])
            as = lg_provider_map_model(p, x->url_model);
        lg_tr_request_opts opts = {.model = as, .stream = x->url_stream};
        lg_tr_status st = LG_TR_MALFORMED;
        if (x->url_stream && !x->url_sse)
            snprintf(out.reason, sizeof out.reason, "a Gemini stream without alt=sse (one JSON array) is not translated");
        else if (lg_tr_dialect_of(x->host_dialect, &from) && lg_tr_dialect_of(p->dialect, &to))
            st = lg_tr_request_translate(from, to, x->body, x->body_len, &opts, &out);
        if (st == LG_TR_OK && !lg_tr_path(to, as, out.stream, path, path_cap)) {
            st = LG_TR_REFUSED;
            snprintf(out.reason, sizeof out.reason, "no %s path for the model", lg_tr_dialect_name(to));
        }
        if (st != LG_TR_OK) {
            snprintf(reason, LG_TR_REASON_MAX, "%s", st == LG_TR_NOMEM ? "out of memory" : out.reason);
            lg_log(LG_LOG_DEBUG, "[Translate] %s -> %s: not sent there (%s)", lg_dialect_name(x->host_dialect),
                   p->name, reason);
            free(out.body);
            return false;
        }
        *body = out.body;
        *len = strlen(out.body);
        *tr = (lg_translation){.path = path, .header = to == LG_TR_ANTHROPIC ? LG_TR_ANTHROPIC_VERSION : NULL,
                               .include_usage = out.include_usage};
        *translated = true;
        return true;
    }
    if (!as) /* no model in the body: nothing to map or strip */
        return true;
    size_t a, b;
    if (lg_body_model_span(x->body, x->body_len, &a, &b) && b - a == strlen(as) && !memcmp(x->body + a, as, b - a))
        return true;
    *body = lg_body_with_model(x->body, x->body_len, as, len);
    return true;
}

/* True when every account of p has a key of its own: the host's key is never sent to another provider. */
bool lg_exchange_own_keys(const lg_provider *p)
{
    for (size_t i = 0; i < p->n_accounts; i++)
        if (!p->accounts[i].key)
            return false;
    return true;
}

/* strstr(model, sep), looked for from the first occurrence of sep's first byte: a model name holds no
 * separator as a rule, and strchr tells so without strstr's set-up. */
static char *find_sep(char *model, const char *sep)
{
    if (!sep[0])
        return model;
    char *c = strchr(model, sep[0]);
    return c && sep[1] ? strstr(c, sep) : c;
}

/* The pin of a request, from its X-Llmgate-Pin header or its model's suffix ("gpt-4o:backup", stripped
 * into x->model): a provider of the same dialect (then the chain is that one alone) or a pool of the
 * request's provider (then its accounts are limited to it, and no fallback applies). */
void lg_exchange_apply_pin(lg_exchange *x, const lg_gate_request *req)
{
    const char *sep = req->cfg->retry.pin_separator;
    char *cut = !sep[0] ? NULL : x->sep_known ? x->sep : find_sep(x->model, sep); /* read_body's, once */
    const char *name = req->pin ? req->pin : cut ? cut + strlen(sep) : NULL;
    if (!name || !*name)
        return;
    const lg_provider *p = lg_config_provider(req->cfg, name);
    bool is_provider = req->reroutes && p && p->dialect == req->prov->dialect && p->dialect != LG_DIALECT_NONE &&
                       (p == req->prov || lg_exchange_own_keys(p));
    bool is_pool = false;
    for (size_t i = 0; i < req->prov->n_accounts && !is_provider && !is_pool; i++)
        is_pool = !strcmp(req->prov->accounts[i].pool, name);
    if (!is_provider && !is_pool) {
        lg_log(LG_LOG_DEBUG, "[Pin] %s: no provider or pool named by the pin, ignored", req->prov->name);
        return;
    }
    if (is_provider)
        x->chain[0] = p;
    else
        snprintf(x->pool, sizeof x->pool, "%s", name);
    x->n_chain = 1;
    x->pinned = true;
    if (cut && !req->pin)
        *cut = '\0';
    lg_log(LG_LOG_INFO, "[Pin] %s: pinned to %s %s", req->prov->name, is_provider ? "provider" : "pool", name);
}

/* The request's provider and its fallbacks, in order (names the configuration checked). */
void lg_exchange_build_chain(lg_exchange *x, const lg_gate_request *req)
{
    for (size_t i = 0; i < req->prov->n_fallback && x->n_chain < CHAIN_MAX; i++) {
        const lg_provider *p = lg_config_provider(req->cfg, req->prov->fallback[i]);
        lg_tr_dialect a, b;
        bool speaks = p && (p->dialect == req->prov->dialect ||
                            (lg_tr_dialect_of(p->dialect, &a) && lg_tr_dialect_of(req->prov->dialect, &b)));
        if (p && p != req->prov && speaks && lg_exchange_own_keys(p))
            x->chain[x->n_chain++] = p;
        else if (p && p != req->prov)
            lg_log(LG_LOG_DEBUG, "[Fallback] %s: %s is skipped (a dialect not translated, or no keys of its own)",
                   req->prov->name, p->name);
    }
}

/* The host's model (from the body), and a copy of the body when a fallback, a model map or a pin may
 * need it. */
void lg_exchange_read_body(lg_exchange *x, const lg_gate_request *req)
{
    size_t a, b;
    if (!req->body)
        return;
    /* One scan for the model and the estimate lg_accounts_init then takes (x->a.est names the body) */
    lg_estimate *e = &x->a.est;
    lg_estimate_scan(req->prov->dialect, req->body, req->body_len, e);
    bool has = LG_UNLIKELY(e->model_span < 0) ? lg_body_model_span(req->body, req->body_len, &a, &b)
                                 : (a = e->span_start, b = e->span_end, e->model_span > 0);
    if (has && b - a < sizeof x->model) {
        memcpy(x->model, req->body + a, b - a);
        x->model[b - a] = '\0';
    }
    if (req->prov->dialect == LG_DIALECT_GOOGLE && req->url &&
        !lg_tr_gemini_call(req->url, x->url_model, sizeof x->url_model, &x->url_stream, &x->url_sse))
        x->url_model[0] = '\0';
    bool maps = false;
    for (size_t i = 0; i < x->n_chain; i++)
        maps |= x->chain[i]->n_models > 0;
    x->sep = x->model[0] ? find_sep(x->model, req->cfg->retry.pin_separator) : NULL;
    x->sep_known = true;
    bool pinned = x->sep != NULL;
    if (LG_UNLIKELY((x->n_chain > 1 || (x->model[0] && maps) || pinned || req->cfg->n_routes) &&
                    req->body_len <= BODY_COPY_MAX && (x->body = malloc(req->body_len + 1)))) {
        memcpy(x->body, req->body, req->body_len);
        x->body[req->body_len] = '\0';
        x->body_len = req->body_len;
        e->body = x->body; /* the same bytes: the estimate holds for the copy sent in the host's place */
    }
}

bool lg_exchange_apply_routes(lg_exchange *x, const lg_gate_request *req, char refusal[LG_MESSAGE_MAX])
{
    const lg_config *cfg = req->cfg;
    if (!cfg->n_routes || x->pinned || req->prov->dialect == LG_DIALECT_NONE)
        return false;
    lg_estimate own; /* the body's estimate lg_exchange_read_body made, else one of its own */
    const lg_estimate *e = &x->a.est;
    if (!e->body || e->dialect != req->prov->dialect) {
        lg_estimate_scan(req->prov->dialect, req->body ? req->body : "", req->body ? req->body_len : 0, &own);
        e = &own;
    }
    lg_route_input in = {.model = x->model, .prompt_tokens = e->text, .program = req->program ? req->program : "",
                         .has_header = req->has_header, .ctx = req->header_ctx};
    int i = lg_route_find(cfg, &in);
    if (i < 0)
        return false;
    const lg_route *r = &cfg->routes[i];
    char what[512];
    lg_route_describe(r, what, sizeof what);
    lg_log(LG_LOG_INFO, "[Route] %s: routes[%d] (%s)", req->prov->name, i, what);
    if (r->refuse) {
        snprintf(refusal, LG_MESSAGE_MAX, "llmgate: refused by routes[%d]: %s", i, r->refuse);
        return true;
    }
    if (r->set_model && (x->body || !req->body)) /* without a copy of the body, nothing to rewrite */
        snprintf(x->model, sizeof x->model, "%s", r->set_model);
    const lg_provider *to = r->to ? lg_config_provider(cfg, r->to) : NULL;
    if (to && to != x->chain[0] && x->body && lg_exchange_own_keys(to)) {
        x->chain[0] = to;
        x->n_chain = 1;
    }
    return false;
}
