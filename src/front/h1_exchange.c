/* The exchange driver of an HTTP/1.1 connection (see h1_conn_internal.h): a whole request runs through the
 * engine, its attempts made as each step says (h1_attempt.c); a wait sleeps on a blocking host and parks
 * the exchange on a non-blocking one, and so does an attempt in flight on a transport that never blocks;
 * a parked exchange goes on from the host's reads and readiness waits. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "front/h1_conn_internal.h"
#include "llmgate/clock.h"
#include "llmgate/engine.h"
#include "llmgate/ungated.h"

#define KEY_MAX 1024

/* Parks exchange x at step on a non-blocking host: until step.at_ms, or (inflight) until its attempt's
 * response is in. */
static void park(lg_h1_conn *c, lg_exchange *x, lg_step step, bool inflight)
{
    c->wx = x;
    c->wstep = step;
    c->inflight = inflight;
    lg_h1_watch_host(c);
}

/* Tells the engine how the attempt ended (rc); false when its stream was committed to the host (c->x). */
static bool settle(lg_h1_conn *c, lg_exchange *x, lg_h1_attempt_rc rc, lg_step *step)
{
    if (rc == LG_H1A_COMMITTED) {
        c->x = x; /* the host reads the rest as it comes; the engine hears at its end */
        lg_h1_request_done(c);
        return false;
    }
    if (rc == LG_H1A_RESPONSE || rc == LG_H1A_ENDED) {
        lg_response_view v;
        if (rc == LG_H1A_ENDED)
            lg_h1_stream_end(c);
        lg_capture_view(&c->cap, &v);
        v.delivered = rc == LG_H1A_ENDED;
        lg_exchange_on_response(x, &v, lg_now_ms(), step);
    } else {
        lg_transport_failure f = rc == LG_H1A_STALE       ? LG_ATTEMPT_STALE
                                 : rc == LG_H1A_RETRYABLE ? LG_ATTEMPT_RETRYABLE
                                 : rc == LG_H1A_TIMED_OUT ? LG_ATTEMPT_TIMED_OUT
                                                          : LG_ATTEMPT_FATAL;
        lg_exchange_on_transport_error(x, f, lg_now_ms(), step);
    }
    return true;
}

/* Drives exchange x from step until the host has its answer (or a committed stream); a wait on a
 * non-blocking host parks the exchange instead of sleeping (c->wx), and so does a wait on a blocking one
 * whose socket has a timeout (SO_RCVTIMEO, SO_SNDTIMEO: its write returns, its read waits no longer than
 * its timeout; c->wait_errno 0), and an attempt whose response is not in yet when the transport is driven
 * or c->until_ms came; a signal the blocking host takes parks it too (c->wait_errno EINTR). */
