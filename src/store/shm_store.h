/* The shm backend's handle, shared by its parts: the mapping (shm_map.c), the lock (shm_lock.c) and the
 * entry points (shm_ops.c). Private to src/store. */
#ifndef LLMGATE_STORE_SHM_STORE_H
#define LLMGATE_STORE_SHM_STORE_H

#include "store/backend.h"
#include "store/layout.h"

#define LG_SHM_PATH_MAX 4096

typedef struct {
    lg_store base;
    lg_store_layout *map; /* replaced (atomically) when the file is rebuilt; old mappings are kept */
    lg_shm_tuning tu;
    int64_t paused_until_ms; /* no lock attempt before this (atomic) */
    char path[LG_SHM_PATH_MAX];
} lg_shm_store;

/* The mapping s uses now. */
static inline lg_store_layout *lg_shm_map_of(lg_shm_store *s) { return __atomic_load_n(&s->map, __ATOMIC_ACQUIRE); }

#endif
