/* Interposers for the rest of a handle's life: getinfo (answers what llmgate shaped), reset, duphandle,
 * cleanup (keep the side table in step; a handle cleaned up inside a multi cancels its exchange). */
#include <stdarg.h>
#include <strings.h>

#include "hook/base/export.h"
#include "hook/curl/records.h"
#include "hook/curl/xfer.h"

/* info as its curl_off_t twin: the deprecated double infos (SIZE_DOWNLOAD, ...) share their numbers. */
static CURLINFO off_t_twin(CURLINFO info)
{
    if ((info & CURLINFO_TYPEMASK) != CURLINFO_DOUBLE)
        return info;
    return (CURLINFO)((info & ~CURLINFO_TYPEMASK) | CURLINFO_OFF_T);
}

/* Writes a size as info asks for it: a double for the deprecated infos, else a curl_off_t. */
static void put_size(CURLINFO info, void *out, curl_off_t v)
{
    if ((info & CURLINFO_TYPEMASK) == CURLINFO_DOUBLE)
        *(double *)out = (double)v;
    else
        *(curl_off_t *)out = v;
}

/* Answers the sizes of what llmgate delivered (libcurl counted the last attempt's, or an earlier
 * transfer's when no attempt went out); true when answered. */
static bool size_overridden(const lg_curl_rec *r, CURLINFO info, void *out)
{
    switch (off_t_twin(info)) {
    case CURLINFO_HEADER_SIZE:
        if (r->info_header_size < 0)
            return false;
        *(long *)out = r->info_header_size;
        return true;
    case CURLINFO_REQUEST_SIZE:
        if (!r->info_unsent)
            return false;
        *(long *)out = 0;
        return true;
    case CURLINFO_SIZE_DOWNLOAD_T: put_size(info, out, r->info_body_len); return true;
    case CURLINFO_CONTENT_LENGTH_DOWNLOAD_T:
        if (!r->info_synth && !r->info_none)
            return false;
        put_size(info, out, r->info_none ? -1 : r->info_content_length);
        return true;
    default: return false;
    }
}

/* Answers info from the record when the last perform was shaped by llmgate; true when answered. */
static bool overridden(lg_curl_rec *r, CURLINFO info, void *out)
{
    if (!r || !r->prov)
        return false;
    if (info == CURLINFO_EFFECTIVE_URL && r->url) {
        *(char **)out = r->url;
        return true;
    }
    if (!r->info_override)
        return false;
    switch (info) {
    case CURLINFO_RESPONSE_CODE: *(long *)out = r->info_status; return true;
    case CURLINFO_RETRY_AFTER:
        if (r->info_retry_after_s < 0 && !r->info_none)
            return false;
        *(curl_off_t *)out = r->info_none ? 0 : r->info_retry_after_s;
        return true;
    case CURLINFO_CONTENT_TYPE:
        if (!r->info_synth && !r->info_none)
            return false;
        *(const char **)out = r->info_none ? NULL : "application/json";
        return true;
    case CURLINFO_SCHEME:
        /* a response llmgate answered itself on a handle that never connected: still HTTP(S) */
        if (*(char **)out)
            return false;
        *(const char **)out = strncasecmp(r->url, "https:", 6) ? "HTTP" : "HTTPS";
        return true;

    default: return size_overridden(r, info, out);
    }
}

EXPORT CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
    const lg_curl_real *real = lg_curl_real_get();
    va_list ap;
    va_start(ap, info);
    void *out = va_arg(ap, void *);
    va_end(ap);
    if (!real->getinfo)
        return CURLE_FAILED_INIT;
    lg_curl_rec *r = out && info == CURLINFO_RESPONSE_CODE ? lg_rec_get(h, false) : NULL;
    if (r && r->prov && r->info_override) { /* ours alone: libcurl's answer would be replaced */
        *(long *)out = r->info_status;
        return CURLE_OK;
    }
    CURLcode rc = real->getinfo(h, info, out);
    if (rc == CURLE_OK && out && overridden(lg_rec_get(h, false), info, out))
        return CURLE_OK;
    return rc;
}

EXPORT void curl_easy_reset(CURL *h)
{
    const lg_curl_real *real = lg_curl_real_get();
    lg_curl_rec *r = lg_rec_get(h, false);
    if (r && r->multi_xfer) /* still in a multi: llmgate's exchange ends there (lg_mxfer_detach) */
        lg_rec_multi_ops_get()->detach(r->multi_xfer);
    if (real->reset)
        real->reset(h);
    if (r) { /* libcurl no longer refers to anything of ours */
        lg_xfer_free(r->kept);
        r->kept = NULL;
    }
    lg_rec_reset(h);
}

EXPORT CURL *curl_easy_duphandle(CURL *h)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->duphandle)
        return NULL;
    CURL *dup = real->duphandle(h);
    lg_curl_rec *r = dup ? lg_rec_get(h, false) : NULL;
    if (!r)
        return dup;
    lg_rec_clone(h, dup);
    lg_curl_rec *d = lg_rec_get(dup, false); /* NULL: no memory for its record */
    /* the duplicate gets the host's options, nothing of ours; h keeps ours (it may be mid-exchange) */
    lg_xfer_unshape_dup(r, dup, d ? d : r);
    return dup;
}

/* curl_easy_pause interposer: unpauses what llmgate delivers from its own buffer (lg_curl_emit_body, waiting
 * in the host's perform or kept in a multi) when that is paused, and libcurl's transfer too when a stream's
 * pause paused it (lg_relay_write); else libcurl's own. */
EXPORT CURLcode curl_easy_pause(CURL *h, int bitmask)
{
    const lg_curl_real *real = lg_curl_real_get();
    lg_curl_rec *r = lg_rec_get(h, false);
    if (r && __atomic_load_n(&r->delivery_paused, __ATOMIC_ACQUIRE)) {
        if (bitmask & CURLPAUSE_RECV)
            return CURLE_OK;
        __atomic_store_n(&r->delivery_paused, false, __ATOMIC_RELEASE);
        if (!r->stream_skip)
            return CURLE_OK;
    }
    return real->pause ? real->pause(h, bitmask) : CURLE_FAILED_INIT;
}

EXPORT void curl_easy_cleanup(CURL *h)
{
    const lg_curl_real *real = lg_curl_real_get();
    lg_curl_rec *r = lg_rec_get(h, false);
    if (r && r->multi_xfer) /* still in a multi: its exchange ends here (lg_mxfer_cancel) */
        lg_rec_multi_ops_get()->cancel(r->multi_xfer, true);
    lg_curl_xfer *kept = r ? r->kept : NULL;
    lg_rec_remove(h);
    if (real->cleanup)
        real->cleanup(h);
    lg_xfer_free(kept); /* once libcurl is done with the handle (our trampolines and list were on it) */
}
