/* HTTP/1.1 connections through the exchange engine (see h1_conn.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/fd_wait.h"
#include "hook/fd_watch.h"
#include "hook/h1_conn.h"
#include "hook/h1_conn_internal.h"
#include "hook/h1_request.h"
#include "hook/h1_response.h"
#include "hook/h1_plain.h"
#include "hook/h1_translate.h"
#include "hook/runtime.h"
#include "hook/sock_real.h"
#include "llmgate/boundary.h"
#include "llmgate/clock.h"
#include "llmgate/engine.h"
#include "llmgate/log.h"

#define HEAD_ROOM 65536 /* a request is held when its body fits hold.max_body_bytes and its head this */
#define KEY_MAX 1024

lg_h1_conn *lg_h1_new(const lg_provider *const *provs, size_t n, const lg_h1_io *io, void *ioctx)
{
    lg_h1_conn *c = n && n <= LG_H1_PROVS ? calloc(1, sizeof *c) : NULL;
    if (!c)
        return NULL;
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
    lg_fd_unwatch(c->watch_fd, c);
    lg_exchange_free(c->x);
    lg_exchange_free(c->wx);
    lg_h1_req_free(&c->req);
    lg_h1_resp_free(&c->resp);
    lg_relay_free(&c->relay);
    lg_capture_free(&c->cap);
    lg_attempt_tr_free(&c->tr);
    if (c->plain_fd >= 0)
        lg_sock_real_get()->close(c->plain_fd);
    free(c->out);
    free(c);
}

bool lg_h1_released(const lg_h1_conn *c) { return c->released; }

size_t lg_h1_pending(const lg_h1_conn *c) { return c->out_len - c->out_off; }

bool lg_h1_passed(const lg_h1_conn *c) { return c->released && lg_h1_pending(c) == 0; }

bool lg_h1_ended(const lg_h1_conn *c) { return c->ended; }

static void leave(lg_h1_conn *c);

/* Stops following: the held request bytes and p go out untouched, over the host's own connection. */
static ssize_t release(lg_h1_conn *c, const void *p, size_t n)
{
    c->released = true;
    if (c->at) { /* the provider side went elsewhere: back to the host's own provider first */
        leave(c);
        if (c->dead && !c->io->detached && c->io->reopen(c->ioctx, NULL))
            c->dead = false;
    }
    const char *first = c->req.raw_len ? c->req.raw : p;
    if (c->req.raw_len + n > 0 && first[0] != 0x16) /* a TLS handshake record: the TLS hooks follow it */
        lg_log(LG_LOG_DEBUG, "[%s] connection not followed (not a plain HTTP/1.1 request we can hold): passed through",
           c->prov->name);
    bool ok = (c->req.raw_len == 0 || c->io->send(c->ioctx, c->req.raw, c->req.raw_len)) &&
              (n == 0 || c->io->send(c->ioctx, p, n));
    lg_h1_req_free(&c->req);
    return ok ? (ssize_t)n : -1;
}

typedef enum {
    ATTEMPT_RESPONSE,
    ATTEMPT_COMMITTED,
    ATTEMPT_ENDED, /* committed, and its end read in the same step: the whole response went to the host */
    ATTEMPT_RETRYABLE,
    ATTEMPT_STALE, /* a kept-alive provider side was closed before any byte of the answer */
    ATTEMPT_FATAL,
    ATTEMPT_PENDING,
} attempt_rc;

/* The host's descriptor when it is non-blocking (the host then polls it), else -1. */
static int nonblocking_fd(const lg_h1_conn *c)
{
    int fd = c->io->fd ? c->io->fd(c->ioctx) : -1;
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    return fl >= 0 && (fl & O_NONBLOCK) ? fd : -1;
}

/* True when llmgate's own provider I/O is driven from the host's readiness waits instead of blocking:
 * a transport that never blocks, under a non-blocking host. */
static bool driven(const lg_h1_conn *c) { return c->wio->wait && nonblocking_fd(c) >= 0; }

