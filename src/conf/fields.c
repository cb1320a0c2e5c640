/* The config's field tables: the policy sections field by field, the rules between their fields, and the
 * JSON names of the config's enumerations (see fields.h). */
#include <stddef.h>
#include <string.h>

#include "conf/fields.h"
#include "llmgate/tz.h"
#include "llmgate/limiter.h"

const char *const conf_auth_names[] = {"bearer", "x-api-key", "x-goog-api-key", "api-key", "query-key", NULL};
const char *const conf_boundary_names[] = {"utf8", "event", "none", NULL};
static const char *const level_names[] = {"error", "warn", "info", "debug", NULL};
const char *const conf_dialect_names[] = {"none", "openai", "anthropic", "google", "dashscope", "baidu", NULL};
static const char *const backend_names[] = {"shm", "redis", NULL};

_Static_assert(sizeof(lg_log_level) == sizeof(int), "CONF_CHOICE keeps an enum as an int");

#define COUNT(a) (sizeof(a) / sizeof((a)[0]) - 1)
#define MS_MAX ((double)LG_CONF_MS_MAX)
#define MS_WHAT "a non-negative integer (milliseconds)"
#define POSITIVE_MS_WHAT "a positive integer (milliseconds)"
#define PATH_LEN_MAX 4096

/* Rows of the tables: a field of struct type kept in member, named json. */
#define BOOL(json, type, member, dflt) {.name = json, .kind = CONF_BOOL, .offset = offsetof(type, member), .def = dflt}
#define INT(json, type, member, lo, hi, expected, dflt)                                                           \
    {.name = json, .kind = CONF_INT, .offset = offsetof(type, member), .min = lo, .max = hi, .what = expected,    \
     .def = dflt}
#define NUMBER(json, type, member, lo, exclusive, hi, expected, dflt)                                             \
    {.name = json, .kind = CONF_NUMBER, .offset = offsetof(type, member), .min = lo, .min_exclusive = exclusive,  \
     .max = hi, .what = expected, .def = dflt}
#define INT64(json, type, member, lo, hi, expected, dflt)                                                         \
    {.name = json, .kind = CONF_INT64, .offset = offsetof(type, member), .min = lo, .max = hi, .what = expected,  \
     .def = dflt}
#define MS(json, type, member, lo, expected, dflt) INT64(json, type, member, lo, MS_MAX, expected, dflt)
#define PATH(json, member, ...)                                                                                   \
    {.name = json, .kind = CONF_PATH, .offset = offsetof(lg_config, member), .aux = PATH_LEN_MAX, __VA_ARGS__}

static const int64_t quota_steps[] = {60000, 300000, 1800000, 7200000, 0};

static const conf_field retry_fields[] = {
    BOOL("switch_on_first_rate_limit", lg_retry_conf, switch_on_first_rate_limit, 1),
    {.name = "max_rate_limit_wait_seconds", .kind = CONF_SECONDS,
     .offset = offsetof(lg_retry_conf, max_rate_limit_wait_ms), .min = 0, .max = 1e9,
     .what = "a non-negative number of seconds", .def = 300},
    INT("max_attempts", lg_retry_conf, max_attempts, 1, 1000, "an integer from 1 to 1000", 10),
    MS("switch_delay_ms", lg_retry_conf, switch_delay_ms, 0, MS_WHAT, 1000),
    MS("same_key_retry_delay_ms", lg_retry_conf, same_key_retry_delay_ms, 0, MS_WHAT, 1000),
    MS("switch_after_retry_ms", lg_retry_conf, switch_after_retry_ms, 0, MS_WHAT, 5000),
    INT("max_server_retries", lg_retry_conf, max_server_retries, 0, 1000, "an integer from 0 to 1000", 2),
    NUMBER("budget_ratio", lg_retry_conf, budget_ratio, 0, false, 100, "a non-negative number (0.2 = 20 %)", 0.2),
    NUMBER("budget_min_per_s", lg_retry_conf, budget_min_per_s, 0, false, 1e6,
           "a non-negative number of retries per second", 0.5),
    BOOL("pool_fallback", lg_retry_conf, pool_fallback, 0),
    {.name = "pin_separator", .kind = CONF_TOKEN, .offset = offsetof(lg_retry_conf, pin_separator),
     .aux = sizeof((lg_retry_conf *)0)->pin_separator, .def_text = ":"},
    MS("fallback_after_ms", lg_retry_conf, fallback_after_ms, 0, MS_WHAT, 1000),
    MS("attempt_timeout_ms", lg_retry_conf, attempt_timeout_ms, 0, MS_WHAT, 600000),
    MS("idle_timeout_ms", lg_retry_conf, idle_timeout_ms, 0, MS_WHAT, 300000),
};

