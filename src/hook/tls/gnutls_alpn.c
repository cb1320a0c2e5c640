/* The program's ALPN offer on GnuTLS (see gnutls_alpn.h): gnutls_alpn_set_protocols and gnutls_handshake
 * interposers over a table of the offers of sessions whose handshake has not begun.
 *
 * GnuTLS cannot take a second list on a session (gnutls_alpn_set_protocols adds the new count to the old
 * one: the ClientHello then carries empty names, which the server refuses with a decode_error alert), and
 * the server name may be set before or after the list. So the program's list is not handed to GnuTLS when
 * the program sets it: it is kept, and handed over once, filtered or not, when the handshake first runs. A
 * list GnuTLS would refuse or cut (MAX_ALPN_PROTOCOLS names of under MAX_ALPN_PROTOCOL_NAME bytes) goes to
 * GnuTLS at once, as it is, for GnuTLS to answer. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <uthash.h>

#include "hook/base/export.h"
#include "hook/base/gnutls_real.h"
#include "hook/base/guard.h"
#include "hook/base/runtime.h"
#include "hook/tls/alpn.h"
#include "hook/tls/gnutls_alpn.h"
#include "hook/tls/gnutls_conns.h"
#include "llmgate/log.h"

#define MAX_NAMES 8 /* GnuTLS's MAX_ALPN_PROTOCOLS */
#define MAX_NAME 31 /* under GnuTLS's MAX_ALPN_PROTOCOL_NAME */

typedef struct {
    gnutls_session_t session;
    unsigned flags;                              /* the program's, kept on the reduced offer */
    size_t len;
    unsigned char wire[MAX_NAMES * (1 + MAX_NAME)]; /* the program's list in wire format */
    UT_hash_handle hh;
} offer;

static offer *table;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static void after_fork(void) { pthread_mutex_init(&table_lock, NULL); }
static void setup_fork(void) { lg_runtime_on_fork_child(after_fork); }

/* Takes session's offer out of the table (NULL: none); the caller frees it. */
static offer *take(gnutls_session_t session)
{
    offer *o;
    pthread_mutex_lock(&table_lock);
    HASH_FIND_PTR(table, &session, o);
    if (o)
        HASH_DEL(table, o);
    pthread_mutex_unlock(&table_lock);
    return o;
}

void lg_gnutls_alpn_forget(gnutls_session_t session) { free(take(session)); }

/* Keeps the list the program sets on session, in place of any it set before; false (nothing kept) when
 * GnuTLS must see it now: empty, over its limits, or no memory. */
static bool record(gnutls_session_t session, const gnutls_datum_t *protos, unsigned n, unsigned flags)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, setup_fork);
    offer *o = n > 0 && n <= MAX_NAMES ? calloc(1, sizeof *o) : NULL;
    bool fits = o != NULL;
    for (unsigned i = 0; fits && i < n; i++)
        fits = protos[i].size <= MAX_NAME && lg_alpn_wire_add(o->wire, sizeof o->wire, &o->len, protos[i].data, protos[i].size);
    free(take(session));
    if (!fits) {
        free(o);
        return false;
    }
    o->session = session;
    o->flags = flags;
    pthread_mutex_lock(&table_lock);
    HASH_ADD_PTR(table, session, o);
    pthread_mutex_unlock(&table_lock);
    return true;
}

EXPORT int gnutls_alpn_set_protocols(gnutls_session_t session, const gnutls_datum_t *protos, unsigned n,
                                     unsigned flags)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    if (real->complete && !lg_guard_active()) {
        int saved = errno;
        bool kept = record(session, protos, n, flags);
        errno = saved;
        if (kept)
            return 0;
    }
    return real->alpn_set_protocols ? real->alpn_set_protocols(session, protos, n, flags) : GNUTLS_E_INTERNAL_ERROR;
}

/* The first handshake call of a session with a kept offer hands it to GnuTLS: a provider's connection gets
 * http/1.1 alone when the program offered it beside other protocols (and filter is set: not under the
 * guard), any other the program's list. */
static void apply(gnutls_session_t session, bool filter)
{
    offer *o = take(session);
    if (!o)
        return;
    const lg_provider *prov =
        filter && lg_alpn_plan_of(o->wire, o->len) == LG_ALPN_H1 ? lg_gnutls_conn_named(session) : NULL;
    gnutls_datum_t names[MAX_NAMES];
    unsigned n = 0;
    if (prov)
        names[n++] = (gnutls_datum_t){(unsigned char *)lg_alpn_h1 + 1, sizeof lg_alpn_h1 - 1};
    else
        for (size_t i = 0; i < o->len && n < MAX_NAMES; i += 1 + o->wire[i])
            names[n++] = (gnutls_datum_t){o->wire + i + 1, o->wire[i]};
    if (lg_gnutls_real_get()->alpn_set_protocols(session, names, n, o->flags) == 0 && prov && lg_log_debugging)
        lg_log(LG_LOG_DEBUG, "[%s] ALPN offer reduced to http/1.1", prov->name);
    free(o);
}

EXPORT int gnutls_handshake(gnutls_session_t session)
{
    const lg_gnutls_real *real = lg_gnutls_real_get();
    if (real->complete) { /* a kept list is handed over even under the guard: it is the session's only one */
        int saved = errno;
        apply(session, !lg_guard_active());
        errno = saved;
    }
    return real->handshake ? real->handshake(session) : GNUTLS_E_INTERNAL_ERROR;
}
