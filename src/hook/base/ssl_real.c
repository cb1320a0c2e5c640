/* Resolution of the real OpenSSL functions (see ssl_real.h). */
#include <pthread.h>
#include <stdatomic.h>

#include "hook/base/real_sym.h"
#include "hook/base/ssl_real.h"

static lg_ssl_real real;
static atomic_bool done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *resolve(const char *name)
{
    static const char *const libs[] = {"libssl.so.3"};
    return lg_real_sym(name, "OPENSSL_3.0.0", libs, 1);
}

#define R(field, name) ((*(void **)&real.field = real.field ? *(void **)&real.field : resolve(name)) != NULL)

const lg_ssl_real *lg_ssl_real_get(void)
{
    if (atomic_load(&done))
        return &real;
    pthread_mutex_lock(&lock);
    bool all = R(read, "SSL_read") & R(read_ex, "SSL_read_ex") & R(peek, "SSL_peek") & R(peek_ex, "SSL_peek_ex") &
               R(write, "SSL_write") & R(write_ex, "SSL_write_ex") & R(pending, "SSL_pending") &
               R(has_pending, "SSL_has_pending") & R(get_error, "SSL_get_error") & R(shutdown, "SSL_shutdown") &
               R(get_shutdown, "SSL_get_shutdown") & R(set_shutdown, "SSL_set_shutdown") &
               R(free, "SSL_free") & R(get_servername, "SSL_get_servername") & R(get_fd, "SSL_get_fd") &
               R(new_, "SSL_new") & R(set_fd, "SSL_set_fd") & R(connect, "SSL_connect") &
               R(get_ssl_ctx, "SSL_get_SSL_CTX") & R(ctrl, "SSL_ctrl") & R(get0_param, "SSL_get0_param") &
               R(set1_param, "SSL_set1_param") & R(get0_alpn_selected, "SSL_get0_alpn_selected") &
               R(get_client_random, "SSL_get_client_random") & R(get_rbio, "SSL_get_rbio") &
               R(get_ex_data, "SSL_get_ex_data") & R(set_ex_data, "SSL_set_ex_data") &
               R(get_verify_mode, "SSL_get_verify_mode") & R(get_verify_callback, "SSL_get_verify_callback") &
               R(set_verify, "SSL_set_verify");
    real.complete = all;
    if (all)
        atomic_store(&done, true);
    pthread_mutex_unlock(&lock);
    return &real;
}
