/* The fortified forms of the socket hooks' data and readiness calls. A program built with _FORTIFY_SOURCE
 * (Ubuntu's gcc does so by default at -O1 and above) calls __read_chk, __recv_chk, __recvfrom_chk,
 * __poll_chk or __ppoll_chk where its source says read, recv, recvfrom, poll or ppoll and the compiler knows
 * the buffer's size: libc's own entry points, past the plain calls' interposers, so such a host read the
 * kernel's socket while llmgate held its answer. Each checks the size as glibc's does (an overflow is
 * __chk_fail, the program's own abort, as without llmgate) and is then the plain call's hook. (libc's other
 * aliases, __read, __poll, __fcntl, are called by no program: glibc's headers never name them.) */
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hook/base/export.h"

extern void __chk_fail(void) __attribute__((noreturn));

EXPORT ssize_t __read_chk(int fd, void *p, size_t n, size_t buflen)
{
    if (n > buflen)
        __chk_fail();
    return read(fd, p, n);
}

EXPORT ssize_t __recv_chk(int fd, void *p, size_t n, size_t buflen, int flags)
{
    if (n > buflen)
        __chk_fail();
    return recv(fd, p, n, flags);
}

EXPORT ssize_t __recvfrom_chk(int fd, void *p, size_t n, size_t buflen, int flags, struct sockaddr *from,
                              socklen_t *fromlen)
{
    if (n > buflen)
        __chk_fail();
    return recvfrom(fd, p, n, flags, from, fromlen);
}

EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout_ms, size_t fdslen)
{
    if (fdslen / sizeof *fds < n)
        __chk_fail();
    return poll(fds, n, timeout_ms);
}

EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask,
                       size_t fdslen)
{
    if (fdslen / sizeof *fds < n)
        __chk_fail();
    return ppoll(fds, n, ts, mask);
}
