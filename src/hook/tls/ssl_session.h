/* The replacement session of a followed OpenSSL connection: llmgate's own SSL beside the host's, opened
 * for a retry (or, for memory BIOs, for the whole exchange) with the host's SSL_CTX, verification and
 * application data, to the host's peer or to a fallback target; and the request bytes it has not taken yet. */
#ifndef LLMGATE_HOOK_TLS_SSL_SESSION_H
#define LLMGATE_HOOK_TLS_SSL_SESSION_H

#include <stdbool.h>

#include "front/h1_target.h"
#include "hook/tls/ssl_conn.h"

/* A new TLS connection with the host's SSL_CTX and verification parameters: to the same peer with the
 * host's name (to NULL), or to an https target with its name (SNI unless an address). For memory BIOs it
 * is non-blocking: connected and shaken hands as far as it goes at once, the rest in the transport's
 * reads; blocking, its connect and handshake not done by until_ms (lg_now_ms's clock; 0: no limit) fail.
 * Replaces c's previous one; false on failure. */
bool lg_ssl_repl_open(lg_ssl_conn *c, const lg_h1_target *to, int64_t until_ms);
/* Closes c's replacement, if any, and forgets the bytes it had not taken. */
void lg_ssl_repl_drop(lg_ssl_conn *c);
/* Forgets the request bytes not sent yet (they carry a key). */
void lg_ssl_unsent_drop(lg_ssl_conn *c);

#endif
