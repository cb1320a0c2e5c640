/* The store interface: dispatch to the backend chosen when the store was opened (see backend.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store/backend.h"

lg_store *lg_store_open_config(const lg_config *cfg, char *err, size_t errlen)
{
    lg_shm_tuning tu = {.lock_timeout_ms = cfg->store_lock_timeout_ms, .pause_ms = cfg->store_pause_ms};
    bool redis = !strcmp(cfg->store_backend, "redis");
    lg_store *local = lg_shm_open(redis ? NULL : cfg->store_path, &tu, err, errlen);
    if (!redis)
        return local;
    return lg_redis_open(cfg, local, err, errlen);
}

lg_store *lg_store_open(const char *path, char *err, size_t errlen)
{
    lg_shm_tuning tu = {.lock_timeout_ms = 2000, .pause_ms = 30000};
    return lg_shm_open(path, &tu, err, errlen);
}

void lg_store_close(lg_store *s)
{
    if (s)
        s->ops->close(s);
}

void lg_store_at_exit(lg_store *s)
{
    if (s && s->ops->at_exit)
        s->ops->at_exit(s);
}

const char *lg_store_backend(const lg_store *s) { return s ? s->ops->name : "none"; }

int lg_store_admit(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred, int64_t now_ms,
                   int64_t deadline_ms, const lg_admit_opts *opts, lg_account_state *snap, lg_admission *out)
{
    return s ? s->ops->admit(s, sc, t, preferred, now_ms, deadline_ms, opts, snap, out) : -1;
}

int lg_store_confirm(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, int64_t now_ms,
                     lg_account_state *snap, bool *ok)
{
    return s ? s->ops->confirm(s, sc, t, idx, now_ms, snap, ok) : -1;
}

int lg_store_release(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t)
{
    return s ? s->ops->release(s, sc, t) : -1;
}

int lg_store_record(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                    const lg_store_attempt *a, int64_t now_ms, lg_account_state *snap)
{
    return s ? s->ops->record(s, sc, t, idx, a, now_ms, snap) : -1;
}

int lg_store_count(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, lg_account_event ev,
                   size_t to)
{
    return s ? s->ops->count(s, sc, t, idx, ev, to) : -1;
}

int lg_store_provider(lg_store *s, const lg_store_scope *sc, lg_prov_op *op)
{
    return s ? s->ops->provider(s, sc, op) : -1;
}

int lg_store_visit(lg_store *s, lg_store_visit_fn fn, void *ctx)
{
    return s && fn ? s->ops->visit(s, fn, ctx) : -1;
}

int lg_store_visit_providers(lg_store *s, lg_store_provider_visit_fn fn, void *ctx)
{
    return s && fn ? s->ops->visit_providers(s, fn, ctx) : -1;
}
