/* The program's ALPN offer on OpenSSL, reduced to http/1.1 on a provider's connection (alpn.h): the list a
 * program sets on an SSL_CTX (SSL_CTX_set_alpn_protos) or an SSL (SSL_set_alpn_protos) is recorded with
 * the object (a context is often shared with other hosts), and applied, filtered, on the SSL of a
 * connection whose server name is a provider's when its handshake begins (SSL_connect, SSL_do_handshake,
 * or the host's first write). A server that is no provider gets the program's own offer; so does any
 * connection libcurl makes while the curl hooks gate it (lg_guard_active). */
#ifndef LLMGATE_HOOK_TLS_SSL_ALPN_H
#define LLMGATE_HOOK_TLS_SSL_ALPN_H

#include <openssl/ssl.h>

/* Before ssl's handshake (nothing afterwards): a provider's connection offers http/1.1 alone when the
 * program offered it beside other protocols. Preserves errno and OpenSSL's error queue. */
void lg_ssl_alpn_apply(SSL *ssl);

/* Makes s, llmgate's own new session for the connection of the host's host (its handshake still to come),
 * offer what host agreed by ALPN (http/1.1), or nothing when host agreed nothing: s is made from the host's
 * SSL_CTX, which may offer h2. */
void lg_ssl_alpn_mirror(SSL *s, SSL *host);

#endif
