/* The state of one HTTP/1.1 provider connection (h1_conn.h), shared by the files that make it: h1_conn.c
 * (requests in, the engine driven, attempts out and their responses read) and h1_deliver.c (what the host
 * reads). Private to them. */
#ifndef LLMGATE_HOOK_H1_CONN_INTERNAL_H
#define LLMGATE_HOOK_H1_CONN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hook/attempt_tr.h"
#include "hook/curl_capture.h"
#include "hook/h1_conn.h"
#include "hook/h1_request.h"
#include "hook/h1_response.h"
#include "hook/h1_translate.h"
#include "hook/relay.h"
#include "llmgate/engine.h"

struct lg_h1_conn {
    const lg_provider *prov; /* the provider of the request in hand (or the last one) */
    const lg_provider *provs[LG_H1_PROVS]; /* those the connection may carry (their names share its address) */
    size_t n_provs;
    const lg_h1_io *io;
    void *ioctx;
    const lg_h1_io *wio; /* the provider side: io, or lg_h1_plain_io to an http target */
    void *wctx;
    const lg_provider *at; /* the provider the provider side goes to: NULL, the host's own */
    int plain_fd;    /* llmgate's own plain connection to an http target, or -1 */
    bool own_dead, own_served; /* while at: dead and served of the host's own provider side */
    bool released;
    bool dead;       /* the provider side is closed or unusable: reopen before the next attempt */
    bool served;     /* the provider side has carried a whole response: an idle close may have hit it */
    bool ended;      /* the host's request did not keep the connection, whose provider side was still open:
                      * llmgate ends it after the answer */
    int host_errno;  /* the host's next read fails with this (a transport failure shown as is) */
    lg_h1_req req;
    bool head;       /* the request in flight is a HEAD */
    lg_capture cap;
    lg_relay relay;
    lg_h1_resp resp;
    lg_attempt_tr tr;     /* the translation of the attempt's response (another dialect) */
    lg_exchange *x;  /* an exchange whose committed stream is still being relayed */
    lg_exchange *wx; /* a parked exchange (non-blocking host) waiting until wstep.at_ms, or (inflight) for
                      * its attempt's response on llmgate's own connection */
    lg_step wstep;
    bool inflight;
    int watch_fd;    /* the descriptor watched for this connection, or -1 */
    char *out;       /* what the host reads next */
    size_t out_len, out_off, out_cap;
    bool continued;  /* the host got its 100 Continue for the request being collected */
};

/* Appends n bytes to what the host reads next; false when out of memory. */
bool lg_h1_out_add(lg_h1_conn *c, const char *p, size_t n);

/* The relay's sink for a committed response: its header block as it came and its body re-framed as chunks
 * when the provider sent chunks, or translated (and chunked) when the attempt went to another dialect. */
lg_relay_sink lg_h1_host_sink(lg_h1_conn *c);

/* Puts the final response the engine settled on (res) where the host reads: the captured answer normalized
 * and re-framed with a Content-Length (translated for another dialect), a local refusal, or for a
 * transport failure the error the host's next read gets. */
void lg_h1_deliver(lg_h1_conn *c, const lg_gate_result *res);

/* A committed response has ended whole: what the cut points (and a translator) still held goes to the
 * host, then the end of its chunks. */
void lg_h1_stream_end(lg_h1_conn *c);

#endif
