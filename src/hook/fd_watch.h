/* Descriptors whose readiness llmgate answers for: a followed host connection (non-blocking, or blocking
 * under a host that polls before it reads) whose exchange waits (admission, backoff) or whose answer
 * llmgate holds. The readiness hooks (poll_hooks.c, epoll_hooks.c)
 * look a descriptor up here (one array load), and only when some descriptor is watched at all. Also keeps
 * each descriptor's epoll registration as the host made it (instance, events, data), so epoll_wait can
 * report our readiness with the host's own data. */
#ifndef LLMGATE_HOOK_FD_WATCH_H
#define LLMGATE_HOOK_FD_WATCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/epoll.h>

#include "hook/h1_conn.h"

/* Watches fd for connection c (replacing what was there). */
void lg_fd_watch(int fd, lg_h1_conn *c);
/* Stops watching fd when it is watched for c (c NULL: whatever watches it). */
void lg_fd_unwatch(int fd, const lg_h1_conn *c);
/* The connection fd is watched for, or NULL. */
lg_h1_conn *lg_fd_watched(int fd);
extern atomic_int lg_fd_n_watched; /* how many descriptors are watched */

/* True when any descriptor is watched: the readiness hooks' fast path (one load, inline). */
static inline bool lg_fd_watch_any(void) { return atomic_load_explicit(&lg_fd_n_watched, memory_order_relaxed) > 0; }
/* Copies up to max watched descriptors into fds; returns how many. */
size_t lg_fd_watch_list(int *fds, size_t max);

/* The host's epoll registration of a descriptor. */
typedef struct {
    int epfd;             /* the epoll instance + 1; 0: none */
    struct epoll_event ev; /* as the host gave it */
    bool reported;        /* edge-triggered: our readiness was reported since it last changed */
    bool hidden;          /* the kernel holds it without EPOLLIN while its exchange waits (epoll_hooks.c) */
} lg_fd_epoll;

/* Records epoll_ctl(epfd, op, fd, ev) as it succeeded (ADD, MOD, DEL); close(fd) is DEL. */
void lg_fd_epoll_ctl(int epfd, int op, int fd, const struct epoll_event *ev);
/* fd's registration when it is in instance epfd, else NULL. */
lg_fd_epoll *lg_fd_epoll_get(int fd, int epfd);
/* While fd's exchange waits, its registration e in instance ep is held in the kernel without EPOLLIN (as a
 * pollfd is negated): its kernel readiness is not the host's, and a level-triggered readable descriptor (a
 * provider that closed the connection after a 429, while the backoff runs) would end every wait at once,
 * the event loop spinning for the whole wait. Put back as the host made it once it no longer waits
 * (waiting false), or when it stops being watched. */
void lg_fd_epoll_hide(int fd, int ep, lg_fd_epoll *e, bool waiting);

#endif
