/* llmgate's own TLS connections to an https target (see tls_conn.h). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "hook/base/libc_real.h"
#include "hook/base/ssl_real.h"
#include "hook/sock/fd_wait.h"
#include "hook/sock/plain_conn.h"
#include "hook/sock/tls_conn.h"

typedef struct {
    int fd;
    SSL *ssl;
    short want; /* what the last call that could not go on waits for: POLLIN or POLLOUT */
} own_session;

static SSL_CTX *client_ctx; /* made on first use, then the process's (a context is shared by threads) */

/* The process's client context, made on first use (two threads at once: one keeps its own); NULL when it
 * cannot be made. */
static SSL_CTX *context(const lg_ssl_real *real)
{
    SSL_CTX *ctx = __atomic_load_n(&client_ctx, __ATOMIC_ACQUIRE);
    if (ctx)
        return ctx;
    static const unsigned char alpn[] = "\x08http/1.1";
    SSL_CTX *made = real->ctx_new(real->client_method());
    if (!made)
        return NULL;
    if (real->ctx_default_paths(made) != 1 ||
        real->ctx_ctrl(made, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL) != 1 ||
        real->ctx_set_alpn_protos(made, alpn, sizeof alpn - 1) != 0) {
        real->ctx_free(made);
        return NULL;
    }
    SSL_CTX *none = NULL;
    if (__atomic_compare_exchange_n(&client_ctx, &none, made, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return made;
    real->ctx_free(made);
    return none;
}

/* After a call on s that returned r (<= 0): true when it waits for the socket (s->want says for what). */
static bool wants(own_session *s, const lg_ssl_real *real, int r)
{
    int e = real->get_error(s->ssl, r);
    if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
        return false;
    s->want = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
    return true;
}

/* Sets s up for target t and makes its handshake, each wait ending at until_ms; false when it fails. */
static bool handshake(own_session *s, const lg_ssl_real *real, const lg_h1_target *t, int64_t until_ms)
{
    SSL_CTX *ctx = context(real);
    if (!ctx || !(s->ssl = real->new_(ctx)))
        return false;
    real->set_verify(s->ssl, SSL_VERIFY_PEER, NULL);
    X509_VERIFY_PARAM *param = real->get0_param(s->ssl);
    bool named = t->ip ? X509_VERIFY_PARAM_set1_ip_asc(param, t->host) == 1
                       : X509_VERIFY_PARAM_set1_host(param, t->host, 0) == 1 &&
                             real->ctrl(s->ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, (void *)t->host) == 1;
    if (!named || real->set_fd(s->ssl, s->fd) != 1)
        return false;
    for (;;) {
        int r = real->connect(s->ssl);
        if (r == 1)
            return true;
        if (!wants(s, real, r) || !lg_fd_wait_by(s->fd, s->want == POLLOUT, until_ms))
            return false;
    }
}

/* The real OpenSSL, with the system's libssl loaded for it when the program has none (kept loaded: its
 * functions are those of every session made); NULL when there is none to be had. */
static const lg_ssl_real *real_ssl(void)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    if (real->complete)
        return real;
    int saved = errno;
    bool loaded = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) != NULL;
    errno = saved;
    return loaded && (real = lg_ssl_real_get())->complete ? real : NULL;
}

void *lg_h1_tls_open(const lg_h1_target *t, int64_t until_ms)
{
    const lg_ssl_real *real = real_ssl();
    if (!real)
        return NULL;
    own_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = lg_h1_plain_socket(t, false, until_ms);
    int fl = s->fd >= 0 ? fcntl(s->fd, F_GETFL) : -1;
    ERR_set_mark();
    bool ok = fl >= 0 && fcntl(s->fd, F_SETFL, fl | O_NONBLOCK) == 0 && handshake(s, real, t, until_ms);
    ERR_pop_to_mark();
    if (ok)
        return s;
    lg_h1_tls_close(s);
    return NULL;
}

void lg_h1_tls_close(void *p)
{
    own_session *s = p;
    if (s->ssl)
        lg_ssl_real_get()->free(s->ssl);
    if (s->fd >= 0)
        lg_sock_real_get()->close(s->fd);
    free(s);
}

/* Sends all n bytes, each wait for the socket ending at until_ms (0: no limit). */
static bool own_send(void *io, const void *p, size_t n, int64_t until_ms)
{
    own_session *s = io;
    const lg_ssl_real *real = lg_ssl_real_get();
    bool ok = true;
    ERR_set_mark();
    for (size_t off = 0; ok && off < n;) {
        int w = real->write(s->ssl, (const char *)p + off, n - off > INT_MAX ? INT_MAX : (int)(n - off));
        if (w > 0)
            off += (size_t)w;
        else
            ok = wants(s, real, w) && lg_fd_wait_by(s->fd, s->want == POLLOUT, until_ms);
    }
    ERR_pop_to_mark();
    return ok;
}

/* Never waits: LG_IO_AGAIN when nothing is there yet (s->want says for what), 0 at the session's end. */
static ssize_t own_recv(void *io, void *p, size_t n)
{
    own_session *s = io;
    const lg_ssl_real *real = lg_ssl_real_get();
    ERR_set_mark();
    unsigned long before = ERR_peek_last_error(); /* the program's last error, if any: not ours */
    int r = real->read(s->ssl, p, n > INT_MAX ? INT_MAX : (int)n);
    ssize_t got = r;
    if (r <= 0 && wants(s, real, r)) {
        got = LG_IO_AGAIN;
    } else if (r <= 0) { /* the peer's close_notify, or its close without one (no error on the queue): the end */
        int e = real->get_error(s->ssl, r);
        got = e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ERR_peek_last_error() == before) ? 0 : -1;
    }
    ERR_pop_to_mark();
    return got;
}

static int own_wait(void *io, short *events)
{
    own_session *s = io;
    *events = s->want ? s->want : POLLIN;
    return s->fd;
}

const lg_h1_io lg_h1_tls_io = {.send = own_send, .recv = own_recv, .wait = own_wait};
