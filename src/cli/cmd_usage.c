/* llmgate usage [--config FILE] [--since 7d] [--by provider,account,model,program,day] [--json|--csv]: what
 * the gated programs used and cost, from the spend file every process adds to (src/spend). Also the
 * spend file for `llmgate reset --budget` and `llmgate status --prometheus`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/usage_table.h"
#include "llmgate/clock.h"
#include "llmgate/spend.h"
#include "llmgate/store.h"

#define DAY_MS INT64_C(86400000)
static const char *const key_names[KEYS_MAX] = {"day", "provider", "account", "model", "program"};

lg_spend *lg_cli_spend_open(const char *config, bool create)
{
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(config, &errs);
    for (size_t i = 0; !cfg && i < errs.n; i++)
        fprintf(stderr, "llmgate: config: %s\n", errs.items[i]);
    lg_errors_free(&errs);
    char path[4096], err[512];
    lg_spend *s = NULL;
    struct stat st;
    if (!lg_spend_path(cfg, path, sizeof path))
        fprintf(stderr, "llmgate: spend file path too long\n");
    else if (!create && lstat(path, &st) != 0 && errno == ENOENT)
        ; /* nothing counted yet */
    else if (!(s = lg_spend_open(path, err, sizeof err)))
        fprintf(stderr, "llmgate: %s\n", err);
    lg_config_free(cfg);
    return s;
}

void lg_usage_collect(int64_t day, const lg_spend_row *row, void *ctx)
{
    table *t = ctx;
    group g;
    memset(&g, 0, sizeof g);
    time_t sec = (time_t)(day * 86400);
    struct tm tm;
    gmtime_r(&sec, &tm);
    strftime(g.key[0], sizeof g.key[0], "%Y-%m-%d", &tm);
    const char *names[] = {NULL, row->provider, row->account, row->model, row->program};
    size_t caps[] = {0, sizeof row->provider, sizeof row->account, sizeof row->model, sizeof row->program};
    for (int i = 1; i < KEYS_MAX; i++) {
        snprintf(g.key[i], sizeof g.key[i], "%s", lg_cli_name_ok(names[i], caps[i]) ? names[i] : "?");
        for (char *p = g.key[i]; *p; p++)
            if (*p == '"' || *p == '\\' || *p == ',')
                *p = '?'; /* safe in JSON and CSV as it stands */
    }
    lg_spend_counts_add(&t->total.c, &row->c);
    group *to = NULL;
    for (size_t i = 0; i < t->n && !to; i++) {
        bool same = true;
        for (int j = 0; j < t->n_by && same; j++)
            same = !strcmp(t->g[i].key[t->by[j]], g.key[t->by[j]]);
        if (same)
            to = &t->g[i];
    }
    if (!to) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 64;
            group *v = realloc(t->g, cap * sizeof *v);
            if (!v) {
                t->oom = true;
                return;
            }
            t->g = v, t->cap = cap;
        }
        to = &t->g[t->n++];
        *to = g;
        memset(&to->c, 0, sizeof to->c);
    }
    lg_spend_counts_add(&to->c, &row->c);
}

/* Largest cost first, then the keys in order. */
static int by_cost(const void *a, const void *b)
{
    const group *x = a, *y = b;
    if (x->c.cost_nusd != y->c.cost_nusd)
        return x->c.cost_nusd > y->c.cost_nusd ? -1 : 1;
    for (int i = 0; i < KEYS_MAX; i++) {
        int c = strcmp(x->key[i], y->key[i]);
        if (c)
            return c;
    }
    return 0;
}


static void json_counts(const lg_spend_counts *c)
{
    printf("\"requests\":%llu,\"input_tokens\":%llu,\"cached_tokens\":%llu,\"output_tokens\":%llu,"
           "\"cost_usd\":%.9f,\"unpriced\":%llu,\"estimated\":%llu,\"rate_limited_absorbed\":%llu,"
           "\"waited_ms\":%llu,\"refused_by_budget\":%llu",
           (unsigned long long)c->requests, (unsigned long long)c->input, (unsigned long long)c->cached,
           (unsigned long long)c->output, usd(c->cost_nusd), (unsigned long long)c->unpriced,
           (unsigned long long)c->estimated, (unsigned long long)c->limited, (unsigned long long)c->waited_ms,
           (unsigned long long)c->refused);
}