static const conf_field backoff_fields[] = {
    {.name = "quota_exhausted_ms", .kind = CONF_MS_STEPS, .offset = offsetof(lg_backoff_conf, quota_exhausted_ms),
     .aux = offsetof(lg_backoff_conf, n_quota_steps), .min = 0, .max = MS_MAX, .what = MS_WHAT,
     .def_steps = quota_steps},
    MS("rate_limit_exceeded_ms", lg_backoff_conf, rate_limit_exceeded_ms, 0, MS_WHAT, 30000),
    MS("model_capacity_exhausted_ms", lg_backoff_conf, model_capacity_exhausted_ms, 0, MS_WHAT, 15000),
    MS("server_error_ms", lg_backoff_conf, server_error_ms, 0, MS_WHAT, 20000),
    MS("unknown_ms", lg_backoff_conf, unknown_ms, 0, MS_WHAT, 60000),
    MS("dedup_window_ms", lg_backoff_conf, dedup_window_ms, 0, MS_WHAT, 2000),
    MS("reset_after_ms", lg_backoff_conf, reset_after_ms, 0, MS_WHAT, 120000),
    MS("single_account_base_ms", lg_backoff_conf, single_account_base_ms, 0, MS_WHAT, 1000),
    MS("single_account_max_ms", lg_backoff_conf, single_account_max_ms, 0, MS_WHAT, 60000),
    MS("max_hint_ms", lg_backoff_conf, max_hint_ms, 0, MS_WHAT, 86400000),
    MS("billing_ms", lg_backoff_conf, billing_ms, 0, MS_WHAT, 14400000),
    MS("key_refused_ms", lg_backoff_conf, key_refused_ms, 0, MS_WHAT, 14400000),
};

static const conf_field breaker_fields[] = {
    NUMBER("failure_ratio", lg_breaker_conf, failure_ratio, 0, true, 1, "a number greater than 0 and at most 1", 0.5),
    INT("min_requests", lg_breaker_conf, min_requests, 1, 1000000, "an integer from 1 to 1000000", 10),
    MS("window_ms", lg_breaker_conf, window_ms, 1, POSITIVE_MS_WHAT, 30000),
    INT("consecutive_failures", lg_breaker_conf, consecutive_failures, 0, 1000000,
        "an integer from 0 (never) to 1000000", 5),
    MS("open_ms", lg_breaker_conf, open_ms, 1, POSITIVE_MS_WHAT, 30000),
    MS("open_max_ms", lg_breaker_conf, open_max_ms, 1, POSITIVE_MS_WHAT, 300000),
};

static const conf_field store_fields[] = {
    {.name = "backend", .kind = CONF_CHOICE_TEXT, .offset = offsetof(lg_config, store_backend),
     .aux = sizeof((lg_config *)0)->store_backend, .names = backend_names, .def = 0},
    PATH("path", store_path),
    PATH("redis_url", redis_url, .redact_url = true),
    MS("timeout_ms", lg_config, store_timeout_ms, 0, MS_WHAT, 50),
    MS("retry_ms", lg_config, store_retry_ms, 0, MS_WHAT, 2000),
    BOOL("leases", lg_config, store_leases, 0),
    MS("lock_timeout_ms", lg_config, store_lock_timeout_ms, 0, MS_WHAT, 2000),
    MS("pause_ms", lg_config, store_pause_ms, 0, MS_WHAT, 30000),
};

