/* llmgate's own TCP connections (see tcp_connect.h). */
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "llmgate/tcp_connect.h"

int lg_tcp_connect(const char *host, const char *port, bool nonblock, const lg_tcp_calls *calls)
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
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (calls->connect(fd, a->ai_addr, a->ai_addrlen) != 0 && !(nonblock && errno == EINPROGRESS)) {
            calls->close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}
