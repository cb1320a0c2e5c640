/* epoll interposers: epoll_ctl records the host's registration of each descriptor (fd_watch.h);
 * epoll_wait, epoll_pwait and epoll_pwait2 answer for watched descriptors registered for reading in that
 * instance, as the poll hooks do: an event with the host's own data when llmgate holds the answer (once per
 * readiness with EPOLLET, and EPOLLONESHOT disarms it as the kernel would), the kernel's EPOLLIN dropped
 * and the wait capped at the due time while the exchange waits, the host's timeout kept. The descriptor an
 * attempt in flight reads from (llmgate's own connection, or the host's own on a plain one) is armed in the
 * host's instance (one-shot, with a data value of ours that never reaches the host), so the wait also ends
 * when the provider answers. The registrations are changed through fd_watch.c, under its lock, as the
 * host's own epoll_ctl calls are. With nothing watched each is the real call after one load. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "hook/base/export.h"
#include "hook/sock/fd_wait.h"
#include "hook/sock/fd_watch.h"
#include "hook/sock/ready_scan.h"
#include "hook/base/guard.h"
#include "hook/base/libc_real.h"
#include "llmgate/clock.h"

#define SCAN_MAX 256
#define OURS_TAG 0x4c47415445000000ull /* "LGATE" above a descriptor number: the data of our events */
#define OURS_MASK 0xffffffffff000000ull

EXPORT int epoll_ctl(int ep, int op, int fd, struct epoll_event *ev) { return lg_fd_epoll_ctl(ep, op, fd, ev); }

/* Our events for instance ep into out (at most max), the pass noted in s (ready_scan.h). Each watched
 * descriptor's state is in state[i] for fds[i], and the host's data of its registration in data[i] (when
 * not idle). */
static int ours(int ep, const int *fds, size_t n, lg_h1_readiness *state, epoll_data_t *data,
                struct epoll_event *out, int max, lg_ready_scan *s)
{
    int k = 0;
    lg_ready_scan_start(s);
    for (size_t i = 0; i < n; i++) {
        lg_h1_conn *c = lg_fd_watched(fds[i]);
        struct pollfd w;
        state[i] = lg_ready_scan_note(s, c && lg_fd_epoll_reads(fds[i], ep, &data[i]) ? c : NULL, &w);
        lg_fd_wake wake = {.fd = w.fd};
        wake.ev.events = EPOLLONESHOT | (w.events & POLLOUT ? EPOLLOUT : EPOLLIN);
        wake.ev.data.u64 = OURS_TAG | (unsigned)wake.fd;
        if (lg_fd_epoll_apply(fds[i], ep, state[i], wake.fd >= 0 ? &wake : NULL, k < max, &out[k]))
            k++;
    }
    return k;
}

/* Drops the kernel's EPOLLIN for our descriptors (their readiness is ours), duplicates of events we
 * reported, and the events of llmgate's own connections (*woke); returns the events left, compacted after
 * the first `mine`. */
static int filter(size_t n, const lg_h1_readiness *state, const epoll_data_t *data, struct epoll_event *ev,
                  int mine, int got, bool *woke)
{
    int k = mine;
    *woke = false;
    for (int j = mine; j < mine + got; j++) {
        if ((ev[j].data.u64 & OURS_MASK) == OURS_TAG) {
            *woke = true;
            continue;
        }
        for (size_t i = 0; i < n; i++)
            if (state[i] != LG_H1_IDLE && data[i].u64 == ev[j].data.u64)
                ev[j].events &= ~(uint32_t)EPOLLIN;
        if (ev[j].events)
            ev[k++] = ev[j];
    }
    return k;
}

/* The common body of the wait hooks: timeout_ms < 0 for none. */
static int wait_gated(int ep, struct epoll_event *ev, int max, int timeout_ms, const sigset_t *mask)
{
    int fds[SCAN_MAX];
    lg_h1_readiness state[SCAN_MAX];
    epoll_data_t data[SCAN_MAX];
    int64_t deadline = timeout_ms < 0 ? -1 : lg_now_ms() + timeout_ms;
    for (;;) {
        size_t n = lg_fd_watch_list(fds, SCAN_MAX);
        lg_ready_scan s;
        bool capped;
        int mine = ours(ep, fds, n, state, data, ev, max, &s);
        int ms = lg_ready_scan_wait_ms(&s, deadline, mine > 0, &capped);
        int got = mine < max ? lg_sock_real_get()->epoll_pwait(ep, ev + mine, max - mine, ms, mask) : 0;
        if (got < 0)
            return mine > 0 ? mine : got;
        bool woke;
        int total = filter(n, state, data, ev, mine, got, &woke);
        if (total > 0 || !(capped || woke))
            return total;
    }
}

static bool gated(void) { return lg_fd_watch_any() && !lg_guard_active(); }

EXPORT int epoll_wait(int ep, struct epoll_event *ev, int max, int timeout_ms)
{
    if (!gated() || max <= 0)
        return lg_sock_real_get()->epoll_wait(ep, ev, max, timeout_ms);
    return wait_gated(ep, ev, max, timeout_ms, NULL);
}

EXPORT int epoll_pwait(int ep, struct epoll_event *ev, int max, int timeout_ms, const sigset_t *mask)
{
    if (!gated() || max <= 0)
        return lg_sock_real_get()->epoll_pwait(ep, ev, max, timeout_ms, mask);
    return wait_gated(ep, ev, max, timeout_ms, mask);
}

EXPORT int epoll_pwait2(int ep, struct epoll_event *ev, int max, const struct timespec *ts, const sigset_t *mask)
{
    if (!gated() || max <= 0)
        return lg_sock_real_get()->epoll_pwait2(ep, ev, max, ts, mask);
    int ms = lg_timeout_ms(ts);
    return wait_gated(ep, ev, max, ms, mask);
}
