/* The redis backend's script calls (src/store/redis_call.c), used by redis.c and its leases (redis_lease.c):
 * argument vectors, the call of redis_script.lua by its SHA, and the reading of its replies. Private to
 * src/store. */
#ifndef LLMGATE_STORE_REDIS_CALL_H
#define LLMGATE_STORE_REDIS_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/store.h"
#include "store/redis_conn.h"

#define LG_REDIS_STATE_FIELDS 5 /* cu rs fl le pr per account in a reply */

extern const char lg_redis_script[]; /* redis_script.lua's text, built in */

/* A growing argument vector whose strings it owns. */
typedef struct {
    const char **v;
    char **own;
    int n, cap;
    bool oom;
} lg_redis_args;

/* Appends one argument, printf-formatted (an allocation failure is remembered: the call then fails). */
void lg_redis_arg(lg_redis_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* EVALSHA <sha> n+1 <provider key> <account keys> <op> <ttl>: the start of every script call. */
void lg_redis_script_head(redis_store *s, lg_redis_args *a, const lg_store_scope *sc, const char *op);

/* The script head of an op on the scope's window, then its limits: requests, tokens, window, margin (ARGV
 * 3 to 6 of "admit" and "lease"). */
void lg_redis_window_head(redis_store *s, lg_redis_args *a, const lg_store_scope *sc, const char *op);

/* Runs the script with a's arguments (freed) on c and checks that the reply has `want` elements. NULL when
 * it failed: the connection is then given back (or dropped when it broke) and the caller goes local. On
 * success the caller reads the reply, frees it and gives the connection back with lg_redis_put_conn(s, c, true). */
redisReply *lg_redis_exchange(redis_store *s, conn *c, lg_redis_args *a, size_t want);

/* The integer at element i of the reply (0 when it is not one). */
long long lg_redis_int_at(const redisReply *r, size_t i);

/* Copies the states that follow element `from` into snap, in local time (skew = Redis - local). */
void lg_redis_read_states(const redisReply *r, size_t from, size_t n, int64_t skew, lg_account_state *snap);

/* The pool filter (lg_policy_pool_filter) on the states last seen, as the script's string of '0' / '1'
 * (every account usable when the filter leaves none). */
void lg_redis_pool_mask(const lg_store_scope *sc, const lg_account_state *snap, int64_t now_ms, char *out);

#endif
