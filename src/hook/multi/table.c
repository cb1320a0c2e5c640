/* The states of multi handles and their message queues (see multi.h). The table lock guards only the
 * hash of multis: a multi's state is used by one thread at a time, as libcurl requires of the multi. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

bool lg_multi_queue_push(lg_multi *m, const CURLMsg *msg)
{
    if (m->q_head > 0 && m->q_head == m->q_len)
        m->q_head = m->q_len = 0;
    if (m->q_len == m->q_cap) {
        size_t cap = m->q_cap ? m->q_cap * 2 : 8;
        CURLMsg *q = realloc(m->queue, cap * sizeof *q);
        if (!q)
            return false;
        m->queue = q;
        m->q_cap = cap;
    }
    m->queue[m->q_len++] = *msg;
    return true;
}

CURLMsg *lg_multi_queue_pop(lg_multi *m, int *left)
{
    CURLMsg *msg = NULL;
    if (m->q_head < m->q_len) {
        m->current = m->queue[m->q_head++];
        msg = &m->current;
    }
    if (left)
        *left = (int)(m->q_len - m->q_head);
    return msg;
}

void lg_multi_queue_drop(lg_multi *m, CURL *h)
{
    size_t out = m->q_head;
    for (size_t i = m->q_head; i < m->q_len; i++)
        if (m->queue[i].easy_handle != h)
            m->queue[out++] = m->queue[i];
    m->q_len = out;
}
