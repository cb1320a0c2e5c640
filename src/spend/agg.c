/* One day's aggregate rows (see spend.h): open addressing by the key's hash, bounded, "other" past the cap. */
#include <string.h>

#include "llmgate/spend.h"

static uint32_t fnv(uint32_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return (h ^ 0xffu) * 16777619u;
}

/* Copies s into the zeroed field to of n bytes, cut to n - 1 (as snprintf would, without its cost on every
 * request). */
static void copy_cut(char *to, size_t n, const char *s)
{
    memcpy(to, s, strnlen(s, n - 1));
}

/* True when row r is key k (its names as stored, cut to their fields). */
static bool same(const lg_spend_row *r, const lg_spend_row *k)
{
    return !strcmp(r->provider, k->provider) && !strcmp(r->account, k->account) && !strcmp(r->model, k->model) &&
           !strcmp(r->program, k->program);
}

/* The row of key in d, else a new one when may_add and free rows remain, else NULL. */
static lg_spend_row *slot_of(lg_spend_day *d, const lg_spend_row *key, bool may_add)
{
    uint32_t h = fnv(fnv(fnv(fnv(2166136261u, key->provider), key->account), key->model), key->program);
    for (uint32_t i = 0; i < LG_SPEND_ROWS; i++) {
        lg_spend_row *r = &d->rows[(h + i) % LG_SPEND_ROWS];
        if (!r->used) {
            if (!may_add || (d->n >= LG_SPEND_ROWS - 1 && strcmp(key->provider, "other")))
                return NULL; /* the last free row is the all-"other" one's */
            *r = *key;
            r->used = 1;
            d->n++;
            return r;
        }
        if (same(r, key))
            return r;
    }
    return NULL;
}

void lg_spend_counts_add(lg_spend_counts *to, const lg_spend_counts *d)
{
    to->requests += d->requests;
    to->input += d->input;
    to->cached += d->cached;
    to->output += d->output;
    to->cost_nusd += d->cost_nusd;
    to->unpriced += d->unpriced;
    to->estimated += d->estimated;
    to->limited += d->limited;
    to->waited_ms += d->waited_ms;
    to->refused += d->refused;
}

void lg_spend_day_add(lg_spend_day *d, int64_t day, const lg_spend_key *k, const lg_spend_counts *delta)
{
    if (d->day != day) {
        memset(d, 0, sizeof *d);
        d->day = day;
    }
    lg_spend_row key;
    memset(&key, 0, sizeof key);
    copy_cut(key.provider, sizeof key.provider, k->provider ? k->provider : "");
    copy_cut(key.account, sizeof key.account, k->account ? k->account : "");
    copy_cut(key.model, sizeof key.model, k->model && *k->model ? k->model : "?");
    copy_cut(key.program, sizeof key.program, k->program && *k->program ? k->program : "?");
    lg_spend_row *r = slot_of(d, &key, d->n < LG_SPEND_ROWS_NAMED);
    if (!r) { /* past the cap: the provider's and account's "other" model and program */
        strcpy(key.model, "other");
        strcpy(key.program, "other");
        r = slot_of(d, &key, true);
    }
    if (!r) {
        strcpy(key.provider, "other");
        strcpy(key.account, "other");
        r = slot_of(d, &key, true);
    }
    if (r)
        lg_spend_counts_add(&r->c, delta);
}
