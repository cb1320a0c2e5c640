/* A TCP connection of llmgate's own to host:port, through the calls its caller names: the real libc symbols
 * under the preload (so that its own hooks do not follow it), libc's own in the relay. */
#ifndef LLMGATE_TCP_CONNECT_H
#define LLMGATE_TCP_CONNECT_H

#include <stdbool.h>
#include <stdint.h>
#include <netdb.h>
#include <sys/socket.h>

typedef struct {
    int (*getaddrinfo)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
    int (*connect)(int, const struct sockaddr *, socklen_t);
    int (*close)(int);
    int (*setsockopt)(int, int, int, const void *, socklen_t);
} lg_tcp_calls;

/* A socket (close-on-exec, TCP_NODELAY) connected to the first address of host:port that takes one
 * (port numeric), or, nonblock, still connecting to it; -1 on failure. A blocking one with until_ms (the
 * lg_now_ms clock; 0: no limit) has its connect bounded by it and is returned with that deadline on it
 * (lg_tcp_deadline): the caller's handshake is bounded too, and the caller clears it. */
int lg_tcp_connect(const char *host, const char *port, bool nonblock, int64_t until_ms, const lg_tcp_calls *calls);

/* Bounds fd's blocking calls (connect, send, receive: SO_SNDTIMEO and SO_RCVTIMEO) by until_ms, at least
 * 1 ms from now; until_ms 0 takes the bound off (both options 0). A call past it fails with EAGAIN
 * (connect: EINPROGRESS). */
void lg_tcp_deadline(int fd, int64_t until_ms, const lg_tcp_calls *calls);

#endif