static void print_json(const table *t, const char *since)
{
    printf("{\"since\":\"%s\",\"by\":[", since);
    for (int j = 0; j < t->n_by; j++)
        printf("%s\"%s\"", j ? "," : "", key_names[t->by[j]]);
    printf("],\"rows\":[");
    for (size_t i = 0; i < t->n; i++) {
        printf("%s{", i ? "," : "");
        for (int j = 0; j < t->n_by; j++)
            printf("\"%s\":\"%s\",", key_names[t->by[j]], t->g[i].key[t->by[j]]);
        json_counts(&t->g[i].c);
        printf("}");
    }
    printf("],\"total\":{");
    json_counts(&t->total.c);
    printf("}}\n");
}

static void print_csv(const table *t)
{
    for (int j = 0; j < t->n_by; j++)
        printf("%s,", key_names[t->by[j]]);
    printf("requests,input_tokens,cached_tokens,output_tokens,cost_usd,unpriced,estimated,rate_limited_absorbed,"
           "waited_ms,refused_by_budget\n");
    for (size_t i = 0; i < t->n; i++) {
        const lg_spend_counts *c = &t->g[i].c;
        for (int j = 0; j < t->n_by; j++)
            printf("%s,", t->g[i].key[t->by[j]]);
        printf("%llu,%llu,%llu,%llu,%.9f,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)c->requests,
               (unsigned long long)c->input, (unsigned long long)c->cached, (unsigned long long)c->output,
               usd(c->cost_nusd), (unsigned long long)c->unpriced, (unsigned long long)c->estimated,
               (unsigned long long)c->limited, (unsigned long long)c->waited_ms, (unsigned long long)c->refused);
    }
}

/* A count in a few characters: 1234 -> 1.2k, 5600000 -> 5.6M. */
static const char *human(uint64_t v, char *buf, size_t cap)
{
    if (v < 10000)
        snprintf(buf, cap, "%llu", (unsigned long long)v);
    else if (v < 10000000)
        snprintf(buf, cap, "%.1fk", (double)v / 1e3);
    else
        snprintf(buf, cap, "%.1fM", (double)v / 1e6);
    return buf;
}

static void print_line(const table *t, const group *g, const char *label)
{
    char a[16], b[16], c[16], d[16];
    for (int j = 0; j < t->n_by; j++)
        printf("%-*.*s ", j + 1 == t->n_by ? 24 : 16, j + 1 == t->n_by ? 24 : 16,
               label ? (j ? "" : label) : g->key[t->by[j]]);
    const lg_spend_counts *x = &g->c;
    printf("%8s %8s %8s %8s %11.6f %6llu %8.1fs", human(x->requests, a, sizeof a), human(x->input, b, sizeof b),
           human(x->cached, c, sizeof c), human(x->output, d, sizeof d), usd(x->cost_nusd),
           (unsigned long long)x->limited, (double)x->waited_ms / 1000.0);
    if (x->unpriced || x->estimated || x->refused) {
        printf("  (");
        const char *sep = "";
        if (x->unpriced)
            printf("%s%llu unpriced", sep, (unsigned long long)x->unpriced), sep = ", ";
        if (x->estimated)
            printf("%s%llu estimated", sep, (unsigned long long)x->estimated), sep = ", ";
        if (x->refused)
            printf("%s%llu refused by budget", sep, (unsigned long long)x->refused);
        printf(")");
    }
    printf("\n");
}

static void print_table(const table *t, const char *since)
{
    printf("usage since %s (UTC)\n", since);
    for (int j = 0; j < t->n_by; j++)
        printf("%-*s ", j + 1 == t->n_by ? 24 : 16, key_names[t->by[j]]);
    printf("%8s %8s %8s %8s %11s %6s %9s\n", "requests", "input", "cached", "output", "cost USD", "429s", "waited");
    for (size_t i = 0; i < t->n; i++)
        print_line(t, &t->g[i], NULL);
    print_line(t, &t->total, "total");
}

/* Visitor: row into every table of the NULL-terminated list ctx. */
static void collect_all(int64_t day, const lg_spend_row *row, void *ctx)
{
    for (table **t = ctx; *t; t++)
        lg_usage_collect(day, row, *t);
}

#define PROM_MODELS_MAX 20 /* model labels of the Prometheus output; the others of a provider as "other" */

/* The groups of t (provider, model) past the PROM_MODELS_MAX dearest folded into their provider's "other"
 * (t sorted by cost first). */
