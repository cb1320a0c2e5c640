/* Descriptors whose readiness llmgate answers for: a non-blocking host connection whose exchange waits
 * (admission, backoff) or whose answer llmgate holds. The poll/select hooks (poll_hooks.c) look each
 * descriptor up here (one array load) and only when some descriptor is watched at all. Also remembers
 * which descriptors a host put into an epoll set: such a connection is not followed (its readiness comes
 * from the kernel only). */
#ifndef LLMGATE_HOOK_FD_WATCH_H
#define LLMGATE_HOOK_FD_WATCH_H

#include <stdbool.h>

#include "hook/h1_conn.h"

/* Watches fd for connection c (replacing what was there). */
void lg_fd_watch(int fd, lg_h1_conn *c);
/* Stops watching fd when it is watched for c (c NULL: whatever watches it). */
void lg_fd_unwatch(int fd, const lg_h1_conn *c);
/* The connection fd is watched for, or NULL. */
lg_h1_conn *lg_fd_watched(int fd);
/* True when any descriptor is watched: the readiness hooks' fast path. */
bool lg_fd_watch_any(void);

/* The host added fd to an epoll set (on) or removed / closed it (off). */
void lg_fd_mark_epoll(int fd, bool on);
bool lg_fd_in_epoll(int fd);

#endif
