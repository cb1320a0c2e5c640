/* The blocking driver of one exchange (engine.h) for front ends that may sleep (curl_easy_perform): it
 * sends each attempt through a transport and sleeps where the engine says wait (never under a lock).
 * The request and result types are shared with the engine. */
#ifndef LLMGATE_GATE_H
#define LLMGATE_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/config.h"
#include "llmgate/http.h"
#include "llmgate/outcome.h"
#include "llmgate/store.h"


/* An attempt to a provider of another dialect than the host's: its body is translated (lg_attempt.body),
 * and so must be the response the host gets (translate.h). */
typedef struct {
    const char *path;   /* the target's path and query, instead of the host's */
    const char *header; /* one more request header line (an Anthropic target's version), or NULL */
    bool include_usage; /* an OpenAI host asked for a final usage chunk in a stream */
} lg_translation;

/* One attempt as the engine wants it sent. */
typedef struct {
    const lg_provider *prov; /* where to: the request's own provider, a fallback or a route's target */
    const char *key;         /* the account's key; NULL = leave the host's own credentials */
    const char *body;        /* the body to send instead of the host's, or NULL */
    size_t body_len;
    const lg_translation *tr; /* prov speaks another dialect than the host: how; NULL: the same */
} lg_attempt;

/* A transport sends one attempt and reports the response. */
typedef struct {
    /* Sends the exchange as `at` says (never forwarding an X-Llmgate-Pin header). On return *resp describes
     * the response (valid until the next attempt). Returns 0, or how the transport failed
     * (lg_transport_failure). */
    int (*attempt)(void *ctx, const lg_attempt *at, lg_response_view *resp);
    /* Prepares the request body to be sent again; returns false when it cannot be. May be NULL. */
    bool (*rewind)(void *ctx);
} lg_transport;

typedef struct {
    const lg_config *cfg;
    const lg_provider *prov;
    lg_store *store;          /* NULL: no shared state (state kept only for this exchange) */
    const char *host_key;     /* the key the host program sent, or NULL */
    bool replayable;          /* the body can be sent again */
    const char *body;         /* the request body (for token estimates, model maps and pins), or NULL */
    size_t body_len;
    const char *pin;          /* the request's X-Llmgate-Pin header (a provider or pool name), or NULL */
    const char *url;          /* the request's URL (or path and query), or NULL: a Gemini host names its
                               * model and whether it streams there, not in the body */
    bool reroutes;            /* the front end sends each attempt to step.prov with step.body (fallbacks,
                               * provider pins, model maps, routes); false: always to prov with the host's body */
    const char *program;      /* the host program's name, for routes; NULL: unknown */
    /* True when the request carries header name (any case), for routes; NULL: none is known. */
    bool (*has_header)(const void *ctx, const char *name);
    const void *header_ctx;
    int64_t max_wait_ms;      /* > 0: the host's own time limit for the request (CURLOPT_TIMEOUT): no wait or
                               * retry of llmgate's starts after it, whatever max_rate_limit_wait allows */
    /* Asked by the blocking drivers (lg_gate_run, lg_gate_admit) at least every LG_GATE_ASK_MS while they
     * wait: true when the host gave the request up (its progress callback asked to abort); the wait ends at
     * once with LG_GATE_WITHDRAWN. NULL: never asked (a wait is one sleep). */
    bool (*withdrawn)(void *ctx);
    void *withdrawn_ctx;
} lg_gate_request;

#define LG_GATE_ASK_MS 500 /* how often a waiting driver asks req.withdrawn (libcurl: about once a second) */

typedef enum {
    LG_GATE_DELIVER = 0, /* hand the last attempt's response to the host (possibly normalized) */
    LG_GATE_REFUSED,     /* no attempt was sent: synthesize a 429 in the provider's format */
    LG_GATE_TRANSPORT,   /* the last attempt failed in the transport: report its own error */
    LG_GATE_DELIVERED,   /* the transport already handed the response to the host (a committed stream) */
    LG_GATE_PASS,        /* a plain host rule admitted the request: let the host's own request go untouched */
    LG_GATE_WITHDRAWN,   /* the host gave the request up while llmgate waited (req.withdrawn): nothing to
                          * deliver, the host's own abort to report */
} lg_gate_verdict;

typedef struct {
    lg_gate_verdict verdict;
    lg_outcome outcome;     /* classification of the last response (synthesized one when REFUSED) */
    int status;             /* the status the host should see */
    bool normalized;        /* add Retry-After and X-Llmgate-Reason headers */
    int64_t retry_after_ms; /* for Retry-After when normalized; LG_NO_HINT when unknown */
    int attempts;           /* attempts sent */
    size_t account;         /* account of the last attempt */
    const lg_provider *prov; /* the provider of the last attempt (a fallback's, after one) */
    const char *why;        /* X-Llmgate-Reason when normalized; NULL: the outcome's reason name */
} lg_gate_result;

/* The X-Llmgate-Reason value of a normalized result. */
const char *lg_gate_reason(const lg_gate_result *r);

/* Runs one exchange to its end through transport t. Never sleeps while holding a lock. */
lg_gate_result lg_gate_run(const lg_gate_request *req, const lg_transport *t, void *ctx);

/* Admission only (plain host rules): waits for room in the provider's limits, never under a lock.
 * Returns true when the request may go; false with a synthesized refusal in *res (status 429,
 * retry_after_ms) when no room comes within max_rate_limit_wait_seconds, or with LG_GATE_WITHDRAWN when
 * the host gave the request up while it waited. */
bool lg_gate_admit(const lg_gate_request *req, lg_gate_result *res);

#endif
