/* Readiness interposers: poll, ppoll, select, epoll_ctl. When no descriptor is watched (fd_watch.h) each
 * is the real call after one load; otherwise every descriptor asked for reading costs one table load, and
 * a watched one is answered by its connection: readable at once when llmgate holds its answer, hidden from
 * the kernel and the wait capped at its due time while its exchange waits (trickle's approach, plus the
 * timer, so the host sleeps exactly until the step is due and never spins). llmgate's own connection that a
 * waiting exchange reads from is added to the wait (a pollfd appended, a bit set), so the wait also ends
 * when the provider answers; the host never sees it. The host's own timeout is kept: a wait cut short by
 * our due time or our own connection that has nothing to report is resumed for the rest of it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hook/base/export.h"
#include "hook/sock/fd_wait.h"
#include "hook/sock/fd_watch.h"
#include "hook/sock/ready_scan.h"
#include "hook/base/guard.h"
#include "hook/base/libc_real.h"
#include "llmgate/clock.h"

#define MARKS_ON_STACK 256
#define EXTRA_MAX 16 /* llmgate's own connections added to one wait */

enum { MARK_NONE = 0, MARK_OURS = 1 };

/* The watched connection of fd when the host waits to read it. */
static lg_h1_conn *asked(int fd, bool reading) { return reading && fd >= 0 ? lg_fd_watched(fd) : NULL; }

/* Notes c in the pass s (ready_scan.h): its readiness; the descriptor a waiting exchange reads from goes to
 * extra (k of at most EXTRA_MAX so far). */
static lg_h1_readiness note(lg_ready_scan *s, lg_h1_conn *c, struct pollfd *extra, size_t *k)
{
    struct pollfd wake;
    lg_h1_readiness st = lg_ready_scan_note(s, c, &wake);
    if (wake.fd >= 0 && *k < EXTRA_MAX)
        extra[(*k)++] = wake;
    return st;
}

/* The real ppoll over fds and the k extra ones (*woke when one of those is ready). */
static int ppoll_with(struct pollfd *fds, nfds_t n, struct pollfd *extra, size_t k, const struct timespec *ts,
                      const sigset_t *mask, bool *woke)
{
    *woke = false;
    if (k == 0)
        return lg_sock_real_get()->ppoll(fds, n, ts, mask);
    struct pollfd *all = malloc((n + k) * sizeof *all);
    if (!all)
        return lg_sock_real_get()->ppoll(fds, n, ts, mask);
    memcpy(all, fds, n * sizeof *all);
    memcpy(all + n, extra, k * sizeof *all);
    int r = lg_sock_real_get()->ppoll(all, n + k, ts, mask);
    int saved = errno;
    for (nfds_t i = 0; i < n; i++)
        fds[i].revents = all[i].revents;
    for (size_t i = 0; r > 0 && i < k; i++)
        if (all[n + i].revents) {
            *woke = true;
            r--;
        }
    free(all);
    errno = saved;
    return r;
}

/* poll/ppoll with our descriptors answered; timeout_ms < 0: none. */
static int poll_gated(struct pollfd *fds, nfds_t n, int timeout_ms, const sigset_t *mask)
{
    unsigned char stack_marks[MARKS_ON_STACK];
    unsigned char *marks = n <= MARKS_ON_STACK ? stack_marks : calloc(n, 1);
    if (!marks)
        return -2;
    memset(marks, 0, n <= MARKS_ON_STACK ? n : 0);
    int64_t deadline = timeout_ms < 0 ? -1 : lg_now_ms() + timeout_ms;
    int r;
    for (;;) {
        lg_ready_scan s;
        bool capped, woke;
        struct pollfd extra[EXTRA_MAX];
        size_t k = 0;
        lg_ready_scan_start(&s);
        for (nfds_t i = 0; i < n; i++) {
            if (note(&s, asked(fds[i].fd, fds[i].events & POLLIN), extra, &k) == LG_H1_IDLE)
                continue;
            marks[i] = MARK_OURS;
            fds[i].fd = ~fds[i].fd; /* hidden from the kernel */
        }
        int ms = lg_ready_scan_wait_ms(&s, deadline, s.any_ready, &capped);
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        r = ppoll_with(fds, n, extra, s.any_ready ? 0 : k, ms < 0 ? NULL : &ts, mask, &woke);
        int saved = errno;
        int ours = 0;
        for (nfds_t i = 0; i < n; i++) {
            if (!marks[i])
                continue;
            marks[i] = MARK_NONE;
            fds[i].fd = ~fds[i].fd;
            fds[i].revents = lg_ready_scan_ready_now(fds[i].fd) ? POLLIN : 0;
            ours += fds[i].revents != 0;
        }
        errno = saved;
        if (r >= 0)
            r += ours;
        if (r != 0 || !(capped || woke))
            break;
    }
    if (marks != stack_marks)
        free(marks);
    return r;
}

static bool gated(void) { return lg_fd_watch_any() && !lg_guard_active(); }

