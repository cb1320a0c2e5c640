/* The replacement session of a followed OpenSSL connection (see ssl_session.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>

#include "hook/base/guard.h"
#include "hook/base/libc_real.h"
#include "hook/base/ssl_real.h"
#include "hook/sock/plain_conn.h"
#include "hook/tls/ssl_alpn.h"
#include "hook/tls/ssl_session.h"

SSL *lg_ssl_conn_wire(lg_ssl_conn *c) { return c->repl ? c->repl : c->ssl; }

void lg_ssl_unsent_drop(lg_ssl_conn *c)
{
    if (c->unsent)
        explicit_bzero(c->unsent, c->unsent_len);
    free(c->unsent);
    c->unsent = NULL;
    c->unsent_len = c->unsent_off = 0;
}

/* Application data slots of an SSL copied from the host's to a replacement (OpenSSL offers no count of
 * them: a host allocates a few, from 0 up). */
#define APP_SLOTS 64

/* Gives s the host's verification mode and callback and, shallowly, its application data: the host's
 * callbacks (its SSL_CTX's verify, info or session callbacks, or the verify callback it set on its SSL)
 * run on s during our handshakes and look their own objects up there (PHP's verify callback dereferences
 * its stream from SSL_get_ex_data without a check). */
static void adopt_host_state(SSL *s, SSL *host)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    real->set_verify(s, real->get_verify_mode(host), real->get_verify_callback(host));
    for (int i = 0; i < APP_SLOTS; i++) {
        void *v = real->get_ex_data(host, i);
        if (v)
            real->set_ex_data(s, i, v);
    }
}

/* Frees a replacement SSL, its copies of the host's application data cleared first: a free callback the
 * host registered for a slot must not free the host's object through our SSL. */
static void free_repl(SSL *s)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    for (int i = 0; i < APP_SLOTS; i++)
        if (real->get_ex_data(s, i))
            real->set_ex_data(s, i, NULL);
    real->free(s);
}


void lg_ssl_repl_drop(lg_ssl_conn *c)
{
    lg_ssl_unsent_drop(c);
    if (!c->repl)
        return;
    free_repl(c->repl);
    lg_sock_real_get()->close(c->repl_fd);
    c->repl = NULL;
}

/* A socket to the host's own peer (nb: non-blocking, possibly still connecting; else its connect bounded by
 * until_ms, which it keeps, lg_sock_deadline), TCP_NODELAY; -1 on failure. */
static int own_socket(lg_ssl_conn *c, bool nb, int64_t until_ms)
{
    struct sockaddr_storage peer = c->peer;
    socklen_t plen = c->peer_len;
    if (!plen)
        return -1;
    int fd = socket(peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC | (nb ? SOCK_NONBLOCK : 0), 0);
    if (fd < 0)
        return -1;
    /* the handshake's last flight and the request go out as two writes: without this, Nagle holds the
     * request until the peer's delayed ACK (40 ms per attempt, measured) */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!nb && until_ms > 0)
        lg_sock_deadline(fd, until_ms);
    int rc;
    LG_OURS(rc = lg_sock_real_get()->connect(fd, (struct sockaddr *)&peer, plen));
    if (rc != 0 && !(nb && errno == EINPROGRESS)) {
        lg_sock_real_get()->close(fd);
        return -1;
    }
    return fd;
}

/* True when the host's socket under its session is non-blocking (its reads are driven by its readiness
 * waits: so are llmgate's attempts beside it). */
static bool host_nonblocking(const lg_ssl_conn *c)
{
    int fl = fcntl(lg_ssl_real_get()->get_fd(c->ssl), F_GETFL);
    return fl >= 0 && (fl & O_NONBLOCK);
}

/* s checks the name of target to instead of the host's, when the host checks a name at all. */
static bool verify_target(SSL *s, SSL *host, const lg_h1_target *to)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    X509_VERIFY_PARAM *hp = real->get0_param(host), *vp = real->get0_param(s);
    char *ip = X509_VERIFY_PARAM_get1_ip_asc(hp);
    bool checks = X509_VERIFY_PARAM_get0_host(hp, 0) || ip;
    OPENSSL_free(ip);
    if (!checks)
        return true;
    return to->ip ? X509_VERIFY_PARAM_set1_host(vp, NULL, 0) == 1 && X509_VERIFY_PARAM_set1_ip_asc(vp, to->host) == 1
                  : X509_VERIFY_PARAM_set1_host(vp, to->host, 0) == 1;
}

/* A new SSL over fd, as lg_ssl_repl_open describes, its handshake begun (done unless nb); NULL on failure. The
 * thread's OpenSSL error queue is left as it was. */
static SSL *handshake_new(lg_ssl_conn *c, int fd, const lg_h1_target *to, bool nb)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    ERR_set_mark();
    SSL *s = real->new_(real->get_ssl_ctx(c->ssl));
    if (s) {
        adopt_host_state(s, c->ssl);
        lg_ssl_alpn_mirror(s, c->ssl);
    }
    const char *name = !to ? real->get_servername(c->ssl, TLSEXT_NAMETYPE_host_name) : to->ip ? NULL : to->host;
    bool ok = s && real->set_fd(s, fd) == 1 && real->set1_param(s, real->get0_param(c->ssl)) == 1 &&
              (!to || verify_target(s, c->ssl, to)) &&
              (!name || real->ctrl(s, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)name) == 1);
    int hs = ok ? real->connect(s) : 0;
    int err = hs == 1 ? SSL_ERROR_NONE : ok ? real->get_error(s, hs) : SSL_ERROR_SSL;
    ok = ok && (hs == 1 || (nb && (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE)));
    c->want = err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
    if (!ok && s)
        free_repl(s);
    ERR_pop_to_mark();
    return ok ? s : NULL;
}

bool lg_ssl_repl_open(lg_ssl_conn *c, const lg_h1_target *to, int64_t until_ms)
{
    if (to && !to->tls)
        return false;
    lg_ssl_repl_drop(c);
    bool nb = c->host_fd >= 0 || host_nonblocking(c);
    int fd = to ? lg_h1_target_socket(to, nb, until_ms) : own_socket(c, nb, until_ms);
    if (fd < 0)
        return false;
    SSL *s; /* blocking: a handshake the peer does not answer ends at the socket's deadline (WANT_READ) */
    LG_OURS(s = handshake_new(c, fd, to, nb));
    if (!s) {
        lg_sock_real_get()->close(fd);
        return false;
    }
    if (!nb && until_ms > 0)
        lg_sock_deadline(fd, 0);
    c->repl = s;
    c->repl_fd = fd;
    c->repl_until = nb ? until_ms : 0;
    return true;
}
