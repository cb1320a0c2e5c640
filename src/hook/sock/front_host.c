/* The preload as the front's program (see front_host.h). */
#include "hook/base/libc_real.h"
#include "hook/base/runtime.h"
#include "hook/sock/fd_wait.h"
#include "hook/sock/conns.h"
#include "hook/sock/fd_watch.h"
#include "hook/sock/front_host.h"
#include "hook/sock/plain_conn.h"
#include "hook/sock/tls_conn.h"

static const lg_config *runtime_config(void) { return lg_runtime_get()->cfg; }
static lg_store *runtime_store(void) { return lg_runtime_get()->store; }
static int real_close(int fd) { return lg_sock_real_get()->close(fd); }
static int real_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
    return lg_sock_real_get()->poll(fds, n, timeout_ms);
}

const lg_front_host lg_sock_front_host = {
    .config = runtime_config,
    .store = runtime_store,
    .close = real_close,
    .poll = real_poll,
    .wait_fd = lg_fd_wait_until,
    .sleep_until = lg_sleep_until,
    .watch = lg_fd_watch,
    .unwatch = lg_fd_unwatch,
    .target_socket = lg_h1_plain_socket,
    .plain_io = &lg_h1_plain_io,
    .own_tls_open = lg_h1_tls_open,
    .own_tls_close = lg_h1_tls_close,
    .own_tls_io = &lg_h1_tls_io,
    .sock_timeout_ms = lg_sock_timeout_ms,
    .fd_status_flags = lg_sock_status_flags,
};
