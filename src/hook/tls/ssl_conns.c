/* The table of followed TLS sessions and their transport (see ssl_conns.h); SSL_free, SSL_shutdown,
 * SSL_pending, SSL_has_pending and SSL_get_error interposers. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uthash.h>

#include "hook/base/export.h"
#include "hook/sock/fd_wait.h"
#include "hook/sock/fd_watch.h"
#include "hook/base/guard.h"
#include "hook/sock/plain_conn.h"
#include "hook/base/runtime.h"
#include "hook/base/libc_real.h"
#include "hook/tls/ssl_conns.h"
#include "hook/base/ssl_real.h"
#include "hook/tls/tls_hello.h"
#include "llmgate/log.h"

#define FD_MAX 65536

struct lg_ssl_conn {
    SSL *ssl;          /* the host's */
    lg_h1_conn *h1;    /* NULL: decided not ours */
    SSL *repl;         /* a replacement connection of ours, or NULL */
    int repl_fd;
    int last_error;    /* for SSL_get_error after a call we answered */
    int host_fd;       /* memory-BIO TLS (asyncio): the host's socket under the session, else -1 */
    int wakes;         /* placeholder bytes handed to the host's recv, still in its incoming BIO */
    char *unsent;      /* memory-BIO: request bytes taken, not yet accepted by our non-blocking session */
    size_t unsent_len, unsent_off;
    short want;        /* POLLIN or POLLOUT, what the session an attempt reads from waits for (non-blocking) */
    struct sockaddr_storage peer; /* the host's peer, read when the session was taken: a socket the peer has
                                   * reset no longer tells it (getpeername fails), yet a retry reopens to it */
    socklen_t peer_len;           /* 0: unknown */
    UT_hash_handle hh;
};

static lg_ssl_conn *table;
static lg_ssl_conn *by_fd[FD_MAX]; /* memory-BIO sessions by their host socket */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned removals; /* sessions forgotten so far: a thread's last lookup holds while this is unchanged */

/* The calling thread's last lookup: a host calls several hooks in a row on one session (which OpenSSL
 * lets only one thread use at a time). */
static __attribute__((tls_model("initial-exec"))) _Thread_local struct {
    SSL *ssl;
    lg_ssl_conn *c;
    unsigned removals;
} last;

static void after_fork(void) { pthread_mutex_init(&table_lock, NULL); }
static void setup_fork(void) { lg_runtime_on_fork_child(after_fork); }

SSL *lg_ssl_conn_wire(lg_ssl_conn *c) { return c->repl ? c->repl : c->ssl; }
bool lg_ssl_conn_detached(const lg_ssl_conn *c) { return c->host_fd >= 0; }

void lg_ssl_conn_take_wakes(lg_ssl_conn *c)
{
    char b[16];
    BIO *rbio = c->wakes > 0 ? lg_ssl_real_get()->get_rbio(c->ssl) : NULL;
    while (rbio && c->wakes > 0) {
        int k = BIO_read(rbio, b, c->wakes < (int)sizeof b ? c->wakes : (int)sizeof b);
        if (k <= 0)
            break;
        c->wakes -= k;
    }
    c->wakes = 0;
}

ssize_t lg_ssl_wake(int fd, void *p, size_t n)
{
    lg_ssl_conn *c = (unsigned)fd < FD_MAX ? by_fd[fd] : NULL;
    int64_t due;
    if (!c || !c->h1 || n == 0 || c->wakes > 0 || lg_guard_active() || lg_fd_watched(fd) != c->h1 ||
        lg_h1_ready(c->h1, &due) != LG_H1_READY)
        return LG_H1_PASS;
    *(char *)p = 0;
    c->wakes = 1;
    return 1;
}
lg_h1_conn *lg_ssl_conn_h1(lg_ssl_conn *c) { return c->h1; }
int lg_ssl_conn_error(lg_ssl_conn *c) { return c->last_error; }
void lg_ssl_conn_set_error(lg_ssl_conn *c, int err) { c->last_error = err; }

void lg_ssl_conn_end(lg_ssl_conn *c)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    real->set_shutdown(c->ssl, real->get_shutdown(c->ssl) | SSL_RECEIVED_SHUTDOWN);
    c->last_error = SSL_ERROR_ZERO_RETURN;
}

/* After a write on the wire returned ok (1 or not): true to call again (it wants the socket, which the
 * host made non-blocking, and it is ready now). */
