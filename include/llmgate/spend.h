/* Spend: what requests cost (prices), what every program spent (per-day aggregates) and budgets that
 * refuse requests past them. The rules (price.c, budget.c) are pure; spend_shm.c keeps the shared state
 * in a file beside the store's (spend.shm, 0600), one robust process-shared lock, no system call per
 * request once it is mapped. Holds names and counts, never keys. */
#ifndef LLMGATE_SPEND_H
#define LLMGATE_SPEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/config.h"
#include "llmgate/tz.h"

#define LG_NUSD_PER_USD 1000000000.0 /* costs are kept in nano-USD */

/* What one request used, as the provider reported it (or estimated from its text). */
typedef struct {
    int64_t input;  /* prompt tokens, cache reads and writes included */
    int64_t cached; /* of which read from the provider's cache */
    int64_t output; /* completion tokens, reasoning included */
    bool estimated; /* counted from the request's and the answer's text: the provider sent no usage */
} lg_tokens;

/* ---- Prices (src/spend/price.c) ---- */

/* The first price of c for model at provider p (by p's name, else its preset's), or NULL: unpriced. */
const lg_price *lg_price_find(const lg_config *c, const lg_provider *p, const char *model);
/* The dearest price listed for p (largest output price), or NULL when none is. */
const lg_price *lg_price_dearest(const lg_config *c, const lg_provider *p);
/* The price a budget counts model's usage at: lg_price_find's (*listed true), else the provider's dearest
 * (*listed false; NULL when none is). Remembered per thread for the last config (by its generation),
 * provider and model of up to LG_PRICE_MEMO_MODEL - 1 bytes: a host calls one model request after request,
 * and the table's walk (fnmatch on its globs) costs ~40 times the memo's compare. */
#define LG_PRICE_MEMO_MODEL 128
const lg_price *lg_price_for(const lg_config *c, const lg_provider *p, const char *model, bool *listed);
/* The cost of u at pr in nano-USD: uncached input at input, cache reads at cached_input, output at output. */
int64_t lg_price_cost_nusd(const lg_price *pr, const lg_tokens *u);

/* ---- Budgets (src/spend/budget.c) ---- */

/* What a request is, for budget matches and aggregates. */
typedef struct {
    const char *provider, *account, *model, *program; /* "" when unknown */
} lg_spend_key;

/* True when every condition of b holds for k (exact or fnmatch(3) glob; an absent one holds). */
bool lg_budget_matches(const lg_budget_conf *b, const lg_spend_key *k);
/* The start (Unix ms) of the period of kind per holding now_ms, and the start of the next one: hours,
 * days and months of the zone tz (NULL: UTC). */
int64_t lg_budget_period_start(lg_budget_per per, const lg_tz *tz, int64_t now_ms);
int64_t lg_budget_period_end(lg_budget_per per, const lg_tz *tz, int64_t now_ms);

/* One budget's shared state. */
typedef struct {
    char name[LG_NAME_MAX];
    int64_t period_ms;    /* start of the period spent and lifted count in */
    int64_t spent_nusd;   /* settled this period */
    int64_t pending_nusd; /* reserved by requests admitted and not settled yet (any period) */
    int64_t noticed_ms;   /* the period a refusal was last noticed on stderr in */
    int64_t lifted_ms;    /* the period lifted by hand (llmgate reset --budget), 0: none */
    int64_t fleet_nusd;     /* with redis: the fleet's spent this period as of the machine's last push */
    int64_t unflushed_nusd; /* with redis: spent here this period and not pushed yet */
} lg_budget_slot;

/* Moves s to the period of b holding now_ms (spent and the fleet's figures cleared when it changed). */
void lg_budget_roll(lg_budget_slot *s, const lg_budget_conf *b, int64_t now_ms);
/* True when a request may start under b now: lifted for this period, or spent + pending below its usd,
 * spent being the larger of the machine's and the fleet's (its last known total and what this machine
 * spent since). s is rolled first. */
bool lg_budget_allows(lg_budget_slot *s, const lg_budget_conf *b, int64_t now_ms);

/* ---- Aggregates (src/spend/agg.c): per UTC day, provider, account, model, program ---- */

#define LG_SPEND_DAYS 40          /* days kept */
#define LG_SPEND_ROWS 256         /* rows of one day */
#define LG_SPEND_ROWS_NAMED 192   /* past this many rows a day, new models and programs count as "other" */
#define LG_SPEND_PROGRAM_MAX 32
#define LG_SPEND_MODEL_MAX 64

typedef struct {
    uint64_t requests, input, cached, output;
    int64_t cost_nusd;      /* priced requests only */
    uint64_t unpriced;      /* requests with usage and no price */
    uint64_t estimated;     /* requests whose usage was estimated from text */
    uint64_t limited;       /* 429s absorbed (retried out of the program's sight) */
    uint64_t waited_ms;     /* time llmgate held the requests */
    uint64_t refused;       /* requests refused by a budget */
} lg_spend_counts;

typedef struct {
    uint32_t used;
    char provider[LG_NAME_MAX], account[LG_NAME_MAX], model[LG_SPEND_MODEL_MAX], program[LG_SPEND_PROGRAM_MAX];
    lg_spend_counts c;
} lg_spend_row;

typedef struct {
    int64_t day; /* days since the epoch (UTC); 0: unused */
    uint32_t n;  /* rows used */
    lg_spend_row rows[LG_SPEND_ROWS];
} lg_spend_day;

/* Adds every count of d to to. */
void lg_spend_counts_add(lg_spend_counts *to, const lg_spend_counts *d);
/* Adds delta to the row of key on day in d (d->day set, cleared when it held another day): the key's
 * model and program become "other" past LG_SPEND_ROWS_NAMED rows, and every name "other" once the day is
 * full. Pure. */