static const conf_field spend_fields[] = {
    INT64("flush_requests", lg_config, spend_flush_requests, 1, 1000000, "an integer from 1 to 1000000", 100),
    MS("flush_ms", lg_config, spend_flush_ms, 0, MS_WHAT, 10000),
    PATH("time_zone", spend_time_zone),
};

static const conf_field log_fields[] = {
    {.name = "level", .kind = CONF_CHOICE, .offset = offsetof(lg_config, log_level), .names = level_names,
     .def = LG_LOG_INFO},
    PATH("file", log_file, .nullable = true),
};

static const conf_field hold_fields[] = {
    INT64("max_body_bytes", lg_config, max_held_body, 65536, 1 << 30, "an integer from 65536 to 1073741824 (bytes)",
          8 * 1024 * 1024),
};

static const conf_field limits_fields[] = {
    INT64("rpm", lg_limits, rpm, 1, (double)LG_CONF_COUNT_MAX, "a positive integer", 0),
    INT64("tpm", lg_limits, tpm, 1, (double)LG_CONF_COUNT_MAX, "a positive integer", 0),
    MS("window_ms", lg_limits, window_ms, 1, POSITIVE_MS_WHAT, 60000),
    {.name = "tier", .kind = CONF_NAME, .offset = offsetof(lg_limits, tier), .aux = sizeof((lg_limits *)0)->tier,
     .what = "a tier name such as \"tier-2\""},
};

/* backoff: the single-account backoff starts no higher than its cap. */
static void check_backoff(conf_ctx *cx, const cJSON *obj, const char *path, void *base)
{
    (void)obj, (void)path;
    const lg_backoff_conf *b = base;
    if (b->single_account_base_ms > b->single_account_max_ms)
        conf_err(cx, "backoff.single_account_base_ms", "%lld exceeds single_account_max_ms (%lld)",
                 (long long)b->single_account_base_ms, (long long)b->single_account_max_ms);
}

/* breaker: open_ms is at most open_max_ms, reported at the member this object set. */
static void check_breaker(conf_ctx *cx, const cJSON *obj, const char *path, void *base)
{
    char kp[LG_CONF_PATH_MAX];
    const lg_breaker_conf *b = base;
    bool has_open = cJSON_GetObjectItemCaseSensitive(obj, "open_ms") != NULL;
    if (b->open_ms <= b->open_max_ms || (!has_open && !cJSON_GetObjectItemCaseSensitive(obj, "open_max_ms")))
        return; /* consistent, or inherited as it is (then reported where it was set) */
    if (has_open) {
        conf_path_key(kp, path, "open_ms");
        conf_err(cx, kp, "%lld exceeds open_max_ms (%lld)", (long long)b->open_ms, (long long)b->open_max_ms);
    } else {
        conf_path_key(kp, path, "open_max_ms");
        conf_err(cx, kp, "%lld is less than open_ms (%lld)", (long long)b->open_max_ms, (long long)b->open_ms);
    }
}

/* store: path only for shm and absolute; redis_url only for redis, required there, and a redis:// or
 * unix:// URL. */
static void check_store(conf_ctx *cx, const cJSON *obj, const char *path, void *base)
{
    (void)obj, (void)path;
    const lg_config *c = base;
    bool redis = !strcmp(c->store_backend, "redis");
    if (c->store_path && c->store_path[0] != '/')
        conf_err(cx, "store.path", "expected an absolute path");
    if (c->store_path && redis)
        conf_err(cx, "store.path", "only used with \"backend\": \"shm\"");
    if (c->redis_url && !redis)
        conf_err(cx, "store.redis_url", "only used with \"backend\": \"redis\"");
    if (c->redis_url && strncmp(c->redis_url, "redis://", 8) && strncmp(c->redis_url, "unix://", 7))
        conf_err(cx, "store.redis_url", "expected a redis:// or unix:// URL");
    if (redis && !c->redis_url)
        conf_err(cx, "store.redis_url", "required with \"backend\": \"redis\"");
}

