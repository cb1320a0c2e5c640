/* Targets of rerouted attempts on the socket/TLS front end (see h1_target.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/fd_wait.h"
#include "hook/guard.h"
#include "hook/h1_target.h"
#include "hook/sock_real.h"
#include "llmgate/url.h"

bool lg_h1_upstream_split(const char *up, char *host, size_t hsize, char *port, size_t psize)
{
    if (!lg_url_host(up, host, hsize))
        return false;
    const char *auth = strstr(up, "://");
    auth = auth ? auth + 3 : up;
    const char *end = auth + strcspn(auth, "/?#");
    const char *colon = NULL;
    for (const char *p = auth; p < end; p++)
        if (*p == ':')
            colon = p;
    if (colon && (colon[-1] == ']' || !memchr(auth, '[', (size_t)(end - auth))) && end - colon - 1 > 0 &&
        (size_t)(end - colon) <= psize) {
        memcpy(port, colon + 1, (size_t)(end - colon - 1));
        port[end - colon - 1] = '\0';
    } else {
        snprintf(port, psize, "%s", !strncasecmp(up, "https:", 6) ? "443" : "80");
    }
    return true;
}

bool lg_h1_target_of(const lg_provider *p, lg_h1_target *t)
{
    memset(t, 0, sizeof *t);
    if (p->upstream) {
        if (!lg_h1_upstream_split(p->upstream, t->host, sizeof t->host, t->port, sizeof t->port))
            return false;
        t->tls = !strncasecmp(p->upstream, "https:", 6);
    } else {
        if (!p->n_hosts || snprintf(t->host, sizeof t->host, "%s", p->hosts[0]) >= (int)sizeof t->host)
            return false;
        strcpy(t->port, "443");
        t->tls = true;
    }
    unsigned char a[sizeof(struct in6_addr)];
    bool v6 = inet_pton(AF_INET6, t->host, a) == 1;
    t->ip = v6 || inet_pton(AF_INET, t->host, a) == 1;
    bool dflt = !strcmp(t->port, t->tls ? "443" : "80");
    int n = snprintf(t->authority, sizeof t->authority, "%s%s%s%s%s", v6 ? "[" : "", t->host, v6 ? "]" : "",
                     dflt ? "" : ":", dflt ? "" : t->port);
    return n > 0 && (size_t)n < sizeof t->authority;
}

char *lg_h1_target_path(const lg_provider *p, const char *path)
{
    if (!p->upstream)
        return strdup(path);
    char *full = lg_url_rebase(p->upstream, path);
    char *out = full ? strdup(lg_url_path(full)) : NULL;
    free(full);
    return out;
}

int lg_h1_target_socket(const lg_h1_target *t, bool nonblock)
{
    const lg_sock_real *real = lg_sock_real_get();
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int fd = -1;
    lg_guard_enter();
    if (real->getaddrinfo(t->host, t->port, &hints, &res) == 0) {
        for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
            fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
            if (fd < 0)
                continue;
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (real->connect(fd, a->ai_addr, a->ai_addrlen) != 0 && !(nonblock && errno == EINPROGRESS)) {
                real->close(fd);
                fd = -1;
            }
        }
        freeaddrinfo(res);
    }
    lg_guard_leave();
    return fd;
}

bool lg_h1_fd_send(int fd, const void *p, size_t n)
{
    const lg_sock_real *real = lg_sock_real_get();
    for (size_t off = 0; off < n;) {
        ssize_t w = real->send(fd, (const char *)p + off, n - off, MSG_NOSIGNAL);
        if (w < 0 && (errno == EINTR || ((errno == EAGAIN || errno == EWOULDBLOCK) && lg_fd_wait(fd, true))))
            continue;
        if (w <= 0)
            return false;
        off += (size_t)w;
    }
    return true;
}

ssize_t lg_h1_fd_recv(int fd, void *p, size_t n)
{
    ssize_t r;
    do
        r = lg_sock_real_get()->recv(fd, p, n, 0);
    while (r < 0 && (errno == EINTR || ((errno == EAGAIN || errno == EWOULDBLOCK) && lg_fd_wait(fd, false))));
    return r;
}

static bool plain_send(void *io, const void *p, size_t n) { return lg_h1_fd_send(*(int *)io, p, n); }
static ssize_t plain_recv(void *io, void *p, size_t n) { return lg_h1_fd_recv(*(int *)io, p, n); }

const lg_h1_io lg_h1_plain_io = {.send = plain_send, .recv = plain_recv};
