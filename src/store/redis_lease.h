/* The redis backend's leases (src/store/redis_lease.c; the bookkeeping is include/llmgate/lease.h's): the
 * machine's share of its accounts' windows in Redis, kept in its local store and admitted from without a
 * Redis call per request. Private to src/store. */
#ifndef LLMGATE_STORE_REDIS_LEASE_H
#define LLMGATE_STORE_REDIS_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/store.h"
#include "store/backend.h"
#include "store/redis_conn.h"

/* True when the ticket holds a place of a lease of this store. */
bool lg_redis_leased(const redis_store *s, const lg_store_ticket *t);

/* The ticket's place back into its lease (a released or refused place); the ticket no longer holds it. */
void lg_redis_lease_give_back(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t);

/* Admission from the machine's leases: a place from the lease of an eligible account (usable, ready by the
 * states last seen) that has room soonest (the most room among those with room now), asking Redis for a
 * grant on the eligible accounts whose leases are empty (Redis picks the one with room soonest) when no held
 * lease has room now. A ticket that holds a lease's place (an admission again before its place, at
 * out->recheck_ms: a bucket) keeps it unless a sooner one is found, which it takes, the one held going back
 * to its lease. True when that decided the round (out, t filled); false: the ordinary admission decides
 * (leases off, no eligible account, Redis granted nothing or could not be asked), the place held given back. */
bool lg_redis_lease_admit(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t, int64_t now_ms,
                          int64_t deadline_ms, const lg_admit_opts *rest, lg_account_state *snap, lg_admission *out);

/* The record of a place taken from a lease: its charge settled in the lease (what the provider did not count
 * goes back to it). True when that was all: a success that changes no state of the key and reports no limit
 * Redis must learn (the request counted in the lease's counters, the budget and breaker notes in the
 * machine's store); false: the record script follows, without the window part. A success's report that
 * the provider's window is full (remaining 0) is not told: the lease's place was counted in Redis's window,
 * which a fleet at the limit fills as the provider's does (telling it would cap the key and stop the grants
 * until its reset); a provider that counts more than the fleet sent answers 429, which is recorded. */
bool lg_redis_lease_record(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                           const lg_store_attempt *at, int64_t now_ms, const lg_account_state *snap);

/* Counts the counter event of a leased ticket's account in its lease (told to Redis with the next grant).
 * True when it did; false: the event is counted in Redis. */
bool lg_redis_lease_count(redis_store *s, const lg_store_scope *sc, lg_store_ticket *t, size_t idx,
                          lg_account_event ev);

/* At the process's exit: for each account whose leases it took places from and no other live process of
 * the machine did, the lease's unused part and counters go back to Redis (one call per scope, bounded by
 * store.timeout_ms; nothing when Redis is down). */
void lg_redis_lease_exit(redis_store *s);

#endif
