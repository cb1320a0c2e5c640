/* The fleet's spend through Redis (see spend.h): each machine's outbox (the day rows and budget spend it
 * counted since its last push, kept in its spend file) pushed in one MULTI/EXEC every so many requests or
 * milliseconds, and at a process's exit; the push's answer brings back the fleet's budget totals. Keys:
 * llmgate:{spend}:d:DAY (a hash: "provider US account US model US program US counter" -> count, US the
 * unit separator 0x1f) and llmgate:{spend}:b:BUDGET (period start ms -> nano-USD spent). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llmgate/store.h"
#include "spend/spend_file.h"

#define KEY_TTL_S (INT64_C(86400) * (LG_SPEND_DAYS + 1)) /* a day's totals kept as long as a machine's */
#define CLAIM_STALE_MS 10000                              /* a push claimed longer ago was abandoned */
#define SEP '\x1f'
#define KEY_MAX (LG_NAME_MAX + 32)
#define FIELD_MAX (2 * LG_NAME_MAX + LG_SPEND_MODEL_MAX + LG_SPEND_PROGRAM_MAX + 32)

/* The counters of a row, by their names in Redis. */
static const struct {
    const char *name;
    size_t off;
} counters[] = {
    {"requests", offsetof(lg_spend_counts, requests)},   {"input", offsetof(lg_spend_counts, input)},
    {"cached", offsetof(lg_spend_counts, cached)},       {"output", offsetof(lg_spend_counts, output)},
    {"cost_nusd", offsetof(lg_spend_counts, cost_nusd)}, {"unpriced", offsetof(lg_spend_counts, unpriced)},
    {"estimated", offsetof(lg_spend_counts, estimated)}, {"limited", offsetof(lg_spend_counts, limited)},
    {"waited_ms", offsetof(lg_spend_counts, waited_ms)}, {"refused", offsetof(lg_spend_counts, refused)},
};
#define N_COUNTERS (sizeof counters / sizeof counters[0])
_Static_assert(sizeof(lg_spend_counts) == N_COUNTERS * sizeof(int64_t), "every counter has its name");

static int64_t *counter(lg_spend_counts *c, size_t i) { return (int64_t *)((char *)c + counters[i].off); }

/* One row of a batch, and one budget's spend. */
typedef struct {
    int64_t day;
    lg_spend_row row;
} batch_row;
typedef struct {
    char name[LG_NAME_MAX];
    int64_t period_ms, delta;
} batch_budget;
typedef struct {
    batch_row *rows;
    size_t n_rows;
    batch_budget budgets[SPEND_BUDGETS];
    size_t n_budgets;
} batch;

/* Takes the outbox into b and empties it (under the lock). False when another process is pushing or
 * memory is short. */
static bool take(spend_file *f, const lg_config *cfg, int64_t now_ms, batch *b)
{
    if (f->flushing_ms && now_ms - f->flushing_ms < CLAIM_STALE_MS)
        return false;
    size_t n = 0;
    for (size_t d = 0; d < SPEND_OUTBOX_DAYS; d++)
        n += f->outbox[d].day ? f->outbox[d].n : 0;
    if (n && !(b->rows = malloc(n * sizeof *b->rows)))
        return false;
    for (size_t d = 0; d < SPEND_OUTBOX_DAYS; d++) {
        lg_spend_day *o = &f->outbox[d];
        for (size_t j = 0; o->day && j < LG_SPEND_ROWS && b->n_rows < n; j++)
            if (o->rows[j].used)
                b->rows[b->n_rows++] = (batch_row){o->day, o->rows[j]};
        memset(o, 0, sizeof *o);
    }
    for (size_t i = 0; i < cfg->n_budgets && b->n_budgets < SPEND_BUDGETS; i++) {
        lg_budget_slot *slot = lg_spend_slot_of(f, cfg->budgets[i].name, true);
        if (!slot)
            continue;
        lg_budget_roll(slot, &cfg->budgets[i], now_ms);
        batch_budget *bb = &b->budgets[b->n_budgets++];
        snprintf(bb->name, sizeof bb->name, "%s", slot->name);
        bb->period_ms = slot->period_ms;
        bb->delta = slot->unflushed_nusd;
        slot->unflushed_nusd = 0;
    }
    __atomic_store_n(&f->out_requests, 0, __ATOMIC_RELAXED);
    f->flushing_ms = now_ms;
    return true;
}

