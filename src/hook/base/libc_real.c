/* Resolution of the real socket functions (see libc_real.h). */
#include <pthread.h>

#include "hook/base/libc_real.h"

#define LG_REAL_TABLE lg_sock_real
static const lg_real_entry entries[] = {LG_LIBC_REAL(LG_REAL_ENTRY)};
static const lg_real_spec spec = {entries, sizeof entries / sizeof *entries, NULL,
                                  (const char *const[]){"libc.so.6"}, 1};

lg_sock_real lg_sock_real_table;
int lg_sock_real_ready;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* Fills the table and publishes it. */
static void resolve_all(void)
{
    lg_real_fill(&lg_sock_real_table, &spec);
    __atomic_store_n(&lg_sock_real_ready, 1, __ATOMIC_RELEASE);
}

const lg_sock_real *lg_sock_real_resolve(void)
{
    pthread_once(&real_once, resolve_all);
    return &lg_sock_real_table;
}
