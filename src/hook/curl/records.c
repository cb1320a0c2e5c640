/* Side table of easy handles (see records.h). The table lock guards only the hash itself: a
 * handle's record is used by one thread at a time, as libcurl requires of the handle. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook/curl/records.h"
#include "hook/base/runtime.h"

static lg_curl_rec *table;
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;

unsigned lg_rec_removals;
__attribute__((tls_model("initial-exec"))) _Thread_local lg_rec_last lg_rec_last_found;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static const lg_rec_multi_ops *multi_ops;

void lg_rec_multi_ops_register(const lg_rec_multi_ops *ops) { __atomic_store_n(&multi_ops, ops, __ATOMIC_RELEASE); }

const lg_rec_multi_ops *lg_rec_multi_ops_get(void) { return __atomic_load_n(&multi_ops, __ATOMIC_ACQUIRE); }

static void reinit_after_fork(void) { pthread_mutex_init(&table_mu, NULL); }

static void register_fork(void) { lg_runtime_on_fork_child(reinit_after_fork); }

void lg_rec_set_str(char **field, const char *s)
{
    char *copy = s ? strdup(s) : NULL;
    free(*field);
    *field = copy;
}

static void defaults(lg_curl_rec *r, CURL *h)
{
    memset(r, 0, sizeof *r);
    r->handle = h;
    r->postsize = -1;
    r->infilesize = -1;
    r->readdata = stdin;
    r->writedata = stdout;
    r->noprogress = 1;
}

static void free_fields(lg_curl_rec *r)
{
    free(r->url);
    free(r->copied_postfields);
    free(r->xoauth2);
}

lg_curl_rec *lg_rec_find(CURL *h, bool create)
{
    pthread_once(&fork_once, register_fork);
    lg_curl_rec *r;
    pthread_mutex_lock(&table_mu);
    HASH_FIND_PTR(table, &h, r);
    if (!r && create && (r = malloc(sizeof *r)) != NULL) {
        defaults(r, h);
        HASH_ADD_PTR(table, handle, r);
    }
    if (r) {
        lg_rec_last_found.h = h;
        lg_rec_last_found.r = r;
        lg_rec_last_found.removals = lg_rec_removals;
    }
    pthread_mutex_unlock(&table_mu);
    return r;
}

void lg_rec_remove(CURL *h)
{
    lg_curl_rec *r;
    pthread_mutex_lock(&table_mu);
    HASH_FIND_PTR(table, &h, r);
    if (r) {
        HASH_DEL(table, r);
        __atomic_add_fetch(&lg_rec_removals, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&table_mu);
    if (r) {
        free_fields(r);
        free(r);
    }
}

void lg_rec_reset(CURL *h)
{
    lg_curl_rec *r = lg_rec_get(h, false);
    if (!r)
        return;
    free_fields(r);
    pthread_mutex_lock(&table_mu);
    UT_hash_handle keep = r->hh;
    struct lg_mxfer *in_multi = r->multi_xfer;
    defaults(r, h);
    r->hh = keep;
    r->multi_xfer = in_multi;
    pthread_mutex_unlock(&table_mu);
}

void lg_rec_clone(CURL *src, CURL *dst)
{
    lg_curl_rec *s = lg_rec_get(src, false);
    if (!s || !dst)
        return;
    lg_curl_rec *d = lg_rec_get(dst, true);
    if (!d)
        return;
    free_fields(d);
    pthread_mutex_lock(&table_mu);
    UT_hash_handle keep = d->hh;
    *d = *s;
    d->handle = dst;
    d->hh = keep;
    pthread_mutex_unlock(&table_mu);
    d->url = NULL;
    d->xoauth2 = NULL;
    d->copied_postfields = NULL;
    d->info_override = false;
    d->multi_xfer = NULL;
    d->kept = NULL;
    d->delivery_paused = false; /* a paused delivery (and its kept rest) stays the source's */
    d->rest = NULL;
    d->rest_len = 0;
    d->stream_skip = 0;
    lg_rec_set_str(&d->url, s->url);
    lg_rec_set_str(&d->xoauth2, s->xoauth2);
    if (s->copied_postfields) {
        /* libcurl's duplicate owns its own copy; ours mirrors it for size and token estimates */
        size_t len = s->postsize >= 0 ? (size_t)s->postsize : strlen(s->copied_postfields);
        d->copied_postfields = malloc(len + 1);
        if (d->copied_postfields) {
            memcpy(d->copied_postfields, s->copied_postfields, len);
            d->copied_postfields[len] = '\0';
        }
        d->postfields = d->copied_postfields;
    }
}
