/* The shm backend's operations: the slot operations (slots.c) run under the store lock, each in one
 * critical section entered directly (lg_shm_enter), without a callback or an argument block. */
#include "store/shm.h"

/* Room for the slots of sc's accounts (one at least; a scope too large is refused by enter). */
static size_t cap_of(const lg_store_scope *sc) { return sc->n <= LG_STORE_ACCOUNTS ? sc->n + 1 : 1; }

/* Takes the lock and sets *sl to sc's slots (ptrs: cap_of(sc) of them); false (nothing held) when sc is
 * not one the store can hold or the store cannot be used now. */
static bool enter(lg_store *s, const lg_store_scope *sc, lg_account_slot **ptrs, lg_slots *sl,
                  lg_store_layout **held)
{
    bool fits = sc->provider && (sc->n == 0 || sc->refs) && sc->n <= LG_STORE_ACCOUNTS;
    lg_provider_slot *p = fits ? lg_shm_enter(s, sc, ptrs, held) : NULL;
    *sl = (lg_slots){.prov = p, .accounts = ptrs, .owner = s};
    return p != NULL;
}

/* Copies the accounts' states into snap (may be NULL), then releases the lock. */
static void leave(const lg_slots *sl, const lg_store_scope *sc, lg_account_state *snap, lg_store_layout *held)
{
    lg_slots_snapshot(sl, sc->n, snap);
    lg_shm_leave(held);
}

static int shm_admit(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred, int64_t now_ms,
                     int64_t deadline_ms, const lg_admit_opts *opts, lg_account_state *snap, lg_admission *out)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!enter(s, sc, ptrs, &sl, &m))
        return -1;
    *out = lg_slots_admit(&sl, sc, t, preferred, now_ms, deadline_ms, opts);
    leave(&sl, sc, snap, m);
    return 0;
}

static int shm_confirm(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, int64_t now_ms,
                       lg_account_state *snap, bool *ok)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!enter(s, sc, ptrs, &sl, &m))
        return -1;
    *ok = lg_slots_confirm(&sl, sc, t, idx, now_ms);
    leave(&sl, sc, snap, m);
    return 0;
}

static int shm_release(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!enter(s, sc, ptrs, &sl, &m))
        return -1;
    lg_slots_release(&sl, sc, t);
    lg_shm_leave(m);
    return 0;
}

/* Long cooldowns that started, changed or ended are saved to disk as well. */
static int shm_record(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                      const lg_store_attempt *a, int64_t now_ms, lg_account_state *snap)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!enter(s, sc, ptrs, &sl, &m))
        return -1;
    bool save = lg_slots_record(&sl, sc, t, idx, a, now_ms);
    leave(&sl, sc, snap, m);
    if (save)
        lg_store_save_cooldowns(s);
    return 0;
}

static int shm_count(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, lg_account_event ev,
                     size_t to)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!enter(s, sc, ptrs, &sl, &m))
        return -1;
    lg_slots_count(&sl, sc, t, idx, ev, to);
    lg_shm_leave(m);
    return 0;
}

static int shm_provider(lg_store *s, const lg_store_scope *sc, lg_prov_op *p)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!enter(s, sc, ptrs, &sl, &m))
        return -1;
    lg_slots_provider(&sl, sc, p);
    lg_shm_leave(m);
    return 0;
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
