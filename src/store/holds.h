/* The owners of the reservations in the shm store (issue 33, item 3): every reservation a ticket holds
 * there has a record of its owner (pid and process start time), so a reservation whose owner died (a
 * waiter killed with SIGKILL) is given back at the next admission that sees it, without a thread. Pure
 * bookkeeping on a layout the caller holds the lock of; whether an owner lives is the caller's callback.
 * Private to src/store. */
#ifndef LLMGATE_STORE_HOLDS_H
#define LLMGATE_STORE_HOLDS_H

#include "llmgate/owner.h"
#include "store/layout.h"

#define LG_HOLD_CHECK_MS 20 /* an owner seen alive is looked at again after this long at the earliest */

/* What a ticket held before a store step (lg_holds_note), to move its record after it (lg_holds_apply). */
typedef struct {
    bool held;
    uint32_t entry; /* the account entry's index in the layout */
    int64_t bucket, tokens;
} lg_hold_note;

/* Ticket t of a scope of n accounts, slots (in m), as a note: holding nothing unless its place is in
 * owner's slots (the store's). */
lg_hold_note lg_holds_note(const lg_store_layout *m, lg_account_slot *const *slots, size_t n, const void *owner,
                           const lg_store_ticket *t);

/* Moves me's record of a ticket from what it held (before) to what it holds now (after): the record
 * dropped when the ticket let go of its place or moved, added (seen at now_ms) when it holds a new one. A
 * table full leaves the new reservation without a record (it then lives out its window). */
void lg_holds_apply(lg_store_layout *m, const lg_store_owner *me, const lg_hold_note *before,
                    const lg_hold_note *after, int64_t now_ms);

/* Gives back every reservation whose owner is dead (alive says so; me is alive; an owner seen alive within
 * LG_HOLD_CHECK_MS is not asked again): one request and its tokens out of its bucket, the record freed.
 * Returns how many were given back. */
size_t lg_holds_reap(lg_store_layout *m, const lg_store_owner *me, int64_t now_ms, lg_owner_alive_fn alive,
                     void *ctx);

#endif
