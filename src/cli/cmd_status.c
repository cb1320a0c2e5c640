/* llmgate status [--config FILE] [--json|--prometheus] [--watch [SECONDS]]: the shared state per provider
 * and account, by name (never keys, nor their digests). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/commands.h"
#include "cli/status_providers.h"
#include "cli/textfile.h"
#include "llmgate/clock.h"
#include "llmgate/config.h"
#include "llmgate/limiter.h"
#include "llmgate/store.h"

typedef enum { FMT_TEXT = 0, FMT_WIDE, FMT_JSON, FMT_PROMETHEUS } format;

/* What the window of an account holds now, and the limits it was last checked against. */
typedef struct {
    int64_t requests, tokens, reserved; /* admitted in the current window; reserved ahead of it */
    int64_t rpm, tpm, window_ms;        /* limits enforced (configured, tier or learned); 0 = none */
    int64_t learned_rpm, learned_tpm;   /* limits the provider reported; 0 = none */
} window_view;

/* One account as shown: slots of the same provider and account name (a key that changed leaves a slot
 * under its old digest) are merged: counters and window usage summed, state from the most recent failure
 * event, the limits of the slot used last. */
typedef struct {
    char provider[LG_NAME_MAX];
    char account[LG_NAME_MAX];
    struct {
        lg_account_state state;
        lg_account_counters counters;
    } slot;
    window_view win;
} row;

typedef struct {
    row *v;
    size_t n, cap;
    bool oom;
    size_t corrupt; /* slots with corrupt names seen */
    int64_t now;
} rows;

static window_view view_of(const lg_window *w, int64_t now)
{
    window_view v = {.rpm = w->limit[LG_DIM_REQUESTS], .tpm = w->limit[LG_DIM_TOKENS], .window_ms = w->window_ms,
                     .learned_rpm = w->learned_limit[LG_DIM_REQUESTS], .learned_tpm = w->learned_limit[LG_DIM_TOKENS]};
    lg_window_usage(w, now, &v.requests, &v.tokens, &v.reserved);
    if (!v.rpm)
        v.rpm = v.learned_rpm;
    if (!v.tpm)
        v.tpm = v.learned_tpm;
    return v;
}

/* Folds the window of another slot of the same account into w. */
static void add_window(window_view *w, const window_view *o)
{
    w->requests += o->requests;
    w->tokens += o->tokens;
    w->reserved += o->reserved;
    if (o->window_ms) {
        w->rpm = o->rpm;
        w->tpm = o->tpm;
        w->window_ms = o->window_ms;
    }
    if (o->learned_rpm)
        w->learned_rpm = o->learned_rpm;
    if (o->learned_tpm)
        w->learned_tpm = o->learned_tpm;
}

static void add_counters(lg_account_counters *to, const lg_account_counters *c)
{
    to->requests += c->requests;
    to->immediate += c->immediate;
    to->waited += c->waited;
    to->rate_limited += c->rate_limited;
    to->retries += c->retries;
    to->switches += c->switches;
    to->given_up += c->given_up;
}

/* Visitor: copies (and merges) one slot; runs under the store lock, so it only copies. A slot whose names
 * are not printable, NUL-terminated text (a corrupt file) is shown as provider "(corrupt)", account "#N". */
