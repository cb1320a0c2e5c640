/* Waiting on a descriptor (see fd_wait.h). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>

#include "hook/fd_wait.h"
#include "hook/sock_real.h"

bool lg_fd_wait(int fd, bool write)
{
    struct pollfd p = {.fd = fd, .events = write ? POLLOUT : POLLIN};
    int r;
    do
        r = lg_sock_real_get()->poll(&p, 1, -1);
    while (r < 0 && errno == EINTR);
    return r > 0;
}

int lg_timeout_ms(const struct timespec *ts)
{
    if (!ts)
        return -1;
    if (ts->tv_sec > INT32_MAX / 1000 - 1)
        return INT32_MAX;
    return (int)(ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000);
}
