/* curl_easy_setopt interposer: forwards exactly one argument of the type libcurl reads for the option's
 * range, and records what llmgate needs to know when the real call accepted it. */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hook/base/export.h"
#include "hook/curl/records.h"
#include "hook/base/runtime.h"
#include "llmgate/url.h"

/* Matches the URL's host against the configured providers. */
static const lg_provider *provider_of(const char *url)
{
    const lg_runtime *rt = lg_runtime_get();
    char host[256];
    if (!rt->cfg || !url || !lg_url_host(url, host, sizeof host))
        return NULL;
    return lg_config_match_host(rt->cfg, host);
}

static void record_long(lg_curl_rec *r, CURLoption opt, long v)
{
    switch (opt) {
    case CURLOPT_HEADER: r->header_opt = v; break;
    case CURLOPT_FAILONERROR: r->failonerror = v; break;
    case CURLOPT_VERBOSE: r->verbose = v; break;
    case CURLOPT_NOPROGRESS: r->noprogress = v; break;
    case CURLOPT_TIMEOUT: r->timeout_ms = v > 0 && v < LONG_MAX / 1000 ? v * 1000 : 0; break;
    case CURLOPT_TIMEOUT_MS: r->timeout_ms = v > 0 ? v : 0; break;
    case CURLOPT_FOLLOWLOCATION: r->followlocation = v; break;
    case CURLOPT_POSTFIELDSIZE: r->postsize = v; break;
    case CURLOPT_INFILESIZE: r->infilesize = v; break;
    case CURLOPT_POST: r->post = v != 0; break;
    case CURLOPT_UPLOAD: r->upload = v != 0; break;
    case CURLOPT_HTTPGET:
        if (v) {
            r->postfields = NULL;
            r->post = r->upload = false;
        }
        break;
    default: break;
    }
}

static void record_ptr(lg_curl_rec *r, CURLoption opt, void *p)
{
    switch (opt) {
    case CURLOPT_URL:
        lg_rec_set_str(&r->url, p);
        r->prov = provider_of(p);
        break;
    case CURLOPT_HTTPHEADER: r->headers = p; break;
    case CURLOPT_POSTFIELDS: r->postfields = p; break;
    case CURLOPT_COPYPOSTFIELDS: {
        size_t len = r->postsize >= 0 ? (size_t)r->postsize : (p ? strlen(p) : 0);
        char *copy = p ? malloc(len + 1) : NULL;
        if (copy) {
            memcpy(copy, p, len);
            copy[len] = '\0';
        }
        free(r->copied_postfields);
        r->copied_postfields = copy;
        r->postfields = copy;
        break;
    }
    case CURLOPT_WRITEDATA: r->writedata = p; break;
    case CURLOPT_HEADERDATA: r->headerdata = p; break;
    case CURLOPT_SEEKDATA: r->seekdata = p; break;
    case CURLOPT_READDATA: r->readdata = p; break;
    case CURLOPT_PREREQDATA: r->prereqdata = p; break;
    case CURLOPT_XOAUTH2_BEARER: lg_rec_set_str(&r->xoauth2, p); break;
    case CURLOPT_ERRORBUFFER: r->errorbuffer = p; break;
    case CURLOPT_DEBUGDATA: r->debugdata = p; break;
    case CURLOPT_XFERINFODATA: r->progressdata = p; break;
    case CURLOPT_STDERR: r->stderr_fp = p; break;
    default: break;
    }
}

/* True for an option whose value llmgate sets on the handle for an attempt, or reads to shape one: setting
 * it makes the handle's kept shaping stale (lg_curl_rec.gen). */
static bool shaping_option(CURLoption opt)
{
    switch (opt) {
    case CURLOPT_URL:
    case CURLOPT_HTTPHEADER:
    case CURLOPT_XOAUTH2_BEARER:
    case CURLOPT_PREREQFUNCTION:
    case CURLOPT_PREREQDATA:
    case CURLOPT_WRITEFUNCTION:
    case CURLOPT_WRITEDATA:
    case CURLOPT_HEADERFUNCTION:
    case CURLOPT_HEADERDATA:
    case CURLOPT_HEADER:
    case CURLOPT_FAILONERROR:
    case CURLOPT_FOLLOWLOCATION:
    case CURLOPT_VERBOSE:
    case CURLOPT_DEBUGFUNCTION:
    case CURLOPT_DEBUGDATA:
    case CURLOPT_NOPROGRESS: /* the attempt watch's (lg_curl_watch_attempt) */
    case CURLOPT_XFERINFOFUNCTION:
    case CURLOPT_XFERINFODATA:
    case LG_CURLOPT_PROGRESSFUNCTION: return true;
    default: return false;
    }
}

typedef void (*any_fn)(void);

static void record_fn(lg_curl_rec *r, CURLoption opt, any_fn f)
{
    switch (opt) {
    case CURLOPT_WRITEFUNCTION: r->writefn = (curl_write_callback)f; break;
    case CURLOPT_HEADERFUNCTION: r->headerfn = (curl_write_callback)f; break;
    case CURLOPT_DEBUGFUNCTION: r->debugfn = (curl_debug_callback)f; break;
    case CURLOPT_PREREQFUNCTION: r->prereqfn = (curl_prereq_callback)f; break;
    case CURLOPT_READFUNCTION: r->readfn = (curl_read_callback)f; break;
    case CURLOPT_XFERINFOFUNCTION: r->xferinfofn = (curl_xferinfo_callback)f; break;
    case LG_CURLOPT_PROGRESSFUNCTION: r->progressfn = (curl_progress_callback)f; break;
    case CURLOPT_SEEKFUNCTION:
        r->seekfn = (curl_seek_callback)f;
        r->has_seekfn = f != NULL;
        break;
    default: break;
    }
}

EXPORT CURLcode curl_easy_setopt(CURL *h, CURLoption opt, ...)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->setopt)
        return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, opt);
    CURLcode rc;
    lg_curl_rec *r = NULL; /* the record, once what the host set is in it */
    if (opt < CURLOPTTYPE_OBJECTPOINT) {
        long v = va_arg(ap, long);
        rc = real->setopt(h, opt, v);
        if (rc == CURLE_OK && (r = lg_rec_get(h, true)))
            record_long(r, opt, v);
    } else if (opt < CURLOPTTYPE_FUNCTIONPOINT) {
        void *p = va_arg(ap, void *);
        rc = real->setopt(h, opt, p);
        if (rc == CURLE_OK && (r = lg_rec_get(h, true)))
            record_ptr(r, opt, p);
    } else if (opt < CURLOPTTYPE_OFF_T) {
        any_fn f = va_arg(ap, any_fn);
        rc = real->setopt(h, opt, f);
        if (rc == CURLE_OK && (r = lg_rec_get(h, true)))
            record_fn(r, opt, f);
    } else if (opt < CURLOPTTYPE_BLOB) {
        curl_off_t v = va_arg(ap, curl_off_t);
        rc = real->setopt(h, opt, v);
        if (rc == CURLE_OK && (opt == CURLOPT_POSTFIELDSIZE_LARGE || opt == CURLOPT_INFILESIZE_LARGE) &&
            (r = lg_rec_get(h, true)))
            *(opt == CURLOPT_INFILESIZE_LARGE ? &r->infilesize : &r->postsize) = v;
    } else {
        void *blob = va_arg(ap, void *);
        rc = real->setopt(h, opt, blob);
    }
    va_end(ap);
    if (r && shaping_option(opt))
        r->gen++;
    return rc;
}
