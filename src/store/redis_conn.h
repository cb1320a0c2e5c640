/* The redis backend's state and its connections (src/store/redis_conn.c): a small pool, never a lock held
 * across I/O, every round trip bounded by the timeout; Redis marked down on a failure (one notice line) and
 * tried again after a backoff (100 ms doubling up to store.retry_ms); a child after fork drops the parent's
 * connections. Private to src/store. */
#ifndef LLMGATE_STORE_REDIS_CONN_H
#define LLMGATE_STORE_REDIS_CONN_H

#include <openssl/sha.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/backend.h"
#include "store/redis_api.h"
#include "store/redis_url.h"

#define FIRST_BACKOFF_MS 100
#define REGISTERED_MAX 64

typedef struct conn {
    redisContext *c;
    int pending; /* pipelined replies not read yet */
    bool noauth; /* Redis answered NOAUTH: it wants a password */
    struct conn *next;
} conn;

typedef struct {
    lg_store base;
    lg_store *local; /* the machine's shm store, used while Redis cannot be (may be NULL) */
    const lg_hiredis *api;
    lg_redis_url url;
    char where[300];
    int64_t timeout_ms, retry_max_ms;
    bool leases; /* admit from leases (store.leases) */
    char machine[17]; /* this machine's name in Redis's fair shares: its host and local store, hashed */
    char sha[2 * SHA_DIGEST_LENGTH + 1];
    pthread_mutex_t mu; /* guards everything below; never held across I/O */
    pid_t pid;
    conn *pool;
    bool down;
    int64_t next_try_ms, backoff_ms;
    uint64_t registered[REGISTERED_MAX]; /* accounts this process already added to the index */
    size_t n_registered;
} redis_store;

static inline redis_store *rs(lg_store *s) { return (redis_store *)s; }

/* Sets up s's lock and pool (and the fork handler, once per process). */
void lg_redis_conn_init(redis_store *s);
/* Drops s's connections (only frees them in a child) and its lock. */
void lg_redis_conn_close(redis_store *s);

/* A connection for one operation: from the pool, or a new one when Redis is up or its retry is due. NULL
 * (the caller goes to the local store) when Redis is down and not due, or the attempt failed. */
conn *lg_redis_get_conn(redis_store *s);
/* Gives the connection back after an operation (ok), or drops it and marks Redis down (why). */
void lg_redis_put_conn(redis_store *s, conn *c, bool ok, const char *why);
/* Frees a connection. */
void lg_redis_drop_conn(redis_store *s, conn *c);
/* Reads one reply; NULL (the connection is then unusable) on a transport error or timeout, or NOAUTH. */
redisReply *lg_redis_read_reply(redis_store *s, conn *c);
/* Sends the command and reads its reply, after the pipelined replies still pending. NULL on a transport
 * error or timeout (the connection is then unusable). */
redisReply *lg_redis_call(redis_store *s, conn *c, int argc, const char **argv, const size_t *lens);

#endif
