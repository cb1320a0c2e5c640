/* The entry index of a mapped store file (see shm_index.h): open addressing on an FNV-1a hash of the
 * names, entries never freed; a scope's memo finds its entries again without a name compared. */
#include <string.h>

#include "store/shm_index.h"

uint64_t lg_shm_index_closed;

void lg_shm_index_forget_memos(void) { __atomic_add_fetch(&lg_shm_index_closed, 1, __ATOMIC_RELAXED); }

/* Copies s (NULL = "") into dst, NUL-padded, truncated to at most cap - 1 bytes without splitting a
 * UTF-8 sequence. */
static void copy_name(char *dst, const char *s, size_t cap)
{
    memset(dst, 0, cap);
    if (!s)
        return;
    size_t len = strnlen(s, cap);
    if (len == cap)
        for (len = cap - 1; len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80; len--) {
        }
    memcpy(dst, s, len);
}

uint64_t lg_store_hash_names(const char *a, const char *b, const char *c)
{
    uint64_t h = UINT64_C(1469598103934665603);
    const char *parts[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        const char *p = parts[i];
        do {
            h ^= (unsigned char)*p;
            h *= UINT64_C(1099511628211);
        } while (*p++);
    }
    return h;
}

/* The provider's entry, created when missing; NULL when the table is full. */
static lg_store_provider_entry *provider_entry(lg_store_layout *m, const char *provider)
{
    char name[LG_NAME_MAX];
    copy_name(name, provider, sizeof name);
    uint64_t h = lg_store_hash_names(name, "", "");
    for (size_t k = 0; k < LG_STORE_PROVIDERS; k++) {
        lg_store_provider_entry *e = &m->providers[(h + k) % LG_STORE_PROVIDERS];
        if (!e->used) {
            memset(e, 0, sizeof *e);
            memcpy(e->name, name, sizeof name);
            e->used = 1;
            return e;
        }
        if (!strcmp(e->name, name))
            return e;
    }
    return NULL;
}

lg_store_account_entry *lg_layout_account(lg_store_layout *m, const char *provider, const lg_account_ref *ref)
{
    char prov[LG_NAME_MAX], name[LG_NAME_MAX], digest[LG_DIGEST_HEX];
    copy_name(prov, provider, sizeof prov);
    copy_name(name, ref->name, sizeof name);
    copy_name(digest, ref->digest, sizeof digest);
    uint64_t h = lg_store_hash_names(prov, name, digest);
    for (size_t k = 0; k < LG_STORE_ACCOUNTS; k++) {
        lg_store_account_entry *e = &m->accounts[(h + k) % LG_STORE_ACCOUNTS];
        if (!e->used) {
            memset(e, 0, sizeof *e);
            memcpy(e->provider, prov, sizeof prov);
            memcpy(e->name, name, sizeof name);
            memcpy(e->digest, digest, sizeof digest);
            e->used = 1;
            return e;
        }
        if (!strcmp(e->provider, prov) && !strcmp(e->name, name) && !strcmp(e->digest, digest))
            return e;
    }
    return NULL;
}

/* True when name (NULL = "") is what an entry holding `held` was created for (a name too long for the
 * entry compares unequal: the hashed lookup then decides). */
static bool holds(const char *held, const char *name) { return !strcmp(held, name ? name : ""); }

/* lg_shm_index_memo when the entries still hold these names (h may have been made for other ones); else
 * NULL. */
static lg_store_provider_entry *checked_entries(const lg_store_memo *h, lg_store_layout *m, const char *provider,
                                                const lg_account_ref *refs, size_t n, lg_account_slot **slots)
{
    lg_store_provider_entry *p = lg_shm_index_memo(h, m, n, slots);
    if (!p || !p->used || !holds(p->name, provider))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const lg_store_account_entry *e = &m->accounts[h->accounts[i]];
        if (!e->used || !holds(e->digest, refs[i].digest) || !holds(e->name, refs[i].name) ||
            !holds(e->provider, provider))
            return NULL;
    }
    return p;
}

/* Through the entries this thread found last when they still hold these names (the next exchanges of a
 * host that keeps calling one provider), else by the hashed lookups (then remembered); the result
 * remembered in memo (may be NULL) as well. Not inlined: the thread's copy is then looked up only when a
 * memo does not hold. */
__attribute__((noinline)) lg_store_provider_entry *
lg_shm_index_by_name(lg_store_layout *m, const char *provider, const lg_account_ref *refs, size_t n, lg_store_memo *memo,
                     lg_account_slot **slots)
{
    static __attribute__((tls_model("initial-exec"))) __thread lg_store_memo last;
    lg_store_memo *hint = &last; /* one look-up of the thread's copy */
    lg_store_provider_entry *p = checked_entries(hint, m, provider, refs, n, slots);
    if (!p) {
        if (!(p = provider_entry(m, provider)))
            return NULL;
        lg_store_memo found = {
            .map = m, .epoch = lg_shm_index_epoch(), .n = n, .provider = (uint32_t)(p - m->providers)};
        for (size_t i = 0; i < n; i++) {
            lg_store_account_entry *e = lg_layout_account(m, provider, &refs[i]);
            if (!e)
                return NULL;
            slots[i] = &e->slot;
            if (i < LG_STORE_MEMO_ACCOUNTS)
                found.accounts[i] = (uint32_t)(e - m->accounts);
        }
        if (n > LG_STORE_MEMO_ACCOUNTS)
            return p;
        *hint = found;
    }
    if (memo)
        *memo = *hint;
    return p;
}

void lg_shm_index_visit(const lg_store_layout *m, lg_store_visit_fn fn, void *ctx)
{
    for (size_t i = 0; i < LG_STORE_ACCOUNTS; i++) {
        const lg_store_account_entry *e = &m->accounts[i];
        if (e->used)
            fn(e->provider, e->name, e->digest, &e->slot, ctx);
    }
}

void lg_shm_index_visit_providers(const lg_store_layout *m, lg_store_provider_visit_fn fn, void *ctx)
{
    for (size_t i = 0; i < LG_STORE_PROVIDERS; i++) {
        const lg_store_provider_entry *e = &m->providers[i];
        if (e->used)
            fn(e->name, &e->slot, ctx);
    }
}
