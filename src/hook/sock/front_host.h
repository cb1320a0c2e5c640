/* The preload as the front's program (front/host.h): its runtime's configuration and store, the real libc
 * close and poll, the socket wing's waits (fd_wait.h), watch table (fd_watch.h) and plain connections
 * (plain_conn.h). Every connection the socket and TLS hooks follow is made with it. */
#ifndef LLMGATE_HOOK_SOCK_FRONT_HOST_H
#define LLMGATE_HOOK_SOCK_FRONT_HOST_H

#include "front/host.h"

extern const lg_front_host lg_sock_front_host;

#endif
