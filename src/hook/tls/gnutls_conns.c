/* The table of followed GnuTLS sessions and their transport (see gnutls_conns.h); gnutls_deinit,
 * gnutls_bye, gnutls_record_check_pending, gnutls_record_get_direction and gnutls_transport_set_fastopen
 * interposers. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uthash.h>

#include "hook/base/export.h"
#include "hook/sock/fd_wait.h"
#include "hook/tls/gnutls_alpn.h"
#include "hook/tls/gnutls_conns.h"
#include "hook/base/gnutls_real.h"
#include "hook/base/guard.h"
#include "hook/sock/front_host.h"
#include "hook/sock/plain_conn.h"
#include "hook/base/runtime.h"
#include "hook/base/libc_real.h"
#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "llmgate/ungated.h"

struct lg_gnutls_conn {
    gnutls_session_t session; /* the host's */
    lg_h1_conn *h1;           /* NULL: decided not ours */
    gnutls_session_t repl;    /* a replacement of ours, or NULL */
    int repl_fd;
    char name[256];           /* the server name the host set (gnutls_server_name_set) */
    int tfo_fd;               /* the socket GnuTLS's own TCP Fast Open transport runs on (its transport
                               * pointer is then no descriptor), + 1; 0: the transport's int is the socket */
    bool decided;
    struct sockaddr_storage peer; /* the host's peer, read when the session was taken (a reset socket no
                                   * longer tells it) */
    socklen_t peer_len;           /* 0: unknown */
    short want;                   /* POLLIN or POLLOUT: what the wire waits for after GNUTLS_E_AGAIN */
    gnutls_session_t dir_of;      /* the session the host's last record call went to (its direction), or
                                   * NULL when llmgate answered it itself (GNUTLS_E_AGAIN: a read to wait for) */
    UT_hash_handle hh;
};

static lg_gnutls_conn *table;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static void after_fork(void) { pthread_mutex_init(&table_lock, NULL); }
static void setup_fork(void) { lg_runtime_on_fork_child(after_fork); }

gnutls_session_t lg_gnutls_conn_wire(lg_gnutls_conn *c) { return c->repl ? c->repl : c->session; }

/* The socket under session s, one of c's (the host's, or our replacement). */
static int socket_of(const lg_gnutls_conn *c, gnutls_session_t s)
{
    return s == c->session && c->tfo_fd ? c->tfo_fd - 1 : lg_gnutls_real_get()->transport_get_int(s);
}
lg_h1_conn *lg_gnutls_conn_h1(lg_gnutls_conn *c) { return c->h1; }

/* Waits for the wire's descriptor after GNUTLS_E_AGAIN, in the direction GnuTLS says; false when it cannot. */
static bool wait_wire(lg_gnutls_conn *c)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    gnutls_session_t wire = lg_gnutls_conn_wire(c);
    return lg_fd_wait(socket_of(c, wire), real->record_get_direction(wire) == 1);
}

/* Sends all n bytes on c's wire, waiting for its socket when it is non-blocking; false on failure. */
static bool send_all(lg_gnutls_conn *c, const void *p, size_t n)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    bool ok = true;
    for (size_t off = 0; ok && off < n;) {
        ssize_t w = real->record_send(lg_gnutls_conn_wire(c), (const char *)p + off, n - off);
        if (w == GNUTLS_E_AGAIN || w == GNUTLS_E_INTERRUPTED)
            ok = w == GNUTLS_E_INTERRUPTED || wait_wire(c);
        else if (w < 0)
            ok = false;
        else
            off += (size_t)w;
    }
    return ok;
}

static bool io_send(void *io, const void *p, size_t n, int64_t until_ms)
{
    bool ok;
    LG_OURS(ok = send_all(io, p, n));
    return ok;
}

/* One record read on c's wire: what gnutls_record_recv returned (GNUTLS_E_INTERRUPTED: a signal the host
 * takes interrupted a blocking socket's wait; GNUTLS_E_AGAIN: a non-blocking socket has nothing yet, c->want
 * says what it waits for). */
