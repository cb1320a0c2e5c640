/* The program's ALPN offer on GnuTLS, reduced to http/1.1 on a provider's connection (alpn.h): the list a
 * program sets with gnutls_alpn_set_protocols is recorded with its session and applied, filtered, when the
 * session's handshake first runs and the server name the program set is a provider's. Any other server
 * gets the program's own offer. */
#ifndef LLMGATE_HOOK_TLS_GNUTLS_ALPN_H
#define LLMGATE_HOOK_TLS_GNUTLS_ALPN_H

#include <gnutls/gnutls.h>

/* Forgets what was recorded for session (gnutls_deinit). */
void lg_gnutls_alpn_forget(gnutls_session_t session);

#endif
