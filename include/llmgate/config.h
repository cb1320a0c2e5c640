/* The effective configuration: providers, accounts, limits and policy knobs. */
#ifndef LLMGATE_CONFIG_H
#define LLMGATE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmgate/preset.h"

/* Branch hints for the per-request path: GCC lays the unlikely side out after the hot code, so a success
 * touches fewer code lines (what a request costs is mostly instruction-cache misses). */
#define LG_LIKELY(x) __builtin_expect(!!(x), 1)
#define LG_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define LG_NAME_MAX 64
#define LG_DIGEST_HEX 17 /* 16 hex digits + NUL */
#define LG_QUOTA_STEPS_MAX 8

/* What one machine's shared state store holds (src/store/layout.h): a config naming more providers or
 * accounts (every preset in use included) is refused, never half enforced. */
#define LG_CONFIG_STORE_PROVIDERS 64
#define LG_CONFIG_STORE_ACCOUNTS 256

typedef struct {
    char name[LG_NAME_MAX];
    char pool[LG_NAME_MAX];    /* "pool": the account's pool ("" = the default pool, first) */
    char *key;                 /* resolved secret; NULL = use the key the host program sent */
    char *key_ref;             /* how it is shown: "env:NAME", "file:PATH", "literal:<digest>", "host" */
    char digest[LG_DIGEST_HEX];/* lg_key_digest of the key; "" for the host's own key */
} lg_account;

typedef enum { LG_BOUNDARY_UTF8 = 0, LG_BOUNDARY_EVENT, LG_BOUNDARY_NONE } lg_stream_boundary;

typedef struct {
    int64_t rpm;       /* requests per window, 0 = unlimited */
    int64_t tpm;       /* tokens per window, 0 = unlimited */
    int64_t window_ms; /* default 60000 */
    char tier[32];     /* "" or a tier preset name ("tier-2") */
} lg_limits;

/* The circuit breaker of a provider: "breaker" at top level, overridable member by member per provider. */
typedef struct {
    double failure_ratio;     /* opens at this share of failures (PROVIDER_DOWN, transport) ... default 0.5 */
    int min_requests;         /* ... among at least this many requests ... default 10 */
    int64_t window_ms;        /* ... in this sliding window, default 30000 */
    int consecutive_failures; /* or after this many failures in a row (0 = never), default 5 */
    int64_t open_ms;          /* open this long before one probe, doubling while probes fail, default 30000 */
    int64_t open_max_ms;      /* at most this long, default 300000 */
} lg_breaker_conf;

/* One "models" entry of a provider: a request's model matching pattern (exact name, glob, or "*") is sent
 * there as model. */
typedef struct {
    char *pattern;
    char *model;
} lg_model_map;

typedef struct {
    char name[LG_NAME_MAX];
    const lg_preset *preset; /* NULL for a custom provider or a plain host rule */
    lg_dialect dialect;      /* LG_DIALECT_NONE for a plain host rule */
    lg_auth_style auth;
    char **hosts;
    size_t n_hosts;
    char *upstream;          /* base URL ("http://127.0.0.1:18080"), or NULL */
    lg_account *accounts;    /* never empty: a provider without accounts gets one "host" account */
    size_t n_accounts;
    lg_limits limits;
    lg_stream_boundary boundary;
    lg_breaker_conf breaker; /* effective: the top-level one with this provider's overrides */
    char **fallback;         /* "fallback": names of providers (same dialect, or another translated one)
                              * tried in order, or NULL */
    size_t n_fallback;
    lg_model_map *models;    /* "models", in config order (first match wins), or NULL */
    size_t n_models;
} lg_provider;

typedef struct {
    bool switch_on_first_rate_limit; /* default true */
    int64_t max_rate_limit_wait_ms;  /* config: max_rate_limit_wait_seconds, default 300 s */
    int max_attempts;                /* default 10 */
    int64_t switch_delay_ms;         /* wait before switching after a rate limit, default 1000 */
    int64_t same_key_retry_delay_ms; /* switch_on_first_rate_limit=false: retry same key after, default 1000 */
    int64_t switch_after_retry_ms;   /* switch_on_first_rate_limit=false: then switch after, default 5000 */
    int max_server_retries;          /* capacity/server errors on one key before rotating, default 2 */
    double budget_ratio;             /* retries may add this share to the requests of the last 10 s, 0.2 */
    double budget_min_per_s;         /* ... but at least this many per second (a floor), default 0.5 */
    bool pool_fallback;              /* use a provider's first pool until all of it is out of quota, false */
    char pin_separator[8];           /* "gpt-4o:backup" pins to provider or pool "backup"; default ":" */
    int64_t fallback_after_ms;       /* a request its provider cannot admit for longer goes to the fallback
                                        at once, default 1000 */
    int64_t attempt_timeout_ms;      /* an attempt with no byte of its answer this long is abandoned, 600000; 0 off */
    int64_t idle_timeout_ms;         /* ... or with no byte between two of a held or streamed answer, 300000 */
} lg_retry_conf;

