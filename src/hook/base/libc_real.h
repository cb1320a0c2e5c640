/* The real libc socket functions behind the socket hooks, resolved once (dlsym RTLD_NEXT, falling back to
 * an RTLD_NOLOAD handle of libc). A member is never NULL after lg_sock_real_get: libc is always loaded. */
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

typedef struct {
    int (*connect)(int, const struct sockaddr *, socklen_t);
    int (*getaddrinfo)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
    int (*close)(int);
    ssize_t (*send)(int, const void *, size_t, int);
    ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
    ssize_t (*sendmsg)(int, const struct msghdr *, int);
    ssize_t (*write)(int, const void *, size_t);
    ssize_t (*writev)(int, const struct iovec *, int);
    ssize_t (*recv)(int, void *, size_t, int);
    ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
    ssize_t (*recvmsg)(int, struct msghdr *, int);
    ssize_t (*read)(int, void *, size_t);
    ssize_t (*readv)(int, const struct iovec *, int);
    ssize_t (*sendfile)(int, int, off_t *, size_t);
    int (*poll)(struct pollfd *, nfds_t, int);
    int (*ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
    int (*select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
    int (*epoll_ctl)(int, int, int, struct epoll_event *);
    int (*epoll_wait)(int, struct epoll_event *, int, int);
    int (*epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
    int (*epoll_pwait2)(int, struct epoll_event *, int, const struct timespec *, const sigset_t *);
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
