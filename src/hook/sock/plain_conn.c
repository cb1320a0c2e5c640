/* llmgate's own TCP connections to a rerouted attempt's target (see plain_conn.h). */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "hook/sock/fd_wait.h"
#include "hook/base/guard.h"
#include "hook/sock/plain_conn.h"
#include "hook/base/libc_real.h"

/* A socket connected (or, nonblock, connecting) to the first address of t that takes one; -1 on failure. */
static int connect_first(const lg_h1_target *t, bool nonblock)
{
    const lg_sock_real *real = lg_sock_real_get();
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int fd = -1;
    if (real->getaddrinfo(t->host, t->port, &hints, &res) == 0) {
        for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
            fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
            if (fd < 0)
                continue;
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (real->connect(fd, a->ai_addr, a->ai_addrlen) != 0 && !(nonblock && errno == EINPROGRESS)) {
                real->close(fd);
                fd = -1;
            }
        }
        freeaddrinfo(res);
    }
    return fd;
}

int lg_h1_target_socket(const lg_h1_target *t, bool nonblock)
{
    int fd;
    LG_OURS(fd = connect_first(t, nonblock));
    return fd;
}

bool lg_h1_fd_send(int fd, const void *p, size_t n)
{
    const lg_sock_real *real = lg_sock_real_get();
    for (size_t off = 0; off < n;) {
        ssize_t w = real->send(fd, (const char *)p + off, n - off, MSG_NOSIGNAL);
        if (w < 0 && (errno == EINTR || ((errno == EAGAIN || errno == EWOULDBLOCK) && lg_fd_wait(fd, true))))
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
        ssize_t r = lg_sock_real_get()->recv(fd, p, n, 0);
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

static bool plain_send(void *io, const void *p, size_t n) { return lg_h1_fd_send(*(int *)io, p, n); }
static ssize_t plain_recv(void *io, void *p, size_t n) { return lg_h1_fd_recv(*(int *)io, p, n, false); }

const lg_h1_io lg_h1_plain_io = {.send = plain_send, .recv = plain_recv};