static bool again(lg_ssl_conn *c, int ok)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    SSL *wire = lg_ssl_conn_wire(c);
    int err = ok == 1 ? SSL_ERROR_NONE : real->get_error(wire, 0);
    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE)
        return false;
    return lg_fd_wait(real->get_fd(wire), err == SSL_ERROR_WANT_WRITE);
}

static bool io_reopen(void *io, const lg_h1_target *to);

/* Forgets the request bytes not sent yet (they carry a key). */
static void drop_unsent(lg_ssl_conn *c)
{
    if (c->unsent)
        explicit_bzero(c->unsent, c->unsent_len);
    free(c->unsent);
    c->unsent = NULL;
    c->unsent_len = c->unsent_off = 0;
}

/* Memory BIOs: the bytes are taken, to go out from io_recv over llmgate's own non-blocking session. */
static bool membio_send(lg_ssl_conn *c, const void *p, size_t n)
{
    if (!c->repl && !io_reopen(c, NULL))
        return false;
    char *b = realloc(c->unsent, c->unsent_len + n);
    if (!b)
        return false;
    memcpy(b + c->unsent_len, p, n);
    c->unsent = b;
    c->unsent_len += n;
    return true;
}

/* Memory BIOs, a released connection: the held bytes go into the host's own session, where they would
 * have gone without llmgate (its loop sends what the outgoing BIO holds after its write call). */
static bool host_send(lg_ssl_conn *c, const void *p, size_t n)
{
    size_t done = 0;
    int ok;
    LG_OURS(ok = lg_ssl_real_get()->write_ex(c->ssl, p, n, &done));
    return ok == 1 && done == n;
}

/* Socket BIOs: writes on the wire, again while it waits for the host's non-blocking socket. */
static bool wire_send(lg_ssl_conn *c, const void *p, size_t n)
{
    size_t done = 0;
    int ok;
    do
        ok = lg_ssl_real_get()->write_ex(lg_ssl_conn_wire(c), p, n, &done);
    while (again(c, ok));
    return ok == 1 && done == n;
}

static bool io_send(void *io, const void *p, size_t n)
{
    lg_ssl_conn *c = io;
    bool ok;
    if (c->host_fd >= 0) /* memory BIOs: llmgate's own connection, until released */
        return lg_h1_released(c->h1) ? host_send(c, p, n) : membio_send(c, p, n);
    LG_OURS(ok = wire_send(c, p, n));
    return ok;
}

/* A call on our non-blocking session returned ok: > 0 to go on, LG_IO_AGAIN (c->want says for what), 0
 * at the end (close_notify, or a peer that just closed), -1 on failure. */
static ssize_t membio_result(lg_ssl_conn *c, int ok)
{
    int err = ok == 1 ? SSL_ERROR_NONE : lg_ssl_real_get()->get_error(c->repl, 0);
    c->want = err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
    if (ok == 1)
        return 1;
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE)
        return LG_IO_AGAIN;
    return err == SSL_ERROR_ZERO_RETURN || err == SSL_ERROR_SSL || err == SSL_ERROR_SYSCALL ? 0 : -1;
}

/* Memory BIOs: sends what was taken on our session, then reads from it (membio_result's answer, *done
 * bytes read). The thread's OpenSSL error queue is left as it was. */
static ssize_t membio_pump(lg_ssl_conn *c, void *p, size_t n, size_t *done)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    ssize_t r = 1;
    ERR_set_mark();
    while (c->unsent && r > 0) {
        r = membio_result(c, real->write_ex(c->repl, c->unsent + c->unsent_off, c->unsent_len - c->unsent_off, done));
        if (r > 0 && (c->unsent_off += *done) == c->unsent_len)
            drop_unsent(c);
    }
    if (r > 0)
        r = membio_result(c, real->read_ex(c->repl, p, n, done));
    ERR_pop_to_mark();
    return r;
}

/* Memory BIOs: sends what was taken (the handshake goes on inside), then reads; never blocks. Runs inside
 * the host's calls (its readiness waits): the thread's OpenSSL error queue is left as the host had it. */
static ssize_t membio_recv(lg_ssl_conn *c, void *p, size_t n)
{
    size_t done = 0;
    ssize_t r;
    if (!c->repl)
        return -1;
    LG_OURS(r = membio_pump(c, p, n, &done));
    if (r == 0 && c->unsent) /* the request did not go out */
        r = -1;
    if (r <= 0 && r != LG_IO_AGAIN)
        drop_unsent(c);
    return r > 0 ? (ssize_t)done : r;
}