static ssize_t recv_wire(lg_gnutls_conn *c, void *p, size_t n)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    gnutls_session_t wire = lg_gnutls_conn_wire(c);
    ssize_t r;
    do
        r = real->record_recv(wire, p, n);
    while (r == GNUTLS_E_INTERRUPTED && !lg_host_takes_eintr());
    if (r == GNUTLS_E_AGAIN)
        c->want = real->record_get_direction(wire) == 1 ? POLLOUT : POLLIN;
    return r;
}

/* > 0 bytes; 0 at the end; -1 on failure; LG_IO_INTR; LG_IO_AGAIN when the wire's socket (the host's, or
 * ours beside it; blocking or not) has nothing yet: never a wait in the kernel. A non-blocking host's
 * attempt is then driven from its readiness waits (io_wire_wait); a blocking host's waits in the front's
 * wait_fd; the attempt's time limits bound both, as OpenSSL's (ssl_transport.c). */
static ssize_t io_recv(void *io, void *p, size_t n)
{
    lg_gnutls_conn *c = io;
    gnutls_session_t wire = lg_gnutls_conn_wire(c);
    int fd = socket_of(c, wire);
    if (fd >= 0 && !lg_gnutls_real_get()->record_check_pending(wire) &&
        lg_fd_wait_until(fd, false, lg_now_ms()) == LG_WAIT_TIMEOUT) {
        c->want = POLLIN;
        return LG_IO_AGAIN;
    }
    ssize_t r;
    LG_OURS(r = recv_wire(io, p, n));
    if (r == GNUTLS_E_INTERRUPTED)
        return LG_IO_INTR;
    if (r == GNUTLS_E_AGAIN)
        return LG_IO_AGAIN;
    if (r >= 0)
        return r;
    return r == GNUTLS_E_PREMATURE_TERMINATION ? 0 : -1;
}

/* The descriptor of the session the attempt reads from, and what it waits for. */
static int io_wire_wait(void *io, short *events)
{
    lg_gnutls_conn *c = io;
    *events = c->want ? c->want : POLLIN;
    return socket_of(c, lg_gnutls_conn_wire(c));
}

/* The host's own socket, which it waits on. */
static int io_fd(void *io) { return socket_of(io, ((lg_gnutls_conn *)io)->session); }

static void drop_repl(lg_gnutls_conn *c)
{
    if (!c->repl)
        return;
    lg_gnutls_real_get()->deinit(c->repl);
    lg_sock_real_get()->close(c->repl_fd);
    c->repl = NULL;
}

/* A blocking socket connected to the host's own peer, its connect bounded by until_ms, which it keeps
 * (lg_sock_deadline); -1 on failure. */
static int own_socket(lg_gnutls_conn *c, int64_t until_ms)
{
    if (!c->peer_len)
        return -1;
    int fd = socket(c->peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && until_ms > 0)
        lg_sock_deadline(fd, until_ms);
    if (fd >= 0 && lg_sock_real_get()->connect(fd, (struct sockaddr *)&c->peer, c->peer_len) != 0) {
        lg_sock_real_get()->close(fd);
        fd = -1;
    }
    return fd;
}

/* Opens *fdp (to the host's peer, or to the target to) and runs a new client session *sp over it, with the
 * host's credentials cred and its verification, through its handshake (blocking, as the request's send is:
 * OpenSSL's replacement too finishes its handshake inside the host's write; connect and handshake not done
 * by until_ms, 0: no limit, fail); the socket is then made non-blocking when the host's is, so that the
 * attempt's answer is read as the host's readiness waits allow. False on failure (*sp and *fdp, when set,
 * are then the caller's to release). */
