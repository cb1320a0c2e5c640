/* The table of watched descriptors (see fd_watch.h). */
#include <stdatomic.h>
#include <stddef.h>

#include "hook/fd_watch.h"

#define FD_MAX 65536

static lg_h1_conn *_Atomic watched[FD_MAX];
static atomic_int n_watched;
static atomic_bool epolled[FD_MAX];

void lg_fd_watch(int fd, lg_h1_conn *c)
{
    if ((unsigned)fd >= FD_MAX || !c)
        return;
    if (!atomic_exchange(&watched[fd], c))
        atomic_fetch_add(&n_watched, 1);
}

void lg_fd_unwatch(int fd, const lg_h1_conn *c)
{
    if ((unsigned)fd >= FD_MAX)
        return;
    lg_h1_conn *cur = atomic_load_explicit(&watched[fd], memory_order_relaxed);
    if (cur && (!c || cur == c) && atomic_compare_exchange_strong(&watched[fd], &cur, NULL))
        atomic_fetch_sub(&n_watched, 1);
}

lg_h1_conn *lg_fd_watched(int fd)
{
    return (unsigned)fd < FD_MAX ? atomic_load_explicit(&watched[fd], memory_order_relaxed) : NULL;
}

bool lg_fd_watch_any(void) { return atomic_load_explicit(&n_watched, memory_order_relaxed) > 0; }

void lg_fd_mark_epoll(int fd, bool on)
{
    if ((unsigned)fd < FD_MAX)
        atomic_store_explicit(&epolled[fd], on, memory_order_relaxed);
}

bool lg_fd_in_epoll(int fd)
{
    return (unsigned)fd < FD_MAX && atomic_load_explicit(&epolled[fd], memory_order_relaxed);
}
