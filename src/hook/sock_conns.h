/* The table of gated socket connections, keyed by file descriptor: a connection is added when a
 * TCP socket connects to an address a provider host resolved to, and dropped when it is closed. A lookup
 * is one array load, so read() and write() stay cheap on every other descriptor. */
#ifndef LLMGATE_HOOK_SOCK_CONNS_H
#define LLMGATE_HOOK_SOCK_CONNS_H

#include "hook/h1_conn.h"

/* The connection on fd that llmgate still follows, or NULL (not ours, released, or inside a guarded
 * section on this thread). */
lg_h1_conn *lg_sock_conn(int fd);

#endif