static void collect(const char *provider, const char *account, const char *digest, const lg_account_slot *slot,
                    void *ctx)
{
    rows *r = ctx;
    char corrupt_no[LG_NAME_MAX];
    if (!lg_cli_name_ok(provider, LG_NAME_MAX) || !lg_cli_name_ok(account, LG_NAME_MAX)) {
        snprintf(corrupt_no, sizeof corrupt_no, "#%zu", ++r->corrupt);
        provider = "(corrupt)";
        account = corrupt_no;
    }
    for (size_t i = 0; i < r->n; i++) {
        row *w = &r->v[i];
        if (strcmp(w->provider, provider) || strcmp(w->account, account))
            continue;
        add_counters(&w->slot.counters, &slot->counters);
        if (slot->state.last_event_ms > w->slot.state.last_event_ms)
            w->slot.state = slot->state;
        window_view v = view_of(&slot->window, r->now);
        add_window(&w->win, &v);
        return;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        row *v = realloc(r->v, cap * sizeof *v);
        if (!v) {
            r->oom = true;
            return;
        }
        r->v = v;
        r->cap = cap;
    }
    row *w = &r->v[r->n++];
    snprintf(w->provider, sizeof w->provider, "%s", provider);
    snprintf(w->account, sizeof w->account, "%s", account);
    w->slot.state = slot->state;
    w->slot.counters = slot->counters;
    w->win = view_of(&slot->window, r->now);
}

static int by_name(const void *a, const void *b)
{
    const row *x = a, *y = b;
    int c = strcmp(x->provider, y->provider);
    return c ? c : strcmp(x->account, y->account);
}

static int64_t remaining_ms(const row *w, int64_t now)
{
    return w->slot.state.cooldown_until_ms > now ? w->slot.state.cooldown_until_ms - now : 0;
}

/* The detail an account is set aside for while its cooldown runs ("billing"), else "". */
static const char *aside_name(const row *w, int64_t now)
{
    return lg_detail_name(remaining_ms(w, now) ? w->slot.state.aside : LG_DETAIL_NONE);
}

/* A reason's short name for the compact table. */
static const char *reason_short(lg_reason r)
{
    switch (r) {
    case LG_REASON_QUOTA_EXHAUSTED:
        return "quota";
    case LG_REASON_RATE_LIMIT_EXCEEDED:
        return "rate";
    case LG_REASON_MODEL_CAPACITY_EXHAUSTED:
        return "capacity";
    case LG_REASON_SERVER_ERROR:
        return "server";
    default:
        return "other";
    }
}

/* "available", or the time left (rounded up to the second), the reason (with the detail it is set aside
 * for) and (wide) the local end time: "1h05m QUOTA_EXHAUSTED until 14:05:33", "3h59m
 * QUOTA_EXHAUSTED/billing until 18:05:33" (the date too when it ends on another day); compact: "1h05m quota",
 * "3h59m quota/billing". */
static void cooldown_text(const row *w, int64_t now, bool wide, char *out, size_t n)
{
    int64_t ms = remaining_ms(w, now);
    if (ms == 0) {
        snprintf(out, n, "available");
        return;
    }
    long long s = (long long)((ms + 999) / 1000);
    const char *reason = lg_reason_name(w->slot.state.reason);
    char left[32], until[32] = "";
    if (s < 60)
        snprintf(left, sizeof left, "%llds", s);
    else if (s < 3600)
        snprintf(left, sizeof left, "%lldm%02llds", s / 60, s % 60);
    else
        snprintf(left, sizeof left, "%lldh%02lldm", s / 3600, s / 60 % 60);
    const char *aside = aside_name(w, now);
    if (!wide) {
        snprintf(out, n, "%s %s%s%s", left, reason_short(w->slot.state.reason), *aside ? "/" : "", aside);
        return;
    }
    time_t end = (time_t)(w->slot.state.cooldown_until_ms / 1000), today = (time_t)(now / 1000);
    struct tm te, tn;
    if (localtime_r(&end, &te) && localtime_r(&today, &tn))
        strftime(until, sizeof until, te.tm_yday == tn.tm_yday && te.tm_year == tn.tm_year ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S",
                 &te);
    snprintf(out, n, "%s %s%s%s until %s", left, reason, *aside ? "/" : "", aside, until);
}

/* "used/limit" ("used/-" without a limit), with a "+N" of reservations ahead when there are some. */
static void usage_text(int64_t used, int64_t limit, int64_t reserved, char *out, size_t n)
{
    char lim[32] = "-";
    if (limit > 0)
        snprintf(lim, sizeof lim, "%lld", (long long)limit);
    if (reserved > 0)
        snprintf(out, n, "%lld/%s+%lld", (long long)used, lim, (long long)reserved);
    else
        snprintf(out, n, "%lld/%s", (long long)used, lim);
}

