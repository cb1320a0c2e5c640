/* The life of one gated libcurl transfer (see xfer.h): opened on the handle's kept transfer (the
 * request the engine sees), each attempt prepared and its result read back, redirects followed with or
 * without the key, the final response delivered to the host, refusals and cancellation, and what an
 * exchange held released. The handle is shaped for each attempt by shape.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/curl/auth.h"
#include "hook/curl/deliver.h"
#include "hook/curl/progress.h"
#include "hook/curl/shape.h"
#include "llmgate/clock.h"
#include "front/answer_translate.h"
#include "hook/curl/xfer.h"
#include "llmgate/log.h"
#include "llmgate/url.h"

/* Classifies a libcurl error: worth a bounded retry, or to be shown to the host at once (cold: a
 * transfer that fails). */
__attribute__((cold)) static lg_transport_failure transport_error(CURLcode rc)
{
    switch (rc) {
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_COULDNT_CONNECT:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return LG_ATTEMPT_RETRYABLE;
    case CURLE_OPERATION_TIMEDOUT: /* the host's CURLOPT_TIMEOUT (or connect timeout) */
    case CURLE_ABORTED_BY_CALLBACK:
        return LG_ATTEMPT_ABANDONED;
    default:
        return LG_ATTEMPT_FATAL;
    }
}

/* A fingerprint of the host's header list as it is now: its nodes and their strings (a host may append to
 * the list it set without setting it again, and libcurl reads the list as it is at each transfer). */
static uintptr_t headers_print(const struct curl_slist *l)
{
    uintptr_t h = 0;
    for (; l; l = l->next)
        h = (h * 31) ^ (uintptr_t)l ^ ((uintptr_t)l->data << 1);
    return h;
}

bool lg_xfer_open(lg_curl_xfer *x, CURL *h, lg_curl_rec *r, const lg_runtime *rt, lg_gate_request *req)
{
    x->h = h;
    x->rec = r;
    x->real = lg_curl_real_get();
    x->hops = 0;
    x->last_rc = CURLE_OK;
    uintptr_t print = headers_print(r->headers);
    bool fresh = !x->installed || x->gen != r->gen || x->headers_print != print || !x->base_url;
    x->prov = r->prov;
    if (fresh) { /* the host changed what we read or set: read it again, install everything */
        free(x->base_url);
        x->url_is_base = false;
        x->base_url = r->prov->upstream ? lg_url_rebase(r->prov->upstream, r->url) : strdup(r->url);
        if (!x->base_url)
            return false;
        char probe[LG_XFER_KEY_MAX];
        x->key_in_query = lg_url_query_get(r->url, "key", probe, sizeof probe);
        explicit_bzero(probe, sizeof probe);
        x->has_pin = lg_curl_find_pin(r, x->pin, sizeof x->pin);
        x->drops_lines = lg_slist_drops_lines(r->headers);
    }
    size_t key_bytes = fresh ? lg_curl_find_key(r, x->host_key, sizeof x->host_key, &x->key_spot)
                             : lg_curl_key_again(r, x->host_key, sizeof x->host_key, &x->key_spot);
    bool has_key = key_bytes > 0;
    x->host_key_used = has_key ? key_bytes : sizeof x->host_key;
    /* a body only the host's callback can give, once: held, so that an attempt can be sent again */
    if (LG_UNLIKELY(lg_curl_body_is_read(r)) && lg_curl_body_hold(&x->body, r, rt->cfg->max_held_body)) {
        lg_shape_put_reader(x);
    } else if (LG_UNLIKELY(x->body.on)) {
        lg_shape_put_host_reader(x->real, h, r);
        x->body.on = false;
    }
    bool held = x->body.on && x->body.whole;
    *req = (lg_gate_request){
        .cfg = rt->cfg,
        .prov = r->prov,
        .store = rt->store,
        .host_key = has_key ? x->host_key : NULL,
        .replayable = r->postfields || !(r->post || r->upload) || r->has_seekfn || held,
        .body = held ? x->body.held : r->postfields,
        .body_len = held             ? x->body.held_len
                    : !r->postfields ? 0
                    : r->postsize >= 0 ? (size_t)r->postsize
                                       : strlen(r->postfields),
        .pin = x->has_pin ? x->pin : NULL,
        .url = r->url,
        .reroutes = true,
        .program = program_invocation_short_name,
        .has_header = lg_curl_has_header,
        .header_ctx = r,
        .max_wait_ms = r->timeout_ms,
        .withdrawn = lg_curl_progress_watched(r) ? lg_curl_progress_aborts : NULL,
        .withdrawn_ctx = r,
    };
    r->info_override = false;
    const lg_retry_conf *rc = &rt->cfg->retry;
    x->watch = rc->attempt_timeout_ms > 0 || rc->idle_timeout_ms > 0 ? rc : NULL;
    x->cap.skip_lines = !lg_curl_takes_headers(r); /* raw lines go nowhere else (lg_curl_deliver_headers) */
    if (fresh) {
        lg_shape_install_capture(x);
        x->gen = r->gen;
        x->headers_print = print;
    }
    return true;
}

