/* GnuTLS data-path interposers: gnutls_record_send and gnutls_record_recv. A followed session goes through
 * its HTTP/1.1 connection; everything else, and anything llmgate holds nothing for, is the real call. While
 * a non-blocking host's exchange waits, its reads get GNUTLS_E_AGAIN (and gnutls_record_get_direction 0). */
#include <errno.h>

#include "hook/base/export.h"
#include "hook/tls/gnutls_conns.h"
#include "hook/base/gnutls_real.h"

EXPORT ssize_t gnutls_record_send(gnutls_session_t session, const void *p, size_t n)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    lg_gnutls_conn *c = n ? lg_gnutls_conn_get(session, true) : NULL;
    if (c)
        return lg_h1_write(lg_gnutls_conn_h1(c), p, n) < 0 ? GNUTLS_E_PUSH_ERROR : (ssize_t)n;
    return real->record_send ? real->record_send(session, p, n) : GNUTLS_E_INTERNAL_ERROR;
}

EXPORT ssize_t gnutls_record_recv(gnutls_session_t session, void *p, size_t n)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    lg_gnutls_conn *c = lg_gnutls_conn_get(session, false);
    ssize_t r = c ? lg_h1_read(lg_gnutls_conn_h1(c), p, n, false) : LG_H1_PASS;
    if (c && r != LG_H1_PASS && r != 0)
        lg_gnutls_conn_answered(c, r > 0 ? session : NULL);
    if (r > 0)
        return r;
    if (r == -1) /* the exchange waits (a non-blocking host polls its socket), or a signal interrupted it */
        return errno == EAGAIN || errno == EWOULDBLOCK ? GNUTLS_E_AGAIN
               : errno == EINTR                        ? GNUTLS_E_INTERRUPTED
                                                       : GNUTLS_E_PULL_ERROR;
    if (r == 0 && lg_h1_ended(lg_gnutls_conn_h1(c)))
        return 0; /* llmgate's own end of the connection, as after the server's close_notify */
    /* nothing held: the provider side; at the end, the host's own session, which ended with it */
    gnutls_session_t target = c && r == LG_H1_PASS ? lg_gnutls_conn_wire(c) : session;
    if (c)
        lg_gnutls_conn_answered(c, target);
    return real->record_recv ? real->record_recv(target, p, n) : GNUTLS_E_INTERNAL_ERROR;
}
