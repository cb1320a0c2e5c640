/* Resolution of the real OpenSSL functions (see ssl_real.h). */
#include "hook/base/ssl_real.h"

#define LG_REAL_TABLE lg_ssl_real
static const lg_real_entry entries[] = {LG_SSL_REAL(LG_REAL_ENTRY)};
static const lg_real_spec spec = {entries, sizeof entries / sizeof *entries, "OPENSSL_3.0.0",
                                  (const char *const[]){"libssl.so.3"}, 1};

static lg_ssl_real real;
static lg_real_retry retry = LG_REAL_RETRY_INIT;

const lg_ssl_real *lg_ssl_real_get(void)
{
    if (!atomic_load(&retry.done))
        lg_real_fill_retry(&retry, &real, &real.complete, &spec);
    return &real;
}
