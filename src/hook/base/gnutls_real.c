/* Resolution of the real GnuTLS functions (see gnutls_real.h). */
#include "hook/base/gnutls_real.h"

#define LG_REAL_TABLE lg_gnutls_real
static const lg_real_entry entries[] = {LG_GNUTLS_REAL(LG_REAL_ENTRY)};
static const lg_real_spec spec = {entries, sizeof entries / sizeof *entries, "GNUTLS_3_4",
                                  (const char *const[]){"libgnutls.so.30"}, 1};

static lg_gnutls_real real;
static lg_real_retry retry = LG_REAL_RETRY_INIT;

const lg_gnutls_real *lg_gnutls_real_get(void)
{
    if (!atomic_load(&retry.done))
        lg_real_fill_retry(&retry, &real, &real.complete, &spec);
    return &real;
}