/* The account table's columns after ACCOUNT: header and width (negative: left-aligned), wide and compact
 * (the compact one fits 120 columns with account names of up to 16 characters). */
#define COLS 11
typedef struct {
    const char *name;
    int width;
} column;
static const column wide_cols[COLS] = {{"REQ/WINDOW", -14}, {"TOKENS/WINDOW", -22}, {"COOLDOWN", -48},
                                       {"FAILURES", 8},     {"REQUESTS", 9},       {"IMMEDIATE", 9},
                                       {"WAITED", 7},       {"RATE_LIMITED", 12},  {"RETRIES", 8},
                                       {"SWITCHES", 8},     {"GIVEN_UP", 8}};
static const column compact_cols[COLS] = {{"REQ/WINDOW", -11}, {"TOKENS/WINDOW", -13}, {"COOLDOWN", -20},
                                          {"FAIL", 4},         {"REQS", 7},            {"IMMED", 6},
                                          {"WAITED", 6},       {"LIMITED", 7},         {"RETRIES", 7},
                                          {"SWITCH", 6},       {"GAVEUP", 6}};

/* Prints one line: first left-aligned in width, then cells in cols' widths. */
static void print_line(int width, const char *first, const column *cols, char cells[COLS][96])
{
    printf("%-*s", width, first);
    for (int c = 0; c < COLS; c++)
        printf(" %*s", cols[c].width, cells[c]);
    putchar('\n');
}

static void print_text(const rows *r, int64_t now, bool wide)
{
    if (r->n == 0) {
        puts("no accounts recorded yet");
        return;
    }
    const column *cols = wide ? wide_cols : compact_cols;
    int width = 16;
    for (size_t i = 0; i < r->n; i++) {
        int len = (int)strlen(r->v[i].account) + 2;
        if (len > width)
            width = len;
    }
    char cells[COLS][96];
    for (int c = 0; c < COLS; c++)
        snprintf(cells[c], sizeof cells[c], "%s", cols[c].name);
    print_line(width, "ACCOUNT", cols, cells);
    for (size_t i = 0; i < r->n; i++) {
        const row *w = &r->v[i];
        if (i == 0 || strcmp(w->provider, r->v[i - 1].provider)) {
            int64_t win = 0;
            for (size_t j = i; j < r->n && !strcmp(r->v[j].provider, w->provider); j++)
                win = r->v[j].win.window_ms > win ? r->v[j].win.window_ms : win;
            if (win > 0)
                printf("%s (window %.3gs)\n", w->provider, (double)win / 1000.0);
            else
                printf("%s\n", w->provider);
        }
        usage_text(w->win.requests, w->win.rpm, w->win.reserved, cells[0], sizeof cells[0]);
        usage_text(w->win.tokens, w->win.tpm, 0, cells[1], sizeof cells[1]);
        cooldown_text(w, now, wide, cells[2], sizeof cells[2]);
        const lg_account_counters *k = &w->slot.counters;
        unsigned long long v[COLS - 3] = {w->slot.state.failures, k->requests, k->immediate, k->waited,
                                          k->rate_limited,        k->retries,  k->switches,  k->given_up};
        for (int c = 3; c < COLS; c++)
            snprintf(cells[c], sizeof cells[c], "%llu", v[c - 3]);
        char name[LG_NAME_MAX + 4];
        snprintf(name, sizeof name, "  %s", w->account);
        print_line(width, name, cols, cells);
    }
}

/* The object at o[name], created when missing. */
static cJSON *child_object(cJSON *o, const char *name)
{
    cJSON *c = cJSON_GetObjectItemCaseSensitive(o, name);
    return c ? c : cJSON_AddObjectToObject(o, name);
}

