/* The real GnuTLS functions behind the GnuTLS hooks (dlsym RTLD_NEXT, else dlvsym GNUTLS_3_4 on an
 * already-loaded libgnutls.so.30). `complete` is false until every one is found; a hook then passes
 * through. */
#ifndef LLMGATE_HOOK_BASE_GNUTLS_REAL_H
#define LLMGATE_HOOK_BASE_GNUTLS_REAL_H

#include <gnutls/gnutls.h>
#include <stdbool.h>

typedef struct {
    ssize_t (*record_send)(gnutls_session_t, const void *, size_t);
    ssize_t (*record_recv)(gnutls_session_t, void *, size_t);
    size_t (*record_check_pending)(gnutls_session_t);
    void (*deinit)(gnutls_session_t);
    int (*bye)(gnutls_session_t, gnutls_close_request_t);
    int (*transport_get_int)(gnutls_session_t);
    int (*alpn_get_selected_protocol)(gnutls_session_t, gnutls_datum_t *);
    int (*init)(gnutls_session_t *, unsigned int);
    int (*credentials_get)(gnutls_session_t, gnutls_credentials_type_t, void **);
    int (*credentials_set)(gnutls_session_t, gnutls_credentials_type_t, void *);
    int (*set_default_priority)(gnutls_session_t);
    int (*server_name_set)(gnutls_session_t, gnutls_server_name_type_t, const void *, size_t);
    void (*session_set_verify_cert)(gnutls_session_t, const char *, unsigned);
    void (*transport_set_int2)(gnutls_session_t, int, int);
    int (*handshake)(gnutls_session_t);
    void *(*session_get_ptr)(gnutls_session_t);
    void (*session_set_ptr)(gnutls_session_t, void *);
    bool complete;
} lg_gnutls_real;

const lg_gnutls_real *lg_gnutls_real_get(void);

#endif
