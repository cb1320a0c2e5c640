/* Waiting on a descriptor for llmgate's own blocking I/O when the host made it non-blocking meanwhile
 * (wget sets O_NONBLOCK around its reads). */
#ifndef LLMGATE_HOOK_SOCK_FD_WAIT_H
#define LLMGATE_HOOK_SOCK_FD_WAIT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "front/host.h"

/* Waits until fd is readable (write: writable) or fails; false when poll fails. */
bool lg_fd_wait(int fd, bool write);

/* Waits until fd is readable (write: writable), but not past until_ms (lg_now_ms's clock; 0: no limit):
 * LG_WAIT_INTR when a signal the host takes (lg_host_takes_eintr) interrupted it. The front's wait_fd. */
lg_wait_rc lg_fd_wait_until(int fd, bool write, int64_t until_ms);
/* True when fd is ready (write: writable) by until_ms: lg_fd_wait_until, or lg_fd_wait when until_ms is 0. */
bool lg_fd_wait_by(int fd, bool write, int64_t until_ms);

/* Whether the host is interrupted by its signals: a signal it catches has a handler installed without
 * SA_RESTART (as Python installs all of its handlers), so its own blocking calls would return EINTR and
 * it must expect that. */
bool lg_host_takes_eintr(void);

/* Sleeps until at_ms (lg_now_ms's clock) for a blocking host: false when a signal interrupted the sleep
 * and the host takes EINTR (its handler must run now: the caller parks its exchange and returns), true
 * when the time came. */
bool lg_sleep_until(int64_t at_ms);

/* A readiness wait's timeout in ms, rounded up (-1: none, when ts is NULL). */
int lg_timeout_ms(const struct timespec *ts);

#endif
