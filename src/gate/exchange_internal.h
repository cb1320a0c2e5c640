/* The exchange engine's private state (src/gate/exchange.c, the state machine; exchange_local.c, the
 * answers it makes itself) and what plans a request's way before it (src/gate/exchange_plan.c): the chain
 * of providers it may go to, its pins, and the body each one is sent.
 * Private to src/gate. */
#ifndef LLMGATE_GATE_EXCHANGE_INTERNAL_H
#define LLMGATE_GATE_EXCHANGE_INTERNAL_H

#include "gate/accounts.h"
#include "llmgate/engine.h"
#include "llmgate/limiter.h"
#include "llmgate/spend.h"
#include "llmgate/translate.h"

#define CHAIN_MAX 8              /* a provider and its fallbacks */
#define BODY_COPY_MAX (8 << 20)  /* a larger body is not copied: no fallback, no rewrite for it */

typedef enum { /* named in exchange.c's phase_names, X_DONE last */
    X_ADMIT,   /* asking for admission (again at the timer); 0, where lg_exchange_begin's clear starts */
    X_CONFIRM, /* a place is reserved: confirm it at the timer */
    X_BACKOFF, /* waiting before asking for admission for a retry */
    X_SENT,    /* an attempt is out */
    X_DONE,
} x_phase;

struct lg_exchange {
    lg_gate_request req; /* our copy; req.prov is the provider now tried; host_key and pin cleared */
    const lg_provider *chain[CHAIN_MAX]; /* the request's provider, then its fallbacks (a pin: only one) */
    size_t n_chain, chain_i;
    char *body;          /* our copy of the host's body when a fallback or a rewrite may need it */
    size_t body_len;
    char *send_body;     /* the body for chain[chain_i] when it differs from the host's, or NULL */
    size_t send_body_len;
    lg_dialect host_dialect; /* the dialect the host speaks (its provider's) */
    bool translated;     /* chain[chain_i] speaks another dialect: send_body is translated, tr says how */
    bool url_stream, url_sse; /* a Gemini host's call streams, as SSE (alt=sse) */
    bool pinned;              /* a pin chose the provider or pool: routes do not apply */
    bool sep_known;           /* read_body looked for the pin separator in model: sep says where */
    char *sep;                /* the separator in model, or NULL (read while sep_known) */
    int sent;            /* attempts sent over all providers (a later one is a resend) */
    bool bare;           /* no account state could be set up: one attempt with the host's credentials */
    bool first;          /* the first admission is still pending (its failure is a local refusal) */
    bool waited;         /* the first admission had to wait */
    x_phase phase;       /* written by exchange.c's set_phase only, past the clear that starts it */
    size_t preferred;    /* account to ask for at the next admission */
    size_t idx;          /* account of the reservation or of the attempt out */
    int64_t deadline;
    int64_t wait_at;
    const char *wait_why;
    int64_t wait_began;  /* when the wait in progress began */
    bool recheck;        /* X_CONFIRM: the place is a lease's, admitted again (held) at each timer before
                            wait_at for a sooner one (lg_admission.recheck_ms) */
    int64_t waited_ms;   /* time spent in the waits that ended (admission rounds, backoffs) */
    int64_t prov_waited_ms; /* the part of it spent on the provider now tried (retry.fallback_after_ms) */
    lg_history h;
    int limited;         /* attempts answered with a rate limit */
    int64_t answer_bytes; /* the last response's body bytes (a usage estimate when it reports none) */
    bool answer_stream;   /* ... an event stream */
    lg_spend_ticket spend; /* what the request holds of the budgets (spend_gate.c) */
    const lg_provider *spend_prov; /* the provider spend was taken for (NULL: none yet) */
    bool has_before;     /* before holds an answer: ... */
    /* From here on, members lg_exchange_begin does not clear: each is set before it is read (a string:
     * its first byte). */
    char model[LG_MODEL_MAX]; /* the host's model, a pin suffix stripped */
    char url_model[LG_MODEL_MAX]; /* a Gemini host's model, from its URL ("" = none or another dialect) */
    char pool[LG_NAME_MAX];   /* the pool pinned to, "" = none */
    lg_translation tr;   /* read only while translated */
    char tr_path[LG_MODEL_MAX + 64];
    lg_accounts a;       /* lg_accounts_init; not read while bare */
    lg_gate_result res;  /* reset by lg_exchange_begin */
    lg_gate_result before; /* ... the last one a provider the request fell back from gave (not a success),
                            * or made itself: the host's answer when no fallback answers at all */
};

