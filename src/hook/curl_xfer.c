/* One gated libcurl transfer, shaped attempt by attempt (see curl_xfer.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hook/curl_auth.h"
#include "hook/curl_deliver.h"
#include "hook/curl_progress.h"
#include "hook/curl_translate.h"
#include "hook/curl_xfer.h"
#include "llmgate/log.h"
#include "llmgate/url.h"

/* The URL of an attempt on provider p, another than the request's own: the host's path and query on p's
 * upstream, else on p's first host over https. Caller frees. Cold: only fallbacks take it. */
__attribute__((cold)) static char *url_on(const lg_provider *p, const char *url)
{
    if (p->upstream)
        return lg_url_rebase(p->upstream, url);
    char *base = NULL;
    if (!p->n_hosts || asprintf(&base, "https://%s", p->hosts[0]) < 0)
        return NULL;
    char *out = lg_url_rebase(base, url);
    free(base);
    return out;
}

/* The URL of an attempt translated for provider p: p's upstream (or first host over https) and the
 * target's path. Caller frees. Cold: only translated fallbacks take it. */
__attribute__((cold)) static char *url_translated(const lg_provider *p, const char *path)
{
    char *out = NULL;
    if (p->upstream) {
        size_t n = strlen(p->upstream);
        while (n > 0 && p->upstream[n - 1] == '/')
            n--;
        return asprintf(&out, "%.*s%s", (int)n, p->upstream, path) < 0 ? NULL : out;
    }
    return p->n_hosts && asprintf(&out, "https://%s%s", p->hosts[0], path) >= 0 ? out : NULL;
}

/* Our header list for an attempt translated for provider p: the host's headers without its auth and pin,
 * key in p's auth style, the target's extra header, and a JSON content type when the host named none
 * (curl -d would send a form's). NULL when out of memory. Cold, as url_translated. */
__attribute__((cold)) static struct curl_slist *headers_translated(const lg_curl_xfer *x, const lg_provider *p, const char *key,
                                             const lg_translation *tr)
{
    struct curl_slist *l = lg_slist_with_key(x->rec->headers, key, p->auth, false, true);
    if (l && !lg_curl_has_header(x->rec, "content-type") &&
        !lg_slist_append_copy(&l, "Content-Type: application/json")) {
        lg_slist_free(l);
        return NULL;
    }
    if (l && tr->header && !lg_slist_append_copy(&l, tr->header)) {
        lg_slist_free(l);
        return NULL;
    }
    return l;
}

/* The option of the size of r's body when it is read from a callback: an upload's or a POST's. */
static CURLoption read_size_option(const lg_curl_rec *r)
{
    return r->upload ? CURLOPT_INFILESIZE_LARGE : CURLOPT_POSTFIELDSIZE_LARGE;
}

/* Sets the attempt's body (the engine's rewrite) or puts the host's back. A held body (x->body.on) is read
 * by our callback, which sends the rewrite in its place (libcurl reads an upload's body from the callback
 * whatever POSTFIELDS holds), with its size. */
static void shape_body(lg_curl_xfer *x, const lg_attempt *at)
{
    const lg_curl_rec *r = x->rec;
    if (LG_UNLIKELY(x->body.on)) {
        lg_curl_body_send(&x->body, at->body, at->body_len);
        x->real->setopt(x->h, read_size_option(r), (curl_off_t)x->body.src_len);
    } else if (LG_UNLIKELY(at->body)) {
        x->real->setopt(x->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)at->body_len);
        x->real->setopt(x->h, CURLOPT_POSTFIELDS, at->body);
        x->body_replaced = true;
    } else if (LG_UNLIKELY(x->body_replaced)) {
        x->real->setopt(x->h, CURLOPT_POSTFIELDSIZE_LARGE, r->postsize);
        x->real->setopt(x->h, CURLOPT_POSTFIELDS, r->postfields);
        x->body_replaced = false;
    }
}

/* Sets url on the handle unless it is what we set last (libcurl copies it: only our copy is kept, to
 * compare; base_url set last is known without comparing). */
static void put_url(lg_curl_xfer *x, const char *url)
{
    bool base = url == x->base_url;
    if (base && x->url_is_base)
        return;
    if (LG_UNLIKELY(!x->set_url || strcmp(x->set_url, url))) { /* a kept handle has it already */
        x->real->setopt(x->h, CURLOPT_URL, url);
        free(x->set_url);
        x->set_url = strdup(url); /* NULL: set again next time */
    }
    x->url_is_base = base && x->set_url;
}

/* Sets list (ours, or the host's when list is NULL and own is false) as the handle's header list; our
 * previous list is freed once off the handle. */
static void put_headers(lg_curl_xfer *x, struct curl_slist *list, bool own)
{
    struct curl_slist *old = x->attempt_hdrs;
    x->real->setopt(x->h, CURLOPT_HTTPHEADER, own ? list : x->rec->headers);
    x->attempt_hdrs = own ? list : NULL;
    x->hdrs_reusable = false;
    if (old && old != list)
        lg_slist_free(old);
}

