/* Resolution of the real libcurl functions (see curl_real.h). */
#include <pthread.h>

#include "hook/base/curl_real.h"

#define LG_REAL_TABLE lg_curl_real
static const lg_real_entry entries[] = {LG_CURL_REAL(LG_REAL_ENTRY)};
static const char *const libs[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4", "libcurl.so"};
static const lg_real_spec spec = {entries, sizeof entries / sizeof *entries, NULL, libs, sizeof libs / sizeof *libs};

lg_curl_real lg_curl_real_table;
int lg_curl_real_ready;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* Fills the table (members left NULL when unresolvable) and publishes it. */
static void resolve_all(void)
{
    lg_real_fill(&lg_curl_real_table, &spec);
    __atomic_store_n(&lg_curl_real_ready, 1, __ATOMIC_RELEASE);
}

const lg_curl_real *lg_curl_real_resolve(void)
{
    pthread_once(&real_once, resolve_all);
    return &lg_curl_real_table;
}
