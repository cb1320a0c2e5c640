/* Descriptors whose readiness llmgate answers for: a followed host connection (non-blocking, or blocking
 * under a host that polls before it reads) whose exchange waits (admission, backoff) or whose answer
 * llmgate holds. The readiness hooks (poll.c, epoll.c)
 * look a descriptor up here (one array load), and only when some descriptor is watched at all. Also keeps
 * each descriptor's epoll registration as the host made it (instance, events, data), so epoll_wait can
 * report our readiness with the host's own data. */
#ifndef LLMGATE_HOOK_SOCK_FD_WATCH_H
#define LLMGATE_HOOK_SOCK_FD_WATCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/epoll.h>

#include "front/h1_conn.h"

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

/* The host's epoll registration of each descriptor, as it made it (instance, events, data), is kept here.
 * Every access to it, and every change llmgate makes in the kernel to a host's registration (hidden, put
 * back, armed, made again after a retry's dup3), is made under one lock, which the host's own epoll_ctl
 * calls take around the real call and its record: one thread may wait in epoll_wait on an instance (whose
 * hooks answer for, hide and put back the watched descriptors in it) while another thread changes or
 * removes those descriptors' registrations, as multi-threaded event loops do. The lock is never held while
 * waiting. */

/* The host's epoll_ctl(epfd, op, fd, ev): the real call, recorded as it succeeded (ADD, MOD, DEL), as one
 * step for the readiness hooks. Returns what the real call returned, errno as it left it. */
int lg_fd_epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev);
/* close(fd): the kernel drops fd's registrations; so does the record. */
void lg_fd_epoll_forget(int fd);
/* dup3(fresh, fd, flags) for a retry's new connection put on the host's descriptor number: the kernel drops
 * fd's registration with the old connection, and it is made again for the new one in the same step (as it
 * stands: hidden or not), so that the host's own epoll_ctl never finds it missing. Returns dup3's result,
 * errno as dup3 left it. */
int lg_fd_epoll_dup3(int fresh, int fd, int flags);
/* True when fd is registered in instance epfd for reading (its readiness may then be ours); *data: the
 * host's data of that registration. */
bool lg_fd_epoll_reads(int fd, int epfd, epoll_data_t *data);

/* The descriptor an exchange in flight waits on (the host's own, or llmgate's new connection) and the
 * one-shot event, with a data value of ours, that arms it in the host's instance so that the wait ends when
 * the provider answers. */
typedef struct {
    int fd;
    struct epoll_event ev;
} lg_fd_wake;

/* Applies our readiness state of watched descriptor fd to its registration in instance epfd, when the host
 * has one there. While it waits, the registration is held in the kernel without EPOLLIN (as a pollfd is
 * negated): its kernel readiness is not the host's, and a level-triggered readable descriptor (a provider
 * that closed the connection after a 429, while the backoff runs) would end every wait at once, the event
 * loop spinning for the whole wait; then wake (NULL: none) is armed, after the hide: when it is fd itself
 * (a plain connection's attempt reads the host's own descriptor) the armed event replaces the hidden
 * registration until it is put back. Otherwise the registration is put back as the host made it (and when
 * fd stops being watched). True when our EPOLLIN is to be reported now (ready, room for an event,
 * registered for reading, not an edge already reported): *out is that event with the host's data, and a
 * one-shot registration is disarmed as the kernel would. */
bool lg_fd_epoll_apply(int fd, int epfd, lg_h1_readiness state, const lg_fd_wake *wake, bool room,
                       struct epoll_event *out);

#endif
