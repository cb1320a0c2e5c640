/* Processes as owners of reservations (see holds.h): this one, and whether another one still runs, from
 * /proc. Private to src/store. */
#ifndef LLMGATE_STORE_OWNER_H
#define LLMGATE_STORE_OWNER_H

#include "store/holds.h"

/* This process (its pid and start time read once per thread and again in a forked child). */
const lg_store_owner *lg_owner_self(void);

/* This machine as the home of an owner in a store several machines share: 16 hex digits, a hash of the boot
 * id and the pid namespace (the processes that can check each other's pids share it). Read once. */
const char *lg_owner_host(void);

/* lg_owner_alive_fn: false when no process has o's pid, or the one that has it started at another time
 * (the pid was reused). A process that cannot be read counts as alive. errno is kept. */
bool lg_owner_alive(const lg_store_owner *o, void *ctx);

#endif
