/* Run-time loading of hiredis (see redis_api.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "store/redis_api.h"

#define STR2(x) #x
#define STR(x) STR2(x)
#define SONAME "libhiredis.so." STR(HIREDIS_SONAME)

static lg_hiredis api;
static bool loaded;
static char load_err[200];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlsym into a function pointer of any type; false when missing. */
#define RESOLVE(h, field, name) (*(void **)(&api.field) = dlsym(h, name)) != NULL

static void load(void)
{
    void *h = dlopen(SONAME, RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        h = dlopen(SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_err, sizeof load_err, "cannot load %s (install libhiredis)", SONAME);
        return;
    }
    loaded = RESOLVE(h, connect_tcp, "redisConnectWithTimeout") &&
             RESOLVE(h, connect_unix, "redisConnectUnixWithTimeout") &&
             RESOLVE(h, set_timeout, "redisSetTimeout") && RESOLVE(h, free_ctx, "redisFree") &&
             RESOLVE(h, append_argv, "redisAppendCommandArgv") &&
             RESOLVE(h, buffer_write, "redisBufferWrite") && RESOLVE(h, get_reply, "redisGetReply") &&
             RESOLVE(h, free_reply, "freeReplyObject");
    if (!loaded)
        snprintf(load_err, sizeof load_err, "%s lacks a function llmgate needs", SONAME);
}

const lg_hiredis *lg_hiredis_load(char *err, size_t errlen)
{
    pthread_once(&once, load);
    if (!loaded)
        snprintf(err, errlen, "%s", load_err);
    return loaded ? &api : NULL;
}
