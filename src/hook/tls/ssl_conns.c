/* The table of followed OpenSSL sessions (see ssl_conns.h): which sessions llmgate follows, found by SSL
 * (and, for memory BIOs, by the host's socket), decided when the host first writes on one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <uthash.h>

#include "hook/base/guard.h"
#include "hook/sock/front_host.h"
#include "hook/sock/io.h"
#include "hook/base/runtime.h"
#include "hook/base/ssl_real.h"
#include "hook/sock/fd_watch.h"
#include "hook/sock/tls_hello.h"
#include "hook/tls/ssl_alpn.h"
#include "hook/tls/ssl_conn.h"
#include "hook/tls/ssl_session.h"
#include "hook/tls/ssl_transport.h"
#include "llmgate/log.h"
#include "llmgate/ungated.h"

#define FD_MAX 65536

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

bool lg_ssl_conn_detached(const lg_ssl_conn *c) { return c->host_fd >= 0; }

void lg_ssl_conn_take_wakes(lg_ssl_conn *c)
{
    BIO *rbio = c->wakes > 0 ? lg_ssl_real_get()->get_rbio(c->ssl) : NULL;
    size_t n = rbio ? BIO_ctrl_pending(rbio) : 0, w = (size_t)c->wakes;
    c->wakes = 0;
    if (!rbio || n < w || n > INT_MAX)
        return;
    /* out from where they went, not from the front: bytes of the host's own session may come before them */
    size_t at = c->wake_at < n - w ? c->wake_at : n - w;
    char small[4096], *b = n <= sizeof small ? small : malloc(n);
    if (b && BIO_read(rbio, b, (int)n) == (int)n) {
        memmove(b + at, b + at + w, n - at - w);
        if (n > w)
            BIO_write(rbio, b, (int)(n - w));
    }
    if (b != small)
        free(b);
}

ssize_t lg_ssl_wake(int fd, void *p, size_t n)
{
    lg_ssl_conn *c = (unsigned)fd < FD_MAX ? by_fd[fd] : NULL;
    int64_t due;
    if (!c || !c->h1 || n == 0 || c->wakes > 0 || lg_guard_active() || lg_fd_watched(fd) != c->h1 ||
        lg_h1_ready(c->h1, &due) != LG_H1_READY)
        return LG_H1_PASS;
    BIO *rbio = lg_ssl_real_get()->get_rbio(c->ssl);
    *(char *)p = 0;
    c->wakes = 1;
    c->wake_at = rbio ? BIO_ctrl_pending(rbio) : 0;
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
        lg_ungated(rt->store, prov->name, h2 ? LG_UNGATED_HTTP2 : LG_UNGATED_NO_SOCKET);
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
        lg_ssl_alpn_apply(ssl); /* a first write that begins the handshake itself */
        int membio_fd = -1;
        const lg_provider *prov = provider_of(ssl, real, &membio_fd);
        if (prov && membio_fd >= 0) {
            c->host_fd = membio_fd;
            by_fd[membio_fd] = c;
            lg_sock_on_unfollowed_read(lg_ssl_wake); /* its wake-up byte comes through the socket hooks */
        }
        c->h1 = prov ? lg_h1_new(&lg_sock_front_host, &prov, 1, membio_fd >= 0 ? &lg_ssl_membio_io : &lg_ssl_socket_io, c) : NULL;
        if (prov && !c->h1)
            lg_ungated(lg_runtime_get()->store, prov->name, LG_UNGATED_NO_ROOM);
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

void lg_ssl_conn_forget(SSL *ssl)
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
    lg_ssl_repl_drop(c);
    BIO_free(c->nowait);
    free(c);
}
