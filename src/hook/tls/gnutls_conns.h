/* GnuTLS sessions that carry HTTP/1.1 to a provider (wget, wget2): named by their server name indication,
 * on a socket, blocking or not (a non-blocking host's exchange is parked and driven from its readiness
 * waits, and its reads get GNUTLS_E_AGAIN meanwhile, as OpenSSL's hosts get SSL_ERROR_WANT_READ), not
 * HTTP/2. The transport under the
 * lg_h1_conn is the real gnutls_record_send/recv; a retry's new connection is a new client session with
 * the host's own certificate credentials (trust store, client certificate), its server name, and
 * certificate verification against that name. */
#ifndef LLMGATE_HOOK_TLS_GNUTLS_CONNS_H
#define LLMGATE_HOOK_TLS_GNUTLS_CONNS_H

#include <gnutls/gnutls.h>
#include <stdbool.h>

#include "front/h1_conn.h"

typedef struct lg_gnutls_conn lg_gnutls_conn;

/* The followed connection of session (NULL: pass through); decide: judge a session not seen yet. */
lg_gnutls_conn *lg_gnutls_conn_get(gnutls_session_t session, bool decide);
lg_h1_conn *lg_gnutls_conn_h1(lg_gnutls_conn *c);
/* The provider the server name the host set on session names (NULL: none). */
const lg_provider *lg_gnutls_conn_named(gnutls_session_t session);
/* The session the provider side currently runs on (the host's, or the replacement after a retry). */
gnutls_session_t lg_gnutls_conn_wire(lg_gnutls_conn *c);
/* The host's last record call on c went to target (the real call), or (NULL) was answered by llmgate:
 * what gnutls_record_get_direction says next (llmgate's GNUTLS_E_AGAIN: 0, a read to wait for). */
void lg_gnutls_conn_answered(lg_gnutls_conn *c, gnutls_session_t target);

#endif
