/* llmgate's own TCP connections to the target of a rerouted attempt (h1_target.h): connecting (resolved
 * with the real getaddrinfo), and a blocking plain transport over one. */
#ifndef LLMGATE_HOOK_SOCK_PLAIN_CONN_H
#define LLMGATE_HOOK_SOCK_PLAIN_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "front/h1_conn.h"
#include "front/h1_target.h"

/* A TCP socket (close-on-exec, TCP_NODELAY; non-blocking when nonblock) connected to t, or connecting
 * (non-blocking: EINPROGRESS); -1 when no address of t could be reached (a blocking connect: by until_ms,
 * lg_now_ms's clock, 0 for no limit; the socket then keeps that deadline for the caller's handshake, see
 * lg_sock_deadline). Resolves with the real getaddrinfo. Preserves nothing (the caller saves errno). */
int lg_h1_target_socket(const lg_h1_target *t, bool nonblock, int64_t until_ms);
/* The same for a plain http target (the front's target_socket): the deadline taken off once connected. */
int lg_h1_plain_socket(const lg_h1_target *t, bool nonblock, int64_t until_ms);
/* Bounds llmgate's own blocking socket fd's connect, sends and receives by until_ms (0: takes the bound
 * off): lg_tcp_deadline with the real setsockopt. */
void lg_sock_deadline(int fd, int64_t until_ms);

/* Sends all n bytes on fd, waiting when it is non-blocking; with until_ms (lg_now_ms's clock; 0: none) the
 * send never waits in the kernel and its waits end then: false when the bytes are not all sent by then, or
 * on failure. */
bool lg_h1_fd_send(int fd, const void *p, size_t n, int64_t until_ms);
/* Receives up to n bytes from fd: > 0, 0 at the end, -1 on failure, LG_IO_INTR when a signal the host takes
 * interrupted a blocking wait. With nothing there yet fd is waited for, or (park) LG_IO_AGAIN is answered
 * without blocking, whatever fd's mode: the caller waits as long as it may (readiness waits, or its own
 * time-limited wait). */
ssize_t lg_h1_fd_recv(int fd, void *p, size_t n, bool park);
/* llmgate's own plain TCP connection to a target: lg_h1_io over an int fd (the context is a pointer to
 * it); its sends block until their time limit, its receives never do (its `wait` is the descriptor). */
extern const lg_h1_io lg_h1_plain_io;

#endif
