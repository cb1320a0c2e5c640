/* A plain http client built with _FORTIFY_SOURCE=2, as Ubuntu's gcc builds every program at -O2: the
 * compiler knows its buffers' sizes, so its poll, ppoll, recv, recvfrom and read are calls of glibc's
 * __poll_chk, __ppoll_chk, __recv_chk, __recvfrom_chk and __read_chk. It resolves HOST:PORT, sends one POST
 * to PATH with KEY as its bearer key and Connection: close, then waits for the answer with poll and reads it
 * with recv, waits with ppoll and reads with recvfrom, then reads the rest with read until the end, and
 * prints the whole answer. Exits 0 when an answer came, 1 when a wait timed out (30 s) or a call failed.
 * Usage: fortified_client HOST PORT PATH KEY BODY */
#undef _FORTIFY_SOURCE
#define _FORTIFY_SOURCE 2
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: fortified_client HOST PORT PATH KEY BODY\n");
        return 2;
    }
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *a = NULL;
    if (getaddrinfo(argv[1], argv[2], &hints, &a) != 0)
        return 1;
    int fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
        perror("fortified_client: connect");
        return 1;
    }
    freeaddrinfo(a);
    char req[4096];
    int len = snprintf(req, sizeof req,
                       "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"
                       "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                       argv[3], argv[1], argv[4], strlen(argv[5]), argv[5]);
    if (len <= 0 || (size_t)len >= sizeof req || write(fd, req, (size_t)len) != len)
        return 1;
    /* lengths the compiler cannot bound (half the body's length; 1 or 2 descriptors), buffers whose
     * sizes it knows: the fortified calls */
    size_t chunk = strlen(argv[5]) / 2 + 1; /* small: the answer takes every one of the reads */
    nfds_t nfds = (nfds_t)strlen(argv[2]) / 2;
    struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN}, {.fd = -1}}; /* poll skips the second */
    char buf[8192];
    if (poll(pfd, nfds, 30000) != 1) {
        fprintf(stderr, "fortified_client: poll: no answer\n");
        return 1;
    }
    ssize_t r = recv(fd, buf, chunk, 0);
    if (r <= 0)
        return 1;
    fwrite(buf, 1, (size_t)r, stdout);
    struct timespec ts = {.tv_sec = 30};
    pfd[0].revents = 0;
    if (ppoll(pfd, nfds, &ts, NULL) != 1) {
        fprintf(stderr, "fortified_client: ppoll: no end\n");
        return 1;
    }
    for (r = recvfrom(fd, buf, chunk, 0, NULL, NULL); r > 0; r = read(fd, buf, chunk))
        fwrite(buf, 1, (size_t)r, stdout);
    close(fd);
    return r < 0;
}
