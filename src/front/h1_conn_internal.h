/* The state of one HTTP/1.1 provider connection (h1_conn.h), shared by the files that make it: h1_conn.c
 * (the connection: its life, the host's writes collected into requests, its reads, release),
 * h1_exchange.c (the exchange driver: the engine run over a request, waits slept or parked, a parked
 * exchange resumed from the host's reads and readiness waits), h1_attempt.c (one attempt: the provider
 * side aimed, the request sent, its response read and a committed stream relayed) and h1_deliver.c (what
 * the host reads). Private to them. */
#ifndef LLMGATE_FRONT_H1_CONN_INTERNAL_H
#define LLMGATE_FRONT_H1_CONN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "front/attempt_translate.h"
#include "front/capture.h"
#include "front/h1_conn.h"
#include "front/h1_request.h"
#include "front/h1_response.h"
#include "front/h1_translate.h"
#include "front/stream_relay.h"
#include "llmgate/engine.h"

struct lg_h1_conn {
    const lg_front_host *host; /* the program the connection runs in */
    const lg_config *cfg;      /* the host's configuration and store (they never change) */
    lg_store *store;
    const lg_provider *prov; /* the provider of the request in hand (or the last one) */
    const lg_provider *provs[LG_H1_PROVS]; /* those the connection may carry (their names share its address) */
    size_t n_provs;
    const lg_h1_io *io;
    void *ioctx;
    const lg_h1_io *wio; /* the provider side: io, or lg_h1_plain_io to an http target */
    void *wctx;
    const lg_provider *at; /* the provider the provider side goes to: NULL, the host's own */
    int plain_fd;    /* llmgate's own plain connection to an http target, or -1 */
    void *own_tls;   /* llmgate's own TLS session to an https target (host->own_tls_open), or NULL */
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
    int64_t until_ms;   /* a blocking host's waits for an answer end then (lg_now_ms's clock; 0: no limit;
                         * LG_H1_UNTIL_HOST: at once when its socket has a time limit of its own, else none) */
    int wait_errno;     /* why the last wait for an answer ended without one: EINTR, EAGAIN */
    bool watched;       /* the attempt in flight is under retry.attempt_timeout_ms / idle_timeout_ms */
    bool heard;         /* ... and a byte of its answer came, the last at heard_ms (else it began then,
                         * before its connection was opened and its request sent) */
    int64_t heard_ms;
    bool timed_out;     /* ... and was abandoned on one of them */
    int watch_fd;    /* the descriptor watched for this connection, or -1 */
    char *out;       /* what the host reads next */
    size_t out_len, out_off, out_cap;
    bool continued;  /* the host got its 100 Continue for the request being collected */
};

/* The connection (h1_conn.c). */

/* The host's descriptor when it is non-blocking (the host then polls it), else -1: its program's
 * fd_status_flags (host.h), else fcntl's answer. */
int lg_h1_nonblocking_fd(const lg_h1_conn *c);
/* The host's SO_RCVTIMEO or SO_SNDTIMEO (opt) on its descriptor in ms, 0 when it has none (or no socket): its
 * program's sock_timeout_ms (host.h), else getsockopt's answer. */
int64_t lg_h1_sock_timeout_ms(const lg_h1_conn *c, int opt);
/* True when llmgate's own provider I/O is driven from the host's readiness waits instead of blocking:
 * a transport that never blocks, under a non-blocking host. */
bool lg_h1_driven(const lg_h1_conn *c);
/* The host may poll for what llmgate answers (a non-blocking host always does; a blocking one too when it
 * keeps a read timeout with select or poll, as wget and Perl's HTTP::Tiny do): its descriptor's readiness
 * is ours to report, whatever its mode. Puts the host's descriptor in the watch table for c. */
void lg_h1_watch_host(lg_h1_conn *c);
/* The request is answered (or its stream committed): ready for the next one. */
void lg_h1_request_done(lg_h1_conn *c);

/* One attempt on the provider side (h1_attempt.c). */

typedef enum {
    LG_H1A_RESPONSE,  /* a whole response, held for the engine */
    LG_H1A_COMMITTED, /* its stream was committed to the host: the rest is relayed as it comes (c->x) */
    LG_H1A_ENDED,     /* committed, and its end read in the same step: the whole response went to the host */
    LG_H1A_RETRYABLE,
    LG_H1A_STALE,     /* a kept-alive provider side was closed before any byte of the answer */
    LG_H1A_FATAL,
    LG_H1A_PENDING,   /* the rest of the answer is not there yet (driven, or the blocking host's until_ms
                       * came), or a signal the host takes came: c->wait_errno says which */
    LG_H1A_TIMED_OUT, /* no byte of the answer within retry.attempt_timeout_ms, or none more within
                       * idle_timeout_ms, before its commit: abandoned (the provider side is dead) */
} lg_h1_attempt_rc;