typedef struct {
    int64_t quota_exhausted_ms[LG_QUOTA_STEPS_MAX]; /* default 60 s, 5 min, 30 min, 2 h */
    size_t n_quota_steps;
    int64_t rate_limit_exceeded_ms;      /* 30000 */
    int64_t model_capacity_exhausted_ms; /* 15000 */
    int64_t server_error_ms;             /* 20000 */
    int64_t unknown_ms;                  /* 60000 */
    int64_t dedup_window_ms;             /* 2000 */
    int64_t reset_after_ms;              /* 120000 */
    int64_t single_account_base_ms;      /* 1000 */
    int64_t single_account_max_ms;       /* 60000 */
    int64_t max_hint_ms;                 /* 86400000: longest server wait hint honoured (clamp) */
    int64_t billing_ms;                  /* 14400000: an account out of credit is set aside this long */
    int64_t key_refused_ms;              /* 14400000: an account whose key the provider refused, this long */
} lg_backoff_conf;

typedef enum { LG_LOG_ERROR = 0, LG_LOG_WARN, LG_LOG_INFO, LG_LOG_DEBUG } lg_log_level;

/* One "routes" rule: when every condition of its match holds (an absent one holds), its action applies. */
typedef struct {
    char *model;               /* match.model: exact name or glob of the request's model, or NULL */
    int64_t max_prompt_tokens; /* match.max_prompt_tokens: the estimated prompt is at most this; -1: any */
    char *program;             /* match.program: exact name or glob of the host program's name, or NULL */
    char *header;              /* match.header: the request carries this header (any case), or NULL */
    char *set_model;           /* set.model: the model the request is sent as, or NULL */
    char *to;                  /* "to": the provider it is sent to (translated when its dialect differs) */
    char *refuse;              /* "refuse": answered locally with this message, never sent; or NULL */
} lg_route;

/* One price: USD per million tokens of a model (exact name or glob) at a provider ("prices" in the config,
 * then the price file's). */
typedef struct {
    char provider[LG_NAME_MAX]; /* a provider's name or its preset's ("openai") */
    char *model;                /* exact name or fnmatch(3) glob */
    double input, cached_input, output; /* cached_input: cache reads (the input's price when not given) */
} lg_price;

typedef enum { LG_PER_HOUR = 0, LG_PER_DAY, LG_PER_MONTH } lg_budget_per;

struct lg_tz;

/* One "budgets" entry: requests matching every given condition (exact or glob; NULL: any) share usd per
 * period (UTC, or the days of "spend.time_zone"). */
typedef struct {
    char name[LG_NAME_MAX];
    char *provider, *account, *model, *program;
    lg_budget_per per;
    double usd;
    const struct lg_tz *tz; /* the config's spend_tz (NULL: UTC) */
} lg_budget_conf;

/* One "gateway.tokens" entry: a client of `llmgate relay --listen` presenting the token whose SHA-256 this
 * is as its API key is admitted (the token itself is never stored). */
typedef struct {
    char name[LG_NAME_MAX];
    unsigned char sha256[32];
} lg_gateway_token;

typedef struct {
    lg_provider *providers;
    size_t n_providers;
    lg_retry_conf retry;
    lg_backoff_conf backoff;
    lg_breaker_conf breaker; /* the top-level defaults of every provider's */
    char store_backend[16];  /* "shm" (default) or "redis" */
    char *store_path;        /* shm: override of the state file path, or NULL */
    char *redis_url;         /* redis: "redis://[user:pass@]host[:port][/db]" or "unix:///path", or NULL */
    int64_t store_timeout_ms;      /* redis: longest wait for one round trip (default 50) */
    int64_t store_retry_ms;        /* redis: reconnect backoff cap (default 2000) */
    bool store_leases;             /* redis: admit from leases of the window (default false) */
    int64_t store_lock_timeout_ms; /* shm: longest wait for the lock (default 2000) */
    int64_t store_pause_ms;        /* shm: per-exchange state after a lock timeout before retrying (30000) */
    lg_log_level log_level;  /* default info */
    char *log_file;          /* or NULL */
    int64_t max_held_body;   /* hold.max_body_bytes: the largest request or non-stream response body held
                              * whole (to be sent again); a larger one goes through as it comes and is not
                              * retried. Default 8 MiB */
    lg_route *routes;        /* "routes", in config order (the first that matches applies), or NULL */
    size_t n_routes;
    lg_price *prices;        /* the config's "prices" first, then the price file's (first match wins) */
    size_t n_prices;
    char prices_taken[16];   /* the price file's "taken" date, "" when no file was read */
    lg_budget_conf *budgets; /* "budgets", in config order (every matching one applies) */
    size_t n_budgets;
    char *ledger_path;       /* "ledger.path": the per-request ledger's files are PATH-YYYY-MM-DD.jsonl; NULL: off */
    int64_t ledger_keep_days; /* "ledger.keep_days": older files are removed (default 30) */
    int64_t spend_flush_requests; /* "spend.flush_requests": with redis, the machine's spend pushed to the
                                   * fleet's totals after this many requests (default 100) ... */
    int64_t spend_flush_ms;       /* "spend.flush_ms": ... or this long after the last push (default 10000) */
    char *spend_time_zone;        /* "spend.time_zone": the TZ database name days, months and hours of spend
                                   * are counted in (NULL: UTC) */
    struct lg_tz *spend_tz;       /* that zone, loaded with the config */
    lg_gateway_token *gateway_tokens; /* "gateway.tokens", or NULL */
    size_t n_gateway_tokens;
    char *source;            /* path the config came from, or "(defaults)" */
    uint64_t generation;     /* distinct for every config made in the process (never 0): tells another config
                              * parsed where a freed one was from it (memos kept across exchanges) */
} lg_config;

