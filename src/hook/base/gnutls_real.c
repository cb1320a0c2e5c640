/* Resolution of the real GnuTLS functions (see gnutls_real.h). */
#include <pthread.h>
#include <stdatomic.h>

#include "hook/base/gnutls_real.h"
#include "hook/base/real_sym.h"

static lg_gnutls_real real;
static atomic_bool done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *resolve(const char *name)
{
    static const char *const libs[] = {"libgnutls.so.30"};
    return lg_real_sym(name, "GNUTLS_3_4", libs, 1);
}

#define R(field, name) ((*(void **)&real.field = real.field ? *(void **)&real.field : resolve(name)) != NULL)

const lg_gnutls_real *lg_gnutls_real_get(void)
{
    if (atomic_load(&done))
        return &real;
    pthread_mutex_lock(&lock);
    bool all = R(record_send, "gnutls_record_send") & R(record_recv, "gnutls_record_recv") &
               R(record_check_pending, "gnutls_record_check_pending") & R(deinit, "gnutls_deinit") &
               R(bye, "gnutls_bye") & R(transport_get_int, "gnutls_transport_get_int") &
               R(alpn_get_selected_protocol, "gnutls_alpn_get_selected_protocol") & R(init, "gnutls_init") &
               R(credentials_get, "gnutls_credentials_get") & R(credentials_set, "gnutls_credentials_set") &
               R(set_default_priority, "gnutls_set_default_priority") & R(server_name_set, "gnutls_server_name_set") &
               R(session_set_verify_cert, "gnutls_session_set_verify_cert") &
               R(transport_set_int2, "gnutls_transport_set_int2") & R(handshake, "gnutls_handshake") &
               R(session_get_ptr, "gnutls_session_get_ptr") & R(session_set_ptr, "gnutls_session_set_ptr");
    real.complete = all;
    if (all)
        atomic_store(&done, true);
    pthread_mutex_unlock(&lock);
    return &real;
}
