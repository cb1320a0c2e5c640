/* TLS sessions (OpenSSL SSL*) that carry HTTP/1.1 to a provider: the provider is known from the SNI
 * name; only a session on a blocking socket (not a memory BIO, not HTTP/2) is followed. The transport under
 * its lg_h1_conn is the real SSL_read/SSL_write; a retry's new connection is a new SSL of the host's own
 * SSL_CTX (its trust store and client certificate) with the host's verification parameters and name. */
#ifndef LLMGATE_HOOK_SSL_CONNS_H
#define LLMGATE_HOOK_SSL_CONNS_H

#include <openssl/ssl.h>
#include <stdbool.h>

#include "hook/h1_conn.h"

typedef struct lg_ssl_conn lg_ssl_conn;

/* The followed connection of ssl (NULL: pass through). decide: a session not seen yet is judged now (the
 * host is about to send its first request on it: the handshake is done). */
lg_ssl_conn *lg_ssl_conn_get(SSL *ssl, bool decide);
lg_h1_conn *lg_ssl_conn_h1(lg_ssl_conn *c);
/* The SSL the provider side currently runs on (the host's, or the replacement after a retry). */
SSL *lg_ssl_conn_wire(lg_ssl_conn *c);
/* What SSL_get_error must say about the last call llmgate answered itself (0: ask OpenSSL). */
int lg_ssl_conn_error(lg_ssl_conn *c);
void lg_ssl_conn_set_error(lg_ssl_conn *c, int err);

#endif
