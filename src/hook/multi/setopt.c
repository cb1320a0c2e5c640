/* curl_multi_setopt interposer: the host's timer callback and its data go behind our trampoline, so the
 * host's timer also wakes it for llmgate's own steps (lg_multi_timer_tramp forwards libcurl's requests as
 * they come). The socket callback needs nothing of ours: attempts run on the host's multi and libcurl
 * reports their sockets itself. Every other option goes to libcurl with one argument of its type. */
#include <stdarg.h>

#include "hook/base/export.h"
#include "hook/multi/multi.h"

typedef void (*any_fn)(void);

/* A timer option for multi, whose state is m. */
static CURLMcode set_timer(lg_multi *m, CURLMoption opt, va_list ap)
{
    const lg_curl_real *real = lg_curl_real_get();
    CURLMcode rc;
    if (opt == CURLMOPT_TIMERFUNCTION) {
        curl_multi_timer_callback fn = va_arg(ap, curl_multi_timer_callback);
        LG_AS_LIBCURL(rc = real->m_setopt(m->multi, CURLMOPT_TIMERFUNCTION, fn ? lg_multi_timer_tramp : NULL));
        if (rc != CURLM_OK)
            return rc;
        m->host_timerfn = fn;
        m->told = m->curl_expire = LG_NEVER;
    } else
        m->host_timerdata = va_arg(ap, void *);
    LG_AS_LIBCURL(rc = real->m_setopt(m->multi, CURLMOPT_TIMERDATA, (void *)m));
    return rc;
}

EXPORT CURLMcode curl_multi_setopt(CURLM *multi, CURLMoption opt, ...)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_setopt)
        return CURLM_INTERNAL_ERROR;
    bool timer = !lg_curl_depth && (opt == CURLMOPT_TIMERFUNCTION || opt == CURLMOPT_TIMERDATA);
    lg_multi *m = timer ? lg_multi_get(multi, true) : NULL;
    va_list ap;
    va_start(ap, opt);
    CURLMcode rc;
    if (m)
        rc = set_timer(m, opt, ap);
    else if (opt < CURLOPTTYPE_OBJECTPOINT)
        rc = real->m_setopt(multi, opt, va_arg(ap, long));
    else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
        rc = real->m_setopt(multi, opt, va_arg(ap, void *));
    else if (opt < CURLOPTTYPE_OFF_T)
        rc = real->m_setopt(multi, opt, va_arg(ap, any_fn));
    else
        rc = real->m_setopt(multi, opt, va_arg(ap, curl_off_t));
    va_end(ap);
    return rc;
}