/* The next piece of the response: as lg_h1_resp_step, waiting on LG_H1R_AGAIN unless driven (then
 * LG_H1R_AGAIN is returned). */
static lg_h1r_step resp_step(lg_h1_conn *c, bool drive_async)
{
    for (;;) {
        lg_h1r_step s = lg_h1_resp_step(&c->resp, c->wio, c->wctx);
        if (s == LG_H1R_INTR)
            return s;
        short ev = 0;
        int fd = s == LG_H1R_AGAIN && !drive_async && c->wio->wait ? c->wio->wait(c->wctx, &ev) : -1;
        if (s != LG_H1R_AGAIN || drive_async)
            return s;
        if (fd < 0 || !lg_fd_wait(fd, ev & POLLOUT))
            return LG_H1R_FAILED;
    }
}

/* Reads the response of the attempt in flight up to its end or its commit; ATTEMPT_PENDING when driven
 * and nothing more is there yet. */
static attempt_rc attempt_read(lg_h1_conn *c, bool drive_async)
{
    for (;;) {
        lg_h1r_step s = resp_step(c, drive_async);
        if (s == LG_H1R_AGAIN || s == LG_H1R_INTR) /* driven, or a signal the host takes: parked */
            return ATTEMPT_PENDING;
        if (s == LG_H1R_DONE) {
            c->dead = !c->resp.keep_alive;
            c->served = true;
            return lg_relay_committed(&c->relay) ? ATTEMPT_ENDED : ATTEMPT_RESPONSE;
        }
        if (s == LG_H1R_STOPPED) {
            c->dead = true; /* the rest of that response is still on the wire */
            return c->relay.host_refused ? ATTEMPT_FATAL : ATTEMPT_RESPONSE;
        }
        if (s != LG_H1R_MORE) {
            c->dead = true;
            return lg_relay_committed(&c->relay) ? ATTEMPT_COMMITTED
                   : c->served && !c->resp.got_any ? ATTEMPT_STALE
                                                   : ATTEMPT_RETRYABLE;
        }
        if (lg_relay_committed(&c->relay))
            return ATTEMPT_COMMITTED;
    }
}

/* The provider side goes back to the host's own connection: llmgate's plain one closed (the host's as it
 * was), or, after a TLS target that took the transport's connection, the host's own to be reopened. */
static void leave(lg_h1_conn *c)
{
    if (c->plain_fd >= 0)
        lg_sock_real_get()->close(c->plain_fd);
    c->plain_fd = -1;
    c->wio = c->io;
    c->wctx = c->ioctx;
    c->dead = c->own_dead;
    c->served = c->own_served;
    c->at = NULL;
}

/* Points the provider side at p (NULL: the host's own provider), over a new connection when it goes
 * elsewhere or is closed. ATTEMPT_RESPONSE when it is ready, else how the attempt fails. */
static attempt_rc aim(lg_h1_conn *c, const lg_provider *p)
{
    if (c->at && (p != c->at || c->dead))
        leave(c);
    if (p == c->at) {
        if (c->dead && !c->io->reopen(c->ioctx, NULL))
            return ATTEMPT_RETRYABLE;
        if (c->dead)
            c->served = false;
        c->dead = false;
        return ATTEMPT_RESPONSE;
    }
    lg_h1_target t;
    if (!lg_h1_target_of(p, &t))
        return ATTEMPT_FATAL;
    bool own_dead = c->dead, own_served = c->served;
    if (t.tls && !c->io->tls) {
        lg_log(LG_LOG_DEBUG, "[%s] %s: an https target cannot be reached from a plain connection", c->prov->name,
               p->name);
        return ATTEMPT_FATAL;
    }
    if (t.tls && !c->io->reopen(c->ioctx, &t)) {
        c->dead = true; /* the transport's own connection may be gone too */
        return ATTEMPT_RETRYABLE;
    }
    if (!t.tls && (c->plain_fd = lg_h1_target_socket(&t, false)) < 0)
        return ATTEMPT_RETRYABLE;
    if (!t.tls) {
        c->wio = &lg_h1_plain_io;
        c->wctx = &c->plain_fd;
    }
    c->own_dead = own_dead || t.tls; /* a TLS target took the transport's connection */
    c->own_served = own_served;
    c->at = p;
    c->dead = c->served = false;
    return ATTEMPT_RESPONSE;
}

