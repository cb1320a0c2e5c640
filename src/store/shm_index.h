/* The entry index of a mapped store file: the provider and account entries by name (created on first
 * use), where a scope's entries were found last (its memo), and the walks over every entry. Pure work on
 * a layout the caller holds the lock of (or that no other process sees yet). Private to src/store. */
#ifndef LLMGATE_STORE_SHM_INDEX_H
#define LLMGATE_STORE_SHM_INDEX_H

#include "store/layout.h"

/* FNV-1a over the three NUL-terminated strings, separators included: the index's names, and the redis
 * backend's account identities and machine name. */
uint64_t lg_store_hash_names(const char *a, const char *b, const char *c);

/* The account's entry in m, created when missing; NULL when the table is full. */
lg_store_account_entry *lg_layout_account(lg_store_layout *m, const char *provider, const lg_account_ref *ref);

/* Forgets every memo made so far in this process: called when a store is closed, before its address can
 * be mapped again as another store's. */
void lg_shm_index_forget_memos(void);

/* Shm stores closed so far in this process (lg_shm_index_forget_memos): a memo made before a close is not
 * trusted after it. */
extern uint64_t lg_shm_index_closed;
static inline uint64_t lg_shm_index_epoch(void) { return __atomic_load_n(&lg_shm_index_closed, __ATOMIC_RELAXED); }

/* The provider's entry that memo h points at in m, its accounts' slots into slots; NULL when h was made for
 * another mapping or another number of accounts. */
static inline lg_store_provider_entry *lg_shm_index_memo(const lg_store_memo *h, lg_store_layout *m, size_t n,
                                                         lg_account_slot **slots)
{
    if (h->map != m || h->n != n || h->epoch != lg_shm_index_epoch())
        return NULL;
    for (size_t i = 0; i < n; i++)
        slots[i] = &m->accounts[h->accounts[i]].slot;
    return &m->providers[h->provider];
}

/* lg_shm_index_find without a memo that holds: by name, the result remembered in memo (may be NULL). */
__attribute__((noinline)) lg_store_provider_entry *
lg_shm_index_by_name(lg_store_layout *m, const char *provider, const lg_account_ref *refs, size_t n, lg_store_memo *memo,
                     lg_account_slot **slots);

/* The provider's entry and its accounts' slots (into slots), created when missing; NULL when a table is
 * full. Found at once through memo (the caller's, made for these names; may be NULL), else by name.
 * Copying, hashing and comparing every name cost more than a step's own work. */
static inline __attribute__((always_inline)) lg_store_provider_entry *
lg_shm_index_find(lg_store_layout *m, const char *provider, const lg_account_ref *refs, size_t n, lg_store_memo *memo,
                  lg_account_slot **slots)
{
    lg_store_provider_entry *p = memo ? lg_shm_index_memo(memo, m, n, slots) : NULL;
    return p ? p : lg_shm_index_by_name(m, provider, refs, n, memo, slots);
}

/* Runs fn on every account entry of m in use. */
void lg_shm_index_visit(const lg_store_layout *m, lg_store_visit_fn fn, void *ctx);

/* Runs fn on every provider entry of m in use. */
void lg_shm_index_visit_providers(const lg_store_layout *m, lg_store_provider_visit_fn fn, void *ctx);

#endif