static void cap_models(table *t)
{
    if (t->n)
        qsort(t->g, t->n, sizeof *t->g, by_cost);
    size_t n = t->n < PROM_MODELS_MAX ? t->n : PROM_MODELS_MAX;
    for (size_t i = PROM_MODELS_MAX; i < t->n; i++) {
        group *to = NULL;
        for (size_t j = PROM_MODELS_MAX; j < n && !to; j++)
            if (!strcmp(t->g[j].key[1], t->g[i].key[1]))
                to = &t->g[j];
        if (!to) {
            to = &t->g[n++];
            memmove(to, &t->g[i], sizeof *to);
            snprintf(to->key[3], sizeof to->key[3], "other");
        } else {
            lg_spend_counts_add(&to->c, &t->g[i].c);
        }
    }
    t->n = n;
}

/* One family of counters: its lines per group of t, labelled by the keys of t. */
static void prom_family(const table *t, const char *name, const char *help, int k)
{
    printf("# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    for (size_t i = 0; i < t->n; i++) {
        const lg_spend_counts *c = &t->g[i].c;
        const uint64_t v[] = {c->requests, c->input, c->cached, c->output, 0, c->unpriced, c->limited, c->refused};
        printf("%s{provider=\"%s\",%s=\"%s\"} ", name, t->g[i].key[1], t->by[1] == 3 ? "model" : "account",
               t->g[i].key[t->by[1]]);
        if (k == 4)
            printf("%.9f\n", usd(c->cost_nusd));
        else
            printf("%llu\n", (unsigned long long)v[k]);
    }
}

void lg_cli_usage_prometheus(const lg_config *cfg)
{
    char path[4096], err[512];
    struct stat st;
    if (!lg_spend_path(cfg, path, sizeof path) || lstat(path, &st) != 0)
        return;
    lg_spend *s = lg_spend_open(path, err, sizeof err);
    table t = {.by = {1, 2}, .n_by = 2}; /* provider, account: bounded labels */
    table tm = {.by = {1, 3}, .n_by = 2}; /* provider, model: capped at PROM_MODELS_MAX */
    table *all[] = {&t, &tm, NULL};
    if (!s || lg_spend_visit(s, 0, collect_all, all) != 0 || t.oom || tm.oom) {
        lg_spend_close(s);
        free(t.g);
        free(tm.g);
        return;
    }
    lg_spend_close(s);
    static const struct {
        const char *name, *help;
    } m[] = {
        {"llmgate_usage_requests_total", "Requests that reached the provider (the days kept)"},
        {"llmgate_usage_input_tokens_total", "Input tokens, cache reads included"},
        {"llmgate_usage_cached_tokens_total", "Input tokens read from the provider's cache"},
        {"llmgate_usage_output_tokens_total", "Output tokens, reasoning included"},
        {"llmgate_usage_cost_usd_total", "Cost in USD of the priced requests"},
        {"llmgate_usage_unpriced_requests_total", "Requests of a model without a price"},
        {"llmgate_usage_rate_limited_absorbed_total", "429s retried out of the program's sight"},
        {"llmgate_budget_refused_requests_total", "Requests refused because a budget was spent"},
    };
    for (int k = 0; k < (int)(sizeof m / sizeof m[0]); k++)
        prom_family(&t, m[k].name, m[k].help, k);
    cap_models(&tm);
    static const struct {
        const char *name, *help;
        int k;
    } mm[] = {
        {"llmgate_usage_model_requests_total", "Requests per model (the dearest 20, the others as \"other\")", 0},
        {"llmgate_usage_model_input_tokens_total", "Input tokens per model, cache reads included", 1},
        {"llmgate_usage_model_output_tokens_total", "Output tokens per model", 3},
        {"llmgate_usage_model_cost_usd_total", "Cost in USD per model", 4},
    };
    for (size_t k = 0; k < sizeof mm / sizeof mm[0]; k++)
        prom_family(&tm, mm[k].name, mm[k].help, mm[k].k);
    free(t.g);
    free(tm.g);
}

static int usage(FILE *f)
{
    fputs("usage: llmgate usage [--config FILE] [--since 7d|24h|YYYY-MM-DD] [--by provider,account,model,program,day] "
          "[--json|--csv|--html FILE]\n",
          f);
    return f == stderr ? 2 : 0;
}

/* --by's list into t; false when it names something else. */
static bool parse_by(const char *s, table *t)
{
    t->n_by = 0;
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int k = -1;
        for (int i = 0; i < KEYS_MAX; i++)
            if (!strcmp(tok, key_names[i]))
                k = i;
        if (k < 0 || t->n_by == KEYS_MAX)
            return false;
        t->by[t->n_by++] = k;
    }
    return t->n_by > 0;
}

/* --since: Nd, Nh (counted in whole days of tz, NULL: UTC, back from today) or a date; the first day
 * counted. */
