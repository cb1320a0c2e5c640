/* One host connection carrying HTTP/1.1 to a provider, whatever is under it (a blocking socket, later a
 * TLS session): the host's writes are collected into whole requests; each request runs through the
 * exchange engine synchronously (sleeping where it says wait), its attempts sent over the connection with
 * the chosen key (over a new connection when the provider closed it), or, when the engine's step names
 * another provider (a fallback, a pin, a route), over llmgate's own connection to it, the answer
 * translated when it speaks another dialect; the final response is what the
 * host's reads return, re-framed; an event stream is relayed as it comes once committed. Anything it
 * cannot follow (not HTTP/1.x, an upgrade, Expect, a request too large to hold, not a provider's Host) is
 * released: the bytes held so far go out untouched and the connection passes through from then on.
 * Several providers may share one address (one upstream serving several APIs): each request is gated as
 * the provider its Host names, if that is one of them. */
#ifndef LLMGATE_FRONT_H1_CONN_H
#define LLMGATE_FRONT_H1_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "front/host.h"
#include "llmgate/config.h"

struct lg_h1_target;

#define LG_IO_AGAIN (-2) /* a transport with `wait`: nothing to receive yet */
#define LG_IO_INTR (-3)  /* a blocking receive a signal interrupted that the host takes (lg_host_takes_eintr) */

/* The transport under the connection. Each function preserves nothing: the caller saves errno. */
typedef struct lg_h1_io {
    /* Sends all n bytes (blocking; a transport with `wait` may only take them, to go out from recv);
     * false on failure, or (llmgate's own connection: an http target's, the relay's upstream) when they
     * are not all sent by until_ms (lg_now_ms's clock; 0: no limit; the host's own transports ignore it). */
    bool (*send)(void *io, const void *p, size_t n, int64_t until_ms);
    /* Receives up to n bytes: > 0, 0 at end of stream, -1 on failure. Blocking, except on a transport with
     * `wait`, which returns LG_IO_AGAIN instead of blocking; LG_IO_INTR when a signal the host takes
     * interrupted the wait (nothing was received). */
    ssize_t (*recv)(void *io, void *p, size_t n);
    /* NULL, or (a transport that never blocks) the descriptor of llmgate's own connection and the events
     * (POLLIN, POLLOUT) that let recv go on; -1 when there is none. */
    int (*wait)(void *io, short *events);
    /* Replaces the transport with a new connection to the same peer (to NULL), or (a TLS transport, to
     * over https) to another provider's target with the host's trust and the target's name; false when
     * it cannot, or (blocking) when its connect and handshake are not done by until_ms (lg_now_ms's clock;
     * 0: no limit). */
    bool (*reopen)(void *io, const struct lg_h1_target *to, int64_t until_ms);
    /* The descriptor the host waits on for this connection, or -1 (then llmgate's waits sleep). */
    int (*fd)(void *io);
    /* NULL, or (detached) makes the host's own transport read its end: the host has read the last
     * response, which did not keep the connection alive. */
    void (*end)(void *io);
    /* A TLS transport: its reopen reaches https targets. */
    bool tls;
    /* The provider side is only ever llmgate's own connection (memory-BIO TLS): its end is not the host's,
     * and what llmgate does not hold is read from the host's own transport. */
    bool detached;
} lg_h1_io;

typedef struct lg_h1_conn lg_h1_conn;

#define LG_H1_PROVS 8 /* providers one connection may carry: those whose names share its address */

/* A connection of providers provs[0..n) (1 <= n <= LG_H1_PROVS; provs[0] first) over io, in the program
 * host (both borrowed; must outlive it): each request's Host picks its provider among them. NULL on
 * allocation failure. */
lg_h1_conn *lg_h1_new(const lg_front_host *host, const lg_provider *const *provs, size_t n, const lg_h1_io *io,
                      void *ioctx);
void lg_h1_free(lg_h1_conn *c);
/* True once the connection passes through untouched (its writes go out as the host wrote them). */
bool lg_h1_released(const lg_h1_conn *c);
/* True once the connection is released and the host has read every byte llmgate held for it (an answer
 * completed before a pipelined request released it): the caller does its I/O itself from then on. */
bool lg_h1_passed(const lg_h1_conn *c);
/* The host writes n bytes. Returns n, or -1 with errno (as the transport left it) when the connection is
 * released and passing the held bytes on failed. */
ssize_t lg_h1_write(lg_h1_conn *c, const void *p, size_t n);
#define LG_H1_PASS (-2)
/* The host reads up to n bytes (peek: leave them to be read again). Returns what it would see: bytes,
 * 0 at the end of the response stream, -1 with errno; or LG_H1_PASS when llmgate holds nothing for the
 * host: the caller reads the transport itself, with the host's own flags. */
ssize_t lg_h1_read(lg_h1_conn *c, void *p, size_t n, bool peek);
/* True when the 0 a read returned is llmgate's own end of the connection (the host's request did not keep
 * it: HTTP/1.0, Connection: close), whose provider side is still open: a TLS transport reports a clean end
 * to the host instead of reading its own session, which would wait for the provider. */
bool lg_h1_ended(const lg_h1_conn *c);
/* Bytes the host can read without waiting. */
size_t lg_h1_pending(const lg_h1_conn *c);

/* Non-blocking hosts (the descriptor is O_NONBLOCK when the engine says wait): the write that completes
 * a request returns at once, the exchange is parked, the host's reads fail with EAGAIN until it is done,
 * and the readiness hooks ask lg_h1_ready what to report for the descriptor. */
typedef enum {
    LG_H1_IDLE,    /* nothing of ours: the kernel's readiness is the truth */
    LG_H1_READY,   /* a read returns at once (held bytes, an error, the end, a committed stream) */
    LG_H1_WAITING, /* the exchange waits until *due_ms: the descriptor is not readable before; or, idle on
                    * a connection of the transport's own beside the host's (a TLS replacement), until that
                    * one is readable (*due_ms INT64_MAX) */
} lg_h1_readiness;
/* What the host's readiness wait should see now; runs the parked exchange first when its time came (its
 * attempts are llmgate's own I/O to the provider: blocking, except on a transport with `wait`, whose
 * attempt in flight is parked too and goes on here as far as its connection allows). */
lg_h1_readiness lg_h1_ready(lg_h1_conn *c, int64_t *due_ms);
/* While the connection waits on llmgate's own connection (an attempt in flight, or a committed stream's
 * next piece, on a transport with `wait`; or idle there, beside the host's descriptor): its descriptor
 * and events, which the host's readiness wait must include; else -1. */
int lg_h1_wait_fd(const lg_h1_conn *c, short *events);

#endif