/* Sends the request as step st says (NULL: the host's own request, credentials and provider) and reads
 * the response up to its end or its commit (drive_async, when the provider side is driven: as far as it
 * is there, ATTEMPT_PENDING for the rest). */
static attempt_rc attempt(lg_h1_conn *c, const lg_step *st, bool drive_async)
{
    const lg_provider *p = st && st->prov && st->prov != c->prov ? st->prov : NULL;
    const lg_provider *to = p ? p : c->prov;
    const lg_translation *tr = st ? st->tr : NULL;
    if (p && !st->key)
        return ATTEMPT_FATAL; /* another provider only ever gets a key of its own */
    if (!lg_attempt_tr_start(&c->tr, c->prov->dialect, to->dialect, tr))
        return ATTEMPT_FATAL;
    attempt_rc aimed = aim(c, p);
    if (aimed != ATTEMPT_RESPONSE)
        return aimed;
    lg_h1_target t;
    const char *host_path = tr ? tr->path : c->req.url; /* translated: the target's own path */
    char *path = p && host_path ? lg_h1_target_path(p, host_path) : NULL;
    lg_h1_render o = {.key = st ? st->key : NULL, .style = to->auth, .restyle = p != NULL, .target = path,
                      .body = st ? st->body : NULL, .body_len = st ? st->body_len : 0,
                      .extra = tr ? tr->header : NULL, .json = tr != NULL};
    if (p && (!path || !lg_h1_target_of(p, &t))) {
        free(path);
        return ATTEMPT_FATAL;
    }
    o.host = p ? t.authority : NULL;
    size_t len = 0;
    char *wire = lg_h1_req_render(&c->req, &o, &len);
    free(path);
    if (!wire)
        return ATTEMPT_FATAL;
    bool sent = c->wio->send(c->wctx, wire, len);
    explicit_bzero(wire, len);
    free(wire);
    if (!sent) {
        c->dead = true;
        return c->served ? ATTEMPT_STALE : ATTEMPT_RETRYABLE;
    }
    lg_capture_reset(&c->cap);
    lg_relay_sink sink = lg_h1_host_sink(c);
    lg_relay_start(&c->relay, &c->cap, to->dialect, to->boundary, &sink);
    /* a whole translated answer is translated at delivery: never let it through untranslated */
    c->relay.pass_over = c->tr.on ? SIZE_MAX : (size_t)lg_runtime_get()->cfg->max_held_body;
    lg_h1_resp_start(&c->resp, &c->cap, &c->relay, c->head);
    return attempt_read(c, drive_async && driven(c));
}

/* The host may poll for what llmgate answers (a non-blocking host always does; a blocking one too when it
 * keeps a read timeout with select or poll, as wget and Perl's HTTP::Tiny do): its descriptor's readiness
 * is ours to report, whatever its mode. */
static void watch_host(lg_h1_conn *c)
{
    int fd = c->io->fd ? c->io->fd(c->ioctx) : -1;
    if (fd >= 0 && c->watch_fd != fd) {
        lg_fd_unwatch(c->watch_fd, c);
        c->watch_fd = fd;
        lg_fd_watch(fd, c);
    }
}

/* The request is answered (or its stream committed): ready for the next one. */
static void request_done(lg_h1_conn *c) { lg_h1_req_reset(&c->req); }

/* Parks exchange x at step on a non-blocking host: until step.at_ms, or (inflight) until its attempt's
 * response is in. */
static void park(lg_h1_conn *c, lg_exchange *x, lg_step step, bool inflight)
{
    c->wx = x;
    c->wstep = step;
    c->inflight = inflight;
    watch_host(c);
}

