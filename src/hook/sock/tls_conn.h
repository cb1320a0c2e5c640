/* llmgate's own TLS sessions to an https target, for a connection whose own transport is plain (a plain
 * http host rerouted to an https provider: a fallback, a pin, a route). Made with the real OpenSSL of the
 * process (hook/base/ssl_real.h), the system's libssl.so.3 loaded for it when the program has none (a Ruby
 * program over plain http): none when it cannot be. One client context for the process (the system's
 * trust store as OpenSSL reads it: SSL_CERT_FILE, SSL_CERT_DIR; TLS 1.2 or later; http/1.1 by ALPN), each
 * session verified for its target's name (an address literal: its IP). The host's OpenSSL error queue is
 * left as it was. */
#ifndef LLMGATE_HOOK_SOCK_TLS_CONN_H
#define LLMGATE_HOOK_SOCK_TLS_CONN_H

#include <stdint.h>

#include "front/h1_conn.h"
#include "front/h1_target.h"

/* A session to target t over a new TCP connection, its connect and handshake done by until_ms (lg_now_ms's
 * clock; 0: no limit); NULL when it cannot be had (no libssl in the process, no connection, the handshake
 * or the verification failed, the time ran out). The front's own_tls_open. */
void *lg_h1_tls_open(const lg_h1_target *t, int64_t until_ms);
/* Frees session s and closes its connection. The front's own_tls_close. */
void lg_h1_tls_close(void *s);
/* The transport over a session (the context: what lg_h1_tls_open gave): its sends wait for room until
 * their time limit, its receives never wait (its `wait` names the descriptor and the event). */
extern const lg_h1_io lg_h1_tls_io;

#endif
