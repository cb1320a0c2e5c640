/* HTTP/1.1 connections (see h1_conn.h): the connection's life, the host's writes collected into requests
 * (each handed to the exchange driver, h1_exchange.c), what the host reads, and the release of a
 * connection llmgate cannot follow. */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <stdlib.h>
#include <string.h>

#include "front/h1_conn.h"
#include "front/h1_conn_internal.h"
#include "llmgate/boundary.h"
#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "llmgate/ungated.h"

#define HEAD_ROOM 65536 /* a request is held when its body fits hold.max_body_bytes and its head this */

lg_h1_conn *lg_h1_new(const lg_front_host *host, const lg_provider *const *provs, size_t n, const lg_h1_io *io,
                      void *ioctx)
{
    lg_h1_conn *c = n && n <= LG_H1_PROVS ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
    c->host = host;
    c->cfg = host->config();
    c->store = host->store();
    c->prov = provs[0];
    memcpy(c->provs, provs, n * sizeof *provs);
    c->n_provs = n;
    c->io = c->wio = io;
    c->ioctx = c->wctx = ioctx;
    c->plain_fd = -1;
    c->watch_fd = -1;
    lg_h1_req_init(&c->req);
    return c;
}

void lg_h1_free(lg_h1_conn *c)
{
    if (!c)
        return;
    c->host->unwatch(c->watch_fd, c);
    lg_exchange_free(c->x);
    lg_exchange_free(c->wx);
    lg_h1_req_free(&c->req);
    lg_h1_resp_free(&c->resp);
    lg_relay_free(&c->relay);
    lg_capture_free(&c->cap);
    lg_attempt_tr_free(&c->tr);
    if (c->plain_fd >= 0)
        c->host->close(c->plain_fd);
    if (c->own_tls)
        c->host->own_tls_close(c->own_tls);
    free(c->out);
    free(c);
}

bool lg_h1_released(const lg_h1_conn *c) { return c->released; }

size_t lg_h1_pending(const lg_h1_conn *c) { return c->out_len - c->out_off; }

bool lg_h1_passed(const lg_h1_conn *c) { return c->released && lg_h1_pending(c) == 0; }

bool lg_h1_ended(const lg_h1_conn *c) { return c->ended; }

int lg_h1_nonblocking_fd(const lg_h1_conn *c)
{
    int fd = c->io->fd ? c->io->fd(c->ioctx) : -1;
    int fl = fd < 0 ? -1 : c->host->fd_status_flags ? c->host->fd_status_flags(fd) : fcntl(fd, F_GETFL);
    return fl >= 0 && (fl & O_NONBLOCK) ? fd : -1;
}

int64_t lg_front_fd_timeout_ms(int fd, int opt)
{
    int saved = errno;
    struct timeval tv = {0};
    socklen_t len = sizeof tv;
    if (fd < 0 || getsockopt(fd, SOL_SOCKET, opt, &tv, &len) != 0 || len != sizeof tv || tv.tv_sec < 0)
        tv = (struct timeval){0};
    errno = saved;
    return (int64_t)tv.tv_sec * 1000 + ((int64_t)tv.tv_usec + 999) / 1000;
}

int64_t lg_h1_sock_timeout_ms(const lg_h1_conn *c, int opt)
{
    int fd = c->io->fd ? c->io->fd(c->ioctx) : -1;
    if (fd < 0)
        return 0;
    return c->host->sock_timeout_ms ? c->host->sock_timeout_ms(fd, opt) : lg_front_fd_timeout_ms(fd, opt);
}

bool lg_h1_driven(const lg_h1_conn *c) { return c->wio->wait && lg_h1_nonblocking_fd(c) >= 0; }

void lg_h1_watch_host(lg_h1_conn *c)
{
    int fd = c->io->fd ? c->io->fd(c->ioctx) : -1;
    if (fd >= 0 && c->watch_fd != fd) {
        c->host->unwatch(c->watch_fd, c);
        c->watch_fd = fd;
        c->host->watch(fd, c);
    }
}

