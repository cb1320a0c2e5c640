/* Which addresses belong to provider hosts: getaddrinfo of a provider's host name is answered with the
 * upstream's address when the provider has an upstream, and every address handed out for a provider host
 * is remembered (a small table, newest first), so connect() can tell a provider connection from any other
 * without looking at its bytes. */
#ifndef LLMGATE_HOOK_SOCK_NAMES_H
#define LLMGATE_HOOK_SOCK_NAMES_H

#include <sys/socket.h>
#include <stdint.h>

#include "llmgate/config.h"

/* The provider whose host name resolved to addr, or NULL. *to receives the address to connect to: addr,
 * or addr with the upstream's port when the host resolved the name without a service (wget) and then
 * chose the scheme's port itself. */
const lg_provider *lg_sock_names_lookup(const struct sockaddr *addr, socklen_t len, struct sockaddr_storage *to);

#endif
