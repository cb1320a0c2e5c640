/* The table of gated socket connections, keyed by file descriptor: a connection is added when a
 * TCP socket connects to an address a provider host resolved to, and dropped when it is closed. A lookup
 * is one array load, so read() and write() stay cheap on every other descriptor. */
#ifndef LLMGATE_HOOK_SOCK_CONNS_H
#define LLMGATE_HOOK_SOCK_CONNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "front/h1_conn.h"

#define LG_SOCK_FD_MAX 65536

struct lg_sock_entry;
extern struct lg_sock_entry *lg_sock_table[LG_SOCK_FD_MAX]; /* by descriptor: NULL when not ours */

/* True when the table holds fd (one load, inline): only then may lg_sock_conn find a connection. */
static inline bool lg_sock_held(int fd) { return (unsigned)fd < LG_SOCK_FD_MAX && lg_sock_table[fd]; }

/* lg_sock_conn of a descriptor the table holds. */
lg_h1_conn *lg_sock_conn_held(int fd);

/* The connection on fd that llmgate still follows, or NULL (not ours, released, or inside a guarded
 * section on this thread). Any other descriptor costs one load, inline. */
static inline lg_h1_conn *lg_sock_conn(int fd) { return lg_sock_held(fd) ? lg_sock_conn_held(fd) : NULL; }

/* The host's SO_RCVTIMEO or SO_SNDTIMEO (opt) on fd in ms, 0 for none (the front's sock_timeout_ms, host.h):
 * on a descriptor the table holds, as read when it was followed (connect) and read again only after the
 * program set either option (setsockopt, interposed) on any descriptor; on another, getsockopt's answer. */
int64_t lg_sock_timeout_ms(int fd, int opt);

/* fd's file status flags (F_GETFL; -1 when that fails), the front's fd_status_flags (host.h): on a descriptor
 * the table holds, as read when it was followed (connect) and read again only after the program changed the
 * flags of any descriptor (fd_flags.h); on another, fcntl's answer. Preserves errno. */
int lg_sock_status_flags(int fd);

#define LG_SOCK_NOT_OURS (-2) /* lg_sock_fastopen_connect: not a provider's address */

/* TCP Fast Open: the host sends its first bytes with MSG_FASTOPEN and the address (sendto, sendmsg) on a
 * socket it never connected. When addr is a provider's, connects fd there as connect() does (the
 * descriptor followed) and returns connect's result (0, or -1 with errno, EINPROGRESS for a non-blocking
 * socket); LG_SOCK_NOT_OURS when it is not (the caller makes the real call, Fast Open and all). */
int lg_sock_fastopen_connect(int fd, const struct sockaddr *addr, socklen_t len);

#endif
