/* The redis backend's script calls (see redis_call.h): argument vectors, the call of redis_script.lua by
 * its SHA with a fallback to its text, and the reading of its replies; shared by redis.c and
 * redis_lease.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/log.h"
#include "llmgate/policy.h"
#include "store/redis_call.h"
#include "store/redis_conn.h"
#include "store/redis_visit.h"

#define TTL_MS (7LL * 24 * 3600 * 1000) /* abandoned state expires after a week */

void lg_redis_arg(lg_redis_args *a, const char *fmt, ...)
{
    if (a->oom)
        return;
    if (a->n == a->cap) {
        int cap = a->cap ? a->cap * 2 : 32;
        const char **v = realloc(a->v, (size_t)cap * sizeof *v);
        char **own = v ? realloc(a->own, (size_t)cap * sizeof *own) : NULL;
        if (v)
            a->v = v;
        if (!own) {
            a->oom = true;
            return;
        }
        a->own = own;
        a->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *str = NULL;
    int rc = vasprintf(&str, fmt, ap);
    va_end(ap);
    if (rc < 0) {
        a->oom = true;
        return;
    }
    a->own[a->n] = str;
    a->v[a->n++] = str;
}

static void args_free(lg_redis_args *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->own[i]);
    free(a->v);
    free(a->own);
}

void lg_redis_script_head(redis_store *s, lg_redis_args *a, const lg_store_scope *sc, const char *op)
{
    lg_redis_arg(a, "EVALSHA");
    lg_redis_arg(a, "%s", s->sha);
    lg_redis_arg(a, "%zu", sc->n + 1);
    lg_redis_arg(a, "llmgate:{%s}:p", sc->provider);
    for (size_t i = 0; i < sc->n; i++)
        lg_redis_arg(a, "llmgate:{%s}:a:%s:%s", sc->provider, sc->refs[i].name, sc->refs[i].digest ? sc->refs[i].digest : "");
    lg_redis_arg(a, "%s", op);
    lg_redis_arg(a, "%lld", TTL_MS);
}

void lg_redis_window_head(redis_store *s, lg_redis_args *a, const lg_store_scope *sc, const char *op)
{
    lg_redis_script_head(s, a, sc, op);
    lg_redis_arg(a, "%lld", (long long)sc->limits.limit[0]);
    lg_redis_arg(a, "%lld", (long long)sc->limits.limit[1]);
    lg_redis_arg(a, "%lld", (long long)sc->limits.window_ms);
    lg_redis_arg(a, "%lld", (long long)sc->limits.margin_ms);
}

/* Runs the script with a's arguments; on NOSCRIPT, again with its text (which loads it). An array reply
 * whose first element is Redis's time, else NULL with *transport telling whether the connection broke and
 * *foreign set when the script refused a hash of another llmgate layout (redis_script.lua, LAYOUT). */
static redisReply *run_script(redis_store *s, conn *c, lg_redis_args *a, bool *transport, bool *foreign)
{
    *transport = *foreign = false;
    if (a->oom)
        return NULL;
    redisReply *r = lg_redis_call(s, c, a->n, a->v, NULL);
    if (r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "NOSCRIPT", 8)) {
        s->api->free_reply(r);
        a->v[0] = "EVAL";
        a->v[1] = lg_redis_script;
        r = lg_redis_call(s, c, a->n, a->v, NULL);
        a->v[0] = a->own[0];
        a->v[1] = a->own[1];
    }
    if (!r) {
        *transport = true;
        return NULL;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 1 || r->element[0]->type != REDIS_REPLY_INTEGER) {
        if (r->type == REDIS_REPLY_ERROR)
            lg_log(LG_LOG_WARN, "[Store] redis script error: %.200s", r->str);
        *foreign = r->type == REDIS_REPLY_ERROR && strstr(r->str, "llmgate: this Redis holds llmgate layout");
        s->api->free_reply(r);
        return NULL;
    }
    return r;
}

redisReply *lg_redis_exchange(redis_store *s, conn *c, lg_redis_args *a, size_t want)
{
    bool transport, foreign;
    redisReply *r = run_script(s, c, a, &transport, &foreign);
    args_free(a);
    if (r && r->elements == want)
        return r;
    if (r) /* not our script's answer: never trusted */
        s->api->free_reply(r);
    /* another llmgate layout in Redis: this process keeps to its machine's store (one line), trying again
     * as after an outage */
    lg_redis_put_conn(s, c, !transport && !r && !foreign,
                      foreign ? "it holds another llmgate version's layout" : r ? "unexpected reply" : "no answer in time");
    return NULL;
}

long long lg_redis_int_at(const redisReply *r, size_t i)
{
    return i < r->elements && r->element[i]->type == REDIS_REPLY_INTEGER ? r->element[i]->integer : 0;
}

void lg_redis_read_states(const redisReply *r, size_t from, size_t n, int64_t skew, lg_account_state *snap)
{
    if (!snap || r->elements < from + LG_REDIS_STATE_FIELDS * n)
        return;
    for (size_t i = 0; i < n; i++) {
        size_t at = from + LG_REDIS_STATE_FIELDS * i;
        int64_t cu = lg_redis_int_at(r, at), le = lg_redis_int_at(r, at + 3), pr = lg_redis_int_at(r, at + 4);
        snap[i].cooldown_until_ms = cu > 0 ? cu - skew : 0;
        lg_redis_reason_decode(lg_redis_int_at(r, at + 1), &snap[i]);
        snap[i].failures = (int32_t)lg_redis_int_at(r, at + 2);
        snap[i].last_event_ms = le > 0 ? le - skew : 0;
        snap[i].probe_until_ms = pr > 0 ? pr - skew : 0;
    }
}

void lg_redis_pool_mask(const lg_store_scope *sc, const lg_account_state *snap, int64_t now_ms, char *out)
{
    size_t n = sc->n;
    bool usable[n + 1];
    lg_account_state none[n + 1];
    memset(none, 0, sizeof none);
    bool any = sc->accounts && lg_policy_pool_filter(sc->accounts, snap ? snap : none, n, sc->pool,
                                                     sc->retry && sc->retry->pool_fallback, now_ms, usable);
    for (size_t i = 0; i < n; i++)
        out[i] = !any || usable[i] ? '1' : '0';
    out[n] = '\0';
}
