/* The shm store's lock past a free one (see shm_lock.h): the pause, the timed wait, the stall mark and the
 * rebuild (of a lock that stays taken, or at once of one whose word is garbage: any error but a timeout).
 * Nothing sleeps while holding the lock; errno is kept. */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <time.h>

#include "llmgate/clock.h"
#include "llmgate/log.h"
#include "store/shm_lock.h"

/* Leaves the store alone until the pause that started at `since` ends, with one notice line. */
static void pause_from(lg_shm_store *s, int64_t since)
{
    __atomic_store_n(&s->paused_until_ms, since + s->tu.pause_ms, __ATOMIC_RELAXED);
    lg_notice(&(bool){false}, "store-locked", 0, "the state store %s stayed locked for %lld ms; state is kept per request for %lld s",
              s->path, (long long)s->tu.lock_timeout_ms, (long long)(s->tu.pause_ms / 1000));
}

/* Takes the lock of m within the lock timeout; recovers it when its holder died. */
static int timed_lock(lg_shm_store *s, lg_store_layout *m)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    int64_t ns = until.tv_nsec + (s->tu.lock_timeout_ms % 1000) * 1000000;
    until.tv_sec += s->tu.lock_timeout_ms / 1000 + ns / 1000000000;
    until.tv_nsec = ns % 1000000000;
    int rc = pthread_mutex_timedlock(&m->lock, &until);
    return rc == EOWNERDEAD ? pthread_mutex_consistent(&m->lock) : rc;
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

/* lg_shm_lock past a free lock: the pause, the timed wait, the stall mark and the rebuild. */
static bool lock_waiting(lg_shm_store *s, lg_store_layout **out, int64_t paused_until)
{
    int64_t now = lg_now_ms();
    if (now < paused_until)
        return false;
    if (paused_until) /* the pause is over: back to the usual case (unless another pause began meanwhile) */
        __atomic_compare_exchange_n(&s->paused_until_ms, &paused_until, 0, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
    for (int round = 0; round < 2; round++) {
        lg_store_layout *m = lg_shm_map_of(s);
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
        if (rc != ETIMEDOUT && rc != EBUSY) { /* EINVAL, ENOTRECOVERABLE, ...: the lock word is garbage */
            lg_shm_rebuild_locked_out(s, m, rc);
            if (lg_shm_map_of(s) == m)
                return false;
            continue;
        }
        lg_shm_follow_rebuild(s);
        if (lg_shm_map_of(s) != m)
            continue; /* rebuilt meanwhile: try the new file */
        now = lg_now_ms();
        if (!stalled && holder_exists(m)) {
            __atomic_compare_exchange_n(&m->stalled_ms, &stalled, now, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
            pause_from(s, stalled ? stalled : now);
            return false;
        }
        lg_shm_rebuild_locked_out(s, m, 0);
        if (lg_shm_map_of(s) == m)
            return false;
    }
    return false;
}

__attribute__((cold, noinline)) bool lg_shm_lock_slow(lg_shm_store *s, lg_store_layout **out, int64_t paused_until)
{
    int saved = errno;
    bool ok = lock_waiting(s, out, paused_until);
    errno = saved;
    return ok;
}