/* Tells the engine how the attempt ended (rc); false when its stream was committed to the host (c->x). */
static bool settle(lg_h1_conn *c, lg_exchange *x, attempt_rc rc, lg_step *step)
{
    if (rc == ATTEMPT_COMMITTED) {
        c->x = x; /* the host reads the rest as it comes; the engine hears at its end */
        request_done(c);
        return false;
    }
    if (rc == ATTEMPT_RESPONSE || rc == ATTEMPT_ENDED) {
        lg_response_view v;
        if (rc == ATTEMPT_ENDED)
            lg_h1_stream_end(c);
        lg_capture_view(&c->cap, &v);
        v.delivered = rc == ATTEMPT_ENDED;
        lg_exchange_on_response(x, &v, lg_now_ms(), step);
    } else {
        lg_transport_failure f = rc == ATTEMPT_STALE ? LG_ATTEMPT_STALE
                                 : rc == ATTEMPT_RETRYABLE ? LG_ATTEMPT_RETRYABLE
                                                           : LG_ATTEMPT_FATAL;
        lg_exchange_on_transport_error(x, f, lg_now_ms(), step);
    }
    return true;
}

/* Drives exchange x from step until the host has its answer (or a committed stream); a wait on a
 * non-blocking host parks the exchange instead of sleeping (c->wx), and so does an attempt whose
 * response is not in yet when the transport is driven. */
static void drive(lg_h1_conn *c, lg_exchange *x, lg_step step)
{
    while (step.kind != LG_STEP_DONE) {
        if (step.kind == LG_STEP_WAIT) {
            int64_t ms = step.at_ms - lg_now_ms();
            if (ms > 0 && (nonblocking_fd(c) >= 0 || !lg_sleep_until(step.at_ms))) {
                park(c, x, step, false); /* a blocking host's signal handler runs when we return */
                return;
            }
            lg_exchange_on_timer(x, lg_now_ms(), &step);
            continue;
        }
        attempt_rc rc = attempt(c, &step, true);
        if (rc == ATTEMPT_PENDING) {
            park(c, x, step, true);
            return;
        }
        if (!settle(c, x, rc, &step))
            return;
    }
    lg_h1_deliver(c, &step.result);
    lg_exchange_free(x);
    request_done(c);
}

/* For routes: the request carries header name. */
static bool has_header(const void *req, const char *name) { return lg_h1_req_header(req, name) != NULL; }

/* Copies the request's X-Llmgate-Pin value into buf; false when it has none (or it does not fit). */
static bool find_pin(const lg_h1_conn *c, char *buf, size_t size)
{
    const char *v = lg_h1_req_header(&c->req, "x-llmgate-pin");
    size_t len = v ? strcspn(v += strspn(v, " \t"), " \t") : 0;
    if (!len || len >= size)
        return false;
    memcpy(buf, v, len);
    buf[len] = '\0';
    return true;
}

/* Runs the engine over the complete request (see drive): each attempt goes where its step says. */
static void run_exchange(lg_h1_conn *c)
{
    const lg_runtime *rt = lg_runtime_get();
    char host_key[KEY_MAX], pin[128];
    bool has_key = lg_h1_req_find_key(&c->req, host_key, sizeof host_key);
    lg_gate_request gr = {.cfg = rt->cfg, .prov = c->prov, .store = rt->store,
                          .host_key = has_key ? host_key : NULL, .replayable = true,
                          .body = c->req.body, .body_len = c->req.body_len,
                          .pin = find_pin(c, pin, sizeof pin) ? pin : NULL, .url = c->req.url, .reroutes = true,
                          .program = program_invocation_short_name, .has_header = has_header,
                          .header_ctx = &c->req};
    lg_step step;
    lg_exchange *x = lg_exchange_begin(&gr, lg_now_ms(), &step);
    explicit_bzero(host_key, sizeof host_key);
    watch_host(c);
    if (!x) {
        attempt_rc rc = attempt(c, NULL, false);
        while (rc == ATTEMPT_PENDING) /* a signal: no exchange to park, the answer is read on */
            rc = attempt_read(c, false);
        if (rc != ATTEMPT_RESPONSE)
            c->host_errno = ECONNRESET;
        lg_gate_result as_is = {.verdict = LG_GATE_DELIVER, .status = c->cap.status};
        lg_h1_deliver(c, &as_is);
        request_done(c);
        return;
    }
    drive(c, x, step);
}

