/* Process-wide state of the preload library: the configuration and the shared store, set up lazily on
 * the first intercepted call (never in a constructor). Fails open: any problem leaves cfg NULL and all
 * traffic passes untouched, with one line on stderr. */
#ifndef LLMGATE_HOOK_BASE_RUNTIME_H
#define LLMGATE_HOOK_BASE_RUNTIME_H

#include "llmgate/config.h"
#include "llmgate/store.h"

typedef struct {
    lg_config *cfg;  /* NULL: llmgate is inactive */
    lg_store *store; /* NULL: no shared state (per-exchange state only) */
} lg_runtime;

extern lg_runtime lg_runtime_state; /* set up once by lg_runtime_init */
extern int lg_runtime_ready;        /* set (release) once it is */

/* Sets the runtime up once (pthread_once) and returns it. */
const lg_runtime *lg_runtime_init(void) __attribute__((cold)); /* cold: once per process */

/* The runtime, initialised on first use. Never NULL. Preserves errno. After the first call, one load. */
static inline const lg_runtime *lg_runtime_get(void)
{
    return __builtin_expect(__atomic_load_n(&lg_runtime_ready, __ATOMIC_ACQUIRE), 1) ? &lg_runtime_state
                                                                                      : lg_runtime_init();
}

/* Registers a function run in the child after fork (to re-initialise process-local locks). */
void lg_runtime_on_fork_child(void (*fn)(void));

#endif
