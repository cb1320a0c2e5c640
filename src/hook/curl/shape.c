/* The shaping of a gated libcurl transfer's handle (see shape.h): an attempt's URL (on another
 * provider, translated, a key in the query), our header list with the chosen key, its body (a rewrite, or
 * our reader of a held body), CURLOPT_FOLLOWLOCATION, our capture trampolines, and the host's own options
 * put back. The transfer's life (open, attempts' results, redirects, delivery) is xfer.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/curl/auth.h"
#include "hook/curl/shape.h"
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

void lg_shape_put_url(lg_curl_xfer *x, const char *url)
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

void lg_shape_put_headers(lg_curl_xfer *x, struct curl_slist *list, bool own)
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

bool lg_shape_request(lg_curl_xfer *x, const lg_attempt *at)
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
        lg_shape_put_url(x, url);
        if (!reuse) {
            lg_shape_put_headers(x, list, own_list);
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

/* CURLOPT_PREREQFUNCTION while an attempt runs: a request goes (the host's own callback, if any, has its
 * say) unless it is libcurl sending the attempt's request a second time, after a kept-alive connection
 * closed before any answer: that one is refused (the engine decides about sending again). A request after
 * an answer (a redirect libcurl follows for the host's own credentials, an auth round) goes. */
static int count_send(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port)
{
    lg_curl_xfer *x = clientp;
    if (LG_UNLIKELY(x->sends++ > 0 && !x->cap.lines_seen)) {
        x->resend_refused = true;
        return CURL_PREREQFUNC_ABORT;
    }
    const lg_curl_rec *r = x->rec;
    return r->prereqfn ? r->prereqfn(r->prereqdata, primary_ip, local_ip, primary_port, local_port)
                       : CURL_PREREQFUNC_OK;
}

void lg_shape_install_capture(lg_curl_xfer *x)
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
    if (x->watch) {
        real->setopt(x->h, CURLOPT_XFERINFOFUNCTION, lg_curl_watch_attempt);
        real->setopt(x->h, CURLOPT_XFERINFODATA, x);
        real->setopt(x->h, CURLOPT_NOPROGRESS, 0L);
    }
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

void lg_shape_put_host_reader(const lg_curl_real *real, CURL *h, const lg_curl_rec *r)
{
    real->setopt(h, CURLOPT_READFUNCTION, r->readfn);
    real->setopt(h, CURLOPT_READDATA, r->readdata);
    real->setopt(h, CURLOPT_SEEKFUNCTION, r->seekfn);
    real->setopt(h, CURLOPT_SEEKDATA, r->seekdata);
    real->setopt(h, read_size_option(r), r->upload ? r->infilesize : r->postsize);
}

void lg_shape_put_reader(lg_curl_xfer *x)
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
        lg_shape_put_host_reader(real, h, r);
    if (r->xoauth2)
        real->setopt(h, CURLOPT_XOAUTH2_BEARER, r->xoauth2);
    if (x->watch) { /* an xferinfo function set (even NULL) turns the older progress function off */
        real->setopt(h, CURLOPT_XFERINFOFUNCTION, r->xferinfofn);
        if (!r->xferinfofn && r->progressfn)
            real->setopt(h, LG_CURLOPT_PROGRESSFUNCTION, r->progressfn);
        real->setopt(h, CURLOPT_XFERINFODATA, r->progressdata);
        real->setopt(h, CURLOPT_NOPROGRESS, r->noprogress);
    }
}

void lg_shape_restore_host(lg_curl_xfer *x)
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

void lg_xfer_unshape(lg_curl_rec *r)
{
    if (r->kept && r->kept->installed)
        lg_shape_restore_host(r->kept);
}

void lg_xfer_unshape_dup(const lg_curl_rec *r, CURL *dup, const lg_curl_rec *dup_rec)
{
    if (r->kept && r->kept->installed)
        put_host(r->kept, dup, dup_rec);
}

