/* OpenSSL data-path interposers: SSL_write(_ex), SSL_read(_ex), SSL_peek(_ex). A followed session goes
 * through its HTTP/1.1 connection; everything else, and anything llmgate holds nothing for, is the real
 * call. A write is all or nothing, as OpenSSL's without partial writes: the caller's length is reported. */
#include <errno.h>
#include <limits.h>

#include "hook/base/export.h"
#include "hook/tls/ssl_alpn.h"
#include "hook/tls/ssl_conns.h"
#include "hook/base/ssl_real.h"

/* Writes through c; 1 with *written = n, or 0 with SSL_get_error saying SYSCALL. */
static int write_conn(lg_ssl_conn *c, const void *p, size_t n, size_t *written)
{
    ssize_t r = lg_h1_write(lg_ssl_conn_h1(c), p, n);
    lg_ssl_conn_set_error(c, r < 0 ? SSL_ERROR_SYSCALL : 0);
    if (r < 0)
        return 0;
    *written = n;
    return 1;
}

#define READ_WIRE (-2) /* nothing held: the real read on the provider side's SSL */
#define READ_HOST (-3) /* the end of the connection: the real read on the host's own SSL, which ended with
                        * it (close_notify or not), so the host sees the end exactly as OpenSSL shows it */

/* Reads through c: 1 with *got, 0 on failure (SYSCALL, or WANT_READ while the exchange waits) or at
 * llmgate's own end of the connection (ZERO_RETURN, lg_h1_ended), or READ_WIRE / READ_HOST. */
static int read_conn(lg_ssl_conn *c, void *p, size_t n, bool peek, size_t *got)
{
    lg_ssl_conn_take_wakes(c);
    ssize_t r = lg_h1_read(lg_ssl_conn_h1(c), p, n, peek);
    int err = r < 0 && r != LG_H1_PASS ? SSL_ERROR_SYSCALL : 0;
    if (err && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        err = SSL_ERROR_WANT_READ; /* the exchange waits: the host polls its socket (poll.c), or
                                    * a signal interrupted its wait (OpenSSL says so of a read's EINTR) */
    lg_ssl_conn_set_error(c, err);
    if (r == 0 && lg_h1_ended(lg_ssl_conn_h1(c))) {
        lg_ssl_conn_end(c);
        return 0;
    }
    if (r == LG_H1_PASS || r == 0)
        return r == 0 ? READ_HOST : READ_WIRE;
    *got = r > 0 ? (size_t)r : 0;
    return r > 0;
}

/* The SSL a real read goes to after read_conn said rc. */
static SSL *read_target(SSL *ssl, lg_ssl_conn *c, int rc)
{
    return c && rc == READ_WIRE && !lg_ssl_conn_detached(c) ? lg_ssl_conn_wire(c) : ssl;
}

/* After a real read on target that returned ret (ok: it read something): when target is llmgate's
 * replacement of the host's session, the host's SSL_get_error tells what happened there (WANT_READ on its
 * non-blocking socket, the end), not what its own idle session would say (SSL_ERROR_SYSCALL: Ruby took
 * that for an error and read again at once, for ever). */
static int wire_read_done(SSL *ssl, lg_ssl_conn *c, SSL *target, int ret, bool ok)
{
    if (c && target != ssl && !ok) {
        int saved = errno;
        lg_ssl_conn_set_error(c, lg_ssl_real_get()->get_error(target, ret));
        errno = saved;
    }
    return ret;
}

EXPORT int SSL_write_ex(SSL *ssl, const void *p, size_t n, size_t *written)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_conn *c = lg_ssl_conn_get(ssl, true);
    if (c)
        return write_conn(c, p, n, written);
    lg_ssl_alpn_apply(ssl); /* a write that begins the handshake */
    return real->write_ex ? real->write_ex(ssl, p, n, written) : 0;
}

EXPORT int SSL_write(SSL *ssl, const void *p, int n)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_conn *c = n > 0 ? lg_ssl_conn_get(ssl, true) : NULL;
    size_t w = 0;
    if (c)
        return write_conn(c, p, (size_t)n, &w) ? n : -1;
    lg_ssl_alpn_apply(ssl);
    return real->write ? real->write(ssl, p, n) : -1;
}

/* The common body of the read and peek hooks (_ex form). */
static int read_ex(SSL *ssl, void *p, size_t n, size_t *got, bool peek)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_conn *c = lg_ssl_conn_get(ssl, false);
    int r = c ? read_conn(c, p, n, peek, got) : READ_WIRE;
    if (r >= 0)
        return r;
    if (!c)
        lg_ssl_alpn_apply(ssl); /* a read that begins the handshake (openssl s_client) */
    int (*fn)(SSL *, void *, size_t, size_t *) = peek ? real->peek_ex : real->read_ex;
    SSL *target = read_target(ssl, c, r);
    int ret = fn ? fn(target, p, n, got) : 0;
    return wire_read_done(ssl, c, target, ret, ret == 1);
}

/* The int form: bytes, or <= 0 as OpenSSL returns them. */
static int read_int(SSL *ssl, void *p, int n, bool peek)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_conn *c = n > 0 ? lg_ssl_conn_get(ssl, false) : NULL;
    size_t got = 0;
    int r = c ? read_conn(c, p, (size_t)n, peek, &got) : READ_WIRE;
    if (r >= 0)
        return r == 1 ? (int)got : lg_ssl_conn_error(c) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
    if (!c)
        lg_ssl_alpn_apply(ssl);
    int (*fn)(SSL *, void *, int) = peek ? real->peek : real->read;
    SSL *target = read_target(ssl, c, r);
    int ret = fn ? fn(target, p, n) : -1;
    return wire_read_done(ssl, c, target, ret, ret > 0);
}

EXPORT int SSL_read_ex(SSL *ssl, void *p, size_t n, size_t *got) { return read_ex(ssl, p, n, got, false); }
EXPORT int SSL_peek_ex(SSL *ssl, void *p, size_t n, size_t *got) { return read_ex(ssl, p, n, got, true); }
EXPORT int SSL_read(SSL *ssl, void *p, int n) { return read_int(ssl, p, n, false); }
EXPORT int SSL_peek(SSL *ssl, void *p, int n) { return read_int(ssl, p, n, true); }
