/* Leases: a machine's share of one account's window in Redis (the redis backend). Redis grants a block of
 * requests and tokens placed in a run of its window's buckets (LG_WINDOW_BUCKETS per span, as
 * src/limiter/window.c) and counts them there at once; the machine's processes then admit from the block
 * through their shared store, without a Redis call, each request in a bucket it was granted in and within
 * that bucket's time, so Redis's count of every bucket is never below what the machine sent in it and the
 * fleet together never exceeds the limit. The unused part goes back with the next grant (or dies with the
 * window when the machine does). Pure bookkeeping on the machine's clock, no I/O. */
#ifndef LLMGATE_LEASE_H
#define LLMGATE_LEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "llmgate/owner.h"

#define LG_LEASE_BUCKETS 16 /* buckets one lease covers: a quarter of the window */
#define LG_LEASE_ASK_MS 200 /* a grant asked for longer than this is taken as lost (its asker died) */
#define LG_LEASE_DRIFT_MS 1000 /* a kept skew's error grows by 1 ms per this many ms (clocks drift apart) */
#define LG_LEASE_TAKERS 8 /* processes of the machine noted as using an account's leases */

/* One account's lease, in the machine's store. Zeroed = none. */
typedef struct {
    int64_t id;            /* a grant's number on this machine (0: none), to tell tickets of an old lease */
    int64_t epoch;         /* Redis's window bucket of buckets[0] */
    int64_t span_ms;       /* the window's span the buckets divide (window + margin) */
    int64_t skew_ms;       /* Redis's clock minus the machine's: the machine's best measure so far */
    int64_t skew_err_ms;   /* how far skew_ms may be off (half its call's round trip, aged since) */
    int64_t granted_ms;    /* when it was granted (machine's clock) */
    int64_t asking_until_ms; /* a process asks Redis for a grant until then (single flight) */
    int32_t n;             /* buckets covered */
    int32_t tokens_limited; /* tokens are checked (the window has a token limit) */
    int64_t used;          /* requests admitted from this lease */
    int64_t pending[3];    /* counters not yet told to Redis: immediate, waited, sent */
    int64_t learned[2];    /* the provider's limits (requests, tokens) a record last told Redis */
    int64_t requests[LG_LEASE_BUCKETS]; /* requests granted and not used, per bucket */
    int64_t tokens[LG_LEASE_BUCKETS];   /* tokens granted and not used, per bucket */
    lg_store_owner takers[LG_LEASE_TAKERS]; /* the machine's processes (pid and start time) that took places
                                               from this account's leases (pid 0: free), kept across grants */
} lg_lease;

/* The start (machine's clock) of the lease's bucket j (0 <= j <= n: j == n is its end). A request of bucket j
 * goes only from that start plus skew_err_ms to the next one less skew_err_ms: within the bucket's time
 * whatever the skew within its error. */
int64_t lg_lease_bucket_start(const lg_lease *l, int j);

typedef enum {
    LG_LEASE_TAKEN, /* the request has its place in the lease */
    LG_LEASE_EMPTY, /* no bucket not ended holds a request of that size: a new grant is needed */
    LG_LEASE_LATE,  /* the first that does starts after the deadline */
} lg_lease_take_result;

/* The requests of `tokens` the lease still holds in buckets not ended at now_ms (0: none), and *at_ms the
 * earliest one could go (now, or the start of the first bucket holding one). */
int64_t lg_lease_room(const lg_lease *l, int64_t tokens, int64_t now_ms, int64_t *at_ms);

/* Takes one request of `tokens` from the first bucket not ended at now_ms that holds both, when it starts by
 * deadline_ms: *at_ms the time it may go (now, or its bucket's start), *bucket its index. */
lg_lease_take_result lg_lease_take(lg_lease *l, int64_t tokens, int64_t now_ms, int64_t deadline_ms,
                                   int64_t *at_ms, int *bucket);

/* Gives back a request taken from bucket j of lease `id` (a release, a refused confirm); nothing when the
 * lease is another one by now. */
void lg_lease_give_back(lg_lease *l, int64_t id, int bucket, int64_t tokens);

/* Settles a request of lease `id` taken from bucket j to what it cost: dk tokens more (less when negative)
 * than were taken; nothing when the lease is another one by now. */
void lg_lease_settle(lg_lease *l, int64_t id, int bucket, int64_t dk);

/* What a grant's call gives back to Redis: the old lease's unused part per bucket and the counters the
 * machine kept meanwhile. */
typedef struct {
    int64_t epoch; /* Redis's bucket of requests[0] */
    int n;         /* buckets (0: no lease to give back) */
    int64_t requests[LG_LEASE_BUCKETS], tokens[LG_LEASE_BUCKETS];
    int64_t counters[3]; /* the lease's pending counters */
} lg_lease_return;

/* True when this process should ask Redis for a grant now: the old lease's unused part and its pending
 * counters move to *ret (nobody takes them meanwhile) and no other process of the machine asks until
 * lg_lease_grant, lg_lease_ask_failed or LG_LEASE_ASK_MS pass (a dead asker's turn expires; what it carried
 * then stays counted in Redis until its window passes). False while another one asks. */
bool lg_lease_begin_ask(lg_lease *l, int64_t now_ms, lg_lease_return *ret);

/* The asker's call failed (Redis down or refusing): what it carried goes back into the lease (when it is
 * still the same one), the turn is over. */
void lg_lease_ask_failed(lg_lease *l, const lg_lease_return *ret);

/* The asker's call gave back what it carried and granted this account nothing (none left soon enough, or
 * Redis granted another one): the turn is over, and no process asks for this account again before
 * not_before_ms. */
void lg_lease_ask_given_back(lg_lease *l, int64_t not_before_ms);

/* Requests to ask for in all (Redis places them as densely as the window and a machine's fair share
 * allow): `cap` (> 0) when the machine holds no lease yet, else twice the places its lease served (a lease
 * used up doubles, one whose buckets ended unused shrinks to what the machine sends), at least 1, at most
 * cap. */
int64_t lg_lease_ask_size(const lg_lease *l, int64_t cap);

/* Installs a new grant (n buckets from Redis's bucket epoch of a span of span_ms, requests and tokens per
 * bucket, skew_ms = Redis's clock minus the machine's measured by this call to within skew_err_ms) in place
 * of the old lease (whose unused part the asker gave back), and ends the asker's turn. The old lease's skew
 * is kept when its error, grown by 1 ms per LG_LEASE_DRIFT_MS begun since, is smaller: a slow call (a loaded
 * machine or Redis) does not move the machine's buckets by half its round trip. */
void lg_lease_grant(lg_lease *l, int64_t now_ms, int64_t skew_ms, int64_t skew_err_ms, int64_t span_ms,
                    int64_t epoch, int n,
                    const int64_t *requests, const int64_t *tokens, bool tokens_limited);

/* Notes process me as a taker of the account's leases: in a free entry, else in one whose process alive()
 * says is gone (a process of me's pid that started at another time is another one, gone when the pid was
 * reused). True when me was not noted before and is now; false when it was, or the table is full of live
 * processes (me is then never the last taker: its exit gives nothing back). */
bool lg_lease_note_taker(lg_lease *l, const lg_store_owner *me, lg_owner_alive_fn alive, void *ctx);

/* At me's exit: drops it from the takers; true when it was one and no other taker is alive (by alive()):
 * the lease's unused part should go back to Redis, no process of the machine being left to use it. */
bool lg_lease_last_taker(lg_lease *l, const lg_store_owner *me, lg_owner_alive_fn alive, void *ctx);

#endif
