/* A non-blocking HTTP/1.1 client on edge-triggered epoll, plain or OpenSSL over a socket BIO, with a
 * timerfd ticking every 50 ms on the same loop.
 * Usage: epoll_client HOST PORT PATH [tls] [N]
 * N requests (POST, a JSON body, "Authorization: Bearer sk-host", Connection: close), each on its own
 * connection, all in flight at once. The request goes out in two writes (head, body). Prints per request
 * "STATUS BODY" in the order they finish; on stderr "wakeups=W ticks=T max_late_ms=L": how often
 * epoll_wait returned, how many ticks came, and the largest lateness of a tick. Exits 0 when every request
 * got a whole response. TLS trusts SSL_CERT_FILE and checks the host name. */
#include <errno.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAXREQ 16
#define TICK_MS 50

enum { CONNECTING, HANDSHAKE, SENDING, READING, DONE };

typedef struct {
    int fd, state, part;
    SSL *ssl;
    char out[2][1024];
    size_t out_len[2], out_off;
    char *in;
    size_t in_len, in_cap;
} conn;

static const char *BODY = "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One non-blocking read or write: > 0 bytes, 0 at the end, -1 would block, -2 failed. */
static ssize_t io(conn *c, bool wr, void *p, size_t n)
{
    if (c->ssl) {
        size_t done = 0;
        int ok = wr ? SSL_write_ex(c->ssl, p, n, &done) : SSL_read_ex(c->ssl, p, n, &done);
        if (ok == 1)
            return (ssize_t)done;
        int e = SSL_get_error(c->ssl, 0);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
            return -1;
        return e == SSL_ERROR_ZERO_RETURN || (!wr && e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) ? 0 : -2;
    }
    ssize_t r = wr ? write(c->fd, p, n) : read(c->fd, p, n);
    if (r < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : -2;
    return r;
}

/* True when in holds a whole response (a Content-Length body, or the end of the connection). */
static bool whole(const conn *c, bool eof)
{
    const char *end = c->in ? memmem(c->in, c->in_len, "\r\n\r\n", 4) : NULL;
    if (!end)
        return false;
    const char *cl = strcasestr(c->in, "\ncontent-length:");
    if (!cl || cl > end)
        return eof;
    return (size_t)(end + 4 - c->in) + strtoul(cl + 16, NULL, 10) <= c->in_len;
}

/* Drives c as far as it goes without blocking; false on failure. */
static bool drive(conn *c)
{
    for (;;) {
        if (c->state == CONNECTING) {
            int err = 0;
            socklen_t len = sizeof err;
            getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
            if (err == EINPROGRESS)
                return true;
            if (err)
                return false;
            c->state = c->ssl ? HANDSHAKE : SENDING;
        } else if (c->state == HANDSHAKE) {
            int r = SSL_connect(c->ssl);
            if (r == 1) {
                c->state = SENDING;
                continue;
            }
            int e = SSL_get_error(c->ssl, r);
            return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
        } else if (c->state == SENDING) {
            ssize_t r = io(c, true, c->out[c->part] + c->out_off, c->out_len[c->part] - c->out_off);
            if (r == -1)
                return true;
            if (r <= 0)
                return false;
            c->out_off += (size_t)r;
            if (c->out_off == c->out_len[c->part]) {
                c->out_off = 0;
                if (++c->part == 2)
                    c->state = READING;
            }
        } else if (c->state == READING) {
            if (c->in_len + 4096 > c->in_cap) {
                c->in_cap = c->in_cap ? c->in_cap * 2 : 8192;
                c->in = realloc(c->in, c->in_cap + 1);
            }
            ssize_t r = io(c, false, c->in + c->in_len, c->in_cap - c->in_len);
            if (r == -1)
                return true;
            if (r == -2)
                return false;
            c->in_len += r > 0 ? (size_t)r : 0;
            c->in[c->in_len] = '\0';
            if (whole(c, r == 0)) {
                c->state = DONE;
                const char *body = strstr(c->in, "\r\n\r\n") + 4;
                printf("%d %s\n", atoi(c->in + 9), body);
                fflush(stdout);
                return true;
            }
            if (r == 0)
                return false;
        } else {
            return true;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    const char *host = argv[1], *port = argv[2], *path = argv[3];
    bool tls = argc > 4 && !strcmp(argv[4], "tls");
    int n = argc > 5 ? atoi(argv[5]) : 1;
    if (n < 1 || n > MAXREQ)
        return 2;
    SSL_CTX *ctx = NULL;
    if (tls) {
        ctx = SSL_CTX_new(TLS_client_method());
        SSL_CTX_set_default_verify_paths(ctx);
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
    if (getaddrinfo(host, port, &hints, &ai) != 0)
        return 1;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct itimerspec its = {{0, TICK_MS * 1000000L}, {0, TICK_MS * 1000000L}};
    timerfd_settime(tfd, 0, &its, NULL);
    struct epoll_event tev = {.events = EPOLLIN, .data.u64 = (uint64_t)-1};
    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &tev);
    static conn conns[MAXREQ];
    for (int i = 0; i < n; i++) {
        conn *c = &conns[i];
        c->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS)
            return 1;
        if (tls) {
            c->ssl = SSL_new(ctx);
            SSL_set_fd(c->ssl, c->fd);
            SSL_set_tlsext_host_name(c->ssl, host);
            SSL_set1_host(c->ssl, host);
            SSL_set_connect_state(c->ssl);
        }
        c->out_len[0] = (size_t)snprintf(c->out[0], sizeof c->out[0],
                                         "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sk-host\r\n"
                                         "Content-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                                         path, host, strlen(BODY));
        c->out_len[1] = (size_t)snprintf(c->out[1], sizeof c->out[1], "%s", BODY);
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET | EPOLLRDHUP, .data.u64 = (uint64_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    }
    freeaddrinfo(ai);
    int done = 0, wakeups = 0, ticks = 0;
    int64_t start = now_ms(), last_tick = start, max_late = 0, give_up = start + 30000;
    while (done < n && now_ms() < give_up) {
        struct epoll_event evs[MAXREQ + 1];
        int k = epoll_wait(ep, evs, MAXREQ + 1, 1000);
        wakeups++;
        for (int j = 0; j < k; j++) {
            if (evs[j].data.u64 == (uint64_t)-1) {
                uint64_t exp;
                if (read(tfd, &exp, sizeof exp) == sizeof exp) {
                    int64_t t = now_ms(), late = t - last_tick - TICK_MS * (int64_t)exp;
                    max_late = late > max_late ? late : max_late;
                    last_tick = t;
                    ticks += (int)exp;
                }
                continue;
            }
            conn *c = &conns[evs[j].data.u64];
            if (c->state == DONE)
                continue;
            if (!drive(c)) {
                fprintf(stderr, "request %d failed in state %d\n", (int)evs[j].data.u64, c->state);
                return 1;
            }
            done += c->state == DONE;
        }
    }
    fprintf(stderr, "wakeups=%d ticks=%d max_late_ms=%lld\n", wakeups, ticks, (long long)max_late);
    for (int i = 0; i < n; i++) {
        if (conns[i].ssl)
            SSL_free(conns[i].ssl);
        close(conns[i].fd);
        free(conns[i].in);
    }
    SSL_CTX_free(ctx);
    return done == n ? 0 : 1;
}