static bool handshake_new(lg_gnutls_conn *c, const lg_h1_target *to, void *cred, int64_t until_ms,
                          gnutls_session_t *sp, int *fdp)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    int fd = *fdp = to ? lg_h1_target_socket(to, false, until_ms) : own_socket(c, until_ms);
    const char *name = to ? to->host : c->name;
    gnutls_session_t s = NULL;
    bool ok = fd >= 0 && real->init(&s, GNUTLS_CLIENT) == 0 &&
              real->credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred) == 0 && real->set_default_priority(s) == 0 &&
              ((to && to->ip) || real->server_name_set(s, GNUTLS_NAME_DNS, name, strlen(name)) == 0);
    if (ok) {
        /* the host's credentials' callbacks (a verify function) run on s and find the host's pointer there */
        real->session_set_ptr(s, real->session_get_ptr(c->session));
        real->session_set_verify_cert(s, name, 0);
        real->transport_set_int2(s, fd, fd);
        int rc;
        do
            rc = real->handshake(s);
        while (rc == GNUTLS_E_INTERRUPTED ||
               (rc == GNUTLS_E_AGAIN && lg_fd_wait_by(fd, real->record_get_direction(s) == 1, until_ms)));
        if (until_ms > 0)
            lg_sock_deadline(fd, 0);
        int fl = rc == 0 ? fcntl(socket_of(c, c->session), F_GETFL) : -1;
        ok = rc == 0 && (fl < 0 || !(fl & O_NONBLOCK) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0);
    }
    *sp = s;
    return ok;
}

/* A new client session with the host's credentials and verification: to the same peer with the host's
 * name (to NULL), or to an https target with its name (sent as the server name unless an address). */
static bool io_reopen(void *io, const lg_h1_target *to, int64_t until_ms)
{
    lg_gnutls_conn *c = io;
    const lg_gnutls_real *real = lg_gnutls_real_get();
    void *cred = NULL;
    if ((to && !to->tls) || real->credentials_get(c->session, GNUTLS_CRD_CERTIFICATE, &cred) < 0)
        return false;
    drop_repl(c);
    gnutls_session_t s = NULL;
    int fd = -1;
    bool ok;
    LG_OURS(ok = handshake_new(c, to, cred, until_ms, &s, &fd));
    if (!ok) {
        if (s)
            real->deinit(s);
        if (fd >= 0)
            lg_sock_real_get()->close(fd);
        return false;
    }
    c->repl = s;
    c->repl_fd = fd;
    return true;
}

static const lg_h1_io gnutls_io = {.send = io_send, .recv = io_recv, .wait = io_wire_wait, .reopen = io_reopen,
                                   .fd = io_fd, .tls = true};

/* The provider of a session we can follow, by the server name the host set. */
static const lg_provider *provider_of(lg_gnutls_conn *c, const lg_gnutls_real *real)
{
    const lg_runtime *rt = lg_runtime_get();
    const lg_provider *prov = rt->cfg && c->name[0] ? lg_config_match_host(rt->cfg, c->name) : NULL;
    int fd = prov ? socket_of(c, c->session) : -1;
    gnutls_datum_t alpn = {0};
    bool h2 = prov && real->alpn_get_selected_protocol(c->session, &alpn) == 0 && alpn.size == 2 &&
              !memcmp(alpn.data, "h2", 2);
    if (prov && (fd < 0 || fcntl(fd, F_GETFL) < 0 || h2)) {
        lg_log(LG_LOG_DEBUG, "[%s] TLS connection passed through untouched (%s)", prov->name,
               h2 ? "HTTP/2" : "no socket under it");
        lg_ungated(rt->store, prov->name, h2 ? LG_UNGATED_HTTP2 : LG_UNGATED_NO_SOCKET);
        return NULL;
    }
    return prov;
}

/* The entry of session, created when create is set (NULL when absent or on allocation failure). */
static lg_gnutls_conn *entry(gnutls_session_t session, bool create)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, setup_fork);
    lg_gnutls_conn *c;
    pthread_mutex_lock(&table_lock);
    HASH_FIND_PTR(table, &session, c);
    if (!c && create && (c = calloc(1, sizeof *c))) {
        c->session = session;
        HASH_ADD_PTR(table, session, c);
    }
    pthread_mutex_unlock(&table_lock);
    return c;
}

