/* The shared-memory store: a memory-mapped file (0600) holding account and provider slots, guarded by a
 * robust process-shared mutex. A file is only ever published (linked or renamed into place) fully
 * initialised, so readers never see a half-built layout; one that fails validation is replaced under an
 * flock of the bad file. A lock that stays taken (a stopped holder, or a lock word naming a thread that
 * is gone) is not waited on again for a pause, then the file is rebuilt from a copy of its slots and the
 * old one marked retired, which sends every process to the new one. No process-local lock exists, so
 * nothing of ours is held across fork. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "store/layout.h"
#include "store/path.h"
#include "store/persist.h"
#include "store/shm.h"

#define OPEN_TRIES 8
#define PATH_MAX_LEN 4096

typedef struct {
    lg_store base;
    lg_store_layout *map; /* replaced (atomically) when the file is rebuilt; old mappings are kept */
    lg_shm_tuning tu;
    int64_t paused_until_ms; /* no lock attempt before this (atomic) */
    char path[PATH_MAX_LEN];
} shm_store;

static shm_store *shm(lg_store *s) { return (shm_store *)s; }
static lg_store_layout *map_of(shm_store *s) { return __atomic_load_n(&s->map, __ATOMIC_ACQUIRE); }

/* Shm stores closed so far in this process: a memo made before a close is not trusted after it (another
 * store may be mapped where the closed one was). */
static uint64_t closed;
static inline uint64_t closed_stores(void) { return __atomic_load_n(&closed, __ATOMIC_RELAXED); }

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

/* FNV-1a over the NUL-terminated strings, separators included. */
static uint64_t hash_names(const char *a, const char *b, const char *c)
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

/* Initialises a fresh zeroed mapping: header, robust, shared, error-checking mutex, and the slots of
 * `from` (a store being replaced; read without its lock) or else the long cooldowns kept on disk. Magic
 * goes last. */
static int init_layout(lg_store_layout *m, const lg_store_layout *from)
{
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr) != 0)
        return -1;
    int rc = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    if (rc == 0)
        rc = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    if (rc == 0)
        rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    if (rc == 0)
        rc = pthread_mutex_init(&m->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    if (rc != 0)
        return -1;
    m->version = LG_STORE_VERSION;
    m->size = sizeof *m;
    m->created_ms = lg_now_ms();
    if (from) {
        memcpy(m->providers, from->providers, sizeof m->providers);
        memcpy(m->accounts, from->accounts, sizeof m->accounts);
    } else
        lg_persist_restore(m, m->created_ms);
    __atomic_store_n(&m->magic, LG_STORE_MAGIC, __ATOMIC_RELEASE);
    return 0;
}

/* Builds a complete store file beside path (a copy of from's slots when non-NULL) and publishes it: link()
 * when none exists (fails with EEXIST when another process won the race), rename() over a rejected one
 * when replace is set. */
static int publish_new(const char *path, bool replace, const lg_store_layout *from)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = -1;
    void *m = MAP_FAILED;
    if (fchmod(fd, 0600) == 0 && ftruncate(fd, (off_t)sizeof(lg_store_layout)) == 0)
        m = mmap(NULL, sizeof(lg_store_layout), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) {
        if (init_layout(m, from) == 0)
            rc = replace ? rename(tmp, path) : link(tmp, path);
        munmap(m, sizeof(lg_store_layout));
    }
    int saved = errno;
    if (rc != 0 || !replace)
        unlink(tmp);
    close(fd);
    errno = saved;
    return rc;
}

/* Maps fd when it is a store file we can trust (ours, private, right size, magic and version), else NULL. */
static lg_store_layout *map_valid(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0 ||
        st.st_size != (off_t)sizeof(lg_store_layout))
        return NULL;
    lg_store_layout *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (__atomic_load_n(&m->magic, __ATOMIC_ACQUIRE) == LG_STORE_MAGIC && m->version == LG_STORE_VERSION &&
        m->size == sizeof *m && !__atomic_load_n(&m->retired, __ATOMIC_ACQUIRE))
        return m;
    munmap(m, sizeof *m);
    return NULL;
}