/* The body for provider p (malloc'd into *body, NULL: the host's as it is) and, when p speaks another
 * dialect than the host, the translation (into *tr and path). False when the request cannot go to p: a
 * translation refused (logged, reason set), or no memory for it. */
bool lg_exchange_body_for(const lg_exchange *x, const lg_provider *p, char **body, size_t *len, lg_translation *tr,
                          char *path, size_t path_cap, bool *translated, char reason[LG_TR_REASON_MAX]);

/* True when every account of p has a key of its own: the host's key is never sent to another provider. */
bool lg_exchange_own_keys(const lg_provider *p);

/* The pin of a request (X-Llmgate-Pin, or its model's suffix, stripped into x->model): a provider (the
 * chain is that one alone) or a pool of the request's provider. */
void lg_exchange_apply_pin(lg_exchange *x, const lg_gate_request *req);

/* Appends the request's fallbacks (those it may go to) to x->chain. */
void lg_exchange_build_chain(lg_exchange *x, const lg_gate_request *req);

/* The host's model (from the body), and a copy of the body when a fallback, a model map, a pin or a route
 * may need it. */
void lg_exchange_read_body(lg_exchange *x, const lg_gate_request *req);

/* The routing rule the request takes (routes configured, the request not pinned), after read_body: the
 * model it is sent as and the provider it goes to alone, or a local refusal (true, its message in refusal). */
bool lg_exchange_apply_routes(lg_exchange *x, const lg_gate_request *req, char refusal[LG_MESSAGE_MAX]);

/* The budgets a request admitted on account idx falls under (spend_gate.c), before its first attempt: true
 * when it may go (what it may spend reserved); false with x->res a local 429 in the host's format (reason
 * "budget") when one is spent. */
bool lg_exchange_spend_admit(lg_exchange *x, size_t idx, int64_t now_ms);
/* True when x, admitted on its provider's account idx, still has to ask that provider's budgets: its first
 * admission on a provider (the request's own, or a fallback's before anything is sent there). */
bool lg_exchange_spend_due(const lg_exchange *x);
/* The request's end (any, once): its reservation given back, its usage priced and added to the day's
 * aggregate and to its budgets. */
void lg_exchange_spend_end(lg_exchange *x);

/* The answers x makes itself (exchange_local.c), each filling x->res as the host will see it and
 * returning why, for the phase's trace; the caller ends x with it. A rate-limit answer (429, Retry-After
 * wait_ms) for a request no account of x's provider can admit in time (idx: the account that frees soonest;
 * a 401 when that one is set aside because its key was refused): */
__attribute__((cold)) const char *lg_exchange_answer_limited(lg_exchange *x, size_t idx, int64_t wait_ms, int64_t now);
/* ... a 503 for a request not sent because the provider's circuit breaker is open for wait_ms more: */
__attribute__((cold)) const char *lg_exchange_answer_circuit_open(lg_exchange *x, int64_t wait_ms);
/* ... a local error (status, msg) for a request refused before anything is sent (a route, a translation): */
__attribute__((cold)) const char *lg_exchange_answer_refused(lg_exchange *x, int status, const char *msg);
/* Keeps x->res in x->before (x->has_before) when it is an answer the host could be given (not a success, or
 * one x made itself), as x leaves its provider for a fallback. */
void lg_exchange_keep_before(lg_exchange *x, int64_t now);
/* ... the answer kept in x->before (x->has_before), made again (its bytes went with its attempt), for a
 * request whose fallbacks gave no answer (unreachable, timed out, cut short before the host had a byte): */
__attribute__((cold)) const char *lg_exchange_answer_before(lg_exchange *x);

/* The debug lines of x's move to phase, for why (none when x already stands there): the move, and the
 * request's line when it ends there (exchange_trace.c; called only when debugging). */
__attribute__((cold, noinline)) void lg_exchange_trace_phase(const lg_exchange *x, x_phase phase, const char *why);

/* The request's line for x freed before its end: CANCELLED, the attempt out counted in x->res. */
__attribute__((cold, noinline)) void lg_exchange_trace_cancelled(lg_exchange *x);
/* The one line on stderr that account idx of x's provider was set aside (out of credit, or its key refused):
 * its name, never its key. Called by the one process whose record set it aside. */
__attribute__((cold, noinline)) void lg_exchange_notice_aside(const lg_exchange *x, size_t idx);

#endif
