/* Waiting on a descriptor (see fd_wait.h). */
#include <errno.h>
#include <poll.h>

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