lg_gnutls_conn *lg_gnutls_conn_get(gnutls_session_t session, bool decide)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    if (!session || lg_guard_active() || !real->complete)
        return NULL;
    int saved = errno;
    lg_gnutls_conn *c = entry(session, decide);
    if (c && decide && !c->decided) {
        c->decided = true;
        const lg_provider *prov = provider_of(c, real);
        c->h1 = prov ? lg_h1_new(&lg_sock_front_host, &prov, 1, &gnutls_io, c) : NULL;
        if (prov && !c->h1)
            lg_ungated(lg_runtime_get()->store, prov->name, LG_UNGATED_NO_ROOM);
        c->peer_len = sizeof c->peer;
        if (c->h1 && getpeername(socket_of(c, session), (struct sockaddr *)&c->peer, &c->peer_len) != 0)
            c->peer_len = 0;
    }
    errno = saved;
    return c && c->h1 && !lg_h1_passed(c->h1) ? c : NULL;
}

const lg_provider *lg_gnutls_conn_named(gnutls_session_t session)
{
    const lg_runtime *rt = lg_runtime_get();
    lg_gnutls_conn *c = rt->cfg ? entry(session, false) : NULL;
    return c && c->name[0] ? lg_config_match_host(rt->cfg, c->name) : NULL;
}

EXPORT int gnutls_server_name_set(gnutls_session_t session, gnutls_server_name_type_t type, const void *name,
                                  size_t len)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    int rc = real->server_name_set ? real->server_name_set(session, type, name, len) : GNUTLS_E_INTERNAL_ERROR;
    if (rc != 0 || type != GNUTLS_NAME_DNS || lg_guard_active() || len >= sizeof ((lg_gnutls_conn *)0)->name)
        return rc;
    int saved = errno;
    lg_gnutls_conn *c = entry(session, true);
    if (c && !c->decided) {
        memcpy(c->name, name, len);
        c->name[len] = '\0';
    }
    errno = saved;
    return rc;
}

EXPORT void gnutls_transport_set_fastopen(gnutls_session_t session, int fd, struct sockaddr *addr, socklen_t len,
                                          unsigned int flags)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    if (real->transport_set_fastopen)
        real->transport_set_fastopen(session, fd, addr, len, flags);
    if (fd < 0 || lg_guard_active())
        return;
    int saved = errno;
    lg_gnutls_conn *c = entry(session, true);
    if (c && !c->decided)
        c->tfo_fd = fd + 1;
    errno = saved;
}

EXPORT void gnutls_deinit(gnutls_session_t session)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    lg_gnutls_conn *c;
    int saved = errno;
    pthread_mutex_lock(&table_lock);
    HASH_FIND_PTR(table, &session, c);
    if (c)
        HASH_DEL(table, c);
    pthread_mutex_unlock(&table_lock);
    lg_gnutls_alpn_forget(session);
    if (c) {
        lg_h1_free(c->h1);
        drop_repl(c);
        free(c);
    }
    errno = saved;
    if (real->deinit)
        real->deinit(session);
}

EXPORT int gnutls_bye(gnutls_session_t session, gnutls_close_request_t how)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    lg_gnutls_conn *c = lg_gnutls_conn_get(session, false);
    if (c && c->repl)
        LG_OURS(real->bye(c->repl, how));
    return real->bye ? real->bye(session, how) : GNUTLS_E_INTERNAL_ERROR;
}

void lg_gnutls_conn_answered(lg_gnutls_conn *c, gnutls_session_t target) { c->dir_of = target; }

EXPORT int gnutls_record_get_direction(gnutls_session_t session)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    lg_gnutls_conn *c = lg_gnutls_conn_get(session, false);
    if (c && !c->dir_of)
        return 0; /* llmgate answered GNUTLS_E_AGAIN: the host waits to read */
    gnutls_session_t of = c ? c->dir_of : session;
    return real->record_get_direction ? real->record_get_direction(of) : 0;
}

EXPORT size_t gnutls_record_check_pending(gnutls_session_t session)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    lg_gnutls_conn *c = lg_gnutls_conn_get(session, false);
    if (c)
        return lg_h1_pending(c->h1) + real->record_check_pending(lg_gnutls_conn_wire(c));
    return real->record_check_pending ? real->record_check_pending(session) : 0;
}
