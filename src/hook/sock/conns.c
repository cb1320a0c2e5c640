/* connect() and close() interposers and the descriptor table (see conns.h). The transport under a
 * gated connection is the descriptor itself; a new connection for a retry is put on the same descriptor
 * number (dup3), so the host's descriptor stays valid (and its epoll registration is made again at once,
 * fd_watch.h). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "hook/base/export.h"
#include "hook/sock/fd_flags.h"
#include "hook/sock/fd_wait.h"
#include "hook/sock/fd_watch.h"
#include "hook/base/guard.h"
#include "hook/sock/front_host.h"
#include "hook/sock/plain_conn.h"
#include "hook/sock/conns.h"
#include "hook/sock/names.h"
#include "hook/sock/relay_redirect.h"
#include "hook/base/libc_real.h"

#define FD_MAX LG_SOCK_FD_MAX

typedef struct lg_sock_entry {
    int fd;
    struct sockaddr_storage peer;
    socklen_t peer_len;
    lg_h1_conn *h1;
    int64_t timeo_ms[2]; /* the socket's SO_RCVTIMEO, SO_SNDTIMEO in ms (0: none) as read at timeo_gen */
    unsigned timeo_gen;  /* lg_fd_timeouts_changes when they were read */
    int status_fl;       /* the descriptor's file status flags (F_GETFL, -1: failed) as read at fl_gen */
    unsigned fl_gen;     /* lg_fd_flags_changes when they were read */
} sock_conn;

sock_conn *lg_sock_table[FD_MAX];

/* Reads s's socket timeouts into s (two getsockopt calls), noting the count they were read at. */
static void note_timeouts(sock_conn *s)
{
    s->timeo_gen = lg_fd_timeouts_changes(); /* first: a setsockopt that races the reads changes the count again */
    s->timeo_ms[0] = lg_front_fd_timeout_ms(s->fd, SO_RCVTIMEO);
    s->timeo_ms[1] = lg_front_fd_timeout_ms(s->fd, SO_SNDTIMEO);
}

int64_t lg_sock_timeout_ms(int fd, int opt)
{
    if (!lg_sock_held(fd))
        return lg_front_fd_timeout_ms(fd, opt);
    sock_conn *s = lg_sock_table[fd];
    if (s->timeo_gen != lg_fd_timeouts_changes())
        note_timeouts(s);
    return s->timeo_ms[opt == SO_SNDTIMEO];
}

/* Reads s's file status flags into s (one fcntl), noting the count they were read at. Preserves errno. */
static void note_status_flags(sock_conn *s)
{
    int saved = errno;
    s->fl_gen = lg_fd_flags_changes(); /* first: a change that races the read changes the count again */
    s->status_fl = lg_sock_real_get()->fcntl(s->fd, F_GETFL);
    errno = saved;
}

int lg_sock_status_flags(int fd)
{
    if (!lg_sock_held(fd)) {
        int saved = errno, fl = lg_sock_real_get()->fcntl(fd, F_GETFL);
        errno = saved;
        return fl;
    }
    sock_conn *s = lg_sock_table[fd];
    if (s->fl_gen != lg_fd_flags_changes())
        note_status_flags(s);
    return s->status_fl;
}

/* The host's socket timeouts carried from the descriptor's old socket to fresh, the one replacing it. */
static void copy_timeouts(int from, int fresh)
{
    static const int opts[] = {SO_RCVTIMEO, SO_SNDTIMEO};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        struct timeval tv = {0};
        socklen_t len = sizeof tv;
        if (getsockopt(from, SOL_SOCKET, opts[i], &tv, &len) == 0 && (tv.tv_sec || tv.tv_usec))
            lg_sock_real_get()->setsockopt(fresh, SOL_SOCKET, opts[i], &tv, sizeof tv);
    }
}

/* The host's own socket, as the host would send (its own SO_SNDTIMEO bounds a blocking send). */
static bool io_send(void *io, const void *p, size_t n, int64_t until_ms)
{
    return lg_h1_fd_send(((sock_conn *)io)->fd, p, n, 0);
}

/* Receives without blocking: LG_IO_AGAIN when nothing is there yet. A non-blocking host's attempt is then
 * driven from its own readiness waits (io_wait); a blocking host's waits in the front's wait_fd, which the
 * attempt's time limits and the host's SO_RCVTIMEO bound (LG_IO_INTR there when a signal it takes comes). */
static ssize_t io_recv(void *io, void *p, size_t n) { return lg_h1_fd_recv(((sock_conn *)io)->fd, p, n, true); }

/* The attempt in flight waits for the provider's answer on the host's own descriptor. */
static int io_wait(void *io, short *events)
{
    *events = POLLIN;
    return ((sock_conn *)io)->fd;
}

/* A new connection to the same peer, on the same descriptor number, with the same descriptor and status
 * flags (O_NONBLOCK), time limits and TCP_NODELAY; its connect bounded by until_ms. Never to another target:
 * a plain connection has no TLS of its own (an http target is reached over lg_h1_plain_io). */
static bool io_reopen(void *io, const struct lg_h1_target *to, int64_t until_ms)
{
    sock_conn *s = io;
    if (to)
        return false;
    const lg_sock_real *real = lg_sock_real_get();
    int fresh = socket(s->peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fresh < 0)
        return false;
    int nodelay = 0;
    socklen_t len = sizeof nodelay;
    if (getsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, &len) == 0 && nodelay)
        setsockopt(fresh, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
    int fdflags = fcntl(s->fd, F_GETFD), flflags = fcntl(s->fd, F_GETFL);
    int cloexec = fdflags >= 0 && (fdflags & FD_CLOEXEC) ? O_CLOEXEC : 0;
    if (until_ms > 0)
        lg_sock_deadline(fresh, until_ms);
    bool ok = real->connect(fresh, (struct sockaddr *)&s->peer, s->peer_len) == 0;
    if (ok && until_ms > 0)
        lg_sock_deadline(fresh, 0);
    if (ok)
        copy_timeouts(s->fd, fresh); /* the host's own, after the connect's */
    ok = ok && lg_fd_epoll_dup3(fresh, s->fd, cloexec) == s->fd && /* its epoll registration made again */
              (flflags < 0 || fcntl(s->fd, F_SETFL, flflags) == 0);
    real->close(fresh);
    return ok;
}