/* Sets CURLOPT_FOLLOWLOCATION to v unless it is what we set last. */
static void put_follow(lg_curl_xfer *x, long v)
{
    if (x->set_follow != v)
        x->real->setopt(x->h, CURLOPT_FOLLOWLOCATION, v);
    x->set_follow = v;
}

/* Installs the URL, header list and body of an attempt; what is already on the handle as the attempt needs
 * it (the same URL, a header list made for the same key and provider) is left as it is. */
static bool shape_request(lg_curl_xfer *x, const lg_attempt *at)
{
    const char *key = at->key;
    x->debug.key = key;
    const lg_provider *prov = at->prov ? at->prov : x->prov;
    bool other = prov != x->prov;
    if (LG_UNLIKELY(at->tr && !key))
        return false; /* a translated request goes with a key of the target's own, never the host's */
    char *other_base = at->tr ? url_translated(prov, at->tr->path) : other ? url_on(prov, x->rec->url) : NULL;
    const char *url = other ? other_base : x->base_url;
    char *keyed = LG_UNLIKELY(url && key && x->key_in_query && !at->tr) ? lg_url_query_set(url, "key", key) : NULL;
    if (LG_UNLIKELY(keyed))
        url = keyed;
    else if (LG_UNLIKELY(key && x->key_in_query && !at->tr))
        url = NULL;
    bool key_elsewhere = (x->key_in_query || x->rec->xoauth2) && !at->tr;
    bool own_list = (key && (x->rec->headers || !key_elsewhere)) || x->drops_lines || at->tr;
    bool reuse = !at->tr && x->hdrs_reusable && x->hdrs_own == own_list &&
                 (!own_list || (x->hdrs_key == key && x->hdrs_prov == prov));
    struct curl_slist *list = NULL;
    if (own_list && !reuse)
        list = at->tr ? headers_translated(x, prov, key, at->tr)
                      : lg_slist_with_key(x->rec->headers, key, prov->auth, key_elsewhere, other);
    bool ok = url && (!own_list || reuse || list);
    if (ok) {
        put_url(x, url);
        if (!reuse) {
            put_headers(x, list, own_list);
            x->hdrs_reusable = !at->tr;
            x->hdrs_own = own_list;
            x->hdrs_key = key;
            x->hdrs_prov = prov;
        }
        if (LG_UNLIKELY(key && x->rec->xoauth2))
            x->real->setopt(x->h, CURLOPT_XOAUTH2_BEARER, key);
        put_follow(x, key ? 0L : x->rec->followlocation); /* a key of ours never follows a redirect to another host */
        shape_body(x, at);
    } else if (list) {
        lg_slist_free(list);
    }
    free(keyed);
    free(other_base);
    return ok;
}

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
    default:
        return LG_ATTEMPT_FATAL;
    }
}

/* CURLOPT_PREREQFUNCTION while an attempt runs: a request goes (the host's own callback, if any, has its
 * say) unless it is libcurl sending the attempt's request a second time, after a kept-alive connection
 * closed before any answer: that one is refused (the engine decides about sending again). A request after
 * an answer (a redirect libcurl follows for the host's own credentials, an auth round) goes. */
static int count_send(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port)
{
    lg_curl_xfer *x = clientp;
    if (LG_UNLIKELY(x->sends++ > 0 && !x->cap.any_line)) {
        x->resend_refused = true;
        return CURL_PREREQFUNC_ABORT;
    }
    const lg_curl_rec *r = x->rec;
    return r->prereqfn ? r->prereqfn(r->prereqdata, primary_ip, local_ip, primary_port, local_port)
                       : CURL_PREREQFUNC_OK;
}

/* Our trampolines in; what we set of the request before is forgotten (set again by the next attempt). */
static void install_capture(lg_curl_xfer *x)
{
    const lg_curl_real *real = x->real;
    real->setopt(x->h, CURLOPT_PREREQFUNCTION, count_send); /* an older libcurl without it sends again itself */
    real->setopt(x->h, CURLOPT_PREREQDATA, x);
    real->setopt(x->h, CURLOPT_WRITEFUNCTION, lg_relay_write);
    real->setopt(x->h, CURLOPT_WRITEDATA, &x->relay);
    real->setopt(x->h, CURLOPT_HEADERFUNCTION, lg_capture_header);
    real->setopt(x->h, CURLOPT_HEADERDATA, &x->cap);
    real->setopt(x->h, CURLOPT_HEADER, 0L);
    real->setopt(x->h, CURLOPT_FAILONERROR, 0L);
    if (LG_UNLIKELY(lg_curl_debug_wanted(x->rec))) {
        x->debug.rec = x->rec;
        real->setopt(x->h, CURLOPT_DEBUGFUNCTION, lg_curl_debug_relay);
        real->setopt(x->h, CURLOPT_DEBUGDATA, &x->debug);
    }
    free(x->set_url);
    x->set_url = NULL;
    x->url_is_base = false;
    x->hdrs_reusable = false;
    x->set_follow = -1;
    x->installed = true;
}

