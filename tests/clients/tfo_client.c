/* A client that reaches its server with TCP Fast Open, as wget2 does (test_wget2.sh): it resolves HOST:PORT,
 * sends one POST to PATH with KEY as its bearer key and Connection: close, and prints what it reads up to the
 * end of the connection. MODE says how the connection is made:
 *   sendto      a blocking socket never connected: sendto(..., MSG_FASTOPEN, address) sends the request
 *   sendmsg     a non-blocking socket never connected: sendmsg with MSG_FASTOPEN and msg_name; on
 *               EINPROGRESS (no cookie yet), poll for POLLOUT and send it again without the flag, as wget2
 *   connectopt  setsockopt(TCP_FASTOPEN_CONNECT), then connect() and write()
 * Usage: tfo_client MODE HOST PORT PATH KEY BODY */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* Sends the n bytes of p on fd (blocking, or waiting for POLLOUT); false on failure. */
static int send_rest(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINPROGRESS)) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            if (poll(&pf, 1, 10000) <= 0)
                return 0;
            continue;
        }
        if (w <= 0)
            return 0;
        p += w;
        n -= (size_t)w;
    }
    return 1;
}

/* The first send of the request by MODE; what the call returned (bytes sent, or -1 with errno). */
static ssize_t first_send(const char *mode, int fd, const struct addrinfo *a, const char *req, size_t len)
{
    if (!strcmp(mode, "sendto"))
        return sendto(fd, req, len, MSG_FASTOPEN, a->ai_addr, a->ai_addrlen);
    if (!strcmp(mode, "sendmsg")) {
        struct iovec iov = {.iov_base = (void *)req, .iov_len = len};
        struct msghdr m = {.msg_name = a->ai_addr, .msg_namelen = a->ai_addrlen, .msg_iov = &iov, .msg_iovlen = 1};
        return sendmsg(fd, &m, MSG_FASTOPEN);
    }
    int on = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &on, sizeof on) != 0 ||
        (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS))
        return -1;
    return write(fd, req, len);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: tfo_client sendto|sendmsg|connectopt HOST PORT PATH KEY BODY\n");
        return 2;
    }
    const char *mode = argv[1], *body = argv[6];
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *a = NULL;
    if (getaddrinfo(argv[2], argv[3], &hints, &a) != 0) {
        fprintf(stderr, "tfo_client: cannot resolve %s\n", argv[2]);
        return 1;
    }
    int fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | (!strcmp(mode, "sendmsg") ? SOCK_NONBLOCK : 0), 0);
    char req[4096];
    int len = snprintf(req, sizeof req,
                       "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"
                       "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                       argv[4], argv[2], argv[5], strlen(body), body);
    if (fd < 0 || len <= 0 || (size_t)len >= sizeof req)
        return 1;
    ssize_t w = first_send(mode, fd, a, req, (size_t)len);
    if (w < 0 && errno != EINPROGRESS) {
        perror("tfo_client: first send");
        return 1;
    }
    if (!send_rest(fd, req + (w > 0 ? w : 0), (size_t)len - (size_t)(w > 0 ? w : 0))) {
        perror("tfo_client: send");
        return 1;
    }
    freeaddrinfo(a);
    char buf[8192];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EAGAIN) {
            struct pollfd pf = {.fd = fd, .events = POLLIN};
            if (poll(&pf, 1, 20000) <= 0)
                return 1;
            continue;
        }
        if (r <= 0)
            break;
        fwrite(buf, 1, (size_t)r, stdout);
    }
    close(fd);
    return 0;
}
