/* The data-path interposers of sockets: send/sendto/sendmsg/write/writev/sendfile and recv/recvfrom/recvmsg/
 * read/readv. A descriptor llmgate does not follow costs one table load before the real call; a followed one
 * goes through its HTTP/1.1 connection (h1_conn.c). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "hook/base/export.h"
#include "hook/base/guard.h"
#include "hook/base/runtime.h"
#include "hook/sock/conns.h"
#include "hook/sock/fd_watch.h"
#include "hook/sock/io.h"
#include "hook/sock/names.h"
#include "hook/base/libc_real.h"
#include "hook/sock/tls_hello.h"

/* The iovecs gathered into one buffer (caller frees); NULL with *total 0 when empty or on failure. */
static char *gather(const struct iovec *iov, int cnt, size_t *total)
{
    size_t n = 0;
    for (int i = 0; i < cnt; i++)
        n += iov[i].iov_len;
    *total = n;
    char *buf = malloc(n ? n : 1);
    for (size_t off = 0, i = 0; buf && i < (size_t)cnt; off += iov[i].iov_len, i++)
        memcpy(buf + off, iov[i].iov_base, iov[i].iov_len);
    return buf;
}

static void scatter(const struct iovec *iov, int cnt, const char *buf, size_t n)
{
    for (int i = 0; i < cnt && n > 0; i++) {
        size_t k = iov[i].iov_len < n ? iov[i].iov_len : n;
        memcpy(iov[i].iov_base, buf, k);
        buf += k;
        n -= k;
    }
}

/* The host writes p on fd, a followed connection c (a ClientHello is remembered for memory-BIO TLS). */
static ssize_t host_write(int fd, lg_h1_conn *c, const void *p, size_t n)
{
    lg_tls_hello_sent(fd, p, n);
    return lg_h1_write(c, p, n);
}

static ssize_t write_vec(int fd, lg_h1_conn *c, const struct iovec *iov, int cnt)
{
    size_t total;
    char *buf = gather(iov, cnt, &total);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    ssize_t r = host_write(fd, c, buf, total);
    free(buf);
    return r;
}

/* Reads into the iovecs through c; LG_H1_PASS when c holds nothing for the host. */
static ssize_t read_vec(lg_h1_conn *c, const struct iovec *iov, int cnt, bool peek)
{
    size_t total = 0;
    for (int i = 0; i < cnt; i++)
        total += iov[i].iov_len;
    char *buf = malloc(total ? total : 1);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    ssize_t r = lg_h1_read(c, buf, total, peek);
    if (r > 0)
        scatter(iov, cnt, buf, (size_t)r);
    free(buf);
    return r;
}

/* The data-path hooks of every descriptor of every host: one not in the socket table, while nothing is
 * watched, costs a load or two and a jump to libc (the rest is in functions of their own). */
static __attribute__((noinline)) ssize_t write_held(int fd, const void *p, size_t n)
{
    lg_h1_conn *c = lg_sock_conn_held(fd);
    return c ? host_write(fd, c, p, n) : lg_sock_real_get()->write(fd, p, n);
}

EXPORT ssize_t write(int fd, const void *p, size_t n)
{
    return lg_sock_held(fd) ? write_held(fd, p, n) : lg_sock_real_get()->write(fd, p, n);
}

static __attribute__((noinline)) ssize_t send_held(int fd, const void *p, size_t n, int flags)
{
    lg_h1_conn *c = lg_sock_conn_held(fd);
    return c ? host_write(fd, c, p, n) : lg_sock_real_get()->send(fd, p, n, flags);
}

EXPORT ssize_t send(int fd, const void *p, size_t n, int flags)
{
    return lg_sock_held(fd) ? send_held(fd, p, n, flags) : lg_sock_real_get()->send(fd, p, n, flags);
}

/* A TCP Fast Open connection (data sent to an address with its SYN, no connect()) is not followed: said and
 * counted (lg_ungated) when the address is a provider's. */
static void fast_open(const struct sockaddr *to, socklen_t tolen)
{
    if (lg_guard_active() || !to || (to->sa_family != AF_INET && to->sa_family != AF_INET6))
        return;
    int saved = errno;
    struct sockaddr_storage at;
    const lg_provider *prov;
    if (lg_sock_names_lookup(to, tolen, &at, &prov, 1, NULL) > 0)
        lg_ungated(lg_runtime_get()->store, prov->name, LG_UNGATED_FAST_OPEN);
    errno = saved;
}

EXPORT ssize_t sendto(int fd, const void *p, size_t n, int flags, const struct sockaddr *to, socklen_t tolen)
{
    if (LG_UNLIKELY(flags & MSG_FASTOPEN))
        fast_open(to, tolen);
    lg_h1_conn *c = to ? NULL : lg_sock_conn(fd);
    return c ? host_write(fd, c, p, n) : lg_sock_real_get()->sendto(fd, p, n, flags, to, tolen);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    lg_h1_conn *c = lg_sock_conn(fd);
    return c ? write_vec(fd, c, iov, cnt) : lg_sock_real_get()->writev(fd, iov, cnt);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
    if (LG_UNLIKELY(flags & MSG_FASTOPEN))
        fast_open(m->msg_name, m->msg_namelen);
    lg_h1_conn *c = m->msg_name || m->msg_controllen ? NULL : lg_sock_conn(fd);
    return c ? write_vec(fd, c, m->msg_iov, (int)m->msg_iovlen) : lg_sock_real_get()->sendmsg(fd, m, flags);
}

