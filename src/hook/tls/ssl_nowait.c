/* A read of an OpenSSL session over a socket without a wait in the kernel (see ssl_nowait.h). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <openssl/bio.h>

#include "hook/base/libc_real.h"
#include "hook/base/ssl_real.h"
#include "hook/tls/ssl_nowait.h"

static BIO_METHOD *method;
static pthread_once_t method_once = PTHREAD_ONCE_INIT;

/* The BIO's read: the socket (its data) with MSG_DONTWAIT; nothing there yet is a read to retry. */
static int nowait_read(BIO *b, char *p, int n)
{
    ssize_t r = lg_sock_real_get()->recv((int)(intptr_t)BIO_get_data(b), p, (size_t)n, MSG_DONTWAIT);
    BIO_clear_retry_flags(b);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_read(b);
    return (int)r;
}

/* The controls: its socket, for SSL_get_fd in a callback the read runs (a descriptor BIO, as the one it
 * stands in for); none of the others applies (not at its end, no kTLS, nothing pending). */
static long nowait_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    int fd = (int)(intptr_t)BIO_get_data(b);
    if (cmd == BIO_C_GET_FD && ptr)
        *(int *)ptr = fd;
    return cmd == BIO_C_GET_FD ? fd : cmd == BIO_CTRL_FLUSH;
}

static void method_make(void)
{
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR,
                                 "llmgate nowait read");
    if (m && BIO_meth_set_read(m, nowait_read) == 1 && BIO_meth_set_ctrl(m, nowait_ctrl) == 1)
        method = m;
    else
        BIO_meth_free(m);
}

/* *bio, made at its first use, reading fd; NULL when it cannot be made. */
static BIO *nowait_bio(BIO **bio, int fd)
{
    if (!*bio) {
        pthread_once(&method_once, method_make);
        if (!method || !(*bio = BIO_new(method)))
            return NULL;
        BIO_set_init(*bio, 1);
    }
    BIO_set_data(*bio, (void *)(intptr_t)fd);
    return *bio;
}

int lg_ssl_read_nowait(BIO **bio, SSL *s, void *p, size_t n, size_t *got, int *err)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    BIO *own = real->get_rbio(s), *nb;
    int fd;
    if (!own || BIO_method_type(own) != BIO_TYPE_SOCKET || BIO_get_ktls_recv(own) || BIO_get_fd(own, &fd) < 0 ||
        !(nb = nowait_bio(bio, fd)))
        return LG_SSL_NOWAIT_NONE;
    /* SSL_set0_rbio frees the BIO it replaces: each swap hands it a reference of its own */
    BIO_up_ref(own);
    BIO_up_ref(nb);
    real->set0_rbio(s, nb);
    int ok = real->read_ex(s, p, n, got);
    *err = ok == 1 ? SSL_ERROR_NONE : real->get_error(s, 0);
    real->set0_rbio(s, own);
    return ok;
}