/* After the push (under the lock): the fleet's budget totals taken (ok), or the batch put back. */
static void settle(spend_file *f, const batch *b, bool ok, const int64_t *totals, int64_t now_ms)
{
    for (size_t i = 0; i < b->n_budgets; i++) {
        lg_budget_slot *slot = lg_spend_slot_of(f, b->budgets[i].name, false);
        if (!slot || slot->period_ms != b->budgets[i].period_ms)
            continue; /* a new period: the old one's push no longer matters */
        if (ok)
            slot->fleet_nusd = totals[i];
        else
            slot->unflushed_nusd += b->budgets[i].delta;
    }
    for (size_t i = 0; !ok && i < b->n_rows; i++) {
        const batch_row *r = &b->rows[i];
        lg_spend_day *o = &f->outbox[r->day % SPEND_OUTBOX_DAYS];
        if (o->day > r->day)
            continue; /* two days newer already: lost to the fleet (the machine's own rows keep it) */
        lg_spend_key k = {r->row.provider, r->row.account, r->row.model, r->row.program};
        lg_spend_day_add(o, r->day, &k, &r->row.c);
        __atomic_add_fetch(&f->out_requests, r->row.c.requests, __ATOMIC_RELAXED);
    }
    f->flushed_ms = now_ms;
    f->flushing_ms = 0;
}

/* The batch as HINCRBY operations (budgets first, then each day's rows together) into ops, their keys and
 * fields in text (KEY_MAX and FIELD_MAX bytes each); their count. */
static size_t to_ops(const batch *b, lg_store_hincr *ops, char (*keys)[KEY_MAX], char (*fields)[FIELD_MAX])
{
    size_t n = 0;
    for (size_t i = 0; i < b->n_budgets; i++, n++) {
        snprintf(keys[n], KEY_MAX, "llmgate:{spend}:b:%s", b->budgets[i].name);
        snprintf(fields[n], FIELD_MAX, "%" PRId64, b->budgets[i].period_ms);
        ops[n] = (lg_store_hincr){keys[n], fields[n], b->budgets[i].delta};
    }
    for (size_t i = 0; i < b->n_rows; i++) {
        const lg_spend_row *r = &b->rows[i].row;
        lg_spend_counts c = r->c;
        for (size_t j = 0; j < N_COUNTERS; j++) {
            if (!*counter(&c, j))
                continue;
            snprintf(keys[n], KEY_MAX, "llmgate:{spend}:d:%" PRId64, b->rows[i].day);
            snprintf(fields[n], FIELD_MAX, "%s%c%s%c%s%c%s%c%s", r->provider, SEP, r->account, SEP, r->model, SEP,
                     r->program, SEP, counters[j].name);
            ops[n] = (lg_store_hincr){keys[n], fields[n], *counter(&c, j)};
            n++;
        }
    }
    return n;
}

/* Orders batch rows by day, so that a day's operations stay together. */
static int by_day(const void *a, const void *b)
{
    int64_t x = ((const batch_row *)a)->day, y = ((const batch_row *)b)->day;
    return (x > y) - (x < y);
}