void lg_h1_request_done(lg_h1_conn *c) { lg_h1_req_reset(&c->req); }

/* Why bytes that were not a request we could follow (INVALID from lg_h1_req_feed) go out, first being the
 * first of them: NOT_HTTP1 for a TLS handshake record (which the TLS hooks follow) is not reported. */
static lg_ungated_cause invalid_cause(const lg_h1_conn *c, const char *first, size_t n)
{
    static const char preface[] = "PRI * HTTP/2.0";
    if (n >= sizeof preface - 1 && !memcmp(first, preface, sizeof preface - 1))
        return LG_UNGATED_HTTP2;
    return c->req.too_large ? LG_UNGATED_TOO_LARGE : c->req.oom ? LG_UNGATED_NO_ROOM : LG_UNGATED_NOT_HTTP1;
}

/* Stops following: the held request bytes and p go out untouched, over the host's own connection; said on
 * stderr and counted (lg_ungated) for cause, or, for LG_UNGATED_CAUSES, for what invalid_cause finds. */
static ssize_t release(lg_h1_conn *c, const void *p, size_t n, lg_ungated_cause cause)
{
    c->released = true;
    if (c->at) { /* the provider side went elsewhere: back to the host's own provider first */
        lg_h1_leave_target(c);
        if (c->dead && !c->io->detached && c->io->reopen(c->ioctx, NULL, lg_h1_open_until(c, lg_now_ms())))
            c->dead = false;
    }
    const char *first = c->req.raw_len ? c->req.raw : p;
    size_t first_len = c->req.raw_len ? c->req.raw_len : n;
    if (c->req.raw_len + n > 0 && first[0] != 0x16) { /* a TLS handshake record: the TLS hooks follow it */
        if (cause == LG_UNGATED_CAUSES)
            cause = invalid_cause(c, first, first_len);
        lg_log(LG_LOG_DEBUG, "[%s] connection not followed (%s): passed through", c->prov->name,
               lg_ungated_word(cause));
        lg_ungated(c->store, c->prov->name, cause);
    }
    bool ok = (c->req.raw_len == 0 || c->io->send(c->ioctx, c->req.raw, c->req.raw_len, 0)) &&
              (n == 0 || c->io->send(c->ioctx, p, n, 0));
    lg_h1_req_free(&c->req);
    return ok ? (ssize_t)n : -1;
}

/* A whole request is in: the connection's provider its Host names (one we gate), or NULL. */
static const lg_provider *owner(const lg_h1_conn *c)
{
    const char *host = lg_h1_req_header(&c->req, "host");
    if (!host || !c->cfg)
        return NULL;
    char name[256];
    size_t len = strcspn(host, host[0] == '[' ? "]" : ":");
    if (host[0] == '[')
        host++, len = len ? len - 1 : 0;
    if (len >= sizeof name)
        return NULL;
    memcpy(name, host, len);
    name[len] = '\0';
    const lg_provider *p = lg_config_match_host(c->cfg, name);
    for (size_t i = 0; p && i < c->n_provs; i++)
        if (c->provs[i] == p)
            return p;
    return NULL;
}

