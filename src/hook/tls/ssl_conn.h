/* The record of one OpenSSL session llmgate follows (private to src/hook/tls): the table (ssl_conns.c)
 * keeps them, the transports (ssl_transport.c) and the replacement session (ssl_session.c) work on them. */
#ifndef LLMGATE_HOOK_TLS_SSL_CONN_H
#define LLMGATE_HOOK_TLS_SSL_CONN_H

#include <openssl/ssl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <uthash.h>

#include "hook/tls/ssl_conns.h"

struct lg_ssl_conn {
    SSL *ssl;          /* the host's */
    lg_h1_conn *h1;    /* NULL: decided not ours */
    SSL *repl;         /* a replacement connection of ours, or NULL */
    int repl_fd;
    int64_t repl_until; /* a non-blocking replacement's handshake, finished in the first send, ends by then
                         * (0: no limit, or done) */
    int last_error;    /* for SSL_get_error after a call we answered */
    int host_fd;       /* memory-BIO TLS (asyncio): the host's socket under the session, else -1 */
    int wakes;         /* placeholder bytes handed to the host's recv, still in its incoming BIO */
    size_t wake_at;    /* where in that BIO they went: the bytes it held before them (the host's own session
                        * still has the server's post-handshake records to read, TLS 1.3 NewSessionTickets) */
    char *unsent;      /* memory-BIO: request bytes taken, not yet accepted by our non-blocking session */
    size_t unsent_len, unsent_off;
    BIO *nowait;       /* the BIO the wire's reads go through (ssl_nowait.h), or NULL */
    short want;        /* POLLIN or POLLOUT, what the session an attempt reads from waits for (non-blocking) */
    struct sockaddr_storage peer; /* the host's peer, read when the session was taken: a socket the peer has
                                   * reset no longer tells it (getpeername fails), yet a retry reopens to it */
    socklen_t peer_len;           /* 0: unknown */
    UT_hash_handle hh;
};

#endif
