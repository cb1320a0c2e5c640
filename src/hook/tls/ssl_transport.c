/* The transports under a followed OpenSSL connection (see ssl_transport.h). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <sys/socket.h>

#include "hook/base/guard.h"
#include "hook/base/ssl_real.h"
#include "hook/sock/fd_wait.h"
#include "hook/tls/ssl_nowait.h"
#include "hook/tls/ssl_session.h"
#include "hook/tls/ssl_transport.h"
#include "llmgate/clock.h"

/* After a write on the wire returned ok (1 or not): true to call again (it wants the socket, which the
 * host made non-blocking, and it is ready now; a replacement's handshake not past c->repl_until). */
static bool again(lg_ssl_conn *c, int ok)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    SSL *wire = lg_ssl_conn_wire(c);
    int err = ok == 1 ? SSL_ERROR_NONE : real->get_error(wire, 0);
    if (err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE)
        return false;
    int fd = real->get_fd(wire);
    bool write = err == SSL_ERROR_WANT_WRITE;
    int64_t until = c->repl ? c->repl_until : 0;
    return lg_fd_wait_by(fd, write, until);
}

/* Memory BIOs: the bytes are taken, to go out from io_recv over llmgate's own non-blocking session. */
static bool membio_send(lg_ssl_conn *c, const void *p, size_t n)
{
    if (!c->repl && !lg_ssl_repl_open(c, NULL, 0))
        return false;
    char *b = realloc(c->unsent, c->unsent_len + n);
    if (!b)
        return false;
    memcpy(b + c->unsent_len, p, n);
    c->unsent = b;
    c->unsent_len += n;
    return true;
}

/* Memory BIOs, a released connection: the held bytes go into the host's own session, where they would
 * have gone without llmgate (its loop sends what the outgoing BIO holds after its write call). */
static bool host_send(lg_ssl_conn *c, const void *p, size_t n)
{
    size_t done = 0;
    int ok;
    LG_OURS(ok = lg_ssl_real_get()->write_ex(c->ssl, p, n, &done));
    return ok == 1 && done == n;
}

/* Socket BIOs: writes on the wire, again while it waits for the host's non-blocking socket. */
static bool wire_send(lg_ssl_conn *c, const void *p, size_t n)
{
    size_t done = 0;
    int ok;
    do
        ok = lg_ssl_real_get()->write_ex(lg_ssl_conn_wire(c), p, n, &done);
    while (again(c, ok));
    if (ok == 1)
        c->repl_until = 0; /* its handshake is done */
    return ok == 1 && done == n;
}

static bool io_send(void *io, const void *p, size_t n, int64_t until_ms)
{
    lg_ssl_conn *c = io;
    bool ok;
    if (c->host_fd >= 0) /* memory BIOs: llmgate's own connection, until released */
        return lg_h1_released(c->h1) ? host_send(c, p, n) : membio_send(c, p, n);
    LG_OURS(ok = wire_send(c, p, n));
    return ok;
}

/* A call on our non-blocking session returned ok: > 0 to go on, LG_IO_AGAIN (c->want says for what), 0
 * at the end (close_notify, or a peer that just closed), -1 on failure. */
static ssize_t membio_result(lg_ssl_conn *c, int ok)
{
    int err = ok == 1 ? SSL_ERROR_NONE : lg_ssl_real_get()->get_error(c->repl, 0);
    c->want = err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
    if (ok == 1)
        return 1;
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE)
        return LG_IO_AGAIN;
    return err == SSL_ERROR_ZERO_RETURN || err == SSL_ERROR_SSL || err == SSL_ERROR_SYSCALL ? 0 : -1;
}

/* Memory BIOs: sends what was taken on our session, then reads from it (membio_result's answer, *done
 * bytes read). The thread's OpenSSL error queue is left as it was. */
static ssize_t membio_pump(lg_ssl_conn *c, void *p, size_t n, size_t *done)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    ssize_t r = 1;
    ERR_set_mark();
    while (c->unsent && r > 0) {
        r = membio_result(c, real->write_ex(c->repl, c->unsent + c->unsent_off, c->unsent_len - c->unsent_off, done));
        if (r > 0 && (c->unsent_off += *done) == c->unsent_len)
            lg_ssl_unsent_drop(c);
    }
    if (r > 0)
        r = membio_result(c, real->read_ex(c->repl, p, n, done));
    ERR_pop_to_mark();
    return r;
}

/* Memory BIOs: sends what was taken (the handshake goes on inside), then reads; never blocks. Runs inside
 * the host's calls (its readiness waits): the thread's OpenSSL error queue is left as the host had it. */
static ssize_t membio_recv(lg_ssl_conn *c, void *p, size_t n)
{
    size_t done = 0;
    ssize_t r;
    if (!c->repl)
        return -1;
    LG_OURS(r = membio_pump(c, p, n, &done));
    if (r == 0 && c->unsent) /* the request did not go out */
        r = -1;
    if (r <= 0 && r != LG_IO_AGAIN)
        lg_ssl_unsent_drop(c);
    return r > 0 ? (ssize_t)done : r;
}

