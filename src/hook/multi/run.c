/* curl_multi_perform / socket_action / socket_all / info_read interposers: on a multi carrying provider
 * transfers, each real call is wrapped by the front end's bookkeeping (due steps, attempt completions, the
 * running count, the host's timer) and messages come from our queue; on any other multi, libcurl alone. */
#include "hook/base/export.h"
#include "hook/multi/multi.h"

/* The state of multi when it carries provider transfers and this call is the host's own; else NULL. */
static lg_multi *active(CURLM *multi)
{
    if (lg_curl_depth)
        return NULL;
    lg_multi *m = lg_multi_get(multi, false);
    return m && m->active ? m : NULL;
}

/* Ends a wrapped call (libcurl counted n running handles): bookkeeping, then the host's running count. */
static CURLMcode after(lg_multi *m, CURLMcode rc, int n, int *running)
{
    lg_multi_after(m, &n);
    if (running)
        *running = n;
    return rc;
}

/* curl_multi_perform of the host's own (libcurl's inside a perform of ours jumps straight to libcurl). */
static __attribute__((noinline)) CURLMcode perform_by_host(const lg_curl_real *real, CURLM *multi, int *running)
{
    lg_multi *m = active(multi);
    if (!m)
        return real->m_perform(multi, running);
    lg_multi_before(m);
    int n = 0;
    CURLMcode rc;
    LG_AS_LIBCURL(rc = real->m_perform(multi, &n));
    return after(m, rc, n, running);
}

EXPORT CURLMcode curl_multi_perform(CURLM *multi, int *running)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_perform)
        return CURLM_INTERNAL_ERROR;
    if (lg_curl_depth)
        return real->m_perform(multi, running);
    return perform_by_host(real, multi, running);
}

EXPORT CURLMcode curl_multi_socket_action(CURLM *multi, curl_socket_t s, int ev_bitmask, int *running)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_socket_action)
        return CURLM_INTERNAL_ERROR;
    lg_multi *m = active(multi);
    if (!m)
        return real->m_socket_action(multi, s, ev_bitmask, running);
    lg_multi_before(m);
    int n = 0;
    CURLMcode rc;
    LG_AS_LIBCURL(rc = real->m_socket_action(multi, s, ev_bitmask, &n));
    return after(m, rc, n, running);
}

EXPORT CURLMcode curl_multi_socket_all(CURLM *multi, int *running)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_socket_all)
        return CURLM_INTERNAL_ERROR;
    lg_multi *m = active(multi);
    if (!m)
        return real->m_socket_all(multi, running);
    lg_multi_before(m);
    int n = 0;
    CURLMcode rc;
    LG_AS_LIBCURL(rc = real->m_socket_all(multi, &n));
    return after(m, rc, n, running);
}

/* curl_multi_info_read of the host's own. */
static __attribute__((noinline)) CURLMsg *info_read_by_host(const lg_curl_real *real, CURLM *multi, int *msgs_in_queue)
{
    lg_multi *m = active(multi);
    if (!m)
        return real->m_info_read(multi, msgs_in_queue);
    lg_multi_drain(m);
    return lg_multi_queue_pop(m, msgs_in_queue);
}

EXPORT CURLMsg *curl_multi_info_read(CURLM *multi, int *msgs_in_queue)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_info_read)
        return NULL;
    if (lg_curl_depth)
        return real->m_info_read(multi, msgs_in_queue);
    return info_read_by_host(real, multi, msgs_in_queue);
}
