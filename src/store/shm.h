/* The shm backend's own entry points (shm_ops.c), beside its ops table. Private to src/store, its tests and
 * `llmgate reset` (which clears slots in the machine's file). */
#ifndef LLMGATE_STORE_SHM_H
#define LLMGATE_STORE_SHM_H

#include "store/backend.h"
#include "store/layout.h"

extern const lg_store_ops lg_shm_ops;

/* Callback run under the store lock; must not block or sleep. */
typedef void (*lg_store_fn)(lg_provider_slot *p, lg_account_slot *const *accounts, size_t n, void *ctx);

/* Runs fn with the provider's slot and its accounts' slots (created on first use), under the lock of the
 * shm store s. Returns 0, or -1 when the store is full or unusable now (fn not called): the lock stayed
 * taken (then the process leaves the store alone for the pause, see lg_shm_tuning, and rebuilds it when
 * the lock is still unusable after it, or at once when its holder no longer exists). errno is kept. */
int lg_store_with(lg_store *s, const char *provider, const lg_account_ref *refs, size_t n, lg_store_fn fn,
                  void *ctx);

/* lg_store_with on the scope's provider and accounts, found at once where sc->memo says, else found and
 * remembered there. */
int lg_shm_with_scope(lg_store *s, const lg_store_scope *sc, lg_store_fn fn, void *ctx);

#endif