static void drive(lg_h1_conn *c, lg_exchange *x, lg_step step)
{
    while (step.kind != LG_STEP_DONE) {
        if (step.kind == LG_STEP_WAIT) {
            int64_t ms = step.at_ms - lg_now_ms();
            bool parks = ms > 0 && (lg_h1_nonblocking_fd(c) >= 0 || lg_h1_sock_timeout_ms(c, SO_RCVTIMEO) > 0 ||
                                    lg_h1_sock_timeout_ms(c, SO_SNDTIMEO) > 0);
            if (parks || (ms > 0 && !c->host->sleep_until(step.at_ms))) {
                c->wait_errno = parks ? 0 : EINTR;
                park(c, x, step, false); /* a blocking host's signal handler runs when we return */
                return;
            }
            lg_exchange_on_timer(x, lg_now_ms(), &step);
            continue;
        }
        lg_h1_attempt_rc rc = lg_h1_attempt(c, &step, true);
        if (rc == LG_H1A_PENDING) {
            park(c, x, step, true);
            return;
        }
        if (!settle(c, x, rc, &step))
            return;
    }
    lg_h1_deliver(c, &step.result);
    lg_exchange_free(x);
    lg_h1_request_done(c);
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

void lg_h1_run_exchange(lg_h1_conn *c)
{
    char host_key[KEY_MAX], pin[128];
    bool has_key = lg_h1_req_find_key(&c->req, host_key, sizeof host_key);
    lg_gate_request gr = {.cfg = c->cfg, .prov = c->prov, .store = c->store,
                          .host_key = has_key ? host_key : NULL, .replayable = true,
                          .body = c->req.body, .body_len = c->req.body_len,
                          .pin = find_pin(c, pin, sizeof pin) ? pin : NULL, .url = c->req.url, .reroutes = true,
                          .program = program_invocation_short_name, .has_header = has_header,
                          .header_ctx = &c->req};
    lg_step step;
    lg_exchange *x = lg_exchange_begin(&gr, lg_now_ms(), &step);
    explicit_bzero(host_key, sizeof host_key);
    lg_h1_watch_host(c);
    c->until_ms = x ? LG_H1_UNTIL_HOST : 0;
    if (!x) { /* no memory for the exchange: the request goes out as the host wrote it */
        lg_ungated(c->store, c->prov->name, LG_UNGATED_NO_ROOM);
        lg_h1_attempt_rc rc = lg_h1_attempt(c, NULL, false);
        while (rc == LG_H1A_PENDING) /* a signal: no exchange to park, the answer is read on */
            rc = lg_h1_attempt_read(c, 0);
        if (rc != LG_H1A_RESPONSE)
            c->host_errno = ECONNRESET;
        lg_gate_result as_is = {.verdict = LG_GATE_DELIVER, .status = c->cap.status};
        lg_h1_deliver(c, &as_is);
        lg_h1_request_done(c);
        return;
    }
    drive(c, x, step);
}

void lg_h1_run_paced(lg_h1_conn *c)
{
    lg_gate_request gr = {.cfg = c->cfg, .prov = c->prov, .store = c->store};
    lg_gate_result res;
    if (!lg_gate_admit(&gr, &res)) {
        lg_capture_reset(&c->cap);
        lg_h1_deliver(c, &res);
        lg_h1_request_done(c);
        return;
    }
    if (!c->io->send(c->ioctx, c->req.raw, c->req.raw_len, 0))
        c->host_errno = errno ? errno : EPIPE;
    lg_h1_request_done(c);
}

bool lg_h1_resume(lg_h1_conn *c, bool blocking, int64_t until_ms)
{
    lg_exchange *x = c->wx;
    lg_step step = c->wstep;
    c->until_ms = until_ms;
    if (c->inflight) {
        lg_h1_attempt_rc rc = lg_h1_attempt_read(c, !blocking);
        if (rc == LG_H1A_PENDING) {
            errno = blocking ? c->wait_errno : errno;
            return false;
        }
        c->wx = NULL;
        c->inflight = false;
        if (!settle(c, x, rc, &step))
            return true;
    } else {
        bool cut = until_ms > 0 && until_ms < step.at_ms; /* the host's timeout comes first */
        if (blocking && !c->host->sleep_until(cut ? until_ms : step.at_ms)) {
            errno = EINTR;
            return false;
        }
        if (blocking && cut) {
            errno = EAGAIN;
            return false;
        }
        c->wx = NULL;
        lg_exchange_on_timer(x, lg_now_ms(), &step);
    }
    drive(c, x, step);
    if (c->wx && blocking)
        errno = c->wait_errno;
    return !c->wx;
}

void lg_h1_land_inflight(lg_h1_conn *c)
{
    while (c->wx && c->inflight && !c->io->detached)
        lg_h1_resume(c, true, 0);
}

void lg_h1_cancel_parked(lg_h1_conn *c)
{
    lg_exchange_free(c->wx);
    c->wx = NULL;
    c->dead |= c->inflight; /* an attempt's response is still on the wire */
    c->inflight = false;
}

/* An idle connection whose provider side is a connection of the transport's own beside the host's
 * descriptor (a TLS session's replacement after the provider closed the host's): the descriptor the host's
 * reads go to, which its readiness is that of, else -1. The host's own socket is left unused then, and its
 * kernel readiness (the provider's close, readable for ever) is not the connection's. */
static int idle_elsewhere(const lg_h1_conn *c)
{
    short ev;
    if (c->wx || c->x || c->wio != c->io || c->io->detached || !c->io->wait || !c->io->fd)
        return -1;
    int fd = c->io->wait(c->ioctx, &ev);
    return fd >= 0 && fd != c->io->fd(c->ioctx) ? fd : -1;
}

/* True when fd, a descriptor of c's transport, has something to read now (its end included). */
static bool readable_now(const lg_h1_conn *c, int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int saved = errno;
    bool r = c->host->poll(&p, 1, 0) > 0;
    errno = saved;
    return r;
}

lg_h1_readiness lg_h1_ready(lg_h1_conn *c, int64_t *due_ms)
{
    if (c->released)
        return LG_H1_IDLE;
    int saved = errno;
    if (c->wx && (c->inflight || c->wstep.at_ms <= lg_now_ms()))
        lg_h1_resume(c, false, 0);
    int driven = 1;
    while (!c->wx && c->x && lg_h1_pending(c) == 0 && lg_h1_driven(c) && lg_h1_stream_next(c, &driven))
        ;
    errno = saved;
    if (c->wx || (c->x && lg_h1_pending(c) == 0 && lg_h1_driven(c))) {
        *due_ms = !c->wx ? INT64_MAX : c->inflight ? lg_h1_attempt_due(c) : c->wstep.at_ms;
        return LG_H1_WAITING;
    }
    if (lg_h1_pending(c) > 0 || c->host_errno || c->x || (c->dead && !c->io->detached))
        return LG_H1_READY;
    int elsewhere = idle_elsewhere(c);
    if (elsewhere >= 0 && !readable_now(c, elsewhere)) {
        *due_ms = INT64_MAX; /* until that connection has something: lg_h1_wait_fd adds it to the wait */
        return LG_H1_WAITING;
    }
    return elsewhere >= 0 ? LG_H1_READY : LG_H1_IDLE;
}

int lg_h1_wait_fd(const lg_h1_conn *c, short *events)
{
    if (c->released)
        return -1;
    if ((c->wx && c->inflight) || (!c->wx && c->x && lg_h1_pending(c) == 0))
        return c->wio->wait ? c->wio->wait(c->wctx, events) : -1;
    int fd = lg_h1_pending(c) == 0 && !c->host_errno && !c->dead ? idle_elsewhere(c) : -1;
    *events = POLLIN;
    return fd;
}
