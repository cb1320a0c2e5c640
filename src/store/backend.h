/* The backend interface behind include/llmgate/store.h: an ops table chosen once when the store opens.
 * Private to src/store. */
#ifndef LLMGATE_STORE_BACKEND_H
#define LLMGATE_STORE_BACKEND_H

#include "llmgate/store.h"

typedef struct {
    const char *name;
    int (*admit)(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred, int64_t now_ms,
                 int64_t deadline_ms, const lg_admit_opts *opts, lg_account_state *snap, lg_admission *out);
    int (*confirm)(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, int64_t now_ms,
                   lg_account_state *snap, bool *ok);
    int (*release)(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t);
    int (*record)(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                  const lg_store_attempt *a, int64_t now_ms, lg_account_state *snap);
    int (*count)(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, lg_account_event ev,
                 size_t to);
    int (*provider)(lg_store *s, const lg_store_scope *sc, lg_prov_op *op);
    int (*visit)(lg_store *s, lg_store_visit_fn fn, void *ctx);
    int (*visit_providers)(lg_store *s, lg_store_provider_visit_fn fn, void *ctx);
    void (*close)(lg_store *s);
    void (*at_exit)(lg_store *s); /* NULL: nothing to do at the process's exit */
} lg_store_ops;

/* Every backend's handle starts with this. */
struct lg_store {
    const lg_store_ops *ops;
};

/* The tuning of the store (from the configuration; tests set small values). */
typedef struct {
    int64_t lock_timeout_ms; /* shm: longest wait for the lock */
    int64_t pause_ms;        /* shm: per-exchange state after a lock timeout, before trying again */
} lg_shm_tuning;

/* Opens the shm backend with the given tuning (see lg_store_open). */
lg_store *lg_shm_open(const char *path, const lg_shm_tuning *tu, char *err, size_t errlen);

/* Opens the redis backend on url, falling back to `local` (owned from then on; may be NULL). */
lg_store *lg_redis_open(const lg_config *cfg, lg_store *local, char *err, size_t errlen);

#endif
