/* The layout of the spend file (spend.shm) and its lock, shared by spend_shm.c (the machine's state) and
 * fleet.c (the batches pushed to Redis). Private to src/spend. */
#ifndef LLMGATE_SPEND_FILE_H
#define LLMGATE_SPEND_FILE_H

#include <pthread.h>

#include "llmgate/spend.h"

#define SPEND_BUDGETS 64
#define SPEND_OUTBOX_DAYS 2 /* days a batch may span (a flush at least every flush_ms keeps it to two) */

typedef struct {
    uint64_t magic;
    uint32_t version, pad;
    uint64_t size;
    pthread_mutex_t lock; /* robust, process-shared */
    lg_budget_slot budgets[SPEND_BUDGETS];
    lg_spend_day days[LG_SPEND_DAYS];
    /* With a redis store: what the machine counted since its last push to the fleet's totals. */
    lg_spend_day outbox[SPEND_OUTBOX_DAYS];
    uint64_t out_requests; /* requests (and refusals) in the outbox */
    int64_t flushed_ms;    /* the last push (or failed attempt) */
    int64_t flushing_ms;   /* a process is pushing since then (0: none) */
} spend_file;

struct lg_spend {
    spend_file *f;
    bool fleet; /* counts into the outbox too (the configuration's store is redis) */
};

/* Takes f's lock (a dead holder's state is taken as it stands); false when it cannot be had in time. */
bool lg_spend_lock(spend_file *f);
void lg_spend_unlock(spend_file *f);
/* The slot of the budget called name (a free one taken for it when create), or NULL. Under the lock. */
lg_budget_slot *lg_spend_slot_of(spend_file *f, const char *name, bool create);

#endif
