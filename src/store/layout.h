/* The on-disk (and in-memory) layout of the shared-memory store file. Private to src/store. */
#ifndef LLMGATE_STORE_LAYOUT_H
#define LLMGATE_STORE_LAYOUT_H

#include <pthread.h>
#include <stdint.h>

#include "llmgate/config.h"
#include "llmgate/store.h"

#define LG_STORE_MAGIC UINT64_C(0x31455441474d4c4c) /* "LLMGATE1" as little-endian bytes */
#define LG_STORE_VERSION 12u /* 2: windows; 3: probe lease; 4: prompt calibration; 5: notice time; 6: budget, breaker;
                             7: the retired flag and the stall mark; 8: the ungated count and notice times,
                             an account's set-aside reason,
                             the window's running sums,
                             the owners of the reservations (holds); 9: an account's Redis lease;
                             10: the window's marks of buckets holding places at their first ms only;
                             11: the takers of an account's leases;
                             12: a taker as its pid and start time */
#define LG_STORE_PROVIDERS LG_CONFIG_STORE_PROVIDERS
#define LG_STORE_ACCOUNTS LG_CONFIG_STORE_ACCOUNTS

/* One provider's record; a slot is free while used == 0. Slots are never freed. */
typedef struct {
    uint32_t used;
    char name[LG_NAME_MAX];
    lg_provider_slot slot;
} lg_store_provider_entry;

/* One account's record, keyed by (provider, name, digest). */
typedef struct {
    uint32_t used;
    char provider[LG_NAME_MAX];
    char name[LG_NAME_MAX];
    char digest[LG_DIGEST_HEX];
    lg_account_slot slot;
} lg_store_account_entry;

#define LG_STORE_HOLDS 256

/* The owner of one reservation (see holds.h); free while pid == 0. */
typedef struct {
    int32_t pid;
    uint32_t entry;     /* the account entry (index in accounts) whose window holds it */
    uint64_t start;     /* the owner's start time, clock ticks after boot (/proc/PID/stat) */
    int64_t bucket;     /* the window bucket and ... */
    int64_t tokens;     /* ... the tokens reserved there (the ticket's) */
    int64_t checked_ms; /* when its owner was last seen alive (or the record made) */
} lg_store_hold;

typedef struct {
    uint32_t used; /* records in use */
    uint32_t pad;
    lg_store_hold rec[LG_STORE_HOLDS];
} lg_store_holds;

/* The whole file. size is sizeof(lg_store_layout), which also changes with the platform's mutex size, so a
 * file written by an incompatible build is rebuilt rather than trusted. */
typedef struct {
    uint64_t magic;
    uint32_t version;
    uint32_t retired; /* set (atomically, without the lock) when a rebuilt file replaced this one */
    uint64_t size;
    int64_t created_ms;
    int64_t stalled_ms;   /* when a process first found the lock stuck (atomic, without the lock); 0 = not */
    pthread_mutex_t lock; /* robust, process-shared, error-checking */
    lg_store_provider_entry providers[LG_STORE_PROVIDERS];
    lg_store_account_entry accounts[LG_STORE_ACCOUNTS];
    lg_store_holds holds;
} lg_store_layout;

#endif
