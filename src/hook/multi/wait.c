/* curl_multi_wait / poll / timeout interposers: while a provider transfer of the multi waits (admission,
 * backoff, a deferred answer), the host's wait returns by the time it is due and curl_multi_timeout
 * reports it. curl_multi_fdset and curl_multi_wakeup need nothing of ours: attempts run on the host's multi,
 * so libcurl's descriptors are the whole truth, and a host that selects on them takes its timeout from
 * curl_multi_timeout. */
#include "hook/base/export.h"
#include "hook/multi/multi.h"

/* The state of multi when one of its provider transfers has a step pending and the call is the host's. */
static lg_multi *waiting(CURLM *multi, long *due)
{
    if (lg_curl_depth)
        return NULL;
    lg_multi *m = lg_multi_get(multi, false);
    if (!m || !m->active || (*due = lg_multi_due_ms(m)) < 0)
        return NULL;
    return m;
}

/* Both wait and poll sleep in libcurl's poll while we wait: curl_multi_wait would return at once when the
 * multi has no descriptor (all its transfers waiting on us) and the host would spin. */
static CURLMcode capped_poll(CURLM *multi, struct curl_waitfd *extra, unsigned n, int timeout_ms, long due, int *numfds,
                             CURLMcode (*fallback)(CURLM *, struct curl_waitfd *, unsigned int, int, int *))
{
    const lg_curl_real *real = lg_curl_real_get();
    CURLMcode (*fn)(CURLM *, struct curl_waitfd *, unsigned int, int, int *) = real->m_poll ? real->m_poll : fallback;
    if (due < timeout_ms)
        timeout_ms = (int)due;
    CURLMcode rc;
    LG_AS_LIBCURL(rc = fn(multi, extra, n, timeout_ms, numfds));
    return rc;
}

EXPORT CURLMcode curl_multi_wait(CURLM *multi, struct curl_waitfd *extra, unsigned int n, int timeout_ms, int *numfds)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_wait)
        return CURLM_INTERNAL_ERROR;
    long due;
    if (timeout_ms < 0 || !waiting(multi, &due))
        return real->m_wait(multi, extra, n, timeout_ms, numfds);
    return capped_poll(multi, extra, n, timeout_ms, due, numfds, real->m_wait);
}

/* curl_multi_poll of the host's own (libcurl's inside a perform of ours jumps straight to libcurl). */
static __attribute__((noinline)) CURLMcode poll_by_host(const lg_curl_real *real, CURLM *multi,
                                                        struct curl_waitfd *extra, unsigned int n, int timeout_ms,
                                                        int *numfds)
{
    long due;
    if (timeout_ms < 0 || !waiting(multi, &due))
        return real->m_poll(multi, extra, n, timeout_ms, numfds);
    return capped_poll(multi, extra, n, timeout_ms, due, numfds, real->m_poll);
}

EXPORT CURLMcode curl_multi_poll(CURLM *multi, struct curl_waitfd *extra, unsigned int n, int timeout_ms, int *numfds)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_poll)
        return CURLM_INTERNAL_ERROR;
    if (lg_curl_depth)
        return real->m_poll(multi, extra, n, timeout_ms, numfds);
    return poll_by_host(real, multi, extra, n, timeout_ms, numfds);
}

EXPORT CURLMcode curl_multi_timeout(CURLM *multi, long *timeout_ms)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_timeout)
        return CURLM_INTERNAL_ERROR;
    long due;
    if (!waiting(multi, &due))
        return real->m_timeout(multi, timeout_ms);
    CURLMcode rc;
    LG_AS_LIBCURL(rc = real->m_timeout(multi, timeout_ms));
    if (rc == CURLM_OK && timeout_ms && (*timeout_ms < 0 || due < *timeout_ms))
        *timeout_ms = due;
    return rc;
}
