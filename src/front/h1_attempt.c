/* One attempt on the provider side of an HTTP/1.1 connection (see h1_conn_internal.h): where it goes (the
 * host's own connection, or llmgate's own to another provider's target), the request sent as the engine's
 * step says, and its response read (and, once committed, relayed) as far as the connection allows. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "front/h1_conn_internal.h"
#include "front/h1_target.h"
#include "llmgate/clock.h"
#include "llmgate/log.h"

int64_t lg_h1_attempt_due(const lg_h1_conn *c)
{
    if (!c->watched)
        return INT64_MAX;
    int64_t limit = c->heard ? c->cfg->retry.idle_timeout_ms : c->cfg->retry.attempt_timeout_ms;
    return limit > 0 ? c->heard_ms + limit : INT64_MAX;
}

int64_t lg_h1_open_until(const lg_h1_conn *c, int64_t from_ms)
{
    int64_t limit = c->cfg->retry.attempt_timeout_ms;
    return limit > 0 ? from_ms + limit : 0;
}

/* How an attempt fails whose connection could not be opened by until (lg_h1_open_until): timed out when
 * its time came (the provider's failure, sent on at once as any attempt that timed out), else retryable. */
static lg_h1_attempt_rc open_failed(int64_t until)
{
    return until > 0 && lg_now_ms() >= until ? LG_H1A_TIMED_OUT : LG_H1A_RETRYABLE;
}

/* c->until_ms resolved: LG_H1_UNTIL_HOST is now when the host's socket has a time limit of its own. */
static int64_t host_until(const lg_h1_conn *c)
{
    if (c->until_ms != LG_H1_UNTIL_HOST)
        return c->until_ms;
    return lg_h1_sock_timeout_ms(c, SO_RCVTIMEO) > 0 || lg_h1_sock_timeout_ms(c, SO_SNDTIMEO) > 0 ? lg_now_ms()
                                                                                                 : 0;
}

/* The next piece of the response: as lg_h1_resp_step, waiting on LG_H1R_AGAIN unless driven (then
 * LG_H1R_AGAIN is returned); *drive: see LG_H1_DRIVE_ASK. The wait ends at the host's until_ms (LG_H1R_AGAIN,
 * c->wait_errno EAGAIN) or at the attempt's own time limit (LG_H1R_FAILED, c->timed_out); a signal the host
 * takes: LG_H1R_INTR, c->wait_errno EINTR. */
static lg_h1r_step resp_step(lg_h1_conn *c, int *drive)
{
    for (;;) {
        lg_h1r_step s = lg_h1_resp_step(&c->resp, c->wio, c->wctx);
        if (s != LG_H1R_AGAIN && s != LG_H1R_INTR && c->watched) {
            c->heard = true;
            c->heard_ms = lg_now_ms();
        }
        c->wait_errno = s == LG_H1R_INTR ? EINTR : EAGAIN;
        if (s != LG_H1R_AGAIN)
            return s;
        if (*drive == LG_H1_DRIVE_ASK)
            *drive = lg_h1_driven(c);
        int64_t due = lg_h1_attempt_due(c);
        if (*drive && lg_now_ms() >= due) {
            c->timed_out = true;
            return LG_H1R_FAILED;
        }
        if (*drive)
            return s;
        short ev = 0;
        int fd = c->wio->wait ? c->wio->wait(c->wctx, &ev) : -1;
        if (fd < 0)
            return LG_H1R_FAILED;
        int64_t host = host_until(c), until = host > 0 && host < due ? host : due;
        lg_wait_rc w = c->host->wait_fd(fd, ev & POLLOUT, until == INT64_MAX ? 0 : until);
        if (w == LG_WAIT_TIMEOUT && until == due) {
            c->timed_out = true;
            return LG_H1R_FAILED;
        }
        if (w == LG_WAIT_TIMEOUT)
            return LG_H1R_AGAIN;
        if (w == LG_WAIT_INTR) {
            c->wait_errno = EINTR;
            return LG_H1R_INTR;
        }
        if (w != LG_WAIT_READY)
            return LG_H1R_FAILED;
    }
}

lg_h1_attempt_rc lg_h1_attempt_read(lg_h1_conn *c, int drive)
{
    for (;;) {
        lg_h1r_step s = resp_step(c, &drive);
        if (s == LG_H1R_AGAIN || s == LG_H1R_INTR) /* driven, the host's until_ms, or a signal: parked */
            return LG_H1A_PENDING;
        if (LG_UNLIKELY(c->timed_out)) {
            c->dead = true; /* the rest of that answer may still come on the wire */
            return LG_H1A_TIMED_OUT;
        }
        if (s == LG_H1R_DONE) {
            c->dead = !c->resp.keep_alive;
            c->served = true;
            return lg_relay_committed(&c->relay) ? LG_H1A_ENDED : LG_H1A_RESPONSE;
        }
        if (s == LG_H1R_STOPPED) {
            c->dead = true; /* the rest of that response is still on the wire */
            return c->relay.host_refused ? LG_H1A_FATAL : LG_H1A_RESPONSE;
        }
        if (s != LG_H1R_MORE) {
            c->dead = true;
            return lg_relay_committed(&c->relay) ? LG_H1A_COMMITTED
                   : c->served && !c->resp.got_any ? LG_H1A_STALE
                                                   : LG_H1A_RETRYABLE;
        }
        if (lg_relay_committed(&c->relay)) {
            c->watched = false; /* the host has its answer's start: no attempt to abandon any more */
            return LG_H1A_COMMITTED;
        }
    }
}