lg_curl_xfer *lg_xfer_kept(lg_curl_rec *r)
{
    if (!r->kept)
        r->kept = calloc(1, sizeof *r->kept);
    return r->kept;
}

void lg_xfer_forget_key(lg_curl_xfer *x)
{
    explicit_bzero(x->host_key, x->host_key_used);
    x->host_key_used = 0;
}

/* Sets up the translation of the attempt's response for the host (a stream translator for a relayed
 * stream); false when out of memory. */
static bool prepare_translation(lg_curl_xfer *x, const lg_attempt *at)
{
    bool ok = lg_attempt_tr_start(&x->tr, x->prov->dialect, at->prov ? at->prov->dialect : x->prov->dialect, at->tr);
    x->sink.tr = x->tr.stream;
    return ok;
}

/* Empties the capture and the relay for a new response of attempt at (its translation set up afresh);
 * false when out of memory. */
static bool reset_response(lg_curl_xfer *x, const lg_attempt *at)
{
    const lg_provider *prov = at->prov ? at->prov : x->prov;
    x->sends = 0;
    x->resend_refused = false;
    x->timed_out = false;
    x->watch_seen = 0;
    x->watch_at_ms = x->watch ? lg_mono_ms() : 0;
    lg_capture_reset(&x->cap);
    x->sink.rec = x->rec;
    lg_relay_reset(&x->relay, &x->sink, &x->cap, prov->dialect, prov->boundary);
    bool ok = prepare_translation(x, at);
    if (x->tr.on) /* a whole answer is translated at delivery: never let it through untranslated */
        x->relay.pass_over = SIZE_MAX;
    return ok;
}

bool lg_xfer_prepare(lg_curl_xfer *x, const lg_attempt *at)
{
    x->hops = 0;
    if (reset_response(x, at) && lg_shape_request(x, at))
        return true;
    x->last_rc = CURLE_OUT_OF_MEMORY;
    return false;
}

/* libcurl's own message for the error the host sees instead of a refused second send (cold). */
__attribute__((cold)) static void report_got_nothing(lg_curl_xfer *x)
{
    x->last_rc = CURLE_GOT_NOTHING;
    if (x->rec->errorbuffer && x->real->strerror)
        snprintf(x->rec->errorbuffer, CURL_ERROR_SIZE, "%s", x->real->strerror(CURLE_GOT_NOTHING));
}