/* True when a read of the session wire would wait: nothing buffered in it, nothing on its socket fd now
 * (no socket, -1: false). */
static bool wire_idle(SSL *wire, int fd)
{
    return fd >= 0 && !lg_ssl_real_get()->has_pending(wire) &&
           lg_fd_wait_until(fd, false, lg_now_ms()) == LG_WAIT_TIMEOUT;
}

/* SSL_read_ex on the wire without a wait in the kernel, *err SSL_get_error's answer; -1 (*err unset) when
 * the wire's socket has nothing now. A plain socket BIO is read with MSG_DONTWAIT for the call
 * (lg_ssl_read_nowait: no system call beyond the reads); any other, after a poll without a wait when the
 * session holds nothing (a record that came in part is then read to its end in the kernel). */
static int wire_read(lg_ssl_conn *c, SSL *wire, void *p, size_t n, size_t *got, int *err)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    int ok = lg_ssl_read_nowait(&c->nowait, wire, p, n, got, err);
    if (ok != LG_SSL_NOWAIT_NONE)
        return ok;
    if (wire_idle(wire, real->get_fd(wire)))
        return -1;
    ok = real->read_ex(wire, p, n, got);
    *err = ok == 1 ? SSL_ERROR_NONE : real->get_error(wire, 0);
    return ok;
}

/* > 0 bytes; 0 at the end (close_notify, or a peer that just closed); -1 on failure. Never waits in the
 * kernel, on a blocking socket either (the host's, or ours beside it): LG_IO_AGAIN when the session waits
 * for its socket (c->want says for what), or read a record that carried no data (a TLS 1.3 session ticket:
 * OpenSSL's auto-retry is off for the call). A blocking host's attempt then waits in the front's wait_fd,
 * which the attempt's time limits and the host's SO_RCVTIMEO bound (as on a plain socket); a non-blocking
 * host's is driven from its readiness waits (io_wait). */
static ssize_t io_recv(void *io, void *p, size_t n)
{
    lg_ssl_conn *c = io;
    const lg_ssl_real *real = lg_ssl_real_get();
    size_t got = 0;
    int ok, err = SSL_ERROR_WANT_READ;
    if (c->host_fd >= 0)
        return membio_recv(c, p, n);
    SSL *wire = lg_ssl_conn_wire(c);
    long retry = real->ctrl(wire, SSL_CTRL_MODE, 0, NULL) & SSL_MODE_AUTO_RETRY;
    real->ctrl(wire, SSL_CTRL_CLEAR_MODE, retry, NULL);
    errno = 0; /* EINTR after the call: a signal interrupted a blocking socket's wait */
    LG_OURS(ok = wire_read(c, wire, p, n, &got, &err));
    bool interrupted = errno == EINTR;
    real->ctrl(wire, SSL_CTRL_MODE, retry, NULL);
    if (ok == 1)
        return (ssize_t)got;
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        c->want = err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
        return interrupted && lg_host_takes_eintr() ? LG_IO_INTR : LG_IO_AGAIN;
    }
    return err == SSL_ERROR_ZERO_RETURN || err == SSL_ERROR_SSL || err == SSL_ERROR_SYSCALL ? 0 : -1;
}

static bool io_reopen(void *io, const lg_h1_target *to, int64_t until_ms) { return lg_ssl_repl_open(io, to, until_ms); }

/* A socket-BIO session: the socket of the session the attempt reads from, and what it waits for. */
static int io_wire_wait(void *io, short *events)
{
    lg_ssl_conn *c = io;
    *events = c->want ? c->want : POLLIN;
    return lg_ssl_real_get()->get_fd(lg_ssl_conn_wire(c));
}

static int io_fd(void *io)
{
    lg_ssl_conn *c = io;
    return c->host_fd >= 0 ? c->host_fd : lg_ssl_real_get()->get_fd(c->ssl);
}

/* Memory BIOs: our session's descriptor and what it waits for. */
static int io_wait(void *io, short *events)
{
    lg_ssl_conn *c = io;
    *events = c->want ? c->want : POLLIN;
    return c->repl ? c->repl_fd : -1;
}

/* Memory BIOs: the host's own connection, idle all along, reads its end (shutdown SHUT_RD sends nothing
 * to the peer; the host's recv returns 0, and its loop closes the connection as after the provider's close). */
static void io_end(void *io)
{
    lg_ssl_conn *c = io;
    int saved = errno;
    shutdown(c->host_fd, SHUT_RD);
    errno = saved;
}

const lg_h1_io lg_ssl_socket_io = {.send = io_send, .recv = io_recv, .wait = io_wire_wait, .reopen = io_reopen,
                                   .fd = io_fd, .tls = true};
const lg_h1_io lg_ssl_membio_io = {.send = io_send, .recv = io_recv, .reopen = io_reopen, .fd = io_fd, .tls = true,
                                   .wait = io_wait, .end = io_end, .detached = true};
