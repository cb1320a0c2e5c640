/* epoll interposers: epoll_ctl records the host's registration of each descriptor (fd_watch.h);
 * epoll_wait, epoll_pwait and epoll_pwait2 answer for watched descriptors registered for reading in that
 * instance, as the poll hooks do: an event with the host's own data when llmgate holds the answer (once per
 * readiness with EPOLLET, and EPOLLONESHOT disarms it as the kernel would), the kernel's EPOLLIN dropped
 * and the wait capped at the due time while the exchange waits, the host's timeout kept. llmgate's own
 * connection that a waiting exchange reads from is put in the host's instance (one-shot, with a data value
 * of ours that never reaches the host), so the wait also ends when the provider answers. With nothing
 * watched each is the real call after one load. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "hook/fd_wait.h"
#include "hook/fd_watch.h"
#include "hook/guard.h"
#include "hook/sock_real.h"
#include "llmgate/clock.h"

#define EXPORT __attribute__((visibility("default")))
#define SCAN_MAX 256
#define OURS_TAG 0x4c47415445000000ull /* "LGATE" above a descriptor number: the data of our events */
#define OURS_MASK 0xffffffffff000000ull

/* Arms llmgate's own descriptor fd in instance ep for events (one-shot: re-armed at every wait). */
static void arm(int ep, int fd, short events)
{
    struct epoll_event ev = {.events = EPOLLONESHOT | (events & POLLOUT ? EPOLLOUT : EPOLLIN),
                             .data.u64 = OURS_TAG | (unsigned)fd};
    int (*ctl)(int, int, int, struct epoll_event *) = lg_sock_real_get()->epoll_ctl;
    int saved = errno;
    if (ctl(ep, EPOLL_CTL_MOD, fd, &ev) != 0 && errno == ENOENT)
        ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    errno = saved;
}

EXPORT int epoll_ctl(int ep, int op, int fd, struct epoll_event *ev)
{
    int r = lg_sock_real_get()->epoll_ctl(ep, op, fd, ev);
    if (r == 0) {
        int saved = errno;
        lg_fd_epoll_ctl(ep, op, fd, ev);
        errno = saved;
    }
    return r;
}

/* Our events for instance ep into out (at most max); *due: the earliest due time of a waiting one.
 * Each watched descriptor's state is in state[i] for fds[i]. */
static int ours(int ep, const int *fds, size_t n, lg_h1_readiness *state, struct epoll_event *out, int max,
                int64_t *due)
{
    int k = 0;
    *due = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        lg_fd_epoll *e = lg_fd_epoll_get(fds[i], ep);
        lg_h1_conn *c = lg_fd_watched(fds[i]);
        int64_t d;
        state[i] = e && c && (e->ev.events & EPOLLIN) ? lg_h1_ready(c, &d) : LG_H1_IDLE;
        if (state[i] == LG_H1_WAITING && d < *due)
            *due = d;
        if (e)
            lg_fd_epoll_hide(fds[i], ep, e, state[i] == LG_H1_WAITING);
        short wev;
        int wfd = state[i] == LG_H1_WAITING ? lg_h1_wait_fd(c, &wev) : -1;
        if (wfd >= 0)
            arm(ep, wfd, wev);
        if (state[i] != LG_H1_READY && e)
            e->reported = false;
        if (state[i] != LG_H1_READY || k >= max || (e->reported && (e->ev.events & EPOLLET)))
            continue;
        e->reported = true;
        out[k].events = EPOLLIN;
        out[k++].data = e->ev.data;
        if (e->ev.events & EPOLLONESHOT)
            e->ev.events &= ~(uint32_t)EPOLLIN;
    }
    return k;
}

/* Drops the kernel's EPOLLIN for our descriptors (their readiness is ours), duplicates of events we
 * reported, and the events of llmgate's own connections (*woke); returns the events left, compacted after
 * the first `mine`. */
static int filter(int ep, const int *fds, size_t n, const lg_h1_readiness *state, struct epoll_event *ev,
                  int mine, int got, bool *woke)
{
    int k = mine;
    *woke = false;
    for (int j = mine; j < mine + got; j++) {
        if ((ev[j].data.u64 & OURS_MASK) == OURS_TAG) {
            *woke = true;
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            lg_fd_epoll *e = state[i] != LG_H1_IDLE ? lg_fd_epoll_get(fds[i], ep) : NULL;
            if (e && e->ev.data.u64 == ev[j].data.u64)
                ev[j].events &= ~(uint32_t)EPOLLIN;
        }
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
    int64_t deadline = timeout_ms < 0 ? -1 : lg_now_ms() + timeout_ms;
    for (;;) {
        size_t n = lg_fd_watch_list(fds, SCAN_MAX);
        int64_t due;
        int mine = ours(ep, fds, n, state, ev, max, &due);
        int64_t now = lg_now_ms();
        int64_t left = deadline < 0 ? -1 : deadline > now ? deadline - now : 0;
        bool capped = due != INT64_MAX && (left < 0 || due - now < left);
        if (capped)
            left = due > now ? due - now : 0;
        if (mine > 0)
            left = 0;
        int got = mine < max ? lg_sock_real_get()->epoll_pwait(ep, ev + mine, max - mine,
                                                             left > INT32_MAX ? INT32_MAX : (int)left, mask)
                             : 0;
        if (got < 0)
            return mine > 0 ? mine : got;
        bool woke;
        int total = filter(ep, fds, n, state, ev, mine, got, &woke);
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