void lg_spend_day_add(lg_spend_day *d, int64_t day, const lg_spend_key *k, const lg_spend_counts *delta);

/* ---- The ledger (src/spend/ledger.c): one JSON line per request, never a key or a body ---- */

typedef struct {
    int64_t at_ms;   /* the request's end (Unix ms) */
    long pid;
    lg_spend_key key;
    int status;      /* what the program got (0: none) */
    const char *reason; /* X-Llmgate-Reason of a normalized answer, the outcome's reason otherwise */
    int attempts;
    int64_t waited_ms;
    lg_tokens tokens;
    bool priced;
    int64_t cost_nusd;
} lg_ledger_entry;

/* The file of day (days since the epoch) for ledger path PATH: PATH-YYYY-MM-DD.jsonl; false when too long. */
bool lg_ledger_file(const char *path, int64_t day, char *out, size_t cap);
/* e as one JSON line (with its newline) into out; its length, 0 when it does not fit. Pure. */
size_t lg_ledger_line(const lg_ledger_entry *e, char *out, size_t cap);
/* Appends e's line to the day's file of path (opened 0600 once per process and day; the file keep_days
 * older removed when a day's file is opened). Keeps errno; a failed write loses the line only. */
void lg_ledger_append(const char *path, int64_t keep_days, const lg_ledger_entry *e);

/* ---- The shared file (src/spend/spend_shm.c) ---- */

typedef struct lg_spend lg_spend;

/* The process's spend state beside cfg's store (spend.shm in the store file's folder), opened on first
 * use; NULL when it cannot be (the caller counts nothing and refuses nothing). */
lg_spend *lg_spend_shared(const lg_config *cfg);
/* Opens (creating or rebuilding a foreign one) the file at path; NULL with a message in err. */
lg_spend *lg_spend_open(const char *path, char *err, size_t errlen);
void lg_spend_close(lg_spend *s);
/* The file lg_spend_shared uses for cfg into out; false when it does not fit. */
bool lg_spend_path(const lg_config *cfg, char *out, size_t outlen);

/* What a request holds of the budgets between its admission and its end. */
#define LG_SPEND_HELD_MAX 8
typedef struct {
    bool held;
    bool ended;                     /* the request's end was counted */
    int64_t reserved_nusd;          /* added to each held budget's pending */
    uint8_t n, idx[LG_SPEND_HELD_MAX]; /* the matching budgets (indices in cfg->budgets) */
} lg_spend_ticket;

/* The budget refusing a request. */
typedef struct {
    const lg_budget_conf *budget;
    int64_t reset_ms;  /* when its period ends */
    int64_t spent_nusd;
    bool notice;       /* this process is the one to print the refusal's line on stderr */
} lg_spend_refusal;

/* Admits a request (k) that may spend reserve_nusd under every matching budget of cfg: false, with the
 * first budget past its usd in *r, when one refuses (the refusal counted in the day's aggregate); else
 * true with the reservation held in t. Without matching budgets: true, nothing held. */
bool lg_spend_admit(lg_spend *s, const lg_config *cfg, const lg_spend_key *k, int64_t reserve_nusd, int64_t now_ms,
                    lg_spend_ticket *t, lg_spend_refusal *r);
/* Ends a request: its reservation given back, budget_nusd added to the budgets it held, delta added to the
 * day's aggregate of k. */
void lg_spend_settle(lg_spend *s, const lg_config *cfg, lg_spend_ticket *t, const lg_spend_key *k,
                     int64_t budget_nusd, const lg_spend_counts *delta, int64_t now_ms);
/* Lifts the budget named name for its current period; false when no process used it yet. */
bool lg_spend_lift(lg_spend *s, const char *name, int64_t now_ms);

/* Calls fn for every row of the days from since_day on (a copy made under the lock). -1: unreadable. */
typedef void (*lg_spend_row_fn)(int64_t day, const lg_spend_row *row, void *ctx);
int lg_spend_visit(lg_spend *s, int64_t since_day, lg_spend_row_fn fn, void *ctx);
/* Calls fn for every budget slot used. */
typedef void (*lg_spend_budget_fn)(const lg_budget_slot *slot, void *ctx);
int lg_spend_visit_budgets(lg_spend *s, lg_spend_budget_fn fn, void *ctx);

/* ---- The fleet's totals through Redis (src/spend/fleet.c): batches, never a round trip per request ---- */

struct lg_store;

/* After a request's end, with a redis store: pushes the machine's outbox (lg_spend_flush) when
 * cfg->spend_flush_requests requests were counted or cfg->spend_flush_ms passed since the last push; the
 * first call also has the process push what is left when it exits. Keeps errno. */
void lg_spend_fleet_tick(lg_spend *s, struct lg_store *st, const lg_config *cfg, int64_t now_ms);
/* At a process's exit (the runtime's atexit handler): what the last tick's spend file still holds pushed. */
void lg_spend_fleet_exit(void);
/* Pushes the day rows and budget spend counted on this machine since its last push (one MULTI/EXEC) and
 * takes back the fleet's budget totals; on failure they stay for the next push. One process at a time.
 * 0, or -1 when Redis could not be used. */
int lg_spend_flush(lg_spend *s, struct lg_store *st, const lg_config *cfg, int64_t now_ms);
/* Calls fn for every row of the fleet's totals in Redis, days since_day to last_day. 0, or -1. */
int lg_spend_fleet_visit(struct lg_store *st, int64_t since_day, int64_t last_day, lg_spend_row_fn fn, void *ctx);

#endif
