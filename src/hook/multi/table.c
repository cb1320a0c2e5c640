/* The states of multi handles (see multi.h; their message queues are queue.c's). The table lock guards
 * only the hash of multis: a multi's state is used by one thread at a time, as libcurl requires of it. */
#include <pthread.h>
#include <stdlib.h>

#include "hook/multi/multi.h"
#include "hook/base/runtime.h"

static lg_multi *table;
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void reinit_after_fork(void) { pthread_mutex_init(&table_mu, NULL); }

static void register_fork(void) { lg_runtime_on_fork_child(reinit_after_fork); }

lg_multi *lg_multi_get(CURLM *multi, bool create)
{
    pthread_once(&fork_once, register_fork);
    lg_multi *m;
    pthread_mutex_lock(&table_mu);
    HASH_FIND_PTR(table, &multi, m);
    if (!m && create && (m = calloc(1, sizeof *m)) != NULL) {
        m->multi = multi;
        m->curl_expire = m->told = LG_NEVER;
        HASH_ADD_PTR(table, multi, m);
    }
    pthread_mutex_unlock(&table_mu);
    return m;
}

void lg_multi_forget(CURLM *multi)
{
    lg_multi *m;
    pthread_mutex_lock(&table_mu);
    HASH_FIND_PTR(table, &multi, m);
    if (m)
        HASH_DEL(table, m);
    pthread_mutex_unlock(&table_mu);
    if (!m)
        return;
    lg_mxfer *t, *tmp;
    HASH_ITER(hh, m->xfers, t, tmp)
        lg_mxfer_cancel(t, false);
    free(m->queue);
    free(m);
}
