/* hiredis, loaded at run time only by a process configured for the redis backend (see ARCHITECTURE.md:
 * the preload must not pull hiredis into hosts that never use it). Private to src/store. */
#ifndef LLMGATE_STORE_REDIS_API_H
#define LLMGATE_STORE_REDIS_API_H

#include <hiredis/hiredis.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    redisContext *(*connect_tcp)(const char *ip, int port, const struct timeval tv);
    redisContext *(*connect_unix)(const char *path, const struct timeval tv);
    int (*set_timeout)(redisContext *c, const struct timeval tv);
    void (*free_ctx)(redisContext *c);
    int (*append_argv)(redisContext *c, int argc, const char **argv, const size_t *argvlen);
    int (*buffer_write)(redisContext *c, int *done);
    int (*get_reply)(redisContext *c, void **reply);
    void (*free_reply)(void *reply);
} lg_hiredis;

/* The hiredis functions, resolved once from the copy the process already has (RTLD_NOLOAD) or else from
 * libhiredis.so.HIREDIS_SONAME, the version whose header we were built with. NULL with a message in err
 * when it is not installed. Thread-safe. */
const lg_hiredis *lg_hiredis_load(char *err, size_t errlen);

#endif
