/* The table of watched descriptors and of their epoll registrations (see fd_watch.h). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "hook/sock/fd_watch.h"
#include "hook/base/runtime.h"
#include "hook/base/libc_real.h"

#define FD_MAX 65536

#define LIST_MAX 1024 /* watched descriptors epoll_wait can answer for at once */

static lg_h1_conn *_Atomic watched[FD_MAX];
atomic_int lg_fd_n_watched;
static int list[LIST_MAX]; /* the watched descriptors, compact, under list_lock */
static size_t n_list;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;

/* The host's epoll registration of a descriptor. */
typedef struct {
    int epfd;             /* the epoll instance + 1; 0: none */
    struct epoll_event ev; /* as the host gave it */
    bool reported;        /* edge-triggered: our readiness was reported since it last changed */
    bool hidden;          /* the kernel holds it without EPOLLIN (or armed with our wake event) while its
                           * exchange waits */
} lg_fd_epoll;

static lg_fd_epoll epolls[FD_MAX]; /* under epoll_lock; epfd is stored + 1: 0 means none, so the table
                                    * starts empty */
static pthread_mutex_t epoll_lock = PTHREAD_MUTEX_INITIALIZER;

static void after_fork(void)
{
    pthread_mutex_init(&list_lock, NULL);
    pthread_mutex_init(&epoll_lock, NULL);
}

static void register_fork(void) { lg_runtime_on_fork_child(after_fork); }

/* Makes sure the locks are re-initialised in a forked child. */
static void setup_fork(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_fork);
}

/* fd's registration e as the kernel is to hold it: as the host made it, or hidden (without EPOLLIN). */
static struct epoll_event held(const lg_fd_epoll *e, bool hidden)
{
    struct epoll_event ev = e->ev;
    if (hidden)
        ev.events &= ~(uint32_t)(EPOLLIN | EPOLLRDHUP | EPOLLPRI);
    return ev;
}

/* Holds fd's registration e in the kernel hidden (waiting), or as the host made it; epoll_lock held. The
 * kernel has the registration whenever the record does (the host's calls and a retry's dup3 change both
 * under the lock): a MOD, never an ADD that would bring back what the host removed. */
static void hide(int fd, lg_fd_epoll *e, bool waiting)
{
    if (e->hidden == waiting)
        return;
    struct epoll_event ev = held(e, waiting);
    int saved = errno;
    if (lg_sock_real_get()->epoll_ctl(e->epfd - 1, EPOLL_CTL_MOD, fd, &ev) == 0)
        e->hidden = waiting;
    errno = saved;
}

/* Arms wake in instance ep; epoll_lock held. The host's own descriptor (host_fd) is registered there (a
 * MOD); llmgate's own is added the first time. */
static void arm(int ep, const lg_fd_wake *wake, bool host_fd)
{
    int (*ctl)(int, int, int, struct epoll_event *) = lg_sock_real_get()->epoll_ctl;
    struct epoll_event ev = wake->ev;
    int saved = errno;
    if (ctl(ep, EPOLL_CTL_MOD, wake->fd, &ev) != 0 && errno == ENOENT && !host_fd)
        ctl(ep, EPOLL_CTL_ADD, wake->fd, &ev);
    errno = saved;
}

void lg_fd_watch(int fd, lg_h1_conn *c)
{
    if ((unsigned)fd >= FD_MAX || !c)
        return;
    setup_fork();
    if (atomic_exchange(&watched[fd], c))
        return;
    atomic_fetch_add(&lg_fd_n_watched, 1);
    pthread_mutex_lock(&list_lock);
    if (n_list < LIST_MAX)
        list[n_list++] = fd;
    pthread_mutex_unlock(&list_lock);
}

void lg_fd_unwatch(int fd, const lg_h1_conn *c)
{
    if ((unsigned)fd >= FD_MAX)
        return;
    lg_h1_conn *cur = atomic_load_explicit(&watched[fd], memory_order_relaxed);
    if (!cur || (c && cur != c) || !atomic_compare_exchange_strong(&watched[fd], &cur, NULL))
        return;
    atomic_fetch_sub(&lg_fd_n_watched, 1);
    pthread_mutex_lock(&epoll_lock);
    if (epolls[fd].epfd) /* no wait will put its registration back: now */
        hide(fd, &epolls[fd], false);
    pthread_mutex_unlock(&epoll_lock);
    pthread_mutex_lock(&list_lock);
    for (size_t i = 0; i < n_list; i++)
        if (list[i] == fd) {
            list[i] = list[--n_list];
            break;
        }
    pthread_mutex_unlock(&list_lock);
}

