/* Waiting on a descriptor (see fd_wait.h). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>

#include <signal.h>

#include "hook/sock/fd_wait.h"
#include "hook/base/libc_real.h"
#include "llmgate/clock.h"

/* Polls fd until it is ready or until_ms came (0: no limit); a signal ends the wait when intr and the host
 * takes EINTR, else the wait goes on. errno preserved. */
static lg_wait_rc wait_fd(int fd, bool write, int64_t until_ms, bool intr)
{
    int saved = errno;
    struct pollfd p = {.fd = fd, .events = write ? POLLOUT : POLLIN};
    lg_wait_rc rc = LG_WAIT_FAILED;
    for (;;) {
        int64_t left = until_ms > 0 ? until_ms - lg_now_ms() : -1;
        if (until_ms > 0 && left < 0)
            left = 0;
        int r = lg_sock_real_get()->poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
        if (r > 0)
            rc = LG_WAIT_READY;
        else if (r == 0 && until_ms > 0 && lg_now_ms() >= until_ms)
            rc = LG_WAIT_TIMEOUT;
        else if (r == 0 || (errno == EINTR && !(intr && lg_host_takes_eintr())))
            continue;
        else if (errno == EINTR)
            rc = LG_WAIT_INTR;
        break;
    }
    errno = saved;
    return rc;
}

bool lg_fd_wait(int fd, bool write) { return wait_fd(fd, write, 0, false) == LG_WAIT_READY; }

lg_wait_rc lg_fd_wait_until(int fd, bool write, int64_t until_ms) { return wait_fd(fd, write, until_ms, true); }

bool lg_fd_wait_by(int fd, bool write, int64_t until_ms)
{
    return until_ms > 0 ? lg_fd_wait_until(fd, write, until_ms) == LG_WAIT_READY : lg_fd_wait(fd, write);
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
