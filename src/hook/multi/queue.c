/* A multi's queue of messages for the host (see multi.h): libcurl's own messages and the DONE of each
 * provider transfer, read by curl_multi_info_read in the order they came. */
#include <stdlib.h>

#include "hook/multi/multi.h"

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
