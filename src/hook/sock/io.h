/* What the socket data-path hooks (io.c) let another wing add: the TLS wing answers some reads of a
 * descriptor the socket hooks do not follow (a memory-BIO session's wake-up byte, ssl_conns.h), without
 * the socket wing knowing that wing. */
#ifndef LLMGATE_HOOK_SOCK_IO_H
#define LLMGATE_HOOK_SOCK_IO_H

#include <stddef.h>
#include <sys/types.h>

/* Answers a read of up to n bytes of fd into p: what the read returns, or LG_H1_PASS for the real read. */
typedef ssize_t (*lg_sock_read_fn)(int fd, void *p, size_t n);

/* From now on a read of a descriptor the socket hooks do not follow (not a peek), while some descriptor is
 * watched (fd_watch.h), asks fn first (replacing the previous one; NULL: none). */
void lg_sock_on_unfollowed_read(lg_sock_read_fn fn);

#endif