/* True when path still names the file open as fd. */
static bool same_file(const char *path, int fd)
{
    struct stat a, b;
    return lstat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Replaces the rejected file open as fd, unless another process already did (then nothing to do). */
static int rebuild(const char *path, int fd)
{
    if (flock(fd, LOCK_EX) != 0)
        return -1;
    int rc = 0;
    if (same_file(path, fd)) {
        lg_store_layout *m = map_valid(fd);
        if (m)
            munmap(m, sizeof *m);
        else
            rc = publish_new(path, true, NULL);
    }
    int saved = errno;
    flock(fd, LOCK_UN);
    errno = saved;
    return rc;
}

/* Opens, creates or rebuilds the store file at path and maps it. NULL with errno set on failure. */
static lg_store_layout *open_mapping(const char *path)
{
    for (int i = 0; i < OPEN_TRIES; i++) {
        int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
            if (errno != ENOENT || (publish_new(path, false, NULL) != 0 && errno != EEXIST))
                return NULL;
            continue;
        }
        lg_store_layout *m = map_valid(fd);
        int rc = m ? 0 : rebuild(path, fd);
        int saved = errno;
        close(fd);
        if (m)
            return m;
        if (rc != 0) {
            errno = saved;
            return NULL;
        }
    }
    errno = EAGAIN;
    return NULL;
}

