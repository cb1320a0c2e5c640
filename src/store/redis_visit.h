/* The redis backend's visits (`llmgate status`): the fleet's account slots as Redis holds them. */
#ifndef LLMGATE_STORE_REDIS_VISIT_H
#define LLMGATE_STORE_REDIS_VISIT_H

#include "store/backend.h"

#define LG_REDIS_INDEX_KEY "llmgate:index" /* the set of "provider<TAB>account<TAB>digest" members */

/* An account's reason and why it is set aside share one number in Redis ("rs": reason + 256 * aside; 0
 * still means no reason, which the script reads): the number of st, and st's two from a number. */
long long lg_redis_reason_code(const lg_account_state *st);
void lg_redis_reason_decode(long long v, lg_account_state *st);

/* Visits every account the index names, from Redis (times moved to the local clock); from the machine's
 * local store when Redis cannot answer. */
int lg_redis_visit(lg_store *st, lg_store_visit_fn fn, void *ctx);

/* The breaker and the retry budget live in this machine's local store (see ARCHITECTURE.md), so the
 * provider slots visited are the local ones. */
int lg_redis_visit_providers(lg_store *st, lg_store_provider_visit_fn fn, void *ctx);

#endif
