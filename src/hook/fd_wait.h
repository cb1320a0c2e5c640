/* Waiting on a descriptor for llmgate's own blocking I/O when the host made it non-blocking meanwhile
 * (wget sets O_NONBLOCK around its reads). */
#ifndef LLMGATE_HOOK_FD_WAIT_H
#define LLMGATE_HOOK_FD_WAIT_H

#include <stdbool.h>
#include <time.h>

/* Waits until fd is readable (write: writable) or fails; false when poll fails. */
bool lg_fd_wait(int fd, bool write);

/* A readiness wait's timeout in ms, rounded up (-1: none, when ts is NULL). */
int lg_timeout_ms(const struct timespec *ts);

#endif