ssize_t lg_h1_write(lg_h1_conn *c, const void *p, size_t n)
{
    const char *b = p;
    size_t off = 0;
    if (c->released) /* still held only while the host reads what llmgate holds for it */
        return n == 0 || c->io->send(c->ioctx, p, n, 0) ? (ssize_t)n : -1;
    lg_h1_land_inflight(c);
    if (c->wx) { /* more bytes while the request waits: the exchange is cancelled, all goes out as it came */
        lg_h1_cancel_parked(c);
        return release(c, p, n, LG_UNGATED_PIPELINED);
    }
    if (c->req.raw_len == 0 && (c->x || lg_h1_pending(c) > 0)) /* a new request before the host read its
                                                                 * answer: pipelining */
        return release(c, p, n, LG_UNGATED_PIPELINED);
    while (off < n) {
        size_t used = 0;
        size_t max = (size_t)c->cfg->max_held_body + HEAD_ROOM;
        lg_h1_state s = lg_h1_req_feed(&c->req, b + off, n - off, max, &used);
        if (s == LG_H1_INVALID)
            return release(c, b + off, n - off, LG_UNGATED_CAUSES) < 0 ? -1 : (ssize_t)n;
        off += used;
        if (s == LG_H1_MORE) {
            if (c->req.expect_continue && c->req.headers_done && !c->continued) {
                /* llmgate sends the whole request at once: the host may send its body now */
                c->continued = true;
                static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
                if (!lg_h1_out_add(c, cont, sizeof cont - 1))
                    return release(c, b + off, n - off, LG_UNGATED_NO_ROOM) < 0 ? -1 : (ssize_t)n;
                lg_h1_watch_host(c);
            }
            break;
        }
        c->continued = false;
        c->ended = false;
        const lg_provider *prov = owner(c);
        if (!prov)
            return release(c, b + off, n - off, LG_UNGATED_OTHER_HOST) < 0 ? -1 : (ssize_t)n;
        c->prov = prov;
        c->head = c->req.p.method == HTTP_HEAD;
        if (c->prov->dialect == LG_DIALECT_NONE)
            lg_h1_run_paced(c);
        else
            lg_h1_run_exchange(c);
        if (off == n)
            continue;
        lg_h1_land_inflight(c); /* a pipelined request follows */
        if (c->x || c->wx || lg_h1_pending(c) > 0) {
            lg_h1_cancel_parked(c); /* a parked request goes out as it came, with what follows it */
            return release(c, b + off, n - off, LG_UNGATED_PIPELINED) < 0 ? -1 : (ssize_t)n;
        }
    }
    return (ssize_t)n;
}

ssize_t lg_h1_read(lg_h1_conn *c, void *p, size_t n, bool peek)
{
    int64_t due;
    if ((c->wx || (c->x && lg_h1_pending(c) == 0)) && lg_h1_nonblocking_fd(c) < 0) {
        int64_t timeout = lg_h1_sock_timeout_ms(c, SO_RCVTIMEO);
        c->until_ms = timeout > 0 ? lg_now_ms() + timeout : 0; /* a stream's next piece is waited as long */
        while (c->wx && !lg_h1_resume(c, true, c->until_ms))
            if (errno) /* EINTR: the host's handler runs, its read comes back here; EAGAIN: its timeout */
                return -1;
    }
    if (c->wx && lg_h1_ready(c, &due) == LG_H1_WAITING) {
        errno = EAGAIN;
        return -1;
    }
    int drive = LG_H1_DRIVE_ASK; /* asked when a stream's next piece is not there yet */
    while (lg_h1_pending(c) == 0 && c->x)
        if (!lg_h1_stream_next(c, &drive)) {
            /* the next piece is not there yet: the readiness hooks wait for it; or a signal the blocking
             * host takes interrupted the wait: its handler runs, its read comes back here */
            errno = c->wait_errno;
            return -1;
        }
    size_t have = lg_h1_pending(c);
    if (have > 0) {
        size_t k = have < n ? have : n;
        if (k < have && c->x && c->prov->boundary != LG_BOUNDARY_NONE) {
            /* a stream read in small pieces still gets whole UTF-8 characters */
            size_t whole = lg_utf8_complete_prefix(c->out + c->out_off, k);
            k = whole ? whole : k;
        }
        memcpy(p, c->out + c->out_off, k);
        if (!peek)
            c->out_off += k;
        return (ssize_t)k;
    }
    if (c->host_errno) {
        errno = c->host_errno;
        if (!peek)
            c->host_errno = 0;
        c->dead = true;
        return -1;
    }
    if (c->dead && c->io->end && !peek)
        c->io->end(c->ioctx);
    return c->dead && !c->io->detached ? 0 : LG_H1_PASS;
}
