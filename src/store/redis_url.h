/* The parts of a store.redis_url. Private to src/store. */
#ifndef LLMGATE_STORE_REDIS_URL_H
#define LLMGATE_STORE_REDIS_URL_H

#include <stdbool.h>

typedef struct {
    char host[256];   /* TCP host ("" for a Unix socket) */
    int port;         /* default 6379 */
    char socket[256]; /* Unix socket path, or "" */
    char user[128];   /* ACL user, or "" (then AUTH with the password alone) */
    char pass[256];   /* password, or "" */
    int db;           /* SELECT index, default 0 */
} lg_redis_url;

/* Parses "redis://[[user]:password@]host[:port][/db]" or "unix://[[user]:password@]/path[?db=N]". False
 * for anything else (the message in err never contains the password). */
bool lg_redis_url_parse(const char *url, lg_redis_url *out, char *err, size_t errlen);

/* "host:port" or the socket path, for messages (no credentials). */
void lg_redis_url_where(const lg_redis_url *u, char *out, size_t outlen);

#endif
