/* One gated libcurl transfer, shared by the easy front end (perform.c) and the multi front end
 * (curl_multi_*.c): the request the engine sees, each attempt shaped on the handle (URL, our header list
 * with the chosen key, our capture trampolines), the attempt's result read back, and the final response
 * delivered to the host. The transfer is kept with the handle's record and the handle stays shaped between
 * exchanges; the host's own options go back before the handle is used any other way. It performs nothing
 * itself: the front end runs the handle (curl_easy_perform, or the host's multi). The transfer's life is
 * xfer.c's; the shaping of its handle, shape.c's (shape.h, private to them). */
#ifndef LLMGATE_HOOK_CURL_XFER_H
#define LLMGATE_HOOK_CURL_XFER_H

#include <stdbool.h>
#include <stdint.h>

#include "front/attempt_translate.h"
#include "hook/curl/auth.h"
#include "hook/curl/body.h"
#include "front/capture.h"
#include "hook/curl/debug.h"
#include "hook/curl/records.h"
#include "hook/curl/stream.h"
#include "hook/base/runtime.h"
#include "llmgate/gate.h"

#define LG_XFER_KEY_MAX 1024
#define LG_XFER_HOPS_MAX 30 /* redirects followed within one attempt */

typedef struct lg_curl_xfer {
    CURL *h;
    lg_curl_rec *rec;
    const lg_curl_real *real;
    const lg_provider *prov;
    bool installed;                  /* our trampolines are on the handle, for the host's options of ... */
    unsigned gen;                    /* ... this generation (lg_curl_rec.gen) ... */
    uintptr_t headers_print;         /* ... and this header list (its nodes and strings) */
    char *base_url;                  /* the host's URL with the provider's upstream applied */
    bool key_in_query;
    char *set_url;                   /* a copy of the URL we set on the handle (NULL: unknown or the host's) */
    bool url_is_base;                /* set_url is base_url, set as it is now */
    struct curl_slist *attempt_hdrs; /* ours, while set on the handle */
    bool hdrs_reusable;              /* the handle's header list (ours: hdrs_own) was made for ... */
    bool hdrs_own;
    const char *hdrs_key;            /* ... this key (a configured key: stable while the config lives) ... */
    const lg_provider *hdrs_prov;    /* ... of this provider */
    long set_follow;                 /* CURLOPT_FOLLOWLOCATION as we set it; -1: unknown */
    bool has_pin;                    /* the host's headers carry X-Llmgate-Pin (never forwarded) */
    bool drops_lines;                /* ... or another line our lists leave out (lg_slist_drops_lines) */
    char pin[LG_NAME_MAX];           /* its value */
    bool body_replaced;              /* an attempt's body, not the host's, is set on the handle */
    lg_curl_body body;               /* a body read from the host's callback, held to be sent again */
    int hops;                        /* redirects followed in this attempt */
    lg_capture cap;
    lg_relay relay;
    lg_curl_sink sink;               /* where the relay commits: the host, through a stream translator */
    lg_attempt_tr tr;                /* the last attempt went to another dialect: its response is translated
                                      * (its stream translator is also sink.tr's) */
    CURLcode last_rc;                /* libcurl's code for the last attempt */
    int sends;                       /* requests libcurl began to send in this attempt (CURLOPT_PREREQFUNCTION) */
    bool resend_refused;             /* libcurl wanted to send this attempt a second time: refused */
    char host_key[LG_XFER_KEY_MAX];  /* the host's key, only until lg_xfer_forget_key */
    size_t host_key_used;            /* bytes of host_key written since it was last wiped (at most) */
    lg_key_spot key_spot;            /* where the host's list held its key (for the same gen and print) */
    lg_curl_debug debug;             /* the host's verbose output, its keys masked (when it watches) */
    const lg_retry_conf *watch;      /* the attempt timeouts, watched by lg_curl_watch_attempt (NULL: off) */
    int64_t watch_at_ms;             /* when the attempt began or its answer last grew (monotonic) */
    curl_off_t watch_seen;           /* how much of its answer had come then (body bytes and header lines) */
    bool timed_out;                  /* the watch abandoned the attempt */
} lg_curl_xfer;

/* libcurl's progress callback on a gated handle whose attempts are watched (x->watch): abandons the
 * attempt (x->timed_out) when no byte of its answer came within retry.attempt_timeout_ms, or none more
 * within idle_timeout_ms; else asks the host's own progress callback, when it has one, as libcurl would. */
