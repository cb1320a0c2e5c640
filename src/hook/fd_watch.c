/* The table of watched descriptors and of their epoll registrations (see fd_watch.h). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "hook/fd_watch.h"
#include "hook/runtime.h"
#include "hook/sock_real.h"

#define FD_MAX 65536

#define LIST_MAX 1024 /* watched descriptors epoll_wait can answer for at once */

static lg_h1_conn *_Atomic watched[FD_MAX];
atomic_int lg_fd_n_watched;
static int list[LIST_MAX]; /* the watched descriptors, compact, under list_lock */
static size_t n_list;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static lg_fd_epoll epolls[FD_MAX]; /* epfd is stored + 1: 0 means none, so the table starts empty */
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
    if (epolls[fd].epfd && epolls[fd].hidden) /* no wait will put its registration back: now */
        lg_fd_epoll_hide(fd, epolls[fd].epfd - 1, &epolls[fd], false);
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

void lg_fd_epoll_ctl(int epfd, int op, int fd, const struct epoll_event *ev)
{
    if ((unsigned)fd >= FD_MAX || (op == EPOLL_CTL_DEL && !epolls[fd].epfd))
        return;
    setup_fork();
    pthread_mutex_lock(&epoll_lock);
    lg_fd_epoll *e = &epolls[fd];
    if (op == EPOLL_CTL_DEL) {
        if (epfd < 0 || e->epfd == epfd + 1)
            e->epfd = 0;
    } else if (ev) {
        e->epfd = epfd + 1;
        e->ev = *ev;
        e->reported = false;
        e->hidden = false; /* the kernel has the host's registration again */
    }
    pthread_mutex_unlock(&epoll_lock);
}

lg_fd_epoll *lg_fd_epoll_get(int fd, int epfd)
{
    return (unsigned)fd < FD_MAX && epolls[fd].epfd == epfd + 1 ? &epolls[fd] : NULL;
}

void lg_fd_epoll_hide(int fd, int ep, lg_fd_epoll *e, bool waiting)
{
    if (e->hidden == waiting)
        return;
    struct epoll_event ev = e->ev;
    if (waiting)
        ev.events &= ~(uint32_t)(EPOLLIN | EPOLLRDHUP | EPOLLPRI);
    int saved = errno;
    int (*ctl)(int, int, int, struct epoll_event *) = lg_sock_real_get()->epoll_ctl;
    /* ENOENT: a retry's new connection was put on the number (dup3), and the kernel dropped the host's
     * registration with the old one */
    if (ctl(ep, EPOLL_CTL_MOD, fd, &ev) == 0 || (errno == ENOENT && ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0))
        e->hidden = waiting;
    errno = saved;
}
