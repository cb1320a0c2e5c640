/* Interposers for the rest of a handle's life: getinfo (answers what llmgate shaped), reset, duphandle,
 * cleanup (keep the side table in step; a handle cleaned up inside a multi cancels its exchange). */
#include <stdarg.h>
#include <strings.h>

#include "hook/curl_multi.h"

#define EXPORT __attribute__((visibility("default")))

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
        if (r->info_retry_after_s < 0)
            return false;
        *(curl_off_t *)out = r->info_retry_after_s;
        return true;
    case CURLINFO_CONTENT_TYPE:
        if (!r->info_content_type)
            return false;
        *(char **)out = r->info_content_type;
        return true;
    case CURLINFO_SCHEME:
        /* a response llmgate answered itself on a handle that never connected: still HTTP(S) */
        if (*(char **)out)
            return false;
        *(const char **)out = strncasecmp(r->url, "https:", 6) ? "HTTP" : "HTTPS";
        return true;

    default: return false;
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
    if (real->reset)
        real->reset(h);
    lg_curl_rec *r = lg_rec_get(h, false);
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
    lg_curl_rec *r = lg_rec_get(h, false);
    if (r)
        lg_xfer_unshape(r); /* the duplicate gets the host's options, nothing of ours */
    CURL *dup = real->duphandle(h);
    if (dup)
        lg_rec_clone(h, dup);
    return dup;
}

EXPORT void curl_easy_cleanup(CURL *h)
{
    const lg_curl_real *real = lg_curl_real_get();
    lg_curl_rec *r = lg_rec_get(h, false);
    if (r && r->multi_xfer) /* still in a multi: its exchange ends here */
        lg_mxfer_cancel(r->multi_xfer, true);
    lg_curl_xfer *kept = r ? r->kept : NULL;
    lg_rec_remove(h);
    if (real->cleanup)
        real->cleanup(h);
    lg_xfer_free(kept); /* once libcurl is done with the handle (our trampolines and list were on it) */
}
