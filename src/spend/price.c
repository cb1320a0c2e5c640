/* Prices: which entry of the price table a request's model takes, and what its usage costs (see spend.h). */
#include <fnmatch.h>
#include <math.h>
#include <string.h>

#include "llmgate/spend.h"

/* True when entry e lists prices of provider p (by its name, else its preset's). */
static bool for_provider(const lg_price *e, const lg_provider *p)
{
    return !strcmp(e->provider, p->name) || (p->preset && !strcmp(e->provider, p->preset->name));
}

const lg_price *lg_price_find(const lg_config *c, const lg_provider *p, const char *model)
{
    if (!model || !*model)
        return NULL;
    for (size_t i = 0; i < c->n_prices; i++) {
        const lg_price *e = &c->prices[i];
        if (for_provider(e, p) &&
            (!strcmp(e->model, model) || (strpbrk(e->model, "*?[\\") && fnmatch(e->model, model, 0) == 0)))
            return e;
    }
    return NULL;
}

const lg_price *lg_price_dearest(const lg_config *c, const lg_provider *p)
{
    const lg_price *best = NULL;
    for (size_t i = 0; i < c->n_prices; i++) {
        const lg_price *e = &c->prices[i];
        if (for_provider(e, p) && (!best || e->output > best->output ||
                                   (e->output == best->output && e->input > best->input)))
            best = e;
    }
    return best;
}

/* The thread's last answer of lg_price_for and what it was asked: the config (its generation: one parsed
 * where a freed one was has another), the provider and the model. */
typedef struct {
    uint64_t generation; /* 0: none */
    const lg_provider *prov;
    char model[LG_PRICE_MEMO_MODEL];
    const lg_price *price;
    bool listed;
} price_memo;

/* A question other than the last one: answered from the table, remembered in *m when the model fits. Cold:
 * a host calls one model request after request. */
__attribute__((cold, noinline)) static const lg_price *price_for_new(price_memo *m, const lg_config *c,
                                                                     const lg_provider *p, const char *model,
                                                                     bool *listed)
{
    const lg_price *pr = lg_price_find(c, p, model);
    *listed = pr != NULL;
    if (!pr)
        pr = lg_price_dearest(c, p);
    size_t len = model ? strlen(model) : 0;
    if (c->generation && model && len < sizeof m->model) {
        m->generation = c->generation;
        m->prov = p;
        memcpy(m->model, model, len + 1);
        m->price = pr;
        m->listed = *listed;
    }
    return pr;
}

const lg_price *lg_price_for(const lg_config *c, const lg_provider *p, const char *model, bool *listed)
{
    static __attribute__((tls_model("initial-exec"))) __thread price_memo last;
    price_memo *m = &last; /* one look-up of the thread's copy */
    if (m->generation && m->generation == c->generation && m->prov == p && model && !strcmp(m->model, model)) {
        *listed = m->listed;
        return m->price;
    }
    return price_for_new(m, c, p, model, listed);
}

int64_t lg_price_cost_nusd(const lg_price *pr, const lg_tokens *u)
{
    int64_t cached = u->cached < 0 ? 0 : u->cached > u->input ? u->input : u->cached;
    /* USD per million tokens is nano-USD per 1000 tokens: one token costs price * 1000 nano-USD */
    double n = ((double)(u->input - cached) * pr->input + (double)cached * pr->cached_input +
                (double)u->output * pr->output) * 1000.0;
    return n <= 0 ? 0 : n >= 9e18 ? INT64_MAX : (int64_t)llround(n);
}
