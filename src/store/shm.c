/* The shared-memory store: a memory-mapped file (0600) holding account and provider slots, guarded by a
 * robust process-shared mutex. A file is only ever published (linked or renamed into place) fully
 * initialised, so readers never see a half-built layout; one that fails validation is replaced under an
 * flock of the bad file. No process-local lock exists, so nothing of ours is held across fork. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "llmgate/clock.h"
#include "store/layout.h"
#include "store/path.h"
#include "store/persist.h"

#define OPEN_TRIES 8
#define LOCK_TIMEOUT_MS 2000

struct lg_store {
    lg_store_layout *map;
};

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

/* Initialises a fresh zeroed mapping: header, robust, shared, error-checking mutex, and the long cooldowns
 * kept on disk. Magic goes last. */
static int init_layout(lg_store_layout *m)
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
    lg_persist_restore(m, m->created_ms);
    __atomic_store_n(&m->magic, LG_STORE_MAGIC, __ATOMIC_RELEASE);
    return 0;
}

/* Builds a complete store file beside path and publishes it: link() when none exists (fails with EEXIST
 * when another process won the race), rename() over a rejected one when replace is set. */
static int publish_new(const char *path, bool replace)
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
        if (init_layout(m) == 0)
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
        m->size == sizeof *m)
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
            rc = publish_new(path, true);
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
            if (errno != ENOENT || (publish_new(path, false) != 0 && errno != EEXIST))
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

lg_store *lg_store_open(const char *path, char *err, size_t errlen)
{
    int saved = errno;
    char file[4096];
    lg_store *s = NULL;
    if (!lg_store_resolve_path(path, file, sizeof file)) {
        snprintf(err, errlen, "llmgate: state store path too long");
    } else if (path || lg_store_private_dir(file, err, errlen) == 0) {
        lg_store_layout *m = open_mapping(file);
        if (!m)
            snprintf(err, errlen, "llmgate: state store %s: %s", file, strerror(errno));
        else if (!(s = malloc(sizeof *s))) {
            snprintf(err, errlen, "llmgate: state store %s: out of memory", file);
            munmap(m, sizeof *m);
        } else
            s->map = m;
    }
    errno = saved;
    return s;
}

void lg_store_close(lg_store *s)
{
    if (!s)
        return;
    int saved = errno;
    munmap(s->map, sizeof *s->map);
    free(s);
    errno = saved;
}

/* Takes the store lock; recovers it when its holder died. Returns false when it cannot be taken within
 * LOCK_TIMEOUT_MS (a holder stopped, not dead: the caller fails open rather than stall the host). */
static bool lock(lg_store *s)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += LOCK_TIMEOUT_MS / 1000;
    int rc = pthread_mutex_timedlock(&s->map->lock, &until);
    if (rc == EOWNERDEAD)
        rc = pthread_mutex_consistent(&s->map->lock);
    return rc == 0;
}

static void unlock(lg_store *s) { pthread_mutex_unlock(&s->map->lock); }

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

int lg_store_with(lg_store *s, const char *provider, const lg_account_ref *refs, size_t n, lg_store_fn fn,
                  void *ctx)
{
    if (!s || !provider || (n > 0 && !refs) || n > LG_STORE_ACCOUNTS || !fn)
        return -1;
    int saved = errno;
    lg_account_slot *slots[LG_STORE_ACCOUNTS];
    int rc = -1;
    if (lock(s)) {
        lg_store_provider_entry *p = provider_entry(s->map, provider);
        size_t i = 0;
        for (; p && i < n; i++) {
            lg_store_account_entry *e = lg_layout_account(s->map, provider, &refs[i]);
            if (!e)
                break;
            slots[i] = &e->slot;
        }
        if (p && i == n) {
            fn(&p->slot, slots, n, ctx);
            rc = 0;
        }
        unlock(s);
    }
    errno = saved;
    return rc;
}

int lg_store_visit(lg_store *s, lg_store_visit_fn fn, void *ctx)
{
    if (!s || !fn)
        return -1;
    int saved = errno;
    int rc = -1;
    if (lock(s)) {
        for (size_t i = 0; i < LG_STORE_ACCOUNTS; i++) {
            const lg_store_account_entry *e = &s->map->accounts[i];
            if (e->used)
                fn(e->provider, e->name, e->digest, &e->slot, ctx);
        }
        unlock(s);
        rc = 0;
    }
    errno = saved;
    return rc;
}
