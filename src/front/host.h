/* What the front (a connection's HTTP/1.1 framing and exchange driver) needs from the program it runs in:
 * its configuration and store, the plain libc calls it makes on descriptors of its own, waits, the table of
 * descriptors whose readiness the program answers for, and llmgate's own plain connections to a target.
 * The front calls nothing else of its program: a preload fills it from its hooks (hook/sock/front_host.h),
 * another program (a daemon) with plain libc. A connection keeps the host it was made with (lg_h1_new). */
#ifndef LLMGATE_FRONT_HOST_H
#define LLMGATE_FRONT_HOST_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "llmgate/config.h"
#include "llmgate/store.h"

struct lg_h1_conn;
struct lg_h1_target;
struct lg_h1_io;

/* How a wait on a descriptor ended (wait_fd). */
typedef enum {
    LG_WAIT_READY,   /* the descriptor is ready */
    LG_WAIT_TIMEOUT, /* the time limit came first */
    LG_WAIT_INTR,    /* a signal the program takes interrupted the wait (its handler must run now) */
    LG_WAIT_FAILED,
} lg_wait_rc;

typedef struct lg_front_host {
    /* The configuration (NULL: llmgate is inactive) and the shared store (NULL: none); neither changes once
     * a connection exists. */
    const lg_config *(*config)(void);
    lg_store *(*store)(void);
    /* close(2) and poll(2) as libc does them, whatever the program interposes. */
    int (*close)(int fd);
    int (*poll)(struct pollfd *fds, nfds_t n, int timeout_ms);
    /* Waits until fd is readable (write: writable), but not past until_ms (lg_now_ms's clock; 0: no limit;
     * one already past: a look without waiting). */
    lg_wait_rc (*wait_fd)(int fd, bool write, int64_t until_ms);
    /* Sleeps until at_ms (lg_now_ms's clock): false when a signal the program takes interrupted the sleep
     * (the caller parks its exchange and returns, for the handler to run), true when the time came. */
    bool (*sleep_until)(int64_t at_ms);
    /* The program's readiness waits ask connection c about fd from now on (replacing what was there) /
     * no longer (when fd is watched for c; c NULL: whatever watches it). */
    void (*watch)(int fd, struct lg_h1_conn *c);
    void (*unwatch)(int fd, const struct lg_h1_conn *c);
    /* A TCP socket connected (non-blocking: connecting) to target t, or -1 (a blocking connect not done by
     * until_ms, lg_now_ms's clock, 0: no limit, included); preserves nothing. */
    int (*target_socket)(const struct lg_h1_target *t, bool nonblock, int64_t until_ms);
    /* A transport over such a socket (the context: a pointer to its int descriptor), with a `wait`: its
     * receives never block. */
    const struct lg_h1_io *plain_io;
    /* NULL, or llmgate's own TLS session to https target t, for a connection whose own transport has no TLS
     * (a plain http host rerouted to an https provider): connected, verified against the system's trust
     * store for t's name and handshaken by until_ms (lg_now_ms's clock; 0: no limit), or NULL; the context
     * of own_tls_io, ended with own_tls_close. */
    void *(*own_tls_open)(const struct lg_h1_target *t, int64_t until_ms);
    void (*own_tls_close)(void *s);
    /* The transport over such a session, with a `wait`: its receives never block. */
    const struct lg_h1_io *own_tls_io;
    /* NULL (the front asks the descriptor: lg_front_fd_timeout_ms), or fd's SO_RCVTIMEO or SO_SNDTIMEO (opt)
     * as the program last set it, in ms, 0 for none; a preload that sees the program's setsockopt calls
     * answers from what it noted, without a system call. */
    int64_t (*sock_timeout_ms)(int fd, int opt);
    /* NULL (the front asks fcntl F_GETFL), or fd's file status flags (O_NONBLOCK...) as the program last set
     * them, -1 when unknown; a preload that sees the program's fcntl and ioctl calls answers from what it
     * noted, without a system call. Preserves errno. */
    int (*fd_status_flags)(int fd);
} lg_front_host;

/* fd's SO_RCVTIMEO or SO_SNDTIMEO (opt) in ms, rounded up, asked with getsockopt; 0 when it has none (or fd
 * is no socket). Preserves errno. */
int64_t lg_front_fd_timeout_ms(int fd, int opt);

#endif
