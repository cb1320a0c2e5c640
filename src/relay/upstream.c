/* The relay's side of a provider connection (see relay.h): the upstream transport over the relay's own
 * TLS, verified against the system's trust store (SSL_CERT_FILE / SSL_CERT_DIR as OpenSSL reads them) for
 * the name the program asked for, and the front's program filled with plain libc. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "front/h1_conn.h"
#include "front/h1_target.h"
#include "llmgate/clock.h"
#include "llmgate/store.h"
#include "llmgate/tcp_connect.h"
#include "relay/relay.h"

static const lg_config *host_cfg;
static lg_store *host_store;

void lg_relay_host_use(const lg_config *cfg)
{
    char err[256] = "";
    host_cfg = cfg;
    host_store = lg_store_open_config(cfg, err, sizeof err);
}

/* libc's own calls (the relay is never preloaded). */
static const lg_tcp_calls libc = {.getaddrinfo = getaddrinfo, .connect = connect, .close = close,
                                  .setsockopt = setsockopt};

/* A TCP socket connected to host:port (blocking, or connecting when nonblock), or -1; a blocking connect
 * bounded by until_ms (0: no limit), whose deadline the socket keeps (lg_tcp_deadline). */
static int tcp_connect(const char *host, const char *port, bool nonblock, int64_t until_ms)
{
    return lg_tcp_connect(host, port, nonblock, until_ms, &libc);
}

int lg_relay_tcp_connect(const char *host, const char *port) { return tcp_connect(host, port, false, 0); }

void lg_relay_up_close(lg_relay_up *u)
{
    if (u->ssl)
        SSL_free(u->ssl);
    SSL_CTX_free(u->ctx);
    if (u->fd >= 0)
        close(u->fd);
    u->ssl = NULL;
    u->ctx = NULL;
    u->fd = -1;
}

/* u's connection, open, bounded as until_ms said until now (0: it was not), is bounded no more, and is
 * non-blocking from now on: its sends and receives wait in wait_fd, which the attempt's limits bound. */
