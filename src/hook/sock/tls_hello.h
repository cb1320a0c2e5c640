/* Which socket carries which TLS session when the host does TLS on memory BIOs (asyncio's SSLObject:
 * SSL_get_fd is -1): the client random of each ClientHello a host sends on a followed provider socket is
 * remembered with the descriptor (the last 64), and found again from the SSL's own client random. */
#ifndef LLMGATE_HOOK_SOCK_TLS_HELLO_H
#define LLMGATE_HOOK_SOCK_TLS_HELLO_H

#include <stddef.h>

/* The host sends p (n bytes) first on fd: remembered when it is a TLS ClientHello record. */
void lg_tls_hello_sent(int fd, const void *p, size_t n);
/* The descriptor whose ClientHello carried this 32-byte client random, or -1. */
int lg_tls_hello_fd(const unsigned char *random);

#endif
