/* The real libc socket functions behind the socket hooks, resolved once (dlsym RTLD_NEXT, falling back to
 * an RTLD_NOLOAD handle of libc). A member is never NULL after lg_sock_real_get (libc is always loaded), but
 * fcntl64 before glibc 2.28. */
#ifndef LLMGATE_HOOK_BASE_LIBC_REAL_H
#define LLMGATE_HOOK_BASE_LIBC_REAL_H

#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "hook/base/real_sym.h"

/* The table, one X(field, symbol, ret, params) a real libc function (real_sym.h). */
#define LG_LIBC_REAL(X)                                                                                             \
    X(connect, connect, int, (int, const struct sockaddr *, socklen_t))                                             \
    X(getaddrinfo, getaddrinfo, int, (const char *, const char *, const struct addrinfo *, struct addrinfo **))     \
    X(close, close, int, (int))                                                                                     \
    X(setsockopt, setsockopt, int, (int, int, int, const void *, socklen_t))                                        \
    X(fcntl, fcntl, int, (int, int, ...))                                                                           \
    X(fcntl64, fcntl64, int, (int, int, ...))                                                                       \
    X(ioctl, ioctl, int, (int, unsigned long, ...))                                                                 \
    X(send, send, ssize_t, (int, const void *, size_t, int))                                                        \
    X(sendto, sendto, ssize_t, (int, const void *, size_t, int, const struct sockaddr *, socklen_t))                \
    X(sendmsg, sendmsg, ssize_t, (int, const struct msghdr *, int))                                                 \
    X(write, write, ssize_t, (int, const void *, size_t))                                                           \
    X(writev, writev, ssize_t, (int, const struct iovec *, int))                                                    \
    X(recv, recv, ssize_t, (int, void *, size_t, int))                                                              \
    X(recvfrom, recvfrom, ssize_t, (int, void *, size_t, int, struct sockaddr *, socklen_t *))                      \
    X(recvmsg, recvmsg, ssize_t, (int, struct msghdr *, int))                                                       \
    X(read, read, ssize_t, (int, void *, size_t))                                                                   \
    X(readv, readv, ssize_t, (int, const struct iovec *, int))                                                      \
    X(sendfile, sendfile, ssize_t, (int, int, off_t *, size_t))                                                     \
    X(poll, poll, int, (struct pollfd *, nfds_t, int))                                                              \
    X(ppoll, ppoll, int, (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *))                      \
    X(select, select, int, (int, fd_set *, fd_set *, fd_set *, struct timeval *))                                   \
    X(epoll_ctl, epoll_ctl, int, (int, int, int, struct epoll_event *))                                             \
    X(epoll_wait, epoll_wait, int, (int, struct epoll_event *, int, int))                                           \
    X(epoll_pwait, epoll_pwait, int, (int, struct epoll_event *, int, int, const sigset_t *))                       \
    X(epoll_pwait2, epoll_pwait2, int, (int, struct epoll_event *, int, const struct timespec *, const sigset_t *))

typedef struct {
    LG_LIBC_REAL(LG_REAL_FIELD)
} lg_sock_real;

extern lg_sock_real lg_sock_real_table; /* filled once by lg_sock_real_resolve */
extern int lg_sock_real_ready;          /* set (release) once the table is filled */

/* Fills the table once (pthread_once) and returns it. */
const lg_sock_real *lg_sock_real_resolve(void) __attribute__((cold)); /* cold: once per process */

/* The table; after the first call, one load (every socket hook of every host calls it). */
static inline const lg_sock_real *lg_sock_real_get(void)
{
    return __builtin_expect(__atomic_load_n(&lg_sock_real_ready, __ATOMIC_ACQUIRE), 1) ? &lg_sock_real_table
                                                                                        : lg_sock_real_resolve();
}

#endif
