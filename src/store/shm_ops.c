/* The shm backend (see shm.h): its handle, opened on the mapping (shm_map.c), and its operations, each one
 * critical section: the lock taken (shm_lock.c), the scope's entries found (shm_index.c), the slot
 * operation of src/limiter run, the lock released. Entered directly, without a callback or an argument
 * block. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmgate/log.h"
#include "store/owner.h"
#include "store/path.h"
#include "store/persist.h"
#include "store/shm.h"
#include "store/shm_index.h"
#include "store/shm_lock.h"

static lg_shm_store *shm(lg_store *s) { return (lg_shm_store *)s; }

/* Says (one line a minute per process) that the store has no room left for provider's entries: its
 * requests then go on without the shared limits. The config check keeps one config within the store;
 * several configs, or keys rotated over time, can still fill it. */
__attribute__((cold, noinline)) static void lg_shm_full(lg_shm_store *s, const char *provider)
{
    lg_notice(&(bool){false}, "store-full", 60000,
              "the state store %s is full (%d providers, %d accounts): %s is not limited by it",
              s->path, LG_STORE_PROVIDERS, LG_STORE_ACCOUNTS, provider);
}

lg_store *lg_shm_open(const char *path, const lg_shm_tuning *tu, char *err, size_t errlen)
{
    int saved = errno;
    char file[LG_SHM_PATH_MAX];
    lg_shm_store *s = NULL;
    if (!lg_store_resolve_path(path, file, sizeof file)) {
        snprintf(err, errlen, "llmgate: state store path too long");
    } else if (path || lg_store_private_dir(file, err, errlen) == 0) {
        lg_store_layout *m = lg_shm_map(file);
        if (!m)
            snprintf(err, errlen, "llmgate: state store %s: %s", file, strerror(errno));
        else if (!(s = calloc(1, sizeof *s))) {
            snprintf(err, errlen, "llmgate: state store %s: out of memory", file);
            lg_shm_unmap(m);
        } else {
            s->base.ops = &lg_shm_ops;
            s->map = m;
            s->tu = *tu;
            memcpy(s->path, file, sizeof file);
        }
    }
    errno = saved;
    return s ? &s->base : NULL;
}

/* Closes the shm store st. */
static void shm_close(lg_store *st)
{
    lg_shm_store *s = shm(st);
    int saved = errno;
    lg_shm_index_forget_memos(); /* before the address can be mapped again */
    lg_shm_unmap(s->map);
    free(s);
    errno = saved;
}

/* The lock of the shm store st taken and the scope's entries found (see lg_store_with): the provider's
 * slot, its accounts' slots into slots and *held what lg_shm_unlock releases; NULL (nothing held) when the
 * store is full or unusable now. For a valid request. */
static inline __attribute__((always_inline)) lg_provider_slot *
enter(lg_store *st, const char *provider, const lg_account_ref *refs, size_t n, lg_store_memo *memo,
      lg_account_slot **slots, lg_store_layout **held)
{
    lg_store_layout *m;
    if (!lg_shm_lock(shm(st), &m))
        return NULL;
    lg_store_provider_entry *p = lg_shm_index_find(m, provider, refs, n, memo, slots);
    if (!p) {
        lg_shm_unlock(m);
        lg_shm_full(shm(st), provider);
        return NULL;
    }
    *held = m;
    return &p->slot;
}

/* lg_store_with, with the caller's memo of where the entries are (NULL: none). */
static int with_entries(lg_store *st, const char *provider, const lg_account_ref *refs, size_t n,
                        lg_store_memo *memo, lg_store_fn fn, void *ctx)
{
    if (!st || st->ops != &lg_shm_ops || !provider || (n > 0 && !refs) || n > LG_STORE_ACCOUNTS || !fn)
        return -1;
    int saved = errno;
    lg_account_slot *slots[LG_STORE_ACCOUNTS];
    lg_store_layout *m;
    lg_provider_slot *p = enter(st, provider, refs, n, memo, slots, &m);
    if (p) {
        fn(p, slots, n, ctx);
        lg_shm_unlock(m);
    }
    errno = saved;
    return p ? 0 : -1;
}

int lg_store_with(lg_store *st, const char *provider, const lg_account_ref *refs, size_t n, lg_store_fn fn,
                  void *ctx)
{
    return with_entries(st, provider, refs, n, NULL, fn, ctx);
}

int lg_shm_with_scope(lg_store *st, const lg_store_scope *sc, lg_store_fn fn, void *ctx)
{
    return with_entries(st, sc->provider, sc->refs, sc->n, sc->memo, fn, ctx);
}

/* The ops' visits: every entry of the store in use, under its lock; -1 when the lock could not be taken. */
static int shm_visit(lg_store *st, lg_store_visit_fn fn, void *ctx)
{
    int saved = errno;
    int rc = -1;
    lg_store_layout *m;
    if (lg_shm_lock(shm(st), &m)) {
        lg_shm_index_visit(m, fn, ctx);
        lg_shm_unlock(m);
        rc = 0;
    }
    errno = saved;
    return rc;
}

