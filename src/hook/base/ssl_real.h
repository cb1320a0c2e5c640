/* The real OpenSSL functions behind the TLS hooks. CPython loads its _ssl module RTLD_LOCAL, so
 * dlsym(RTLD_NEXT) can miss them: they are then looked up in an already-loaded libssl.so.3 with dlvsym
 * (OPENSSL_3.0.0). A member is NULL when libssl is not (yet) in the process: lg_ssl_real_get retries
 * until every one is found, and a hook whose real function is missing fails like the library would. */
#ifndef LLMGATE_HOOK_BASE_SSL_REAL_H
#define LLMGATE_HOOK_BASE_SSL_REAL_H

#include <openssl/ssl.h>
#include <stdbool.h>

typedef struct {
    int (*read)(SSL *, void *, int);
    int (*read_ex)(SSL *, void *, size_t, size_t *);
    int (*peek)(SSL *, void *, int);
    int (*peek_ex)(SSL *, void *, size_t, size_t *);
    int (*write)(SSL *, const void *, int);
    int (*write_ex)(SSL *, const void *, size_t, size_t *);
    int (*pending)(const SSL *);
    int (*has_pending)(const SSL *);
    int (*get_error)(const SSL *, int);
    int (*shutdown)(SSL *);
    int (*get_shutdown)(const SSL *);
    void (*set_shutdown)(SSL *, int);
    void (*free)(SSL *);
    const char *(*get_servername)(const SSL *, int);
    int (*get_fd)(const SSL *);
    SSL *(*new_)(SSL_CTX *);
    int (*set_fd)(SSL *, int);
    int (*connect)(SSL *);
    SSL_CTX *(*get_ssl_ctx)(const SSL *);
    long (*ctrl)(SSL *, int, long, void *);
    X509_VERIFY_PARAM *(*get0_param)(SSL *);
    int (*set1_param)(SSL *, X509_VERIFY_PARAM *);
    void (*get0_alpn_selected)(const SSL *, const unsigned char **, unsigned int *);
    size_t (*get_client_random)(const SSL *, unsigned char *, size_t);
    BIO *(*get_rbio)(const SSL *);
    void *(*get_ex_data)(const SSL *, int);
    int (*set_ex_data)(SSL *, int, void *);
    int (*get_verify_mode)(const SSL *);
    SSL_verify_cb (*get_verify_callback)(const SSL *);
    void (*set_verify)(SSL *, int, SSL_verify_cb);
    bool complete; /* every member was found */
} lg_ssl_real;

const lg_ssl_real *lg_ssl_real_get(void);

#endif
