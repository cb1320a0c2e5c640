/* A blocking client that keeps time limits on its socket as C programs do: it resolves HOST:PORT, sets
 * SO_RCVTIMEO to RCV_MS and SO_SNDTIMEO to SND_MS (0: none), sends one POST to PATH with KEY as its bearer
 * key and Connection: close, then reads. It prints "send MS" (how long its send took), then either
 * "status CODE MS" (the answer's status line came, after MS ms from the send) or "EAGAIN MS" (a read ended
 * on its receive timeout, as the kernel ends it), and exits 0. With READS (default 1) it reads up to that many
 * times, a line for each read that timed out, until the status line comes. The limits are set after the
 * connect; with TIMEO_SET=before in the environment before it, with TIMEO_SET=dup after it on a duplicate of
 * the descriptor (closed again), which shares its socket.
 * Usage: timeo_client HOST PORT PATH KEY BODY RCV_MS SND_MS [READS] */
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Monotonic milliseconds. */
static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Sets socket option opt of fd to ms milliseconds (none when 0); false on failure. */
static int set_timeout(int fd, int opt, long ms)
{
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    return ms == 0 || setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof tv) == 0;
}

int main(int argc, char **argv)
{
    if (argc != 8 && argc != 9) {
        fprintf(stderr, "usage: timeo_client HOST PORT PATH KEY BODY RCV_MS SND_MS [READS]\n");
        return 2;
    }
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *a = NULL;
    if (getaddrinfo(argv[1], argv[2], &hints, &a) != 0) {
        fprintf(stderr, "timeo_client: cannot resolve %s\n", argv[1]);
        return 1;
    }
    const char *when = getenv("TIMEO_SET") ? getenv("TIMEO_SET") : "after";
    bool before = !strcmp(when, "before"), dup_set = !strcmp(when, "dup");
    int fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || (before && (!set_timeout(fd, SO_RCVTIMEO, atol(argv[6])) ||
                              !set_timeout(fd, SO_SNDTIMEO, atol(argv[7]))))) {
        perror("timeo_client: setsockopt");
        return 1;
    }
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
        perror("timeo_client: connect");
        return 1;
    }
    int on = dup_set ? dup(fd) : fd;
    if (!before && (on < 0 || !set_timeout(on, SO_RCVTIMEO, atol(argv[6])) ||
                    !set_timeout(on, SO_SNDTIMEO, atol(argv[7])))) {
        perror("timeo_client: setsockopt");
        return 1;
    }
    if (dup_set)
        close(on);
    freeaddrinfo(a);
    char req[4096];
    int len = snprintf(req, sizeof req,
                       "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"
                       "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                       argv[3], argv[1], argv[4], strlen(argv[5]), argv[5]);
    if (len <= 0 || (size_t)len >= sizeof req)
        return 1;
    long long t0 = now_ms();
    if (send(fd, req, (size_t)len, MSG_NOSIGNAL) != len) {
        perror("timeo_client: send");
        return 1;
    }
    long long sent = now_ms();
    printf("send %lld\n", sent - t0);
    char buf[8192];
    for (long reads = argc == 9 ? atol(argv[8]) : 1; reads > 0; reads--) {
        ssize_t r = recv(fd, buf, sizeof buf - 1, 0);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            printf("EAGAIN %lld\n", now_ms() - sent);
            continue;
        }
        if (r > 12 && !strncmp(buf, "HTTP/1.1 ", 9)) {
            printf("status %.3s %lld\n", buf + 9, now_ms() - sent);
            break;
        }
        perror("timeo_client: recv");
        return 1;
    }
    close(fd);
    return 0;
}