/* Continues a parked exchange whose time came, or whose attempt in flight reads what is there; blocking
 * (a blocking host's exchange a signal parked in drive): sleeping until its time, reading its answer to
 * the end. False when it is parked again (driven: nothing more there yet; blocking: another signal). */
static bool resume(lg_h1_conn *c, bool blocking)
{
    lg_exchange *x = c->wx;
    lg_step step = c->wstep;
    if (c->inflight) {
        attempt_rc rc = attempt_read(c, !blocking);
        if (rc == ATTEMPT_PENDING)
            return false;
        c->wx = NULL;
        c->inflight = false;
        if (!settle(c, x, rc, &step))
            return true;
    } else {
        if (blocking && !lg_sleep_until(step.at_ms))
            return false;
        c->wx = NULL;
        lg_exchange_on_timer(x, lg_now_ms(), &step);
    }
    drive(c, x, step);
    return !c->wx;
}

static bool pump_stream(lg_h1_conn *c, bool drive_async);

/* The host writes again while an attempt is in flight on its own connection (pipelining): the attempt's
 * answer is read now, blocking, so that no answer nobody waits for is left on the connection; the exchange
 * goes on as far as it can without waiting (a WAIT parks it again, for the caller to cancel). */
static void land_inflight(lg_h1_conn *c)
{
    while (c->wx && c->inflight && !c->io->detached)
        resume(c, true);
}

lg_h1_readiness lg_h1_ready(lg_h1_conn *c, int64_t *due_ms)
{
    if (c->released)
        return LG_H1_IDLE;
    int saved = errno;
    if (c->wx && (c->inflight || c->wstep.at_ms <= lg_now_ms()))
        resume(c, false);
    while (!c->wx && c->x && lg_h1_pending(c) == 0 && driven(c) && pump_stream(c, true))
        ;
    errno = saved;
    if (c->wx || (c->x && lg_h1_pending(c) == 0 && driven(c))) {
        *due_ms = c->wx && !c->inflight ? c->wstep.at_ms : INT64_MAX;
        return LG_H1_WAITING;
    }
    if (lg_h1_pending(c) > 0 || c->host_errno || c->x || (c->dead && !c->io->detached))
        return LG_H1_READY;
    return LG_H1_IDLE;
}

int lg_h1_wait_fd(const lg_h1_conn *c, short *events)
{
    bool waits = !c->released && ((c->wx && c->inflight) || (!c->wx && c->x && lg_h1_pending(c) == 0));
    return waits && c->wio->wait ? c->wio->wait(c->wctx, events) : -1;
}

/* A plain host rule: admission, then the host's own request untouched; a refusal answered locally. */
static void run_paced(lg_h1_conn *c)
{
    const lg_runtime *rt = lg_runtime_get();
    lg_gate_request gr = {.cfg = rt->cfg, .prov = c->prov, .store = rt->store};
    lg_gate_result res;
    if (!lg_gate_admit(&gr, &res)) {
        lg_capture_reset(&c->cap);
        lg_h1_deliver(c, &res);
        request_done(c);
        return;
    }
    if (!c->io->send(c->ioctx, c->req.raw, c->req.raw_len))
        c->host_errno = errno ? errno : EPIPE;
    request_done(c);
}

