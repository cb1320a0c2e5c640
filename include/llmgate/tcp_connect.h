/* A TCP connection of llmgate's own to host:port, through the calls its caller names: the real libc symbols
 * under the preload (so that its own hooks do not follow it), libc's own in the relay. */
#ifndef LLMGATE_TCP_CONNECT_H
#define LLMGATE_TCP_CONNECT_H

#include <stdbool.h>
#include <netdb.h>
#include <sys/socket.h>

typedef struct {
    int (*getaddrinfo)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
    int (*connect)(int, const struct sockaddr *, socklen_t);
    int (*close)(int);
} lg_tcp_calls;

/* A socket (close-on-exec, TCP_NODELAY) connected to the first address of host:port that takes one
 * (port numeric), or, nonblock, still connecting to it; -1 on failure. */
int lg_tcp_connect(const char *host, const char *port, bool nonblock, const lg_tcp_calls *calls);

#endif
