/* Waiting on a descriptor (see fd_wait.h). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>

#include <signal.h>

#include "hook/sock/fd_wait.h"
#include "hook/base/libc_real.h"
#include "llmgate/clock.h"

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

bool lg_host_takes_eintr(void)
{
    int saved = errno;
    bool takes = false;
    for (int sig = 1; sig < SIGRTMIN && !takes; sig++) {
        struct sigaction sa;
        if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &sa) == 0)
            takes = !(sa.sa_flags & SA_SIGINFO ? sa.sa_sigaction == NULL
                                               : sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN) &&
                    !(sa.sa_flags & SA_RESTART);
    }
    errno = saved;
    return takes;
}

bool lg_sleep_until(int64_t at_ms)
{
    int saved = errno;
    bool done = true;
    for (int64_t ms; done && (ms = at_ms - lg_now_ms()) > 0;) {
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
        if (nanosleep(&ts, NULL) == -1 && errno == EINTR)
            done = !lg_host_takes_eintr();
    }
    errno = saved;
    return done;
}
