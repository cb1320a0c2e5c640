/* A blocking client that keeps time limits on its socket as C programs do: it resolves HOST:PORT, sets
 * SO_RCVTIMEO to RCV_MS and SO_SNDTIMEO to SND_MS (0: none), sends one POST to PATH with KEY as its bearer
 * key and Connection: close, then reads. It prints "send MS" (how long its send took), then either
 * "status CODE MS" (the answer's status line came, after MS ms from the send) or "EAGAIN MS" (a read ended
 * on its receive timeout, as the kernel ends it), and exits 0. With READS (default 1) it reads up to that many
 * times, a line for each read that timed out, until the status line comes. On PORT 443 it speaks TLS
 * (OpenSSL on the blocking socket, the system's roots, SNI HOST): a read that timed out is SSL_read's
 * SSL_ERROR_WANT_READ, printed as "EAGAIN MS" too. The limits are set after the connect; with TIMEO_SET=before
 * in the environment before it, with TIMEO_SET=dup after it on a duplicate of the descriptor (closed again),
 * which shares its socket.
 * Usage: timeo_client HOST PORT PATH KEY BODY RCV_MS SND_MS [READS] */
#include <errno.h>
#include <netdb.h>
#include <openssl/ssl.h>
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

/* The connection: fd, and a TLS session over it when tls is not NULL. */
typedef struct {
    int fd;
    SSL *tls;
} conn;

/* Sends n bytes of p: true when all went out. */
static int conn_send(conn *c, const char *p, int n)
{
    return c->tls ? SSL_write(c->tls, p, n) == n : send(c->fd, p, (size_t)n, MSG_NOSIGNAL) == n;
}

/* Receives into p: bytes, or -1 with errno EAGAIN when the read timed out (else another errno). */
static ssize_t conn_recv(conn *c, char *p, size_t n)
{
    if (!c->tls)
        return recv(c->fd, p, n, 0);
    int r = SSL_read(c->tls, p, (int)n);
    if (r <= 0)
        errno = SSL_get_error(c->tls, r) == SSL_ERROR_WANT_READ ? EAGAIN : EIO;
    return r > 0 ? r : -1;
}

/* A TLS session over fd to host (verified against the system's roots), or NULL. */
static SSL *tls_open(int fd, const char *host)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    SSL *s = ctx && SSL_CTX_set_default_verify_paths(ctx) == 1 ? SSL_new(ctx) : NULL;
    if (s) {
        SSL_set_verify(s, SSL_VERIFY_PEER, NULL);
        if (SSL_set_tlsext_host_name(s, host) != 1 || SSL_set1_host(s, host) != 1 || SSL_set_fd(s, fd) != 1 ||
            SSL_connect(s) != 1) {
            SSL_free(s);
            s = NULL;
        }
    }
    SSL_CTX_free(ctx);
    return s;
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
    conn c = {.fd = fd, .tls = !strcmp(argv[2], "443") ? tls_open(fd, argv[1]) : NULL};
    if (!strcmp(argv[2], "443") && !c.tls) {
        fprintf(stderr, "timeo_client: TLS handshake failed\n");
        return 1;
    }
    char req[4096];
    int len = snprintf(req, sizeof req,
                       "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"
                       "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                       argv[3], argv[1], argv[4], strlen(argv[5]), argv[5]);
    if (len <= 0 || (size_t)len >= sizeof req)
        return 1;
    long long t0 = now_ms();
    if (!conn_send(&c, req, len)) {
        perror("timeo_client: send");
        return 1;
    }
    long long sent = now_ms();
    printf("send %lld\n", sent - t0);
    char buf[8192];
    for (long reads = argc == 9 ? atol(argv[8]) : 1; reads > 0; reads--) {
        ssize_t r = conn_recv(&c, buf, sizeof buf - 1);
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
