/* curl_multi_add_handle / remove_handle / cleanup interposers: a provider handle is taken over by the
 * multi front end (drive.c); removing it cancels its exchange; everything else is libcurl's. */
#include "hook/base/export.h"
#include "hook/multi/multi.h"

/* curl_multi_add_handle of the host's own (not libcurl's inside a perform of ours). */
static __attribute__((noinline)) CURLMcode add_by_host(const lg_curl_real *real, CURLM *multi, CURL *h)
{
    lg_curl_rec *r = lg_rec_get(h, false);
    if (r && r->multi_xfer)
        return CURLM_ADDED_ALREADY;
    if (r && r->prov && r->url && real->setopt && real->getinfo && real->m_remove && real->m_info_read) {
        lg_multi *m = lg_multi_get(multi, true);
        int rc = m ? lg_mxfer_add(m, h, r) : -1;
        if (rc >= 0) {
            lg_multi_timer_sync(m);
            return (CURLMcode)rc;
        }
    }
    if (r)
        lg_xfer_unshape(r); /* the host's transfer as the host set it up */
    CURLMcode rc;
    LG_AS_LIBCURL(rc = real->m_add(multi, h));
    return rc;
}

/* The hooks below are called by libcurl itself, inside a perform, on every transfer of the host: that case
 * (lg_curl_depth) is a load and a jump to libcurl, the host's own call goes to a function of its own. */
EXPORT CURLMcode curl_multi_add_handle(CURLM *multi, CURL *h)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_add)
        return CURLM_INTERNAL_ERROR;
    if (lg_curl_depth)
        return real->m_add(multi, h);
    return add_by_host(real, multi, h);
}

/* curl_multi_remove_handle of the host's own. */
static __attribute__((noinline)) CURLMcode remove_by_host(const lg_curl_real *real, CURLM *multi, CURL *h)
{
    lg_curl_rec *r = lg_rec_get(h, false);
    lg_mxfer *t = r ? r->multi_xfer : NULL;
    if (t && t->m->multi == multi) {
        lg_multi_queue_drop(t->m, h);
        lg_mxfer_cancel(t, true); /* out of libcurl first: no callback of ours runs after this */
        return CURLM_OK;
    } else {
        lg_multi *m = lg_multi_get(multi, false);
        if (m)
            lg_multi_queue_drop(m, h);
    }
    CURLMcode rc;
    LG_AS_LIBCURL(rc = real->m_remove(multi, h));
    return rc;
}

EXPORT CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *h)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_remove)
        return CURLM_INTERNAL_ERROR;
    if (lg_curl_depth)
        return real->m_remove(multi, h);
    return remove_by_host(real, multi, h);
}

EXPORT CURLMcode curl_multi_cleanup(CURLM *multi)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->m_cleanup)
        return CURLM_INTERNAL_ERROR;
    if (lg_curl_depth)
        return real->m_cleanup(multi);
    CURLMcode rc;
    LG_AS_LIBCURL(rc = real->m_cleanup(multi));
    lg_multi_forget(multi);
    return rc;
}