lg_store *lg_shm_open(const char *path, const lg_shm_tuning *tu, char *err, size_t errlen)
{
    int saved = errno;
    char file[PATH_MAX_LEN];
    shm_store *s = NULL;
    if (!lg_store_resolve_path(path, file, sizeof file)) {
        snprintf(err, errlen, "llmgate: state store path too long");
    } else if (path || lg_store_private_dir(file, err, errlen) == 0) {
        lg_store_layout *m = open_mapping(file);
        if (!m)
            snprintf(err, errlen, "llmgate: state store %s: %s", file, strerror(errno));
        else if (!(s = calloc(1, sizeof *s))) {
            snprintf(err, errlen, "llmgate: state store %s: out of memory", file);
            munmap(m, sizeof *m);
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

void lg_shm_close(lg_store *st)
{
    shm_store *s = shm(st);
    int saved = errno;
    __atomic_add_fetch(&closed, 1, __ATOMIC_RELAXED); /* before the address can be mapped again */
    munmap(s->map, sizeof *s->map);
    free(s);
    errno = saved;
}

/* Moves s from its retired mapping m to the file now at its path. The old mapping stays mapped: another
 * thread may still be reading it. */
__attribute__((cold, noinline)) static void move_to_rebuilt(shm_store *s, lg_store_layout *m)
{
    lg_store_layout *fresh = open_mapping(s->path);
    if (fresh && !__atomic_compare_exchange_n(&s->map, &m, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        munmap(fresh, sizeof *fresh); /* another thread moved first */
}

/* Moves s to the file now at its path when its mapping was retired. */
static inline void follow_rebuild(shm_store *s)
{
    lg_store_layout *m = map_of(s);
    if (__atomic_load_n(&m->retired, __ATOMIC_ACQUIRE))
        move_to_rebuilt(s, m);
}

/* True when the thread the lock word names still exists (a stopped holder), false when it is gone without
 * the kernel having recovered the lock (a forged or stale word). glibc keeps the owner's TID in the futex
 * word, the first member of the mutex. */
static bool holder_exists(const lg_store_layout *m)
{
    unsigned word = __atomic_load_n((const unsigned *)(const void *)&m->lock, __ATOMIC_RELAXED);
    pid_t tid = (pid_t)(word & FUTEX_TID_MASK);
    return tid > 0 && (kill(tid, 0) == 0 || errno == EPERM);
}

/* Replaces the file whose lock stays unusable with a copy of its slots, retires the old one and moves s to
 * the new one. Under an flock of the file, once: a process that finds it retired already just follows. */
static void rebuild_locked_out(shm_store *s, lg_store_layout *m)
{
    int fd = open(s->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    if (!__atomic_load_n(&m->retired, __ATOMIC_ACQUIRE) && publish_new(s->path, true, m) == 0) {
        __atomic_store_n(&m->retired, 1u, __ATOMIC_RELEASE);
        lg_notice(&(bool){false}, "store-rebuilt", 0, "the state store %s stayed locked; rebuilt it", s->path);
    }
    flock(fd, LOCK_UN);
    close(fd);
    follow_rebuild(s);
}

/* Leaves the store alone until the pause that started at `since` ends, with one notice line. */
static void pause_from(shm_store *s, int64_t since)
{
    __atomic_store_n(&s->paused_until_ms, since + s->tu.pause_ms, __ATOMIC_RELAXED);
    lg_notice(&(bool){false}, "store-locked", 0, "the state store %s stayed locked for %lld ms; state is kept per request for %lld s",
              s->path, (long long)s->tu.lock_timeout_ms, (long long)(s->tu.pause_ms / 1000));
}

/* Takes the lock of m within the lock timeout; recovers it when its holder died. */
static int timed_lock(shm_store *s, lg_store_layout *m)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    int64_t ns = until.tv_nsec + (s->tu.lock_timeout_ms % 1000) * 1000000;
    until.tv_sec += s->tu.lock_timeout_ms / 1000 + ns / 1000000000;
    until.tv_nsec = ns % 1000000000;
    int rc = pthread_mutex_timedlock(&m->lock, &until);
    return rc == EOWNERDEAD ? pthread_mutex_consistent(&m->lock) : rc;
}

/* The usual case, the file not marked stalled: takes the lock when it is free, without reading a clock. */
static bool lock_if_free(shm_store *s, lg_store_layout **out)
{
    lg_store_layout *m = map_of(s);
    if (__atomic_load_n(&m->stalled_ms, __ATOMIC_ACQUIRE))
        return false;
    int rc = pthread_mutex_trylock(&m->lock);
    if (rc == EOWNERDEAD)
        rc = pthread_mutex_consistent(&m->lock);
    if (rc != 0)
        return false;
    *out = m;
    return true;
}

static bool lock_waiting(shm_store *s, lg_store_layout **out, int64_t paused_until);

/* lock() when the lock was not free or the store is paused or stalled: errno preserved. */
__attribute__((cold, noinline)) static bool lock_slow(shm_store *s, lg_store_layout **out, int64_t paused_until)
{
    int saved = errno;
    bool ok = lock_waiting(s, out, paused_until);
    errno = saved;
    return ok;
}

/* Takes the store lock. Returns false at once during a pause, and when the lock cannot be taken within the
 * lock timeout (a holder stopped: the caller fails open rather than stall the host). The first timeout
 * marks the file stalled, so that every process (a new one too) skips the wait during the pause (one
 * notice line each); a lock still unusable once the pause has run, or one whose holder no longer exists,
 * gets the file rebuilt. The usual case (a free lock) reads no clock and leaves errno alone. */
static inline bool lock(shm_store *s, lg_store_layout **out)
{
    follow_rebuild(s);
    int64_t paused_until = __atomic_load_n(&s->paused_until_ms, __ATOMIC_RELAXED);
    if (__builtin_expect(!paused_until && lock_if_free(s, out), 1))
        return true;
    return lock_slow(s, out, paused_until);
}

/* The part of lock() past a free lock: the pause, the timed wait, the stall mark and the rebuild. */
static bool lock_waiting(shm_store *s, lg_store_layout **out, int64_t paused_until)
{
    int64_t now = lg_now_ms();
    if (now < paused_until)
        return false;
    if (paused_until) /* the pause is over: back to the usual case (unless another pause began meanwhile) */
        __atomic_compare_exchange_n(&s->paused_until_ms, &paused_until, 0, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
    for (int round = 0; round < 2; round++) {
        lg_store_layout *m = map_of(s);
        int64_t stalled = __atomic_load_n(&m->stalled_ms, __ATOMIC_ACQUIRE);
        bool in_pause = stalled > 0 && now - stalled < s->tu.pause_ms;
        int rc = in_pause ? pthread_mutex_trylock(&m->lock) : timed_lock(s, m);
        if (rc == EOWNERDEAD)
            rc = pthread_mutex_consistent(&m->lock);
        if (rc == 0) {
            if (stalled)
                __atomic_store_n(&m->stalled_ms, 0, __ATOMIC_RELEASE);
            *out = m;
            return true;
        }
        if (in_pause && rc == EBUSY) {
            pause_from(s, stalled);
            return false;
        }
        if (rc != ETIMEDOUT)
            return false;
        follow_rebuild(s);
        if (map_of(s) != m)
            continue; /* rebuilt meanwhile: try the new file */
        now = lg_now_ms();
        if (!stalled && holder_exists(m)) {
            __atomic_compare_exchange_n(&m->stalled_ms, &stalled, now, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
            pause_from(s, stalled ? stalled : now);
            return false;
        }
        rebuild_locked_out(s, m);
        if (map_of(s) == m)
            return false;
    }
    return false;
}

static void unlock(lg_store_layout *m) { pthread_mutex_unlock(&m->lock); }

/* The provider's entry, created when missing; NULL when the table is full. Under the lock. */
static lg_store_provider_entry *provider_entry(lg_store_layout *m, const char *provider)
{
    char name[LG_NAME_MAX];
    copy_name(name, provider, sizeof name);
    uint64_t h = hash_names(name, "", "");
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
    uint64_t h = hash_names(prov, name, digest);
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

/* The provider's entry that memo h points at in m, its accounts' slots into slots; NULL when h was made for
 * another mapping or another number of accounts. */
static lg_store_provider_entry *memo_entries(const lg_store_memo *h, lg_store_layout *m, size_t n,
                                             lg_account_slot **slots)
{
    if (h->map != m || h->n != n || h->epoch != closed_stores())
        return NULL;
    for (size_t i = 0; i < n; i++)
        slots[i] = &m->accounts[h->accounts[i]].slot;
    return &m->providers[h->provider];
}

/* memo_entries when the entries still hold these names (h may have been made for other ones); else NULL. */
static lg_store_provider_entry *checked_entries(const lg_store_memo *h, lg_store_layout *m, const char *provider,
                                                const lg_account_ref *refs, size_t n, lg_account_slot **slots)
{
    lg_store_provider_entry *p = memo_entries(h, m, n, slots);
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

/* find_entries without a memo that holds: through the entries this thread found last when they still hold
 * these names (the next exchanges of a host that keeps calling one provider), else by the hashed lookups
 * (then remembered); the result remembered in memo (may be NULL) as well. Not inlined: the thread's copy
 * is then looked up only when a memo does not hold. */
__attribute__((noinline)) static lg_store_provider_entry *find_by_name(lg_store_layout *m, const char *provider, const lg_account_ref *refs,
                                             size_t n, lg_store_memo *memo, lg_account_slot **slots)
{
    static __attribute__((tls_model("initial-exec"))) __thread lg_store_memo last;
    lg_store_memo *hint = &last; /* one look-up of the thread's copy */
    lg_store_provider_entry *p = checked_entries(hint, m, provider, refs, n, slots);
    if (!p) {
        if (!(p = provider_entry(m, provider)))
            return NULL;
        lg_store_memo found = {.map = m, .epoch = closed_stores(), .n = n, .provider = (uint32_t)(p - m->providers)};
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

/* The provider's entry and its accounts' slots (into slots), created when missing; NULL when a table is
 * full. Under the lock. Found at once through memo (the caller's, made for these names; may be NULL), else
 * by name (find_by_name). Copying, hashing and comparing every name cost more than a step's own work. */
static inline __attribute__((always_inline)) lg_store_provider_entry *
find_entries(lg_store_layout *m, const char *provider, const lg_account_ref *refs, size_t n, lg_store_memo *memo,
             lg_account_slot **slots)
{
    lg_store_provider_entry *p = memo ? memo_entries(memo, m, n, slots) : NULL;
    return p ? p : find_by_name(m, provider, refs, n, memo, slots);
}

/* The lock of the shm store st taken and the entries found (see lg_shm_enter), for a valid request. */
static inline __attribute__((always_inline)) lg_provider_slot *
enter(lg_store *st, const char *provider, const lg_account_ref *refs, size_t n, lg_store_memo *memo,
      lg_account_slot **slots, lg_store_layout **held)
{
    lg_store_layout *m;
    if (!lock(shm(st), &m))
        return NULL;
    lg_store_provider_entry *p = find_entries(m, provider, refs, n, memo, slots);
    if (!p) {
        unlock(m);
        return NULL;
    }
    *held = m;
    return &p->slot;
}

lg_provider_slot *lg_shm_enter(lg_store *st, const lg_store_scope *sc, lg_account_slot **slots,
                               lg_store_layout **held)
{
    return enter(st, sc->provider, sc->refs, sc->n, sc->memo, slots, held);
}

void lg_shm_leave(lg_store_layout *held) { unlock(held); }

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
        unlock(m);
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

int lg_shm_visit(lg_store *st, lg_store_visit_fn fn, void *ctx)
{
    int saved = errno;
    int rc = -1;
    lg_store_layout *m;
    if (lock(shm(st), &m)) {
        for (size_t i = 0; i < LG_STORE_ACCOUNTS; i++) {
            const lg_store_account_entry *e = &m->accounts[i];
            if (e->used)
                fn(e->provider, e->name, e->digest, &e->slot, ctx);
        }
        unlock(m);
        rc = 0;
    }
    errno = saved;
    return rc;
}

int lg_shm_visit_providers(lg_store *st, lg_store_provider_visit_fn fn, void *ctx)
{
    int saved = errno;
    int rc = -1;
    lg_store_layout *m;
    if (lock(shm(st), &m)) {
        for (size_t i = 0; i < LG_STORE_PROVIDERS; i++) {
            const lg_store_provider_entry *e = &m->providers[i];
            if (e->used)
                fn(e->name, &e->slot, ctx);
        }
        unlock(m);
        rc = 0;
    }
    errno = saved;
    return rc;
}