/* > 0 bytes; 0 at the end (close_notify, or a peer that just closed); -1 on failure. A session on a
 * non-blocking socket (the host's, or ours beside it) returns LG_IO_AGAIN when it waits for the socket
 * (c->want says for what): the attempt is then driven from the host's readiness waits (io_wait), which its
 * time limit bounds. */
static ssize_t io_recv(void *io, void *p, size_t n)
{
    lg_ssl_conn *c = io;
    const lg_ssl_real *real = lg_ssl_real_get();
    size_t got = 0;
    int ok, err;
    if (c->host_fd >= 0)
        return membio_recv(c, p, n);
    errno = 0; /* EINTR after the call: a signal interrupted a blocking socket's wait */
    LG_OURS(ok = real->read_ex(lg_ssl_conn_wire(c), p, n, &got));
    bool interrupted = errno == EINTR;
    LG_OURS(err = ok == 1 ? SSL_ERROR_NONE : real->get_error(lg_ssl_conn_wire(c), 0));
    if (ok == 1)
        return (ssize_t)got;
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        c->want = err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
        return interrupted && lg_host_takes_eintr() ? LG_IO_INTR : LG_IO_AGAIN;
    }
    return err == SSL_ERROR_ZERO_RETURN || err == SSL_ERROR_SSL || err == SSL_ERROR_SYSCALL ? 0 : -1;
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

static void drop_repl(lg_ssl_conn *c)
{
    drop_unsent(c);
    if (!c->repl)
        return;
    free_repl(c->repl);
    lg_sock_real_get()->close(c->repl_fd);
    c->repl = NULL;
}

/* A socket to the host's own peer (nb: non-blocking, possibly still connecting), TCP_NODELAY; -1 on failure. */
static int own_socket(lg_ssl_conn *c, bool nb)
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

/* A new SSL over fd, as io_reopen describes, its handshake begun (done unless nb); NULL on failure. The
 * thread's OpenSSL error queue is left as it was. */
static SSL *handshake_new(lg_ssl_conn *c, int fd, const lg_h1_target *to, bool nb)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    ERR_set_mark();
    SSL *s = real->new_(real->get_ssl_ctx(c->ssl));
    if (s)
        adopt_host_state(s, c->ssl);
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

/* A new TLS connection with the host's SSL_CTX and verification parameters: to the same peer with the
 * host's name (to NULL), or to an https target with its name (SNI unless an address). For memory BIOs it
 * is non-blocking: connected and shaken hands as far as it goes at once, the rest inside membio_recv. */
static bool io_reopen(void *io, const lg_h1_target *to)
{
    lg_ssl_conn *c = io;
    if (to && !to->tls)
        return false;
    drop_repl(c);
    bool nb = c->host_fd >= 0 || host_nonblocking(c);
    int fd = to ? lg_h1_target_socket(to, nb) : own_socket(c, nb);
    if (fd < 0)
        return false;
    SSL *s;
    LG_OURS(s = handshake_new(c, fd, to, nb));
    if (!s) {
        lg_sock_real_get()->close(fd);
        return false;
    }
    c->repl = s;
    c->repl_fd = fd;
    return true;
}

/* A socket-BIO session: the socket of the session the attempt reads from, and what it waits for. */
static int io_wire_wait(void *io, short *events)
{
    lg_ssl_conn *c = io;
    *events = c->want ? c->want : POLLIN;
    return lg_ssl_real_get()->get_fd(lg_ssl_conn_wire(c));
}

static int io_fd(void *io)
{
    lg_ssl_conn *c = io;
    return c->host_fd >= 0 ? c->host_fd : lg_ssl_real_get()->get_fd(c->ssl);
}

/* Memory BIOs: our session's descriptor and what it waits for. */
static int io_wait(void *io, short *events)
{
    lg_ssl_conn *c = io;
    *events = c->want ? c->want : POLLIN;
    return c->repl ? c->repl_fd : -1;
}

/* Memory BIOs: the host's own connection, idle all along, reads its end (shutdown SHUT_RD sends nothing
 * to the peer; the host's recv returns 0, and its loop closes the connection as after the provider's close). */
static void io_end(void *io)
{
    lg_ssl_conn *c = io;
    int saved = errno;
    shutdown(c->host_fd, SHUT_RD);
    errno = saved;
}

