/* TLS sessions (OpenSSL SSL*) that carry HTTP/1.1 to a provider: the provider is known from the SNI
 * name; a session over a socket, or over memory BIOs whose socket sent its ClientHello through the socket
 * hooks (asyncio), not HTTP/2, is followed. The transport under
 * its lg_h1_conn is the real SSL_read/SSL_write; a retry's new connection is a new SSL of the host's own
 * SSL_CTX (its trust store and client certificate) with the host's verification parameters and name. */
#ifndef LLMGATE_HOOK_TLS_SSL_CONNS_H
#define LLMGATE_HOOK_TLS_SSL_CONNS_H

#include <openssl/ssl.h>
#include <stdbool.h>

#include "front/h1_conn.h"

typedef struct lg_ssl_conn lg_ssl_conn;

/* The followed connection of ssl (NULL: pass through). decide: a session not seen yet is judged now (the
 * host is about to send its first request on it: the handshake is done). */
lg_ssl_conn *lg_ssl_conn_get(SSL *ssl, bool decide);
lg_h1_conn *lg_ssl_conn_h1(lg_ssl_conn *c);
/* The SSL the provider side currently runs on (the host's, or the replacement after a retry). */
SSL *lg_ssl_conn_wire(lg_ssl_conn *c);
/* True for a memory-BIO session (asyncio): the provider side is llmgate's own connection, and what
 * llmgate does not hold is read from the host's own session. */
bool lg_ssl_conn_detached(const lg_ssl_conn *c);
/* Takes the placeholder bytes lg_ssl_wake handed out back out of the session's incoming BIO, from where
 * they went: after the bytes the host's own (idle) session had not read yet, such as the NewSessionTickets
 * a TLS 1.3 server sends after the handshake, which stay in order for that session's later reads. */
void lg_ssl_conn_take_wakes(lg_ssl_conn *c);
/* The host reads its socket fd (not followed at the socket level): when fd carries a memory-BIO session
 * whose answer llmgate holds, one placeholder byte (the loop then writes it into the incoming BIO and
 * calls SSL_read_ex, which serves the answer); else LG_H1_PASS. */
ssize_t lg_ssl_wake(int fd, void *p, size_t n);
/* What SSL_get_error must say about the last call llmgate answered itself (0: ask OpenSSL). */
int lg_ssl_conn_error(lg_ssl_conn *c);
void lg_ssl_conn_set_error(lg_ssl_conn *c, int err);
/* llmgate's own end of the connection (lg_h1_ended) reaches the host as the server's close_notify would:
 * its session is marked as having received it (SSL_get_shutdown, which CPython checks before it takes a
 * read's 0 for the end) and SSL_get_error says SSL_ERROR_ZERO_RETURN. */
void lg_ssl_conn_end(lg_ssl_conn *c);
/* Forgets ssl and frees what llmgate kept for it (SSL_free). */
void lg_ssl_conn_forget(SSL *ssl);

#endif
