/* Programs with a TLS library of their own (Node.js, Bun: its https runs inside the binary, out of the
 * preload's reach; a Java runtime) led to the relay (llmgate relay): when `llmgate run` started one for
 * the program and said so in LLMGATE_RELAY ("PORT:SECRET"), a connection such a program makes to a
 * provider's address on port 443 is made to the relay on 127.0.0.1:PORT instead, on the same descriptor,
 * after a PROXY protocol v2 preamble that carries the original destination, the relay's secret and the
 * program's name; the relay terminates the program's TLS with a certificate of the local CA the program
 * was told to trust (NODE_EXTRA_CA_CERTS, a Java trust store) and gates its requests. */
#ifndef LLMGATE_HOOK_SOCK_RELAY_REDIRECT_H
#define LLMGATE_HOOK_SOCK_RELAY_REDIRECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* True when fd, about to connect to dst (a provider's address, asked for on port `asked`, network
 * order), is now connected to the relay instead (the program's connect returns 0); false when the
 * connection is not the relay's to take, or the relay cannot be reached (said once on stderr: the
 * connection then goes out ungated); nothing was changed then. Preserves nothing. */
bool lg_sock_to_relay(int fd, const struct sockaddr *dst, uint16_t asked);

#endif