static int io_fd(void *io) { return ((sock_conn *)io)->fd; }

static const lg_h1_io sock_io = {.send = io_send, .recv = io_recv, .wait = io_wait, .reopen = io_reopen, .fd = io_fd};

lg_h1_conn *lg_sock_conn_held(int fd)
{
    if (lg_guard_active() || lg_h1_passed(lg_sock_table[fd]->h1))
        return NULL;
    return lg_sock_table[fd]->h1;
}

static void forget(int fd)
{
    if ((unsigned)fd >= FD_MAX || !lg_sock_table[fd])
        return;
    sock_conn *s = lg_sock_table[fd];
    lg_sock_table[fd] = NULL;
    lg_h1_free(s->h1);
    free(s);
}

/* Starts following fd when it is a TCP stream connected (or connecting) to the address of providers
 * provs[0..n). */
static void follow(int fd, const lg_provider *const *provs, size_t n, const struct sockaddr *addr, socklen_t len)
{
    if ((unsigned)fd >= FD_MAX || len > sizeof(struct sockaddr_storage))
        return;
    int type = 0;
    socklen_t tlen = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 || type != SOCK_STREAM)
        return;
    forget(fd);
    sock_conn *s = calloc(1, sizeof *s);
    if (!s)
        return;
    s->fd = fd;
    memcpy(&s->peer, addr, len);
    s->peer_len = len;
    note_timeouts(s); /* those the host set before it connected */
    note_status_flags(s);
    s->h1 = lg_h1_new(&lg_sock_front_host, provs, n, &sock_io, s);
    if (!s->h1) {
        free(s);
        return;
    }
    lg_sock_table[fd] = s;
}

/* A socket the host asked for TCP Fast Open with TCP_FASTOPEN_CONNECT connects as any other: llmgate's
 * own first send is then a plain send on a connected (or connecting) socket, never one that makes the
 * connection and may take only part of the request, or none (EINPROGRESS), with the SYN. */
static void fastopen_off(int fd)
{
    int on = 0;
    socklen_t len = sizeof on;
    if (getsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &on, &len) == 0 && on) {
        on = 0;
        setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &on, sizeof on);
    }
}

/* connect()'s work on an INET address whose providers lookup found (n of them; 0: none, addr is
 * connected to untouched): the real connect, to *to for a provider's, and the descriptor followed.
 * Returns what connect returns; saved is the host's errno, kept on success. */
static int connect_found(int fd, const struct sockaddr *addr, socklen_t len, const struct sockaddr_storage *to,
                         const lg_provider *const *provs, size_t n, int saved)
{
    const lg_sock_real *real = lg_sock_real_get();
    if (n)
        fastopen_off(fd);
    errno = saved;
    int rc = real->connect(fd, n ? (const struct sockaddr *)to : addr, len);
    if (rc != 0 && errno != EINPROGRESS)
        return rc;
    int err = errno;
    if ((unsigned)fd < FD_MAX && lg_sock_table[fd] && !n) { /* a new connection on a number closed */
        forget(fd);                                              /* without close() (close_range, fclose) */
        lg_fd_unwatch(fd, NULL);
    }
    if (n)
        follow(fd, provs, n, (const struct sockaddr *)to, len);
    errno = rc == 0 ? saved : err;
    return rc;
}

/* True for an address connect() may follow (not inside llmgate's own I/O). */
static bool inet_host_addr(const struct sockaddr *addr)
{
    return addr && !lg_guard_active() && (addr->sa_family == AF_INET || addr->sa_family == AF_INET6);
}

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
    if (!inet_host_addr(addr))
        return lg_sock_real_get()->connect(fd, addr, len);
    int saved = errno;
    struct sockaddr_storage to;
    const lg_provider *provs[LG_H1_PROVS];
    uint16_t asked = 0;
    size_t n = lg_sock_names_lookup(addr, len, &to, provs, LG_H1_PROVS, &asked);
    if (n && lg_sock_to_relay(fd, addr, asked)) { /* the relay gates it: not followed here */
        forget(fd);
        lg_fd_unwatch(fd, NULL);
        errno = saved;
        return 0;
    }
    return connect_found(fd, addr, len, &to, provs, n, saved);
}

int lg_sock_fastopen_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
    if (!inet_host_addr(addr))
        return LG_SOCK_NOT_OURS;
    int saved = errno;
    struct sockaddr_storage to;
    const lg_provider *provs[LG_H1_PROVS];
    size_t n = lg_sock_names_lookup(addr, len, &to, provs, LG_H1_PROVS, NULL);
    errno = saved;
    return n ? connect_found(fd, addr, len, &to, provs, n, saved) : LG_SOCK_NOT_OURS;
}

EXPORT int close(int fd)
{
    if ((unsigned)fd < FD_MAX) {
        int saved = errno;
        if (lg_sock_table[fd])
            forget(fd);
        lg_fd_unwatch(fd, NULL);
        lg_fd_epoll_forget(fd);
        errno = saved;
    }
    return lg_sock_real_get()->close(fd);
}