/* The Triggerfish-style snapshot of the window (tokensUsed, requestsUsed, tpmLimit, rpmLimit, windowMs; a
 * limit of 0 means none) and what goes with it. */
static bool add_window_json(cJSON *a, const window_view *v)
{
    cJSON *learned = cJSON_AddObjectToObject(a, "learnedLimits");
    return learned && cJSON_AddNumberToObject(a, "tokensUsed", (double)v->tokens) &&
           cJSON_AddNumberToObject(a, "requestsUsed", (double)v->requests) &&
           cJSON_AddNumberToObject(a, "tpmLimit", (double)v->tpm) &&
           cJSON_AddNumberToObject(a, "rpmLimit", (double)v->rpm) &&
           cJSON_AddNumberToObject(a, "windowMs", (double)v->window_ms) &&
           cJSON_AddNumberToObject(a, "requestsReserved", (double)v->reserved) &&
           cJSON_AddNumberToObject(learned, "rpm", (double)v->learned_rpm) &&
           cJSON_AddNumberToObject(learned, "tpm", (double)v->learned_tpm);
}

static bool print_json(const rows *r, const lg_status_provs *pr, int64_t now)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *providers = root ? cJSON_AddObjectToObject(root, "providers") : NULL;
    bool ok = providers != NULL;
    for (size_t i = 0; ok && i < r->n; i++) {
        const row *w = &r->v[i];
        const lg_account_counters *c = &w->slot.counters;
        cJSON *prov = child_object(providers, w->provider);
        cJSON *accounts = prov ? child_object(prov, "accounts") : NULL;
        cJSON *a = accounts ? cJSON_AddObjectToObject(accounts, w->account) : NULL;
        int64_t left = remaining_ms(w, now);
        ok = a && cJSON_AddBoolToObject(a, "available", left == 0) &&
             cJSON_AddNumberToObject(a, "cooldown_remaining_ms", (double)left) &&
             cJSON_AddNumberToObject(a, "cooldown_until_ms", (double)(left ? w->slot.state.cooldown_until_ms : 0)) &&
             cJSON_AddStringToObject(a, "reason", lg_reason_name(left ? w->slot.state.reason : LG_REASON_NONE)) &&
             (*aside_name(w, now) ? cJSON_AddStringToObject(a, "detail", aside_name(w, now))
                                  : cJSON_AddNullToObject(a, "detail")) &&
             cJSON_AddNumberToObject(a, "failures", w->slot.state.failures) &&
             add_window_json(a, &w->win) &&
             cJSON_AddNumberToObject(a, "requests", (double)c->requests) &&
             cJSON_AddNumberToObject(a, "immediate", (double)c->immediate) &&
             cJSON_AddNumberToObject(a, "waited", (double)c->waited) &&
             cJSON_AddNumberToObject(a, "rate_limited", (double)c->rate_limited) &&
             cJSON_AddNumberToObject(a, "retries", (double)c->retries) &&
             cJSON_AddNumberToObject(a, "switches", (double)c->switches) &&
             cJSON_AddNumberToObject(a, "given_up", (double)c->given_up);
    }
    ok = ok && lg_status_provs_json(pr, providers, now);
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return false;
    puts(text);
    free(text);
    return true;
}

/* A label value in the exposition format: backslash, double quote and newline escaped. */
static void print_label(const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            printf("\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", stdout);
        else
            putchar(*s);
    }
}

typedef enum { M_REQUESTS, M_IMMEDIATE, M_WAITED, M_RATE_LIMITED, M_RETRIES, M_SWITCHES, M_GIVEN_UP,
               M_FAILURES, M_WIN_REQUESTS, M_WIN_TOKENS, M_WIN_RESERVED, M_RPM_LIMIT, M_TPM_LIMIT, M_COOLDOWN,
               M_WINDOW, M_COUNT } metric_id;

