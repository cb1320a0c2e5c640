/* The shm store's robust, process-shared lock. A lock that stays taken (a stopped holder, or a lock word
 * naming a thread that is gone) is not waited on again for a pause, then the file is rebuilt
 * (lg_shm_rebuild_locked_out). No process-local lock exists, so nothing of ours is held across fork.
 * Private to src/store. */
#ifndef LLMGATE_STORE_SHM_LOCK_H
#define LLMGATE_STORE_SHM_LOCK_H

#include <errno.h>

#include "store/shm_map.h"

/* lg_shm_lock when the lock was not free or the store is paused or stalled: errno preserved. */
__attribute__((cold)) bool lg_shm_lock_slow(lg_shm_store *s, lg_store_layout **out, int64_t paused_until);

/* The usual case, the file not marked stalled: takes the lock when it is free, without reading a clock. */
static inline bool lg_shm_lock_if_free(lg_shm_store *s, lg_store_layout **out)
{
    lg_store_layout *m = lg_shm_map_of(s);
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

/* Takes the store lock and sets *out to the mapping it guards. Returns false at once during a pause, and
 * when the lock cannot be taken within the lock timeout (a holder stopped: the caller fails open rather
 * than stall the host). The first timeout marks the file stalled, so that every process (a new one too)
 * skips the wait during the pause (one notice line each); a lock still unusable once the pause has run,
 * or one whose holder no longer exists, gets the file rebuilt. The usual case (a free lock) reads no clock
 * and leaves errno alone. */
static inline bool lg_shm_lock(lg_shm_store *s, lg_store_layout **out)
{
    lg_shm_follow_rebuild(s);
    int64_t paused_until = __atomic_load_n(&s->paused_until_ms, __ATOMIC_RELAXED);
    if (__builtin_expect(!paused_until && lg_shm_lock_if_free(s, out), 1))
        return true;
    return lg_shm_lock_slow(s, out, paused_until);
}

/* Releases the lock of m (taken by lg_shm_lock). */
static inline void lg_shm_unlock(lg_store_layout *m) { pthread_mutex_unlock(&m->lock); }

#endif
