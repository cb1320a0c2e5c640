/* OpenSSL's SSL BIO, interposed (BIO_f_ssl). libssl's own SSL BIO reads and writes its session with
 * libssl's internal calls, past the SSL_read / SSL_write interposers, so a host that talks through SSL BIOs
 * (BIO_new_ssl_connect, BIO_new_buffer_ssl_connect and BIO_new_ssl, which libssl builds on BIO_f_ssl
 * through its own PLT, or BIO_f_ssl itself) gets llmgate's method instead: libssl's, its state and every
 * control its own, but whose reads and writes of a session llmgate follows go through the interposers
 * (ssl_io.c) and set the BIO's retry flags from SSL_get_error as libssl's do. Any other session is read and
 * written by libssl's own functions, exactly as without llmgate. */
#include <errno.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <pthread.h>

#include "hook/base/export.h"
#include "hook/base/ssl_real.h"
#include "hook/tls/ssl_conns.h"

static BIO_METHOD *method; /* llmgate's SSL BIO method, or NULL: libssl's is handed out */
static const BIO_METHOD *real_method;
static int (*real_write)(BIO *, const char *, size_t, size_t *);
static int (*real_read)(BIO *, char *, size_t, size_t *);
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The SSL of SSL BIO b when llmgate follows it (deciding, for a write), else NULL. */
static SSL *followed(BIO *b, bool decide)
{
    SSL *ssl = NULL;
    int saved = errno;
    if (BIO_get_ssl(b, &ssl) != 1 || !lg_ssl_conn_get(ssl, decide))
        ssl = NULL;
    errno = saved;
    return ssl;
}

/* After a read or write of ssl through the interposers that returned ok (1: done): b's retry flags and
 * reason as libssl's SSL BIO sets them; the BIO call's result (1, 0 at the session's clean end, else -1,
 * as libssl's internal calls answer). */
static int retry_flags(BIO *b, SSL *ssl, int ok)
{
    int reason = 0, err = ok == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl, 0);
    switch (err) {
    case SSL_ERROR_WANT_READ:
        BIO_set_retry_read(b);
        break;
    case SSL_ERROR_WANT_WRITE:
        BIO_set_retry_write(b);
        break;
    case SSL_ERROR_WANT_X509_LOOKUP:
        BIO_set_retry_special(b);
        reason = BIO_RR_SSL_X509_LOOKUP;
        break;
    case SSL_ERROR_WANT_CONNECT:
        BIO_set_retry_special(b);
        reason = BIO_RR_CONNECT;
        break;
    default:
        break;
    }
    BIO_set_retry_reason(b, reason);
    return ok == 1 ? 1 : err == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

static int bio_write(BIO *b, const char *p, size_t n, size_t *written)
{
    SSL *ssl = p ? followed(b, true) : NULL;
    if (!ssl)
        return real_write(b, p, n, written);
    BIO_clear_retry_flags(b);
    return retry_flags(b, ssl, SSL_write_ex(ssl, p, n, written));
}

static int bio_read(BIO *b, char *p, size_t n, size_t *got)
{
    SSL *ssl = p ? followed(b, false) : NULL;
    if (!ssl)
        return real_read(b, p, n, got);
    BIO_clear_retry_flags(b);
    return retry_flags(b, ssl, SSL_read_ex(ssl, p, n, got));
}

/* libssl's method with our reads and writes; left NULL when any part of it cannot be had. */
static void method_make(void)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    real_method = real->bio_f_ssl ? real->bio_f_ssl() : NULL;
    if (!real_method)
        return;
    real_write = BIO_meth_get_write_ex(real_method);
    real_read = BIO_meth_get_read_ex(real_method);
    BIO_METHOD *m = real_write && real_read ? BIO_meth_new(BIO_TYPE_SSL, "ssl") : NULL;
    if (m && BIO_meth_set_write_ex(m, bio_write) == 1 && BIO_meth_set_read_ex(m, bio_read) == 1 &&
        BIO_meth_set_puts(m, BIO_meth_get_puts(real_method)) == 1 &&
        BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(real_method)) == 1 &&
        BIO_meth_set_create(m, BIO_meth_get_create(real_method)) == 1 &&
        BIO_meth_set_destroy(m, BIO_meth_get_destroy(real_method)) == 1 &&
        BIO_meth_set_callback_ctrl(m, BIO_meth_get_callback_ctrl(real_method)) == 1)
        method = m;
    else
        BIO_meth_free(m);
}

EXPORT const BIO_METHOD *BIO_f_ssl(void)
{
    int saved = errno;
    pthread_once(&once, method_make);
    errno = saved;
    if (method)
        return method;
    const lg_ssl_real *real = lg_ssl_real_get();
    return real_method ? real_method : real->bio_f_ssl ? real->bio_f_ssl() : NULL;
}