int lg_xfer_result(lg_curl_xfer *x, CURLcode rc, lg_response_view *resp)
{
    if (LG_UNLIKELY(x->timed_out) && rc == CURLE_ABORTED_BY_CALLBACK) {
        rc = CURLE_OPERATION_TIMEDOUT; /* what the host sees when it is the last attempt */
        if (x->rec->errorbuffer)
            snprintf(x->rec->errorbuffer, CURL_ERROR_SIZE, "llmgate: no answer within retry.%s",
                     x->watch_seen ? "idle_timeout_ms" : "attempt_timeout_ms");
    }
    x->last_rc = rc;
    if (rc == CURLE_ABORTED_BY_CALLBACK && x->resend_refused) {
        report_got_nothing(x);
        lg_capture_view(&x->cap, resp);
        return LG_ATTEMPT_STALE;
    }
    lg_capture_view(&x->cap, resp);
    if (lg_relay_committed(&x->relay)) {
        /* the host has (part of) this stream: whatever happened, it is the final response */
        if (x->last_rc == CURLE_OK && !lg_relay_finish(&x->relay))
            x->last_rc = CURLE_WRITE_ERROR;
        else if (x->last_rc == CURLE_OK && !lg_curl_sink_finish(&x->sink))
            x->last_rc = x->relay.host_refused ? CURLE_WRITE_ERROR : CURLE_PARTIAL_FILE;
        resp->delivered = true;
        return 0;
    }
    if (LG_UNLIKELY(x->timed_out) && x->last_rc == CURLE_OPERATION_TIMEDOUT)
        return LG_ATTEMPT_TIMED_OUT;
    if (x->last_rc == CURLE_OK || x->relay.stopped_on_error) {
        /* libcurl's response code is the last status line's three digits, which the capture read: asked
         * only when the capture has no such line */
        long code = 0;
        if (LG_UNLIKELY(!x->cap.status_plain) &&
            x->real->getinfo(x->h, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code > 0)
            resp->status = (int)code;
        return 0;
    }
    return transport_error(x->last_rc);
}

bool lg_xfer_rewind(lg_curl_xfer *x)
{
    lg_curl_rec *r = x->rec;
    if (LG_UNLIKELY(x->body.on))
        return lg_curl_body_seek(&x->body, 0, SEEK_SET) == CURL_SEEKFUNC_OK;
    if (r->postfields || !(r->post || r->upload))
        return true;
    return r->has_seekfn && r->seekfn(r->seekdata, 0, SEEK_SET) == CURL_SEEKFUNC_OK;
}

#define KEPT_CAPTURE_MAX (64 * 1024) /* capture buffers kept for the handle's next exchange, at most */

/* Frees what the exchange held (buffers of a usual size stay for the handle's next exchange). */
static void release(lg_curl_xfer *x)
{
    lg_xfer_forget_key(x);
    lg_curl_body_release(&x->body);
    lg_relay_free(&x->relay);
    lg_attempt_tr_free(&x->tr);
    x->sink.tr = NULL;
    lg_capture_shrink(&x->cap, KEPT_CAPTURE_MAX);
}

CURLcode lg_xfer_close(lg_curl_xfer *x, const lg_gate_result *res)
{
    CURLcode rc;
    if (res->verdict == LG_GATE_DELIVERED) {
        rc = x->last_rc;
    } else if (res->verdict == LG_GATE_TRANSPORT) {
        lg_gate_result as_is = *res;
        as_is.normalized = false;
        as_is.status = x->cap.status;
        if (!x->tr.on) /* what came of another dialect's answer is no part of the host's: only the error */
            lg_curl_deliver(x->rec, &x->cap, &as_is);
        x->rec->info_override = false;
        rc = x->last_rc;
    } else {
        if (res->verdict == LG_GATE_DELIVER && x->tr.on)
            lg_capture_translate(&x->cap, x->tr.target, x->tr.host);
        rc = lg_curl_deliver(x->rec, &x->cap, res);
    }
    release(x);
    return rc;
}

void lg_xfer_abandon(lg_curl_xfer *x)
{
    lg_shape_restore_host(x);
    release(x);
}

void lg_xfer_free(lg_curl_xfer *x)
{
    if (!x)
        return;
    release(x);
    lg_capture_free(&x->cap);
    if (x->attempt_hdrs)
        lg_slist_free(x->attempt_hdrs);
    free(x->set_url);
    free(x->base_url);
    free(x);
}

CURLcode lg_xfer_refuse(lg_curl_rec *r, const lg_gate_result *res)
{
    lg_capture none = {0};
    return lg_curl_deliver(r, &none, res);
}

/* The URL a redirect's Location names, from the URL just fetched: absolute as it is, an absolute path on
 * the same origin. NULL for anything else (a relative path is not followed) or on allocation failure. */
static char *redirect_url(const char *from, const char *location)
{
    if (!strncasecmp(location, "http://", 7) || !strncasecmp(location, "https://", 8))
        return strdup(location);
    if (location[0] != '/' || location[1] == '/')
        return NULL;
    const char *path = lg_url_path(from);
    size_t origin = (size_t)(path - from);
    char *out = malloc(origin + strlen(location) + 1);
    if (out) {
        memcpy(out, from, origin);
        strcpy(out + origin, location);
    }
    return out;
}

/* True when url is on the same origin (scheme://host:port) as base. */
static bool same_origin(const char *base, const char *url)
{
    size_t n = (size_t)(lg_url_path(base) - base);
    return n && !strncasecmp(base, url, n) && (url[n] == '/' || url[n] == '?' || url[n] == '\0');
}

bool lg_xfer_follow(lg_curl_xfer *x, const lg_runtime *rt, const lg_attempt *at, const lg_response_view *resp)
{
    int s = resp->status;
    bool keeps_body = s == 307 || s == 308;
    bool has_body = x->rec->postfields || x->rec->post || x->rec->upload;
    if (!at->key || !x->rec->followlocation || x->last_rc != CURLE_OK || x->hops >= LG_XFER_HOPS_MAX ||
        !(keeps_body || ((s == 301 || s == 302 || s == 303) && !has_body)))
        return false; /* the host's own credentials follow as libcurl does; others are delivered as they are */
    const char *location = lg_header_get(resp->headers, resp->n_headers, "location");
    if (!location)
        return false;
    char *from = NULL;
    if (x->real->getinfo(x->h, CURLINFO_EFFECTIVE_URL, &from) != CURLE_OK || !from)
        return false;
    char *to = redirect_url(from, location);
    char host[256];
    if (!to || !lg_url_host(to, host, sizeof host) || (has_body && !lg_xfer_rewind(x))) {
        free(to);
        return false;
    }
    /* a key of ours goes only to its own provider: the same origin, or a host of the provider (sent
     * through its upstream when it has one); anywhere else the request follows without any key */
    bool ours = same_origin(from, to) || lg_config_match_host(rt->cfg, host) == (at->prov ? at->prov : x->prov);
    const lg_provider *p = at->prov ? at->prov : x->prov;
    char *url = ours && !same_origin(from, to) && p->upstream ? lg_url_rebase(p->upstream, to) : strdup(to);
    struct curl_slist *hdrs = lg_slist_with_key(x->rec->headers, ours ? at->key : NULL, p->auth,
                                                ours ? x->key_in_query || x->rec->xoauth2 : true, !ours);
    free(to);
    if (!url || (!hdrs && !(!ours && lg_slist_only_auth(x->rec->headers)))) {
        free(url);
        if (hdrs)
            lg_slist_free(hdrs);
        return false;
    }
    if (!reset_response(x, at)) {
        free(url);
        if (hdrs)
            lg_slist_free(hdrs);
        return false;
    }
    lg_shape_put_url(x, url);
    free(url);
    lg_shape_put_headers(x, hdrs, true); /* NULL: the host's list held only credentials */
    x->hops++;
    lg_log(LG_LOG_DEBUG, "[Redirect] %s: %d to %s %s", p->name, s, host, ours ? "with the key" : "without any key");
    return true;
}
