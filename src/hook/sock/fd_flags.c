/* fcntl, fcntl64 and ioctl interposers (see fd_flags.h). Every call of every library of the program comes
 * here (libc's own internal calls do not): each forwards its argument as libc's own fcntl and ioctl read it,
 * one word (va_arg void *: an int, a pointer to a struct flock or f_owner_ex, or nothing the command reads,
 * passed on bit for bit), returns what the real call returns (a descriptor for F_DUPFD and F_DUPFD_CLOEXEC)
 * with its errno, and adds one compare, plus a count on a successful change of the status flags. */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/ioctl.h>

#include "hook/base/export.h"
#include "hook/base/libc_real.h"
#include "hook/sock/fd_flags.h"

static unsigned changes;

unsigned lg_fd_flags_changes(void) { return __atomic_load_n(&changes, __ATOMIC_ACQUIRE); }

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
