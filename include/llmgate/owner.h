/* A process as the owner of something shared between processes of one machine (a reservation in the shm
 * store, a taker of an account's Redis leases): its pid and its start time, which tells a reused pid apart.
 * Whether an owner still runs is src/store/owner.c's (lg_owner_alive), or a test's fake. */
#ifndef LLMGATE_OWNER_H
#define LLMGATE_OWNER_H

#include <stdbool.h>
#include <stdint.h>

/* A process: its pid (0: none) and its start time (clock ticks after boot). */
typedef struct {
    int32_t pid;
    uint64_t start;
} lg_store_owner;

/* True when owner o still runs. */
typedef bool (*lg_owner_alive_fn)(const lg_store_owner *o, void *ctx);

#endif
