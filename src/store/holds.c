/* The owners of the shm store's reservations (see holds.h): a table of records, the used ones counted so
 * a scan stops once it has seen them all (a free record is taken lowest first). */
#include <stddef.h>

#include "store/holds.h"

lg_hold_note lg_holds_note(const lg_store_layout *m, lg_account_slot *const *slots, size_t n, const void *owner,
                           const lg_store_ticket *t)
{
    lg_hold_note note = {.held = t->held && t->owner == owner && t->account < n};
    if (!note.held)
        return note;
    const lg_store_account_entry *e =
        (const lg_store_account_entry *)((const char *)slots[t->account] - offsetof(lg_store_account_entry, slot));
    note.entry = (uint32_t)(e - m->accounts);
    note.bucket = t->bucket;
    note.tokens = t->tokens;
    return note;
}

/* True when record r is the owner's record of note n. */
static bool is_note(const lg_store_hold *r, const lg_store_owner *me, const lg_hold_note *n)
{
    return r->pid == me->pid && r->start == me->start && r->entry == n->entry && r->bucket == n->bucket &&
           r->tokens == n->tokens;
}

static bool same_place(const lg_hold_note *a, const lg_hold_note *b)
{
    return a->held == b->held && a->entry == b->entry && a->bucket == b->bucket && a->tokens == b->tokens;
}

void lg_holds_apply(lg_store_layout *m, const lg_store_owner *me, const lg_hold_note *before,
                    const lg_hold_note *after, int64_t now_ms)
{
    if (same_place(before, after))
        return;
    lg_store_holds *h = &m->holds;
    if (before->held)
        for (size_t i = 0, seen = 0; i < LG_STORE_HOLDS && seen < h->used; i++) {
            lg_store_hold *r = &h->rec[i];
            if (!r->pid)
                continue;
            seen++;
            if (is_note(r, me, before)) {
                *r = (lg_store_hold){0};
                h->used--;
                break;
            }
        }
    if (after->held)
        for (size_t i = 0; i < LG_STORE_HOLDS; i++) {
            lg_store_hold *r = &h->rec[i];
            if (r->pid)
                continue;
            *r = (lg_store_hold){.pid = me->pid, .entry = after->entry, .start = me->start,
                                 .bucket = after->bucket, .tokens = after->tokens, .checked_ms = now_ms};
            h->used++;
            break;
        }
}

size_t lg_holds_reap(lg_store_layout *m, const lg_store_owner *me, int64_t now_ms, lg_owner_alive_fn alive,
                     void *ctx)
{
    lg_store_holds *h = &m->holds;
    size_t given = 0;
    for (size_t i = 0, seen = 0; i < LG_STORE_HOLDS && seen < h->used; i++) {
        lg_store_hold *r = &h->rec[i];
        if (!r->pid)
            continue;
        seen++;
        if ((r->pid == me->pid && r->start == me->start) || now_ms - r->checked_ms < LG_HOLD_CHECK_MS)
            continue;
        if (alive(&(lg_store_owner){r->pid, r->start}, ctx)) {
            r->checked_ms = now_ms;
            continue;
        }
        if (r->entry < LG_STORE_ACCOUNTS)
            lg_window_adjust(&m->accounts[r->entry].slot.window, r->bucket, -1, -r->tokens);
        *r = (lg_store_hold){0};
        h->used--;
        seen--; /* the count went down with it */
        given++;
    }
    return given;
}