int lg_spend_flush(lg_spend *s, struct lg_store *st, const lg_config *cfg, int64_t now_ms)
{
    if (!s || !st || !lg_spend_lock(s->f))
        return -1;
    batch *b = calloc(1, sizeof *b);
    bool taken = b && take(s->f, cfg, now_ms, b);
    lg_spend_unlock(s->f);
    if (!taken) {
        int rc = b ? 0 : -1; /* another process is pushing: nothing to do */
        free(b);
        return rc;
    }
    qsort(b->rows, b->n_rows, sizeof *b->rows, by_day);
    size_t cap = b->n_budgets + b->n_rows * N_COUNTERS;
    lg_store_hincr *ops = malloc((cap ? cap : 1) * sizeof *ops);
    char(*keys)[KEY_MAX] = malloc((cap ? cap : 1) * KEY_MAX);
    char(*fields)[FIELD_MAX] = malloc((cap ? cap : 1) * FIELD_MAX);
    int64_t *totals = malloc((cap ? cap : 1) * sizeof *totals);
    size_t n = ops && keys && fields && totals ? to_ops(b, ops, keys, fields) : 0;
    bool ok = ops && keys && fields && totals && (!n || lg_store_hincr_batch(st, ops, n, KEY_TTL_S, totals) == 0);
    if (lg_spend_lock(s->f)) {
        settle(s->f, b, ok, totals, now_ms);
        lg_spend_unlock(s->f);
    }
    free(ops);
    free(keys);
    free(fields);
    free(totals);
    free(b->rows);
    free(b);
    return ok ? 0 : -1;
}

/* What the exit handler pushes: the last state a request's end saw. */
static lg_spend *exit_spend;
static struct lg_store *exit_store;
static const lg_config *exit_cfg;

void lg_spend_fleet_exit(void)
{
    lg_spend *s = __atomic_load_n(&exit_spend, __ATOMIC_ACQUIRE);
    if (!s || !__atomic_load_n(&s->f->out_requests, __ATOMIC_RELAXED))
        return;
    int saved = errno;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    lg_spend_flush(s, exit_store, exit_cfg, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    errno = saved;
}

void lg_spend_fleet_tick(lg_spend *s, struct lg_store *st, const lg_config *cfg, int64_t now_ms)
{
    if (!s || !s->fleet || !st)
        return;
    if (!__atomic_load_n(&exit_spend, __ATOMIC_ACQUIRE)) {
        exit_store = st;
        exit_cfg = cfg;
        __atomic_store_n(&exit_spend, s, __ATOMIC_RELEASE);
    }
    uint64_t n = __atomic_load_n(&s->f->out_requests, __ATOMIC_RELAXED);
    int64_t last = __atomic_load_n(&s->f->flushed_ms, __ATOMIC_RELAXED);
    if ((!n && !cfg->n_budgets) || (n < (uint64_t)cfg->spend_flush_requests && now_ms - last < cfg->spend_flush_ms))
        return;
    int saved = errno;
    lg_spend_flush(s, st, cfg, now_ms);
    errno = saved;
}

/* A day's fields from Redis into its rows. */
static void add_field(const char *field, int64_t value, void *ctx)
{
    char names[5][LG_SPEND_MODEL_MAX];
    const char *p = field;
    for (int i = 0; i < 5; i++) {
        const char *end = i < 4 ? strchr(p, SEP) : p + strlen(p);
        if (!end || (size_t)(end - p) >= sizeof names[i])
            return; /* not ours, or cut: left out */
        memcpy(names[i], p, (size_t)(end - p));
        names[i][end - p] = '\0';
        p = end + 1;
    }
    lg_spend_day *d = ctx;
    for (size_t j = 0; j < N_COUNTERS; j++) {
        if (strcmp(names[4], counters[j].name))
            continue;
        lg_spend_counts c = {0};
        *counter(&c, j) = value;
        lg_spend_day_add(d, d->day, &(lg_spend_key){names[0], names[1], names[2], names[3]}, &c);
    }
}

int lg_spend_fleet_visit(struct lg_store *st, int64_t since_day, int64_t last_day, lg_spend_row_fn fn, void *ctx)
{
    lg_spend_day *d = malloc(sizeof *d);
    if (!d)
        return -1;
    int rc = 0;
    for (int64_t day = since_day; day <= last_day && rc == 0; day++) {
        char key[KEY_MAX];
        snprintf(key, sizeof key, "llmgate:{spend}:d:%" PRId64, day);
        memset(d, 0, sizeof *d);
        d->day = day;
        rc = lg_store_hvisit(st, key, add_field, d);
        for (size_t j = 0; rc == 0 && j < LG_SPEND_ROWS; j++)
            if (d->rows[j].used)
                fn(day, &d->rows[j], ctx);
    }
    free(d);
    return rc;
}