static const lg_h1_io ssl_io = {.send = io_send, .recv = io_recv, .wait = io_wire_wait, .reopen = io_reopen, .fd = io_fd,
                                .tls = true};
static const lg_h1_io membio_io = {.send = io_send, .recv = io_recv, .reopen = io_reopen, .fd = io_fd, .tls = true,
                                   .wait = io_wait, .end = io_end, .detached = true};

/* The provider of a session we can follow: SNI names one, a socket under it (or, for memory BIOs, a
 * followed socket that sent its ClientHello: *membio_fd), no HTTP/2. */
static const lg_provider *provider_of(SSL *ssl, const lg_ssl_real *real, int *membio_fd)
{
    const lg_runtime *rt = lg_runtime_get();
    const char *name = rt->cfg ? real->get_servername(ssl, TLSEXT_NAMETYPE_host_name) : NULL;
    const lg_provider *prov = name ? lg_config_match_host(rt->cfg, name) : NULL;
    if (!prov)
        return NULL;
    int fd = real->get_fd(ssl);
    unsigned char random[32];
    if (fd < 0 && real->get_client_random(ssl, random, sizeof random) == sizeof random &&
        (fd = lg_tls_hello_fd(random)) >= 0 && fd < FD_MAX)
        *membio_fd = fd;
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    const unsigned char *alpn = NULL;
    unsigned alpn_len = 0;
    real->get0_alpn_selected(ssl, &alpn, &alpn_len);
    bool h2 = alpn_len == 2 && !memcmp(alpn, "h2", 2);
    if (fl < 0 || h2) {
        lg_log(LG_LOG_DEBUG, "[%s] TLS connection passed through untouched (%s)", prov->name,
               h2 ? "HTTP/2" : "no socket under it");
        return NULL;
    }
    return prov;
}

lg_ssl_conn *lg_ssl_conn_get(SSL *ssl, bool decide)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    const lg_ssl_real *real = lg_ssl_real_get();
    if (!ssl || lg_guard_active() || !real->complete)
        return NULL;
    lg_ssl_conn *c = NULL;
    if (last.c && last.ssl == ssl && last.removals == __atomic_load_n(&removals, __ATOMIC_ACQUIRE))
        c = last.c;
    else {
        pthread_once(&once, setup_fork);
        pthread_mutex_lock(&table_lock);
        unsigned seen = removals;
        HASH_FIND_PTR(table, &ssl, c);
        pthread_mutex_unlock(&table_lock);
        if (c) {
            last.ssl = ssl;
            last.c = c;
            last.removals = seen;
        }
    }
    if (!c && decide) {
        int saved = errno;
        c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        c->ssl = ssl;
        c->host_fd = -1;
        int membio_fd = -1;
        const lg_provider *prov = provider_of(ssl, real, &membio_fd);
        if (prov && membio_fd >= 0) {
            c->host_fd = membio_fd;
            by_fd[membio_fd] = c;
        }
        c->h1 = prov ? lg_h1_new(&prov, 1, membio_fd >= 0 ? &membio_io : &ssl_io, c) : NULL;
        c->peer_len = sizeof c->peer;
        if (c->h1 && getpeername(membio_fd >= 0 ? membio_fd : real->get_fd(ssl), (struct sockaddr *)&c->peer,
                                 &c->peer_len) != 0)
            c->peer_len = 0;
        pthread_mutex_lock(&table_lock);
        HASH_ADD_PTR(table, ssl, c);
        pthread_mutex_unlock(&table_lock);
        errno = saved;
    }
    return c && c->h1 && !lg_h1_passed(c->h1) ? c : NULL;
}

/* Forgets ssl (SSL_free). */
static void forget(SSL *ssl)
{
    lg_ssl_conn *c;
    pthread_mutex_lock(&table_lock);
    HASH_FIND_PTR(table, &ssl, c);
    if (c) {
        HASH_DEL(table, c);
        __atomic_add_fetch(&removals, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&table_lock);
    if (!c)
        return;
    if (c->host_fd >= 0 && by_fd[c->host_fd] == c)
        by_fd[c->host_fd] = NULL;
    lg_h1_free(c->h1);
    drop_repl(c);
    free(c);
}

EXPORT void SSL_free(SSL *ssl)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    if (ssl) {
        int saved = errno;
        forget(ssl);
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
