/* llmgate's own TCP connections (see tcp_connect.h). */
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/time.h>

#include "llmgate/clock.h"
#include "llmgate/tcp_connect.h"

void lg_tcp_deadline(int fd, int64_t until_ms, const lg_tcp_calls *calls)
{
    int64_t left = until_ms > 0 ? until_ms - lg_now_ms() : 0;
    if (until_ms > 0 && left < 1)
        left = 1;
    struct timeval tv = {.tv_sec = (time_t)(left / 1000), .tv_usec = (suseconds_t)(left % 1000) * 1000};
    calls->setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    calls->setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

int lg_tcp_connect(const char *host, const char *port, bool nonblock, int64_t until_ms, const lg_tcp_calls *calls)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int fd = -1;
    if (calls->getaddrinfo(host, port, &hints, &res) != 0)
        return -1;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
        if (fd < 0)
            continue;
        int one = 1;
        calls->setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (!nonblock && until_ms > 0)
            lg_tcp_deadline(fd, until_ms, calls);
        if (calls->connect(fd, a->ai_addr, a->ai_addrlen) != 0 && !(nonblock && errno == EINPROGRESS)) {
            calls->close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}