/* The host's own read and seek callbacks and body size on handle h, in place of our reader of a held body. */
static void put_host_reader(const lg_curl_real *real, CURL *h, const lg_curl_rec *r)
{
    real->setopt(h, CURLOPT_READFUNCTION, r->readfn);
    real->setopt(h, CURLOPT_READDATA, r->readdata);
    real->setopt(h, CURLOPT_SEEKFUNCTION, r->seekfn);
    real->setopt(h, CURLOPT_SEEKDATA, r->seekdata);
    real->setopt(h, read_size_option(r), r->upload ? r->infilesize : r->postsize);
}

/* Our reader (and seek callback) of x's held body on its handle, in place of the host's. */
static void put_reader(lg_curl_xfer *x)
{
    x->real->setopt(x->h, CURLOPT_READFUNCTION, lg_curl_body_read);
    x->real->setopt(x->h, CURLOPT_READDATA, &x->body);
    x->real->setopt(x->h, CURLOPT_SEEKFUNCTION, lg_curl_body_seek);
    x->real->setopt(x->h, CURLOPT_SEEKDATA, &x->body);
    x->body.on = true;
}

/* Sets the host's own options, as record r holds them, on handle h in place of everything x shapes (the
 * body too when x replaced it or reads a held one). */
static void put_host(const lg_curl_xfer *x, CURL *h, const lg_curl_rec *r)
{
    const lg_curl_real *real = x->real;
    real->setopt(h, CURLOPT_URL, r->url);
    real->setopt(h, CURLOPT_HTTPHEADER, r->headers);
    real->setopt(h, CURLOPT_PREREQFUNCTION, r->prereqfn);
    real->setopt(h, CURLOPT_PREREQDATA, r->prereqdata);
    real->setopt(h, CURLOPT_WRITEFUNCTION, r->writefn);
    real->setopt(h, CURLOPT_WRITEDATA, r->writedata);
    real->setopt(h, CURLOPT_HEADERFUNCTION, r->headerfn);
    real->setopt(h, CURLOPT_HEADERDATA, r->headerdata);
    real->setopt(h, CURLOPT_HEADER, r->header_opt);
    real->setopt(h, CURLOPT_FAILONERROR, r->failonerror);
    real->setopt(h, CURLOPT_FOLLOWLOCATION, r->followlocation);
    if (LG_UNLIKELY(lg_curl_debug_wanted(r))) {
        real->setopt(h, CURLOPT_DEBUGFUNCTION, r->debugfn);
        real->setopt(h, CURLOPT_DEBUGDATA, r->debugdata);
    }
    if (x->body_replaced) {
        real->setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, r->postsize);
        real->setopt(h, CURLOPT_POSTFIELDS, r->postfields);
    }
    if (x->body.on)
        put_host_reader(real, h, r);
    if (r->xoauth2)
        real->setopt(h, CURLOPT_XOAUTH2_BEARER, r->xoauth2);
}

/* The host's own options back out; our URL and header list freed. */
static void restore_host(lg_curl_xfer *x)
{
    put_host(x, x->h, x->rec);
    x->body_replaced = false;
    x->body.on = false;
    if (x->attempt_hdrs)
        lg_slist_free(x->attempt_hdrs);
    x->attempt_hdrs = NULL;
    x->hdrs_reusable = false;
    free(x->set_url);
    x->set_url = NULL;
    x->url_is_base = false;
    x->installed = false;
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
        put_reader(x);
    } else if (LG_UNLIKELY(x->body.on)) {
        put_host_reader(x->real, h, r);
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
    x->cap.skip_lines = !lg_curl_takes_headers(r); /* raw lines go nowhere else (lg_curl_deliver_headers) */
    if (fresh) {
        install_capture(x);
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

void lg_xfer_unshape(lg_curl_rec *r)
{
    if (r->kept && r->kept->installed)
        restore_host(r->kept);
}

void lg_xfer_unshape_dup(const lg_curl_rec *r, CURL *dup, const lg_curl_rec *dup_rec)
{
    if (r->kept && r->kept->installed)
        put_host(r->kept, dup, dup_rec);
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
    if (reset_response(x, at) && shape_request(x, at))
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
    restore_host(x);
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
    put_url(x, url);
    free(url);
    put_headers(x, hdrs, true); /* NULL: the host's list held only credentials */
    x->hops++;
    lg_log(LG_LOG_DEBUG, "[Redirect] %s: %d to %s %s", p->name, s, host, ours ? "with the key" : "without any key");
    return true;
}