/* poll while some descriptor is watched. */
static __attribute__((noinline)) int poll_watching(struct pollfd *fds, nfds_t n, int timeout_ms)
{
    int r = !lg_guard_active() ? poll_gated(fds, n, timeout_ms, NULL) : -2;
    return r != -2 ? r : lg_sock_real_get()->poll(fds, n, timeout_ms);
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
    if (!lg_fd_watch_any()) /* libcurl's own waits of every host: a load and a jump */
        return lg_sock_real_get()->poll(fds, n, timeout_ms);
    return poll_watching(fds, n, timeout_ms);
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
    int ms = lg_timeout_ms(ts);
    int r = gated() ? poll_gated(fds, n, ms, mask) : -2;
    return r != -2 ? r : lg_sock_real_get()->ppoll(fds, n, ts, mask);
}

/* Adds the k extra descriptors to the sets of a select over nfds (their bits, and those between nfds and
 * them, are not the host's); returns the new nfds. *prd and *pwr may be replaced by the given blank sets. */
static int select_add(int nfds, fd_set **prd, fd_set **pwr, fd_set *ex, const struct pollfd *extra, size_t k,
                      fd_set *blank_rd, fd_set *blank_wr)
{
    if (k > 0 && !*prd) {
        FD_ZERO(blank_rd);
        *prd = blank_rd;
    }
    if (k > 0 && !*pwr) {
        FD_ZERO(blank_wr);
        *pwr = blank_wr;
    }
    for (size_t i = 0; i < k; i++) {
        if (extra[i].fd >= FD_SETSIZE)
            continue;
        for (; nfds <= extra[i].fd; nfds++) {
            FD_CLR(nfds, *prd);
            FD_CLR(nfds, *pwr);
            if (ex)
                FD_CLR(nfds, ex);
        }
        FD_SET(extra[i].fd, extra[i].events & POLLOUT ? *pwr : *prd);
    }
    return nfds;
}

/* Takes the extra descriptors back out of the sets select returned; how many of them were ready. */
static int select_take(fd_set *rd, fd_set *wr, const struct pollfd *extra, size_t k)
{
    int ready = 0;
    for (size_t i = 0; i < k; i++) {
        if (extra[i].fd >= FD_SETSIZE)
            continue;
        ready += FD_ISSET(extra[i].fd, rd) || FD_ISSET(extra[i].fd, wr);
        FD_CLR(extra[i].fd, rd);
        FD_CLR(extra[i].fd, wr);
    }
    return ready;
}

/* select with our descriptors answered (see poll_gated); the timeval is updated to the time left. */
static int select_gated(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
    int64_t deadline = tv ? lg_now_ms() + tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000 : -1;
    fd_set in_rd, in_wr, in_ex, ours;
    if (rd)
        in_rd = *rd;
    if (wr)
        in_wr = *wr;
    if (ex)
        in_ex = *ex;
    int r;
    for (;;) {
        lg_ready_scan s;
        bool capped;
        int ready = 0, woke = 0;
        struct pollfd extra[EXTRA_MAX];
        size_t k = 0;
        lg_ready_scan_start(&s);
        FD_ZERO(&ours);
        for (int fd = 0; rd && fd < nfds && fd < FD_SETSIZE; fd++) {
            if (note(&s, asked(fd, FD_ISSET(fd, &in_rd)), extra, &k) == LG_H1_IDLE)
                continue;
            FD_SET(fd, &ours);
            FD_CLR(fd, rd);
        }
        int ms = lg_ready_scan_wait_ms(&s, deadline, s.any_ready, &capped);
        struct timeval t = {ms / 1000, (ms % 1000) * 1000};
        fd_set blank_rd, blank_wr, *prd = rd, *pwr = wr;
        k = s.any_ready ? 0 : k;
        int top = select_add(nfds, &prd, &pwr, ex, extra, k, &blank_rd, &blank_wr);
        r = lg_sock_real_get()->select(top, prd, pwr, ex, ms < 0 ? NULL : &t);
        int saved = errno;
        if (r > 0 && k > 0)
            r -= woke = select_take(prd, pwr, extra, k);
        for (int fd = 0; rd && r >= 0 && fd < nfds && fd < FD_SETSIZE; fd++) {
            if (FD_ISSET(fd, &ours) && lg_ready_scan_ready_now(fd)) {
                FD_SET(fd, rd);
                ready++;
            }
        }
        errno = saved;
        if (r >= 0)
            r += ready;
        if (r != 0 || !(capped || woke))
            break;
        if (rd)
            *rd = in_rd;
        if (wr)
            *wr = in_wr;
        if (ex)
            *ex = in_ex;
    }
    if (tv) {
        int64_t left = deadline - lg_now_ms();
        left = left > 0 ? left : 0;
        tv->tv_sec = left / 1000;
        tv->tv_usec = (left % 1000) * 1000;
    }
    return r;
}

EXPORT int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
    return gated() ? select_gated(nfds, rd, wr, ex, tv) : lg_sock_real_get()->select(nfds, rd, wr, ex, tv);
}
