/* The real OpenSSL functions behind the TLS hooks. CPython loads its _ssl module RTLD_LOCAL, so
 * dlsym(RTLD_NEXT) can miss them: they are then looked up in an already-loaded libssl.so.3 with dlvsym
 * (OPENSSL_3.0.0). A member is NULL when libssl is not (yet) in the process: lg_ssl_real_get retries
 * until every one is found, and a hook whose real function is missing fails like the library would. */
#ifndef LLMGATE_HOOK_BASE_SSL_REAL_H
#define LLMGATE_HOOK_BASE_SSL_REAL_H

#include <openssl/ssl.h>
#include <stdbool.h>

#include "hook/base/real_sym.h"

/* The table, one X(field, symbol, ret, params) a real OpenSSL function (real_sym.h). */
#define LG_SSL_REAL(X)                                                                                         \
    X(read, SSL_read, int, (SSL *, void *, int))                                                               \
    X(read_ex, SSL_read_ex, int, (SSL *, void *, size_t, size_t *))                                            \
    X(peek, SSL_peek, int, (SSL *, void *, int))                                                               \
    X(peek_ex, SSL_peek_ex, int, (SSL *, void *, size_t, size_t *))                                            \
    X(write, SSL_write, int, (SSL *, const void *, int))                                                       \
    X(write_ex, SSL_write_ex, int, (SSL *, const void *, size_t, size_t *))                                    \
    X(pending, SSL_pending, int, (const SSL *))                                                                \
    X(has_pending, SSL_has_pending, int, (const SSL *))                                                        \
    X(get_error, SSL_get_error, int, (const SSL *, int))                                                       \
    X(shutdown, SSL_shutdown, int, (SSL *))                                                                    \
    X(get_shutdown, SSL_get_shutdown, int, (const SSL *))                                                      \
    X(set_shutdown, SSL_set_shutdown, void, (SSL *, int))                                                      \
    X(free, SSL_free, void, (SSL *))                                                                           \
    X(get_servername, SSL_get_servername, const char *, (const SSL *, int))                                    \
    X(get_fd, SSL_get_fd, int, (const SSL *))                                                                  \
    X(new_, SSL_new, SSL *, (SSL_CTX *))                                                                       \
    X(set_fd, SSL_set_fd, int, (SSL *, int))                                                                   \
    X(connect, SSL_connect, int, (SSL *))                                                                      \
    X(get_ssl_ctx, SSL_get_SSL_CTX, SSL_CTX *, (const SSL *))                                                  \
    X(ctrl, SSL_ctrl, long, (SSL *, int, long, void *))                                                        \
    X(get0_param, SSL_get0_param, X509_VERIFY_PARAM *, (SSL *))                                                \
    X(set1_param, SSL_set1_param, int, (SSL *, X509_VERIFY_PARAM *))                                           \
    X(get0_alpn_selected, SSL_get0_alpn_selected, void, (const SSL *, const unsigned char **, unsigned int *)) \
    X(get_client_random, SSL_get_client_random, size_t, (const SSL *, unsigned char *, size_t))                \
    X(get_rbio, SSL_get_rbio, BIO *, (const SSL *))                                                            \
    X(set0_rbio, SSL_set0_rbio, void, (SSL *, BIO *))                                                          \
    X(get_ex_data, SSL_get_ex_data, void *, (const SSL *, int))                                                \
    X(set_ex_data, SSL_set_ex_data, int, (SSL *, int, void *))                                                 \
    X(get_verify_mode, SSL_get_verify_mode, int, (const SSL *))                                                \
    X(get_verify_callback, SSL_get_verify_callback, SSL_verify_cb, (const SSL *))                              \
    X(set_verify, SSL_set_verify, void, (SSL *, int, SSL_verify_cb))                                          \
    X(do_handshake, SSL_do_handshake, int, (SSL *))                                                            \
    X(in_before, SSL_in_before, int, (const SSL *))                                                            \
    X(set_alpn_protos, SSL_set_alpn_protos, int, (SSL *, const unsigned char *, unsigned))                     \
    X(ctx_set_alpn_protos, SSL_CTX_set_alpn_protos, int, (SSL_CTX *, const unsigned char *, unsigned))         \
    X(ctx_get_ex_data, SSL_CTX_get_ex_data, void *, (const SSL_CTX *, int))                                    \
    X(ctx_set_ex_data, SSL_CTX_set_ex_data, int, (SSL_CTX *, int, void *))                                     \
    X(bio_f_ssl, BIO_f_ssl, const BIO_METHOD *, (void))                                                        \
    X(client_method, TLS_client_method, const SSL_METHOD *, (void))                                            \
    X(ctx_new, SSL_CTX_new, SSL_CTX *, (const SSL_METHOD *))                                                   \
    X(ctx_free, SSL_CTX_free, void, (SSL_CTX *))                                                               \
    X(ctx_ctrl, SSL_CTX_ctrl, long, (SSL_CTX *, int, long, void *))                                            \
    X(ctx_default_paths, SSL_CTX_set_default_verify_paths, int, (SSL_CTX *))

typedef struct {
    LG_SSL_REAL(LG_REAL_FIELD)
    bool complete; /* every member was found */
} lg_ssl_real;

const lg_ssl_real *lg_ssl_real_get(void);

#endif
