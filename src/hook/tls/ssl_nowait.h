/* A read of an OpenSSL session over a socket that never waits in the kernel and costs no system call of
 * its own: for the call, the session's read BIO is a BIO of llmgate's that reads the same socket with
 * MSG_DONTWAIT (an empty socket: OpenSSL's own WANT_READ, a record that came in part kept in the session
 * for the next read), the session's own BIO put back before the call returns. Neither the session's
 * read-ahead nor its buffers change: a host's SSL reads on from where llmgate stopped, as before. */
#ifndef LLMGATE_HOOK_TLS_SSL_NOWAIT_H
#define LLMGATE_HOOK_TLS_SSL_NOWAIT_H

#include <openssl/ssl.h>
#include <stddef.h>

#define LG_SSL_NOWAIT_NONE (-2) /* the session's read BIO is not a plain socket BIO: nothing was done */

/* SSL_read_ex on s without a wait in the kernel: 1 or 0 as SSL_read_ex, *err SSL_get_error's answer (taken
 * while llmgate's BIO is in place, the one that says why); LG_SSL_NOWAIT_NONE when s does not read a plain
 * socket (kTLS, a filter, memory). *bio: the caller's BIO for the calls (NULL at first, made here; the
 * caller frees it with BIO_free). */
int lg_ssl_read_nowait(BIO **bio, SSL *s, void *p, size_t n, size_t *got, int *err);

#endif
