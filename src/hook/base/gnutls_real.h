/* The real GnuTLS functions behind the GnuTLS hooks (dlsym RTLD_NEXT, else dlvsym GNUTLS_3_4 on an
 * already-loaded libgnutls.so.30). `complete` is false until every one is found; a hook then passes
 * through. */
#ifndef LLMGATE_HOOK_BASE_GNUTLS_REAL_H
#define LLMGATE_HOOK_BASE_GNUTLS_REAL_H

#include <gnutls/gnutls.h>
#include <gnutls/socket.h>
#include <stdbool.h>

#include "hook/base/real_sym.h"

/* The table, one X(field, symbol, ret, params) a real GnuTLS function (real_sym.h). */
#define LG_GNUTLS_REAL(X)                                                                                        \
    X(record_send, gnutls_record_send, ssize_t, (gnutls_session_t, const void *, size_t))                        \
    X(record_recv, gnutls_record_recv, ssize_t, (gnutls_session_t, void *, size_t))                              \
    X(record_check_pending, gnutls_record_check_pending, size_t, (gnutls_session_t))                             \
    X(record_get_direction, gnutls_record_get_direction, int, (gnutls_session_t))                                \
    X(deinit, gnutls_deinit, void, (gnutls_session_t))                                                           \
    X(bye, gnutls_bye, int, (gnutls_session_t, gnutls_close_request_t))                                          \
    X(transport_get_int, gnutls_transport_get_int, int, (gnutls_session_t))                                      \
    X(alpn_get_selected_protocol, gnutls_alpn_get_selected_protocol, int, (gnutls_session_t, gnutls_datum_t *))  \
    X(init, gnutls_init, int, (gnutls_session_t *, unsigned int))                                                \
    X(credentials_get, gnutls_credentials_get, int, (gnutls_session_t, gnutls_credentials_type_t, void **))      \
    X(credentials_set, gnutls_credentials_set, int, (gnutls_session_t, gnutls_credentials_type_t, void *))       \
    X(set_default_priority, gnutls_set_default_priority, int, (gnutls_session_t))                                \
    X(server_name_set, gnutls_server_name_set, int,                                                              \
      (gnutls_session_t, gnutls_server_name_type_t, const void *, size_t))                                       \
    X(session_set_verify_cert, gnutls_session_set_verify_cert, void, (gnutls_session_t, const char *, unsigned)) \
    X(transport_set_int2, gnutls_transport_set_int2, void, (gnutls_session_t, int, int))                         \
    X(transport_set_fastopen, gnutls_transport_set_fastopen, void,                                              \
      (gnutls_session_t, int, struct sockaddr *, socklen_t, unsigned int))                                       \
    X(handshake, gnutls_handshake, int, (gnutls_session_t))                                                      \
    X(session_get_ptr, gnutls_session_get_ptr, void *, (gnutls_session_t))                                       \
    X(session_set_ptr, gnutls_session_set_ptr, void, (gnutls_session_t, void *))                                  \
    X(alpn_set_protocols, gnutls_alpn_set_protocols, int,                                                        \
      (gnutls_session_t, const gnutls_datum_t *, unsigned, unsigned))

typedef struct {
    LG_GNUTLS_REAL(LG_REAL_FIELD)
    bool complete;
} lg_gnutls_real;

const lg_gnutls_real *lg_gnutls_real_get(void);

#endif
