/* Counters a fleet shares through Redis (see store.h): hash fields incremented in one transaction, and a
 * hash read back. Only the redis backend has them; the shm backend answers -1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/redis_conn.h"

/* The redis store behind s, or NULL. */
static redis_store *redis_of(lg_store *s)
{
    return s && !strcmp(lg_store_backend(s), "redis") ? rs(s) : NULL;
}

/* Sends argv pipelined on c (its reply read later). */
static bool append(redis_store *s, conn *c, int argc, const char **argv)
{
    return s->api->append_argv(c->c, argc, argv, NULL) == REDIS_OK;
}

/* Reads the pipelined replies c still owes (earlier operations'). */
static bool drain(redis_store *s, conn *c)
{
    for (; c->pending > 0; c->pending--) {
        redisReply *r = lg_redis_read_reply(s, c);
        if (!r)
            return false;
        s->api->free_reply(r);
    }
    return true;
}

/* True when ops[i] starts a run of its key (callers keep a key's ops together): its EXPIRE follows. */
static bool first_of_key(const lg_store_hincr *ops, size_t i)
{
    return i == 0 || strcmp(ops[i - 1].key, ops[i].key) != 0;
}

/* MULTI, the HINCRBYs (each key's EXPIRE after its first), EXEC; the HINCRBYs' results into out. */
static bool run_batch(redis_store *s, conn *c, const lg_store_hincr *ops, size_t n, int64_t ttl_s, int64_t *out)
{
    char ttl[24];
    snprintf(ttl, sizeof ttl, "%" PRId64, ttl_s);
    if (!drain(s, c) || !append(s, c, 1, (const char *[]){"MULTI"}))
        return false;
    size_t queued = 0;
    for (size_t i = 0; i < n; i++) {
        char d[24];
        snprintf(d, sizeof d, "%" PRId64, ops[i].delta);
        if (!append(s, c, 4, (const char *[]){"HINCRBY", ops[i].key, ops[i].field, d}))
            return false;
        queued++;
        if (first_of_key(ops, i) && !append(s, c, 3, (const char *[]){"EXPIRE", ops[i].key, ttl}))
            return false;
        queued += first_of_key(ops, i);
    }
    if (!append(s, c, 1, (const char *[]){"EXEC"}))
        return false;
    for (size_t i = 0; i < queued + 1; i++) { /* MULTI's +OK and every +QUEUED */
        redisReply *r = lg_redis_read_reply(s, c);
        if (!r)
            return false;
        bool ok = r->type != REDIS_REPLY_ERROR;
        s->api->free_reply(r);
        if (!ok)
            return false;
    }
    redisReply *r = lg_redis_read_reply(s, c);
    if (!r)
        return false;
    bool ok = r->type == REDIS_REPLY_ARRAY && r->elements == queued;
    for (size_t i = 0, at = 0; ok && i < n; i++) {
        const redisReply *e = r->element[at];
        ok = e->type == REDIS_REPLY_INTEGER;
        if (ok && out)
            out[i] = e->integer;
        at += 1 + first_of_key(ops, i);
    }
    s->api->free_reply(r);
    return ok;
}

int lg_store_hincr_batch(lg_store *st, const lg_store_hincr *ops, size_t n, int64_t ttl_s, int64_t *out)
{
    redis_store *s = redis_of(st);
    conn *c = s ? lg_redis_get_conn(s) : NULL;
    if (!c)
        return -1;
    bool ok = run_batch(s, c, ops, n, ttl_s, out);
    if (ok)
        lg_redis_put_conn(s, c, true, NULL);
    else /* the batch waits for the next push; the exchanges' Redis is not marked down for it (no notice) */
        lg_redis_drop_conn(s, c);
    return ok ? 0 : -1;
}

int lg_store_hvisit(lg_store *st, const char *key, lg_store_hfield_fn fn, void *ctx)
{
    redis_store *s = redis_of(st);
    conn *c = s ? lg_redis_get_conn(s) : NULL;
    if (!c)
        return -1;
    redisReply *r = lg_redis_call(s, c, 2, (const char *[]){"HGETALL", key}, NULL);
    bool ok = r && r->type == REDIS_REPLY_ARRAY;
    for (size_t i = 0; ok && i + 1 < r->elements; i += 2) {
        const redisReply *f = r->element[i], *v = r->element[i + 1];
        if (f->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING)
            continue;
        char *end;
        long long x = strtoll(v->str, &end, 10);
        if (end != v->str && !*end)
            fn(f->str, (int64_t)x, ctx);
    }
    if (r)
        s->api->free_reply(r);
    lg_redis_put_conn(s, c, r != NULL, "no answer to HGETALL");
    return ok ? 0 : -1;
}
