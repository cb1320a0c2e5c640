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

/* True when row r holds the names n (provider, account, model, program) as lg_spend_day_add stores them:
 * each cut to its field (a field's last byte is always its NUL). */
static bool holds(const lg_spend_row *r, const char *const n[4])
{
    return r->used && !strncmp(r->model, n[2], sizeof r->model - 1) &&
           !strncmp(r->program, n[3], sizeof r->program - 1) &&
           !strncmp(r->account, n[1], sizeof r->account - 1) &&
           !strncmp(r->provider, n[0], sizeof r->provider - 1);
}

/* The row of names n in d as slot_of finds it, else the "other" rows past the cap, else NULL (all full). */
static lg_spend_row *row_of(lg_spend_day *d, const char *const n[4])
{
    lg_spend_row key;
    memset(&key, 0, sizeof key);
    copy_cut(key.provider, sizeof key.provider, n[0]);
    copy_cut(key.account, sizeof key.account, n[1]);
    copy_cut(key.model, sizeof key.model, n[2]);
    copy_cut(key.program, sizeof key.program, n[3]);
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
    return r;
}

/* The row the thread's last key was counted in, plus one (0: none): a hint, checked before use. A day holds
 * each key's names in one row at most, and rows are only ever cleared all together (a new day), so a row
 * holding the key's names is the one slot_of would find; the hint spares building, hashing and probing
 * the key on every request of a host sending one model from one program. */
static __attribute__((tls_model("initial-exec"))) __thread uint32_t last_row;

void lg_spend_day_add(lg_spend_day *d, int64_t day, const lg_spend_key *k, const lg_spend_counts *delta)
{
    if (d->day != day) {
        memset(d, 0, sizeof *d);
        d->day = day;
    }
    const char *const n[4] = {k->provider ? k->provider : "", k->account ? k->account : "",
                              k->model && *k->model ? k->model : "?", k->program && *k->program ? k->program : "?"};
    uint32_t *hint = &last_row; /* one look-up of the thread's copy */
    lg_spend_row *r = *hint && *hint <= LG_SPEND_ROWS ? &d->rows[*hint - 1] : NULL;
    if (!r || !holds(r, n)) {
        r = row_of(d, n);
        *hint = r ? (uint32_t)(r - d->rows) + 1 : 0;
    }
    if (r)
        lg_spend_counts_add(&r->c, delta);
}
