/* The exchange engine: one provider request's life (admission, attempts, retries, account switches, the
 * final answer) as a state object driven by events. It never sleeps, never blocks and does no network
 * I/O: it reads and updates the shared store under its lock (bookkeeping only) and logs. Every front end
 * (the libcurl easy and multi hooks, the socket and TLS hooks) adapts its transport to it:
 *
 *     lg_exchange *x = lg_exchange_begin(&req, now, &step);
 *     loop on step.kind:
 *       LG_STEP_SEND  send the request to step.prov with step.key (rewritten into headers/URL by the front
 *                     end; NULL: the host's own credentials) and step.body when set, never forwarding an
 *                     X-Llmgate-Pin header, rewinding the body first when step.resend (if it cannot:
 *                     lg_exchange_cannot_resend). Report the response with lg_exchange_on_response, or a
 *                     transport failure with lg_exchange_on_transport_error.
 *       LG_STEP_WAIT  nothing to do before step.at_ms (admission or backoff): sleep, or arm a timer and
 *                     return to the host's loop; then lg_exchange_on_timer. A timer that fires early gets
 *                     the same WAIT back. A host that gives the request up meanwhile: lg_exchange_withdraw.
 *       LG_STEP_DONE  step.result says what the host must see; lg_exchange_free.
 *
 * Times are wall-clock Unix milliseconds (lg_now_ms), since the store is shared between processes.
 * An exchange is used by one thread at a time. Freeing it in any state cancels it cleanly: a reservation
 * it holds is given back, nothing is recorded for an attempt whose response never came. */
#ifndef LLMGATE_ENGINE_H
#define LLMGATE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/gate.h"

typedef struct lg_exchange lg_exchange;

typedef enum {
    LG_STEP_SEND = 0, /* send one attempt */
    LG_STEP_WAIT,     /* wait until at_ms, then lg_exchange_on_timer */
    LG_STEP_DONE,     /* final: deliver `result` */
} lg_step_kind;

typedef struct {
    lg_step_kind kind;
    /* SEND */
    const lg_provider *prov; /* where it goes: the request's provider, a fallback or a route's target
                              * (its upstream, or its first host, and its auth style) */
    size_t account;        /* index into prov's accounts */
    const char *key;       /* that account's key; NULL: leave the host's own credentials */
    bool resend;           /* a retry: the request body must be sent again from its start */
    const char *body;      /* the body to send instead of the host's (a model mapped, a pin suffix
                            * stripped), valid until the next step; NULL: the host's own */
    size_t body_len;
    const lg_translation *tr; /* prov speaks another dialect than the host (body translated): its path,
                               * extra header, and the response to translate back; NULL: same dialect */
    /* WAIT */
    int64_t at_ms;         /* call lg_exchange_on_timer at or after this time */
    const char *why;       /* what it waits for (log text) */
    /* DONE */
    lg_gate_result result; /* verdict: DELIVER the last response (normalized when result.normalized),
                            * REFUSED (answer a synthesized 429 locally, nothing was sent), TRANSPORT (show the
                            * last attempt's own transport error), DELIVERED (the front end already gave the
                            * host a committed stream) */
} lg_step;

/* Starts an exchange for req (copied; req->host_key, req->body and req->pin are read only during this call:
 * the exchange keeps its own copy of the body when a fallback or a rewrite may need it). Sets
 * the first step. Returns NULL when it cannot allocate: the front end then passes the request through
 * untouched. */
lg_exchange *lg_exchange_begin(const lg_gate_request *req, int64_t now_ms, lg_step *step);

/* The attempt of the last SEND step got a response (resp->delivered: the front end already committed it to
 * the host, so it is final whatever it is). resp is read during this call only. */
void lg_exchange_on_response(lg_exchange *x, const lg_response_view *resp, int64_t now_ms, lg_step *step);

/* The attempt of the last SEND step failed in the transport, as `failure` says (outcome.h): retryable
 * (connection refused or reset, truncated body: a bounded retry, blamed on the account and the provider),
 * stale (a kept-alive connection found closed: sent again at once, blamed on nobody) or fatal (timeout,
 * TLS failure, aborted by the host: shown at once). */
void lg_exchange_on_transport_error(lg_exchange *x, lg_transport_failure failure, int64_t now_ms, lg_step *step);

/* The time of the last WAIT step has come (or the front end woke early: the WAIT is repeated). */
void lg_exchange_on_timer(lg_exchange *x, int64_t now_ms, lg_step *step);

/* The host gave the request up during a WAIT step (its progress callback asked to abort): a DONE step with
 * LG_GATE_WITHDRAWN, nothing to deliver (a reservation held goes back when x is freed; nothing is recorded).
 * In any other phase the step the exchange stands at is repeated. */
void lg_exchange_withdraw(lg_exchange *x, lg_step *step);

/* The SEND step was a resend and the front end cannot rewind the body: the last response is final. */
void lg_exchange_cannot_resend(lg_exchange *x, int64_t now_ms, lg_step *step);

/* Ends the exchange in whatever state it is (see above). NULL-safe. */
void lg_exchange_free(lg_exchange *x);

#endif
