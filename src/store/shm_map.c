/* The shm store's file (see shm_map.h). A file is only ever published (linked or renamed into place) fully
 * initialised, so readers never see a half-built layout; one that fails validation is replaced under an
 * flock of the bad file. A file whose lock stays unusable is rebuilt from a copy of its slots and the old
 * one marked retired, which sends every process to the new one. Every fd is O_CLOEXEC; the file gets its
 * full size, with its disk space reserved, before it is mapped: on a full file system the store is not
 * opened (the caller fails open) rather than a store to an unbacked page of the mapping killing the host
 * with SIGBUS. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "llmgate/file_space.h"
#include "store/persist.h"
#include "store/shm_map.h"
#include "store/shm_version.h"

#define OPEN_TRIES 8

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
        memcpy(&m->holds, &from->holds, sizeof m->holds);
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
    if (fchmod(fd, 0600) == 0 && ftruncate(fd, (off_t)sizeof(lg_store_layout)) == 0 &&
        lg_file_reserve(fd, (off_t)sizeof(lg_store_layout), true) == 0)
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

/* Maps fd when it is a store file we can trust (ours, private, right size, magic and version), else NULL;
 * NULL with *full set (and errno) when its space cannot be reserved. */
static lg_store_layout *map_valid(int fd, bool *full)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0 ||
        st.st_size != (off_t)sizeof(lg_store_layout))
        return NULL;
    if (lg_file_reserve(fd, st.st_size, false) != 0) {
        *full = true;
        return NULL;
    }
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
        bool full = false;
        lg_store_layout *m = map_valid(fd, &full);
        if (m)
            munmap(m, sizeof *m);
        else if (full)
            rc = -1;
        else if ((rc = publish_new(path, true, NULL)) == 0)
            lg_shm_note_foreign(fd, path);
    }
    int saved = errno;
    flock(fd, LOCK_UN);
    errno = saved;
    return rc;
}

lg_store_layout *lg_shm_map(const char *path)
{
    for (int i = 0; i < OPEN_TRIES; i++) {
        int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
            if (errno != ENOENT || (publish_new(path, false, NULL) != 0 && errno != EEXIST))
                return NULL;
            continue;
        }
        bool full = false;
        lg_store_layout *m = map_valid(fd, &full);
        int rc = m ? 0 : full ? -1 : rebuild(path, fd);
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

void lg_shm_unmap(lg_store_layout *m) { munmap(m, sizeof *m); }

__attribute__((cold, noinline)) void lg_shm_move_to_rebuilt(lg_shm_store *s, lg_store_layout *m)
{
    lg_store_layout *fresh = lg_shm_map(s->path);
    if (fresh && !__atomic_compare_exchange_n(&s->map, &m, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        munmap(fresh, sizeof *fresh); /* another thread moved first */
}

void lg_shm_rebuild_locked_out(lg_shm_store *s, lg_store_layout *m, int err)
{
    int fd = open(s->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    if (!__atomic_load_n(&m->retired, __ATOMIC_ACQUIRE) && publish_new(s->path, true, m) == 0) {
        __atomic_store_n(&m->retired, 1u, __ATOMIC_RELEASE);
        if (err)
            lg_notice(&(bool){false}, "store-rebuilt", 0, "the state store %s has a corrupted lock (%s); rebuilt it",
                      s->path, strerror(err));
        else
            lg_notice(&(bool){false}, "store-rebuilt", 0, "the state store %s stayed locked; rebuilt it", s->path);
    }
    flock(fd, LOCK_UN);
    close(fd);
    lg_shm_follow_rebuild(s);
}
