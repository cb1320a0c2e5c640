/* Shared-state access for one exchange: the accounts of one provider, read and updated under the store
 * lock, or in process-local slots when there is no store. */
#ifndef LLMGATE_GATE_ACCOUNTS_H
#define LLMGATE_GATE_ACCOUNTS_H

#include "llmgate/gate.h"
#include "llmgate/policy.h"
#include "llmgate/store.h"

typedef struct {
    const lg_gate_request *req;
    size_t n;
    lg_account_ref *refs;
    char (*digests)[LG_DIGEST_HEX];
    lg_account_slot *local;      /* used when req->store is NULL */
    lg_provider_slot local_prov;
    lg_account_state *snapshot;  /* states as last seen under the lock */
} lg_accounts;

/* Sets up the references of every account (the host's own key is identified by its digest).
 * Returns false on allocation failure. */
bool lg_accounts_init(lg_accounts *a, const lg_gate_request *req);
void lg_accounts_free(lg_accounts *a);

/* Chooses the account to start on (see lg_policy_choose) and makes it current; *wait_ms is how long until
 * it is available. Counts nothing. */
size_t lg_accounts_choose(lg_accounts *a, int64_t now_ms, int64_t *wait_ms);

/* Folds the outcome of an attempt on account idx into the shared state and counters; refreshes the
 * snapshot. transport_failed: nothing to record but the attempt itself. */
void lg_accounts_record(lg_accounts *a, size_t idx, const lg_outcome *o, bool transport_failed, int64_t now_ms);

/* Counter events of the request that are not attempts. */
typedef enum { LG_EV_IMMEDIATE, LG_EV_WAITED, LG_EV_RETRY, LG_EV_SWITCH, LG_EV_GIVEN_UP } lg_account_event;

/* Counts ev against account idx; LG_EV_SWITCH also makes `to` the provider's current account. */
void lg_accounts_count(lg_accounts *a, size_t idx, lg_account_event ev, size_t to);

/* Milliseconds until the soonest account is available (0 when one is now). From the snapshot. */
int64_t lg_accounts_soonest_ms(const lg_accounts *a, int64_t now_ms);

#endif