lg_h1_conn *lg_fd_watched(int fd)
{
    return (unsigned)fd < FD_MAX ? atomic_load_explicit(&watched[fd], memory_order_relaxed) : NULL;
}

size_t lg_fd_watch_list(int *fds, size_t max)
{
    pthread_mutex_lock(&list_lock);
    size_t n = n_list < max ? n_list : max;
    for (size_t i = 0; i < n; i++)
        fds[i] = list[i];
    pthread_mutex_unlock(&list_lock);
    return n;
}

int lg_fd_epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
    int (*ctl)(int, int, int, struct epoll_event *) = lg_sock_real_get()->epoll_ctl;
    if ((unsigned)fd >= FD_MAX)
        return ctl(epfd, op, fd, ev);
    setup_fork();
    pthread_mutex_lock(&epoll_lock);
    int r = ctl(epfd, op, fd, ev);
    int err = errno;
    lg_fd_epoll *e = &epolls[fd];
    if (r == 0 && op == EPOLL_CTL_DEL) {
        if (e->epfd == epfd + 1)
            e->epfd = 0;
    } else if (r == 0 && ev) {
        e->epfd = epfd + 1;
        e->ev = *ev;
        e->reported = false;
        e->hidden = false; /* the kernel has the host's registration again */
    }
    pthread_mutex_unlock(&epoll_lock);
    errno = err;
    return r;
}

void lg_fd_epoll_forget(int fd)
{
    if ((unsigned)fd >= FD_MAX)
        return;
    setup_fork();
    pthread_mutex_lock(&epoll_lock);
    epolls[fd].epfd = 0;
    pthread_mutex_unlock(&epoll_lock);
}

int lg_fd_epoll_dup3(int fresh, int fd, int flags)
{
    if ((unsigned)fd >= FD_MAX)
        return dup3(fresh, fd, flags);
    setup_fork();
    pthread_mutex_lock(&epoll_lock);
    int r = dup3(fresh, fd, flags);
    int err = errno;
    lg_fd_epoll *e = &epolls[fd];
    if (r == fd && e->epfd) {
        struct epoll_event ev = held(e, e->hidden);
        lg_sock_real_get()->epoll_ctl(e->epfd - 1, EPOLL_CTL_ADD, fd, &ev);
    }
    pthread_mutex_unlock(&epoll_lock);
    errno = err;
    return r;
}

bool lg_fd_epoll_reads(int fd, int epfd, epoll_data_t *data)
{
    if ((unsigned)fd >= FD_MAX)
        return false;
    pthread_mutex_lock(&epoll_lock);
    const lg_fd_epoll *e = &epolls[fd];
    bool reads = e->epfd == epfd + 1 && (e->ev.events & EPOLLIN);
    if (reads)
        *data = e->ev.data;
    pthread_mutex_unlock(&epoll_lock);
    return reads;
}

bool lg_fd_epoll_apply(int fd, int epfd, lg_h1_readiness state, const lg_fd_wake *wake, bool room,
                       struct epoll_event *out)
{
    if ((unsigned)fd >= FD_MAX)
        return false;
    bool report = false;
    pthread_mutex_lock(&epoll_lock);
    lg_fd_epoll *e = &epolls[fd];
    if (e->epfd == epfd + 1) {
        bool waiting = state == LG_H1_WAITING;
        hide(fd, e, waiting);
        if (waiting && wake && (wake->fd != fd || e->hidden)) /* on fd, the armed event replaces the hidden
                                                                * registration until it is put back */
            arm(epfd, wake, wake->fd == fd);
        if (state != LG_H1_READY)
            e->reported = false;
        else if (room && (e->ev.events & EPOLLIN) && !(e->reported && (e->ev.events & EPOLLET))) {
            report = true;
            e->reported = true;
            out->events = EPOLLIN;
            out->data = e->ev.data;
            if (e->ev.events & EPOLLONESHOT)
                e->ev.events &= ~(uint32_t)EPOLLIN;
        }
    }
    pthread_mutex_unlock(&epoll_lock);
    return report;
}