static const struct {
    const char *name, *type, *help;
} metrics[M_COUNT] = {
    {"llmgate_requests_total", "counter", "Attempts sent to the provider with this account."},
    {"llmgate_immediate_total", "counter", "Requests admitted without waiting."},
    {"llmgate_waited_total", "counter", "Requests that had to wait before being sent."},
    {"llmgate_rate_limited_total", "counter", "Rate-limit class responses received."},
    {"llmgate_retries_total", "counter", "Retries made after a rate limit or an overload."},
    {"llmgate_switches_total", "counter", "Switches away from this account."},
    {"llmgate_given_up_total", "counter", "Requests given up with a normalized error."},
    {"llmgate_consecutive_failures", "gauge", "Consecutive failure events of this account."},
    {"llmgate_window_requests", "gauge", "Requests admitted in the current window."},
    {"llmgate_window_tokens", "gauge", "Tokens admitted in the current window (estimates until reconciled)."},
    {"llmgate_window_reserved_requests", "gauge", "Requests waiting with a reserved place ahead of now."},
    {"llmgate_window_requests_limit", "gauge", "Requests allowed per window (0: no limit)."},
    {"llmgate_window_tokens_limit", "gauge", "Tokens allowed per window (0: no limit)."},
    {"llmgate_cooldown_remaining_seconds", "gauge", "Seconds until this account may be used again."},
    {"llmgate_window_seconds", "gauge", "Length of the limits' window."},
};

static void print_sample(metric_id m, const row *w, int64_t now)
{
    const lg_account_counters *c = &w->slot.counters;
    printf("%s{provider=\"", metrics[m].name);
    print_label(w->provider);
    fputs("\",account=\"", stdout);
    print_label(w->account);
    if (m == M_COOLDOWN) {
        int64_t left = remaining_ms(w, now);
        const char *aside = aside_name(w, now);
        printf("\",reason=\"%s\"%s%s%s} %.3f\n", lg_reason_name(left ? w->slot.state.reason : LG_REASON_NONE),
               *aside ? ",detail=\"" : "", aside, *aside ? "\"" : "", (double)left / 1000.0);
        return;
    }
    if (m == M_WINDOW) {
        printf("\"} %.3f\n", (double)w->win.window_ms / 1000.0);
        return;
    }
    const uint64_t values[] = {c->requests, c->immediate, c->waited, c->rate_limited, c->retries, c->switches,
                               c->given_up, (uint64_t)(w->slot.state.failures > 0 ? w->slot.state.failures : 0),
                               (uint64_t)w->win.requests, (uint64_t)w->win.tokens, (uint64_t)w->win.reserved,
                               (uint64_t)w->win.rpm, (uint64_t)w->win.tpm};
    printf("\"} %llu\n", (unsigned long long)values[m]);
}

static void print_prometheus(const rows *r, const lg_status_provs *pr, int64_t now)
{
    for (int m = 0; m < M_COUNT; m++) {
        printf("# HELP %s %s\n# TYPE %s %s\n", metrics[m].name, metrics[m].help, metrics[m].name, metrics[m].type);
        for (size_t i = 0; i < r->n; i++)
            print_sample((metric_id)m, &r->v[i], now);
    }
    lg_status_provs_prometheus(pr, print_label);
}