void lg_h1_leave_target(lg_h1_conn *c)
{
    if (c->plain_fd >= 0)
        c->host->close(c->plain_fd);
    c->plain_fd = -1;
    if (c->own_tls)
        c->host->own_tls_close(c->own_tls);
    c->own_tls = NULL;
    c->wio = c->io;
    c->wctx = c->ioctx;
    c->dead = c->own_dead;
    c->served = c->own_served;
    c->at = NULL;
}

/* Points the provider side at p (NULL: the host's own provider), over a new connection when it goes
 * elsewhere or is closed, opened by until (lg_h1_open_until). LG_H1A_RESPONSE when it is ready, else how
 * the attempt fails. */
static lg_h1_attempt_rc aim(lg_h1_conn *c, const lg_provider *p, int64_t until)
{
    if (c->at && (p != c->at || c->dead))
        lg_h1_leave_target(c);
    if (p == c->at) {
        if (c->dead && !c->io->reopen(c->ioctx, NULL, until))
            return open_failed(until);
        if (c->dead)
            c->served = false;
        c->dead = false;
        return LG_H1A_RESPONSE;
    }
    lg_h1_target t;
    if (!lg_h1_target_of(p, &t))
        return LG_H1A_FATAL;
    bool own_dead = c->dead, own_served = c->served;
    bool reopened = t.tls && c->io->tls; /* the host's TLS transport reaches it, with the host's trust */
    if (reopened) {
        if (!c->io->reopen(c->ioctx, &t, until)) {
            c->dead = true; /* the transport's own connection may be gone too */
            return open_failed(until);
        }
    } else if (t.tls) { /* a plain connection's https target: over a TLS session of llmgate's own */
        if (!c->host->own_tls_open) {
            lg_log(LG_LOG_DEBUG, "[%s] %s: an https target cannot be reached from this plain connection",
                   c->prov->name, p->name);
            return LG_H1A_FATAL;
        }
        if (!(c->own_tls = c->host->own_tls_open(&t, until)))
            return open_failed(until);
        c->wio = c->host->own_tls_io;
        c->wctx = c->own_tls;
    } else {
        if ((c->plain_fd = c->host->target_socket(&t, false, until)) < 0)
            return open_failed(until);
        c->wio = c->host->plain_io;
        c->wctx = &c->plain_fd;
    }
    c->own_dead = own_dead || reopened; /* a reopened TLS transport took the host's connection */
    c->own_served = own_served;
    c->at = p;
    c->dead = c->served = false;
    return LG_H1A_RESPONSE;
}

lg_h1_attempt_rc lg_h1_attempt(lg_h1_conn *c, const lg_step *st, bool drive_async)
{
    const lg_provider *p = st && st->prov && st->prov != c->prov ? st->prov : NULL;
    const lg_provider *to = p ? p : c->prov;
    const lg_translation *tr = st ? st->tr : NULL;
    if (p && !st->key)
        return LG_H1A_FATAL; /* another provider only ever gets a key of its own */
    if (!lg_attempt_tr_start(&c->tr, c->prov->dialect, to->dialect, tr))
        return LG_H1A_FATAL;
    /* one deadline from the attempt's start for its open, its send and its answer's first byte (heard_ms) */
    int64_t began = lg_now_ms(), until = lg_h1_open_until(c, began);
    lg_h1_attempt_rc aimed = aim(c, p, until);
    if (aimed != LG_H1A_RESPONSE)
        return aimed;
    lg_h1_target t;
    const char *host_path = tr ? tr->path : c->req.url; /* translated: the target's own path */
    char *path = p && host_path ? lg_h1_target_path(p, host_path) : NULL;
    lg_h1_render o = {.key = st ? st->key : NULL, .style = to->auth, .restyle = p != NULL, .target = path,
                      .body = st ? st->body : NULL, .body_len = st ? st->body_len : 0,
                      .extra = tr ? tr->header : NULL, .json = tr != NULL};
    if (p && (!path || !lg_h1_target_of(p, &t))) {
        free(path);
        return LG_H1A_FATAL;
    }
    o.host = p ? t.authority : NULL;
    size_t len = 0;
    char *wire = lg_h1_req_render(&c->req, &o, &len);
    free(path);
    if (!wire)
        return LG_H1A_FATAL;
    bool sent = c->wio->send(c->wctx, wire, len, until);
    explicit_bzero(wire, len);
    free(wire);
    if (!sent) { /* the send (or a new connection's handshake, finished in it) may have timed out */
        c->dead = true;
        lg_h1_attempt_rc failed = open_failed(until);
        return failed == LG_H1A_RETRYABLE && c->served ? LG_H1A_STALE : failed;
    }
    c->watched = st && (c->cfg->retry.attempt_timeout_ms > 0 || c->cfg->retry.idle_timeout_ms > 0);
    c->heard = c->timed_out = false;
    c->heard_ms = c->watched ? began : 0;
    lg_capture_reset(&c->cap);
    lg_relay_sink sink = lg_h1_host_sink(c);
    lg_relay_start(&c->relay, &c->cap, to->dialect, to->boundary, &sink);
    /* a whole translated answer is translated at delivery: never let it through untranslated */
    c->relay.pass_over = c->tr.on ? SIZE_MAX : (size_t)c->cfg->max_held_body;
    lg_h1_resp_start(&c->resp, &c->cap, &c->relay, c->head);
    return lg_h1_attempt_read(c, drive_async ? LG_H1_DRIVE_ASK : 0);
}

bool lg_h1_stream_next(lg_h1_conn *c, int *drive)
{
    lg_h1r_step s = resp_step(c, drive);
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