static bool up_opened(lg_relay_up *u, int64_t until_ms)
{
    if (until_ms > 0)
        lg_tcp_deadline(u->fd, 0, &libc);
    int fl = fcntl(u->fd, F_GETFL);
    return fl >= 0 && fcntl(u->fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

void lg_relay_up_blocking(lg_relay_up *u)
{
    int fl = fcntl(u->fd, F_GETFL);
    if (fl >= 0)
        fcntl(u->fd, F_SETFL, fl & ~O_NONBLOCK);
}

bool lg_relay_up_open(lg_relay_up *u, const char *host, const char *port, const char *name, bool tls,
                      int64_t until_ms)
{
    u->fd = tcp_connect(host, port, false, until_ms);
    u->ssl = NULL;
    u->ctx = NULL;
    snprintf(u->host, sizeof u->host, "%s", host);
    snprintf(u->port, sizeof u->port, "%s", port);
    snprintf(u->name, sizeof u->name, "%s", name);
    u->tls = tls;
    u->want = 0;
    if (u->fd < 0 || !tls)
        return u->fd >= 0 && up_opened(u, until_ms);
    static const unsigned char alpn[] = "\x08http/1.1";
    struct in6_addr a6;
    bool ip = inet_pton(AF_INET, name, &a6) == 1 || inet_pton(AF_INET6, name, &a6) == 1;
    u->ctx = SSL_CTX_new(TLS_client_method());
    bool ok = u->ctx && SSL_CTX_set_default_verify_paths(u->ctx) == 1 &&
              SSL_CTX_set_min_proto_version(u->ctx, TLS1_2_VERSION) == 1 &&
              SSL_CTX_set_alpn_protos(u->ctx, alpn, sizeof alpn - 1) == 0 && (u->ssl = SSL_new(u->ctx));
    if (ok) {
        SSL_set_verify(u->ssl, SSL_VERIFY_PEER, NULL);
        ok = (ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(u->ssl), name) == 1
                 : SSL_set1_host(u->ssl, name) == 1 && SSL_set_tlsext_host_name(u->ssl, name) == 1) &&
             SSL_set_fd(u->ssl, u->fd) == 1 && SSL_connect(u->ssl) == 1;
    }
    if (!ok)
        lg_relay_up_close(u);
    return ok && up_opened(u, until_ms);
}

/* What u's last call, which returned r (<= 0; `dir` POLLIN for a receive, POLLOUT for a send), waits for:
 * POLLIN or POLLOUT into u->want, true; false when it failed (or ended). */
static bool up_wants(lg_relay_up *u, ssize_t r, short dir)
{
    int e = u->ssl ? SSL_get_error(u->ssl, (int)r) : SSL_ERROR_NONE;
    if (u->ssl ? e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE
               : r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        return false;
    u->want = u->ssl ? (e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN) : dir;
    return true;
}

/* Polls fd, but not past until_ms (0: no limit); the relay takes no signals, so EINTR only waits on. */
static lg_wait_rc wait_fd(int fd, bool write, int64_t until_ms)
{
    struct pollfd p = {.fd = fd, .events = write ? POLLOUT : POLLIN};
    for (;;) {
        int64_t left = until_ms > 0 ? until_ms - lg_now_ms() : -1;
        int r = poll(&p, 1, until_ms > 0 && left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left);
        if (r > 0)
            return LG_WAIT_READY;
        if (r == 0 && lg_now_ms() >= until_ms)
            return LG_WAIT_TIMEOUT;
        if (r < 0 && errno != EINTR)
            return LG_WAIT_FAILED;
    }
}

/* Sends all n bytes on u's non-blocking socket, each wait for it ending at until_ms (0: no limit). */
static bool up_send(void *io, const void *p, size_t n, int64_t until_ms)
{
    lg_relay_up *u = io;
    for (size_t off = 0; off < n;) {
        ssize_t w = u->ssl ? SSL_write(u->ssl, (const char *)p + off, (int)(n - off))
                           : send(u->fd, (const char *)p + off, n - off, MSG_NOSIGNAL);
        if (w > 0)
            off += (size_t)w;
        else if (!up_wants(u, w, POLLOUT) || wait_fd(u->fd, u->want == POLLOUT, until_ms) != LG_WAIT_READY)
            return false;
    }
    return true;
}

/* Never waits: LG_IO_AGAIN when nothing is there yet (u->want says for what; the front waits, bounded by
 * the attempt's limits). */
static ssize_t up_recv(void *io, void *p, size_t n)
{
    lg_relay_up *u = io;
    if (u->fd < 0)
        return -1;
    if (!u->ssl) {
        ssize_t r = recv(u->fd, p, n, 0);
        return r >= 0 ? r : up_wants(u, r, POLLIN) ? LG_IO_AGAIN : -1;
    }
    int r = SSL_read(u->ssl, p, (int)(n > 1 << 30 ? 1 << 30 : n));
    if (r > 0)
        return r;
    if (up_wants(u, r, POLLIN))
        return LG_IO_AGAIN;
    int e = SSL_get_error(u->ssl, r);
    return e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) ? 0 : -1;
}

static int up_wait(void *io, short *events)
{
    lg_relay_up *u = io;
    *events = u->want ? u->want : POLLIN;
    return u->fd;
}

/* A new connection to the same peer (to NULL) or to another provider's target, verified for its name. */
static bool up_reopen(void *io, const lg_h1_target *to, int64_t until_ms)
{
    lg_relay_up *u = io;
    lg_relay_up fresh;
    bool ok = to ? lg_relay_up_open(&fresh, to->host, to->port, to->host, to->tls, until_ms)
                 : lg_relay_up_open(&fresh, u->host, u->port, u->name, u->tls, until_ms);
    if (!ok)
        return false;
    lg_relay_up_close(u);
    *u = fresh;
    return true;
}

/* No `fd`: the program's descriptor is the relay's own business (the front treats it as a blocking host). */
const lg_h1_io lg_relay_up_io = {.send = up_send, .recv = up_recv, .wait = up_wait, .reopen = up_reopen, .tls = true};

static const lg_config *host_config(void) { return host_cfg; }
static lg_store *host_store_get(void) { return host_store; }

static bool sleep_until(int64_t at_ms)
{
    for (int64_t now = lg_now_ms(); now < at_ms; now = lg_now_ms())
        lg_sleep_ms(at_ms - now);
    return true;
}

static void no_watch(int fd, struct lg_h1_conn *c) {}
static void no_unwatch(int fd, const struct lg_h1_conn *c) {}
/* A plain target's socket: its connect bounded by until_ms, no deadline left on it (its sends and reads
 * never wait in the kernel). */
static int target_socket(const lg_h1_target *t, bool nonblock, int64_t until_ms)
{
    lg_relay_up u = {.fd = tcp_connect(t->host, t->port, nonblock, until_ms)};
    return u.fd >= 0 && up_opened(&u, nonblock ? 0 : until_ms) ? u.fd : -1;
}

static bool plain_send(void *io, const void *p, size_t n, int64_t until_ms)
{
    lg_relay_up u = {.fd = *(int *)io};
    return up_send(&u, p, n, until_ms);
}

static ssize_t plain_recv(void *io, void *p, size_t n)
{
    lg_relay_up u = {.fd = *(int *)io};
    return up_recv(&u, p, n);
}

static int plain_wait(void *io, short *events)
{
    *events = POLLIN;
    return *(int *)io;
}

static const lg_h1_io plain_io = {.send = plain_send, .recv = plain_recv, .wait = plain_wait};

const lg_front_host lg_relay_front_host = {
    .config = host_config,
    .store = host_store_get,
    .close = close,
    .poll = poll,
    .wait_fd = wait_fd,
    .sleep_until = sleep_until,
    .watch = no_watch,
    .unwatch = no_unwatch,
    .target_socket = target_socket,
    .plain_io = &plain_io,
};