static int shm_visit_providers(lg_store *st, lg_store_provider_visit_fn fn, void *ctx)
{
    int saved = errno;
    int rc = -1;
    lg_store_layout *m;
    if (lg_shm_lock(shm(st), &m)) {
        lg_shm_index_visit_providers(m, fn, ctx);
        lg_shm_unlock(m);
        rc = 0;
    }
    errno = saved;
    return rc;
}

int lg_store_save_cooldowns(lg_store *s)
{
    if (!s || s->ops != &lg_shm_ops)
        return -1;
    return lg_persist_save(s, shm_visit);
}

/* Room for the slots of sc's accounts (one at least; a scope too large is refused by slots_enter). */
static size_t cap_of(const lg_store_scope *sc) { return sc->n <= LG_STORE_ACCOUNTS ? sc->n + 1 : 1; }

/* Takes the lock and sets *sl to sc's slots (ptrs: cap_of(sc) of them); false (nothing held) when sc is
 * not one the store can hold or the store cannot be used now. errno is kept. */
static bool slots_enter(lg_store *s, const lg_store_scope *sc, lg_account_slot **ptrs, lg_slots *sl,
                        lg_store_layout **held)
{
    bool fits = sc->provider && (sc->n == 0 || sc->refs) && sc->n <= LG_STORE_ACCOUNTS;
    lg_provider_slot *p = fits ? enter(s, sc->provider, sc->refs, sc->n, sc->memo, ptrs, held) : NULL;
    *sl = (lg_slots){.prov = p, .accounts = ptrs, .owner = s};
    return p != NULL;
}

/* Copies the accounts' states into snap (may be NULL), then releases the lock. */
static void slots_leave(const lg_slots *sl, const lg_store_scope *sc, lg_account_state *snap, lg_store_layout *held)
{
    lg_slots_snapshot(sl, sc->n, snap);
    lg_shm_unlock(held);
}

/* The owner's record of ticket t moved to what a step left it holding (before: what it held). A ticket
 * of other slots (t->owner) holds nothing here. */
static void holds_moved(lg_store *s, const lg_store_scope *sc, lg_store_layout *m, lg_account_slot *const *ptrs,
                        const lg_store_ticket *t, const lg_hold_note *before, int64_t now_ms)
{
    lg_hold_note after = lg_holds_note(m, ptrs, sc->n, s, t);
    lg_holds_apply(m, lg_owner_self(), before, &after, now_ms);
}

static int shm_admit(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t preferred, int64_t now_ms,
                     int64_t deadline_ms, const lg_admit_opts *opts, lg_account_state *snap, lg_admission *out)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!slots_enter(s, sc, ptrs, &sl, &m))
        return -1;
    const lg_store_owner *me = lg_owner_self();
    lg_holds_reap(m, me, now_ms, lg_owner_alive, NULL); /* a dead waiter's place is free again */
    lg_hold_note before = lg_holds_note(m, ptrs, sc->n, s, t);
    *out = lg_slots_admit(&sl, sc, t, preferred, now_ms, deadline_ms, opts);
    holds_moved(s, sc, m, ptrs, t, &before, now_ms);
    slots_leave(&sl, sc, snap, m);
    return 0;
}

static int shm_confirm(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx, int64_t now_ms,
                       lg_account_state *snap, bool *ok)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!slots_enter(s, sc, ptrs, &sl, &m))
        return -1;
    lg_hold_note before = lg_holds_note(m, ptrs, sc->n, s, t);
    *ok = lg_slots_confirm(&sl, sc, t, idx, now_ms);
    holds_moved(s, sc, m, ptrs, t, &before, now_ms);
    slots_leave(&sl, sc, snap, m);
    return 0;
}

static int shm_release(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!slots_enter(s, sc, ptrs, &sl, &m))
        return -1;
    lg_hold_note before = lg_holds_note(m, ptrs, sc->n, s, t);
    lg_slots_release(&sl, sc, t);
    holds_moved(s, sc, m, ptrs, t, &before, 0);
    lg_shm_unlock(m);
    return 0;
}

/* Long cooldowns that started, changed or ended are saved to disk as well. */
static int shm_record(lg_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                      const lg_store_attempt *a, int64_t now_ms, lg_account_state *snap)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!slots_enter(s, sc, ptrs, &sl, &m))
        return -1;
    lg_hold_note before = lg_holds_note(m, ptrs, sc->n, s, t);
    bool save = lg_slots_record(&sl, sc, t, idx, a, now_ms);
    holds_moved(s, sc, m, ptrs, t, &before, now_ms);
    slots_leave(&sl, sc, snap, m);
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
    if (!slots_enter(s, sc, ptrs, &sl, &m))
        return -1;
    lg_hold_note before = lg_holds_note(m, ptrs, sc->n, s, t);
    lg_slots_count(&sl, sc, t, idx, ev, to);
    holds_moved(s, sc, m, ptrs, t, &before, 0);
    lg_shm_unlock(m);
    return 0;
}

static int shm_provider(lg_store *s, const lg_store_scope *sc, lg_prov_op *p)
{
    lg_account_slot *ptrs[cap_of(sc)];
    lg_slots sl;
    lg_store_layout *m;
    if (!slots_enter(s, sc, ptrs, &sl, &m))
        return -1;
    lg_slots_provider(&sl, sc, p);
    lg_shm_unlock(m);
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
    .visit = shm_visit,
    .visit_providers = shm_visit_providers,
    .close = shm_close,
};