int lg_curl_watch_attempt(void *x, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);

/* Sets x, the kept transfer of handle h (record r, lg_xfer_kept), up for a gated exchange and fills *req
 * for lg_exchange_begin or lg_gate_run (req->host_key points into x until lg_xfer_forget_key). What x
 * shaped for an earlier exchange and the host has not changed since (lg_curl_rec.gen) is not shaped
 * again; otherwise the capture trampolines are installed. False when out of memory: run the host's
 * request untouched (after lg_xfer_unshape). */
bool lg_xfer_open(lg_curl_xfer *x, CURL *h, lg_curl_rec *r, const lg_runtime *rt, lg_gate_request *req);

/* The transfer of handle record r, kept with the record between exchanges of either front end (a handle is
 * in one of them at a time), so that a handle run again with the same options is not shaped again (created
 * zeroed on first use; NULL when out of memory). */
lg_curl_xfer *lg_xfer_kept(lg_curl_rec *r);

/* Before r's handle is used in any other way than a gated exchange (a transfer llmgate does not gate): puts
 * the host's own options back if the kept transfer left ours on the handle. */
void lg_xfer_unshape(lg_curl_rec *r);

/* After curl_easy_duphandle of r's handle made dup (its record dup_rec, cloned from r): the host's own options
 * on dup where the kept transfer left ours on the handle, which keeps them (an exchange of the multi front
 * end may be running on it, its attempt in flight or waiting). */
void lg_xfer_unshape_dup(const lg_curl_rec *r, CURL *dup, const lg_curl_rec *dup_rec);

/* Frees a kept transfer (NULL: nothing) once libcurl no longer refers to it: after curl_easy_reset or
 * curl_easy_cleanup of its handle. */
void lg_xfer_free(lg_curl_xfer *x);

/* Wipes the host's key from x (once the engine has taken what it needs). */
void lg_xfer_forget_key(lg_curl_xfer *x);

/* Prepares the next attempt as the engine says (its provider: URL and auth style; its key, NULL: the
 * host's own credentials; its body): resets the capture, sets URL, headers and body. False when it cannot
 * (x->last_rc is then the error): report a fatal transport error. */
bool lg_xfer_prepare(lg_curl_xfer *x, const lg_attempt *at);

/* The attempt's transfer ended with rc: fills *resp; returns 0 (a response, possibly a committed stream
 * with resp->delivered) or how the transport failed (lg_transport.attempt's contract). libcurl sends a
 * request again by itself when a kept-alive connection turns out closed before any answer: that second
 * send is refused (one attempt is one request at the provider, admitted and counted by the engine) and
 * the attempt reports LG_ATTEMPT_STALE, which the engine retries at once. */
int lg_xfer_result(lg_curl_xfer *x, CURLcode rc, lg_response_view *resp);

/* After an attempt with a key of ours got a redirect (libcurl's own following is off then): when the host
 * asked to follow (CURLOPT_FOLLOWLOCATION) and the redirect keeps the method (307, 308; or 301-303 of a
 * request without a body), sets the handle up for the next hop and returns true: to the same origin or
 * another host of the attempt's provider with the key, anywhere else without any key (as libcurl itself
 * keeps credentials from other hosts). The front end performs again and reads the result as before.
 * False: deliver resp as it is. */
bool lg_xfer_follow(lg_curl_xfer *x, const lg_runtime *rt, const lg_attempt *at, const lg_response_view *resp);

/* False when lg_xfer_follow would be false by resp's status alone (no 301-303, 307, 308): a check inline. */
static inline bool lg_xfer_may_follow(const lg_response_view *resp) { return resp->status >= 301 && resp->status <= 308; }

/* Makes the request body ready to be sent again (a held body from its start, else the host's seek
 * callback); false when it cannot be rewound. */
bool lg_xfer_rewind(lg_curl_xfer *x);

/* Hands the engine's final result to the host (lg_curl_deliver, or the last attempt's own error), the
 * handle left shaped, and frees what the exchange held. Returns the CURLcode the host must see. */
CURLcode lg_xfer_close(lg_curl_xfer *x, const lg_gate_result *res);

/* Restores the host's options and frees what the exchange held, delivering nothing (a cancelled exchange). */
void lg_xfer_abandon(lg_curl_xfer *x);

/* A refusal of a request that was never shaped (plain host rules): the synthesized 429 to the host. */
CURLcode lg_xfer_refuse(lg_curl_rec *r, const lg_gate_result *res);

#endif