/* A whole request is in: the connection's provider its Host names (one we gate), or NULL. */
static const lg_provider *owner(const lg_h1_conn *c)
{
    const char *host = lg_h1_req_header(&c->req, "host");
    const lg_runtime *rt = lg_runtime_get();
    if (!host || !rt->cfg)
        return NULL;
    char name[256];
    size_t len = strcspn(host, host[0] == '[' ? "]" : ":");
    if (host[0] == '[')
        host++, len = len ? len - 1 : 0;
    if (len >= sizeof name)
        return NULL;
    memcpy(name, host, len);
    name[len] = '\0';
    const lg_provider *p = lg_config_match_host(rt->cfg, name);
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
        return n == 0 || c->io->send(c->ioctx, p, n) ? (ssize_t)n : -1;
    land_inflight(c);
    if (c->wx) { /* more bytes while the request waits: the exchange is cancelled, all goes out as it came */
        lg_exchange_free(c->wx);
        c->wx = NULL;
        c->dead |= c->inflight; /* an attempt's response is still on the wire */
        c->inflight = false;
        return release(c, p, n);
    }
    if (c->req.raw_len == 0 && (c->x || lg_h1_pending(c) > 0)) /* a new request before the host read its
                                                                 * answer: pipelining */
        return release(c, p, n);
    while (off < n) {
        size_t used = 0;
        size_t max = (size_t)lg_runtime_get()->cfg->max_held_body + HEAD_ROOM;
        lg_h1_state s = lg_h1_req_feed(&c->req, b + off, n - off, max, &used);
        if (s == LG_H1_INVALID)
            return release(c, b + off, n - off) < 0 ? -1 : (ssize_t)n;
        off += used;
        if (s == LG_H1_MORE) {
            if (c->req.expect_continue && c->req.headers_done && !c->continued) {
                /* llmgate sends the whole request at once: the host may send its body now */
                c->continued = true;
                static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
                if (!lg_h1_out_add(c, cont, sizeof cont - 1))
                    return release(c, b + off, n - off) < 0 ? -1 : (ssize_t)n;
                watch_host(c);
            }
            break;
        }
        c->continued = false;
        c->ended = false;
        const lg_provider *prov = owner(c);
        if (!prov)
            return release(c, b + off, n - off) < 0 ? -1 : (ssize_t)n;
        c->prov = prov;
        c->head = c->req.p.method == HTTP_HEAD;
        if (c->prov->dialect == LG_DIALECT_NONE)
            run_paced(c);
        else
            run_exchange(c);
        if (off == n)
            continue;
        land_inflight(c); /* a pipelined request follows */
        if (c->x || c->wx || lg_h1_pending(c) > 0) {
            lg_exchange_free(c->wx); /* a parked request goes out as it came, with what follows it */
            c->wx = NULL;
            c->dead |= c->inflight;
            c->inflight = false;
            return release(c, b + off, n - off) < 0 ? -1 : (ssize_t)n;
        }
    }
    return (ssize_t)n;
}

/* Relays the next piece of a committed stream; at its end tells the engine. False (driven) when nothing
 * was there yet. */
static bool pump_stream(lg_h1_conn *c, bool drive_async)
{
    lg_h1r_step s = resp_step(c, drive_async);
    if (s == LG_H1R_AGAIN || s == LG_H1R_INTR)
        return false;
    if (s == LG_H1R_MORE)
        return true;
    if (s == LG_H1R_DONE) {
        c->dead = !c->resp.keep_alive;
        lg_h1_stream_end(c);
    } else {
        c->dead = true;
        lg_relay_finish(&c->relay);
        c->host_errno = ECONNRESET;
    }
    lg_response_view v;
    lg_capture_view(&c->cap, &v);
    v.delivered = true;
    lg_step step;
    lg_exchange_on_response(c->x, &v, lg_now_ms(), &step);
    lg_exchange_free(c->x);
    c->x = NULL;
    return true;
}

ssize_t lg_h1_read(lg_h1_conn *c, void *p, size_t n, bool peek)
{
    int64_t due;
    if (c->wx && nonblocking_fd(c) < 0 && !resume(c, true)) {
        errno = EINTR; /* the host's handler runs; its read comes back here */
        return -1;
    }
    if (c->wx && lg_h1_ready(c, &due) == LG_H1_WAITING) {
        errno = EAGAIN;
        return -1;
    }
    bool drive_async = driven(c);
    while (lg_h1_pending(c) == 0 && c->x)
        if (!pump_stream(c, drive_async)) {
            /* the next piece is not there yet: the readiness hooks wait for it; or a signal the blocking
             * host takes interrupted the wait: its handler runs, its read comes back here */
            errno = drive_async ? EAGAIN : EINTR;
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