/* until_ms for a host's write: its attempts wait not at all when its socket has a time limit of its own
 * (SO_RCVTIMEO, SO_SNDTIMEO: the write returns, its reads wait as long as that limit), else without one. */
#define LG_H1_UNTIL_HOST (-1)

/* Sends the request as step st says (NULL: the host's own request, credentials and provider, under no
 * attempt timeout) and reads the response up to its end or its commit (drive_async, when the provider side
 * is driven: as far as it is there, LG_H1A_PENDING for the rest; blocking: not past c->until_ms). */
lg_h1_attempt_rc lg_h1_attempt(lg_h1_conn *c, const lg_step *st, bool drive_async);
/* When the attempt in flight is abandoned: retry.attempt_timeout_ms after it began, idle_timeout_ms after
 * the last byte of its answer; INT64_MAX never (off, or not watched: the host's own request, or a stream
 * committed to the host). */
int64_t lg_h1_attempt_due(const lg_h1_conn *c);
/* The time by which a connection llmgate opens for an attempt (a reopen, a target's) must be connected,
 * its handshake done and (llmgate's own) the attempt's request sent, and its answer begun: the attempt's
 * one deadline, retry.attempt_timeout_ms from from_ms (its start); 0 when that is off. */
int64_t lg_h1_open_until(const lg_h1_conn *c, int64_t from_ms);
/* Whether the provider side is driven (lg_h1_driven) as the reads below take it: 1 driven, 0 not, or
 * LG_H1_DRIVE_ASK: lg_h1_driven asked only when the response is not all there (its fcntl is then the only
 * system call llmgate adds to a request whose answer is in). */
#define LG_H1_DRIVE_ASK (-1)
/* Reads the response of the attempt in flight up to its end or its commit; LG_H1A_PENDING when driven
 * (drive) and nothing more is there yet, when c->until_ms came, or when a signal the host takes interrupted
 * the wait (c->wait_errno EAGAIN, EINTR); LG_H1A_TIMED_OUT when the attempt's own time limit came. */
lg_h1_attempt_rc lg_h1_attempt_read(lg_h1_conn *c, int drive);
/* Relays the next piece of the committed stream (c->x); at its end tells the engine and frees c->x. False
 * when nothing was there yet (driven, or c->until_ms came: c->wait_errno EAGAIN) or a signal the host takes
 * interrupted the wait (EINTR). *drive as above, set to what lg_h1_driven answered when it was asked. */
bool lg_h1_stream_next(lg_h1_conn *c, int *drive);
/* The provider side goes back to the host's own connection: llmgate's plain one closed (the host's as it
 * was), or, after a TLS target that took the transport's connection, the host's own to be reopened. */
void lg_h1_leave_target(lg_h1_conn *c);

/* The exchange driver (h1_exchange.c). */

/* Runs the engine over the complete request: each attempt goes where its step says; the host's answer is
 * put where it reads, or the exchange is parked (c->wx) on a wait or an attempt in flight. */
void lg_h1_run_exchange(lg_h1_conn *c);
/* A plain host rule: admission, then the host's own request untouched; a refusal answered locally. */
void lg_h1_run_paced(lg_h1_conn *c);
/* Continues a parked exchange whose time came, or whose attempt in flight reads what is there; blocking
 * (a blocking host's exchange a signal or its socket's timeout parked): sleeping until its time and reading
 * its answer, but not past until_ms when that is set (the host's SO_RCVTIMEO). False when it is parked
 * again (driven: nothing more there yet; blocking: another signal, errno EINTR; until_ms came first, errno
 * EAGAIN; a later wait parked it before until_ms, errno 0: call again). */
bool lg_h1_resume(lg_h1_conn *c, bool blocking, int64_t until_ms);
/* The host writes again while an attempt is in flight on its own connection (pipelining): the attempt's
 * answer is read now, blocking, so that no answer nobody waits for is left on the connection; the exchange
 * goes on as far as it can without waiting (a WAIT parks it again, for the caller to cancel). */
void lg_h1_land_inflight(lg_h1_conn *c);
/* Drops the parked exchange, if any (its request is about to go out as the host wrote it); an attempt
 * still in flight leaves its answer on the wire: the provider side is dead. */
void lg_h1_cancel_parked(lg_h1_conn *c);

/* What the host reads (h1_deliver.c). */

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
