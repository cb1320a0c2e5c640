/* The program's ALPN offer on OpenSSL (see ssl_alpn.h): SSL_CTX_set_alpn_protos, SSL_set_alpn_protos,
 * SSL_connect and SSL_do_handshake interposers. The program's list is kept as application data of its
 * SSL_CTX or SSL (freed and copied with it by OpenSSL). */
#include <errno.h>
#include <openssl/err.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hook/base/export.h"
#include "hook/base/guard.h"
#include "hook/base/runtime.h"
#include "hook/base/ssl_real.h"
#include "hook/tls/alpn.h"
#include "hook/tls/ssl_alpn.h"
#include "llmgate/log.h"

typedef struct {
    unsigned len;
    unsigned char wire[]; /* the program's list, as it gave it */
} offer;

static int ctx_idx = -1, ssl_idx = -1; /* our application data slots of SSL_CTX and SSL; -1: none */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void offer_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    free(ptr);
}

/* SSL_dup: the copy gets its own copy of the offer (NULL when out of memory: the context's then holds). */
static int offer_dup(CRYPTO_EX_DATA *to, const CRYPTO_EX_DATA *from, void **from_d, int idx, long argl, void *argp)
{
    const offer *o = *from_d;
    offer *copy = o ? malloc(sizeof *o + o->len) : NULL;
    if (copy)
        memcpy(copy, o, sizeof *o + o->len);
    *from_d = copy;
    return 1;
}

static void make_slots(void)
{
    ctx_idx = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL_CTX, 0, NULL, NULL, NULL, offer_free);
    ssl_idx = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL, 0, NULL, NULL, offer_dup, offer_free);
}

/* A copy of the list (len bytes at wire), or NULL. */
static offer *offer_new(const unsigned char *wire, unsigned len)
{
    offer *o = malloc(sizeof *o + len);
    if (o) {
        o->len = len;
        if (len)
            memcpy(o->wire, wire, len);
    }
    return o;
}

/* Keeps the program's list after it was set (rc 0) on a context (ctx) or a session (ssl). */
static void record(SSL_CTX *ctx, SSL *ssl, const unsigned char *wire, unsigned len)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    if (!real->complete || lg_guard_active())
        return;
    int saved = errno;
    pthread_once(&once, make_slots);
    offer *o = ctx_idx >= 0 && ssl_idx >= 0 ? offer_new(wire, wire ? len : 0) : NULL;
    offer *old = !o ? NULL : ctx ? real->ctx_get_ex_data(ctx, ctx_idx) : real->get_ex_data(ssl, ssl_idx);
    ERR_set_mark();
    int ok = !o ? 0 : ctx ? real->ctx_set_ex_data(ctx, ctx_idx, o) : real->set_ex_data(ssl, ssl_idx, o);
    ERR_pop_to_mark();
    free(ok == 1 ? old : o); /* a slot's list is freed by OpenSSL with its object, or here when replaced */
    errno = saved;
}

void lg_ssl_alpn_apply(SSL *ssl)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    if (!ssl || !real->complete || lg_guard_active() || !real->in_before(ssl))
        return;
    pthread_once(&once, make_slots);
    if (ssl_idx < 0 || ctx_idx < 0)
        return;
    const offer *o = real->get_ex_data(ssl, ssl_idx);
    if (!o)
        o = real->ctx_get_ex_data(real->get_ssl_ctx(ssl), ctx_idx);
    if (!o || lg_alpn_plan_of(o->wire, o->len) != LG_ALPN_H1)
        return;
    int saved = errno;
    const lg_runtime *rt = lg_runtime_get();
    const char *name = rt->cfg ? real->get_servername(ssl, TLSEXT_NAMETYPE_host_name) : NULL;
    const lg_provider *prov = name ? lg_config_match_host(rt->cfg, name) : NULL;
    ERR_set_mark();
    if (prov && real->set_alpn_protos(ssl, lg_alpn_h1, sizeof lg_alpn_h1) == 0 && lg_log_debugging)
        lg_log(LG_LOG_DEBUG, "[%s] ALPN offer reduced to http/1.1", prov->name);
    ERR_pop_to_mark();
    errno = saved;
}

void lg_ssl_alpn_mirror(SSL *s, SSL *host)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    const unsigned char *sel = NULL;
    unsigned n = 0;
    real->get0_alpn_selected(host, &sel, &n);
    unsigned char wire[256];
    size_t len = 0;
    if (sel && lg_alpn_wire_add(wire, sizeof wire, &len, sel, n))
        real->set_alpn_protos(s, wire, (unsigned)len);
    else
        real->set_alpn_protos(s, NULL, 0);
}

EXPORT int SSL_CTX_set_alpn_protos(SSL_CTX *ctx, const unsigned char *protos, unsigned int len)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    int rc = real->ctx_set_alpn_protos ? real->ctx_set_alpn_protos(ctx, protos, len) : 1;
    if (rc == 0 && ctx)
        record(ctx, NULL, protos, len);
    return rc;
}

EXPORT int SSL_set_alpn_protos(SSL *ssl, const unsigned char *protos, unsigned int len)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    int rc = real->set_alpn_protos ? real->set_alpn_protos(ssl, protos, len) : 1;
    if (rc == 0 && ssl)
        record(NULL, ssl, protos, len);
    return rc;
}

EXPORT int SSL_connect(SSL *ssl)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_alpn_apply(ssl);
    return real->connect ? real->connect(ssl) : -1;
}

EXPORT int SSL_do_handshake(SSL *ssl)
{
    const lg_ssl_real *real = lg_ssl_real_get();
    lg_ssl_alpn_apply(ssl);
    return real->do_handshake ? real->do_handshake(ssl) : -1;
}
