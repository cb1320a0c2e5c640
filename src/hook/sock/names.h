/* Which addresses belong to provider hosts: getaddrinfo of a provider's host name is answered with the
 * upstream's address (and port) when the provider has an upstream, and every address handed out for a
 * provider host is remembered with the port the caller asked for (a small table of the last 64), so
 * connect() can tell a provider connection from any other without looking at its bytes. */
#ifndef LLMGATE_HOOK_SOCK_NAMES_H
#define LLMGATE_HOOK_SOCK_NAMES_H

#include <sys/socket.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/config.h"

/* The providers whose host names resolved to addr (on the port handed out, the one asked for, or any when
 * the name was resolved without a service), at most max of them in provs: their number, 0 for none. *to
 * receives the address to connect to: addr, or addr with the upstream's port when the host connects to
 * another (a port it chose itself, wget; the one it asked for, anyio). Providers that share the address
 * but whose upstreams' ports differ are left out: only those reached at *to. *asked (when not NULL)
 * receives the port the program asked for (network order): the service it resolved with, else addr's. An
 * IPv4-mapped IPv6 addr (a dual-stack socket, as Java's) matches the IPv4 address; *to keeps its family. */
size_t lg_sock_names_lookup(const struct sockaddr *addr, socklen_t len, struct sockaddr_storage *to,
                            const lg_provider **provs, size_t max, uint16_t *asked);

#endif
