/* The redis backend's connection pool and its fail-open bookkeeping (see redis_conn.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "store/redis_conn.h"

static redis_store *the_store; /* for the fork handler; one redis store per process */

static struct timeval tv_of(int64_t ms) { return (struct timeval){.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000}; }

/* After fork, in the child: the parent's connections are not ours to use. */
static void after_fork_child(void)
{
    redis_store *s = the_store;
    if (!s)
        return;
    pthread_mutex_init(&s->mu, NULL);
    for (conn *c = s->pool, *next; c; c = next) {
        next = c->next;
        s->api->free_ctx(c->c);
        free(c);
    }
    s->pool = NULL;
    s->pid = getpid();
}

/* Marks Redis unreachable (one notice line when it was up) and schedules the next attempt. */
static void mark_down(redis_store *s, const char *why)
{
    pthread_mutex_lock(&s->mu);
    bool was_up = !s->down;
    if (was_up) {
        s->down = true;
        s->backoff_ms = FIRST_BACKOFF_MS;
        s->next_try_ms = lg_now_ms() + s->backoff_ms;
    }
    pthread_mutex_unlock(&s->mu);
    if (was_up)
        lg_notice(&(bool){false}, "redis-down", 0, "redis store %s unavailable (%s); using this machine's store until it is back",
                  s->where, why);
}

static void mark_up(redis_store *s)
{
    pthread_mutex_lock(&s->mu);
    bool was_down = s->down;
    s->down = false;
    pthread_mutex_unlock(&s->mu);
    if (was_down)
        lg_notice(&(bool){false}, "redis-up", 0, "redis store %s is back", s->where);
}

void lg_redis_drop_conn(redis_store *s, conn *c)
{
    s->api->free_ctx(c->c);
    free(c);
}

/* Reads one reply; NULL (the connection is then unusable) on a transport error or timeout, and on Redis's
 * NOAUTH (it wants a password the URL does not give: marked on c for the notice). */
redisReply *lg_redis_read_reply(redis_store *s, conn *c)
{
    void *v = NULL;
    if (s->api->get_reply(c->c, &v) != REDIS_OK)
        return NULL;
    redisReply *r = v;
    if (r && r->type == REDIS_REPLY_ERROR && r->str && strncmp(r->str, "NOAUTH", 6) == 0) {
        c->noauth = true;
        s->api->free_reply(r);
        return NULL;
    }
    return r;
}

/* Sends the command and reads its reply, after the pipelined replies still pending. NULL on a transport
 * error or timeout (the connection is then unusable). */
redisReply *lg_redis_call(redis_store *s, conn *c, int argc, const char **argv, const size_t *lens)
{
    if (s->api->append_argv(c->c, argc, argv, lens) != REDIS_OK)
        return NULL;
    for (; c->pending > 0; c->pending--) {
        redisReply *r = lg_redis_read_reply(s, c);
        if (!r)
            return NULL;
        s->api->free_reply(r);
    }
    return lg_redis_read_reply(s, c);
}

#define NOAUTH_WHY "authentication required: store.redis_url has no password"

/* AUTH and SELECT on a new connection; false when refused. */
static bool handshake(redis_store *s, conn *c, char *why, size_t whylen)
{
    const char *argv[3];
    int argc = 0;
    if (s->url.pass[0]) {
        argv[argc++] = "AUTH";
        if (s->url.user[0])
            argv[argc++] = s->url.user;
        argv[argc++] = s->url.pass;
        redisReply *r = lg_redis_call(s, c, argc, argv, NULL);
        bool ok = r && r->type != REDIS_REPLY_ERROR;
        snprintf(why, whylen, "%s", !r ? "no answer" : ok ? "" : "authentication refused");
        if (r)
            s->api->free_reply(r);
        if (!ok)
            return false;
    }
    if (s->url.db) {
        char db[16];
        snprintf(db, sizeof db, "%d", s->url.db);
        const char *sel[2] = {"SELECT", db};
        redisReply *r = lg_redis_call(s, c, 2, sel, NULL);
        bool ok = r && r->type != REDIS_REPLY_ERROR;
        snprintf(why, whylen, "%s", !r ? "no answer" : ok ? "" : "SELECT refused");
        if (r)
            s->api->free_reply(r);
        return ok;
    }
    return true;
}

/* A connection for one operation: from the pool, or a new one when Redis is up or its retry is due. NULL
 * (the caller goes to the local store) when Redis is down and not due, or the attempt failed. */
conn *lg_redis_get_conn(redis_store *s)
{
    pthread_mutex_lock(&s->mu);
    int64_t now = lg_now_ms();
    if (s->down && now < s->next_try_ms) {
        pthread_mutex_unlock(&s->mu);
        return NULL;
    }
    conn *c = s->pool;
    if (c) {
        s->pool = c->next;
        pthread_mutex_unlock(&s->mu);
        return c;
    }
    if (s->down) { /* this thread tries; the others keep to the local store meanwhile */
        s->backoff_ms = s->backoff_ms * 2 < s->retry_max_ms ? s->backoff_ms * 2 : s->retry_max_ms;
        s->next_try_ms = now + s->backoff_ms;
    }
    pthread_mutex_unlock(&s->mu);
    char why[128] = "connection refused";
    redisContext *ctx = s->url.socket[0] ? s->api->connect_unix(s->url.socket, tv_of(s->timeout_ms))
                                         : s->api->connect_tcp(s->url.host, s->url.port, tv_of(s->timeout_ms));
    if (ctx && !ctx->err && s->api->set_timeout(ctx, tv_of(s->timeout_ms)) == REDIS_OK &&
        (c = calloc(1, sizeof *c))) {
        c->c = ctx;
        if (handshake(s, c, why, sizeof why))
            return c;
        if (c->noauth)
            snprintf(why, sizeof why, "%s", NOAUTH_WHY);
        lg_redis_drop_conn(s, c);
    } else {
        if (ctx && ctx->err)
            snprintf(why, sizeof why, "%s", ctx->errstr);
        if (ctx)
            s->api->free_ctx(ctx);
    }
    mark_down(s, why);
    return NULL;
}

/* Gives the connection back after an operation (ok), or drops it and marks Redis down. */
void lg_redis_put_conn(redis_store *s, conn *c, bool ok, const char *why)
{
    if (!ok) {
        if (c->noauth)
            why = NOAUTH_WHY;
        lg_redis_drop_conn(s, c);
        mark_down(s, why);
        return;
    }
    pthread_mutex_lock(&s->mu);
    bool mine = s->pid == getpid();
    if (mine) {
        c->next = s->pool;
        s->pool = c;
    }
    pthread_mutex_unlock(&s->mu);
    if (!mine)
        lg_redis_drop_conn(s, c);
    mark_up(s);
}


void lg_redis_conn_init(redis_store *s)
{
    pthread_mutex_init(&s->mu, NULL);
    s->pid = getpid();
    if (!the_store) {
        the_store = s;
        pthread_atfork(NULL, NULL, after_fork_child);
    }
}

void lg_redis_conn_close(redis_store *s)
{
    if (the_store == s)
        the_store = NULL;
    for (conn *c = s->pool, *next; c; c = next) {
        next = c->next;
        if (s->pid == getpid())
            lg_redis_drop_conn(s, c);
        else
            free(c);
    }
    pthread_mutex_destroy(&s->mu);
}