/* Shows the store once: the configured backend (cfg NULL: the default shm file). Returns the exit status. */
static int show(const lg_config *cfg, format fmt)
{
    char file[4096];
    struct stat st;
    bool shm = !cfg || strcmp(cfg->store_backend, "redis") != 0;
    const char *store_path = cfg ? cfg->store_path : NULL;
    if (!lg_store_resolve_path(store_path, file, sizeof file)) {
        fprintf(stderr, "llmgate: state file path too long\n");
        return 1;
    }
    rows r = {.now = lg_now_ms()};
    lg_status_provs pr = {0};
    if (shm && lstat(file, &st) != 0 && errno == ENOENT && !lg_store_has_saved_cooldowns()) {
        /* Machine formats still get a valid, empty document on stdout. */
        bool text = fmt == FMT_TEXT || fmt == FMT_WIDE;
        fputs("no llmgate state yet\n", text ? stdout : stderr);
        if (text) {
            fflush(stdout);
            return 0;
        }
    } else {
        char err[512] = "";
        lg_store *s = cfg ? lg_store_open_config(cfg, err, sizeof err) : lg_store_open(NULL, err, sizeof err);
        if (!s) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        int busy = lg_store_visit(s, collect, &r);
        if (!busy)
            busy = lg_status_provs_read(s, &pr);
        lg_store_close(s);
        if (busy) {
            fprintf(stderr, "llmgate: the state store stayed locked; try again\n");
            free(r.v);
            free(pr.v);
            return 1;
        }
    }
    int rc = 0;
    if (r.oom || pr.oom) {
        fprintf(stderr, "llmgate: out of memory\n");
        rc = 1;
    } else {
        if (r.n)
            qsort(r.v, r.n, sizeof *r.v, by_name);
        int64_t now = r.now;
        if (fmt == FMT_JSON) {
            rc = print_json(&r, &pr, now) ? 0 : 1;
        } else if (fmt == FMT_PROMETHEUS) {
            print_prometheus(&r, &pr, now);
            lg_cli_usage_prometheus(cfg);
        } else {
            print_text(&r, now, fmt == FMT_WIDE);
            lg_status_provs_text(&pr, now);
        }
    }
    free(r.v);
    free(pr.v);
    fflush(stdout);
    return rc;
}

static int usage(FILE *f)
{
    fputs("usage: llmgate status [--config FILE] [--wide|--json|--prometheus] [--textfile PATH] [--watch [SECONDS]]\n", f);
    return f == stderr ? 2 : 0;
}

/* The configuration (NULL: problems reported, the default shm file shown). */
static lg_config *configured_store(const char *config)
{
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(config, &errs);
    if (!cfg) {
        for (size_t i = 0; i < errs.n; i++)
            fprintf(stderr, "llmgate: config: %s\n", errs.items[i]);
        fprintf(stderr, "llmgate: showing the default state file\n");
    }
    lg_errors_free(&errs);
    return cfg;
}

int lg_cmd_status(int argc, char **argv)
{
    format fmt = FMT_TEXT;
    const char *config = NULL, *textfile = NULL;
    bool watch = false;
    long interval = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            fmt = FMT_JSON;
        else if (!strcmp(argv[i], "--wide"))
            fmt = FMT_WIDE;
        else if (!strcmp(argv[i], "--prometheus"))
            fmt = FMT_PROMETHEUS;
        else if (!strcmp(argv[i], "--config") && i + 1 < argc)
            config = argv[++i];
        else if (!strcmp(argv[i], "--textfile") && i + 1 < argc)
            textfile = argv[++i];
        else if (!strcmp(argv[i], "--watch")) {
            watch = true;
            char *end;
            if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') {
                interval = strtol(argv[++i], &end, 10);
                if (*end || interval < 1 || interval > 86400)
                    return usage(stderr);
            }
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return usage(stdout);
        else
            return usage(stderr);
    }
    if (textfile && (watch || fmt == FMT_JSON))
        return usage(stderr);
    lg_config *cfg = configured_store(config);
    int rc;
    if (textfile) { /* --textfile PATH: the Prometheus format into PATH, replaced atomically */
        lg_textfile t;
        rc = 1;
        if (lg_textfile_begin(&t, textfile)) {
            rc = show(cfg, FMT_PROMETHEUS);
            if (!lg_textfile_end(&t, rc == 0))
                rc = 1;
        }
        lg_config_free(cfg);
        return rc;
    }
    do {
        if (watch)
            printf("\033[H\033[2JEvery %lds: llmgate status\n\n", interval);
        rc = show(cfg, fmt);
        if (watch)
            lg_sleep_ms(interval * 1000);
    } while (watch);
    lg_config_free(cfg);
    return rc;
}