/* A growing list of problem lines, each "ORIGIN: json.path: problem" (at most 100, then one line saying
 * the rest are not shown). */
typedef struct {
    char **items;
    size_t n;
} lg_errors;

void lg_errors_add(lg_errors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lg_errors_free(lg_errors *e);

/* Defaults: every preset active with the host's own key as its single account. Never NULL unless OOM. */
lg_config *lg_config_defaults(void);

/* Parses a JSON config text. origin names it in messages; others_can_read says whether the file is
 * readable by group or others (then literal keys are refused). Returns NULL and fills errs on any problem;
 * never crashes on any input. Semantics beyond the JSON shape:
 * - providers come in config order, then every preset no listed provider refers to (by its name, an alias
 *   such as "qwen", or "preset"), each with the host's own key; so presets stay active with zero config.
 * - a provider that is not a preset, has no "dialect" and no "accounts" is a plain host rule
 *   (LG_DIALECT_NONE); other custom providers default to the openai dialect.
 * - a custom provider with "dialect" (not none) and "upstream" needs no "hosts" (n_hosts 0): it is reached
 *   only through a fallback chain or a pin. A plain host rule takes no "breaker", "fallback" or "models".
 * - every "fallback" name is another provider (presets count, by their own name), once, of the same
 *   dialect or of another translated one (openai, anthropic, google), with no "host" account (the
 *   program's key never goes to another provider).
 * - "routes" rules: each "to" names such a provider too; "refuse" takes no "set" or "to".
 * - with retry.pool_fallback, each provider's accounts are reordered (stable): the default pool first,
 *   then the named pools in the order of their first account.
 * - "auth" (optional: "bearer", "x-api-key", "x-goog-api-key", "api-key", "query-key") overrides how
 *   the key is carried; the default is the preset's, else bearer / x-api-key (anthropic) /
 *   x-goog-api-key (google).
 * - an account's "name" defaults to "accountN"; its "key" is "env:NAME", "file:/abs/path" (first line),
 *   "host" (the key the host program sent), or the key itself. Keys are checked to be printable without
 *   whitespace, so they can never inject a header. */
lg_config *lg_config_parse(const char *json, size_t len, const char *origin, bool others_can_read,
                           lg_errors *errs);

/* Finds and loads the config: explicit path if non-NULL, else $LLMGATE_CONFIG, $XDG_CONFIG_HOME/llmgate/
 * config.json (~/.config/...), /etc/llmgate/config.json (environment ignored in setuid programs).
 * With no file anywhere returns lg_config_defaults(). NULL and errs filled on problems (an explicitly
 * named file that is missing is one; files over 1 MiB are refused). Preserves errno. */
lg_config *lg_config_load(const char *path, lg_errors *errs);

void lg_config_free(lg_config *c);

/* The first provider (config order) whose hosts match host (no port, any case, a trailing dot ignored),
 * or NULL. */
const lg_provider *lg_config_match_host(const lg_config *c, const char *host);

/* The provider named name (config order, presets included), or NULL. */
const lg_provider *lg_config_provider(const lg_config *c, const char *name);

/* The model a request for `model` is sent as on provider p: the first "models" entry whose pattern matches
 * (exact name, shell glob, "*"), else model itself. */
const char *lg_provider_map_model(const lg_provider *p, const char *model);

/* Prints the effective configuration as JSON (two-space indented) with keys shown only as key_ref and any
 * password in redis_url as "***". Also shows "source", each provider's "dialect" and "auth". Caller frees. */
char *lg_config_render(const lg_config *c);

/* Hex of the first 8 bytes of SHA-256(key) into out (LG_DIGEST_HEX bytes). */
void lg_key_digest(const char *key, char out[LG_DIGEST_HEX]);

#endif