static bool parse_since(const char *s, const lg_tz *tz, int64_t now_ms, int64_t *day)
{
    char *end;
    long n = strtol(s, &end, 10);
    int64_t today = lg_tz_day(tz, now_ms);
    if (end != s && n >= 0 && (!strcmp(end, "d") || !strcmp(end, "h"))) {
        int64_t ms = *end == 'd' ? n * DAY_MS : n * (DAY_MS / 24);
        *day = lg_tz_day(tz, now_ms - ms);
        if (*end == 'd' && n > 0)
            *day = today - n + 1;
        return true;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    end = strptime(s, "%Y-%m-%d", &tm);
    if (!end || *end)
        return false;
    *day = (int64_t)timegm(&tm) / 86400;
    return true;
}


/* The rows from day on into every table of all: the fleet's totals from Redis when the configuration cfg
 * (may be NULL)'s store is redis (this machine's outbox pushed first; this machine's own rows, with a line on stderr, when
 * Redis cannot be read), else this machine's spend file. 0, or 1 after a line on stderr. */
static int read_usage(const char *config, const lg_config *cfg, int64_t day, int64_t now_ms, table **all)
{
    bool redis = cfg && !strcmp(cfg->store_backend, "redis");
    lg_spend *s = lg_cli_spend_open(config, false);
    int rc = 0;
    if (redis) {
        char err[512];
        lg_store *st = lg_store_open_config(cfg, err, sizeof err);
        if (s)
            lg_spend_flush(s, st, cfg, now_ms);
        rc = st ? lg_spend_fleet_visit(st, day, lg_tz_day(cfg->spend_tz, now_ms), collect_all, all) : -1;
        lg_store_close(st);
        if (rc == 0) {
            lg_spend_close(s);
            return 0;
        }
        fprintf(stderr, "llmgate: the fleet's totals in Redis cannot be read: this machine's usage only\n");
    }
    rc = s && lg_spend_visit(s, day, collect_all, all) != 0;
    if (rc)
        fprintf(stderr, "llmgate: the spend file stayed locked; try again\n");
    lg_spend_close(s);
    return rc;
}

int lg_cmd_usage(int argc, char **argv)
{
    const char *config = NULL, *since = "7d", *by = "provider,model", *format = "table", *html = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            config = argv[++i];
        else if (!strcmp(argv[i], "--since") && i + 1 < argc)
            since = argv[++i];
        else if (!strcmp(argv[i], "--by") && i + 1 < argc)
            by = argv[++i];
        else if (!strcmp(argv[i], "--html") && i + 1 < argc)
            html = argv[++i];
        else if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--csv"))
            format = argv[i] + 2;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return usage(stdout);
        else
            return usage(stderr);
    }
    table t = {0}, per_day = {.by = {0}, .n_by = 1}, per_account = {.by = {1, 2}, .n_by = 2};
    table *all[] = {&t, &per_day, &per_account, NULL};
    int64_t now = lg_now_ms(), day;
    lg_errors errs = {0};
    lg_config *cfg = lg_config_load(config, &errs); /* its zone and store (the errors: lg_cli_spend_open's) */
    lg_errors_free(&errs);
    if (!parse_by(by, &t) || !parse_since(since, cfg ? cfg->spend_tz : NULL, now, &day)) {
        fprintf(stderr, "llmgate: usage: bad --by or --since\n");
        lg_config_free(cfg);
        return usage(stderr);
    }
    char first[16];
    time_t sec = (time_t)(day * 86400);
    struct tm tm;
    gmtime_r(&sec, &tm);
    strftime(first, sizeof first, "%Y-%m-%d", &tm);
    char zone[128];
    snprintf(zone, sizeof zone, "%s", cfg && cfg->spend_time_zone ? cfg->spend_time_zone : "UTC");
    int read = read_usage(config, cfg, day, now, all);
    lg_config_free(cfg);
    if (read != 0)
        return 1;
    int rc = 0;
    if (t.oom || per_day.oom || per_account.oom) {
        fprintf(stderr, "llmgate: out of memory\n");
        rc = 1;
    } else if (html) {
        rc = lg_usage_html(html, &per_day, &per_account, first, zone);
    }
    free(per_day.g);
    free(per_account.g);
    if (rc || html) {
        free(t.g);
        return rc;
    }
    if (t.n)
        qsort(t.g, t.n, sizeof *t.g, by_cost);
    if (!strcmp(format, "json"))
        print_json(&t, first);
    else if (!strcmp(format, "csv"))
        print_csv(&t);
    else if (!t.n)
        printf("no usage since %s\n", first);
    else
        print_table(&t, first);
    free(t.g);
    fflush(stdout);
    return 0;
}