/* spend: time_zone names a zone of the TZ database, loaded here (its days count spend and budgets). */
static void check_spend(conf_ctx *cx, const cJSON *obj, const char *path, void *base)
{
    (void)obj, (void)path;
    lg_config *c = base;
    char why[600];
    lg_tz_free(c->spend_tz);
    c->spend_tz = NULL;
    if (c->spend_time_zone && !(c->spend_tz = lg_tz_load(c->spend_time_zone, why, sizeof why)))
        conf_err(cx, "spend.time_zone", "%s", why);
}

/* limits: the tier is a known one (lg_tier_known). */
static void check_limits(conf_ctx *cx, const cJSON *obj, const char *path, void *base)
{
    char kp[LG_CONF_PATH_MAX];
    const lg_limits *l = base;
    (void)obj;
    if (l->tier[0] && !lg_tier_known(l->tier)) {
        conf_path_key(kp, path, "tier");
        conf_err(cx, kp, "unknown tier \"%s\" (known: free, tier-1 ... tier-5)", l->tier);
    }
}

/* A section of fields kept at offset in lg_config; a table longer than CONF_FIELDS_MAX does not compile. */
#define N_FIELDS(fields) (sizeof fields / sizeof fields[0])
#define SECTION(json, offset, fields, rules)                                                                     \
    {json, offset, fields, sizeof(char[N_FIELDS(fields) <= CONF_FIELDS_MAX ? 1 : -1]) * 0 + N_FIELDS(fields), rules}

static const conf_section retry_section = SECTION("retry", offsetof(lg_config, retry), retry_fields, NULL);
static const conf_section backoff_section =
    SECTION("backoff", offsetof(lg_config, backoff), backoff_fields, check_backoff);
const conf_section conf_breaker_section =
    SECTION("breaker", offsetof(lg_config, breaker), breaker_fields, check_breaker);
const conf_section conf_limits_section = SECTION("limits", 0, limits_fields, check_limits);
static const conf_section store_section = SECTION("store", 0, store_fields, check_store);
static const conf_section log_section = SECTION("log", 0, log_fields, NULL);
static const conf_section hold_section = SECTION("hold", 0, hold_fields, NULL);
static const conf_section spend_section = SECTION("spend", 0, spend_fields, check_spend);

const conf_section *const conf_sections[] = {&retry_section, &backoff_section, &conf_breaker_section,
                                             &store_section, &log_section,     &hold_section,
                                             &spend_section};
const size_t conf_n_sections = sizeof conf_sections / sizeof conf_sections[0];
_Static_assert(sizeof conf_sections / sizeof conf_sections[0] + 2 <= CONF_FIELDS_MAX,
               "the top level lists the sections, \"providers\" and \"routes\"");

lg_auth_style conf_default_auth(lg_dialect d)
{
    switch (d) {
    case LG_DIALECT_ANTHROPIC:
        return LG_AUTH_X_API_KEY;
    case LG_DIALECT_GOOGLE:
        return LG_AUTH_X_GOOG_API_KEY;
    default:
        return LG_AUTH_BEARER;
    }
}

const char *conf_auth_name(lg_auth_style a)
{
    return (unsigned)a < COUNT(conf_auth_names) ? conf_auth_names[a] : "bearer";
}

const char *conf_boundary_name(lg_stream_boundary b)
{
    return (unsigned)b < COUNT(conf_boundary_names) ? conf_boundary_names[b] : "utf8";
}
