/* llmgate's own TCP connections to a rerouted attempt's target (see plain_conn.h). */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "hook/sock/fd_wait.h"
#include "hook/base/guard.h"
#include "hook/sock/plain_conn.h"
#include "hook/base/libc_real.h"
#include "llmgate/tcp_connect.h"

/* The real calls, for llmgate's own connections. */
static lg_tcp_calls real_calls(void)
{
    const lg_sock_real *real = lg_sock_real_get();
    return (lg_tcp_calls){.getaddrinfo = real->getaddrinfo, .connect = real->connect, .close = real->close,
                          .setsockopt = real->setsockopt};
}

int lg_h1_target_socket(const lg_h1_target *t, bool nonblock, int64_t until_ms)
{
    const lg_tcp_calls calls = real_calls();
    int fd;
    LG_OURS(fd = lg_tcp_connect(t->host, t->port, nonblock, until_ms, &calls));
    return fd;
}

void lg_sock_deadline(int fd, int64_t until_ms)
{
    const lg_tcp_calls calls = real_calls();
    lg_tcp_deadline(fd, until_ms, &calls);
}

int lg_h1_plain_socket(const lg_h1_target *t, bool nonblock, int64_t until_ms)
{
    int fd = lg_h1_target_socket(t, nonblock, until_ms);
    if (fd >= 0 && !nonblock && until_ms > 0)
        lg_sock_deadline(fd, 0); /* its reads never wait in the kernel (plain_recv), its sends may */
    return fd;
}

bool lg_h1_fd_send(int fd, const void *p, size_t n, int64_t until_ms)
{
    const lg_sock_real *real = lg_sock_real_get();
    int flags = MSG_NOSIGNAL | (until_ms > 0 ? MSG_DONTWAIT : 0);
    for (size_t off = 0; off < n;) {
        ssize_t w = real->send(fd, (const char *)p + off, n - off, flags);
        bool room = w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && lg_fd_wait_by(fd, true, until_ms);
        if (w < 0 && (errno == EINTR || room))
            continue;
        if (w <= 0)
            return false;
        off += (size_t)w;
    }
    return true;
}

ssize_t lg_h1_fd_recv(int fd, void *p, size_t n, bool park)
{
    for (;;) {
        ssize_t r = lg_sock_real_get()->recv(fd, p, n, park ? MSG_DONTWAIT : 0);
        if (r >= 0)
            return r;
        if (errno == EINTR) {
            if (lg_host_takes_eintr())
                return LG_IO_INTR;
        } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
            return -1;
        } else if (park) {
            return LG_IO_AGAIN;
        } else if (!lg_fd_wait(fd, false)) {
            return -1;
        }
    }
}

/* Never waits in the kernel with a time limit: each wait for room ends at until_ms. */
static bool plain_send(void *io, const void *p, size_t n, int64_t until_ms)
{
    return lg_h1_fd_send(*(int *)io, p, n, until_ms);
}

/* Never waits in the kernel: LG_IO_AGAIN when nothing is there yet, and the attempt waits in the front's
 * wait_fd, which its time limits bound (a non-blocking host's is driven from its readiness waits). */
static ssize_t plain_recv(void *io, void *p, size_t n) { return lg_h1_fd_recv(*(int *)io, p, n, true); }

static int plain_wait(void *io, short *events)
{
    *events = POLLIN;
    return *(int *)io;
}

const lg_h1_io lg_h1_plain_io = {.send = plain_send, .recv = plain_recv, .wait = plain_wait};
