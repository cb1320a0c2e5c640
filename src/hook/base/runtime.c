/* Lazy, fail-open initialisation of the preload library (see runtime.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook/base/guard.h"
#include "hook/base/runtime.h"
#include "llmgate/log.h"
#include "llmgate/spend.h"

lg_runtime lg_runtime_state;
int lg_runtime_ready;
static lg_runtime *const rt = &lg_runtime_state;
static pthread_once_t rt_once = PTHREAD_ONCE_INIT;

/* One line on stderr, in a single write. */
static void say(const char *what, const char *detail)
{
    char line[512];
    int n = snprintf(line, sizeof line, "llmgate: %s: %s; passing traffic through untouched\n", what, detail);
    if (n > 0) {
        ssize_t w = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}

/* At exit (redis): the spend this machine counted and has not pushed to the fleet's totals yet, and the
 * leases this process was the machine's last to use given back, as ours. */
static void redis_at_exit(void)
{
    LG_OURS(lg_spend_fleet_exit(); lg_store_at_exit(rt->store));
}

/* Loads the configuration and opens the store (fail open). */
static void init_guarded(void)
{
    int saved = errno;
    lg_errors errs = {0};
    rt->cfg = lg_config_load(NULL, &errs);
    if (!rt->cfg) {
        say("configuration refused", errs.n ? errs.items[0] : "unknown problem");
        lg_errors_free(&errs);
        errno = saved;
        return;
    }
    lg_errors_free(&errs);
    lg_log_init(rt->cfg);
    pthread_atfork(NULL, NULL, lg_log_after_fork);
    char err[256] = "";
    rt->store = lg_store_open_config(rt->cfg, err, sizeof err);
    if (rt->store && !strcmp(lg_store_backend(rt->store), "redis"))
        atexit(redis_at_exit);
    if (!rt->store) {
        lg_log(LG_LOG_WARN, "[Store] unavailable (%s): state is kept per request only", err);
        if (strstr(err, strerror(ENOSPC)) || strstr(err, strerror(EDQUOT))) /* a full disk: one line on stderr */
            lg_notice(&(bool){false}, "store-no-space", 0, "%s; requests are not limited across processes",
                      strncmp(err, "llmgate: ", 9) == 0 ? err + 9 : err);
    }
    errno = saved;
}

/* Sets up the runtime with the socket and TLS hooks passing through on this thread. */
static void init(void)
{
    LG_OURS(init_guarded()); /* what the set-up does on this thread (a store that resolves or connects) is ours */
    __atomic_store_n(&lg_runtime_ready, 1, __ATOMIC_RELEASE);
}

const lg_runtime *lg_runtime_init(void)
{
    pthread_once(&rt_once, init);
    return rt;
}

void lg_runtime_on_fork_child(void (*fn)(void))
{
    pthread_atfork(NULL, NULL, fn);
}
