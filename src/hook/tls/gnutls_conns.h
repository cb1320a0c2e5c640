/* GnuTLS sessions that carry HTTP/1.1 to a provider (wget): named by their server name indication, on a
 * socket that is blocking when the host sends its first request, not HTTP/2. The transport under the
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

#endif
