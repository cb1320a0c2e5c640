/* The shm store's file and its mapping: opened, created or rebuilt, and replaced when its lock stays
 * unusable. Private to src/store. */
#ifndef LLMGATE_STORE_SHM_MAP_H
#define LLMGATE_STORE_SHM_MAP_H

#include "store/shm_store.h"

/* Opens, creates or rebuilds the store file at path and maps it. NULL with errno set on failure. */
lg_store_layout *lg_shm_map(const char *path);

/* Unmaps m (lg_shm_map's). */
void lg_shm_unmap(lg_store_layout *m);

/* Moves s from its retired mapping m to the file now at its path. The old mapping stays mapped: another
 * thread may still be reading it. */
__attribute__((cold)) void lg_shm_move_to_rebuilt(lg_shm_store *s, lg_store_layout *m);

/* Moves s to the file now at its path when its mapping was retired. */
static inline void lg_shm_follow_rebuild(lg_shm_store *s)
{
    lg_store_layout *m = lg_shm_map_of(s);
    if (__atomic_load_n(&m->retired, __ATOMIC_ACQUIRE))
        lg_shm_move_to_rebuilt(s, m);
}

/* Replaces the file whose lock stays unusable (m, s's mapping) with a copy of its slots, retires the old
 * one and moves s to the new one, with one notice line: the lock stayed taken (err 0) or failed with err
 * (a corrupted lock word). Under an flock of the file, once: a process that finds it retired already just
 * follows. */
void lg_shm_rebuild_locked_out(lg_shm_store *s, lg_store_layout *m, int err);

#endif
