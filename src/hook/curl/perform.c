/* curl_easy_perform interposer: requests to a configured provider run through the blocking driver of the
 * exchange engine (lg_gate_run), one real perform per attempt; everything else goes straight to libcurl.
 * libcurl's own perform re-enters the multi interposers: they see lg_curl_depth and pass straight on. */
#include <string.h>

#include "hook/base/export.h"
#include "hook/base/guard.h"
#include "hook/curl/progress.h"
#include "hook/curl/xfer.h"
#include "llmgate/ungated.h"

static int attempt(void *ctx, const lg_attempt *at, lg_response_view *resp)
{
    lg_curl_xfer *x = ctx;
    if (LG_UNLIKELY(!lg_xfer_prepare(x, at))) {
        lg_capture_view(&x->cap, resp);
        return LG_ATTEMPT_FATAL;
    }
    int rc = lg_xfer_result(x, x->real->perform(x->h), resp);
    while (LG_UNLIKELY(rc == 0 && !resp->delivered && lg_xfer_may_follow(resp)) && lg_xfer_follow(x, lg_runtime_get(), at, resp))
        rc = lg_xfer_result(x, x->real->perform(x->h), resp);
    return rc;
}

static bool rewind_body(void *ctx) { return lg_xfer_rewind(ctx); }

/* Runs a provider request through the gate and delivers its final response; the handle stays shaped for
 * its next perform (lg_xfer_kept). */
static CURLcode gated_perform(CURL *h, lg_curl_rec *r, const lg_curl_real *real, const lg_runtime *rt)
{
    lg_curl_xfer *x = lg_xfer_kept(r);
    lg_gate_request req;
    if (!x || !lg_xfer_open(x, h, r, rt, &req)) { /* no memory: the host's request as it is */
        lg_xfer_unshape(r);
        lg_ungated(rt->store, r->prov->name, LG_UNGATED_NO_ROOM);
        return real->perform(h);
    }
    lg_transport t = {.attempt = attempt, .rewind = rewind_body};
    lg_gate_result res = lg_gate_run(&req, &t, x);
    return lg_xfer_close(x, &res);
}

/* A plain host rule: admission only, then libcurl as usual; a refusal is answered locally. */
static CURLcode paced_perform(CURL *h, lg_curl_rec *r, const lg_curl_real *real, const lg_runtime *rt)
{
    lg_gate_request req = {.cfg = rt->cfg, .prov = r->prov, .store = rt->store,
                           .withdrawn = lg_curl_progress_watched(r) ? lg_curl_progress_aborts : NULL,
                           .withdrawn_ctx = r};
    lg_gate_result res;
    if (lg_gate_admit(&req, &res))
        return real->perform(h);
    return lg_xfer_refuse(r, &res);
}

static CURLcode perform(CURL *h, const lg_curl_real *real)
{
    lg_curl_rec *r = lg_rec_get(h, false);
    if (!r)
        return real->perform(h);
    if (!r->prov || !r->url || !real->setopt || !real->getinfo || r->prov->dialect == LG_DIALECT_NONE) {
        lg_xfer_unshape(r); /* the host's request as the host set it */
        if (!r->prov || !r->url || !real->setopt || !real->getinfo)
            return real->perform(h);
        r->info_override = false;
        return paced_perform(h, r, real, lg_runtime_get());
    }
    r->info_override = false;
    return gated_perform(h, r, real, lg_runtime_get());
}

EXPORT CURLcode curl_easy_perform(CURL *h)
{
    const lg_curl_real *real = lg_curl_real_get();
    if (!real->perform)
        return CURLE_FAILED_INIT;
    CURLcode rc; /* the bracket also keeps libcurl's own socket and TLS calls inside from being gated again */
    LG_AS_LIBCURL(rc = perform(h, real));
    return rc;
}