/* sendfile on a followed connection: the file's next bytes (at *off, which advances, or at the file's
 * position) are written through it like any other write of the host, at most a buffer's worth a call (the
 * caller sends the rest, as after any short sendfile); the kernel would send them ahead of the request head
 * llmgate holds, and the request would never be whole. */
static ssize_t sendfile_followed(int out, lg_h1_conn *c, int in, off_t *off, size_t count)
{
    char buf[16384];
    size_t n = count < sizeof buf ? count : sizeof buf;
    ssize_t r = off ? pread(in, buf, n, *off) : lg_sock_real_get()->read(in, buf, n);
    if (r <= 0)
        return r;
    ssize_t w = host_write(out, c, buf, (size_t)r);
    if (w > 0 && off)
        *off += w;
    return w;
}

EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t count)
{
    lg_h1_conn *c = lg_sock_conn(out);
    return c ? sendfile_followed(out, c, in, off, count) : lg_sock_real_get()->sendfile(out, in, off, count);
}

/* The same function under its large-file name (off_t is 64 bits here), which CPython's os.sendfile calls. */
EXPORT ssize_t sendfile64(int out, int in, off64_t *off, size_t count) { return sendfile(out, in, off, count); }

static _Atomic(lg_sock_read_fn) unfollowed_read; /* lg_sock_on_unfollowed_read's, or NULL */

void lg_sock_on_unfollowed_read(lg_sock_read_fn fn)
{
    atomic_store_explicit(&unfollowed_read, fn, memory_order_release);
}

/* What a read of a descriptor the socket layer does not follow returns: what the wing that answers such
 * reads says (a memory-BIO session's wake-up byte) when something is watched, else LG_H1_PASS. */
static ssize_t unfollowed(int fd, void *p, size_t n)
{
    lg_sock_read_fn fn = lg_fd_watch_any() ? atomic_load_explicit(&unfollowed_read, memory_order_acquire) : NULL;
    return fn ? fn(fd, p, n) : LG_H1_PASS;
}

/* unfollowed() for a scatter read: the wake-up byte goes into the first non-empty iovec. */
static ssize_t unfollowed_vec(int fd, const struct iovec *iov, int cnt)
{
    int i = 0;
    while (i < cnt && iov[i].iov_len == 0)
        i++;
    return i < cnt ? unfollowed(fd, iov[i].iov_base, iov[i].iov_len) : LG_H1_PASS;
}

static __attribute__((noinline)) ssize_t read_ours(int fd, void *p, size_t n)
{
    lg_h1_conn *c = lg_sock_conn(fd);
    ssize_t r = c ? lg_h1_read(c, p, n, false) : unfollowed(fd, p, n);
    return r != LG_H1_PASS ? r : lg_sock_real_get()->read(fd, p, n);
}

EXPORT ssize_t read(int fd, void *p, size_t n)
{
    if (!lg_sock_held(fd) && !lg_fd_watch_any())
        return lg_sock_real_get()->read(fd, p, n);
    return read_ours(fd, p, n);
}

static __attribute__((noinline)) ssize_t recv_ours(int fd, void *p, size_t n, int flags)
{
    lg_h1_conn *c = lg_sock_conn(fd);
    ssize_t r = c ? lg_h1_read(c, p, n, flags & MSG_PEEK) : flags & MSG_PEEK ? LG_H1_PASS : unfollowed(fd, p, n);
    return r != LG_H1_PASS ? r : lg_sock_real_get()->recv(fd, p, n, flags);
}

EXPORT ssize_t recv(int fd, void *p, size_t n, int flags)
{
    if (!lg_sock_held(fd) && !lg_fd_watch_any())
        return lg_sock_real_get()->recv(fd, p, n, flags);
    return recv_ours(fd, p, n, flags);
}

EXPORT ssize_t recvfrom(int fd, void *p, size_t n, int flags, struct sockaddr *from, socklen_t *fromlen)
{
    lg_h1_conn *c = lg_sock_conn(fd);
    ssize_t r = c ? lg_h1_read(c, p, n, flags & MSG_PEEK) : flags & MSG_PEEK ? LG_H1_PASS : unfollowed(fd, p, n);
    if (r != LG_H1_PASS && from && fromlen)
        *fromlen = 0;
    return r != LG_H1_PASS ? r : lg_sock_real_get()->recvfrom(fd, p, n, flags, from, fromlen);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    lg_h1_conn *c = lg_sock_conn(fd);
    ssize_t r = c ? read_vec(c, iov, cnt, false) : unfollowed_vec(fd, iov, cnt);
    return r != LG_H1_PASS ? r : lg_sock_real_get()->readv(fd, iov, cnt);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
    lg_h1_conn *c = lg_sock_conn(fd);
    ssize_t r = c                   ? read_vec(c, m->msg_iov, (int)m->msg_iovlen, flags & MSG_PEEK)
                : flags & MSG_PEEK ? LG_H1_PASS
                                   : unfollowed_vec(fd, m->msg_iov, (int)m->msg_iovlen);
    if (r != LG_H1_PASS) {
        m->msg_namelen = 0;
        m->msg_controllen = 0;
        m->msg_flags = 0;
    }
    return r != LG_H1_PASS ? r : lg_sock_real_get()->recvmsg(fd, m, flags);
}
