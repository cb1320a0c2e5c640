/* The shm backend's operations: the slot operations (slots.c) run under the store lock. */
#include "store/shm.h"

/* One operation with its arguments and results. */
typedef enum { OP_ADMIT, OP_CONFIRM, OP_RELEASE, OP_RECORD, OP_COUNT, OP_PROVIDER } op_kind;

typedef struct {
    op_kind kind;
    lg_store *store;
    const lg_store_scope *sc;
    lg_store_ticket *t;
    size_t idx, to;
    int64_t now, deadline;
    const lg_store_attempt *attempt;
    lg_account_event ev;
    lg_account_state *snap;
    lg_prov_op *prov;
    const lg_admit_opts *opts;
    lg_admission adm;
    bool ok, save;
} op;

static void run_cb(lg_provider_slot *p, lg_account_slot *const *accounts, size_t n, void *vctx)
{
    op *o = vctx;
    lg_slots sl = {.prov = p, .accounts = accounts, .owner = o->store};
    switch (o->kind) {
    case OP_ADMIT: o->adm = lg_slots_admit(&sl, o->sc, o->t, o->idx, o->now, o->deadline, o->opts); break;
    case OP_CONFIRM: o->ok = lg_slots_confirm(&sl, o->sc, o->t, o->idx, o->now); break;
    case OP_RELEASE: lg_slots_release(&sl, o->sc, o->t); break;
    case OP_RECORD: o->save = lg_slots_record(&sl, o->sc, o->t, o->idx, o->attempt, o->now); break;
    case OP_COUNT: lg_slots_count(&sl, o->sc, o->t, o->idx, o->ev, o->to); break;
    case OP_PROVIDER: lg_slots_provider(&sl, o->sc, o->prov); break;
    }
    lg_slots_snapshot(&sl, n, o->snap);
}

static int run(op *o) { return lg_shm_with_scope(o->store, o->sc, run_cb, o); }

static int shm_admit(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred, int64_t now_ms,
                     int64_t deadline_ms, const lg_admit_opts *opts, lg_account_state *snap, lg_admission *out)
{
    op o = {.kind = OP_ADMIT, .store = s, .sc = sc, .t = t, .idx = preferred, .now = now_ms,
            .deadline = deadline_ms, .opts = opts, .snap = snap};
    int rc = run(&o);
    if (rc == 0)
        *out = o.adm;
    return rc;
}

static int shm_confirm(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, int64_t now_ms,
                       lg_account_state *snap, bool *ok)
{
    op o = {.kind = OP_CONFIRM, .store = s, .sc = sc, .t = t, .idx = idx, .now = now_ms, .snap = snap};
    int rc = run(&o);
    if (rc == 0)
        *ok = o.ok;
    return rc;
}

static int shm_release(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t)
{
    op o = {.kind = OP_RELEASE, .store = s, .sc = sc, .t = t};
    return run(&o);
}

/* Long cooldowns that started, changed or ended are saved to disk as well. */
static int shm_record(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                      const lg_store_attempt *a, int64_t now_ms, lg_account_state *snap)
{
    op o = {.kind = OP_RECORD, .store = s, .sc = sc, .t = t, .idx = idx, .attempt = a, .now = now_ms, .snap = snap};
    int rc = run(&o);
    if (rc == 0 && o.save)
        lg_store_save_cooldowns(s);
    return rc;
}

static int shm_count(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, lg_account_event ev,
                     size_t to)
{
    op o = {.kind = OP_COUNT, .store = s, .sc = sc, .t = t, .idx = idx, .ev = ev, .to = to};
    return run(&o);
}

static int shm_provider(lg_store *s, const lg_store_scope *sc, lg_prov_op *p)
{
    op o = {.kind = OP_PROVIDER, .store = s, .sc = sc, .prov = p};
    return run(&o);
}

const lg_store_ops lg_shm_ops = {
    .name = "shm",
    .admit = shm_admit,
    .confirm = shm_confirm,
    .release = shm_release,
    .record = shm_record,
    .count = shm_count,
    .provider = shm_provider,
    .visit = lg_shm_visit,
    .visit_providers = lg_shm_visit_providers,
    .close = lg_shm_close,
};
