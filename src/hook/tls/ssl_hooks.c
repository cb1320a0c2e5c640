/* OpenSSL state interposers: SSL_free, SSL_shutdown, SSL_pending, SSL_has_pending and SSL_get_error. A
 * followed session answers from its lg_h1_conn and its replacement; any other is OpenSSL's alone. */
#include <errno.h>

#include "hook/base/export.h"
#include "hook/base/guard.h"
#include "hook/base/ssl_real.h"
#include "hook/tls/ssl_conn.h"

EXPORT void SSL_free(SSL *ssl)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    if (ssl) {
        int saved = errno;
        lg_ssl_conn_forget(ssl);
        errno = saved;
    }
    if (real->free)
        real->free(ssl);
}

EXPORT int SSL_shutdown(SSL *ssl)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_conn *c = lg_ssl_conn_get(ssl, false);
    if (c && c->repl)
        LG_OURS(real->shutdown(c->repl));
    return real->shutdown ? real->shutdown(ssl) : -1;
}

EXPORT int SSL_pending(const SSL *ssl)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_conn *c = lg_ssl_conn_get((SSL *)ssl, false);
    if (c)
        return (int)lg_h1_pending(c->h1) + real->pending(lg_ssl_conn_wire(c));
    return real->pending ? real->pending(ssl) : 0;
}

EXPORT int SSL_has_pending(const SSL *ssl)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_conn *c = lg_ssl_conn_get((SSL *)ssl, false);
    if (c)
        return lg_h1_pending(c->h1) > 0 || real->has_pending(lg_ssl_conn_wire(c));
    return real->has_pending ? real->has_pending(ssl) : 0;
}

EXPORT int SSL_get_error(const SSL *ssl, int ret)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_conn *c = lg_ssl_conn_get((SSL *)ssl, false);
    if (c && c->last_error)
        return c->last_error;
    return real->get_error ? real->get_error(ssl, ret) : SSL_ERROR_SSL;
}
