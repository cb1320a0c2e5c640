/* fcntl, fcntl64, ioctl and setsockopt interposers (see fd_flags.h). Every call of every library of the
 * program comes here (libc's own internal calls do not). fcntl and ioctl each forward their argument as
 * libc's own read it, one word (va_arg void *: an int, a pointer to a struct flock or f_owner_ex, or nothing
 * the command reads, passed on bit for bit); each hook returns what the real call returns (a descriptor for
 * F_DUPFD and F_DUPFD_CLOEXEC) with its errno, and adds one compare, plus a count on a successful change of
 * the status flags (F_SETFL, FIONBIO) or of SO_RCVTIMEO / SO_SNDTIMEO. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "hook/base/export.h"
#include "hook/base/libc_real.h"
#include "hook/sock/fd_flags.h"

static unsigned changes, timeouts_set;

unsigned lg_fd_flags_changes(void) { return __atomic_load_n(&changes, __ATOMIC_ACQUIRE); }

unsigned lg_fd_timeouts_changes(void) { return __atomic_load_n(&timeouts_set, __ATOMIC_ACQUIRE); }

/* rc, the real call's result: a successful change counted. */
static int counted(int rc)
{
    if (rc != -1)
        __atomic_add_fetch(&changes, 1, __ATOMIC_RELEASE);
    return rc;
}

/* real(fd, cmd, its one word read from ap), a successful F_SETFL counted. */
static int fcntl_via(int (*real)(int, int, ...), int fd, int cmd, va_list ap)
{
    int rc = real(fd, cmd, va_arg(ap, void *));
    return cmd == F_SETFL ? counted(rc) : rc;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    int rc = fcntl_via(lg_sock_real_get()->fcntl, fd, cmd, ap);
    va_end(ap);
    return rc;
}

/* Programs built with 64-bit file offsets (CPython) call fcntl64 (glibc 2.28 on; the same function as fcntl
 * on 64-bit systems). Before 2.28 no program calls it, and it is not there: fcntl is called instead. */
EXPORT int fcntl64(int fd, int cmd, ...)
{
    const lg_sock_real *real = lg_sock_real_get();
    va_list ap;
    va_start(ap, cmd);
    int rc = fcntl_via(real->fcntl64 ? real->fcntl64 : real->fcntl, fd, cmd, ap);
    va_end(ap);
    return rc;
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    int rc = lg_sock_real_get()->ioctl(fd, req, arg);
    return req == FIONBIO ? counted(rc) : rc;
}

/* True for the options whose value the socket path notes (lg_sock_timeout_ms). */
static bool timeo_opt(int level, int opt)
{
    if (level != SOL_SOCKET)
        return false;
#ifdef SO_RCVTIMEO_NEW
    if (opt == SO_RCVTIMEO_NEW || opt == SO_SNDTIMEO_NEW)
        return true;
#endif
    return opt == SO_RCVTIMEO || opt == SO_SNDTIMEO;
}

EXPORT int setsockopt(int fd, int level, int opt, const void *val, socklen_t len)
{
    int rc = lg_sock_real_get()->setsockopt(fd, level, opt, val, len);
    if (rc == 0 && timeo_opt(level, opt))
        __atomic_add_fetch(&timeouts_set, 1, __ATOMIC_RELEASE);
    return rc;
}
